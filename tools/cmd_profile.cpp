// `xpose profile`: runs Nsight Compute on one launch of a variant and compares its four shared-memory
// counters with the bank model (`xpose banks`), counter by counter. `--suite` runs the standard set.
// Exit codes: 0 all match, 1 a mismatch (or ncu failed), 2 bad arguments, 77 skipped (no ncu, no GPU,
// or no permission to read the GPU's counters; CTest reads 77 as "skipped").
//
// ncu profiles a child process: this same executable (/proc/self/exe) running the hidden
// `xpose launch`, which plans the variant through the public API, fills random input and executes
// once. --kernel-name and --launch-count 1 pick the variant's kernel.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#ifdef XPOSE_HAS_CUDA
#include <cuda_runtime.h>
#endif

#include "banks_common.hpp"
#include "bench/runner.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "xpose/plan.hpp"

namespace xpose::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitSkipped = 77;

// ---- finding things ----

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// ncu on the PATH, else in the usual install folders (the newest version first).
std::string find_ncu() {
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      if (!dir.empty() && is_executable(fs::path(dir) / "ncu")) return (fs::path(dir) / "ncu").string();
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (is_executable("/usr/local/cuda/bin/ncu")) return "/usr/local/cuda/bin/ncu";
  std::vector<fs::path> found;
  auto scan = [&](const fs::path& parent, std::string_view prefix) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && is_executable(e.path() / "ncu")) found.push_back(e.path() / "ncu");
    }
  };
  scan("/opt/nvidia/nsight-compute", "");
  scan("/usr/local/cuda", "nsight-compute");
  if (found.empty()) return {};
  std::sort(found.begin(), found.end());
  return found.back().string();
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `cmd` through the shell, stdout and stderr together; returns its exit status (-1 if it
// could not be started).
int run_capture(const std::string& cmd, std::string* output) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((cmd + " 2>&1").c_str(), "r"), ::pclose);
  if (!pipe) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0) output->append(buf, n);
  const int status = ::pclose(pipe.release());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---- one comparison ----

struct profile_case {
  std::string variant, shape, block, dtype;
  std::int64_t batch = 1;
  // false: a configuration where ncu's counters are known to carry extra load wavefronts from
  // concurrent global-memory traffic (docs/banks.md); reported, not counted.
  bool exact = true;
};

struct profile_result {
  profile_case pc;
  banks_config cfg;
  model::launch_totals model;
  model::smem_counters measured;
  bool measured_ok = false;
  bool skipped = false;  // ncu could not read counters at all (permissions): the whole run is skipped
  std::string error, kernel_name;
  double seconds = 0;
  bool match() const { return measured_ok && measured == model.compiled; }
};

