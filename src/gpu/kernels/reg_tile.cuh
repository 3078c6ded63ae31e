// reg_tile: a transpose with no shared memory. Each thread loads a V x V block of elements
// (V = 16 / element size: V rows, one 16-byte vector each), transposes it in registers and stores
// V 16-byte vectors of the output.
//
// Why: fast_tile's measured ratio to copy fell with the number of shared-memory instructions per
// 16 bytes moved (H200, 16384^2, first run: 16-byte elements 91%, 8-byte 84%, 4-byte 69%, 2-byte 77%,
// 1-byte 57%, for 2, 4, 8, 16 and 32 shared accesses per vector): the load/store unit, not DRAM, was
// the limit. Here a vector costs one global load and one global store; the in-register transpose of
// 4- and 8-byte elements is free (register renaming) and of 1- and 2-byte elements costs PRMT
// (byte-permute) ALU instructions, whose throughput is far above the load/store unit's.
// (Until the twelfth session the 2- to 8-byte kernels stored 2, 4 or 8 bytes at a time: nvcc split
// their vector stores, see store_vec16 in common.cuh. Their 16384^2 numbers of the first sessions,
// 43.8 / 52.7 / 76.4% of copy for 2 / 4 / 8 bytes, were that; now 87.9 / 90.8 / 90.7.)
//
// Warp layout: lane = (a, c) with a = lane / LC (LA row-blocks) and c = lane % LC (LC = 32 / LA
// column-blocks); LA = 4 but for 1-byte matrices of 64 columns (LA = 8), so
//   loads:  for each of the V rows of a block, LC lanes read LC consecutive vectors (128 or 64 B) of
//           LA rows;
//   stores: for each of the V output rows, LA lanes write LA consecutive vectors (64 or 128 B) of LC
//           rows.
// Every 32-byte sector is read or written whole by one instruction. A thread does U blocks stacked
// down the rows (U = 4 / V, at least 1) so that it has at least 4 independent loads in flight.
//
// Edges: a block that lies wholly inside the matrix moves with vectors; one that crosses an edge
// moves element by element with bounds checks. Needs 16-byte aligned pointers and leading
// dimensions (and batch strides) that are multiples of V (planner + execute check).
//
// Launch: block (256) = 8 warps, WY stacked down the rows and 8 / WY across (WY = 8 but for 1-byte
// matrices of 256 rows or fewer: reg_tile_stack in tile_shapes.hpp); a block covers (WY * LA * U * V)
// rows x (8 / WY * LC * V) cols; grid (ceil(cols / block cols), ceil(rows / block rows), batch),
// capped and looped. Block (x, y) moves the tile raster_tile assigns to its number y * nbx + x:
// bands of band_rows (kRegTileBandRows) tile rows, walked column by column (tile_shapes.hpp has the
// measurements).
#pragma once

#include "gpu/common.cuh"
#include "gpu/kernels/block_transpose.cuh"
#include "gpu/kernels/fast_tile.cuh"  // vec16
#include "gpu/kernels/tile_shapes.hpp"

namespace xpose::detail::gpu {

template <class T, int WY, int LA>
__global__ void __launch_bounds__(kRegTileThreads) reg_tile_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   matrix_view m, std::int64_t nbx,
                                                                   std::int64_t nby, std::int64_t band_rows) {
  using shape = reg_tile_shape<sizeof(T), WY, LA>;
  constexpr int LC = 32 / LA;
  constexpr int V = shape::kV, U = shape::kU;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int a = lane / LC, c = lane % LC;
  const int wy = warp % WY, wx = warp / WY;  // this warp's place in the block
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    std::int64_t in_off, out_off;
    batch_offsets(m, b, &in_off, &out_off);
    const T* src = in + in_off;
    T* dst = out + out_off;
    for (std::int64_t ty = blockIdx.y; ty < nby; ty += gridDim.y)
      for (std::int64_t tx = blockIdx.x; tx < nbx; tx += gridDim.x) {
        std::int64_t bx, by;
        raster_tile(ty * nbx + tx, nbx, nby, band_rows, &bx, &by);
        const std::int64_t c0 = bx * shape::kCols + (wx * LC + c) * V;  // first input column of this thread's blocks
        std::int64_t r0[U];
        bool full[U];
        vec16<T> r[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          r0[u] = by * shape::kRows + ((u * WY + wy) * LA + a) * V;
          full[u] = r0[u] + V <= m.rows && c0 + V <= m.cols;
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const T* p = src + (r0[u] + k) * m.ld_in + c0;
            if (full[u]) {
              r[u][k].v = *reinterpret_cast<const uint4*>(p);
            } else {
#pragma unroll
              for (int e = 0; e < V; ++e) r[u][k].e[e] = (r0[u] + k < m.rows && c0 + e < m.cols) ? p[e] : T{};
            }
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
          for (int k = 0; k < V; ++k) {  // output row c0 + k, columns r0 .. r0 + V - 1
            vec16<T> o;
#pragma unroll
            for (int e = 0; e < V; ++e) o.e[e] = r[u][e].e[k];
            T* p = dst + (c0 + k) * m.ld_out + r0[u];
            if (full[u]) {
              if constexpr (sizeof(T) == 1) {
                *reinterpret_cast<uint4*>(p) = o.v;
              } else {  // from words: one 16-byte store (block_transpose.cuh)
                uint4 w[V];
#pragma unroll
                for (int e = 0; e < V; ++e) w[e] = r[u][e].v;
                store_vec16(p, block_column<sizeof(T)>(w, k));
              }
            } else if (c0 + k < m.cols) {
#pragma unroll
              for (int e = 0; e < V; ++e)
                if (r0[u] + e < m.rows) p[e] = o.e[e];
            }
          }
        }
      }
  }
}

}  // namespace xpose::detail::gpu
