// fast_tile: the production 2-D transpose. 16-byte vector accesses on both global sides, a padded
// shared tile in between, several independent 16-byte loads in flight per thread.
//
// Geometry. V = 16 / sizeof(T) elements make one 16-byte vector. A block of kThreads threads moves
// a TR x TC tile (input rows x input cols). Each warp-wide access is arranged as 4 rows x 8 lanes:
//   load:  8 lanes read 8 consecutive vectors (128 B, one cache line) of an input row, for 4 rows;
//   store: 8 lanes write 8 consecutive vectors (128 B) of an output row, for 4 output rows.
// Full 128-byte lines on both sides means DRAM sees whole sectors only, as a copy does.
//
// Banks. A load-phase lane scatters its V elements into tile[row][col .. col+V-1] one element at
// a time, and a store-phase lane gathers tile[i .. i+V-1][col]. With the 4 x 8 lane arrangement and
// a row pitch of TC + kPad elements, both phases are conflict-free for 4-, 8- and 16-byte elements
// when the pitch is odd in elements (bank = 4*lx + ly for 4-byte words, the 8- and 16-byte cases
// split into half- and quarter-warps that each cover the 32 banks once). 2-byte elements use a pad
// of one word; the model (xpose banks --variant fast_tile) reports what remains.
//
// 1-byte elements take their own path (fast_tile_bytes, below): one shared access per byte on each
// side made the byte tile bound by its shared-memory instructions (1024 per 16 KiB tile on one SM,
// half of them 4-way conflicted), which is what small 1-byte matrices, a tile or two per SM, waited on.
//
// Edges. A vector that lies wholly inside the matrix moves as one 16-byte access; one that straddles
// the last column/row falls back to element accesses with bounds checks, so any shape is exact.
// The planner only picks this kernel when both leading dimensions (and batch strides) are multiples
// of V and, at execute, both pointers are 16-byte aligned; otherwise skew_tile (kernels/skew_tile.cuh)
// or, for short sides and 16-byte elements, `tiled` runs.
//
// Launch: block (fast_tile_shape::kThreads), grid (ceil(rows/TR), ceil(cols/TC), batch) (Down, below),
// capped and looped.
#pragma once

#include "gpu/common.cuh"
#include "gpu/kernels/tile_shapes.hpp"