profile_result profile_one(const profile_case& pc, const std::string& ncu, const std::string& self) {
  profile_result r;
  r.pc = pc;
  std::string why;
  if (!parse_banks_config(pc.variant, pc.shape, pc.block, pc.dtype, pc.batch, &r.cfg, &why) ||
      model::count_launch(r.cfg.kernel, {r.cfg.shape.rows, r.cfg.shape.cols, pc.batch}, &r.model, &why) !=
          status::kSuccess) {
    r.error = why;
    return r;
  }
  const auto& k = r.cfg.kernel;
  const std::string metrics = fmt::format("{},{},{},{}", kMetricLdWavefronts, kMetricStWavefronts, kMetricLdConflicts,
                                          kMetricStConflicts);
  // Variants that fix their own block (fast_tile, narrow, permute_packed) are planned without one:
  // the planner refuses a block shape for them.
  const model::variant_entry* ve = model::find_modelled_variant(k.variant);
  const std::string block = ve && ve->default_block_x == 0 ? "" : fmt::format(" --block {}x{}", k.block_x, k.block_y);
  std::string cmd = fmt::format(
      "{} --clock-control none --print-units base --csv --launch-count 1 --kernel-name regex:{} --metrics {} "
      "{} launch --variant {} --shape {}x{} --batch {}{} --dtype {}",
      shell_quote(ncu), k.kernel_function, metrics, shell_quote(self), k.variant, r.cfg.shape.rows, r.cfg.shape.cols,
      pc.batch, block, r.cfg.dtype);
  if (is_executable("/usr/bin/timeout")) cmd = "/usr/bin/timeout 300 " + cmd;
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  const int rc = run_capture(cmd, &out);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (out.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    r.skipped = true;
    r.error = "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)";
    return r;
  }
  if (!parse_ncu_csv(out, &r.measured, &r.kernel_name, &why)) {
    // Keep the last line ncu or the launch printed: it usually names the problem.
    std::string last;
    std::size_t e = out.find_last_not_of("\n ");
    if (e != std::string::npos) {
      const std::size_t b = out.rfind('\n', e);
      last = out.substr(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
    }
    r.error = fmt::format("{} (ncu exit {}{})", why, rc, last.empty() ? "" : "; last line: " + last);
    return r;
  }
  r.measured_ok = true;
  return r;
}

std::string verdict(const profile_result& r) {
  if (!r.measured_ok) return "ERROR";
  if (r.match()) return "MATCH";
  if (!r.pc.exact) {
    const auto& m = r.model.compiled;
    const auto& x = r.measured;
    if (x.st_wavefronts == m.st_wavefronts && x.st_conflicts == m.st_conflicts && x.ld_wavefronts > m.ld_wavefronts &&
        x.ld_wavefronts - m.ld_wavefronts == x.ld_conflicts - m.ld_conflicts)
      return fmt::format("NOISY (+{} ld)", x.ld_wavefronts - m.ld_wavefronts);
    return "DIFFERS";
  }
  return "MISMATCH";
}

nlohmann::json result_json(const profile_result& r) {
  // The model's numbers whenever the configuration was valid, even if ncu then failed.
  nlohmann::json j =
      r.cfg.kernel.variant.empty() ? nlohmann::json::object() : banks_totals_json(r.cfg, r.pc.batch, r.model);
  j["variant"] = r.pc.variant;
  j["shape"] = r.pc.shape;
  j["batch"] = r.pc.batch;
  j["dtype"] = r.pc.dtype;
  if (!r.cfg.kernel.variant.empty()) j["block"] = fmt::format("{}x{}", r.cfg.kernel.block_x, r.cfg.kernel.block_y);
  j["exact"] = r.pc.exact;
  j["verdict"] = verdict(r);
  j["seconds"] = r.seconds;
  if (!r.error.empty()) j["error"] = r.error;
  if (r.measured_ok) {
    j["ncu_kernel"] = r.kernel_name;
    j["ncu"] = {{"shared_ld_wavefronts", r.measured.ld_wavefronts},
                {"shared_ld_conflicts", r.measured.ld_conflicts},
                {"shared_st_wavefronts", r.measured.st_wavefronts},
                {"shared_st_conflicts", r.measured.st_conflicts}};
  }
  return j;
}

bool write_json(const std::string& path, const nlohmann::json& j, context& ctx) {
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) {
    ctx.err << "xpose profile: error: cannot write " << path << "\n";
    return false;
  }
  return true;
}

// An unwritable --json path is an argument error found before any ncu launch, not after them.
bool json_path_ok(const std::string& path, context& ctx) {
  std::string why;
  if (path.empty() || output_path_writable(path, &why)) return true;
  ctx.err << "xpose profile: error: " << why << "\n";
  ctx.exit_code = 2;
  return false;
}

// Finds ncu and a GPU; on failure says why on one line and sets the exit code (77: skipped).
bool ready(std::string* ncu, std::string* self, context& ctx) {
  std::string why;
  *ncu = find_ncu();
  if (ncu->empty()) {
    ctx.out << "xpose profile: skipped: Nsight Compute (ncu) not found on the PATH, in /usr/local/cuda/bin, "
               "/opt/nvidia/nsight-compute/*/ or /usr/local/cuda/nsight-compute*/\n";
    ctx.exit_code = kExitSkipped;
    return false;
  }
  if (!bench::gpu_present(&why)) {
    ctx.out << "xpose profile: skipped: no usable CUDA device (" << why << ")\n";
    ctx.exit_code = kExitSkipped;
    return false;
  }
  *self = self_exe();
  if (self->empty()) {
    ctx.err << "xpose profile: error: cannot find this executable through /proc/self/exe\n";
    ctx.exit_code = 1;
    return false;
  }
  return true;
}

// ---- the commands ----

struct profile_args {
  std::string variant, shape, block, dtype = "f32", json_path;
  std::int64_t batch = 1;
  bool suite = false;
};

