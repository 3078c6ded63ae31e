// `xpose plan`: what the planner chooses for a problem, and why. Host-only; no GPU needed when the
// backend is the CPU (or when --sm-count etc. describe the GPU by hand).
#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "dispatch/plan_data.hpp"
#include "plan/planner.hpp"
#include "plan/validate.hpp"

namespace xpose::cli {
namespace {

struct plan_args {
  std::string shape, extents, perm, dtype = "f32", variant = "auto", block, device, cpu_tuning = "auto";
  std::int64_t batch = 1;
  std::optional<std::int64_t> ld_in, ld_out;
};

int fail_line(context& ctx, const std::string& msg) {
  ctx.err << "xpose plan: error: " << msg << "\n";
  return 2;
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

  plan p;
  status s;
  permute_desc pd_perm;
  transpose_desc pd_transpose;
  if (!a.extents.empty() || !a.perm.empty()) {
    std::vector<std::int64_t> ext, perm64;
    if (!parse_int_list(a.extents, &ext, &why)) return fail_line(ctx, "--extents: " + why);
    if (!parse_int_list(a.perm, &perm64, &why)) return fail_line(ctx, "--perm: " + why);
    permute_desc d{.extents = ext, .perm = {}, .elem_bytes = t->bytes};
    for (auto v : perm64) d.perm.push_back(static_cast<int>(std::clamp<std::int64_t>(v, -1, 1 << 20)));
    s = make_plan(d, o, &p, &why);
    pd_perm = d;
  } else {
    shape2 sh;
    if (!parse_shape(a.shape.empty() ? "" : a.shape, &sh, &why)) return fail_line(ctx, a.shape.empty() ? "give --shape RxC or --extents/--perm" : why);
    transpose_desc d{.rows = sh.rows, .cols = sh.cols, .elem_bytes = t->bytes, .ld_in = a.ld_in, .ld_out = a.ld_out, .batch = a.batch};
    s = make_plan(d, o, &p, &why);
    pd_transpose = d;
  }
  if (s == status::kNoDevice) {
    // No GPU here: plan for the machine the tuning tables were measured on, and say so.
    detail::device_info h200;  // defaults: cc 9.0, 132 SMs, 50 MiB L2
    ctx.err << "xpose plan: no GPU here (" << why << "); planning for an H200 (cc 9.0, 132 SMs)\n";
    detail::plan_data pd;
    why.clear();
    if (!a.extents.empty() || !a.perm.empty()) {
      s = detail::plan_problem(detail::to_problem(pd_perm), std::nullopt, o, h200, &pd, &why);
    } else {
      s = detail::plan_problem(detail::to_problem(pd_transpose), detail::raw_matrix(pd_transpose), o, h200, &pd, &why);
    }
    if (s != status::kSuccess) return fail_line(ctx, fmt::format("{} ({})", why, status_name(s)));
    ctx.out << detail::summarize(pd) << "\n";
    return 0;
  }
  if (s != status::kSuccess) return fail_line(ctx, fmt::format("{} ({})", why, status_name(s)));
  ctx.out << p.summary() << "\n";
  return 0;
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
  cmd->add_option("--cpu-tuning", a->cpu_tuning, "CPU plans: whose tuning tables, auto (by vendor), amd or intel")
      ->check(CLI::IsMember({"auto", "amd", "intel"}));
  cmd->callback([a, &ctx] { ctx.exit_code = run_plan(*a, ctx); });
}

}  // namespace xpose::cli
