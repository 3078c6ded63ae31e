// The loop nest of the blocked CPU backend (cpu_blocked), derived from a normalised problem by a
// pure host function so that the choice of axes, fused rows and loop order is testable alone.
//
// Every problem is run as one of two nests:
//   kRows   contiguous rows of `elem` bytes (the fastest dim is contiguous on both sides and at
//           least kMinRowBytes long; a plain copy is a single row), iterated over the other dims:
//           a streaming copy per row.
//   kTiles  a 2-D tile over axis i (the output's fastest dim) and axis j (the input's fastest dim)
//           of `elem`-byte elements, iterated over the other dims ("outer"). A short contiguous row
//           is folded into the element first (e.g. [N, M, 4] f32 with perm (1, 0, 2) is a transpose
//           of 16-byte elements), so the tile kernel always moves something worth a load.
//           When i or j is short, the tile goes on along the dims that continue it contiguously:
//           the i chain continues i in the output (out_stride = the bytes covered so far), the j
//           chain continues j in the input. A tile then covers the whole chain, so its output rows
//           (or input rows) stay long on high-rank permutations of small extents. A dim too long
//           to join a chain whole is split into blocks: the block ends the chain, the blocks'
//           index (strides x block) stays an outer loop, the last block clipped if need be.
// All strides here are in bytes.
#pragma once

#include <array>
#include <cstdint>

#include "cpu/microkernels.hpp"  // kernel_table
#include "plan/problem.hpp"
#include "xpose/plan.hpp"  // cpu_tuning

namespace xpose::detail::cpu {

struct loop_dim {
  std::int64_t extent = 1;
  std::int64_t in_stride = 0;   // bytes
  std::int64_t out_stride = 0;  // bytes
};

// Rows shorter than this are folded into the tile kernel's element rather than copied one by one:
// a row copy costs a call and, when the rows are scattered, a TLB miss per row, which only pays
// for itself once a row spans a few cache lines. With the rows walked in output order (until the
// fifth session), [N, M, R] f32 with perm (1, 0, 2), row copies vs folded tiles, % of memcpy: R = 16
// (64 B rows) 59 vs 125, 64 (256 B) 72 vs 80, 128 (512 B) 94 vs 73, 256 (1 KiB) 110 vs 75, hence
// 512 B. Walked in input order (make_nest), 256 B rows copy faster than folded, GB/s, interleaved
// runs on the 2-core machine (docs/cpu.md "Fifth session"): [2048,2048,64] f32 16.0-19.3 ->
// 26.7-32.3, [2048,2048,128] f16 19.2-20.5 -> 32.5-33.6, [4096,2048,256] i8 17.0-19.1 -> 30.8-37.7,
// [64,64,64,64] perm 0,2,1,3 f32 12.0-24.5 -> 26.3-44.8; 64 and 92 B rows stay folded (18.5-21.6
// folded vs 7.3-13.1 as rows), 128-192 B rows were within noise either way.
inline constexpr std::int64_t kMinRowBytes = 256;
// A chain grows while its axis covers fewer bytes than this (output rows of 256 B, input rows of
// 1 KiB: the tile shapes of blocked.cpp), and never past kMaxChainBytes per axis or
// kMaxChainTileBytes per tile (the staging buffer). Both chains grow when both axes are short
// (i below kChainOutMaxBytes, j below kChainInBytes); a
// j chain alone also grows when only the input rows are short (< kJOnlyChainMaxInBytes).
inline constexpr std::int64_t kChainOutBytes = 256;
// ... but an i axis counts as short (both chains may grow) below this: an i axis of 256-511 B
// does not grow, and its j chain does (to kChainInBytes). The [64,64,128,128] reversal (256 B
// output rows, 512 B input rows, both 4 MiB-strided) went from 32 x 128 tiles to 64 x (128 x 2),
// 9.9-10.6 -> 14.2-16.5 GB/s; the only other suite case whose plan changes, [1,24,19,23,24,25,16,5]
// perm 2,1,4,0,6,5,3,7 (20-byte elements), 19.3-19.9 -> 19.6-20.0. Growing that i axis to 512 B
// as well measured no better (14.8, 6.0, 15.6 GB/s), and to 1 KiB lost on other cases (docs/cpu.md
// "Third round", "Tried and not kept"). Interleaved runs, docs/cpu.md "Fifth round".
inline constexpr std::int64_t kChainOutMaxBytes = 512;
inline constexpr std::int64_t kChainInBytes = 1024;
inline constexpr std::int64_t kMaxChainBytes = 4096;
// Under the `amd` tuning, tensors of 16-byte elements (c128) chain further: the i chain grows to
// 1 KiB of output rows, an i axis under 1 KiB counts as short, and so does a j axis of a whole
// 1 KiB (64 elements), which the rule above leaves unchained. make_nest only: choose_tiles tells a
// j-only chain by the constants above whatever the element (with the longer ones there too,
// [621,25,18,6,10,4] perm 4,2,0,3,5,1 took the few-rows tile: 53-57 -> 29-32% of copy). Zen 3 host,
// 2 threads, 8 alternating rounds over three runs, % of copy, today's targets -> these (docs/cpu.md
// "Forty-first session"): [102,15,13,9,2,11,17] perm 6,2,0,3,4,5,1 53/56/59 -> 58/72/63,
// [194,12,21,3,8,19,3] 12/22/23 -> 23/26/27, [16,16,16,16,16,64] reversal 21/24/24 -> 23/33/29,
// [31,23,14,4,15,11,10] 40/44/49 -> 43/51/54, [379,23,10,12,8,4,2] 32/28/34 -> 27/48/77; down:
// [11,21,10,4,12,13,23,2] 40/49/51 -> 37/42/43, [32,32,32,32,64] reversal 24/32/29 -> 18/25/28,
// [403,7,6,9,22,10,2] 50/53/54 -> 51/49/46; mean about +3 over the 12 changed c128 suite plans.
// Not measured on an Intel host, where the c128 suite met its target with the constants above.
inline constexpr std::int64_t kWideChainElemBytes = 16;
inline constexpr std::int64_t kWideChainOutBytes = 1024;
inline constexpr std::int64_t kWideChainInBytes = 1024 + 1;  // a j axis of exactly 1 KiB is short
// The chained-tile cap: 128 KiB since the fifteenth session (64 KiB before). Over the 78 permutation-
// suite plans it changes (every element size), two interleaved rounds each on the 2-core machine,
// GB/s (docs/cpu.md "Fifteenth session"): 51 faster in both rounds, most by 5-35% (i8 [543,20,11,11,
// 17,3] perm 2,4,3,1,5,0 7.2-8.0 -> 12.9; f16 [8,8,8,8,8,8,16,32] reversal 7.1-7.7 -> 11.1-11.5; c128
// [621,25,18,6,10,4] 17.6-18.2 -> 22.1-22.2), 6 slower in both, two by a third or more and not
// understood: f16 [388,12,21,3,8,19,3] perm 6,5,4,1,3,0,2 10.5-11.6 -> 6.0 (j chain 57 -> 133 links;
// equal blocks of the split dim and a 96 KiB cap did not help) and f16 [4,8,8,8,8,8,16,32] reversal
// 6.3-6.5 -> 4.4. (One exception goes to twice the cap: an empty j chain on short input rows takes a
// pair of its dim, make_nest's kShortJRowBytes.)
inline constexpr std::int64_t kMaxChainTileBytes = 128 << 10;
// A j chain alone, on a long i axis: only for input rows shorter than a line, and grown to this
// many bytes (make_nest says why; docs/cpu.md "Fourth round").
inline constexpr std::int64_t kJOnlyChainMaxInBytes = 64;
inline constexpr std::int64_t kJOnlyChainInBytes = 128;

struct blocked_nest {
  enum class kind { kRows, kTiles };
  kind k = kind::kRows;
  std::int64_t elem = 0;  // kRows: bytes per row; kTiles: bytes per tile element
  loop_dim i, j;          // kTiles: the tile's axes (extent 1 when absent)
  int outer_rank = 0;
  std::array<loop_dim, kMaxRank> outer{};  // iteration order, slowest first
  int i_chain_rank = 0, j_chain_rank = 0;
  std::array<loop_dim, kMaxRank> i_chain{}, j_chain{};  // innermost first
  // A chain's last link may be a block of a longer dim (extent *_split_extent) whose blocks are
  // the outer dim outer[*_split]; when the blocks do not divide the extent, the last one is
  // clipped. -1: no clipping needed.
  int i_split = -1, j_split = -1;
  std::int64_t i_split_extent = 0, j_split_extent = 0;