// The standard comparison set. Shapes are small on purpose: on launches with many blocks per SM
// (1000x1000 or 512x768 with the seeds' 16x16 blocks) ncu adds load wavefronts and "conflicts" that
// no access pattern explains and that change from run to run (+1% to +7% on the H200); the likely
// cause is collisions with concurrent global-memory traffic in the same L1 data banks. Every `exact`
// case below gave the same counts in 3 to 5 repeated ncu runs on the H200.
std::vector<profile_case> standard_suite() {
  std::vector<profile_case> s;
  const char* shapes[] = {"256x256", "100x100", "130x70"};  // 100x100 and 130x70 are not block multiples
  for (const char* v : {"smem_v1", "smem_v2", "smem_v3", "tiled"}) {
    for (const char* shape : shapes)
      for (const char* d : {"f16", "f32", "f64"}) s.push_back({v, shape, "", d});
    for (const char* d : {"i8", "c128"}) s.push_back({v, "100x100", "", d});
    const bool seed = std::string_view(v) != "tiled";
    for (const char* b : seed ? std::vector<const char*>{"8x8", "32x32"} : std::vector<const char*>{"32x4", "32x16"})
      s.push_back({v, "100x100", b, "f32"});
  }
  s.push_back({"smem_v3", "37x45", "", "f32", 3});
  s.push_back({"tiled", "37x45", "", "f64", 3});
  // The library's own kernels (models not yet checked against ncu when they were added: these rows
  // are that check). fast_tile: 4-byte conflict-free, the 2-byte gather 2-way, 1-byte elements
  // through swizzled words (conflict-free, 16-byte loads); 100x100 and 112x208 have edge tiles,
  // whose shared accesses are the interior's. narrow: both modes, and a last chunk
  // shorter than the others (4x1000). permute_packed: a padded 40x40 box for 4 bytes (256x256),
  // edge boxes (100x100: 40x40 boxes cut to 20), 2- and 8-byte boxes.
  for (const char* d : {"f32", "f16", "i8"}) s.push_back({"fast_tile", "256x256", "", d});
  s.push_back({"fast_tile", "100x100", "", "f32"});
  s.push_back({"fast_tile", "112x208", "", "i8"});
  for (const char* shape : {"64x4096", "4096x64"})
    for (const char* d : {"f32", "f16"}) s.push_back({"narrow", shape, "", d});
  s.push_back({"narrow", "4x1000", "", "f32"});
  for (const char* d : {"f32", "f16", "f64"}) s.push_back({"permute_packed", "256x256", "", d});
  s.push_back({"permute_packed", "100x100", "", "f32"});
  s.push_back({"permute_packed", "130x70", "", "c128"});
  // Reported, not counted: larger launches. The seeds' kernels there carry the extra load wavefronts
  // described above; tiled came out exact in every run so far, but is not relied on.
  s.push_back({"smem_v2", "1000x1000", "", "f32", 1, false});
  s.push_back({"smem_v3", "512x768", "", "f16", 1, false});
  s.push_back({"tiled", "1000x1000", "", "f32", 1, false});
  s.push_back({"tiled", "512x768", "", "f64", 1, false});
  return s;
}

