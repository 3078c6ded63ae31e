// execute(): pointer checks, then the variant's run. Nothing is launched or written on error.
#include <cstdint>

#include <fmt/format.h>

#include "dispatch/plan_data.hpp"
#include "dispatch/registry.hpp"
#include "plan/validate.hpp"
#ifdef XPOSE_HAS_CUDA
#include "gpu/variants.hpp"
#endif

namespace xpose {
namespace {

using detail::fail;

bool ranges_overlap(const void* a, std::int64_t na, const void* b, std::int64_t nb) {
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + static_cast<std::uintptr_t>(nb) && pb < pa + static_cast<std::uintptr_t>(na);
}

bool aligned(const void* p, int a) { return reinterpret_cast<std::uintptr_t>(p) % static_cast<unsigned>(a) == 0; }

status check_space(const detail::plan_data& pd, const void* p, const char* which, std::string* why) {
#ifdef XPOSE_HAS_CUDA
  using detail::gpu::mem_space;
  const mem_space m = detail::gpu::pointer_space(p, nullptr);
  if (pd.where == backend::kGpu && m == mem_space::kHost)
    return fail(status::kWrongMemorySpace, why, fmt::format("{} pointer is host memory but the plan is for the GPU", which));
  if (pd.where == backend::kCpu && m == mem_space::kDevice)
    return fail(status::kWrongMemorySpace, why, fmt::format("{} pointer is device memory but the plan is for the CPU", which));
#else
  (void)p;
  (void)which;
  if (pd.where == backend::kGpu) return fail(status::kNoDevice, why, "xpose was built without CUDA");
#endif
  return status::kSuccess;
}

}  // namespace

status execute(const plan& p, const void* in, void* out, CUstream_st* stream, std::string* why) {
  const detail::plan_data* pd = p.data();
  if (!pd) return fail(status::kInvalidPlan, why, "the plan is empty (make_plan failed or was never called)");
  if (!in) return fail(status::kNullPointer, why, "input pointer is null");
  if (!out) return fail(status::kNullPointer, why, "output pointer is null");
  if (ranges_overlap(in, pd->in_span_bytes, out, pd->out_span_bytes))
    return fail(status::kOverlap, why,
                fmt::format("input [{}, +{} B) and output [{}, +{} B) overlap", in, pd->in_span_bytes,
                            static_cast<const void*>(out), pd->out_span_bytes));
  if (status s = check_space(*pd, in, "input", why); s != status::kSuccess) return s;
  if (status s = check_space(*pd, out, "output", why); s != status::kSuccess) return s;
  // An `auto` plan whose fast kernel needs wider alignment than these pointers have runs its
  // fallback; a named variant reports the misalignment.
  while (!(aligned(in, pd->align_bytes) && aligned(out, pd->align_bytes))) {
    if (!pd->fallback)
      return fail(status::kMisaligned, why,
                  fmt::format("{} needs input and output aligned to {} bytes (got {} and {})", pd->variant->name,
                              pd->align_bytes, in, static_cast<const void*>(out)));
    pd = pd->fallback.get();
  }
  return pd->variant->run(*pd, in, out, stream, why);
}

}  // namespace xpose
