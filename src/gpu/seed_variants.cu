// Launches of the seeds' kernels and the classic tile (their launch shapes: configure.cpp).
#include "dispatch/plan_data.hpp"
#include "gpu/common.cuh"
#include "gpu/kernels/naive.cuh"
#include "gpu/kernels/smem_seed.cuh"
#include "gpu/kernels/tiled.cuh"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {
// Instantiates Kernel<T> for the plan's element size and launches it.
#define XPOSE_LAUNCH_BY_WORD(KERNEL_EXPR)                                                      \
  with_word(pd.prob.elem_bytes, [&]<class T>() -> status {                                     \
    KERNEL_EXPR<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(                            \
        static_cast<const T*>(in), static_cast<T*>(out), pd.mat, pd.launch.grid_x, pd.launch.grid_y); \
    XPOSE_CUDA_TRY(cudaGetLastError(), why);                                                   \
    return status::kSuccess;                                                                   \
  })

status run_naive_row_read(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return XPOSE_LAUNCH_BY_WORD(naive_row_read_kernel<T>);
}

status run_naive_col_read(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return XPOSE_LAUNCH_BY_WORD(naive_col_read_kernel<T>);
}

#define XPOSE_SMEM_SEED(NAME)                                                                   \
  status run_##NAME(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) { \
    switch (pd.launch.block_x) {                                                               \
      case 8: return XPOSE_LAUNCH_BY_WORD(NAME##_kernel<8 XPOSE_COMMA T>);                     \
      case 16: return XPOSE_LAUNCH_BY_WORD(NAME##_kernel<16 XPOSE_COMMA T>);                   \
      case 32: return XPOSE_LAUNCH_BY_WORD(NAME##_kernel<32 XPOSE_COMMA T>);                   \
    }                                                                                          \
    return status::kInvalidBlock; /* configure_* admits 8, 16, 32 only */                              \
  }
#define XPOSE_COMMA ,
XPOSE_SMEM_SEED(smem_v1)
XPOSE_SMEM_SEED(smem_v2)
XPOSE_SMEM_SEED(smem_v3)
#undef XPOSE_SMEM_SEED

status run_tiled(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  switch (pd.launch.block_y) {
    case 1: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<1 XPOSE_COMMA T>);
    case 2: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<2 XPOSE_COMMA T>);
    case 4: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<4 XPOSE_COMMA T>);
    case 8: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<8 XPOSE_COMMA T>);
    case 16: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<16 XPOSE_COMMA T>);
    case 32: return XPOSE_LAUNCH_BY_WORD(tiled_kernel<32 XPOSE_COMMA T>);
  }
  return status::kInvalidBlock;  // configure_tiled admits 1, 2, 4, 8, 16, 32 only
}

}  // namespace xpose::detail::gpu
