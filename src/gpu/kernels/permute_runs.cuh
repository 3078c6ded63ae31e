// permute_runs: any permutation whose input has a unit-stride dim other than the output's fastest,
// as A x B transposes of runs (gpu/runs_tile.hpp), with aligned 16-byte vectors on both sides for
// any extents, strides and pointer alignment.
//
// Per tile (a block builds the run tables in_off and out_off, then loops over its tiles):
//   1. Load: item u = (b, k), b = u / nc_in, is the k-th aligned 16-byte chunk of input run b (A
//      elements from in_off[b]); consecutive threads take consecutive chunks of a run, so a warp
//      reads whole runs. Each thread issues its kRunsLoads chunk loads before storing any, then
//      stores them to row b of the shared tile (shifted by r(b), runs_tile.hpp). Chunks past
//      the run's end are skipped; a chunk across the input's first or last byte loads only its
//      elements of the run, so nothing outside the input is read. The thread of chunk 0 records the
//      run's row_word (where the run's first element landed).
//   2. Store: item u = (a, j), a = u / nc_out, is the j-th aligned 16-byte chunk of output run a (B
//      elements from out_off[a]); element b of the run is element a of input run b, read from the
//      shared tile through row_word[b]. Chunks inside the run are one 16-byte store, the (at most
//      two) chunks at its ends are written element by element, so nothing outside the output's
//      elements is written.
// Tiles at the tensor's edge along the last A or B dim hold la = a_unit * lim_a <= A and
// lb = b_unit * lim_b <= B elements of each run; both loops use them as their bounds.
// Owned output ends (p.halo > 0, runs_tile.hpp): step 1 also loads the next slice's first halo
// input runs (rows lb .. rows - 1, where that slice exists), and step 2 writes whole the chunk that
// crosses into it, and skips the chunk its own slice starts inside of unless the slice is the first.
//
// Launch geometry: block kRunsThreads; grid = tiles (one block per tile) where p.one_shot
// (runs_tile.hpp kRunsOneShotMinElem: no element size since the H200 measured it), else
// min(tiles, resident blocks), each block looping, claiming tiles in order by a ticket where one
// is leased (tickets.hpp); dynamic shared memory p.smem_bytes (B rows of P bytes, then three int32
// tables).
#pragma once

#include <cstdint>
#include <cstring>

#include "gpu/common.cuh"
#include "gpu/runs_tile.hpp"
#include "gpu/tickets.hpp"

