// skew_tile: the 2-D transpose for leading dimensions (and pointers) that are not whole 16-byte
// vectors, such as 10007 x 9973, still with aligned 16-byte vectors on both global sides.
//
// fast_tile needs every row to start on a 16-byte boundary. With an odd leading dimension the
// start of row r moves by ld mod V elements from one row to the next (V = 16 / sizeof(T)), so no
// fixed tile edge is aligned in every row. skew_tile keeps the accesses aligned and moves the tile
// edges instead:
//   - Output (written once: its alignment is what the L2 and DRAM see). Output row c of tile
//     (bx, by) holds input rows [r0 - m_c, r0 - m_c + TR), r0 = by * TR, where m_c is how far
//     element (c, r0) lies past a 32-byte sector boundary (in elements, < U = 32 / sizeof(T)). So
//     every tile writes whole aligned sectors: 8 lanes store 128 contiguous bytes of one output row
//     per instruction. Aligning to 16 bytes only left a third of the sectors half-written by each of
//     two tiles (10007x9973 f32: 3.7 L2 write sectors per sector of output, the L2 at 92% of its
//     peak and DRAM at 41%; Nsight Compute, H200, 2026-11-29). The staggered ranges of consecutive
//     tiles partition every output row (TR is a multiple of U, so m_c does not depend on by); the
//     grid has ceil((rows + U - 1) / TR) tile rows. Vectors that cross the matrix's first or last
//     row are written element by element.
//   - Input (read: an over-read costs L2 traffic, not DRAM). The tile reads the TR + U - 1 input
//     rows [r0 - U + 1, r0 + TR) its staggered outputs need, each as TC / V + 1 aligned chunks that
//     cover the columns [c0, c0 + TC) wherever the row's alignment puts them (the scatter: TC / V
//     chunks by warps of 4 rows x 8 lanes, a 128-byte run per row as fast_tile, and the last chunk
//     of every row by a second pass; the raw load: consecutive threads take consecutive chunks of
//     the rows). The extra rows and chunk were also read by the neighbouring tiles, a few hundred
//     tiles earlier or later in launch order, so they come from the L2.
//   - Shared memory: tile row h holds input row h0 + h with column c0 + x at tile[h][V + x], so a
//     row's elements sit at the same column whatever its alignment, and the gather reads
//     tile[U - 1 - m_c + k * V + i][V + c] at fixed offsets i * P. 4- and 8-byte elements get
//     there by scattering each chunk element by element (skew_load_scatter); 1- and 2-byte ones,
//     whose scatter took 16 or 8 shared stores per chunk, mostly by storing each chunk as it stands
//     at a pitch that absorbs the rows' misalignment (skew_load_raw, sixteenth session).
//     The pitch P (skew_tile_shape) was chosen by counting bank wavefronts of both phases over every
//     leading dimension mod V (input) and mod U (output).
// Chunks that cross the matrix's edge (first or last column, rows outside it) are loaded element
// by element with bounds checks, so nothing outside the matrix is read or written.
//
// Launch: block (kThreads), grid (ceil(cols / TC), ceil((rows + U - 1) / TR), batch), or the first
// two swapped where Down (the tile rows first: skew_tile_shape's kDown says which sizes and why),
// capped and looped. Static shared memory: (TR + U - 1) x P elements.
#pragma once

#include <cstdint>

#include "gpu/common.cuh"
#include "gpu/kernels/fast_tile.cuh"  // vec16
#include "gpu/kernels/tile_shapes.hpp"

