// permute_packed: any permutation of rank <= 8 through packed tiles (gpu/packed_tile.hpp).
//
// A tile is a box over several dims, chosen so that it covers a run of about sqrt(volume)
// elements contiguous in the input and another contiguous in the output. Each block loads the box
// in input order (slot q = thread + j * 256 reads the q-th element of the box in input order, so a
// warp reads runs), stores it to shared memory in that order (with padding), syncs, and writes it in
// output order (slot q reads the shared element that is the q-th in output order). The per-slot
// offsets are the same for every full tile: each thread computes its E slots once, keeps them in
// registers, and a tile then costs its origin (a few multiply-shift divisions) and, per element, an
// add, a load and a shared store, a shared load and a store.
//
// Launch geometry: block 256; grid = min(tiles, resident blocks), each block looping over tiles
// (persistent, so the slot tables are built once per block). Dynamic shared memory:
// smem_elems * sizeof(T). E (slots per thread) is a template so the tables stay in registers.
#pragma once

#include "gpu/common.cuh"
#include "gpu/packed_tile.hpp"

namespace xpose::detail::gpu {

template <class T, int E>
__global__ void __launch_bounds__(kPackedThreads) permute_packed_kernel(const T* __restrict__ in,
                                                                        T* __restrict__ out, packed_params p) {
  extern __shared__ uint4 packed_smem_raw[];  // uint4: aligned for every word type
  T* tile = reinterpret_cast<T*>(packed_smem_raw);
  const int tid = static_cast<int>(threadIdx.x);

  std::int32_t in_rel[E], out_rel[E], s_in[E], s_out[E];
  std::uint32_t cut_in[E], cut_out[E];
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const int q = tid + j * kPackedThreads;
    const packed_slot s = packed_slot_of(p, q < p.volume ? q : 0);
    in_rel[j] = s.in_rel, out_rel[j] = s.out_rel, s_in[j] = s.s_in, s_out[j] = s.s_out;
    cut_in[j] = s.cut_in, cut_out[j] = s.cut_out;
  }
  // Bit j: slot j lies inside the box (E is a power of two >= volume / 256, so the last slots of
  // some threads are unused).
  std::uint32_t used = 0;
#pragma unroll
  for (int j = 0; j < E; ++j) used |= (tid + j * kPackedThreads < p.volume ? 1u : 0u) << j;

  for (std::uint32_t tile_id = blockIdx.x; tile_id < static_cast<std::uint32_t>(p.tiles); tile_id += gridDim.x) {
    const packed_origin o = packed_origin_of(p, tile_id);
    const T* src = in + o.in;
    T* dst = out + o.out;
    if (o.full) {
      T v[E];
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (used >> j & 1u) v[j] = src[in_rel[j]];
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (used >> j & 1u) tile[s_in[j]] = v[j];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (used >> j & 1u) v[j] = tile[s_out[j]];
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (used >> j & 1u) dst[out_rel[j]] = v[j];
    } else {
#pragma unroll
      for (int j = 0; j < E; ++j)
        if ((used >> j & 1u) && packed_in_bounds(o, cut_in[j])) tile[s_in[j]] = src[in_rel[j]];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < E; ++j)
        if ((used >> j & 1u) && packed_in_bounds(o, cut_out[j])) dst[out_rel[j]] = tile[s_out[j]];
    }
    __syncthreads();  // the next tile reuses the shared array
  }
}

}  // namespace xpose::detail::gpu