  std::int64_t outer_count() const;
  std::int64_t i_chain_count() const;  // elements of the i chain (1 when empty)
  std::int64_t j_chain_count() const;
};

// t: the resolved tuning (the `amd` one chains 16-byte elements further, kWideChainOutBytes).
blocked_nest make_nest(const problem& p, cpu_tuning t = cpu_tuning::kIntel);

// The tuning tables a CPU plan uses (plan_options::tuning): kAuto resolves by the CPU's vendor,
// Intel to kIntel and anything else to kAmd (never returns kAuto).
cpu_tuning resolve_tuning(cpu_tuning t);

// How a plain 2-D transpose (no outer dims) of `elem`-byte elements walks its tiles under tuning
// `t`: tiles whose output rows are out_row bytes and input rows in_row bytes, at most tile bytes
// (all 0: the element size's own rule), visited in macro blocks of `macro` bytes a side, row-major
// inside (0: plain row-major). blocked.cpp, kPlainWideWalk, says what was measured.
struct plain_walk {
  std::int64_t out_row = 0, in_row = 0, tile = 0, macro = 0;
};
plain_walk plain_2d_walk(cpu_tuning t, std::int64_t elem);

// The kernels a plan of tuning `t` (resolved) runs: active_kernels(), with its long copies reading
// several pieces side by side (kernel_table::stream_copy_pieces) under the `intel` tuning and one
// sequential stream under the `amd` one (microkernels_avx2.cpp says what each host measured).
kernel_table tuned_kernels(cpu_tuning t);

}  // namespace xpose::detail::cpu