void run_single(const profile_args& a, context& ctx) {
  banks_config cfg;
  std::string why;
  if (!parse_banks_config(a.variant, a.shape, a.block, a.dtype, a.batch, &cfg, &why)) {
    ctx.err << "xpose profile: error: " << why << "\n";
    ctx.exit_code = 2;
    return;
  }
  std::string ncu, self;
  if (!json_path_ok(a.json_path, ctx) || !ready(&ncu, &self, ctx)) return;
  const profile_result r = profile_one({a.variant, a.shape, a.block, a.dtype, a.batch}, ncu, self);
  if (r.skipped) {
    ctx.out << "xpose profile: skipped: " << r.error << "\n";
    ctx.exit_code = kExitSkipped;
    return;
  }
  const auto& k = r.cfg.kernel;
  ctx.out << fmt::format("{} {}x{}{} {} block {}x{}: ncu {} ({:.1f} s)\n", k.variant, r.cfg.shape.rows,
                         r.cfg.shape.cols, a.batch > 1 ? fmt::format(" batch {}", a.batch) : "", a.dtype, k.block_x,
                         k.block_y, ncu, r.seconds);
  if (!r.measured_ok) {
    ctx.err << "xpose profile: error: " << r.error << "\n";
    ctx.exit_code = 1;
    return;
  }
  if (!r.kernel_name.empty()) ctx.out << "profiled kernel: " << r.kernel_name << "\n";
  if (k.compiled_away) ctx.out << "model: the compiled kernel makes no shared accesses, so every counter is 0\n";
  ctx.out << fmt::format("{:<58} {:>12} {:>12}  verdict\n", "counter", "model", "ncu");
  const auto model_m = banks_metrics(r.model.compiled), ncu_m = banks_metrics(r.measured);
  bool all = true;
  for (std::size_t i = 0; i < model_m.size(); ++i) {
    const bool ok = model_m[i].second == ncu_m[i].second;
    all = all && ok;
    ctx.out << fmt::format("{:<58} {:>12} {:>12}  {}\n", model_m[i].first, with_commas(model_m[i].second),
                           with_commas(ncu_m[i].second), ok ? "MATCH" : "MISMATCH");
  }
  if (!a.json_path.empty() && !write_json(a.json_path, result_json(r), ctx)) all = false;
  ctx.exit_code = all ? 0 : 1;
}

void run_suite(const profile_args& a, context& ctx) {
  std::string ncu, self;
  if (!json_path_ok(a.json_path, ctx) || !ready(&ncu, &self, ctx)) return;
  const auto cases = standard_suite();
  ctx.out << fmt::format("xpose profile --suite: {} launches, each under {}\n", cases.size(), ncu);
  ctx.out << "model/ncu per counter; cases marked * are known to be disturbed by global traffic and are not counted\n";
  ctx.out << fmt::format("{:<13} {:>9} {:>5} {:>5} {:<5} {:>19} {:>19} {:>17} {:>11}  {}\n", "variant", "shape", "batch",
                         "block", "dtype", "ld wavefronts", "ld conflicts", "st wavefronts", "st conflicts", "verdict");
  ctx.out.flush();
  int matched = 0, mismatched = 0, reported = 0;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& pc : cases) {
    const profile_result r = profile_one(pc, ncu, self);
    if (r.skipped) {
      ctx.out << "xpose profile: skipped: " << r.error << "\n";
      ctx.exit_code = kExitSkipped;
      return;
    }
    const auto& m = r.model.compiled;
    const auto& x = r.measured;
    auto pair = [&](std::int64_t mv, std::int64_t xv) {
      return r.measured_ok ? fmt::format("{}/{}", mv, xv) : fmt::format("{}/-", mv);
    };
    const std::string block =
        r.cfg.kernel.variant.empty() ? pc.block : fmt::format("{}x{}", r.cfg.kernel.block_x, r.cfg.kernel.block_y);
    ctx.out << fmt::format("{:<13} {:>9} {:>5} {:>5} {:<5} {:>19} {:>19} {:>17} {:>11}  {}{}\n", pc.variant, pc.shape,
                           pc.batch, block, pc.dtype, pair(m.ld_wavefronts, x.ld_wavefronts),
                           pair(m.ld_conflicts, x.ld_conflicts), pair(m.st_wavefronts, x.st_wavefronts),
                           pair(m.st_conflicts, x.st_conflicts), pc.exact ? "" : "*", verdict(r));
    if (!r.error.empty() && !r.measured_ok) ctx.out << "    " << r.error << "\n";
    ctx.out.flush();
    if (!pc.exact)
      ++reported;
    else if (r.match())
      ++matched;
    else
      ++mismatched;
    all.push_back(result_json(r));
  }
  ctx.out << fmt::format("{} matched, {} mismatched ({} disturbed launches reported, not counted)\n", matched, mismatched,
                         reported);
  bool wrote = true;
  if (!a.json_path.empty())
    wrote = write_json(a.json_path, {{"ncu", ncu}, {"matched", matched}, {"mismatched", mismatched}, {"results", all}}, ctx);
  ctx.exit_code = mismatched == 0 && wrote ? 0 : 1;
}

// ---- `xpose launch`: the child ncu profiles ----

struct launch_args {
  std::string variant, shape, block, dtype = "f32";
  std::int64_t batch = 1;
};

