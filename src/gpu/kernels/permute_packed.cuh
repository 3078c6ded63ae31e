// permute_packed: any permutation of rank <= 8 through packed tiles (gpu/packed_tile.hpp).
//
// A tile is a box over several dims, chosen so that it covers a run of about sqrt(volume)
// elements contiguous in the input and another contiguous in the output. Each block loads the box
// in input order (slot q = thread + j * 256 reads the q-th element of the box in input order, so a
// warp reads runs), stores it to shared memory in that order (with padding), syncs, and writes it in
// output order (slot q reads the shared element that is the q-th in output order). The per-slot
// offsets are the same for every full tile: each thread computes its slots once, keeps them in
// registers, and a tile then costs its origin (a few multiply-shift divisions) and, per slot, an
// add, a load and a shared store, shared loads and a store. With one element per access the kernel
// was bound by the accesses in flight (f32 at ~53% of copy at 16384^2 where f64, twice the bytes
// per load, reached ~90%), so each side moves vectors of up to 16 bytes where its fastest dim and
// strides allow (packed_params::vin / vout); occupancy is the other knob (kPackedMinBlocks in
// fast_variants.cu).
//
// Launch geometry: block 256; grid = min(tiles, resident blocks), each block looping over tiles
// (persistent, so the slot tables are built once per block), claiming them in order by a ticket
// where one is leased (tickets.hpp; fast_variants.cu kPackedTickets). Dynamic shared memory:
// smem_elems * sizeof(T). The widths are templates so the vectors and tables stay in registers.
#pragma once

#include "gpu/common.cuh"
#include "gpu/packed_tile.hpp"
#include "gpu/tickets.hpp"

namespace xpose::detail::gpu {

// Compile-time knobs (prefetching the next tile into registers was measured and dropped, see
// kPackedMinBlocks in fast_variants.cu):
//   VI, VO: the vector widths p.vin and p.vout (elements); 1 on a side moves one element per
//     access, as the kernel did before vectors (scalar plans run unaligned pointers);
//   MinBlocks: blocks per SM the register allocation must allow (0: the compiler's choice).
//   E: slots per thread, p.slots (packed_slots in packed_tile.hpp).
// Each thread owns E input vectors (slot u = thread + j * 256 moves input-order
// elements u * VI .. u * VI + VI - 1, one load and one shared store) and E output
// vectors (slot o moves output-order elements o * VO .., VO shared loads packed into one store:
// out_fast_pitch apart in the input-ordered shared array when the vector lies along one dim, else
// stepped through the output-order dims it spans by packed_gather_next).
template <class T, int VI, int VO, int E, int MinBlocks>
__global__ void __launch_bounds__(kPackedThreads, MinBlocks > 0 ? MinBlocks : 1)
    permute_packed_kernel(const T* __restrict__ in, T* __restrict__ out, packed_params p, unsigned long long* ticket) {
  using in_word = typename word_of<VI * sizeof(T)>::type;
  using out_word = typename word_of<VO * sizeof(T)>::type;
  extern __shared__ uint4 packed_smem_raw[];  // uint4: aligned for every word type
  T* tile = reinterpret_cast<T*>(packed_smem_raw);
  const int tid = static_cast<int>(threadIdx.x);

  // The slot tables, once per block. The cut coordinates of edge tiles are recomputed when needed.
  // s_out holds the shared index of a scalar output slot, the unpadded position of a vector one.
  std::int32_t in_rel[E], s_in[E], out_rel[E], s_out[E];
  std::int32_t g_out[E];  // fastest-dim coordinate of a vector output slot (packed_slot::gather)
  std::uint32_t used_in = 0, used_out = 0;  // bit j: slot j lies inside the box
  const int in_vectors = p.volume / VI, out_vectors = p.volume / VO;
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const int u = tid + j * kPackedThreads;
    const packed_slot a = packed_slot_of(p, u < in_vectors ? u * VI : 0);
    in_rel[j] = a.in_rel, s_in[j] = a.s_in;
    used_in |= (u < in_vectors ? 1u : 0u) << j;
    const packed_slot b = packed_slot_of(p, u < out_vectors ? u * VO : 0);
    out_rel[j] = b.out_rel, s_out[j] = VO == 1 ? b.s_out : b.pos, g_out[j] = b.gather;
    used_out |= (u < out_vectors ? 1u : 0u) << j;
  }

