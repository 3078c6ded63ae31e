// The classic padded-tile transpose: a 32 x 32 tile moved by 32 x H threads (H = 8 by default).
//
// Each thread loads 32/H elements of the tile (rows ty, ty+H, ...) with coalesced reads, the block
// syncs, and each thread stores 32/H elements of the transposed tile with coalesced writes. The tile
// is declared (32, 33): the extra word shifts each row by one bank, so a warp reading a tile column
// (32 rows, same column) touches 32 different banks for 4-byte words. Several loads in flight per
// thread hide DRAM latency better than the seeds' one-element-per-thread kernels.
//
// Launch geometry: block (32, H), H in {1, 2, 4, 8, 16, 32}; grid (ceil(cols/32), ceil(rows/32),
// batch), capped and looped.
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

inline constexpr int kTiledTile = 32;

// H (the block's height) is a template parameter so the 32/H trips of each loop unroll into
// independent loads, as in the classic kernel's compile-time BLOCK_ROWS. Dense single matrices of
// fewer than 2^31 elements run tiled_seed (seed_form.cuh) instead: the classic kernel itself.
template <int H, class T>
__global__ void tiled_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t nbx,
                             std::int64_t nby) {
  constexpr int kT = kTiledTile, h = H;
  __shared__ T tile[kT][kT + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        std::int64_t in_off, out_off;
        batch_offsets(m, b, &in_off, &out_off);
        const T* src = in + in_off;
        T* dst = out + out_off;
        const std::int64_t col = bx * kT + tx;
#pragma unroll
        for (int k = 0; k < kT / h; ++k) {  // constant trip count: unrolls (a start of ty did not)
          const int r = ty + k * h;
          const std::int64_t row = by * kT + r;
          if (row < m.rows && col < m.cols) tile[r][tx] = src[row * m.ld_in + col];
        }
        __syncthreads();
        const std::int64_t ocol = by * kT + tx;  // output column = input row
#pragma unroll
        for (int k = 0; k < kT / h; ++k) {
          const int r = ty + k * h;
          const std::int64_t orow = bx * kT + r;  // output row = input column
          if (orow < m.cols && ocol < m.rows) dst[orow * m.ld_out + ocol] = tile[tx][r];
        }
        __syncthreads();
      }
}

}  // namespace xpose::detail::gpu