namespace xpose::detail::gpu {

// One 16-byte vector, seen as V elements.
template <class T>
union vec16 {
  uint4 v;
  T e[16 / sizeof(T)];
};

// fast_tile_bytes: one 128 x 128 tile of 1-byte elements, 256 threads. Thread (warp, lx, ly) loads
// the 16 columns lx*16 .. +15 of the 4 input rows 4g .. 4g + 3 (g = warp * 4 + ly; each load
// instruction reads 4 rows x 128 B, as above), transposes those 4 x 16 bytes in registers into 16
// words (word j: column lx*16 + j of the 4 rows, row order; 8 byte permutes per 4 columns) and stores
// them as words of a column-major tile: column c holds its 128 rows as 32 words, word g at
// tw[c][g ^ s(c)], s(c) = ((c / 16) mod 8) * 4. An output vector (16 rows of one column) is then 4
// consecutive words, one 16-byte shared load. Banks: a scatter instruction's lanes write words
// (warp * 4 + ly) ^ (lx * 4) of 32 different columns of the same residue mod 16, one per bank; a
// gather's 8 lanes of one output row read 8 disjoint 4-word groups of one column, the 32 banks once.
// So 16 4-byte stores and 4 16-byte loads per thread and tile, none conflicted, where the element
// path had 64 1-byte stores and 64 1-byte loads.
template <class shape>
__device__ __forceinline__ void fast_tile_bytes(const unsigned char* src, unsigned char* dst, const matrix_view& m,
                                                std::int64_t r0, std::int64_t c0, bool full) {
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads;
  constexpr int G = TR / 4;  // words per tile column
  static_assert(TR == 128 && TC == 128 && NT == 256, "the byte path's lane map covers a 128 x 128 tile in 256 threads");
  __shared__ alignas(16) std::uint32_t tw[TC][G];
  auto word = [](int col, int grp) -> std::uint32_t& { return tw[col][grp ^ (((col >> 4) & 7) << 2)]; };
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lx = tid % 8, ly = (tid % 32) / 8;

  const int g = warp * 4 + ly, col = lx * 16;
  std::uint32_t x[4][4];  // x[k][q]: row 4g + k, columns col + 4q .. + 3
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const std::int64_t row = r0 + 4 * g + k;
    const unsigned char* p = src + row * m.ld_in + c0 + col;
    vec16<unsigned char> v;
    if (full || (row < m.rows && c0 + col + 16 <= m.cols)) {
      v.v = *reinterpret_cast<const uint4*>(p);
    } else {
#pragma unroll
      for (int e = 0; e < 16; ++e) v.e[e] = (row < m.rows && c0 + col + e < m.cols) ? p[e] : 0;
    }
    x[k][0] = v.v.x, x[k][1] = v.v.y, x[k][2] = v.v.z, x[k][3] = v.v.w;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::uint32_t lo01 = __byte_perm(x[0][q], x[1][q], 0x5140), hi01 = __byte_perm(x[0][q], x[1][q], 0x7362);
    const std::uint32_t lo23 = __byte_perm(x[2][q], x[3][q], 0x5140), hi23 = __byte_perm(x[2][q], x[3][q], 0x7362);
    word(col + 4 * q + 0, g) = __byte_perm(lo01, lo23, 0x5410);
    word(col + 4 * q + 1, g) = __byte_perm(lo01, lo23, 0x7632);
    word(col + 4 * q + 2, g) = __byte_perm(hi01, hi23, 0x5410);
    word(col + 4 * q + 3, g) = __byte_perm(hi01, hi23, 0x7632);
  }
  __syncthreads();

#pragma unroll
  for (int it = 0; it < 4; ++it) {
    const int c = (it * (NT / 32) + warp) * 4 + ly;  // tile column = output row offset
    const int i = lx * 16;                            // first tile row = output column offset
    vec16<unsigned char> o;
    o.v = *reinterpret_cast<const uint4*>(&word(c, i / 4));
    unsigned char* p = dst + (c0 + c) * m.ld_out + r0 + i;
    if (full || (c0 + c < m.cols && r0 + i + 16 <= m.rows)) {
      store_vec16(p, o.v);
    } else if (c0 + c < m.cols) {
#pragma unroll
      for (int e = 0; e < 16; ++e)
        if (r0 + i + e < m.rows) p[e] = o.e[e];
    }
  }
  __syncthreads();
}

