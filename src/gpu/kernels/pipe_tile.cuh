// pipe_tile: a 2-D transpose whose loads never stop. A persistent grid of blocks walks the tiles;
// each block keeps kStages - 1 tiles of asynchronous 16-byte copies (cp.async, global -> shared,
// no registers held) in flight while it transposes the oldest one out of shared memory.
//
// Why. fast_tile and reg_tile stop at 87-91% of a copy on large matrices (docs/performance.md):
// every block loads a tile, waits, then stores it, so a block's reads are idle during its store
// phase and the SM needs many resident blocks to overlap them. A copy at 4 TB/s keeps about 24 KiB
// of reads in flight per SM; here each block alone keeps (kStages - 1) x 16 KiB.
//
// Geometry (S = sizeof(T), V = 16 / S elements per 16-byte chunk). A tile is TR input rows x TC
// input columns, both sides whole 128-byte lines (TR * S and TC * S multiples of 128).
//   load:  chunk (r, k) of tile row r (k = 0 .. TC / V - 1) is copied by one cp.async of 16 bytes
//          into shared row r at chunk slot k ^ f(r); consecutive lanes take consecutive chunks, so
//          each warp reads whole lines;
//   store: warps write 4 output rows x 8 lanes of 16-byte vectors (128 B, one line, per output row
//          per instruction); the lane gathers its vector's V elements from V consecutive tile rows
//          of one tile column.
// Banks. The swizzle f(r) = (r / V) mod 8 puts the 8 lanes of an output row segment (rows
// lx * V + k, lx = 0..7, same k) in 8 different 16-byte bank groups, and the 4 lanes of a column
// group (consecutive tile columns, same chunk) in the words of one group: 1 wavefront per gather for
// 1- to 4-byte elements, 2 for 8-byte, 4 for 16-byte (the minimum for 256 and 512 bytes); the
// cp.async writes of 8 consecutive chunks of a row cover all 32 banks. Row pitches stay whole lines
// (TC * S is a multiple of 128 bytes), so the XOR is the only skew.
//
// Pipeline. Tiles t = blockIdx.x + n * gridDim.x. Before the loop the block issues its first
// kStages - 1 tiles, one commit group each. Iteration n waits until at most kStages - 2 groups are
// pending (tile n has landed), passes a barrier (everyone's copies of tile n are visible, and
// everyone has finished reading stage (n - 1) mod kStages), issues tile n + kStages - 1 into that
// freed stage, then stores tile n. Every iteration commits one group, empty past the last tile, so
// the wait count stays exact.
//
// Edges. Chunks past the last row are not read (src-size 0 zero-fills them); a chunk crossing the
// last column copies only its valid bytes. Output vectors that lie wholly inside the matrix are one
// 16-byte store, the others store element by element with bounds checks.
//
// Requirements (configure_pipe_tile, execute): leading dimensions and batch strides whole 16-byte
// chunks, both pointers 16-byte aligned.
//
// Launch: block (kThreads), grid min(tiles, resident blocks), dynamic shared memory
// kStages x TR x TC x S bytes. Shapes and their measurements: kernels/tile_shapes.hpp.
#pragma once

#include "gpu/common.cuh"
#include "gpu/kernels/fast_tile.cuh"  // vec16
#include "gpu/kernels/tile_shapes.hpp"

