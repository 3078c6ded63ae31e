// permute_tiled: the tiled transpose of a permutation whose contiguous dims are short.
//
// A permutation that classifies as a (batched) transpose has a dim A contiguous in the input and a
// dim B contiguous in the output. When A or B is short (the random permutations of the suite have
// fastest dims of 1..7 elements), a tile over (B, A) alone is mostly empty. Here each side is
// *folded*: the column index c runs over A and the dims that continue it contiguously in the input
// (in_stride == product of the extents before), the row index r over B and the dims that continue it
// in the output, until each side has at least 32 elements. Then the input offset of (r, c) is
// row_in(r) + c and the output offset is col_out(c) + r: contiguous along c when loading and along r
// when storing, as in a plain transpose. row_in / col_out are mixed-radix decompositions, computed
// once per tile into two 32-entry shared tables, so the element loops stay table lookups.
// The rest of the dims are the batch (decomposed once per tile).
//
// Launch geometry: block (32, 8), tile 32 x 32 through a (32, 33) padded shared array (the classic
// bank arithmetic); grid (ceil(cols/32), ceil(rows/32), batch), capped and looped.
#pragma once

#include "gpu/common.cuh"
#include "gpu/permute_fold.hpp"

namespace xpose::detail::gpu {

// sum_k digit_k(i) * stride_k over a mixed-radix chain (digit 0 fastest).
__device__ __forceinline__ std::int64_t chain_offset(std::int64_t i, int n, const std::int64_t* ext,
                                                     const std::int64_t* stride) {
  std::int64_t off = 0;
  for (int k = 0; k < n; ++k) {
    off += (i % ext[k]) * stride[k];
    i /= ext[k];
  }
  return off;
}

template <class T>
__global__ void __launch_bounds__(256) permute_tiled_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                            permute_tiled_params p, std::int64_t nbx,
                                                            std::int64_t nby) {
  constexpr int kT = 32, kH = 8;
  __shared__ T tile[kT][kT + 1];
  __shared__ std::int64_t row_in[kT], col_out[kT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < p.batch; b += gridDim.z) {
    std::int64_t bi = 0, bo = 0, rem = b;
    for (int k = p.b_rank - 1; k >= 0; --k) {
      const std::int64_t idx = rem % p.b_ext[k];
      rem /= p.b_ext[k];
      bi += idx * p.b_in[k];
      bo += idx * p.b_out[k];
    }
    const T* src = in + bi;
    T* dst = out + bo;
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        const std::int64_t r0 = by * kT, c0 = bx * kT;
        if (ty == 0 && r0 + tx < p.rows) row_in[tx] = chain_offset(r0 + tx, p.r_rank, p.r_ext, p.r_in);
        if (ty == 1 && c0 + tx < p.cols) col_out[tx] = chain_offset(c0 + tx, p.c_rank, p.c_ext, p.c_out);
        __syncthreads();
#pragma unroll
        for (int j = ty; j < kT; j += kH)
          if (r0 + j < p.rows && c0 + tx < p.cols) tile[j][tx] = src[row_in[j] + c0 + tx];
        __syncthreads();
#pragma unroll
        for (int j = ty; j < kT; j += kH)
          if (c0 + j < p.cols && r0 + tx < p.rows) dst[col_out[j] + r0 + tx] = tile[tx][j];
        __syncthreads();
      }
  }
}

}  // namespace xpose::detail::gpu