// Down (the library's order): blockIdx.x walks down the input's tile rows (the grid is (rows, cols)
// in tiles), so blocks launched together write neighbouring pieces of the same output rows; else
// across its columns. H200 2026-11-30 (tools/tune/tma_sweep.cu --fast 1, % of copy, across / down,
// 2/4/8/16-byte elements): 16384^2 88.1/92.6, 87.1/92.1, 90.0/94.1, 87.0/90.6; 10000^2 76.0/78.4,
// 83.7/86.8, 87.1/93.5, 92.4/93.2; 16384x8192 87.2/91.2, 88.0/92.9, 89.0/96.4, 88.1/93.4; 8192x16384
// 88.2/94.1, 88.5/93.6, 92.7/91.6, 89.6/93.6; 4096^2 within 3.3 either way; 1-byte elements within
// 0.5 (docs/results/fast-orders-2026-11-30m.csv).
template <class T, bool Down = true>
__global__ void __launch_bounds__(fast_tile_shape<sizeof(T)>::kThreads)
    fast_tile_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m) {
  constexpr int S = sizeof(T), V = 16 / S;
  using shape = fast_tile_shape<S>;
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads;
  constexpr int kLoadVecs = TR * (TC / V);   // 16-byte vectors in the tile, read side
  constexpr int kStoreVecs = TC * (TR / V);  // and write side (the same number)
  constexpr int kIters = kLoadVecs / NT;
  constexpr int kSegsIn = TC / V / 8;        // 8-lane column segments per input row
  constexpr int kSegsOut = TR / V / 8;       // 8-lane segments per output row
  static_assert(kLoadVecs % NT == 0 && kStoreVecs == kLoadVecs && kSegsIn >= 1 && kSegsOut >= 1);

  __shared__ T tile[S == 1 ? 1 : TR][TC + shape::kPad];  // the byte path has its own (fast_tile_bytes)
  const int tid = threadIdx.x;
  const int lx = tid % 8, ly = (tid % 32) / 8;  // lane position in the 4 x 8 arrangement

  const std::int64_t nbx = ceil_div(m.cols, TC), nby = ceil_div(m.rows, TR);
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t gy = blockIdx.y; gy < (Down ? nbx : nby); gy += gridDim.y)
      for (std::int64_t gx = blockIdx.x; gx < (Down ? nby : nbx); gx += gridDim.x) {
        const std::int64_t by = Down ? gx : gy, bx = Down ? gy : gx;
        std::int64_t in_off, out_off;
        batch_offsets(m, b, &in_off, &out_off);
        const T* src = in + in_off;
        T* dst = out + out_off;
        const std::int64_t r0 = by * TR, c0 = bx * TC;
        const bool full = r0 + TR <= m.rows && c0 + TC <= m.cols;
        if constexpr (S == 1) {
          fast_tile_bytes<shape>(src, dst, m, r0, c0, full);
        } else {
          // Load: all kIters vectors first (independent loads in flight), then scatter into the tile.
          vec16<T> v[kIters];
#pragma unroll
          for (int it = 0; it < kIters; ++it) {
            const int w = (it * NT + tid) / 32;
            const int row = (w / kSegsIn) * 4 + ly, col = ((w % kSegsIn) * 8 + lx) * V;
            const T* p = src + (r0 + row) * m.ld_in + c0 + col;
            if (full || (r0 + row < m.rows && c0 + col + V <= m.cols)) {
              v[it].v = *reinterpret_cast<const uint4*>(p);
            } else {
#pragma unroll
              for (int k = 0; k < V; ++k) v[it].e[k] = (r0 + row < m.rows && c0 + col + k < m.cols) ? p[k] : T{};
            }
          }
#pragma unroll
          for (int it = 0; it < kIters; ++it) {
            const int w = (it * NT + tid) / 32;
            const int row = (w / kSegsIn) * 4 + ly, col = ((w % kSegsIn) * 8 + lx) * V;
#pragma unroll
            for (int k = 0; k < V; ++k) tile[row][col + k] = v[it].e[k];
          }
          __syncthreads();

          // Store: gather V consecutive input rows of one tile column into a vector of the output row,
          // written by store_vec16 (a plain uint4 store of 2- to 8-byte elements was split into word
          // stores by nvcc until the twelfth session: 1024^2 f16 / f32 85.4 / 86.5 -> 105.7 / 92.4% of copy).
#pragma unroll
          for (int it = 0; it < kIters; ++it) {
            const int w = (it * NT + tid) / 32;
            const int c = (w / kSegsOut) * 4 + ly;        // tile column = output row offset
            const int i = ((w % kSegsOut) * 8 + lx) * V;  // first tile row = output column offset
            vec16<T> o;
#pragma unroll
            for (int k = 0; k < V; ++k) o.e[k] = tile[i + k][c];
            T* p = dst + (c0 + c) * m.ld_out + r0 + i;
            if (full || (c0 + c < m.cols && r0 + i + V <= m.rows)) {
              store_vec16(p, o.v);
            } else if (c0 + c < m.cols) {
#pragma unroll
              for (int k = 0; k < V; ++k)
                if (r0 + i + k < m.rows) p[k] = o.e[k];
            }
          }
          __syncthreads();
        }
      }
}

}  // namespace xpose::detail::gpu
