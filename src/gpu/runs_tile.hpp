// The tile of permute_runs: a permutation seen as many small transposes of runs, and the index
// arithmetic the kernel and the host tests share (everything here is __host__ __device__ or host-only).
//
// Why another tile: permute_packed's boxes are capped by its per-thread slot tables at 256 x 4..8
// vectors, so where neither fastest dim allows vectors (the suite's random permutations, fastest
// dims of 1..7 elements, odd) a box holds about 1-2 K elements and its runs are 30-50 bytes. On the
// H200 (Nsight Compute, 2026-11-30, [6,7,19,17,3,14,21,5] perm 7,6,0,4,3,2,5,1) that ran i8 at 5% of
// copy: 7 warp instructions per element, 3.6 times the tensor's bytes read from DRAM (runs shorter
// than a sector, their neighbours in far-away tiles).
//
// A runs tile instead takes, on the input side, the dims that are contiguous from the stride-1 dim
// (the "A" dims, fastest first, whole but for the last) and, on the output side, the dims that are
// contiguous from the output's stride-1 dim (the "B" dims), disjoint from A. A tile is then an
// A x B transpose: input run b (A elements, contiguous) starts at in_off[b], output run a (B
// elements, contiguous) at out_off[a], both tables fixed for every tile. Runs are loaded as the
// aligned 16-byte chunks that cover them, wherever their alignment falls, and written as aligned
// 16-byte chunks where whole (element by element at their two ends), so both sides move 16-byte
// vectors for any extents, strides and pointers; runs of 128-512 bytes keep the partial sectors
// at their ends a small share.
//
// Shared memory holds input run b as row b: nc_in * 16 bytes (its chunks, in order) starting at
// byte b * P + r(b) of the tile, P = nc_in * 16 + 128 and r(b) = w * ((b >> swz_shift) mod (128 / w)),
// w = max(4, s) bytes, swz_shift = log2(16 / s). The shift r(b) spreads the rows 16 / s apart (the rows that the lanes
// writing one output row read at once) over all 32 banks; without it a warp's reads fell into one
// bank group (H200, Nsight Compute, 2026-11-30: 1.8 shared wavefronts per load for f32). Element
// a of run b is then at row_word(b) + a * s, row_word(b) = b * P + r(b) + mis(b), mis(b) the run's
// offset from its aligned base: the kernel keeps row_word per tile in a table, so a gathered element
// costs one add and two shared loads. Rows start w-byte aligned, so chunks are stored as 16 / w words.
//
// Owned output ends (halo > 0, planned where tiles cut the B side's last dim and elements are under
// 16 bytes). An output run's B dims are consecutive in the output, so the runs of the tiles along
// that dim are slices of one longer run, contiguous in memory. Without ownership each tile writes
// the aligned chunks its slice touches, and the (usually two) chunks its slice shares with a
// neighbour in pieces (chunk_ops.cuh store_run_chunk). Those pieces were what the slowest suite
// plans spent their time on: storing them whole instead, a probe with wrong outputs, ran 16 of them
// 2.5-17.9 points of copy faster, with 2.5 times fewer L2 write requests on i8
// [776,12,21,3,8,19,3] (H100, 2026-12-06, docs/performance.md, sixty-eighth session). With
// ownership a tile writes the chunks whose first byte lies in its slice, whole, reading the bytes
// past its slice from `halo` more input runs (the next slice's first 16 / s - 1 elements, rows B ..
// B + halo - 1, loaded like the tile's own), and skips the chunk its slice starts inside of, which
// the previous tile wrote. Only the longer run's own two ends are still written in pieces.
#pragma once

#include <cstdint>

#include "gpu/geometry.hpp"
#include "gpu/packed_tile.hpp"  // fast_div, packed_origin_of
#include "plan/problem.hpp"

