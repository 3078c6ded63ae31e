// permute_packed: any permutation of rank <= 8 through packed tiles (gpu/packed_tile.hpp).
//
// A tile is a box over several dims, chosen so that it covers a run of about sqrt(volume)
// elements contiguous in the input and another contiguous in the output. Each block loads the box
// in input order (slot q = thread + j * 256 reads the q-th element of the box in input order, so a
// warp reads runs), stores it to shared memory in that order (with padding), syncs, and writes it in
// output order (slot q reads the shared element that is the q-th in output order). The per-slot
// offsets are the same for every full tile: each thread computes its E slots once, keeps them in
// registers, and a tile then costs its origin (a few multiply-shift divisions) and, per element, an
// add, a load and a shared store, a shared load and a store. The kernel is bound by the loads in
// flight (f32 at ~53% of copy at 16384^2 where f64, twice the bytes per load, reaches ~90%), so
// occupancy is what its knobs buy (see kPackedMinBlocks in fast_variants.cu).
//
// Launch geometry: block 256; grid = min(tiles, resident blocks), each block looping over tiles
// (persistent, so the slot tables are built once per block). Dynamic shared memory:
// smem_elems * sizeof(T). E (slots per thread) is a template so the tables stay in registers.
#pragma once

#include "gpu/common.cuh"
#include "gpu/packed_tile.hpp"

namespace xpose::detail::gpu {

// Compile-time knobs, measured against each other by scripts/packed_experiment.cu:
//   Prefetch: issue the next tile's loads before writing out the current one;
//   MinBlocks: blocks per SM the register allocation must allow (0: the compiler's choice).
template <class T, int E, bool Prefetch = true, int MinBlocks = 0>
__global__ void __launch_bounds__(kPackedThreads, MinBlocks > 0 ? MinBlocks : 1)
    permute_packed_kernel(const T* __restrict__ in, T* __restrict__ out, packed_params p) {
  extern __shared__ uint4 packed_smem_raw[];  // uint4: aligned for every word type
  T* tile = reinterpret_cast<T*>(packed_smem_raw);
  const int tid = static_cast<int>(threadIdx.x);

  // The slot tables, once per block. The input-side shared index (q plus its padding) and the
  // cut coordinates of edge tiles are recomputed when needed.
  std::int32_t in_rel[E], out_rel[E], s_out[E];
  std::uint32_t used = 0;  // bit j: slot j lies inside the box (E is rounded up to a power of two)
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const int q = tid + j * kPackedThreads;
    const packed_slot s = packed_slot_of(p, q < p.volume ? q : 0);
    in_rel[j] = s.in_rel, out_rel[j] = s.out_rel, s_out[j] = s.s_out;
    used |= (q < p.volume ? 1u : 0u) << j;
  }

  T v[E];
  auto load = [&](const packed_origin& at) {
    const T* src = in + at.in;
#pragma unroll
    for (int j = 0; j < E; ++j)
      if ((used >> j & 1u) && (at.full || packed_in_bounds(at, packed_cut_coords(p, tid + j * kPackedThreads, true))))
        v[j] = src[in_rel[j]];
  };
  // Slots outside an edge tile store whatever v holds: the output slot that would read them back
  // is the same element, outside the tensor, and is masked on the way out.
  auto stage = [&]() {
#pragma unroll
    for (int j = 0; j < E; ++j)
      if (used >> j & 1u) tile[packed_smem_index(p, tid + j * kPackedThreads)] = v[j];
  };
  auto write_out = [&](const packed_origin& at) {
    T* dst = out + at.out;
#pragma unroll
    for (int j = 0; j < E; ++j)
      if ((used >> j & 1u) && (at.full || packed_in_bounds(at, packed_cut_coords(p, tid + j * kPackedThreads, false))))
        dst[out_rel[j]] = tile[s_out[j]];
  };

  const auto tiles = static_cast<std::uint32_t>(p.tiles);
  if constexpr (!Prefetch) {
    for (std::uint32_t tile_id = blockIdx.x; tile_id < tiles; tile_id += gridDim.x) {
      const packed_origin o = packed_origin_of(p, tile_id);
      load(o);
      stage();
      __syncthreads();
      write_out(o);
      __syncthreads();  // the next tile reuses the shared array
    }
  } else {
    std::uint32_t tile_id = blockIdx.x;
    if (tile_id >= tiles) return;
    packed_origin o = packed_origin_of(p, tile_id);
    load(o);
    for (;;) {
      stage();
      __syncthreads();
      const std::uint32_t next = tile_id + gridDim.x;
      const bool more = next < tiles;
      packed_origin on;
      if (more) {  // the next tile's loads are in flight while this one is written out
        on = packed_origin_of(p, next);
        load(on);
      }
      write_out(o);
      if (!more) break;
      __syncthreads();  // the next tile reuses the shared array
      o = on;
      tile_id = next;
    }
  }
}

}  // namespace xpose::detail::gpu
