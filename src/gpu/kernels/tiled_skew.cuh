// tiled_skew: the classic 32 x 32 tile (tiled.cuh) with its output rows staggered to 32-byte sectors,
// for output rows that are not whole sectors (an odd number of rows, or an output pointer off a
// sector boundary).
//
// Why: the classic tile, walked down its tile rows, runs 4- and 8-byte matrices at 90-97% of copy
// when every output row starts on a 32-byte sector, but at 64-87% when the rows do not (H200
// 2026-11-30, tools/tune/tma_sweep.cu --tiled 1: f32 10000x10007 90.0 against 10007x10000 68.3).
// A warp then stores 32 elements that straddle a sector at each end, and the neighbouring tile of
// the same output row fills the other part of those sectors: two partial writes of every boundary
// sector reach the L2. skew_tile (skew_tile.cuh) staggers its tiles to 32-byte sectors for the same
// reason, but moves 16-byte vectors, scatters them element by element into shared memory (two
// shared wavefronts per element on average) and reads 32 / S - 1 extra rows per tile of 32.
//
// The staggered tile: output row c of tile (bx, by) holds input rows [r0 - m_c, r0 - m_c + 32), r0 =
// by * 32, where m_c < U = 32 / S is how many elements element (c, r0) of the output lies past a
// sector boundary. Every store of 32 elements then covers whole sectors (128 bytes for 4-byte
// elements, 256 for 8-byte ones); m_c does not depend on by (32 is a multiple of U), so the bands of
// one output row partition it, and the grid has ceil((rows + U - 1) / 32) tile rows (one band more
// than the classic tile). The tile reads the 32 + U - 1 input rows [r0 - U + 1, r0 + 32) its
// staggered rows need into a (32 + U - 1) x 33 array, coalesced 32 elements per warp access as the
// classic tile (the U - 1 extra rows were also read by the tile above, launched just before it in
// the Down order, so they come from the L2). Stores read a column of the array, rows U - 1 - m_c +
// lane: one shared wavefront per 4-byte element, as the classic tile (pitch 33).
//
// Launch: block (32, H), H in {4, 8, 16}; grid (ceil((rows + U - 1) / 32), ceil(cols / 32), batch),
// capped and looped, blockIdx.x down the tile rows (the classic tile's order, tiled.cuh).
#pragma once

#include <cstdint>

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

inline constexpr int kTiledSkewTile = 32;

// One staggered tile: rows [r0 - U + 1, r0 + 32) x columns [c0, c0 + 32) of src in, output rows c0 ..
// c0 + 31 of dst out, each at its stagger. I is the index type: int where every index of the matrix
// fits (the one-tile-per-block kernel below), 64-bit otherwise. dst_mis: elements of dst past a
// sector boundary (pointers are aligned to the element).
template <int H, class T, class I>
__device__ __forceinline__ void tiled_skew_tile(const T* __restrict__ src, T* __restrict__ dst, I rows, I cols, I ld_in,
                                                I ld_out, I r0, I c0, int dst_mis,
                                                T (&tile)[kTiledSkewTile + 32 / sizeof(T) - 1][kTiledSkewTile + 1]) {
  constexpr int kT = kTiledSkewTile, U = 32 / sizeof(T), kRowsIn = kT + U - 1;
  static_assert(kT % U == 0, "the stagger must not depend on the tile row");
  const int tx = threadIdx.x, ty = threadIdx.y;
  const I h0 = r0 - (U - 1), col = c0 + tx;  // input row of array row 0, this lane's input column
#pragma unroll
  for (int k = 0; k < (kRowsIn + H - 1) / H; ++k) {
    const int h = ty + k * H;
    const I row = h0 + h;
    if (h < kRowsIn && row >= 0 && row < rows && col < cols) tile[h][tx] = src[row * ld_in + col];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kT / H; ++k) {
    const int j = ty + k * H;  // output row c0 + j = input column
    const I c = c0 + j;
    const int mc = static_cast<int>((static_cast<unsigned>(dst_mis) + static_cast<unsigned>(c * ld_out)) % U);
    const I r = r0 - mc + tx;  // output column = input row
    if (c < cols && r >= 0 && r < rows) dst[c * ld_out + r] = tile[U - 1 - mc + tx][j];
  }
}

// Any matrix view: 64-bit indices, grid-stride loops over tiles and batches.
template <int H, class T>
__global__ void tiled_skew_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t nby,
                                  std::int64_t nbx) {  // tile rows (with the extra band), tile columns
  __shared__ T tile[kTiledSkewTile + 32 / sizeof(T) - 1][kTiledSkewTile + 1];
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t bx = blockIdx.y; bx < nbx; bx += gridDim.y)
      for (std::int64_t by = blockIdx.x; by < nby; by += gridDim.x) {
        std::int64_t in_off, out_off;
        batch_offsets(m, b, &in_off, &out_off);
        T* dst = out + out_off;
        const int dst_mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(dst) / sizeof(T)) % (32 / sizeof(T)));
        tiled_skew_tile<H, T, std::int64_t>(in + in_off, dst, m.rows, m.cols, m.ld_in, m.ld_out, by * kTiledSkewTile,
                                            bx * kTiledSkewTile, dst_mis, tile);
        __syncthreads();
      }
}

// One dense matrix of fewer than 2^31 elements whose grid fits (seed_form_fits): one tile per block,
// int indices, as tiled_seed (seed_form.cuh). The 64-bit kernel above ran 2-3x slower than this
// form for 2- and 4-byte elements (H200 2026-11-30, by name; tiled's own looped kernel: 50% of
// copy at 25600^2 f32 against 82% for its seed form).
template <int H, class T>
__global__ void tiled_skew_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  __shared__ T tile[kTiledSkewTile + 32 / sizeof(T) - 1][kTiledSkewTile + 1];
  const int dst_mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(out) / sizeof(T)) % (32 / sizeof(T)));
  tiled_skew_tile<H, T, int>(in, out, rows, cols, cols, rows, static_cast<int>(blockIdx.x) * kTiledSkewTile,
                             static_cast<int>(blockIdx.y) * kTiledSkewTile, dst_mis, tile);
}

}  // namespace xpose::detail::gpu