void run_launch(const launch_args& a, context& ctx) {
  std::string why;
  // Only the generic checks here: make_plan validates the variant and its block like any caller.
  shape2 shape;
  if (!parse_shape(a.shape, &shape, &why)) {
    ctx.err << "xpose launch: error: " << why << "\n";
    ctx.exit_code = 2;
    return;
  }
  const auto d = find_dtype(a.dtype);
  int bx = 0, by = 0;
  if (!d || a.batch < 1 || (!a.block.empty() && !parse_block(a.block, &bx, &by, &why))) {
    ctx.err << "xpose launch: error: " << (d ? (a.batch < 1 ? "batch must be at least 1" : why) : "unknown dtype " + a.dtype)
            << "\n";
    ctx.exit_code = 2;
    return;
  }
#ifdef XPOSE_HAS_CUDA
  transpose_desc desc;
  desc.rows = shape.rows;
  desc.cols = shape.cols;
  desc.elem_bytes = d->bytes;
  desc.batch = a.batch;
  plan_options opt;
  opt.where = backend::kGpu;
  opt.variant = a.variant;
  opt.block_x = bx;
  opt.block_y = by;
  plan p;
  if (make_plan(desc, opt, &p, &why) != status::kSuccess) {
    ctx.err << "xpose launch: error: " << why << "\n";
    ctx.exit_code = 2;
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(shape.rows * shape.cols * a.batch * d->bytes);
  std::vector<unsigned char> host(bytes);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;  // splitmix64: random input, nothing for the kernel to exploit
  for (std::size_t i = 0; i < bytes; ++i) {
    x += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    host[i] = static_cast<unsigned char>(z ^ (z >> 31));
  }
  void *d_in = nullptr, *d_out = nullptr;
  auto check = [&](cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    ctx.err << "xpose launch: error: " << what << " failed: " << cudaGetErrorString(e) << "\n";
    ctx.exit_code = 1;
    return false;
  };
  if (check(cudaMalloc(&d_in, bytes), "cudaMalloc") && check(cudaMalloc(&d_out, bytes), "cudaMalloc") &&
      check(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) {
    if (execute(p, d_in, d_out, nullptr, &why) != status::kSuccess) {
      ctx.err << "xpose launch: error: " << why << "\n";
      ctx.exit_code = 1;
    } else if (check(cudaDeviceSynchronize(), "the kernel")) {
      ctx.exit_code = 0;
    }
  }
  if (d_in) cudaFree(d_in);
  if (d_out) cudaFree(d_out);
#else
  ctx.out << "xpose launch: skipped: xpose was built without CUDA\n";
  ctx.exit_code = kExitSkipped;
#endif
}

}  // namespace

void add_profile_command(CLI::App& app, context& ctx) {
  auto args = std::make_shared<profile_args>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Measure a variant's shared-memory counters with Nsight Compute and compare them with `xpose banks`");
  cmd->add_option("--variant", args->variant, "a variant with shared memory: " + model::modelled_variant_list());
  cmd->add_option("--shape", args->shape, "matrix shape RxC");
  cmd->add_option("--block", args->block, "block WxH (default: the variant's)");
  cmd->add_option("--dtype", args->dtype, "element type (default f32)");
  cmd->add_option("--batch", args->batch, "number of matrices (default 1)");
  cmd->add_flag("--suite", args->suite, "run the standard comparison set");
  cmd->add_option("--json", args->json_path, "also write the results to this JSON file");
  cmd->callback([args, &ctx]() {
    if (args->suite) return run_suite(*args, ctx);
    if (args->variant.empty() || args->shape.empty()) {
      ctx.err << "xpose profile: error: give --variant and --shape, or --suite\n";
      ctx.exit_code = 2;
      return;
    }
    run_single(*args, ctx);
  });

  // Hidden (empty group): the one launch ncu profiles.
  auto largs = std::make_shared<launch_args>();
  CLI::App* launch = app.add_subcommand("launch", "Run one transpose on the GPU (used by `xpose profile`)");
  launch->group("");
  launch->add_option("--variant", largs->variant, "variant")->required();
  launch->add_option("--shape", largs->shape, "RxC")->required();
  launch->add_option("--block", largs->block, "WxH");
  launch->add_option("--dtype", largs->dtype, "element type");
  launch->add_option("--batch", largs->batch, "number of matrices");
  launch->callback([largs, &ctx]() { run_launch(*largs, ctx); });
}

}  // namespace xpose::cli