  in_word v[E];
  auto load = [&](const packed_origin& at) {
    const T* src = in + at.in;
#pragma unroll
    for (int j = 0; j < E; ++j)
      if ((used_in >> j & 1u) &&
          (at.full || packed_in_bounds(at, packed_cut_coords(p, (tid + j * kPackedThreads) * VI, true))))
        v[j] = *reinterpret_cast<const in_word*>(src + in_rel[j]);
  };
  // Slots outside an edge tile store whatever v holds: the output slot that would read them back
  // is the same element, outside the tensor, and is masked on the way out.
  auto stage = [&]() {
#pragma unroll
    for (int j = 0; j < E; ++j)
      if (used_in >> j & 1u) *reinterpret_cast<in_word*>(tile + s_in[j]) = v[j];
  };
  // The layout is a template of the write-out (one uniform branch per tile picks it), so each
  // gathered element costs its index arithmetic and no branch.
  auto write_out = [&]<int L>(const packed_origin& at) {
    T* dst = out + at.out;
#pragma unroll
    for (int j = 0; j < E; ++j)
      if ((used_out >> j & 1u) &&
          (at.full || packed_in_bounds(at, packed_cut_coords(p, (tid + j * kPackedThreads) * VO, false)))) {
        if constexpr (VO == 1) {
          dst[out_rel[j]] = tile[s_out[j]];
        } else {
          T e[VO];
          int pos = s_out[j];
          if (p.gather_levels == 0) {
#pragma unroll
            for (int i = 0; i < VO; ++i, pos += p.out_fast_pitch) e[i] = tile[packed_smem_index_as<L>(p, pos)];
          } else {
            std::int32_t c = g_out[j];
#pragma unroll
            for (int i = 0; i < VO; ++i) {
              e[i] = tile[packed_smem_index_as<L>(p, pos)];
              if (i + 1 < VO) packed_gather_next(p, &pos, &c);
            }
          }
          out_word w;
          memcpy(&w, e, sizeof w);
          *reinterpret_cast<out_word*>(dst + out_rel[j]) = w;
        }
      }
  };
  const packed_layout layout = packed_layout_of(p);

  // Tiles: blockIdx.x first, then the next one by ticket (tickets.hpp: claimed in the order blocks
  // ask, past the first gridDim.x) or, without one, gridDim.x further on. Thread 0 claims during
  // the load and publishes the claim at the first barrier; every thread reads it before the second,
  // after which thread 0 may claim again.
  __shared__ std::uint32_t next_tile;
  const auto tiles = static_cast<std::uint32_t>(p.tiles);
  for (std::uint32_t tile_id = blockIdx.x; tile_id < tiles;) {
    const packed_origin o = packed_origin_of(p, tile_id);
    load(o);
    if (tid == 0)
      next_tile = ticket ? gridDim.x + static_cast<std::uint32_t>(atomicAdd(ticket, 1ull)) : tile_id + gridDim.x;
    stage();
    __syncthreads();
    const std::uint32_t next = next_tile;
    if constexpr (VO == 1) {
      write_out.template operator()<kPackedPlain>(o);  // the tables hold the shared indices
    } else if (layout == kPackedSwizzled) {
      write_out.template operator()<kPackedSwizzled>(o);
    } else if (layout == kPackedPadded) {
      write_out.template operator()<kPackedPadded>(o);
    } else {
      write_out.template operator()<kPackedPlain>(o);
    }
    __syncthreads();  // the next tile reuses the shared array
    tile_id = next;
  }
  if (tid == 0) ticket_done(ticket);
}

}  // namespace xpose::detail::gpu