namespace xpose::detail::gpu {

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, int src_bytes) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <class T, class shape = pipe_tile_shape<sizeof(T)>>
__global__ void __launch_bounds__(shape::kThreads)
    pipe_tile_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, int group) {
  constexpr int S = sizeof(T), V = 16 / S;
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads, NS = shape::kStages;
  constexpr int kRowChunks = TC / V;             // 16-byte chunks per tile row
  constexpr int kTileChunks = TR * kRowChunks;   // = output vectors per tile
  constexpr int kIters = kTileChunks / NT;       // chunks (and output vectors) per thread
  constexpr int kOutSegs = TR / V / 8;           // 8-lane segments per output row
  static_assert(TR * S % 128 == 0 && TC * S % 128 == 0 && kTileChunks % NT == 0 && NT % 32 == 0 && NS >= 2);

  extern __shared__ uint4 pipe_smem[];  // NS stages of kTileChunks chunks
  const int tid = threadIdx.x;
  const int lane = tid % 32, lx = lane % 8, ly = lane / 8;

  const std::int64_t nbx = ceil_div(m.cols, TC), nby = ceil_div(m.rows, TR);
  const std::int64_t per_matrix = nbx * nby, tiles = per_matrix * m.batch;

  // The tile's first row and column, and its matrix's input and output offsets.
  auto locate = [&](std::int64_t t, std::int64_t* r0, std::int64_t* c0, std::int64_t* in_off, std::int64_t* out_off) {
    const std::int64_t b = t / per_matrix, rem = t - b * per_matrix;
    std::int64_t bx, by;
    raster_tile(rem, nbx, nby, group, &bx, &by);
    *r0 = by * TR;
    *c0 = bx * TC;
    batch_offsets(m, b, in_off, out_off);
  };

  auto issue = [&](std::int64_t t, int stage) {
    if (t < tiles) {
      std::int64_t r0, c0, in_off, out_off;
      locate(t, &r0, &c0, &in_off, &out_off);
      const T* src = in + in_off;
      uint4* dst = pipe_smem + stage * kTileChunks;
#pragma unroll
      for (int it = 0; it < kIters; ++it) {
        const int q = it * NT + tid, r = q / kRowChunks, k = q % kRowChunks;
        const std::int64_t row = r0 + r, col = c0 + k * V;
        const std::int64_t left = m.cols - col;
        const int bytes = row < m.rows ? (left >= V ? 16 : left > 0 ? static_cast<int>(left) * S : 0) : 0;
        // (src-size 0 reads nothing; the address only has to be a valid one.)
        const T* p = bytes ? src + row * m.ld_in + col : in;
        cp_async_16(dst + r * kRowChunks + (k ^ ((r / V) & 7)), p, bytes);
      }
    }
    cp_async_commit();
  };

  const std::int64_t step = gridDim.x;
  std::int64_t t = blockIdx.x;
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) issue(t + s * step, s);

  int stage = 0;
  for (; t < tiles; t += step) {
    cp_async_wait<NS - 2>();
    __syncthreads();
    issue(t + (NS - 1) * step, stage == 0 ? NS - 1 : stage - 1);

    std::int64_t r0, c0, in_off, out_off;
    locate(t, &r0, &c0, &in_off, &out_off);
    T* dst = out + out_off;
    const bool full = r0 + TR <= m.rows && c0 + TC <= m.cols;
    const auto* tile = reinterpret_cast<const unsigned char*>(pipe_smem + stage * kTileChunks);
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int w = (it * NT + tid) / 32;
      const int c = (w / kOutSegs) * 4 + ly;      // tile column = output row offset
      const int vi = (w % kOutSegs) * 8 + lx;     // vector index along the output row
      const int i = vi * V;                       // first tile row = output column offset
      // Element (i + k, c) lives in row i + k, chunk (c / V) ^ (vi & 7), at byte (c % V) * S.
      const unsigned char* base = tile + ((c / V) ^ (vi & 7)) * 16 + (c % V) * S;
      vec16<T> o;
#pragma unroll
      for (int k = 0; k < V; ++k) o.e[k] = *reinterpret_cast<const T*>(base + (i + k) * (TC * S));
      T* p = dst + (c0 + c) * m.ld_out + r0 + i;
      if (full || (c0 + c < m.cols && r0 + i + V <= m.rows)) {
        *reinterpret_cast<uint4*>(p) = o.v;
      } else if (c0 + c < m.cols) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (r0 + i + k < m.rows) p[k] = o.e[k];
      }
    }
    stage = stage == NS - 1 ? 0 : stage + 1;
  }
  cp_async_wait<0>();
}

}  // namespace xpose::detail::gpu
