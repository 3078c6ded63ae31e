// A partial output chunk in a few aligned stores: the head or tail chunk of a run that does not
// start or end on a 16-byte boundary (store_run_chunk, gpu/kernels/chunk_ops.cuh). Host and device
// code alike, so that tests/plan/test_chunk_pieces.cpp checks every case on the CPU.
//
// Why. The converged stores of permute_box and permute_runs gather V = 16 / s elements for every
// chunk, then write a whole chunk with one 16-byte store or a partial one element by element: for
// bytes 16 predicated byte stores, each with its own compare and shift, about 60 instructions,
// which the whole warp steps through whenever one of its lanes holds a partial chunk (nearly every
// warp where output runs are 100-300 bytes long). Nsight Compute's source counters, H200,
// 2026-12-01 (results/sass-profile-2026-12-01w.txt): i8 [92,201,168,85] perm 3,2,1,0, runs of 276
// B, 21.7% of all executed instructions in those byte stores, at 2 active lanes of 32; i8
// [776,12,21,3,8,19,3] perm 6,5,4,1,3,0,2, runs of 147 B, 18%.
//
// How. The gathered vector holds the run's bytes from a chunk-independent start (run_chunk_from),
// so a partial chunk's bytes sit in it rotated: byte j of the chunk is byte (j + m) mod 16 of the
// vector, m = (first - from * s) mod 16 (head chunk: from = 0; tail chunk: from = len - V; runs
// shorter than a chunk: from = 0, indices clamped). Rotating the vector once (8 selects and 4
// funnel shifts) lines it up with the chunk; its n bytes at the chunk's end then go out as
// naturally aligned pieces of 8, 4, 2 and 1 bytes, one per bit of n (store_chunk_end): at most
// four predicated stores, each of a selected word.
//
// Measured (H200, 2026-12-01, the permutation suites by name, results/chunk-pieces-suite-*): i8,
// permute_box's converged cases +0.95 points on average, [2768,19,10,3,10,17] 28.6 -> 39.5,
// [776,12,21,3,8,19,3] 25.2 -> 33.8, [92,201,168,85] 36.7 -> 43.7, none more than 1.5 down; f16 (3
// pieces instead of 8 element stores) -0.5 on average and -4.6 on [11598,29,57,7]: the kernels use
// it for 1-byte elements only (store_run_chunk). The functions here take any element size; the
// host test runs them for 1, 2, 4 and 8 bytes.
#pragma once

#include <cstdint>

#include "gpu/geometry.hpp"

namespace xpose::detail::gpu {

// The aligned 16-byte output chunk that starts at byte `first` of a run of run_elems elements
// (first > -16, a multiple of the element size S: pointers are aligned to the element) holds the
// run's elements start .. start + cnt - 1 (cnt >= 1 for first < run_elems * S). Kernels gather V =
// 16 / S consecutive elements from `from` for every chunk, whole or not: from = start but at the
// run's end, where it moves back so the V elements stay inside the run (runs of V elements and
// more; shorter ones gather from 0 with indices clamped to the run). One gather path for head,
// tail and inner chunks alike: only store_run_chunk branches (permute_box.cuh, "Converged").
template <int S>
XPOSE_HD inline int run_chunk_from(int first, int run_elems) {
  constexpr int V = 16 / S;
  const int start = first > 0 ? first / S : 0;
  return run_elems >= V ? (start < run_elems - V ? start : run_elems - V) : 0;
}

// (hi:lo) >> sh, the low word; 0 <= sh < 32.
XPOSE_HD inline std::uint32_t chunk_funnel(std::uint32_t lo, std::uint32_t hi, int sh) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, static_cast<unsigned>(sh));
#else
  return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> sh);
#endif
}

// w's 16 bytes rotated down by m (0 <= m < 16): byte j of the result is byte (j + m) mod 16 of w.
XPOSE_HD inline void rotate_chunk(std::uint32_t (&w)[4], int m) {
  const bool q1 = (m & 4) != 0, q2 = (m & 8) != 0;
  const std::uint32_t a0 = q1 ? w[1] : w[0], a1 = q1 ? w[2] : w[1], a2 = q1 ? w[3] : w[2], a3 = q1 ? w[0] : w[3];
  const std::uint32_t b0 = q2 ? a2 : a0, b1 = q2 ? a3 : a1, b2 = q2 ? a0 : a2, b3 = q2 ? a1 : a3;
  const int sh = 8 * (m & 3);
  w[0] = chunk_funnel(b0, b1, sh);
  w[1] = chunk_funnel(b1, b2, sh);
  w[2] = chunk_funnel(b2, b3, sh);
  w[3] = chunk_funnel(b3, b0, sh);
}

// Word p / 4 of w (p a multiple of 4 below 16): two selects.
XPOSE_HD inline std::uint32_t chunk_word(const std::uint32_t (&w)[4], int p) {
  const std::uint32_t lo = (p & 4) ? w[1] : w[0], hi = (p & 4) ? w[3] : w[2];
  return (p & 8) ? hi : lo;
}

// Writes the n bytes (1 <= n <= 15) at one end of the chunk held, already rotated into place, in
// w: bytes [16 - n, 16) for a head chunk (the run starts inside it), [0, n) for a tail chunk (the
// run ends inside it). One naturally aligned piece per bit of n, placed from that end inward (a
// head's 8-byte piece at 8, its 4-byte piece below the 8 bytes if n has them, ...; a tail's 8-byte
// piece at 0, then 4, 2, 1 upward), each written through put(offset, value, bytes) with bytes 1,
// 2, 4 or 8 (an 8-byte value low word first). Straight-line code: each piece is one predicated
// store of a selected word, no branches. S, the element size, divides n, so the pieces below S
// bytes are compiled out. (A chunk partial at both ends, a run of less than 16 bytes inside one
// chunk, goes element by element: store_run_chunk.)
template <int S, class Put>
XPOSE_HD inline void store_chunk_end(const std::uint32_t (&w)[4], bool head, int n, Put&& put) {
  if (n & 8) {
    const int at = head ? 8 : 0;
    put(at, head ? (static_cast<std::uint64_t>(w[3]) << 32) | w[2] : (static_cast<std::uint64_t>(w[1]) << 32) | w[0], 8);
  }
  if constexpr (S <= 4)
    if (n & 4) {
      const int at = head ? 16 - (n & 12) : (n & 8);
      put(at, chunk_word(w, at), 4);
    }
  if constexpr (S <= 2)
    if (n & 2) {
      const int at = head ? 16 - (n & 14) : (n & 12);
      put(at, (chunk_word(w, at & 12) >> (8 * (at & 2))) & 0xffffu, 2);
    }
  if constexpr (S == 1)
    if (n & 1) {
      const int at = head ? 16 - n : (n & 14);
      put(at, (chunk_word(w, at & 12) >> (8 * (at & 3))) & 0xffu, 1);
    }
}

// The rotation that lines a gathered vector up with its chunk (see above): first is the chunk's
// first byte from the run's start (-16 < first), from_bytes the byte (from the run's start) of the
// element the gather started at (run_chunk_from times the element size).
XPOSE_HD inline int chunk_rotation(int first, int from_bytes) { return (first - from_bytes) & 15; }

}  // namespace xpose::detail::gpu