namespace xpose::detail::gpu {

// The load phase, element by element (4- and 8-byte elements): every chunk first (independent
// 16-byte loads in flight), then each chunk scattered element by element to tile[h][V + column - c0].
template <class T, class shape>
__device__ __forceinline__ void skew_load_scatter(const T* __restrict__ in, const matrix_view& m, T* tile,
                                                  std::int64_t h0, std::int64_t c0, std::int64_t in_off,
                                                  std::int64_t in_mis) {
  constexpr int S = sizeof(T), V = 16 / S, U = 32 / S;
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads, P = shape::kPitch;
  constexpr int kWarps = NT / 32;
  constexpr int H = TR + U - 1;                 // input rows per tile
  constexpr int kMain = TC / V;                 // chunks per row moved by 4 x 8 warps
  constexpr int kSegs = kMain / 8;              // 8-lane segments per row
  constexpr int kMainWarpOps = (H + 3) / 4 * kSegs;
  constexpr int kMainIters = (kMainWarpOps + kWarps - 1) / kWarps;
  constexpr int kTailIters = (H + NT - 1) / NT;  // the last chunk of each row, one row per thread
  constexpr int kLoads = kMainIters + kTailIters;
  static_assert(kMain % 8 == 0);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int lx = lane % 8, ly = lane / 8;
  vec16<T> v[kLoads];
  int dst[kLoads];  // tile index of each chunk's first element; -1: no chunk
#pragma unroll
  for (int it = 0; it < kLoads; ++it) {
    int h, ch;
    if (it < kMainIters) {
      const int op = it * kWarps + warp;
      h = op / kSegs * 4 + ly;
      ch = op % kSegs * 8 + lx;
    } else {
      h = (it - kMainIters) * NT + tid;
      ch = kMain;
    }
    dst[it] = -1;
    if (h >= H) continue;
    const std::int64_t r = h0 + h;
    const std::int64_t row_start = in_off + r * m.ld_in;  // element index of (r, 0)
    const int a = static_cast<int>((in_mis + row_start + c0) & (V - 1));  // two's complement: mod V
    const std::int64_t cs = c0 - a + ch * V;  // the chunk's first column
    dst[it] = h * P + V + static_cast<int>(cs - c0);
    if (r < 0 || r >= m.rows) continue;
    const T* p = in + row_start + cs;
    if (cs >= 0 && cs + V <= m.cols) {
      v[it].v = *reinterpret_cast<const uint4*>(p);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (cs + e >= 0 && cs + e < m.cols) v[it].e[e] = p[e];
    }
  }
  // Elements outside the matrix are scattered as whatever v holds: the gather never reads them.
#pragma unroll
  for (int it = 0; it < kLoads; ++it) {
    if (dst[it] < 0) continue;
#pragma unroll
    for (int e = 0; e < V; ++e) tile[dst[it] + e] = v[it].e[e];
  }
}

// The load phase without per-element work, for the input leading dimensions skew_tile_shape's
// kRawMask names (1- and 2-byte elements, sixteenth session). Chunk k of tile row h, the aligned 16
// bytes from column c0 - a_h + k * V (a_h: the row's misalignment), is stored as it stands, one
// 16-byte shared store, at tile index h * Pr + V * f_h + k * V, where a_0 + h * L = V * f_h + a_h
// (L = ld_in mod V, a compile-time constant; a_0: row 0's misalignment) and Pr is a multiple of V
// (configure.cpp chooses it by the bank model for the output's leading dimension). Element (h, x)
// then sits at h * Pe + a_0 + x with Pe = Pr + L: linear in h, so the gather reads a vector at fixed
// steps Pe, as from the scattered layout. Pe = L mod V whatever Pr is, so leading dimensions of
// whole vectors (L = 0) would put a gather's 8 lanes, V rows apart, on one bank: those keep the
// scatter. Every chunk is loaded before any is stored (registers, as the scatter). Chunks that
// leave the matrix are loaded element by element.
// Why: the scatter cost 16 (1 B) or 8 (2 B) shared stores per chunk, 2.1-way conflicted: 10007x9973
// i8 ran with the L1 at 96% of its peak, 4.4 M store requests against 3.2 M gather loads (Nsight
// Compute, H200, 2026-11-30, results/ncu-skew-tile-i8-2026-11-30r.txt). H200 2026-11-30, by name, %
// of copy, two rounds (results/skew-raw-2026-11-30t.json): i8 10007x9973 68 -> 75, 9973x10007 55 ->
// 74-75, 5000x5003 64-66 -> 71-72, 10000x10007 70 -> 76-77, 16383x16385 and 8191x8193 74-75 both;
// f16 16383x16385 72 -> 85.5, 8191x8193 76 -> 85-86 (L = 1), level at L = 5, 1-3 points down at L =
// 3 and 7 (tile_shapes.hpp: the mask). Tried the same session and dropped: the chunks copied by
// cp.async (no registers; i8 the same within 2 points, f16 80 where registers reach 85-86); rows
// realigned in registers by shuffles and funnel shifts into a fixed layout (10007x9973 i8 60-64, f16
// 65-69); 4-byte elements (the scatter is 4 stores a chunk there: 82-93 -> 68-83 raw).
template <class T, class shape, int L>
__device__ __forceinline__ void skew_load_raw(const T* __restrict__ in, const matrix_view& m, T* tile, std::int64_t h0,
                                              std::int64_t c0, std::int64_t in_off, int a0, int pr) {
  constexpr int S = sizeof(T), V = 16 / S, U = 32 / S;
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads;
  constexpr int H = TR + U - 1;   // input rows per tile
  constexpr int KC = TC / V + 1;  // chunks per row
  constexpr int kItems = (H * KC + NT - 1) / NT;
  uint4 v[kItems];
  int dst[kItems];  // the tile index of chunk it; -1: nothing to store from registers
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    dst[it] = -1;
    const int u = it * NT + static_cast<int>(threadIdx.x);  // chunk u mod KC of tile row u / KC
    const int h = u / KC, k = u - h * KC;
    const std::int64_t r = h0 + h;
    if (u >= H * KC || r < 0 || r >= m.rows) continue;  // rows outside the matrix: never stored
    const int ah = (a0 + h * L) % V, fh = (a0 + h * L) / V;
    if (k == KC - 1 && ah == 0) continue;  // the row's columns end in chunk KC - 2
    const std::int64_t cs = c0 - ah + k * V;  // chunk k's first column
    const T* p = in + in_off + r * m.ld_in + cs;
    const int d = h * pr + V * fh + k * V;
    if (cs >= 0 && cs + V <= m.cols) {
      v[it] = __ldg(reinterpret_cast<const uint4*>(p));
      dst[it] = d;
    } else {
      vec16<T> e;
      e.v = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int i = 0; i < V; ++i)
        if (cs + i >= 0 && cs + i < m.cols) e.e[i] = p[i];
      *reinterpret_cast<uint4*>(tile + d) = e.v;
    }
  }
