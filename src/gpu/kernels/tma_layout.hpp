// tma_tile's shared-memory layout and lane map (kernels/tma_tile.cuh): plain C++, shared by the kernel
// and the host tests that count its bank wavefronts (tests/model/test_bank_model.cpp, TmaTileLanes).
//
// A tile is NPO x NPI 128-byte panels: the input tile is NPI panels of TR rows side by side (TR = NPO
// * 128 / S), the output tile NPO panels of TC rows (TC = NPI * 128 / S). The copy engine's 128-byte
// swizzle puts a panel row's 16-byte chunk c at chunk position c ^ (row % 8).
#pragma once

#include "gpu/geometry.hpp"

namespace xpose::detail::gpu {

// Micro-block q (0..63) of an 8 x 8 group -> (row block j, chunk c). The 8 lanes of a quarter-warp
// hold q = 8d .. 8d + 7: (j, c) = ((l + d) % 8, l) for K >= 2, (l, d) for K = 1 (K = 16 / S).
XPOSE_HD constexpr void tma_tile_lanes(int K, int q, int* j, int* c) {
  const int d = q / 8, l = q % 8;
  if (K >= 2) {
    *j = (l + d) % 8;
    *c = l;
  } else {
    *j = l;
    *c = d;
  }
}

// Micro-block m of a tile with NPI input panels -> (row block jb, chunk cb across the input tile).
XPOSE_HD constexpr void tma_tile_block(int K, int npi, int m, int* jb, int* cb) {
  const int grp = m / 64;
  int j = 0, c = 0;
  tma_tile_lanes(K, m % 64, &j, &c);
  *jb = (grp / npi) * 8 + j;
  *cb = (grp % npi) * 8 + c;
}

// Byte offset of input row r, chunk cb (panel cb / 8) in an input tile of tr rows.
XPOSE_HD constexpr int tma_in_offset(int tr, int r, int cb) { return (cb / 8) * (tr * 128) + r * 128 + (((cb % 8) ^ (r % 8)) * 16); }

// Byte offset of output row o, chunk jb (panel jb / 8) in an output tile of tc rows.
XPOSE_HD constexpr int tma_out_offset(int tc, int o, int jb) { return (jb / 8) * (tc * 128) + o * 128 + (((jb % 8) ^ (o % 8)) * 16); }

}  // namespace xpose::detail::gpu
