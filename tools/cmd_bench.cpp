// `xpose bench`: times variants against a copy of the same bytes in the same run, verifies every
// output, prints a markdown table and optionally JSON / CSV.
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "bench/report.hpp"
#include "bench/runner.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "dispatch/registry.hpp"
#include "plan/validate.hpp"
#include "suites.hpp"

namespace xpose::cli {
namespace {

struct bench_args {
  std::string variants, shapes, dtypes, block, device, json_file, csv_file, baseline, extents, perm, suite;
  std::string cpu_tuning = "auto", host_pages = "default";
  std::int64_t batch = 1;
  std::optional<std::int64_t> ld_in, ld_out;
  int offset = 0;
  int reps = 20, warmup = 2, threads = 0;
  std::uint64_t seed = 1;
};

struct group {
  bench::problem_spec problem;
  std::vector<bench::variant_spec> variants;
};

bench::problem_spec transpose_problem(std::int64_t rows, std::int64_t cols, std::int64_t batch, const dtype_info& t,
                                      std::optional<std::int64_t> ld_in = {}, std::optional<std::int64_t> ld_out = {},
                                      int offset = 0) {
  bench::problem_spec p;
  p.transpose = transpose_desc{.rows = rows, .cols = cols, .elem_bytes = t.bytes, .ld_in = ld_in, .ld_out = ld_out,
                               .batch = batch};
  p.dtype = t.name;
  p.elem_bytes = t.bytes;
  p.offset_elems = offset;
  p.label = batch > 1 ? fmt::format("{}x{}x{}", batch, rows, cols) : fmt::format("{}x{}", rows, cols);
  if (ld_in || ld_out) p.label += fmt::format(" ld {}/{}", ld_in.value_or(cols), ld_out.value_or(rows));
  if (offset) p.label += fmt::format(" +{}", offset);
  return p;
}

bench::problem_spec permute_problem(std::vector<std::int64_t> extents, std::vector<int> perm, const dtype_info& t) {
  bench::problem_spec p;
  p.label = fmt::format("[{}] perm {}", fmt::join(extents, ","), fmt::join(perm, ","));
  p.permute = permute_desc{.extents = std::move(extents), .perm = std::move(perm), .elem_bytes = t.bytes};
  p.dtype = t.name;
  p.elem_bytes = t.bytes;
  return p;
}

// The seeds' experiments (note 000 at 25600^2 with 16x16 blocks; note 001's schemes A and B at
// 1024^2 and 4096^2 with 32x16 blocks), each beside the classic tile and the library's `auto`.
std::vector<group> seed_experiments() {
  const dtype_info f32 = *find_dtype("f32");
  std::vector<group> g;
  g.push_back({transpose_problem(25600, 25600, 1, f32),
               {{"naive_row_read", 16, 16}, {"smem_v1", 16, 16}, {"smem_v2", 16, 16}, {"smem_v3", 16, 16},
                {"tiled", 0, 0}, {"auto", 0, 0}}});
  for (std::int64_t n : {1024, 4096})
    g.push_back({transpose_problem(n, n, 1, f32),
                 {{"naive_row_read", 32, 16}, {"naive_col_read", 32, 16}, {"tiled", 0, 0}, {"auto", 0, 0}}});
  return g;
}

// Without a GPU: every CPU variant on sizes a 2-core machine runs in well under a minute.
std::vector<group> cpu_experiments() {
  const dtype_info f32 = *find_dtype("f32");
  std::vector<bench::variant_spec> vs;
  for (const auto& v : detail::all_variants())
    if (v.where == backend::kCpu) vs.push_back({v.name, 0, 0});
  vs.push_back({"auto", 0, 0});
  std::vector<group> g;
  for (std::int64_t n : {1024, 4096}) g.push_back({transpose_problem(n, n, 1, f32), vs});
  return g;
}

// `--suite permute`: issue 5's suite (suites.cpp), `auto` on each case.
std::vector<group> permute_suite(const std::vector<dtype_info>& ts, std::uint64_t seed) {
  std::vector<group> g;
  for (const auto& t : ts)
    for (auto& c : permute_suite_cases(t.bytes, seed))
      g.push_back({permute_problem(std::move(c.extents), std::move(c.perm), t), {{"auto", 0, 0}}});
  return g;
}

int fail_line(context& ctx, const std::string& msg, int code = 2) {
  ctx.err << "xpose bench: error: " << msg << "\n";
  return code;
}

int run_bench(const bench_args& a, context& ctx) {
  // Backend: the GPU when there is one, else the CPU (said on stderr), unless --device says.
  std::string gpu_reason;
  const bool have_gpu = bench::gpu_present(&gpu_reason);
  backend where;
  if (a.device == "gpu") {
    if (!have_gpu) return fail_line(ctx, "--device gpu but no usable GPU: " + gpu_reason);
    where = backend::kGpu;
  } else if (a.device == "cpu") {
    where = backend::kCpu;
  } else {
    where = have_gpu ? backend::kGpu : backend::kCpu;
  }

  // Options that apply to every mode, checked before anything runs.
  int bx = 0, by = 0;
  std::string why;
  if (!a.block.empty() && !parse_block(a.block, &bx, &by, &why)) return fail_line(ctx, why);
  if (!a.baseline.empty() && a.baseline != "cublas")
    return fail_line(ctx, fmt::format("unknown baseline '{}' (known: cublas)", a.baseline));
  if (a.baseline == "cublas" && where != backend::kGpu) return fail_line(ctx, "--baseline cublas needs the GPU");

  std::vector<group> groups;
  // The matrix options shape --shapes' transposes only; without a shape they would be dropped.
  const bool matrix_opts = a.batch != 1 || a.ld_in || a.ld_out || a.offset;
  if (matrix_opts && a.shapes.empty() && (!a.extents.empty() || !a.perm.empty() || !a.suite.empty()))
    return fail_line(ctx, "--batch, --ld-in, --ld-out and --offset apply to --shapes transposes, not to --extents/--perm "
                          "or --suite permutations");
  for (const std::string* file : {&a.json_file, &a.csv_file})
    if (!file->empty() && !output_path_writable(*file, &why)) return fail_line(ctx, why);
  const bool custom = !a.variants.empty() || !a.shapes.empty() || !a.dtypes.empty() || !a.extents.empty() ||
                      !a.perm.empty() || !a.suite.empty() || !a.block.empty() || matrix_opts;
  if (a.offset && where != backend::kGpu) return fail_line(ctx, "--offset applies to the GPU bench only");
  if (!custom) {
    groups = where == backend::kGpu ? seed_experiments() : cpu_experiments();
    if (a.baseline == "cublas")
      for (auto& g : groups) g.variants.push_back({"cublas", 0, 0});
  } else {
    // Variants. A block without a variant list applies to every variant that takes one.
    std::vector<bench::variant_spec> vs;
    const std::string list = a.variants.empty() ? (a.block.empty() ? "auto" : "all") : a.variants;
    for (const auto& name : split_list(list)) {
      if (name == "all") {
        for (const auto& v : detail::all_variants())
          if (v.where == where) vs.push_back({v.name, bx, by});
        continue;
      }
      if (name != "auto") {
        const auto* v = detail::find_variant(name);
        if (!v) return fail_line(ctx, fmt::format("unknown variant '{}' (known: auto, {})", name, fmt::join(variant_names(), ", ")));
        if (v->where != where)
          return fail_line(ctx, fmt::format("variant '{}' runs on the {}, but the bench runs on the {} (use --device)",
                                            name, v->where == backend::kGpu ? "gpu" : "cpu",
                                            where == backend::kGpu ? "gpu" : "cpu"));
      }
      vs.push_back({name, bx, by});
    }
    if (a.baseline == "cublas") vs.push_back({"cublas", 0, 0});
    // Dtypes.
    std::vector<dtype_info> ts;
    for (const auto& name : split_list(a.dtypes.empty() ? "f32" : a.dtypes)) {
      const auto t = find_dtype(name);
      if (!t) return fail_line(ctx, fmt::format("unknown dtype '{}' (known: i8, f16, bf16, f32, f64, c64, c128)", name));
      ts.push_back(*t);
    }
    if (!a.suite.empty()) {
      if (a.suite != "permute") return fail_line(ctx, fmt::format("unknown suite '{}' (known: permute)", a.suite));
      auto sg = permute_suite(ts, a.seed);
      for (auto& g : sg) g.variants = vs;
      groups.insert(groups.end(), sg.begin(), sg.end());
    }
    if (!a.extents.empty() || !a.perm.empty()) {
      std::vector<std::int64_t> ext, perm64;
      if (!parse_extents_perm(a.extents, a.perm, &ext, &perm64, &why)) return fail_line(ctx, why);
      std::vector<int> perm;
      for (auto p : perm64) {
        if (p < -1000 || p > 1000) return fail_line(ctx, fmt::format("--perm entry {} is out of range", p));
        perm.push_back(static_cast<int>(p));
      }
      for (const auto& t : ts) groups.push_back({permute_problem(ext, perm, t), vs});
    }
    if (!a.shapes.empty() || (a.extents.empty() && a.perm.empty() && a.suite.empty())) {
      for (const auto& s : split_list(a.shapes.empty() ? "4096x4096" : a.shapes)) {
        shape2 sh;
        if (!parse_shape(s, &sh, &why)) return fail_line(ctx, why);
        for (const auto& t : ts)
          groups.push_back({transpose_problem(sh.rows, sh.cols, a.batch, t, a.ld_in, a.ld_out, a.offset), vs});
      }
    }
  }

  // Validate every problem before anything is allocated: bad sizes are one clear line.
  for (const auto& g : groups) {
    std::string why;
    const status s = g.problem.transpose ? detail::validate(*g.problem.transpose, &why)
                                         : detail::validate(*g.problem.permute, &why);
    if (s != status::kSuccess) return fail_line(ctx, fmt::format("{} {}: {}", g.problem.label, g.problem.dtype, why));
  }

  // Said once the arguments are known to be good, so bad input stays a single line.
  if (a.device.empty() && !have_gpu)
    ctx.err << "xpose bench: no GPU (" << gpu_reason << "); benchmarking the CPU variants\n";

  bench::run_options ro;
  ro.where = where;
  ro.reps = a.reps;
  ro.warmup = a.warmup;
  ro.cpu_threads = a.threads;
  ro.tuning = parse_cpu_tuning(a.cpu_tuning);
  ro.huge_pages = a.host_pages == "huge";
  ro.seed = a.seed;
  std::size_t total = 0, done = 0;
  for (const auto& g : groups) total += g.variants.size();
  ro.progress = [&](const std::string& what) { ctx.err << fmt::format("[{}/{}] {}\n", ++done, total, what); };

  std::vector<bench::result> results;
  for (const auto& g : groups) {
    auto rs = bench::run_problem(g.problem, g.variants, ro);
    results.insert(results.end(), rs.begin(), rs.end());
  }

  bench::print_markdown(results, ctx.out);
  int wrong = 0, skipped = 0;
  for (const auto& r : results) {
    if (r.skipped) {
      ++skipped;
      ctx.err << fmt::format("skipped {} on {} {}: {}\n", r.variant, r.label, r.dtype, r.note);
    } else if (!r.verified) {
      ++wrong;
      ctx.err << fmt::format("WRONG {} on {} {}: {}\n", r.variant, r.label, r.dtype, r.note);
    }
  }
  if (!a.json_file.empty()) {
    std::ofstream f(a.json_file);
    if (!f) return fail_line(ctx, "cannot write " + a.json_file, 1);
    f << bench::to_json(results, bench::describe_device(where), "xpose bench").dump(2) << "\n";
  }
  if (!a.csv_file.empty()) {
    std::ofstream f(a.csv_file);
    if (!f) return fail_line(ctx, "cannot write " + a.csv_file, 1);
    bench::write_csv(results, f);
  }
  if (wrong) {
    ctx.err << fmt::format("xpose bench: {} result(s) WRONG\n", wrong);
    return 1;
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, context& ctx) {
  auto* cmd = app.add_subcommand("bench", "Time variants against a device copy of the same bytes; verify every output");
  auto a = std::make_shared<bench_args>();
  cmd->add_option("--variants", a->variants, "Comma-separated variant names, 'auto' or 'all'");
  cmd->add_option("--shapes,--shape", a->shapes, "Comma-separated RxC matrix shapes (default 4096x4096)");
  cmd->add_option("--batch", a->batch, "Matrices per shape (batched transpose)")->check(at_least(1));
  cmd->add_option("--ld-in", a->ld_in, "Input leading dimension in elements (default: cols)");
  cmd->add_option("--ld-out", a->ld_out, "Output leading dimension in elements (default: rows)");
  cmd->add_option("--offset", a->offset, "GPU: start both pointers this many elements past an aligned allocation")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--dtype", a->dtypes, "Comma-separated dtypes: i8, f16, bf16, f32, f64, c64, c128 (default f32)");
  cmd->add_option("--extents", a->extents, "Permutation: input extents a,b,c (with --perm)");
  cmd->add_option("--perm", a->perm, "Permutation: output dim k = input dim perm[k]");
  cmd->add_option("--block", a->block, "Block shape WxH for the variants that take one");
  cmd->add_option("--reps", a->reps, "Timed repetitions (median, min, max are reported)")->check(at_least(1));
  cmd->add_option("--warmup", a->warmup, "Untimed runs before timing")->check(at_least(0));
  cmd->add_option("--device", a->device, "gpu or cpu (default: gpu when one is present)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  cmd->add_option("--threads", a->threads, "CPU threads (0 = all)")->check(at_least(0));
  cmd->add_option("--cpu-tuning", a->cpu_tuning, "CPU: whose tuning tables, auto (by vendor), amd or intel")
      ->check(CLI::IsMember({"auto", "amd", "intel"}));
  cmd->add_option("--host-pages", a->host_pages,
                  "CPU: the buffers' pages, default (4 KiB unless the system's THP is always) or huge (madvise, "
                  "as NumPy does for arrays of 4 MiB and more)")
      ->check(CLI::IsMember({"default", "huge"}));
  cmd->add_option("--baseline", a->baseline, "Also time a library baseline: cublas");
  cmd->add_option("--suite", a->suite, "A built-in suite: permute (issue 5's layouts, 2^26 elements and at least 256 MiB each)");
  cmd->add_option("--seed", a->seed, "Seed of the random input");
  cmd->add_option("--json", a->json_file, "Write results as JSON to FILE");
  cmd->add_option("--csv", a->csv_file, "Write results as CSV to FILE");
  cmd->callback([a, &ctx] { ctx.exit_code = run_bench(*a, ctx); });
}

}  // namespace xpose::cli
