// tiled_words: the classic padded tile (tiled.cuh) for 1- and 2-byte elements, moved as 4-byte words.
//
// A word of a 2-byte matrix holds two neighbouring elements of a row, of a 1-byte matrix four. K
// words of K consecutive rows (K = 4 / element size) form a K x K block of elements; a thread loads
// the block's K words, transposes it in registers (byte permutes: one per word for halves, two for
// bytes) into the K words of K output rows, and the tile of 32 x 32 blocks goes through shared memory
// as the classic tile's 32 x 32 elements do. Every global access is a warp's 32 consecutive words (128
// bytes of one row), every shared access conflict-free (the (32, 33) padding).
//
// Why: the small single matrices of issue 4 (4 MiB and less) are launch- and latency-bound, and the
// classic tile of 1- and 2-byte elements moves 1024 or 2048 bytes per 32 x 32 tile with 256 threads
// where its 4-byte form moves 4096: H200 2026-11-30 (fourteenth session, by name, the transpose's
// time over the copy's) 1024^2 f16 1.15 (fast_tile 1.15-1.20), 2048x1024 i8 1.31 (fast_tile 1.13-1.16),
// against f32 1024^2 1.03. In words a 1024^2 f16 matrix is the 512 x 512 blocks of a 2 MiB problem.
//
// Needs whole blocks: rows, columns, leading dimensions and batch strides multiples of K, both
// pointers 4-byte aligned (configure_tiled_words, execute). Launch geometry: block (32, H), H in {4,
// 8, 16, 32}; grid (ceil(row blocks / 32), ceil(column blocks / 32), batch) for single matrices (x
// walks down the tile rows, as tiled's Down order), x and y swapped for batches; capped and looped.
#pragma once

#include <cstdint>

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

inline constexpr int kTiledWordsTile = 32;  // blocks per tile side

// The K x K block w[0 .. K-1] (word q: row q's K elements, first in the low bytes) transposed:
// o[q] holds column q's K elements, row 0's in the low bytes.
template <int K>
__device__ __forceinline__ void transpose_word_block(const std::uint32_t (&w)[K], std::uint32_t (&o)[K]) {
  if constexpr (K == 2) {
    o[0] = __byte_perm(w[0], w[1], 0x5410);  // halves 0 of both words
    o[1] = __byte_perm(w[0], w[1], 0x7632);  // halves 1
  } else {
    static_assert(K == 4, "2 halves or 4 bytes per word");
    // Interleave bytes of row pairs, then halves of the pairs.
    const std::uint32_t t0 = __byte_perm(w[0], w[1], 0x5140), t1 = __byte_perm(w[0], w[1], 0x7362);
    const std::uint32_t t2 = __byte_perm(w[2], w[3], 0x5140), t3 = __byte_perm(w[2], w[3], 0x7362);
    o[0] = __byte_perm(t0, t2, 0x5410);
    o[1] = __byte_perm(t0, t2, 0x7632);
    o[2] = __byte_perm(t1, t3, 0x5410);
    o[3] = __byte_perm(t1, t3, 0x7632);
  }
}

template <int H, class T, bool Down>
__global__ void tiled_words_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, std::int64_t g0,
                                   std::int64_t g1) {  // the grid's x and y extents before capping
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "1- and 2-byte elements");
  constexpr int K = 4 / sizeof(T), kT = kTiledWordsTile;
  __shared__ std::uint32_t tile[K][kT][kT + 1];  // [output row within the block][block col][block row]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t brows = m.rows / K, bcols = m.cols / K;  // blocks
  const std::int64_t ldi = m.ld_in / K, ldo = m.ld_out / K;    // words
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t gy = blockIdx.y; gy < g1; gy += gridDim.y)
      for (std::int64_t gx = blockIdx.x; gx < g0; gx += gridDim.x) {
        const std::int64_t by = Down ? gx : gy, bx = Down ? gy : gx;  // tile row, tile column
        std::int64_t in_off, out_off;
        batch_offsets(m, b, &in_off, &out_off);
        const auto* src = reinterpret_cast<const std::uint32_t*>(in + in_off);
        auto* dst = reinterpret_cast<std::uint32_t*>(out + out_off);
        const std::int64_t col = bx * kT + tx;  // block column = word column of the input
#pragma unroll
        for (int k = 0; k < kT / H; ++k) {
          const int r = ty + k * H;
          const std::int64_t brow = by * kT + r;
          if (brow < brows && col < bcols) {
            std::uint32_t w[K], o[K];
#pragma unroll
            for (int q = 0; q < K; ++q) w[q] = src[(brow * K + q) * ldi + col];
            transpose_word_block<K>(w, o);
#pragma unroll
            for (int q = 0; q < K; ++q) tile[q][tx][r] = o[q];
          }
        }
        __syncthreads();
        const std::int64_t ocol = by * kT + tx;  // output word column = input block row
#pragma unroll
        for (int k = 0; k < kT / H; ++k) {
          const int r = ty + k * H;
          const std::int64_t orow = bx * kT + r;  // output block row = input block column
          if (orow < bcols && ocol < brows) {
#pragma unroll
            for (int q = 0; q < K; ++q) dst[(orow * K + q) * ldo + ocol] = tile[q][r][tx];
          }
        }
        __syncthreads();
      }
}

}  // namespace xpose::detail::gpu
