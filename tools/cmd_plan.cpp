// `xpose plan`: what the planner chooses for a problem (or for every case of a suite), and why.
// Host-only: without a GPU, GPU plans are made for an H200, and stderr says so.
#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "dispatch/plan_data.hpp"
#include "plan/planner.hpp"
#include "plan/validate.hpp"
#include "suites.hpp"

namespace xpose::cli {
namespace {

struct plan_args {
  std::string shape, extents, perm, dtype = "f32", variant = "auto", block, device, cpu_tuning = "auto", suite;
  std::int64_t batch = 1;
  std::optional<std::int64_t> ld_in, ld_out;
  std::uint64_t seed = 1;
};

int fail_line(context& ctx, const std::string& msg) {
  ctx.err << "xpose plan: error: " << msg << "\n";
  return 2;
}

// Plans one problem (a permute_desc or a transpose_desc) and prints its summary after `prefix`.
// Without a GPU it plans for the machine the tuning tables were measured on, and says so on stderr
// once (*said).
template <class Desc>
int print_plan(const Desc& d, const plan_options& o, const std::string& prefix, bool* said, context& ctx) {
  plan p;
  std::string why;
  status s = make_plan(d, o, &p, &why);
  if (s == status::kNoDevice) {
    detail::device_info h200;  // defaults: cc 9.0, 132 SMs, 50 MiB L2
    if (!*said) ctx.err << "xpose plan: no GPU here (" << why << "); planning for an H200 (cc 9.0, 132 SMs)\n";
    *said = true;
    detail::plan_data pd;
    why.clear();
    if constexpr (std::is_same_v<Desc, permute_desc>)
      s = detail::plan_problem(detail::to_problem(d), std::nullopt, o, h200, &pd, &why);
    else
      s = detail::plan_problem(detail::to_problem(d), detail::raw_matrix(d), o, h200, &pd, &why);
    if (s != status::kSuccess) return fail_line(ctx, fmt::format("{}{} ({})", prefix, why, status_name(s)));
    ctx.out << prefix << detail::summarize(pd) << "\n";
    return 0;
  }
  if (s != status::kSuccess) return fail_line(ctx, fmt::format("{}{} ({})", prefix, why, status_name(s)));
  ctx.out << prefix << p.summary() << "\n";
  return 0;
}

int run_plan(const plan_args& a, context& ctx) {
  const auto t = find_dtype(a.dtype);
  if (!t) return fail_line(ctx, fmt::format("unknown dtype '{}' (known: i8, f16, bf16, f32, f64, c64, c128)", a.dtype));
  plan_options o;
  o.variant = a.variant;
  std::string why;
  if (!a.block.empty() && !parse_block(a.block, &o.block_x, &o.block_y, &why)) return fail_line(ctx, why);
  o.where = a.device == "cpu" ? backend::kCpu : backend::kGpu;
  o.tuning = parse_cpu_tuning(a.cpu_tuning);
  bool said = false;

  if (!a.suite.empty()) {
    // One line per case: "[extents] perm p: <plan>"; every case is planned even after one fails.
    if (a.suite != "permute") return fail_line(ctx, fmt::format("unknown suite '{}' (known: permute)", a.suite));
    if (!a.shape.empty() || !a.extents.empty() || !a.perm.empty() || a.batch != 1 || a.ld_in || a.ld_out)
      return fail_line(ctx, "--suite plans its own problems: give it without --shape, --extents, --perm, --batch, --ld-in "
                            "or --ld-out");
    int code = 0;
    for (const auto& c : permute_suite_cases(t->bytes, a.seed)) {
      const permute_desc d{.extents = c.extents, .perm = c.perm, .elem_bytes = t->bytes};
      const auto prefix = fmt::format("[{}] perm {}: ", fmt::join(c.extents, ","), fmt::join(c.perm, ","));
      code = std::max(code, print_plan(d, o, prefix, &said, ctx));
    }
    return code;
  }
  if (!a.extents.empty() || !a.perm.empty()) {
    if (!a.shape.empty()) return fail_line(ctx, "give --shape or --extents/--perm, not both");
    if (a.batch != 1 || a.ld_in || a.ld_out)
      return fail_line(ctx, "--batch, --ld-in and --ld-out apply to --shape transposes, not to --extents/--perm");
    std::vector<std::int64_t> ext, perm64;
    if (!parse_extents_perm(a.extents, a.perm, &ext, &perm64, &why)) return fail_line(ctx, why);
    permute_desc d{.extents = ext, .perm = {}, .elem_bytes = t->bytes};
    for (auto v : perm64) d.perm.push_back(static_cast<int>(std::clamp<std::int64_t>(v, -1, 1 << 20)));
    return print_plan(d, o, "", &said, ctx);
  }
  shape2 sh;
  if (!parse_shape(a.shape.empty() ? "" : a.shape, &sh, &why))
    return fail_line(ctx, a.shape.empty() ? "give --shape RxC, --extents/--perm or --suite permute" : why);
  const transpose_desc d{.rows = sh.rows, .cols = sh.cols, .elem_bytes = t->bytes, .ld_in = a.ld_in, .ld_out = a.ld_out,
                         .batch = a.batch};
  return print_plan(d, o, "", &said, ctx);
}

}  // namespace

void add_plan_command(CLI::App& app, context& ctx) {
  auto* cmd = app.add_subcommand("plan", "Print the plan (normalised problem, variant, launch shape, reason)");
  auto a = std::make_shared<plan_args>();
  cmd->add_option("--shape", a->shape, "RxC matrix to transpose");
  cmd->add_option("--batch", a->batch, "Matrices in the batch")->check(at_least(1));
  cmd->add_option("--ld-in", a->ld_in, "Input leading dimension (elements)");
  cmd->add_option("--ld-out", a->ld_out, "Output leading dimension (elements)");
  cmd->add_option("--extents", a->extents, "Permutation: input extents a,b,c");
  cmd->add_option("--perm", a->perm, "Permutation: output dim k = input dim perm[k]");
  cmd->add_option("--dtype", a->dtype, "i8, f16, bf16, f32, f64, c64, c128");
  cmd->add_option("--variant", a->variant, "auto or a variant name");
  cmd->add_option("--block", a->block, "Block shape WxH");
  cmd->add_option("--device", a->device, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  cmd->add_option("--suite", a->suite, "A built-in suite, one plan per case: permute (issue 5's, as `xpose bench --suite`)");
  cmd->add_option("--seed", a->seed, "Seed of the suite's random cases (as `xpose bench --seed`)");
  cmd->add_option("--cpu-tuning", a->cpu_tuning, "CPU plans: whose tuning tables, auto (by vendor), amd or intel")
      ->check(CLI::IsMember({"auto", "amd", "intel"}));
  cmd->callback([a, &ctx] { ctx.exit_code = run_plan(*a, ctx); });
}

}  // namespace xpose::cli
