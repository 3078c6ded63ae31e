// Launch-geometry arithmetic shared by the host-side configure functions and the kernels.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__
#else
#define XPOSE_HD
#endif

namespace xpose::detail::gpu {

XPOSE_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Grid limits of every CUDA GPU: x up to 2^31 - 1 blocks, y and z up to 65535. Kernels loop over
// the blocks a capped grid does not cover, so any shape launches.
inline constexpr std::int64_t kMaxGridX = 0x7fffffff;
inline constexpr std::int64_t kMaxGridYZ = 65535;

}  // namespace xpose::detail::gpu
