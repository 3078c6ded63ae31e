// reg_batch: batches of small matrices whose sides are whole V x V blocks (V = 16 / element size),
// with no shared memory. A thread moves one block as reg_tile moves one of its blocks: V 16-byte
// loads (input rows V i + k of matrix b, columns V j ..), a transpose in registers (block_transpose.cuh),
// V 16-byte stores (output rows V j + k, columns V i ..).
//
// Why a kernel of its own. reg_tile tiles each matrix with thread blocks of 512 x 128 bytes (its
// 1-byte shape), so a 32 x 48 byte matrix fills 2% of one; permute_packed packs several matrices
// into a box in shared memory but gathers 1- and 2-byte elements one load per element (H200
// 2026-11-30, 100000 x 32x48: i8 65.6% of copy, f16 84.8%).
//
// Lanes: a warp holds W blocks of each of G block rows (the batch's block rows numbered flat, t = b *
// nbr + i; W and G: launch.warp_cols / warp_rows, reg_batch_lanes_of in tile_shapes.hpp): lane l takes
// block row t0 + l / W, block column c0 + l % W, and lanes past G W idle. Rows of up to 16 blocks are
// taken whole (W = nbc), longer ones in segments of W blocks, the warps of one group of block rows
// walking its segments one after another. So for one k the warp reads G pieces of W x 16 bytes of
// input rows and writes, in each of the W output rows it touches, G consecutive 16-byte pieces: whole
// 32-byte sectors where G is even, whole output rows where G covers whole matrices. The first
// version numbered blocks flat over the whole batch (a warp = 32 consecutive blocks), so a warp's
// block rows started anywhere; see docs/performance.md ("Twelfth session") for both.
//
// Launch geometry: kRegBatchThreads threads per block, ceil(block rows / G) x segments warps, a 1-D grid
// (capped at the grid limit; the warps loop). Needs whole blocks (rows and columns multiples of V),
// 16-byte aligned pointers, leading dimensions and batch strides, and fewer than 2^31 warp tiles and
// block rows (configure_reg_batch).
#pragma once

#include <cstdint>

#include "gpu/common.cuh"
#include "gpu/kernels/block_transpose.cuh"
#include "gpu/kernels/fast_tile.cuh"  // vec16
#include "gpu/kernels/tile_shapes.hpp"  // kRegBatchThreads
#include "gpu/packed_tile.hpp"        // fast_div

namespace xpose::detail::gpu {

// The numbering: block rows in all (batch x nbr), block rows per matrix (nbr), blocks per block row
// (nbc), the warp's W x G blocks, segments of W blocks per row, warp tiles in all; and the batch dims' extents
// as divisors (two or more batch dims: matrix b's coordinates), so a thread's offsets cost a few
// multiplies rather than 64-bit divisions (a rank-8 reversal has six batch dims).
struct reg_batch_grid {
  std::uint32_t rows = 0, nbr = 1, nbc = 1, warp_rows = 1, warp_cols = 1, segs = 1, tiles = 0;
  fast_div nbr_div, cols_div, segs_div;  // by nbr, W, segments per block row
  fast_div batch_div[kMaxBatchRank];
};

// Matrix b's offsets on both sides (batch_offsets with 32-bit divisors).
__device__ __forceinline__ void reg_batch_offsets(const matrix_view& m, const reg_batch_grid& g, std::uint32_t b,
                                                  std::int64_t* in_off, std::int64_t* out_off) {
  if (m.batch_rank <= 1) {
    *in_off = static_cast<std::int64_t>(b) * m.bs_in;
    *out_off = static_cast<std::int64_t>(b) * m.bs_out;
    return;
  }
  std::int64_t i = 0, o = 0;
#pragma unroll
  for (int k = kMaxBatchRank - 1; k >= 0; --k) {
    if (k >= m.batch_rank) continue;
    const std::uint32_t rest = g.batch_div[k].div(b);
    const std::uint32_t idx = b - rest * g.batch_div[k].d;
    b = rest;
    i += static_cast<std::int64_t>(idx) * m.batch_in[k];
    o += static_cast<std::int64_t>(idx) * m.batch_out[k];
  }
  *in_off = i;
  *out_off = o;
}

template <class T>
__global__ void __launch_bounds__(kRegBatchThreads) reg_batch_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                     matrix_view m, reg_batch_grid g) {
  constexpr int V = 16 / sizeof(T);
  const std::uint32_t lane = threadIdx.x % 32, lr = g.cols_div.div(lane), lc = lane - lr * g.warp_cols;
  if (lr >= g.warp_rows) return;  // idle lanes: G W < 32
  const std::uint32_t step = gridDim.x * (blockDim.x / 32);
  for (std::uint32_t wt = (blockIdx.x * blockDim.x + threadIdx.x) / 32; wt < g.tiles; wt += step) {
    const std::uint32_t rg = g.segs_div.div(wt), sg = wt - rg * g.segs;
    const std::uint32_t t = rg * g.warp_rows + lr, j = sg * g.warp_cols + lc;
    if (t >= g.rows || j >= g.nbc) continue;  // the last group of block rows, a partial last segment
    const std::uint32_t b = g.nbr_div.div(t), i = t - b * g.nbr;
    std::int64_t in_off, out_off;
    reg_batch_offsets(m, g, b, &in_off, &out_off);
    const T* src = in + in_off + static_cast<std::int64_t>(i) * V * m.ld_in + static_cast<std::int64_t>(j) * V;
    T* dst = out + out_off + static_cast<std::int64_t>(j) * V * m.ld_out + static_cast<std::int64_t>(i) * V;
    if constexpr (sizeof(T) == 1) {
      vec16<T> r[V];
#pragma unroll
      for (int k = 0; k < V; ++k) r[k].v = *reinterpret_cast<const uint4*>(src + k * m.ld_in);
#pragma unroll
      for (int k = 0; k < V; ++k) {  // output row V j + k, columns V i .. V i + V - 1
        vec16<T> o;
#pragma unroll
        for (int e = 0; e < V; ++e) o.e[e] = r[e].e[k];
        *reinterpret_cast<uint4*>(dst + k * m.ld_out) = o.v;
      }
    } else {  // words, so each output vector is one 16-byte store (block_transpose.cuh)
      uint4 r[V];
#pragma unroll
      for (int k = 0; k < V; ++k) r[k] = *reinterpret_cast<const uint4*>(src + k * m.ld_in);
#pragma unroll
      for (int k = 0; k < V; ++k) store_vec16(dst + k * m.ld_out, block_column<sizeof(T)>(r, k));
    }
  }
}

}  // namespace xpose::detail::gpu
