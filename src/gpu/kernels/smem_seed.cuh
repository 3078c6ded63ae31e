// Note 000's three shared-memory kernels, kept access-for-access so their measured behaviour (and
// their bank conflicts, see src/model/) is reproduced. B is the square block edge (8, 16 or 32): the
// seeds index the tile with a compile-time BLOCKDIM, so these are templates on it, with a
// statically sized __shared__ array exactly as written in the note.
//
// smem_v1: tile[ty][tx] written and read back by the same thread, then the strided global write of
//   the naive kernel. BASELINES.md reports no shared traffic for it (the compiler forwarding each
//   thread's word in a register); with nvcc 13.0 here the __syncthreads() between store and load
//   keeps the round trip: one STS and one LDS per thread, as ncu counts (docs/banks.md).
// smem_v2: coalesced read into tile[ty][tx], coalesced write from tile[tx][ty]. With B = 16 and
//   4-byte words a warp's column read hits 4 banks 8 times each: 8-way conflicts.
// smem_v3: v2 with a (B, B+1) tile: the column read spreads over 31 banks, with lane 16 (second row
//   of the warp) landing on lane 0's bank: 2-way on both the load and the store for B = 16.
//
// Launch geometry: block (B, B); grid (nbx, nby, batch) = (ceil(cols/B), ceil(rows/B), batch),
// capped and looped like the naive kernels. v2/v3 add a barrier at the end of each loop trip so a tile is not overwritten
// while other threads still read it (the seeds never loop, so they did not need one).
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

template <int B, class T>
__global__ void smem_v1_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t nbx,
                               std::int64_t nby) {
  __shared__ T tile[B][B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    const T* src = in + b * m.bs_in;
    T* dst = out + b * m.bs_out;
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        const std::int64_t row = by * B + ty, col = bx * B + tx;
        if (row < m.rows && col < m.cols) tile[ty][tx] = src[row * m.ld_in + col];
        __syncthreads();
        if (row < m.rows && col < m.cols) dst[col * m.ld_out + row] = tile[ty][tx];
      }
  }
}

// v2 and v3 differ only in the tile's row pitch: Pad = 0 or 1.
template <int B, int Pad, class T>
__device__ __forceinline__ void smem_v23_body(const T* __restrict__ in, T* __restrict__ out, const matrix_view& m,
                                              std::int64_t nbx, std::int64_t nby) {
  __shared__ T tile[B][B + Pad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    const T* src = in + b * m.bs_in;
    T* dst = out + b * m.bs_out;
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        const std::int64_t row = by * B + ty, col = bx * B + tx;
        if (row < m.rows && col < m.cols) tile[ty][tx] = src[row * m.ld_in + col];
        __syncthreads();
        const std::int64_t out_y = ty + B * bx;  // output row  = input column
        const std::int64_t out_x = tx + B * by;  // output col  = input row
        if (out_x < m.rows && out_y < m.cols) dst[out_y * m.ld_out + out_x] = tile[tx][ty];
        __syncthreads();
      }
  }
}

template <int B, class T>
__global__ void smem_v2_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t nbx,
                               std::int64_t nby) {
  smem_v23_body<B, 0>(in, out, m, nbx, nby);
}

template <int B, class T>
__global__ void smem_v3_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t nbx,
                               std::int64_t nby) {
  smem_v23_body<B, 1>(in, out, m, nbx, nby);
}

}  // namespace xpose::detail::gpu
