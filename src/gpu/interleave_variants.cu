// Launch of interleave (kernels/interleave.cuh; its launch shape: configure.cpp configure_interleave).
// A translation unit of its own: 156 instantiations (1-, 2-, 4- and 8-byte elements x short sides
// 2..16, 32, 48 and 64 x both directions, and the grouped unzip's tile-per-block form).
#include <utility>

#include "gpu/common.cuh"
#include "gpu/kernels/interleave.cuh"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {

status run_interleave(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const int r = static_cast<int>(pd.launch.wide_in ? pd.mat.rows : pd.mat.cols);
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  status st = status::kVariantNotApplicable;  // configure_interleave refuses anything not launched below
  auto launch = [&]<int S>() {
    [&]<int... Rs>(std::integer_sequence<int, Rs...>) {
      auto one = [&]<int R>() {
        if (R != r) return;
        const dim3 grid = grid_of(pd.launch), block = block_of(pd.launch);
        if (pd.launch.wide_in) {
          interleave_kernel<S, R, true><<<grid, block, 0, s>>>(src, dst, pd.mat);
        } else if constexpr (interleave_groups(R) > 1) {
          if (pd.launch.block_tiles)  // a tile per block (configure_interleave, interleave_block_tiles)
            interleave_unzip_handoff_kernel<S, R><<<grid, block, 0, s>>>(src, dst, pd.mat);
          else
            interleave_kernel<S, R, false><<<grid, block, 0, s>>>(src, dst, pd.mat);
        } else {
          interleave_kernel<S, R, false><<<grid, block, 0, s>>>(src, dst, pd.mat);
        }
        st = status::kSuccess;
      };
      (one.template operator()<Rs>(), ...);
    }(std::integer_sequence<int, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 32, 48, 64>{});
  };
  switch (pd.prob.elem_bytes) {
    case 1: launch.template operator()<1>(); break;
    case 2: launch.template operator()<2>(); break;
    case 4: launch.template operator()<4>(); break;
    case 8: launch.template operator()<8>(); break;
  }
  if (st != status::kSuccess) return st;
  XPOSE_CUDA_TRY(cudaGetLastError(), why);
  return status::kSuccess;
}

}  // namespace xpose::detail::gpu
