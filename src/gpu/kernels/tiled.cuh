// The classic padded-tile transpose: a 32 x 32 tile moved by 32 x H threads (H = 8 by default).
//
// Each thread loads 32/H elements of the tile (rows ty, ty+H, ...) with coalesced reads, the block
// syncs, and each thread stores 32/H elements of the transposed tile with coalesced writes. The tile
// is declared (32, 33): the extra word shifts each row by one bank, so a warp reading a tile column
// (32 rows, same column) touches 32 different banks for 4-byte words. Several loads in flight per
// thread hide DRAM latency better than the seeds' one-element-per-thread kernels.
//
// Launch geometry: block (32, H), H in {1, 2, 4, 8, 16, 32}; grid (ceil(rows/32), ceil(cols/32),
// batch), capped and looped: blockIdx.x walks down the input's tile rows, so the blocks in flight
// write neighbouring 32-element pieces of the same output rows and each output row is finished in
// one short stretch of the launch (as fast_tile's Down order). The classic kernel walks across the
// tile columns instead: each block in flight then writes 32 different output rows, and the pieces
// of one output row are written a whole grid row apart. H200 2026-11-30 (tools/tune/tma_sweep.cu
// --tiled 1, tiled_seed, one run, % of copy, across -> down, best height of 4/8/16 each;
// docs/results/orders-*-2026-11-30s*.csv):
//   10007x9973   i8 37.8 -> 49.5, f16 48.6 -> 70.6, f32 60.9 -> 66.0, f64 75.3 -> 84.3, c128 85.6 -> 93.2
//   16383x16385  i8 32.4 -> 50.0, f16 43.7 -> 64.8, f32 56.6 -> 64.5, f64 70.7 -> 83.8, c128 82.1 -> 92.1
//   16384^2      i8 52.1 -> 51.3, f16 76.3 -> 73.4, f32 87.0 -> 93.3, f64 91.4 -> 95.4, c128 88.4 -> 92.1
//   6000x6001    i8 68.6 -> 76.0, f16 87.5 -> 86.6, f32 91.2 -> 96.7, f64 88.7 -> 93.4, c128 93.7 -> 96.3
// 2 of the 60 shape/size/height pairs measured lost more than 3 points (f16 at 128 and 256 threads on
// even-row shapes such as 16384x16383: 76.4 -> 71.6, 69.3 -> 59.4), where auto runs other kernels.
// Batches (this looped kernel) were not measured side by side; the three permutation-suite cases
// auto runs here measured 4-9 points under their earlier runs afterwards ([137,108,82,55] perm
// 3,2,0,1 f64 85.1 -> 76.1, f32 70.0 -> 66.4; [197,61,107,52] perm 0,1,3,2 f64 87.0 -> 82.7;
// docs/results/verify-suite-2026-11-30s.json): walking batches across again is the first thing to try.
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

inline constexpr int kTiledTile = 32;

// H (the block's height) is a template parameter so the 32/H trips of each loop unroll into
// independent loads, as in the classic kernel's compile-time BLOCK_ROWS. Dense single matrices of
// fewer than 2^31 elements run tiled_seed (seed_form.cuh) instead: the classic kernel itself.
// Down: single matrices (configure_tiled's grid: x the tile rows); batches walk across (x the tile
// columns), as before the fifteenth session: walking down cost batched suite cases 4-9 points
// (H200 2026-11-30, [137,108,82,55] perm 3,2,0,1 f64 85.1 -> 76.1, back to 84.0 across;
// docs/performance.md, sixteenth session).
template <int H, class T, bool Down = true>
__global__ void tiled_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t g0,
                             std::int64_t g1) {  // the grid's x and y extents before capping
  constexpr int kT = kTiledTile, h = H;
  __shared__ T tile[kT][kT + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t gy = blockIdx.y; gy < g1; gy += gridDim.y)
      for (std::int64_t gx = blockIdx.x; gx < g0; gx += gridDim.x) {
        const std::int64_t by = Down ? gx : gy, bx = Down ? gy : gx;  // tile row, tile column
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