namespace xpose::detail::gpu {

template <class T, int MinBlocks>
__global__ void __launch_bounds__(kRunsThreads, MinBlocks)
    permute_runs_kernel(const T* __restrict__ in, T* __restrict__ out, runs_params p, unsigned long long* ticket) {
  constexpr int S = sizeof(T), V = 16 / S;
  extern __shared__ uint4 runs_smem_raw[];  // uint4: 16-byte aligned rows
  unsigned char* tile = reinterpret_cast<unsigned char*>(runs_smem_raw);
  const int rows_max = p.B + p.halo;  // input runs a tile may load: its own and the halo's
  int* row_word = reinterpret_cast<int*>(tile + rows_max * p.row_bytes);
  int* in_off = row_word + rows_max;
  int* out_off = in_off + rows_max;
  const int tid = static_cast<int>(threadIdx.x);
  for (int i = tid; i < rows_max; i += kRunsThreads) in_off[i] = runs_side_offset(p, true, i);
  for (int i = tid; i < p.A; i += kRunsThreads) out_off[i] = runs_side_offset(p, false, i);
  // The tile's origin: one thread computes the next one during this tile's stores and publishes it
  // at the closing barrier. A tile origin is a division chain over every dim (about 270 instructions
  // for rank 8, sm_90 SASS), which every thread computed for every tile before.
  // With owned ends (p.halo) also the tile's first coordinate along the B side's cut dim.
  __shared__ packed_origin next_origin;
  __shared__ int next_b_start;
  __shared__ std::uint32_t next_id;  // the block's next tile: gridDim.x further on, or by ticket
  auto origin_of = [&](std::uint32_t t) {
    if (p.halo) next_origin = packed_origin_of<true>(p, t, p.b_last, &next_b_start);
    else next_origin = packed_origin_of(p, t);
  };
  const auto tiles = static_cast<std::uint32_t>(p.tiles);
  if (tid == 0 && blockIdx.x < tiles) origin_of(blockIdx.x);
  __syncthreads();

  // Each thread's load items are the same in every tile: their run b, chunk k (b << 8 | k; -1: none)
  // and the run's offset in_off[b], kept in registers.
  int slot_bk[kRunsLoads], slot_off[kRunsLoads];
  const int load_items = rows_max * p.nc_in;
#pragma unroll
  for (int i = 0; i < kRunsLoads; ++i) {
    const int u = tid + i * kRunsThreads;
    const int b = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
    slot_bk[i] = u < load_items ? (b << 8 | (u - b * p.nc_in)) : -1;
    slot_off[i] = u < load_items ? in_off[b] : 0;
  }

  // Byte offsets from the (global) pointers, so the compiler keeps global loads and stores; the
  // pointers' own misalignment enters through in_mis / out_mis.
  const auto* inb = reinterpret_cast<const unsigned char*>(in);
  auto* outb = reinterpret_cast<unsigned char*>(out);
  const int in_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(in) & 15);
  const int out_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
  for (std::uint32_t tile_id = blockIdx.x; tile_id < tiles;) {
    const packed_origin o = next_origin;
    const int b_start = p.halo ? next_b_start : 0;
    const int la = o.lim_a < kPackedNoLimit ? p.a_unit * static_cast<int>(o.lim_a) : p.A;
    const int lb = o.lim_b < kPackedNoLimit ? p.b_unit * static_cast<int>(o.lim_b) : p.B;
    const int rows = runs_rows_of(p, lb, b_start);  // lb and the halo's input runs
    const std::int64_t tin = o.in * S, tout = o.out * S;  // byte offsets of the tile's origin
    const int run_bytes = la * S;

    uint4 v[kRunsLoads];
    int dst[kRunsLoads];  // shared byte of each chunk; -1: none
#pragma unroll
    for (int i = 0; i < kRunsLoads; ++i) {
      dst[i] = -1;
      if (slot_bk[i] < 0) continue;
      const int b = slot_bk[i] >> 8, k = slot_bk[i] & 0xff;
      if (b >= rows) continue;
      const std::int64_t rs = tin + static_cast<std::int64_t>(slot_off[i]) * S;  // the run's first byte
      const int mis = static_cast<int>((in_mis + rs) & 15);
      if (k == 0) row_word[b] = runs_row_word(p, b, mis);
      if (16 * k >= mis + run_bytes) continue;
      const std::int64_t c = rs - mis + 16 * k;  // the chunk's first byte (16-byte aligned in memory)
      dst[i] = runs_chunk_byte(p, b, k);
      if (c >= 0 && c + 16 <= p.in_span_bytes) {
        v[i] = *reinterpret_cast<const uint4*>(inb + c);
      } else {
        T e[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const std::int64_t at = c + j * S;
          if (at >= rs && at < rs + run_bytes) e[j] = *reinterpret_cast<const T*>(inb + at);
        }
        memcpy(&v[i], e, sizeof v[i]);
      }
    }
#pragma unroll
    for (int i = 0; i < kRunsLoads; ++i)
      if (dst[i] >= 0) {  // rows are aligned to W = max(4, S) bytes (runs_tile.hpp): 16 / W word stores
        using word = typename word_of<(S < 4 ? 4 : S)>::type;
        constexpr int kWords = 16 / sizeof(word);
        word w[kWords];
        memcpy(w, &v[i], sizeof v[i]);
#pragma unroll
        for (int q = 0; q < kWords; ++q) reinterpret_cast<word*>(tile + dst[i])[q] = w[q];
      }
    __syncthreads();  // every thread has read next_origin
    if (tid == 0) {  // claimed after every thread read this tile's origin (the barrier above)
      const std::uint32_t n =
          ticket ? gridDim.x + static_cast<std::uint32_t>(atomicAdd(ticket, 1ull)) : tile_id + gridDim.x;
      next_id = n;
      if (n < tiles) origin_of(n);
    }

    const int out_run_bytes = lb * S, store_items = la * p.nc_out;
    for (int u = tid; u < store_items; u += kRunsThreads) {
      const int a = static_cast<int>(p.nc_out_div.div(static_cast<std::uint32_t>(u)));
      const int j = u - a * p.nc_out;
      const std::int64_t rs = tout + static_cast<std::int64_t>(out_off[a]) * S;
      const int first = 16 * j - static_cast<int>((out_mis + rs) & 15);  // the chunk's first byte, from the run's
      if (first >= out_run_bytes) continue;
      // Owned ends: the chunk this slice starts inside of is the previous tile's (it has the bytes).
      if (first < 0 && b_start > 0) continue;
      // One gather path for every chunk (chunk_ops.cuh run_chunk_from) over the slice and its halo
      // (`rows` elements); runs shorter than a chunk (rows < V: short B or an edge tile, uniform in
      // the block) clamp their indices.
      const int from = run_chunk_from<S>(first, rows);
      const int as = a * S;
      T e[V];
      if (rows >= V) {
#pragma unroll
        for (int i = 0; i < V; ++i) e[i] = *reinterpret_cast<const T*>(tile + row_word[from + i] + as);
      } else {
#pragma unroll
        for (int i = 0; i < V; ++i) e[i] = *reinterpret_cast<const T*>(tile + row_word[min(i, rows - 1)] + as);
      }
      uint4 v;
      memcpy(&v, e, sizeof v);
      store_run_chunk<T>(outb + rs, first, rows, v);
    }
    __syncthreads();  // the next tile reuses the rows and row_word; publishes next_origin and next_id
    tile_id = next_id;
  }
  if (tid == 0) ticket_done(ticket);
}

}  // namespace xpose::detail::gpu