#pragma unroll
  for (int it = 0; it < kItems; ++it)
    if (dst[it] >= 0) *reinterpret_cast<uint4*>(tile + dst[it]) = v[it];
}

template <class T, class shape = skew_tile_shape<sizeof(T)>, bool Down = shape::kDown, int Lraw = -1>
__global__ void __launch_bounds__(shape::kThreads, shape::kMinBlocks)
    skew_tile_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m, int pr = 0) {  // pr: Raw's Pr
  constexpr int S = sizeof(T), V = 16 / S, U = 32 / S;
  constexpr int TR = shape::kRows, TC = shape::kCols, NT = shape::kThreads, P = shape::kPitch;
  constexpr int kWarps = NT / 32;
  constexpr int H = TR + U - 1;                 // input rows per tile
  constexpr int kVecsPerRow = TR / V;           // output vectors per output row
  constexpr int kLanesC = 32 / 8;               // output rows per warp instruction
  constexpr int kStores = TC * kVecsPerRow;
  constexpr int kStoreIters = kStores / NT;
  // Lraw >= 0 (skew_load_raw, for input leading dimensions = Lraw mod V): rows copied as they
  // stand, tile index h * Pe + a_0 + x, Pe = pr + Lraw.
  constexpr bool Raw = Lraw >= 0;
  constexpr int kRawPrMax = TC + V + 3 * V;     // configure.cpp skew_raw_pitch_for's largest
  constexpr int kTileElems = Raw ? H * (kRawPrMax + V) + (TC / V + 1) * V : H * P;
  static_assert(P >= TC + 2 * V && TR % U == 0 && kStores % NT == 0 && NT % 32 == 0);
  static_assert(kVecsPerRow % 8 == 0 && TC % kLanesC == 0);

  __shared__ alignas(16) T tile[kTileElems];
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int lx = lane % 8, ly = lane / 8;
  // Misalignment of element index e from the array's start: (mis + e) mod V elements past a 16-byte
  // boundary, mod U past a 32-byte one (pointers are aligned to the element, checked at execute).
  const auto in_mis = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(in) / S) % V);
  const auto out_mis = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(out) / S) % U);

  const std::int64_t nbx = ceil_div(m.cols, TC), nby = ceil_div(m.rows + U - 1, TR);
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t gy = blockIdx.y; gy < (Down ? nbx : nby); gy += gridDim.y)
      for (std::int64_t gx = blockIdx.x; gx < (Down ? nby : nbx); gx += gridDim.x) {
        const std::int64_t by = Down ? gx : gy, bx = Down ? gy : gx;
        std::int64_t in_off, out_off;
        batch_offsets(m, b, &in_off, &out_off);
        const std::int64_t r0 = by * TR, c0 = bx * TC;
        const std::int64_t h0 = r0 - (U - 1);  // input row of tile row 0

        // Element (h, x) of the tile (input row h0 + h, column c0 + x) at tile[h * pe + x0 + x].
        int pe = P, x0 = V;
        if constexpr (Raw) {
          const int a0 = static_cast<int>((in_mis + in_off + h0 * m.ld_in + c0) & (V - 1));  // two's complement: mod V
          skew_load_raw<T, shape, Lraw>(in, m, tile, h0, c0, in_off, a0, pr);
          pe = pr + Lraw, x0 = a0;
        } else {
          skew_load_scatter<T, shape>(in, m, tile, h0, c0, in_off, in_mis);
        }
        __syncthreads();

        // Store: output row c0 + c, vector k: input rows r0 - m_c + k * V .. + V - 1; 8 lanes write
        // 8 consecutive vectors of one output row.
#pragma unroll
        for (int it = 0; it < kStoreIters; ++it) {
          const int w = it * kWarps + warp;
          const int k = (w % (kVecsPerRow / 8)) * 8 + lx;
          const int c = (w / (kVecsPerRow / 8)) * kLanesC + ly;
          const std::int64_t gc = c0 + c;
          if (gc >= m.cols) continue;
          const std::int64_t row_start = out_off + gc * m.ld_out;  // element index of output (gc, 0)
          const int mc = static_cast<int>((out_mis + row_start + r0) % U);
          const std::int64_t rr = r0 - mc + k * V;  // first input row (= output column) of the vector
          const T* src = tile + (U - 1 - mc + k * V) * pe + x0 + c;
          vec16<T> o;
#pragma unroll
          for (int i = 0; i < V; ++i) o.e[i] = src[i * pe];
          T* p = out + row_start + rr;
          // store_vec16: 10007x9973 f16 / f32 70.4 / 68.1 -> 84.1 / 81.5% of copy once the vector
          // stores were no longer split into word stores (twelfth session, common.cuh).
          if (rr >= 0 && rr + V <= m.rows) {
            store_vec16(p, o.v);
          } else {
#pragma unroll
            for (int i = 0; i < V; ++i)
              if (rr + i >= 0 && rr + i < m.rows) p[i] = o.e[i];
          }
        }
        __syncthreads();
      }
}

}  // namespace xpose::detail::gpu