namespace xpose::detail::gpu {

inline constexpr int kRunsThreads = 256;
// 16-byte input chunks each thread loads before storing any (the loads in flight): a tile's input
// is at most kRunsThreads * kRunsLoads chunks (16 KiB).
inline constexpr int kRunsLoads = 4;
inline constexpr int kRunsMaxRunBytes = 512;      // A * s and B * s at most: 16 - 32 chunks a run
inline constexpr int kRunsMaxSmem = 40 * 1024;    // rows plus tables: 5 blocks per SM at least
// Owned output ends (below): planned where they apply. A switch, so that one build can be measured
// with and without them.
inline constexpr bool kRunsOwnEnds = true;

// Elements of at least this many bytes launch one block per tile (the run tables then built per
// tile); smaller ones a persistent grid of the blocks resident at once, each looping over tiles with
// its tables built once. H100, seventy-third session, every seed-1 suite plan of permute_runs, the
// two launches by build in alternating rounds (rounds within 1.4 points; scripts/cases/
// runs_packed_oneshot_73_cases.txt, docs/results/runs-packed-oneshot-ab-2026-12-06-h100.json),
// % of copy, persistent -> one block per tile:
//   16 bytes, 5 of 5 gained 2.5-4.0: c128 [32,32,32,32,64] reversed 92.0 -> 96.0,
//   [64,64,128,128] reversed 91.6 -> 94.9, [4,8,8,8,8,8,16,32] reversed 91.5 -> 94.0;
//   4 bytes, mixed (3 of 10 gained, 5 lost): f32 [2064,25,20,13,5] 80.5 -> 89.1,
//   [21,25,14,19,19,25] 68.7 -> 70.2; [9,12,16,22,10,23,7] 82.8 -> 71.4, [817,8,6,18,19,5] 87.1 ->
//   78.4, [23,201,168,85] 79.6 -> 75.3; five of the seven whose tiles are numbered along an input
//   dim first lost, two of the three in plain order gained (too few for a rule; docs/performance.md,
//   seventy-third session). No other element size has a suite plan of permute_runs.
// Out of sample (seventy-fourth session, the six c128 runs plans of seeds 2-10, three rounds,
// docs/results/runs-oneshot-c128-oos-ab-2026-12-06-h100.json): one block per tile won all six by
// 4.3-15.4 ([618,8,71,191] 84.9 -> 100.3). Both comparisons were against the static persistent
// grid. Against the ticketed persistent grid (fast_variants.cu kRunsTickets; seventy-fifth session,
// the same six plans, three rounds, docs/results/runs-oneshot-c128-ticketed-ab-2026-12-06-h100.json)
// the two launches are level, -0.4 to +0.2: the ticket closed the whole gap. 16 stayed then.
// (permute_packed, launched the same way in that call, lost on all 38 of its plans, by 9-50 points:
// its slot tables are a division chain per slot and thread, built per tile.)
// On the H200 one block per tile lost (seventy-seventh session, suites of main at 7e93b1c against
// the sixty-sixth session's 79ecddf, whose grid was persistent and static; one run each, results/
// suite-c128-2026-12-06-h200-7e93b1c.json): all five c128 reversals, 91.2-91.6 -> 81.5-86.2
// ([4,8,8,8,8,8,16,32] 91.6 -> 81.5, [64,64,128,128] 91.3 -> 86.2), while the ticketed persistent
// grids of the same suites gained (runs below 16 bytes: 10 plans, mean +4.0; permute_packed: 38,
// mean +5.3, every one up). So no element size launches one block per tile now (32: none is that
// wide): level with it on the H100, and the grid the H200 ran fastest. By name on an H100 the five
// reversals stayed level, -0.2 to +0.5 (seventy-eighth session, results/runs-c128-persistent-ab-
// 2026-12-07-h100.json); not yet measured by name on the H200 (docs/performance.md, next calls).
inline constexpr int kRunsOneShotMinElem = 32;

struct runs_params {
  int rank = 0;  // the normalised problem's dims (output order); the fields below index them
  std::int64_t in_stride[kMaxRank] = {}, out_stride[kMaxRank] = {};
  int ext[kMaxRank] = {}, t[kMaxRank] = {}, ntiles[kMaxRank] = {};
  fast_div ntiles_div[kMaxRank];
  std::int64_t tiles = 1;
  int tile_first = kPackedNoDim;  // the dim numbered first (packed_origin_of, tile_first_dim)
  tile_panel panel;               // and in panels of the other dims (set_tile_order)
  int cut_a = kPackedNoDim, cut_b = kPackedNoDim;  // the last A dim / B dim when its tile extent leaves an edge
  int na = 0, nb = 0;
  int a_dims[kMaxRank] = {}, b_dims[kMaxRank] = {};  // fastest first
  int A = 1, B = 1;                 // a full tile's input run and output run, in elements
  int a_unit = 1, b_unit = 1;       // elements of one step of the side's last dim (A / t of it)
  int nc_in = 1, nc_out = 1;        // 16-byte chunks a run can touch: input (A elements), output (B)
  fast_div nc_in_div, nc_out_div;
  int row_bytes = 144;              // P: a row's pitch, nc_in * 16 + 128 (the chunks and the largest shift)
  // r(b) = ((b >> swz_shift) & rot_mask) << rot_log: steps of w = max(4, s) bytes (elements stay
  // aligned in shared memory), 128 / w of them; swz_shift = log2(16 / s).
  int swz_shift = 0, rot_log = 2, rot_mask = 31;
  std::int64_t in_span_bytes = 0;   // bytes from the input's first element to past its last
  // Owned output ends (halo > 0): a tile writes the aligned output chunks whose first byte lies in
  // its slice of the output run's dims and none before it, loading `halo` (16 / s - 1) more input
  // runs, the next slice's first elements, for the chunk that crosses into it (see below).
  int halo = 0;
  int b_last = kPackedNoDim;        // the B dim tiles cut (b_dims[nb - 1]) when halo > 0
  int one_shot = 0;                 // 1: one block per tile (kRunsOneShotMinElem: none now); 0: a persistent grid
  int smem_bytes = 0;               // B + halo rows of P bytes, then row_word[B + halo], in_off[B + halo], out_off[A] (int32)
};

XPOSE_HD inline int runs_shift(const runs_params& p, int b) {
  return ((b >> p.swz_shift) & p.rot_mask) << p.rot_log;
}

// row_word of run b whose first element lies mis bytes past a 16-byte boundary.
XPOSE_HD inline int runs_row_word(const runs_params& p, int b, int mis) {
  return b * p.row_bytes + runs_shift(p, b) + mis;
}

// Shared byte of input chunk k (16 k bytes past run b's aligned base): 4-byte aligned.
XPOSE_HD inline int runs_chunk_byte(const runs_params& p, int b, int k) {
  return b * p.row_bytes + runs_shift(p, b) + 16 * k;
}

// Offset, in elements, of coordinate `i` of one side's run over the other side's strides:
// in_off[b] (B dims, input strides) and out_off[a] (A dims, output strides). The side's last dim
// takes what is left of i, so indices past the run (the halo's, b >= B) go on along it.
XPOSE_HD inline std::int32_t runs_side_offset(const runs_params& p, bool b_side, int i) {
  std::int64_t off = 0;
  const int n = b_side ? p.nb : p.na;
  for (int j = 0; j < n; ++j) {
    const int d = b_side ? p.b_dims[j] : p.a_dims[j];
    const int c = j + 1 < n ? i % p.t[d] : i;
    off += static_cast<std::int64_t>(c) * (b_side ? p.in_stride[d] : p.out_stride[d]);
    i /= p.t[d];
  }
  return static_cast<std::int32_t>(off);
}

// Input runs of a tile whose slice of the B dims starts at coordinate b_start of b_last, halo
// included: the tile's own lb, plus the halo where the next slice exists (dims before b_last are
// whole, so the run's elements are b_unit per step of b_last).
XPOSE_HD inline int runs_rows_of(const runs_params& p, int lb, int b_start) {
  if (p.halo == 0) return lb;
  const std::int64_t after = static_cast<std::int64_t>(p.ext[p.b_last] - b_start - p.t[p.b_last]) * p.b_unit;
  return lb + static_cast<int>(after < 0 ? 0 : (after < p.halo ? after : p.halo));
}

// Host side (runs_tile.cpp): fills *p for a normalised problem, or returns false with *reason
// (no unit-stride input dim, the same fastest dim on both sides, more than 2^31 elements, offsets in
// a tile beyond 32 bits, negative strides).
bool runs_plan(const problem& pr, runs_params* p, const char** reason);

}  // namespace xpose::detail::gpu
