#include "plan/planner.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dispatch/registry.hpp"
#include "gpu/box_tile.hpp"     // plain C++: the box planners the rules below compare
#include "gpu/geometry.hpp"
#include "gpu/kernels/tile_shapes.hpp"
#include "gpu/packed_tile.hpp"
#include "gpu/rows_copy.hpp"
#include "gpu/runs_tile.hpp"
#include "cpu/blocked.hpp"  // cpu::resolve_tuning
#include "plan/narrow_rules.hpp"
#include "plan/validate.hpp"
#ifdef XPOSE_HAS_CUDA
#include "gpu/variants.hpp"
#endif

namespace xpose::detail {
namespace {

const char* backend_name(backend b) { return b == backend::kGpu ? "gpu" : "cpu"; }

struct candidate {
  const char* variant;
  const char* reason;
  // Run only on pointers aligned to 16 bytes (the vector plan of permute_packed), leaving other
  // pointers to the next candidate instead of the kernel's own element-wise plan.
  bool vector_pointers_only = false;
  int block_y = 0;  // the classic tile's block height where a rule sets it (0: the variant's default)
  // Measured against permute_box by name too (kNarrowRules): box_beats does not replace it.
  bool beat_box = false;
};

// The `auto` choice: candidates in order of preference. The planner takes the first whose
// configure accepts the problem; an earlier one that needs 16-byte aligned pointers keeps the next
// acceptable one as its fallback for misaligned pointers. The reasons name the measurement behind
// each choice (docs/performance.md, H200).
// Whether permute_packed moves 16-byte vectors on both sides of a 2-D view: the extents, leading
// dims and batch strides are whole numbers of 16 bytes (its side_vector rule, gpu/packed_tile.cpp,
// seen through the matrix view).
bool packs_full_vectors(const plan_data& pd) {
  const auto& m = pd.mat;
  const std::int64_t v = 16 / pd.prob.elem_bytes;
  bool ok = m.rows % v == 0 && m.cols % v == 0 && m.ld_in % v == 0 && m.ld_out % v == 0;
  if (m.batch_rank <= 1) return ok && m.bs_in % v == 0 && m.bs_out % v == 0;
  for (int k = 0; k < m.batch_rank && ok; ++k) ok = m.batch_in[k] % v == 0 && m.batch_out[k] % v == 0;
  return ok;
}

// A single narrow matrix whose packed boxes move 16-byte vectors both ways: the short side (<= 64)
// dense, the long side and its leading dimension whole vectors.
bool narrow_packs_vectors(const plan_data& pd) {
  const auto& m = pd.mat;
  const std::int64_t v = 16 / pd.prob.elem_bytes;
  if (m.rows <= 64 && m.ld_out == m.rows) return m.cols % v == 0 && m.ld_in % v == 0;
  if (m.cols <= 64 && m.ld_in == m.cols) return m.rows % v == 0 && m.ld_out % v == 0;
  return false;
}

// permute_runs instead of permute_packed where packed's boxes get no input vectors (an odd fastest
// input dim) and stay short, and the runs tile gets runs of 64 bytes and more on both sides. H200
// 2026-11-30, suite (docs/performance.md "permute_runs"), % of copy, packed -> runs, for the
// suite's cases with packed input vectors of one element: f32 20.4 -> 70.3, 23.8 -> 59.3,
// 30.2 -> 62.8, 37.8 -> 73.8, 45.3 -> 56.9; i8 5.4 -> 22.8, 7.8 -> 40.0; f16 12.1 -> 62.7; f64
// 31.8 -> 62.5, 60.4 -> 75.5. It lost where packed's runs were long (f64 [683,11,25,21,17] packed
// runs of 480 B: 81.0 vs 65.5), where one of its runs was short (f32 [13,9,25,8,13,9,4,6], output
// runs of 36 B: 26.7 vs 8.4) and for 16-byte elements (packed moves one element per access there
// anyway: c128 57.6-92.7 vs 16.3-91.7).
constexpr const char* kRunsReason =
    "odd fastest dims, short packed boxes: A x B transposes of runs with 16-byte chunks both ways (H200 suite: "
    "57-74% of copy for f32 where permute_packed ran 20-45%)";

// permute_runs first for 16-byte permutations with a batch of several dims (kTransposeNd) whose runs
// tile is a full 32 x 32: 512-byte runs both ways, whole 128-byte lines. H200 2026-12-04 (forty-sixth
// session, one round, `--variants auto,permute_box,permute_runs,permute_packed,...` on the 36 c128
// suite cases under 91% of copy; scripts/cases/c128_below91_cases.txt, docs/results/c128-below91-ab-2026-12-04.json),
// % of copy, permute_runs / auto's kernel: the reversals [32,32,32,32,64] 91.9 / fast_tile 86.8,
// [64,64,128,128] 91.4 / tiled_skew 87.1, [16,16,16,16,16,64] 92.4 / permute_packed 90.2,
// [4,8,8,8,8,8,16,32] 92.4 / 90.2, [8,8,8,16,16,16,32] 92.1 / 90.3. Every case with a shorter run on
// either side lost, by 0.5 to 64 points (runs of 368-480 B: [23,201,168,85] reversal 72.2 / box 75.4;
// [137,108,82,55] 82.2 / tiled_skew 87.3), and so did the one full tile with a single batch dim
// ([5256,8,14,19,6] perm 2,3,4,1,0, 86.3 / tma_tile 89.1), which the rule leaves out.
bool c128_runs_full_tiles(const plan_data& pd) {
  constexpr int kFullRunBytes = 512;
  if (pd.prob.elem_bytes != 16 || !pd.has_matrix || pd.mat.batch_rank <= 1) return false;
  gpu::runs_params runs;
  const char* reason = "";
  if (!gpu::runs_plan(pd.prob, &runs, &reason)) return false;
  const int s = pd.prob.elem_bytes;
  return runs.A * s == kFullRunBytes && runs.B * s == kFullRunBytes;
}

// The runs tile's shorter run in bytes, 0 where permute_runs plans nothing.
int runs_short_bytes(const plan_data& pd) {
  gpu::runs_params runs;
  const char* reason = "";
  if (!gpu::runs_plan(pd.prob, &runs, &reason)) return 0;
  return std::min(runs.A, runs.B) * pd.prob.elem_bytes;
}

bool runs_beat_packed(const plan_data& pd) {
  constexpr int kMinRunBytes = 64, kPackedLongRunBytes = 384;
  const int s = pd.prob.elem_bytes;
  if (s > 8) return false;
  gpu::packed_params packed;
  const char* reason = "";
  if (!gpu::packed_plan(pd.prob, true, &packed, &reason)) return false;
  return packed.vin == 1 && std::min(packed.run_in, packed.run_out) * s < kPackedLongRunBytes &&
         runs_short_bytes(pd) >= kMinRunBytes;
}

// permute_rows for row copies (the fastest dim shared) of long rows, of whole 16-byte rows from
// 128 bytes, and from 128 bytes (40 until the forty-sixth session, below) of rows that the other
// kernels can only move in 1- or 2-byte words
// (an odd row length or stride), or in 4-byte words for 1- and 2-byte elements. H200 2026-11-30
// (docs/performance.md "permute_rows"), % of copy, permute_rows vs what auto ran before
// (permute_packed or permute_general):
//   [N,64,W] perm 1,0,2 i8 (256 MiB), W = 128 / 256 / 1024 / 4096: 88.8 / 94.1 / 93.9 / 94.2 vs
//   general 87.4 / 92.1 / 93.4 / 92.7;
//   suite i8 [596,7,19,23,21,7] perm 1,0,2,3,4,5 (64,239 B rows) 92.4 vs 12.5, [2404,53,54,39]
//   perm 1,0,2,3 (2,106 B) 88.7 vs 24.6, f32 [601,53,54,39] (8,424 B) 91.7 vs 76.9.
// Rows of 1- or 2-byte words: after the kernel's one path for two pieces (H200 2026-12-02,
// docs/performance.md "permute_rows: one path for two pieces", results/rows-ab-2026-12-02b.json),
// permute_rows vs permute_box by name: i8 W = 55 / 65 / 150 / 257 / 513 / 1025: 65.2 / 67.4 / 75.7
// / 76.5 / 80.3 / 86.7 vs 64.3 / 63.3 / 47.7 / 43.3 / 47.3 / 49.3; suite i8 [40672,5,24,11,5]
// perm 1,2,0,3,4 (55 B) 60.7 vs 52.2, [1712,18,58,150] perm 2,0,1,3 (150 B) 69.8 vs 53.8; f16
// [45948,127,23] perm 1,0,2 (46 B) 65.5 vs 57.9, [20336,5,24,11,5] (110 B) 71.1 vs 69.5,
// [856,18,58,150] (300 B) 77.2 vs 56.2. Below 40 bytes the box won: i8 W = 17 / 23 / 32: 34.9 /
// 46.1 / 67.7 vs 66.4 / 66.4 / 68.3 (32 B rows are whole vectors: packed's), suite i8 [91896,127,
// 23] 49.0 vs 50.4, [5572,15,13,13,19] perm 3,0,1,2,4 (19 B) 22.7 vs 53.0, f16 [2786,15,13,13,19]
// (38 B) 39.1 vs 58.7, [112,23,21,7,22,16] perm 4,0,2,1,3,5 (32 B) 48.3 vs 66.5. One case above it
// lost: f16 [66,10,23,16,23,8,3] perm 2,4,3,1,0,5,6 (48 B) 64.0 vs 70.0. Rows of whole 4-byte words
// of 1- or 2-byte elements too (what the box kernels move as 1- or 2-byte elements): f16
// [856,18,58,150] (300 B) 77.0 vs 56.0 under auto (results/rows-words-2026-12-02.json); for 4-byte
// elements the same rows went both ways (f32 [22974,127,23] 92 B 72.4 vs 65.3, [428,18,58,150]
// 600 B 85.9 vs 83.6; [10168,5,24,11,5] 220 B 77.9 vs 88.8, [1393,15,13,13,19] 76 B 61.5 vs 67.1),
// so those stay with packed.
// Forty-sixth session (H200 2026-12-04, two rounds within 0.5 points, by name, permute_box /
// permute_rows; scripts/cases/narrow_f64_rows_cases.txt, docs/results/narrow-f64-rows-ab-2026-12-04.json):
// since raw rows and one block per tile the box wins these rows up to 110 B: f16 [45948,127,23]
// (46 B) 73.5 / 65.7, [20336,5,24,11,5] (110 B) 78.9 / 71.6, i8 [40672,5,24,11,5] (55 B) 64.9 /
// 60.6; from 150 B rows still win: i8 [1712,18,58,150] 66.5 / 70.2, f16 [856,18,58,150] (300 B)
// 77.5 / 77.0 (level). So rows of 1- and 2-byte words (or 4-byte words of 1- and 2-byte elements)
// go to permute_rows from 128 B, where it was 40 B.
// Not taken: short rows (i8 5 / 8 / 16 B: 7.9 / 49.4 / 29.7 vs packed 8.1 / 85.9 / 77.6) and rows
// of 4- or 8-byte words below 2 KiB, where packed's boxes often move wider vectors (f32 [10168,5,
// 24,11,5] perm 1,2,0,3,4, 220 B: 50.9 vs 90.1; [22974,127,23] 51.0 vs 57.5; but [1393,15,13,13,
// 19] perm 3,0,1,2,4, 76 B: 53.9 vs 34.6, left to packed), measured before the two-piece path
// (after it: above).
constexpr const char* kRowsReason =
    "row copy of long, whole-vector or odd rows: aligned 16-byte vectors both ways, rows realigned in registers "
    "(H200 i8 rows of 2-64 KiB: 89-92% of copy vs 12-25%)";

// Rows this long go to permute_rows whatever their words (rows_beat_boxes); c128_box_beats_rows
// stays below them.
constexpr std::int64_t kRowsLongRowBytes = 2048;

bool rows_beat_boxes(const plan_data& pd) {
  constexpr std::int64_t kWholeVectorRowBytes = 128, kNarrowWordRowBytes = 128;
  if (pd.cls != problem_class::kRowCopy) return false;
  gpu::rows_params rows;
  const char* reason = "";
  if (!gpu::rows_plan(pd.prob, &rows, &reason)) return false;
  const std::int64_t w = rows.row_bytes;
  const int word = gpu::rows_word_bytes(pd.prob);
  const bool narrow_words = word <= 2 || (word == 4 && pd.prob.elem_bytes <= 2);
  return w >= kRowsLongRowBytes || (word == 16 && w >= kWholeVectorRowBytes) || (narrow_words && w >= kNarrowWordRowBytes);
}

// permute_box ahead of the kernel auto would otherwise run, for 1- and 2-byte elements, where that
// kernel is permute_packed with boxes under 4 KiB, permute_runs or the classic
// tile. H200 2026-11-30, suite (docs/performance.md "permute_box"), % of copy, that kernel vs
// permute_box:
//   packed boxes under 4 KiB, i8: 6.9 -> 42.6, 7.3 -> 35.4, 8.2 -> 43.0, 11.3 -> 27.9, 11.7 ->
//   51.3, 12.0 -> 29.9, 16.1 -> 27.9, 24.6 -> 50.4 (21 cases, none lost by more than 0.5); f16
//   13.9 -> 52.1, 21.3 -> 54.5, 22.7 -> 57.2, 33.3 -> 47.7 (16 cases; one lost, 51.9 -> 50.9);
//   permute_runs, i8: 16.4 -> 32.6, 31.9 -> 44.7, 16.1 -> 19.5 (six won, one lost: 37.2 -> 29.8);
//   f16 lost six of eight (63.3 -> 43.6), so it kept permute_runs until raw rows (thirty-sixth
//   session, H200, the f16 suite's nine permute_runs cases, three rounds, runs -> box,
//   results/box-vs-runs-f16-2026-12-03.json): [12,7,19,17,3,14,21,5] 42.6 -> 56.1,
//   [18,12,16,22,10,23,7] 47.7 -> 71.3, [1634,8,6,18,19,5] 53.3 -> 81.8, [46,201,168,85] 45.6 ->
//   48.2, [4128,25,20,13,5] 62.9 -> 65.9; lost [388,12,21,3,8,19,3] 50.8 -> 46.0,
//   [78,78,144,150] 65.0 -> 62.7 (the word gather then), two by about a point; so f16 too;
//   tiled: i8 21.6 -> 48.7, 17.5 -> 28.2; f16 33.8 -> 48.6, 41.3 -> 43.0.
// Not taken: packed boxes of 4 KiB and more (the reversals and layouts whose packed boxes move
// 16-byte vectors: i8 86.6 -> 52.6, 68.9 -> 58.3, f16 90.8 -> 68.1; a few won, i8 [1516,23,10,12,8,
// 4,2] 30.7 -> 57.9), the 2-D kernels with vectors, narrow, permute_rows (i8 [2404,53,54,39] 88.9
// -> 35.8) and skew_tile (one case won, 18.0 -> 60.7, two lost). The kernel is bound by its
// gather (one shared load, address and byte merge per element, about 16 instructions per byte in
// all at i8, Nsight Compute), so 4- to 16-byte elements were not measured against it.
constexpr const char* kBoxReason =
    "1- or 2-byte permutation whose boxes elsewhere are small: boxes with runs of 128 B and more both ways, "
    "16-byte chunks both ways, byte groups gathered as words where the layout allows (H200 suites, "
    "ninth session: the 31 i8 cases it takes at 19-58% of copy, were 7-37% before it; 30 f16 cases at 43-75%, "
    "were 14-63%)";

//
// With the word gather (ninth session, H200 2026-11-30, both suites by name at the word gather's
// first build, docs/performance.md "The word gather"), f16 also where permute_packed's box is under
// 10 KiB (10 cases won, 43.9 -> 62.2, 48.3 -> 67.9, 55.1 -> 74.3, 43.0 -> 60.4, 40.4 -> 57.1, 44.1 ->
// 56.5, 60.4 -> 69.0, 45.5 -> 52.6, 62.9 -> 66.7, 47.4 -> 50.1; one lost, 56.5 -> 50.9; boxes of
// 15-16 KiB lost four of six, by up to 16 points) and where permute_rows moves rows of 2-byte words
// under 2 KiB (41.9 -> 57.4, 50.9 -> 61.0, 51.0 -> 54.9; i8 rows of the kind lost, by 7-8 points).
// (Since permute_rows' two-piece path, 2026-12-02, rows of 40 B and more were its again, 128 B and
// more since the forty-sixth session, and the shorter ones never reach it: rows_beat_boxes.)
//
// Eleventh session (H200 2026-11-30, the i8 and f16 suites by name, every box kernel variant, after
// permute_box's converged store phase; results/byname-{i8,f16}-2026-11-30o*.json), 1- and 2-byte
// elements, that kernel vs permute_box:
//   permute_packed moving 2- or 4-byte words (a widened row copy) one at a time: i8 [1516,23,10,12,
//   8,4,2] 30.4 -> 58.2, f16 [758,...] 45.3 -> 63.3 (widened to 8 or 16 bytes packed won: 85.6 vs
//   54.9, 88.5 vs 72.2, 78.8 vs 60.2);
//   permute_packed with vectors across two output dims and runs under 1 KiB: i8 [88,12,5,21,6,20,
//   20] 35.1 -> 62.7, [24,18,22,13,3,14,2,24] 48.0 -> 66.1, f16 [12,18,...] 66.4 -> 69.5 (runs of
//   15 KiB kept packed: [243148,184,6] 74.8 vs 51.7);
//   skew_tile filling under 40% of its tiles: i8 [156,78,144,150] perm 3,1,0,2 (144 x 150 matrices in
//   128 x 128 tiles, 33%) 17.9 -> 65.5. From 40% to 75% permute_runs goes first (auto_candidates):
//   f16 [78,78,144,150] (59%) 45.2 -> 65.9 with runs, 59.7 with box; box_beats then puts permute_box
//   ahead of runs, as before for bytes (i8 [92,201,168,85] reversal, 48%: 19.6 -> 23.9, runs 24.7)
//   and since raw rows for halves too (above).
//   fast_tile filling under 3/4 of its tiles: f16 [32,16,16,16,16,64] reversal (32 x 64 matrices in
//   64 x 64 tiles, 50%) 49.5 -> 72.2 (the ninth session's by-name run: 51.8 -> 72.2); no other suite
//   case of 1 or 2 bytes runs fast_tile under 3/4 full.
// Fitted on the run they describe; the suite after them is a second run.
//
// 4- and 8-byte elements (ninth session, H200 2026-11-30, the f32 and f64 suites by name at the
// commit of the eighth session, docs/performance.md "permute_box for 4- and 8-byte elements"): it
// goes ahead of permute_packed where packed moves single elements (no row-copy widening) and
//   f32: its vectors are narrower than 16 B on a side (12 of 15 such cases won: 26.5 -> 60.2,
//        28.4 -> 56.5, 34.9 -> 66.3, 37.7 -> 65.2, 49.5 -> 67.8, ...; lost 0.4, 3.6 and 4.6; all
//        15 cases with 16-byte vectors both ways lost, by 7-24 points);
//   f64: its box is 8 KiB or less (7 of 11 won, 50.8 -> 70.0, 59.3 -> 70.0, 66.0 -> 74.8, ...;
//        lost 0.1-7.4; every larger box lost, by 5-33 points).
// Against every other kernel (fast_tile, permute_rows, permute_runs, narrow, tiled, skew_tile) it
// lost for f32 and f64 but for two permute_runs cases at +2 points; for f64 that changed in the
// fifty-seventh session (f64_box_beats, below).
constexpr const char* kBoxReason4 =
    "4-byte permutation whose packed vectors are narrower than 16 bytes on a side, or whose packed runs are "
    "under 1 KiB where the box's rows need no swizzle: boxes with long runs both ways, 16-byte chunks both ways "
    "(H200 f32 suite: 12 cases at 56-68% of copy, were 26-58%; fifty-eighth session: five cases at 64-77% "
    "ran 70-85)";

constexpr const char* kBoxReason8 =
    "8-byte permutation that permute_runs would move, or permute_packed with a small box or with runs not "
    "whole lines where the box's rows need no swizzle: "
    "boxes with long runs both ways, 16-byte chunks both ways (f64, fifty-seventh session: the nine suite "
    "cases runs took at 67-86% of copy ran 76-93% on an H100; H200 f64 suite median / minimum 85.8 / 64.9 "
    "-> 87.2 / 70.0)";

constexpr const char* kBoxReason16 =
    "16-byte permutation whose packed box is small or whose packed runs are not whole lines, a batch whose "
    "batch dim lies between the matrix dims, or short odd rows far apart: boxes with long runs both ways "
    "(planner.cpp: c128_box_beats_packed, _tma, _rows)";

const char* box_reason(const plan_data& pd) {
  const int s = pd.prob.elem_bytes;
  return s <= 2 ? kBoxReason : s == 4 ? kBoxReason4 : s == 8 ? kBoxReason8 : kBoxReason16;
}

// The share of a tr x tc tiling's elements that lie inside matrix view m's matrices.
double tile_fill(const matrix_view& m, std::int64_t tr, std::int64_t tc) {
  return static_cast<double>(m.rows) * m.cols /
         (static_cast<double>(gpu::ceil_div(m.rows, tr) * tr) * (gpu::ceil_div(m.cols, tc) * tc));
}
// skew_tile's and fast_tile's (square) tiles for 1- and 2-byte elements, the sizes the fill rules
// below apply to.
double skew_fill(const plan_data& pd) {
  const std::int64_t t = pd.prob.elem_bytes == 1 ? gpu::skew_tile_shape<1>::kRows : gpu::skew_tile_shape<2>::kRows;
  return tile_fill(pd.mat, t, t);
}
double fast_fill(const plan_data& pd) {
  const std::int64_t t = pd.prob.elem_bytes == 1 ? gpu::fast_tile_shape<1>::kRows : gpu::fast_tile_shape<2>::kRows;
  return tile_fill(pd.mat, t, t);
}

// fast_tile's fill of its own tile for this element size (fast_fill above keeps the 1- and 2-byte
// tiles its rules were fitted with), and the fill from which its tiles count as full for the batch
// rules below (reg_batch under it, fast_tile from it).
constexpr double kFastFullTiles = 0.75;
double own_fast_fill(const plan_data& pd) {
  switch (pd.prob.elem_bytes) {
    case 1: return tile_fill(pd.mat, gpu::fast_tile_shape<1>::kRows, gpu::fast_tile_shape<1>::kCols);
    case 2: return tile_fill(pd.mat, gpu::fast_tile_shape<2>::kRows, gpu::fast_tile_shape<2>::kCols);
    case 4: return tile_fill(pd.mat, gpu::fast_tile_shape<4>::kRows, gpu::fast_tile_shape<4>::kCols);
    case 8: return tile_fill(pd.mat, gpu::fast_tile_shape<8>::kRows, gpu::fast_tile_shape<8>::kCols);
    default: return tile_fill(pd.mat, gpu::fast_tile_shape<16>::kRows, gpu::fast_tile_shape<16>::kCols);
  }
}

// Where reg_batch goes first (the measurements are in auto_candidates): batches of matrices of whole
// V x V blocks whose warps hold 2 or more block rows (reg_batch_lanes_of), 2 or more block rows; for
// bytes, matrices of up to 128 Ki elements with one batch dim, or both sides of 64 B and more with
// several; for wider elements, one batch dim, 4 block rows or more (output rows of 64 B and more)
// and fast_tile's tiles under 3/4 full.
bool reg_batch_wins(const plan_data& pd) {
  constexpr std::int64_t kByteMatrixElems = 128 * 1024, kByteSideBytes = 64;
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  const std::int64_t v = 16 / s;
  if (!pd.has_matrix || m.batch < 2 || m.rows % v || m.cols % v) return false;
  const std::int64_t nbr = m.rows / v, nbc = m.cols / v;
  if (nbr < 2 || gpu::reg_batch_lanes_of(nbr, nbc).g < 2) return false;
  if (s == 1)
    return m.batch_rank <= 1 ? m.rows * m.cols <= kByteMatrixElems : std::min(m.rows, m.cols) >= kByteSideBytes;
  return m.batch_rank <= 1 && nbr >= 4 && own_fast_fill(pd) < kFastFullTiles;
}

// Single narrow matrices where reg_batch goes first (measurements in auto_candidates): 1-, 2- and
// 8-byte elements (4- and 16-byte ones were not measured), 64 MiB and more (it was measured at
// 320-640 MB; smaller ones keep their launch-bound kernels), whole blocks, a side of 64 or less, both
// sides of 2 blocks or more, warps of 2 or more block rows; with short input rows always, with short
// columns only where a warp covers all block rows (whole output rows) and reads 128 bytes or more of
// each input row.
bool reg_batch_narrow_wins(const plan_data& pd) {
  constexpr std::int64_t kNarrowSide = 64, kMinInputPiece = 128, kMinBytes = std::int64_t{64} << 20;
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  const std::int64_t v = 16 / s;
  if (!pd.has_matrix || m.batch != 1 || (s != 1 && s != 2 && s != 8) || m.rows % v || m.cols % v) return false;
  if (std::min(m.rows, m.cols) > kNarrowSide || pd.prob.count() * s < kMinBytes) return false;
  const std::int64_t nbr = m.rows / v, nbc = m.cols / v;
  const gpu::reg_batch_lanes l = gpu::reg_batch_lanes_of(nbr, nbc);
  if (nbr < 2 || nbc < 2 || l.g < 2) return false;  // 16-byte rows: half sectors (16 x 16 i8 batches: 37%)
  if (m.cols <= kNarrowSide) return true;
  return l.g % nbr == 0 && std::int64_t{l.w} * 16 >= kMinInputPiece;
}

// Single matrices (a side over 64) up to a size per element size where `tiled` goes ahead of the
// vector kernel auto would otherwise run: fast_tile where rows are whole 16-byte vectors, skew_tile
// where they are not (measurements in auto_candidates); permute_box does not go ahead of it there
// (box_beats).
// Whether both leading dimensions are whole 16-byte vectors (tiled_small_wins' two tables).
bool whole_vector_rows(const plan_data& pd) {
  const int v = 16 / pd.prob.elem_bytes;
  return pd.mat.ld_in % v == 0 && pd.mat.ld_out % v == 0;
}

bool tiled_small_wins(const plan_data& pd) {
  constexpr std::int64_t kKiB = 1024, kMiB = kKiB * kKiB;
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (!pd.has_matrix || m.batch != 1 || std::min(m.rows, m.cols) <= 64) return false;
  const bool whole_vectors = whole_vector_rows(pd);
  std::int64_t limit = 0;
  if (whole_vectors) {  // against fast_tile: the largest size measured on tiled's side
    switch (s) {
      case 1: limit = 256 * kKiB; break;  // 512^2 won, 1024^2 lost
      case 2: limit = 512 * kKiB; break;  // 512^2 won, 1024^2 a tie, 2048x1024 lost
      case 4: limit = 16 * kMiB; break;   // 2048^2 won (larger not measured)
      case 8: limit = 32 * kMiB; break;   // 2048^2 won (larger not measured)
      default: limit = 64 * kMiB; break;  // 2048^2 won (larger not measured)
    }
  } else {  // against skew_tile
    switch (s) {
      case 1: limit = 12 * kMiB; break;   // 3500x3501 (11.7 MiB) won, 4096x4097 (16 MiB) lost
      case 2: limit = 34 * kMiB; break;   // 4096x4097 (32 MiB) won, 5000x5003 (47.7 MiB) lost
      case 4: limit = 48 * kMiB; break;   // 3500x3501 (46.7 MiB) won since the Down order (lost before)
      case 8: limit = 200 * kMiB; break;  // 5000x5003 (191 MiB) won, 8191x8193 (512 MiB) lost
      default: return false;              // 16-byte elements are whole vectors
    }
  }
  return pd.prob.count() * s <= limit;
}

// 1- and 2-byte matrices of whole 4-byte words that are not whole 16-byte vectors (sides and
// leading dimensions multiples of 4 / S elements, a leading dimension or batch stride not a multiple
// of 16 / S): tiled_words, the classic tile over 4 x 4-byte or 2 x 2-half blocks held in words,
// where skew_tile or the classic tile ran them. H200 2026-12-02 (twenty-ninth session, by name, two runs of 20
// repetitions, % of copy, tiled_words 32x4 / 32x8 / 32x16 against auto's kernel then;
// docs/results/words-2026-12-02-*.json):
//   i8  4100x4092 80-83 / 81-92 / 78-87 vs skew_tile 47-51 (tiled 51-55), 8196x8188 63 / 67 / 78 vs
//       62, 10000x10004 72 / 81 / 75-76 vs 67, 10004x9972 60-61 / 63-64 / 74 vs 69, 16380x16388 56 /
//       59 / 71 vs 69; 2052x2044 (4 MiB, launch-bound, noisy) 100-142 / 142-182 / 126-168 vs tiled 107-111
//   f16 4100x4092 91-92 / 95-96 / 79 vs tiled 79-81 (skew_tile 87-89), 2052x2044 95-130 / 119-151 /
//       99-132 vs tiled 94-109; but 8196x8188 81-82 / 85-86 / 69 vs skew_tile 88, 10000x10004 87 vs
//       87, 16380x16388 75-79 vs 84
// Batches of them (one batch dim), in the permutation suites (docs/results/words-suite-probe-2026-12-02.json,
// two runs, 32x4 / 32x8 / 32x16 vs auto's kernel then): i8 [360,163,56,81] perm 2,3,1,0 (163 matrices of
// 360 x 4536) 52 / 55 / 61 vs skew_tile 43, [21024,8,14,19,6] perm 2,3,4,1,0 (8 of 21024 x 1596) 75 / 79-80
// / 73 vs skew_tile 66; f16 [10512,8,14,19,6] (8 of 10512 x 1596, 32 MiB each) 82 / 86 / 68 vs skew_tile
// 80, but [180,163,56,81] (1.6 MiB each) 58 / 59 / 62 vs skew_tile 64.
// So bytes take it from 4 MiB in all (the smallest size measured; batches of 1.6 MiB matrices
// gained) at 32 x 16 (ahead everywhere, where 32 x 8 lost 2-11 points to skew_tile on three single
// shapes), halves where each matrix is 4 to 34 MiB (the classic tile's limit in tiled_small_wins;
// 128 MiB and 1.6 MiB matrices lost) at 32 x 8. Under auto afterwards, shapes not fitted on
// (docs/results/words-auto-{i8,f16}-2026-12-02.json, two runs, % of copy, against skew_tile / tiled by
// name in the same run): i8 3000x3004 89.4-89.8 (64.5-67.1 / 46.6-47.9), 6000x6004 81.8-83.1 (66-67
// / 53-54), 12000x12004 77.1 (73.2-73.5 / 45), 20000x20004 72.3 (72.7-72.9: level); f16 2500x2502
// 88.1-94.1 (74-76 / 81-83.5), 3000x3002 92.0-94.4 (68.5-71 / 79.5-81.6), 4096x4098 87.1 (78-79 /
// 71.5). Returns the block height, 0 for no rule.
int tiled_words_height(const plan_data& pd) {
  constexpr std::int64_t kMiB = 1024 * 1024;
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (!pd.has_matrix || s > 2 || m.batch_rank > 1 || std::min(m.rows, m.cols) <= 64) return 0;
  const int k = 4 / s, v = 16 / s;
  const bool words = m.rows % k == 0 && m.cols % k == 0 && m.ld_in % k == 0 && m.ld_out % k == 0 &&
                     (m.batch == 1 || (m.bs_in % k == 0 && m.bs_out % k == 0));
  const bool vectors = m.ld_in % v == 0 && m.ld_out % v == 0 &&  // (and batch strides: fast_tile's own test)
                       (m.batch == 1 || (m.bs_in % v == 0 && m.bs_out % v == 0));
  const std::int64_t matrix = m.rows * m.cols * s;
  if (!words || vectors || matrix * m.batch < 4 * kMiB) return 0;
  if (s == 1) return 16;
  return matrix >= 4 * kMiB && matrix <= 34 * kMiB ? 8 : 0;
}

// Single 4- and 8-byte matrices whose input rows are not whole 16-byte vectors (so no fast_tile or
// tma_tile) but whose output rows are whole 32-byte sectors (rows a multiple of 8 or 4 elements):
// the classic tile, in its Down order, writes whole sectors as they are, and skew_tile's staggered
// tiles (extra rows and chunks read for an alignment the output already has) lose to it at every
// size measured. H200 2026-11-30 (fifteenth session, by name, two runs, % of copy, tiled 32x4 /
// tiled 32x8 / skew_tile; docs/results/aligned-*-2026-11-30s.json):
//   f32 5000x5003 96.9 / 96.8 / 93.1, 6000x6001 94.7 / 94.1 / 87.5, 8192x8193 90.1 / 89.4 / 83.5,
//       10000x10007 89.8 / 88.0 / 86.8, 12000x12007 89.7 / 86.8 / 86.2, 16384x16383 87.1 / 84.1 /
//       83.8, 20000x20001 84.5 / 81.9 / 80.7 (2048x2049, 16 MiB, launch-bound: 90.2 / 94.4 / 66.5,
//       where tiled_small_wins keeps 32x8)
//   f64 5000x5003 94.3 / 95.7 / 94.0, 6000x6001 93.1 / 94.7 / 92.6, 8192x8193 92.1 / 93.1 / 91.3,
//       10000x10007 92.0 / 93.0 / 91.0, 12000x12007 92.0 / 92.3 / 90.0, 16384x16383 90.5 / 90.9 /
//       89.3, 20000x20001 89.4 / 89.7 / 88.5
// The block height per element size is the better of the two. Odd output rows go the other way
// (16383x16384 f32: tiled 67.2, skew_tile 82.7; tools/tune/tma_sweep.cu --tiled 1). 1- and 2-byte
// elements were mixed (f16 8192x8193 tiled 79 vs skew_tile 73, 10000x10007 78 vs 87) and keep the
// size limits of tiled_small_wins.
int tiled_sector_rows_height(const plan_data& pd) {
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (!pd.has_matrix || (s != 4 && s != 8) || m.batch != 1 || std::min(m.rows, m.cols) <= 64) return 0;
  const int v = 16 / s, u = 32 / s;
  if (m.ld_in % v == 0 || m.ld_out % u != 0) return 0;
  return s == 4 ? 4 : 8;
}

// Single dense 4- and 8-byte matrices whose output rows are not whole 32-byte sectors (an odd number
// of rows): tiled_skew, the classic tile with its output rows staggered to sectors, ahead of
// skew_tile, in its one-tile-per-block form (tiled_skew_seed: fewer than 2^31 elements, the tile
// columns within a grid's y). H200 2026-11-30 (fifteenth session, by name, one run, % of copy,
// tiled_skew 32x4 / 32x8 / skew_tile / tiled; docs/results/skewed-*-2026-11-30s.json):
//   f32 8191x8193 91.9 / 89.4 / 83.4 / 66.8, 10007x9973 90.0 / 87.5 / 82.5 / 65.2, 10007x10000 91.0 /
//       88.0 / 86.8 / 66.2, 16383x16384 91.9 / 87.7 / 79.4 / 65.6, 16383x16385 86.8 / 83.2 / 81.9 / 62.8
//   f64 8191x8193 91.8 / 93.4 / 92.3 / 84.8, 10007x9973 91.2 / 92.4 / 91.5 / 85.3, 10007x10000 93.2 /
//       94.5 / 90.1 / 85.4, 16383x16384 89.8 / 92.0 / 86.8 / 84.9, 16383x16385 88.9 / 90.3 / 90.4 / 83.1
// (3500x3501, launch-bound, stays with tiled_small_wins: f32 101.6 / 102.6 / 92.0 / 98.8, f64 97.2 /
// 99.2 / 95.7 / 101.0). f16 lost to skew_tile (61-74 against 72-87: a tile of 47 input rows for
// 32), c128 gained under 1 over tiled (92.4-97.8 against 91.8-97.9 in another run) and keeps it.
// Its 64-bit looped form ran 2-3x slower (f32 50-58) and is left to skew_tile's cases.
int tiled_skew_height(const plan_data& pd) {
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (!pd.has_matrix || (s != 4 && s != 8) || m.batch != 1 || std::min(m.rows, m.cols) <= 64) return 0;
  const bool seed_form = gpu::int_indexed_dense(m.rows, m.cols, m.ld_in, m.ld_out, m.batch) &&
                         gpu::ceil_div(m.cols, 32) <= gpu::kMaxGridYZ;  // the grid's y: tile columns
  if (!seed_form || m.ld_out % (32 / s) == 0) return 0;  // whole sectors: tiled_sector_rows_height
  return s == 4 ? 4 : 8;
}

// permute_box ahead of permute_packed for 16-byte elements where packed's box holds fewer than
// 850 elements and a run of at most 42 on one side (the dims did not let it fill its 1024-element
// box), or (forty-fifth session, below) where packed's runs are not both whole 128-byte lines and
// the box launches one block per tile. H200 2026-12-01, c128 suite by name (docs/performance.md "Twenty-second session", % of
// copy, packed -> box): [817,8,6,18,19,5] (480 elements, runs 20/24) 66.0 -> 86.9, [11,21,10,4,12,
// 13,23,2] (624, 24/52) 66.7 -> 83.5, [6,7,19,17,3,14,21,5] (840, 30/28) 57.3 -> 75.1, [6,15,17,4,
// 9,6,13,14] (588, 98/42) 65.8 -> 84.4, [7262,22,5,2,7,6] (768, 24/32) 72.0 -> 79.3, [6,18,22,13,3,
// 14,2,24] (672, 24/28) 76.9 -> 80.8, [368,6,22,6,10,23] (690, 115/30) 83.5 -> 84.9; lost: [21,25,
// 14,19,19,25] (650, 25/26) 80.9 -> 77.0, [93,25,19,14,18,6] (750, 30/150) 88.7 -> 86.3, [543,20,11,
// 11,17,3] (756, 27/28) 71.1 -> 69.4, [3623,7,2,21,21,3] (693, 33/63) 76.3 -> 75.8. Outside the
// rule box lost by up to 23 points (1020
// elements, runs 34/30: 78.9 -> 56.1; runs of 96 and more: 4 to 13 points) and won by 2.7-4.1 in
// three cases of 880-972 elements.
//
// Forty-fifth session (H200 2026-12-04, `--variants auto,permute_box` on the 22 c128 suite cases
// auto ran with permute_packed while permute_box launches one block per tile, forty-third session;
// scripts/cases/box_lead_cases.txt, docs/results/box-lead-ab-2026-12-04.json): the one-block-per-tile box
// also goes first wherever packed's runs are not both whole 128-byte lines (8 elements). All 15
// such cases won, by 1.0 to 18.9 points (runs 80/60: [1,24,19,23,24,25,16,5] 72.3 -> 91.2; 21/42:
// [194,12,21,3,8,19,3] 73.3 -> 81.6; 54/54: [180400,124,3,1] 80.6 -> 89.2; 22/46: [23,201,168,85]
// 72.8 -> 75.4), and one was level (115/184: 88.5 -> 88.4); six of the seven it lost have whole
// lines both ways (32/32 reversals 90.3 -> 82.2, 89.8 -> 83.4, 90.9 -> 89.7; 128/128 90.9 -> 83.8;
// 216/216 84.8 -> 81.1; 80/240 91.9 -> 89.6): packed's own accesses are whole lines there.
// Whether packed's runs are whole 128-byte lines both ways: its own accesses are whole lines there,
// and the box lost to it (16 and 8 bytes, below).
bool packed_runs_whole_lines(const gpu::packed_params& packed, int elem_bytes) {
  const int line = 128 / elem_bytes;
  return packed.run_in % line == 0 && packed.run_out % line == 0;
}

bool c128_box_beats_packed(const plan_data& pd) {
  constexpr std::int64_t kMaxVolume = 850, kMaxShortRun = 42;
  gpu::packed_params packed;
  const char* reason = "";
  if (!gpu::packed_plan(pd.prob, true, &packed, &reason)) return false;
  if (packed.volume < kMaxVolume && std::min(packed.run_in, packed.run_out) <= kMaxShortRun) return true;
  if (packed_runs_whole_lines(packed, 16)) return false;
  gpu::box_params box;
  return gpu::box_plan(pd.prob, &box, &reason) && box.one_shot;
}

// permute_box ahead of tma_tile for batches of 16-byte matrices whose batch dim lies between the
// matrix dims on both sides (the batch stride under the row stride: [A,N,B] perm 2,1,0 and the like).
// H200 2026-12-04 (forty-sixth session, two rounds within 0.3 points, % of copy, permute_box /
// tma_tile; scripts/cases/c128_rules_cases.txt, docs/results/c128-rules-ab-2026-12-04.json): [90,163,56,81]
// perm 2,3,1,0 (163 x 90x4536) 92.0 / 88.1, [5256,8,14,19,6] perm 2,3,4,1,0 (8 x 5256x1596) 90.3 /
// 88.7, reversals [512,256,512] 92.0 / 91.2, [1024,64,1024] 92.9 / 88.6, [256,1024,256] 90.4 / 90.3,
// [2048,16,2048] 93.5 / 87.4. Dense batches keep tma_tile ([16,32,1024,128] perm 0,1,3,2, 512 x
// 1024x128: 97.0, not measured against the box).
bool c128_box_beats_tma(const plan_data& pd) {
  const auto& m = pd.mat;
  return pd.has_matrix && m.batch > 1 && m.batch_rank == 1 && m.bs_in < m.ld_in && m.bs_out < m.ld_out;
}

// permute_box ahead of permute_rows for 16-byte row copies [n, N, R] whose outermost output dim
// steps over whole input rows (input stride R: consecutive input rows land n output planes apart),
// with n <= 64 and rows of an odd number of elements under 2 KiB (not whole 32-byte sectors): the
// box reads the input in long runs where permute_rows reads 304- and 368-byte rows n rows apart.
// H200 2026-12-04 (forty-sixth session, two rounds within 0.2 points, input [N, n, R] perm 1,0,2,
// % of copy, permute_box / permute_rows; scripts/cases/c128_rules_cases.txt,
// docs/results/c128-rules-ab-2026-12-04.json): R = 19: n = 8 / 13 / 16 / 32 / 58 93.0 / 92.7 / 93.6 /
// 90.8 / 87.3 vs 82.8 / 80.4 / 82.5 / 82.2 / 84.7 (the suite's [1393,15,13,13,19] perm 3,0,1,2,4 is
// n = 13: 92.5 vs 81.7 in the first round); R = 23: n = 13 / 32 92.5 / 91.6 vs 84.3 / 83.8. Outside
// the rule: n = 127 (R = 19 box 90.0 vs 86.5, R = 23 85.3 vs 87.4; the suite's [10168,5,24,11,5]
// perm 1,2,0,3,4, n = 120 and R = 55, 88.9 vs 90.1), even rows (R = 32: n = 13 level at 95.3, n = 32
// 88.5 vs 95.5; R = 150, n = 13: 86.7 vs 91.3).
bool c128_box_beats_rows(const plan_data& pd) {
  constexpr std::int64_t kMaxPlanes = 64;
  const problem& p = pd.prob;
  if (pd.cls != problem_class::kRowCopy || p.rank != 3) return false;
  const std::int64_t r = p.dims[2].extent;
  return p.dims[0].in_stride == r && p.dims[0].extent <= kMaxPlanes && r % 2 == 1 && r * p.elem_bytes < kRowsLongRowBytes;
}

// Packed's plan of what configure_permute_packed moves: the problem's rows widened to words
// (rows_copy.hpp as_row_words), whose size it writes to *word_bytes. `packed` is the plan of the
// unwidened problem, returned as it is where the words are the elements; `widened` holds a new plan
// otherwise. Null where packed plans no widened problem.
const gpu::packed_params* packed_of_words(const plan_data& pd, const gpu::packed_params& packed,
                                          gpu::packed_params* widened, int* word_bytes) {
  const problem words = gpu::as_row_words(pd.prob);
  *word_bytes = words.elem_bytes;
  if (words.elem_bytes == pd.prob.elem_bytes) return &packed;
  const char* reason = "";
  return gpu::packed_plan(words, true, widened, &reason) ? widened : nullptr;
}

// permute_box ahead of permute_runs, and ahead of permute_packed where the box's shared rows are
// plain (no swizzle), for 8-byte elements. The ninth session's rule (packed's box of 8 KiB or less,
// kept in box_beats) predates raw rows, the late output tables and kRawWideBudget; measured again
// in the fifty-seventh session (H100 2026-12-05, two rounds within 0.9 points, `--variants
// auto,permute_box`, % of copy, auto's kernel -> box; scripts/cases/runs_box_cases.txt and
// scripts/cases/f64_box_cases.txt, docs/results/box-runs-ab-2026-12-05-h100.json and
// f64-box-packed-ab-2026-12-05-h100.json):
//   permute_runs, all nine f64 suite cases it ran: [23,201,168,85] perm 3,2,1,0 67.7 -> 78.8,
//   [543,20,11,11,17,3] 66.9 -> 76.4, [6,7,19,17,3,14,21,5] 69.2 -> 79.8, [194,12,21,3,8,19,3]
//   72.1 -> 78.8, [21,25,14,19,19,25] 72.5 -> 80.5, [2064,25,20,13,5] 77.5 -> 86.0, [3623,7,2,21,21,3]
//   83.2 -> 91.5, [9,12,16,22,10,23,7] 85.1 -> 88.9, [817,8,6,18,19,5] 85.6 -> 92.9 (for f32 the box
//   lost seven of the same nine, by 0.6-15 points: runs keeps them);
//   permute_packed, every f64 suite case it ran under 90%: the seven plain boxes all won, by 2.4-8.1
//   ([66,12,6,2,15,18,13,2] 86.8 -> 94.5, [31,23,14,4,15,11,10] 86.2 -> 93.8, [11,21,10,4,12,13,23,2]
//   86.4 -> 91.2, [102,15,13,9,2,11,17] 86.7 -> 90.1, [10168,5,24,11,5] 88.7 -> 91.3,
//   [368,6,22,6,10,23] 90.2 -> 92.8, [6,15,17,4,9,6,13,14] 87.4 -> 89.9); of the seven granule-
//   swizzled ones five lost, by 1.9-7.1 (the reversals [8,8,8,16,16,16,32] 89.1 -> 82.3 and
//   [16,16,16,16,16,64] 89.9 -> 82.8, [621,25,18,6,10,4] 87.5 -> 81.1), two won by 1.6 and 2.6.
// On the H200 only the suite ran with the rule (same day, docs/results/suite-f64-2026-12-05-h200-
// candidate.json) against the suite at 23e8cf1 (whose other 43 cases moved by +0.2 on average): the
// nine runs cases 67.6 -> 74.5, 64.9 -> 70.7, 72.7 -> 77.1, 83.0 -> 90.1, 78.4 -> 82.9, 71.3 -> 71.8,
// 77.4 -> 77.4, 71.2 -> 70.0, 75.4 -> 73.6; the plain packed ones 74.8 -> 87.4, 81.1 -> 91.0, 85.6 ->
// 89.2, 85.2 -> 86.2, 85.8 -> 86.3, 84.8 -> 84.9, 88.4 -> 87.2. Smaller gains than the H100's; the
// fifty-eighth session's same-run H200 A/B (two rounds, docs/results/f64-box-runs-ab-2026-12-05-
// h200.json, runs / box) settled the three small losses: the box won seven of the nine runs cases
// by 0.8-8.0 ([23,201,168,85] 66.7 / 74.7, [817,8,6,18,19,5] 82.2 / 90.1) and lost two by 1.8 and 1.6
// ([194,12,21,3,8,19,3] 71.5 / 69.7, [3623,7,2,21,21,3] 75.2 / 73.7); [10168,5,24,11,5] is level
// against packed (87.2 / 86.5).
// Not where packed's runs are whole 128-byte lines both ways (as for 16 bytes,
// c128_box_beats_packed), nor where packed's box is one run both ways (whole small matrices, read
// and written as one stream): H200 2026-12-05, two rounds, auto / box, [64,128,128,64] perm 0,3,1,2
// (runs 32/64) 90.1 / 67.4, [8,1024,1024,8] perm 0,2,1,3 (64/64 16-byte words) 89.9 / 88.9,
// [128561,174,3] perm 0,2,1 (one run of 1566) 90.4 / 78.1; and a plain box outside both, for the
// record: [11,13,14,4,18,20,23] perm 0,4,5,2,1,6,3 (runs 184/184) 81.1 / 87.6
// (scripts/cases/f64_box_unmeasured_cases.txt, docs/results/f64-box-unmeasured-ab-2026-12-05.json).
// The ninth session's rule stands first: packed moving single 8-byte elements (not widened words)
// in a box of at most kSmallPackedBoxBytes8 (kBoxReason4's comment above).
bool f64_box_beats(const plan_data& pd, std::string_view chosen) {
  constexpr std::int64_t kSmallPackedBoxBytes8 = 8192;
  if (chosen == "permute_runs") return true;
  if (chosen != "permute_packed") return false;
  gpu::packed_params packed;
  gpu::box_params box;
  const char* reason = "";
  if (!gpu::packed_plan(pd.prob, true, &packed, &reason)) return false;
  if (gpu::rows_word_bytes(pd.prob) == 8 && std::int64_t{packed.volume} * 8 <= kSmallPackedBoxBytes8) return true;
  if (packed_runs_whole_lines(packed, 8)) return false;
  if (packed.run_in == packed.volume && packed.run_out == packed.volume) return false;
  return gpu::box_plan(pd.prob, &box, &reason) && box.swizzle == gpu::kBoxPlain;
}

// permute_box ahead of permute_packed for 4-byte elements where the box's shared rows are plain
// (no swizzle) and several runs on each side, packed moves words narrower than 16 bytes, and
// packed's shorter run is under kShortRunBytes. Fitted on the H200 (fifty-eighth
// session, 2026-12-05, two rounds within 0.9 points, `--variants auto,permute_box` on all 20 f32
// suite cases that auto runs with permute_packed: scripts/cases/f32_plain_box_cases.txt and
// f32_packed_box_cases.txt, docs/results/f32-box-packed-ab-2026-12-05-h200.json), % of copy, packed
// -> box, packed's word and shorter run:
//   taken, all won: [379,23,10,12,8,4,2] perm 5,1,3,2,0,4,6 (8 B words, 640 B) 66.5 -> 84.5,
//   [368,6,22,6,10,23] (480 B) 77.4 -> 84.7, [22,12,5,21,6,20,20] (800 B) 70.6 -> 77.4,
//   [11,21,10,4,12,13,23,2] (8 B words, 312 B) 64.3 -> 69.6, [66,12,6,2,15,18,13,2] (576 B)
//   73.4 -> 78.3;
//   taken, level: the reversals [8,8,8,16,16,16,32] (256 B) 85.7 -> 84.1 and [4,8,8,8,8,8,16,32]
//   (256 B) 83.4 -> 84.3;
//   left to packed: 16-byte words ([8,1024,1024,8] perm 0,2,1,3 83.6 -> 79.7, [33,10,23,16,23,8,3]
//   -2.0, [56,23,21,7,22,16] -0.9), a box of one input run ([64,128,128,64] perm 0,3,1,2 84.7 ->
//   64.0), shorter runs of 1 KiB and more ([11,13,14,4,18,20,23] 1104 B -0.6, [10168,5,24,11,5]
//   1760 B -10.3, [428,18,58,150] 2400 B -12.0); every swizzled box lost (by 1.0-15.8 points).
// The H100 disagrees on two of the five taken (same build and cases, docs/results/
// f32-box-ab-2026-12-05-h100.json: [368,...] 91.0 -> 86.4 and [11,21,...] 78.4 -> 72.4; the other
// three +1.4 to +4.6): it was fitted for the H200, the machine.
// `packed` is packed's plan of the unwidened problem (box_beats has it already).
bool f32_box_beats_packed(const plan_data& pd, const gpu::packed_params& packed) {
  constexpr std::int64_t kShortRunBytes = 1024;
  gpu::packed_params widened;
  int w = 0;
  const gpu::packed_params* wp = packed_of_words(pd, packed, &widened, &w);
  if (!wp || w >= 16 || std::int64_t{std::min(wp->run_in, wp->run_out)} * w >= kShortRunBytes) return false;
  gpu::box_params box;
  const char* reason = "";
  return gpu::box_plan(pd.prob, &box, &reason) && box.swizzle == gpu::kBoxPlain && box.runs_in > 1 && box.runs_out > 1;
}

// permute_box against permute_runs for 4-byte elements, by the runs tile's shorter run: kernels by
// name on an H200 (sixty-sixth session, 2026-12-06; every case once, 8 twice, within 1.0 point;
// another H200 the same day ran 10 of the cases within 0.9; scripts/cases/runs_box_66_cases.txt,
// docs/results/runs-box-ab-2026-12-06-h200.json and worst-byname-2026-12-06-h200.json),
// all 21 f32 suite cases that both plan and auto ran below 80% of copy with box, runs or packed,
// % of copy, box / runs (the runs tile's shorter run):
//   shorter than kF32RunsMinRunBytes, the box won all eight, by 10-56 points: [3623,7,2,21,21,3]
//   perm 2,0,4,1,5,3 64.3 / 50.7 (84 B: the only one auto ran with runs, the f32 suite's minimum;
//   the box's output runs span two dims, 252 B), [22,12,5,21,6,20,20] 72.3 / 43.6 (48 B),
//   [11,13,14,4,18,20,23] 82.2 / 26.4 (16 B), ... (f32_box_beats_runs);
//   swizzled boxes (granules or words) past kF32RunsMinRunBytes, runs won all four, by 6.7-19.9:
//   [692,19,10,3,10,17] 59.9 / 67.2 (136 B), [7262,22,5,2,7,6] 58.4 / 65.1 (168 B), and the two
//   auto already ran with runs, [23,201,168,85] 46.8 / 66.3 (116 B), [543,20,11,11,17,3] 46.5 / 66.4
//   (204 B) (f32_runs_beat_box); at 100 B the box, [93,25,19,14,18,6] 68.7 / 68.0 and
//   [621,25,18,6,10,4] 71.9 / 67.3;
//   plain boxes from 100 B: neither side every time (box by 1.0-9.5 on [817,8,6,18,19,5],
//   [9,12,16,22,10,23,7], [2064,25,20,13,5], [66,12,6,2,15,18,13,2]; runs by 1.9 and 4.1 on
//   [194,12,21,3,8,19,3], [21,25,14,19,19,25] (100 B); level on [6,7,19,17,3,14,21,5]): auto keeps
//   the kernel it ran.
// Fitted for the H200, the machine. The H100 disagrees (fifty-seventh session, box-runs-ab-
// 2026-12-05-h100.json, auto = runs / box): [3623,7,2,21,21,3] 69.7 / 61.7, [9,12,16,22,10,23,7]
// 83.3 / 79.3. The runs tile moves the same GB/s on both cards there (2.04 and 2.07 TB/s on
// [3623,...]), the box gains with the H200's memory (1.80 -> 2.62 TB/s): runs is held by the SMs.
// Since runs' persistent grid claims tiles by ticket (H100, seventy-fifth session, the 37 f32 plans
// auto runs with runs, f32-runs-box-ticketed-ab-2026-12-06-h100.json): runs won 33, by 6.8 on
// average; the box won four, among them [21,25,14,19,19,25] (100 B) 70.4 / 79.3, which no run
// length separates from the two 100 B plans the box lost by 4.5 and 5.2. Not measured on an H200.
constexpr int kF32RunsMinRunBytes = 100;

// permute_box ahead of permute_runs (4 bytes) where the runs tile has a run under kF32RunsMinRunBytes.
bool f32_box_beats_runs(const plan_data& pd) {
  const int r = runs_short_bytes(pd);
  return pd.prob.elem_bytes == 4 && r > 0 && r < kF32RunsMinRunBytes;
}

// permute_runs instead of the box auto would run (4 bytes) where the box's rows are swizzled and the
// runs tile's runs are longer than kF32RunsMinRunBytes.
bool f32_runs_beat_box(const plan_data& pd) {
  if (pd.prob.elem_bytes != 4 || runs_short_bytes(pd) <= kF32RunsMinRunBytes) return false;
  gpu::box_params box;
  const char* reason = "";
  return gpu::box_plan(pd.prob, &box, &reason) && box.swizzle != gpu::kBoxPlain;
}

constexpr const char* kRunsOverBoxReason =
    "4-byte permutation whose box rows would be swizzled, runs tile with runs over 100 B: A x B transposes of "
    "runs (H200 [692,19,10,3,10,17]: 67.2% of copy vs permute_box 59.9%)";

// Whether permute_box goes ahead of `chosen`, the kernel auto would run (permute_box's own plan
// may still refuse the problem; auto then runs `chosen`).
bool box_beats(const plan_data& pd, std::string_view chosen) {
  constexpr std::int64_t kSmallPackedBoxBytes = 4096, kSmallPackedBoxBytes2 = 10240;
  constexpr std::int64_t kShortPackedRunBytes = 1024;
  constexpr double kSkewLowFill = 0.4, kFastLowFill = 0.75;
  const int s = pd.prob.elem_bytes;
  if (pd.where != backend::kGpu) return false;
  if (s == 16)
    return (chosen == "permute_packed" && c128_box_beats_packed(pd)) || (chosen == "tma_tile" && c128_box_beats_tma(pd)) ||
           (chosen == "permute_rows" && c128_box_beats_rows(pd));
  if (s == 8) return f64_box_beats(pd, chosen);
  if (s > 8) return false;
  if (chosen == "permute_packed") {
    gpu::packed_params packed;
    const char* reason = "";
    if (!gpu::packed_plan(pd.prob, true, &packed, &reason)) return false;
    if (s <= 2) {
      // What packed runs (configure_permute_packed widens row copies to words; eleventh session,
      // above): 2- or 4-byte words one at a time, or vectors across two output dims over runs under
      // 1 KiB.
      gpu::packed_params widened;
      int w = 0;
      const gpu::packed_params* wp = packed_of_words(pd, packed, &widened, &w);
      if (wp && ((w > s && w <= 4 && wp->vin == 1 && wp->vout == 1) ||
                 (wp->gather_levels > 0 && std::int64_t{std::min(wp->run_in, wp->run_out)} * w < kShortPackedRunBytes)))
        return true;
      return std::int64_t{packed.volume} * s < (s == 1 ? kSmallPackedBoxBytes : kSmallPackedBoxBytes2);
    }
    if (f32_box_beats_packed(pd, packed)) return true;
    if (gpu::rows_word_bytes(pd.prob) != s) return false;  // packed moves widened words
    return std::min(packed.vin, packed.vout) * s < 16;      // 4 bytes (8: f64_box_beats)
  }
  if (s == 4 && chosen == "permute_runs") return f32_box_beats_runs(pd);
  if (s > 2) return false;
  // Batches only: the rules' cases are batches, single small matrices were not measured.
  if (chosen == "skew_tile" && pd.has_matrix && pd.mat.batch > 1) return skew_fill(pd) < kSkewLowFill;
  if (chosen == "fast_tile" && pd.has_matrix && pd.mat.batch > 1) return fast_fill(pd) < kFastLowFill;
  return chosen == "permute_runs" || (chosen == "tiled" && !tiled_small_wins(pd));
}

std::vector<candidate> auto_candidates(const plan_data& pd) {
  if (pd.where == backend::kCpu)
    return {{"cpu_blocked", "CPU: blocked SIMD tiles, 75-93% of memcpy at 8192^2 f32 vs 3% for cpu_naive (docs/cpu.md)"}};
  switch (pd.cls) {
    case problem_class::kCopy:
      return {{"copy", "normalises to a contiguous copy: cudaMemcpyAsync is the ceiling"}};
    case problem_class::kTranspose2d:
    case problem_class::kTransposeNd: {
      const auto& m = pd.mat;
      const int s = pd.prob.elem_bytes;
      std::vector<candidate> c;
      // permute_packed with 16-byte vectors on both sides against the kernel auto ran before it,
      // H200 2026-11-29 (docs/performance.md "Vectors in permute_packed"), % of copy:
      //   100000 x 32x48, 1/2/4/8/16 B: 51.3/70.6/89.0/91.6/87.2 vs narrow 34.0/54.0/82.4/87.8/97.2;
      //   suite NCHW -> NHWC (64 batches of 64 x 16384) f16/f32/f64 75.5/90.5/90.2 vs narrow
      //   52.2/83.4/82.3; NHWC -> NCHW (16384 x 64) 75.2/86.6/90.9 vs narrow 63.6/87.5/92.4;
      //   the rank-4 reversal (batch of 2 dims, fast_tile) f16/f64 71.0/79.7 vs 86.0/85.8: so
      //   for 2- to 8-byte elements packed takes narrow's batches (one batch dim), not fast_tile's.
      //   1-byte batches: 4096 x 256x384 53.8 vs reg_tile 36.8, reversals of rank 4/5 (batches of
      //   several dims) 51.4/53.9 vs reg_tile 8.4/2.0, but 512 x 512x512 54.3 vs reg_tile 83.1 and
      //   512 x 1024x128 53.5 vs 85.8: packed below 128 Ki-element matrices (the measured
      //   boundary lies between 96 Ki and 128 Ki), short sides under 64 and multi-dim batches.
      //   16384^2: f32 91.0 / 90.6 (two runs) vs fast_tile 86.9; f64 77.0 vs 87.5, f16 64.8 vs 87.8,
      //   i8 54.6 vs reg_tile 87.2 (16 gathered byte loads per 16-byte store cost more there);
      //   c128 90.5 / 91.6 vs fast_tile 88.5 and tiled 90.8, but 10007x9973 c128 75.0 vs tiled
      //   84.6 (one element per access: no vector to gain), so c128 stays with the 2-D kernels.
      constexpr std::int64_t kLargeBytes = std::int64_t{256} << 20;
      constexpr std::int64_t kByteMatrixElems = 128 * 1024;
      const std::int64_t short_side = std::min(m.rows, m.cols);
      if (const narrow_rule* r = narrow_rule_for(pd)) c.push_back({r->variant, r->reason, false, 0, true});
      if (c128_runs_full_tiles(pd))
        c.push_back({"permute_runs", "16-byte permutation over several batch dims, full 32 x 32 runs tiles: runs of "
                                     "512 B both ways (H200 [32,32,32,32,64] reversal c128: 91.9% of copy vs "
                                     "fast_tile 86.8%)"});
      // 1-byte matrices of exactly 64 rows or 64 columns, long the other way (NCHW <-> NHWC with 64
      // channels): reg_tile with its warps side by side (reg_tile_stack) or with 8-row lane groups
      // (reg_tile_lanes) covers them in whole blocks. H200 2026-11-30 (docs/performance.md, sixth
      // session), % of copy, reg_tile / narrow / permute_packed: [64,64,128,128] perm 0,2,3,1 83.0-83.6
      // / 37.4-37.8 / 67.2-67.5; 64 x 10^7 94.5-94.8 / 37.2-37.5 / 76.0-76.1; [64,128,128,64] perm
      // 0,3,1,2 84.9 / 65.1 / 65.9; 10^7 x 64 86.7 / 67.9 / 75.0; 10^6 x 64 78.9 / 66.6 / 68.7; but
      // 40000 x 64 (2.5 MB) 45.4 / 78.7 / 60.1. Not below 64 (idle lane groups: 48 x 10^7 41.2 vs
      // packed 70.4) nor for short matrices (256 x 384 batches 65.6 vs packed 72.0); 128 rows already
      // go to reg_tile below (89.9% at 128 x 2e6).
      // tma_tile (bulk tensor copies, tiles claimed in order; tenth session) against the kernel auto
      // ran before it, H200 2026-11-30 (docs/performance.md "tma_tile"), % of copy, 1/2/4/8/16 B:
      //   16384^2 94.4/96.1/96.3/95.2/90.6 vs 90.4/88.1/91.2/87.5/88.5; 10000^2 77.8/95.6/96.1/96.2/94.7
      //   vs 67.2/76.3/81.8/86.9/93.0; 8192^2 91.1/92.8/94.4/97.2/95.0 vs 83.1/89.1/87.0/93.9/89.1;
      //   4096 x 256x384 86.8/97.8/97.9/98.6/99.2 vs 72.1/96.7/98.2/99.2/99.7 (a tie from 2 bytes up);
      //   but 4096^2 57.8/82.3/92.0/94.6/94.9 vs 75.2/91.8/92.3/94.2/94.0 and 1024^2 59-81 vs 66-93:
      //   below 64 MiB a block gets too few tiles to fill its pipeline. Short sides (<= 64) were not
      //   measured; they keep their kernels. Matrices that fill less than 3/4 of their tiles lose:
      //   [64,32,1024,128] perm 0,1,3,2 i8 (1024 x 128 matrices in 128 x 256 tiles) 60.4 vs reg_tile
      //   92.5; 4096 x 256x384 i8 (3/4 full) still won, 86.8 vs 72.1. Permutations with a batch dim
      //   (suite, same run): [5256,8,14,19,6] perm 2,3,4,1,0 f32/f64 85.8/88.3 vs 75.7/82.0 (best
      //   other kernel), [90,163,56,81] perm 2,3,1,0 f64 79.1 vs 76.7, reversals [N,256,512] i8 /
      //   f16 / f32 83.4 / 85.7 / 89.3 vs 80.2 / 84.2 / 87.1; but f64 / c128 90.1 / 91.0 vs fast_tile
      //   92.0 / 92.5 and [90,163,56,81] c128 88.2 vs 88.8 (losses kept: no feature separates them).
      // After fast_tile's Down order (same day, binaries of 5c99725, docs/results/perf-square-
      // 2026-11-30n.json), fast_tile / tma_tile: 4096^2 f32 96.6 / 91.5 (64 MiB), f64 97.7 / 95.3
      // (128 MiB), c128 93.5 / 95.1 (256 MiB); 8192^2 f16 93.9 / 93.8, f32 94.0 / 95.4, f64 97.8 /
      // 97.2; 16384^2 f64 94.9 / 94.4, c128 92.7 / 90.1; but 10000^2 f16 / f32 79.0 / 86.9 against
      // 94.7 / 95.4. So 4- to 16-byte elements take tma_tile from 192 MiB (the losses above it, f64 by
      // 0.5-0.6 and c128 16384^2 by 2.6, kept; 192, not 256, keeps the suite's f32 [5256,8,14,19,6],
      // 4 bytes short of 256 MiB), 1- and 2-byte ones from 64 MiB.
      // reg_batch (one V x V block per thread, a warp over G block rows x W blocks) against the
      // kernel auto ran before it, H200 2026-11-30 (twelfth session, docs/performance.md "reg_batch"),
      // % of copy, batches of small matrices:
      //   i8: 100000 x 32x48 89.4 vs 65.6, 200000 x 32x32 86.4 vs 70.8, 40000 x 48x80 83.1 vs 69.9,
      //   50000 x 64x64 96.5 vs 71.6, 8192 x 128x128 92.5 vs 72.7, 8192 x 64x256 88.1 vs 72.1,
      //   10000 x 96x160 92.9 vs 70.4; but 1000000 x 16x16 37.2 vs 75.9 (16-byte output rows: half
      //   sectors) and 4096 x 256x384 22.9 vs 88.0 (24 blocks a row: one block row per warp);
      //   suite reversals of rank 4 / 5 / 6 (two or more batch dims, both sides >= 64 B) 84.0 / 67.8 /
      //   69.4 vs 69.0 / 65.8 / 62.8, but rank 7 / 8 (32- and 16-byte sides) 47.8 vs 59.0 / 57.9, and
      //   [64,32,1024,128] perm 0,1,3,2 (128 Ki-element matrices) 91.9 vs reg_tile 93.0.
      //   2 to 16 bytes, where fast_tile's tiles are under 3/4 full and output rows at least 64 B:
      //   f16 32x32 96.5 vs 86.3, 32x48 97.7 vs 84.1, 48x80 93.0 vs 86.6; f32 / f64 / c128 16x16
      //   96.5 / 99.2 / 98.5 vs 89.4 / 90.6 / 91.3; f64 [60787,184,6] perm 0,2,1 93.5 vs 83.6; but
      //   f16 16x16 (32-byte output rows) 86.7 vs 87.9, and full tiles go to fast_tile (f16 64x64 95.3
      //   vs 98.0, f32 32x32 96.5 vs 99.1); with several batch dims it lost (f32 rank-6 reversal 80.3
      //   vs 86.4, f64 rank 7 84.1 vs 89.5).
      //   Rows of more than 16 blocks in segments (a warp of 4 x 8 blocks for 24 a row), same day, by name:
      //   i8 4096 x 256x384 93.7 vs tma_tile 88.1 (so reg_batch goes ahead of tma_tile), 512 x 1024x128
      //   91.9 vs reg_tile 85.8, f16 10000 x 96x160 92.6 vs permute_box 73.6; but [64,32,1024,128] perm
      //   0,1,3,2 i8 91.8 vs 92.5, and full tiles of 2-byte elements (256x384 93.9 vs 97.8).
      // fast_tile's 1-byte path through swizzled words (thirteenth session, fast_tile_bytes in
      // kernels/fast_tile.cuh), by name, H200 2026-11-30, % of copy, fast_tile / reg_batch: 4096 x
      // 256x384 98.0 / 94.2, 8192 x 128x128 98.8 / 93.2, 512 x 1024x128 96.0 / 90.0; but 100000 x
      // 32x48 8.9 / 90.4 and 50000 x 64x64 21.1 / 96.2 (its 128 x 128 tiles mostly empty). So 1-byte
      // batches whose matrices fill its tiles whole go to fast_tile first (every winning case was
      // whole tiles; partly filled ones were not measured).
      if (s == 1 && m.batch > 1 && own_fast_fill(pd) >= 1.0)
        c.push_back({"fast_tile", "batch of 1-byte matrices filling fast_tile's 128 x 128 tiles: 4 x 16-byte "
                                  "transposes in registers, words through a swizzled tile (H200 4096 x 256x384: 98.0% "
                                  "of copy vs reg_batch 94.2%)"});
      if (reg_batch_wins(pd))
        c.push_back({"reg_batch", "batch of small matrices of whole 16-byte blocks: one block per thread, a warp over "
                                  "whole block rows (H200 100000 x 32x48 i8 / f16: 89.4 / 97.7% of copy vs 65.6 / 84.1)"});
      // 1-byte elements from 128 MiB since fast_tile's word path (thirteenth session, by name,
      // fast_tile / tma_tile): 8192^2 (64 MiB) 94.0 / 91.2, 16000^2 93.4 / 94.6, 16384^2 93.4 / 94.5;
      // the boundary lies between 64 and 244 MiB and was not measured more finely.
      const std::int64_t kTmaMinBytes = std::int64_t{s >= 4 ? 192 : s == 2 ? 64 : 128} << 20;
      int tma_tr = 0, tma_tc = 0;
      gpu::tma_tile_dims(s, &tma_tr, &tma_tc);
      const double tma_fill = tile_fill(m, tma_tr, tma_tc);
      // Single 16-byte matrices over 64 MiB (smaller ones: tiled_small_wins, below): the classic tile
      // with 32 x 16 threads, walked down its tile rows (kernels/tiled.cuh), ahead of tma_tile and
      // fast_tile. H200 2026-11-30 (fifteenth session, by name, two runs each, % of copy, tiled 32x16
      // / 32x8 / tma_tile / fast_tile / cuBLAS zgeam; docs/results/c128-*-2026-11-30s.json):
      //   4096^2 97.9 / 97.1 / 95.6 / 94.3 / 97.5, 6000x6001 95.8 / 95.4 / 95.7 / 90.5 / 95.3, 6000x12000
      //   96.3 / 95.8 / 95.3 / 93.1 / 96.2, 8191x8193 92.7 / 91.8 / 89.6 / 87.8 / 91.9, 8192^2 92.1 /
      //   91.4 / 90.8 / 91.2 / 91.3, 10000^2 97.4 / 97.0 / 94.7 / 93.8 / 97.5, 10007x9973 93.1 / 92.5 /
      //   87.8 / 88.0 / 92.9, 12000^2 96.2 / 95.8 / 93.7 / 93.6 / 96.7, 16383x16385 91.8 / 90.8 / 86.4 /
      //   87.3 / 91.4, 16384^2 95.6 / 95.3 / 89.2 / 92.7 / 95.3.
      // One element is one 16-byte vector, so the classic tile already moves whole vectors both ways;
      // walked across (its old order) it ran 81-94. Batches and 64-256 MiB were not measured.
      constexpr std::int64_t kTiled16MinBytes = std::int64_t{64} << 20;
      if (s == 16 && m.batch == 1 && short_side > 64 && pd.prob.count() * s > kTiled16MinBytes)
        c.push_back({"tiled",
                     "single 16-byte matrix over 64 MiB: classic 32x32 tile, 32 x 16 threads, walked down its tile "
                     "rows (H200 10007x9973 c128: 93.1% of copy vs tma_tile 87.8, cuBLAS 92.9)",
                     false, 16});
      if (m.batch_rank <= 1 && short_side > 64 && pd.prob.count() * s >= kTmaMinBytes && tma_fill >= 0.75)
        c.push_back({"tma_tile", "large 2-D transpose (64 MiB and more for 1- and 2-byte elements, 192 MiB for wider "
                                 "ones): bulk tensor copies through swizzled tiles, tiles claimed in order (H200 "
                                 "16384^2: 90.1-96.0% of copy vs 87.5-91.2% before)"});
      // 16-byte matrices with a side over 64, in batches whose other side is 32 or more, or single with
      // input rows of 17-64 elements (single larger ones: `tiled` above; a few long rows keep narrow,
      // which ran 48 x 10^7 at 96.2% of copy against 95.2, kNarrowRules): the classic tile with its
      // output rows staggered, ahead of fast_tile and narrow. H200 2026-12-04 (forty-fifth session,
      // the c128 suite cases under 90% of copy by name, one round, % of copy, tiled_skew / auto's kernel;
      // scripts/cases/c128_median_cases.txt, docs/results/c128-median-byname-2026-12-04.json):
      //   82 x 14796x55 86.8 / fast_tile 79.6, 3042 x 144x150 (two batch dims) 89.4 / fast_tile 80.2,
      //   64 x 16384x64 97.7 / narrow 81.3, 64 x 64x16384 95.1 / narrow 83.5, 1 x 3944325x17 93.9 /
      //   narrow 86.3, 12017 x 107x52 92.7 / narrow 89.6, 8192 x 64x128 87.0 / fast_tile 85.9 (the
      //   [64,64,128,128] reversal: permute_runs goes first there since the forty-sixth session,
      //   c128_runs_full_tiles); issue 4's batches (same call as below): 8192 x 64x256 95.4 / fast_tile
      //   93.8, 10000 x 128x64 99.7 / 95.3;
      //   lost: 32768 x 32x64 77.8 / fast_tile 86.7 (no side over 64: not taken), and every matrix
      //   with a side of 3 to 9 (8-52 against 85-91: sides under 17 keep their kernels).
      // One element is one 16-byte vector, so fast_tile's vectors gain nothing over the classic tile.
      // Batches of matrices with a side under 32 keep the boxes (the rule further down): two rounds,
      // the same call, tiled_skew / permute_box, [692,19,10,3,10,17] perm 5,4,1,2,3,0 (5700 x 692x17)
      // 67.6 / 82.0, [2064,25,20,13,5] perm 3,4,1,0,2 (51600 x 20x65) 66.0 / 81.1, [21,25,14,19,19,25]
      // perm 5,4,3,0,1,2 (361 x 7350x25) 81.6 / 82.1 ([23,201,168,85] reversal, 33768 x 23x85, 76.7 /
      // 75.4); the cases above were within 0.2 points of the first round.
      constexpr std::int64_t kSkew16MinSide = 17, kSkew16MinBatchSide = 32, kSkew16LongSide = 64;
      if (s == 16 && std::max(m.rows, m.cols) > kSkew16LongSide &&
          (m.batch > 1 ? short_side >= kSkew16MinBatchSide
                       : m.cols >= kSkew16MinSide && m.cols <= kSkew16LongSide && m.rows > m.cols))
        c.push_back({"tiled_skew",
                     "16-byte matrices with a side over 64, batched (other side 32 or more) or input rows of "
                     "17-64: the classic tile, output rows staggered (H200 64 x 16384x64 c128: 97.7% of copy vs "
                     "narrow 81.3%)"});
      constexpr std::int64_t kRegTileMinBytes = 4 << 20, kRegTile64LongSide = 16384;
      constexpr double kSkewRunsFill = 0.75;
      if (s == 1 && pd.prob.count() > kRegTileMinBytes &&
          ((m.rows == 64 && m.cols >= kRegTile64LongSide) || (m.cols == 64 && m.rows >= kRegTile64LongSide)))
        c.push_back({"reg_tile", "1-byte matrices of 64 rows or columns: 16 x 16-byte register transposes in whole "
                                 "blocks (H200 NCHW <-> NHWC with 64 channels: 83-85% of copy vs narrow 37-65%)"});
      // Single narrow matrices (a side of 64 or less) of whole blocks, 1-, 2- and 8-byte elements,
      // reg_batch by name against auto (permute_packed), H200 2026-11-30 (twelfth session, one run,
      // binaries of 972a19a), % of copy, i8 / f16 / f64:
      //   short rows (1e7 x 48, 2e7 x 32): 88.6 / 89.6 / 87.8 and 90.3 / 90.1 / 85.9 against 70.5 / 88.0
      //   / 83.7 and 68.2 / 88.6 / 84.7: taken;
      //   short columns (48 x 1e7, 32 x 2e7): i8 83.8 / 89.0 against 70.7 / 76.3, f16 32 x 2e7 95.4
      //   against 90.5 (warps over whole output rows, input pieces of 128 B and more: taken), but f16
      //   48 x 1e7 49.1 against 88.2 (80-byte input pieces) and f64 58.8 / 60.7 against 80.4 / 83.4
      //   (a warp over 4 of 24 or 16 block rows): not taken (reg_batch_narrow_wins).
      // Single narrow 8-byte matrices with a side of 32 or 48 (fourteenth session, H200 2026-11-30,
      // every variant by name, one run, % of copy; docs/results/narrow-all-2026-11-30r.json):
      // fast_tile / auto's kernel before: 32 x 2e7 93.0 / narrow 83.4 (tiled 97.4), 48 x 1e7 92.3 /
      // narrow 79.8, 2e7 x 32 93.2 / reg_batch 85.5, 1e7 x 48 88.0 / reg_batch 87.8. Its 32 x 32
      // tiles are whole or 3/4 full there. Sides of 40 (5/8 full), 56 and 64 and long sides under
      // 10^7 were not measured, nor 4- and 16-byte elements; 1- and 2-byte ones lost (i8 25-45, f16
      // 66-85 against 84-95).
      constexpr std::int64_t kNarrowFastMinBytes = std::int64_t{256} << 20;
      if (s == 8 && m.batch == 1 && short_side >= 32 && short_side <= 48 && short_side % 16 == 0 &&
          pd.prob.count() * s >= kNarrowFastMinBytes)
        c.push_back({"fast_tile", "narrow 8-byte matrix with a side of 32 or 48: 16-byte vectors through 32 x 32 "
                                  "tiles, whole or 3/4 full (H200 48 x 1e7 f64: 92.3% of copy vs narrow 79.8%)"});
      if (reg_batch_narrow_wins(pd))
        c.push_back({"reg_batch", "narrow matrix of whole 16-byte blocks (1, 2, 8 B): one block per thread, warps over "
                                  "whole rows (H200 1e7 x 48 i8: 88.6% of copy vs packed 70.5%)"});
      // fast_tile ahead of permute_packed for batches of small 2- to 8-byte matrices that fill at
      // least 3/4 of its tiles (same run, by name, fast_tile / auto = permute_packed): f16 50000 x 64x64
      // 98.0 / 86.3, 8192 x 64x256 97.7 / 89.1; f32 100000 x 32x48 96.1 / 90.9, 200000 x 32x32 99.1 /
      // 89.2, 64x64 96.0 / 88.7, 64x256 98.4 / 89.6; f64 32x48 97.3 / 92.5, 32x32 95.7 / 89.6, 64x64
      // 98.3 / 89.1, 64x256 98.7 / 89.6. (Its 16-byte stores are real since this session: see
      // store_vec16 in common.cuh.) Sides up to 256: longer ones (NCHW <-> NHWC) were not measured.
      if (s >= 2 && s <= 8 && m.batch > 1 && m.batch_rank <= 1 && short_side <= 64 && std::max(m.rows, m.cols) <= 256 &&
          own_fast_fill(pd) >= kFastFullTiles)
        c.push_back({"fast_tile", "batch of small 2- to 8-byte matrices filling fast_tile's tiles: 16-byte vectors both "
                                  "ways through a padded tile (H200 100000 x 32x48 f32: 96.1% of copy vs packed 90.9%)"});
      // 16-byte elements only where the tiles are full (same runs, by name, fast_tile / auto = narrow):
      // 50000 x 64x64 94.1 / 85.6 (84.6 in the next run), 8192 x 64x256 93.5 / 85.4 (85.1), 200000 x
      // 32x32 95.4 / 95.5 (a tie); 3/4-full 32x48 lost, 87.1 / 96.9, and stays with narrow.
      if (s == 16 && m.batch > 1 && m.batch_rank <= 1 && short_side <= 64 && std::max(m.rows, m.cols) <= 256 &&
          own_fast_fill(pd) >= 1.0)
        c.push_back({"fast_tile", "batch of small 16-byte matrices filling fast_tile's tiles whole: 16-byte elements "
                                  "through a padded tile (H200 50000 x 64x64 c128: 94.1% of copy vs narrow 85.6%)"});
      if (packs_full_vectors(pd)) {
        if (s == 1 && m.batch > 1 && (m.batch_rank > 1 || short_side < 64 || m.rows * m.cols < kByteMatrixElems))
          c.push_back({"permute_packed", "batch of small 1-byte matrices, 16-byte vectors both ways: packed boxes "
                                         "over several matrices (H200: 51-54% of copy where reg_tile and narrow "
                                         "ran 2-37%)"});
        else if (s > 1 && s < 16 && m.batch > 1 && m.batch_rank <= 1 && short_side <= 64)
          c.push_back({"permute_packed", "batch of matrices with a short side, 16-byte vectors both ways: packed "
                                         "boxes over several matrices (H200: 71-92% of copy where narrow ran "
                                         "52-88%)"});
        else if (m.batch == 1 && s == 4 && short_side > 64 && pd.prob.count() * s >= kLargeBytes)
          // Its element-wise plan on pointers that are not 16-byte aligned ran 16384^2 at 43.9% of
          // copy (H200 2026-11-29, --offset 1); skew_tile, further down, keeps vectors there.
          c.push_back({"permute_packed",
                       "large 4-byte matrix, 16-byte vectors both ways: packed boxes (H200 16384^2: 91.0% of copy vs "
                       "fast_tile 86.9%)",
                       true});
      }
      // Single narrow matrices (a dense side of 64 or less, a long side of whole vectors, so packed
      // boxes move 16-byte vectors both ways), H200 2026-11-29, % of copy, permute_packed vs
      // narrow, 1/2/4/8/16 B: 3 x 4e7 83.5/90.8/90.1/91.3/90.5 vs 34.3/51.3/85.4/83.4/88.6;
      // 4e7 x 3 69.2/92.1/87.6/90.1/89.2 vs 60.8/82.6/83.4/89.9/83.9; 48 x 1e7
      // 70.1/88.2/93.2/72.6/83.0 vs 32.8/50.5/84.3/78.0/96.1; 1e7 x 48 70.2/87.6/90.7/73.6/80.1
      // vs 57.6/74.6/79.5/86.7/90.7. So packed for 1- to 4-byte elements, and for wider ones when
      // the short side is at most 4 (below). With a long side that is not whole vectors packed runs
      // element-wise and loses (3 x 40000001 i8/f32 25.5/69.0 vs narrow 34.3/84.0).
      if (m.batch == 1 && s <= 4 && narrow_packs_vectors(pd))
        c.push_back({"permute_packed", "narrow matrix of 1- to 4-byte elements, 16-byte vectors both ways: packed "
                                       "boxes (H200 3 x 4e7: 83-91% of copy vs narrow 34-85%)"});
      // 8- and 16-byte elements with a side of at most 4, aligned or not: packed boxes (above) and its
      // element-wise plan alike (3 x 40000001 f64 / c128 91.3 / 90.4 vs narrow 81.6 / 86.4;
      // 40000001 x 3 90.0 / 88.4 vs 90.1 / 83.8).
      if (m.batch == 1 && s >= 8 && short_side <= 4)
        c.push_back({"permute_packed", "8- or 16-byte elements with a side of at most 4: packed boxes (H200 3 x 4e7: "
                                       "90-91% of copy vs narrow 83-89%)"});
      // Short contiguous dims inside a permutation (more than one batch dim, or a batch around
      // them): fold them with their neighbours rather than run mostly-empty tiles.
      // H200 2026-11-29, suite f32 (docs/performance.md): permute_packed 21-100% of copy where the
      // folded 32x32 tile it replaced ran 4-35%.
      const bool runs = runs_beat_packed(pd);
      if (std::min(m.rows, m.cols) < 32 && m.batch > 1) {
        if (runs) c.push_back({"permute_runs", kRunsReason});
        c.push_back({"permute_packed", "a contiguous dim shorter than a tile inside a batch: boxes over several dims"});
      }
      // Its strided side may have any leading dimension for 1- to 4-byte elements (rows shifted to
      // their alignment). H200 2026-11-29, % of copy, i8/f32: 3x40000001 34.3/84.0 and
      // 10000001x48 46.9/63.5, where `tiled` or permute_packed ran 24.5/69.4 and 22.3/52.2.
      if (std::min(m.rows, m.cols) <= 64)
        c.push_back({"narrow", "one side <= 64 elements: short side whole, long side in 16 KiB chunks"});
      // Matrices of whole words but not whole vectors (tiled_words_height): the classic tile of words,
      // ahead of the classic tile, which tiled_small_wins also gives unaligned halves up to 34 MiB.
      if (const int h = tiled_words_height(pd); h > 0)
        c.push_back({"tiled_words",
                     "1- or 2-byte matrix of whole 4-byte words, not whole 16-byte vectors: classic 32x32 tile of "
                     "words, each a 4x4-byte or 2x2-half block transposed in registers (H200 4100x4092 i8 / f16: "
                     "78-87 / 95-96% of copy vs skew_tile 47-51 / tiled 79-81)",
                     false, h});
      // H200, 2026-11-29 (docs/performance.md), % of copy at 16384^2 by element size 1/2/4/8/16 B:
      //   fast_tile 66.6 / 87.7 / 87.2 / 87.3 / 91.0;  reg_tile 86.7 / 43.8 / 52.7 / 76.4 / 74.6
      //   (reg_tile's and fast_tile's 2- to 8-byte stores were split by nvcc then: store_vec16 in
      //   common.cuh; twelfth session, reg_tile 87.9 / 90.8 / 90.7 for 2 / 4 / 8 B, fast_tile 94.1 /
      //   93.7 / 95.6, tma_tile ahead of both above 64 / 192 MiB).
      // Until the thirteenth session reg_tile took 1-byte matrices over 4 MiB here: fast_tile's
      // byte path moved one byte per shared access (4096^2 49.5% of copy, reg_tile 78.9%). With
      // its word path (fast_tile_bytes), by name, H200 2026-11-30, fast_tile / reg_tile: 4096^2 91.4 /
      // 77.3, 16000^2 93.4 / 88.2, 16384^2 93.4 / 90.5; 1024^2 87.4 against 73.8 before. So every
      // size goes to fast_tile (tma_tile above 128 MiB, before it).
      // Small single matrices of whole vectors: the classic tile first (fourteenth session, H200
      // 2026-11-30, by name, three runs of 100 repetitions, the transpose's time over the copy's,
      // tiled / fast_tile; docs/results/small-aligned-2026-11-30r-*.json):
      //   i8   256^2 1.03 / 1.15, 512^2 1.04 / 1.12; 1024^2 1.18 / 1.13, 2048^2 1.44 / 1.06
      //   f16  256^2 1.03 / 1.14, 512^2 1.03 / 1.12; 1024^2 1.15 / 1.17, 2048x1024 1.15 / 1.12,
      //        2048^2 1.22 / 1.18
      //   f32  256^2 1.01 / 1.11, 1024^2 1.03 / 1.08, 2048x1024 1.04 / 1.14, 2048^2 1.06 / 1.13
      //   f64  256^2 0.99 / 1.08, 1024^2 1.04 / 1.09, 2048^2 0.98 / 1.03
      //   c128 256^2 1.06 / 1.18, 1024^2 1.06 / 1.14, 2048^2 1.04 / 1.08
      // Launch-bound sizes, where the classic tile has more threads per tile (256, where fast_tile
      // runs 64 or 128 for 4- and 8-byte elements) or more tiles (32 x 32, where fast_tile's are 128
      // x 128 or 64 x 64 for 1- and 2-byte ones: 64 blocks for 1024^2 i8). That does not explain
      // c128, where both run 256 threads on 32 x 32 tiles; not investigated. Sizes past the limits in
      // tiled_small_wins were not measured against tiled (4096^2 f32 fast_tile: 96.6% of copy).
      if (tiled_small_wins(pd) && whole_vector_rows(pd))  // (the others: below, after skew_tile's reasons)
        c.push_back({"tiled", "small matrix of whole 16-byte rows, launch-bound: classic 32x32 tile, 256 threads "
                              "(H200 1024^2 f32: 1.03x the copy's time vs fast_tile 1.08x)"});
      c.push_back({"fast_tile", "2-D transpose: 16-byte vectors both ways through a shared tile (H200, by name: "
                                "91-98% of copy at 4096^2-16384^2 for every element size)"});
      // Where 16-byte vectors are ruled out: a short side (a 32x32 tile would be mostly empty:
      // [112410,199,3] perm 2,0,1 ran `tiled` at 13.8%) or several batch dims go to boxes, the rest
      // to the classic tile (10007x9973 f32: tiled 54%, permute_packed 51%).
      // Leading dimensions that are not whole vectors, or pointers not aligned to them: skew_tile
      // staggers its tiles so the vectors stay aligned. H200 2026-11-29, 10007x9973, % of copy,
      // 1/2/4/8 B: skew_tile 67.8 / 69.7 / 67.8-70.7 / 86.1 against tiled 36.7 / 48.0 / 55.0 / 68.6
      // (and permute_packed 17.2 / 29.9 / 55.4 / 63.0). Short sides (<= 64) keep their kernels: the
      // staggered tile reads up to 32 / S - 1 extra rows, too many for them (not measured).
      // Batches of 1- and 2-byte matrices that fill under 3/4 of skew_tile's tiles: permute_runs
      // first, where it runs (H200 2026-11-30, eleventh session, by name, % of copy, skew_tile /
      // permute_runs: f16 [78,78,144,150] perm 3,1,0,2 (144 x 150 in 64 x 64 tiles, 59%) 45.2 / 65.9;
      // i8 [92,201,168,85] reversal (92 x 85 in 128 x 128, 48%) 19.6 / 24.7, where box_beats then
      // runs permute_box, 23.9). Under 40% permute_box goes first (box_beats). Two cases: fitted on
      // the run they describe.
      if (s <= 2 && m.batch > 1 && short_side > 64 && pd.has_matrix && skew_fill(pd) < kSkewRunsFill)
        c.push_back({"permute_runs", "1- or 2-byte matrices filling under 3/4 of skew_tile's tiles: A x B transposes "
                                     "of runs with 16-byte chunks both ways (H200 f16 [78,78,144,150]: 65.9% of copy "
                                     "vs skew_tile 45.2%)"});
      // Single matrices up to a size per element size (tiled_small_wins): the classic tile first.
      // Fourteenth session (H200 2026-11-30, by name, % of copy, tiled / skew_tile, three runs of 100
      // repetitions up to 4096x4097, two of 20 above; docs/results/odd-{small,mid}-2026-11-30r-*.json):
      //   i8  500x501 94 / 47, 999x1001 91 / 53, 2048x2049 91 / 77, 2896x2897 72 / 64, 3500x3501
      //       59 / 42; 4096x4097 46 / 52, 5000x5003 50 / 63, 10007x9973 36 / 68
      //   f16 500x501 96 / 60, 1448x1449 113 / 85, 2048x2049 81 / 55, 4096x4097 75 / 65, 3500x3501
      //       76 / 75; 5000x5003 76 / 87, 6000x6001 77 / 73, 8191x8193 50 / 73
      //   f32 500x501 100 / 84, 2048x2049 93 / 68, 2896x2897 103 / 91; 3500x3501 87 / 91,
      //       4096x4097 90 / 82, 6000x6001 90 / 85, 8191x8193 57 / 82
      //   f64 500x501 135 / 107, 2048x2049 98 / 83, 4096x4097 93 / 89, 5000x5003 93 / 90, 6000x6001
      //       90 / 88; 8191x8193 70 / 87, 10007x9973 69 / 87
      // (copies of odd byte counts are slow at the small sizes, hence ratios over 100). The classic
      // tile falls off between 6000 and 8191 rows for 2- to 8-byte elements (from 4096 for bytes);
      // below that skew_tile's extra rows and chunks and element-wise shared accesses cost more than
      // its vectors gain. The limits keep every measured case on its winning side but f16 6000x6001
      // (+4 for tiled), f32 4096x4097-6000x6001 (+2 to +7, where 3500x3501 lost 4) and f64
      // 6000x6001 (+2). The thirteenth session's rule (1-byte matrices to 4 MiB) measured under auto
      // in this session: 500x500 94%, 999x1001 90%, 1000^2 89% of copy (1.06-1.12x its time).
      // Fifteenth session, the classic tile walked down its tile rows (kernels/tiled.cuh), same shapes
      // and runs (docs/results/small-odd-2026-11-30s-*.json): every case kept its side but f32
      // 3500x3501, now 97.4-98.1 / 91.5-92.3 (the f32 limit moved past it); 4- and 8-byte matrices
      // whose output rows are whole sectors go to tiled at any size (tiled_sector_rows_height).
      if (tiled_small_wins(pd))
        c.push_back({"tiled", "single matrix whose rows are not 16-byte aligned, small enough for the classic 32x32 "
                              "tile (H200 2048x2049: 81-98% of copy vs skew_tile 55-84% for 1- to 8-byte elements)"});
      if (const int h = tiled_sector_rows_height(pd); h > 0)
        c.push_back({"tiled",
                     "4- or 8-byte matrix, odd input rows, output rows of whole 32-byte sectors: classic 32x32 tile "
                     "walked down its tile rows (H200 10000x10007 f32 / f64: 89.8 / 93.0% of copy vs skew_tile 86.8 / "
                     "91.0)",
                     false, h});
      if (const int h = tiled_skew_height(pd); h > 0)
        c.push_back({"tiled_skew",
                     "4- or 8-byte matrix whose output rows are not whole 32-byte sectors: classic 32x32 tile with its "
                     "output rows staggered to sectors (H200 16383x16384 f32 / f64: 91.9 / 92.0% of copy vs skew_tile "
                     "79.4 / 86.8)",
                     false, h});
      // Large batches (runs_batch) of 8-byte matrices for skew_tile, of 4- and 8-byte ones for the
      // classic tile, go to permute_runs (the two rules below). Every plan they were fitted on held
      // 255-256 MiB; batches under half that keep the kernels they had (a launch and the persistent
      // grid's ticket count for more there; not measured).
      constexpr std::int64_t kRunsBatchMinBytes = std::int64_t{128} << 20;
      const bool runs_batch = m.batch > 1 && pd.prob.count() * s >= kRunsBatchMinBytes;
      // Batches of 8-byte matrices: permute_runs ahead of skew_tile. Seventy-ninth session, H100, by
      // name, auto (skew_tile) against permute_runs on the 23 f64 suite plans of seeds 2-12 that auto
      // ran with skew_tile over a batch (scripts/cases/runs_vs_2d_78_cases.txt, three rounds,
      // results/runs-vs-2d-2026-12-07-h100.{json,log}), % of copy: 14 gained more than a point, up
      // to 11.5 ([21,161,137,141] perm 2,0,3,1 81.8 -> 93.4, [22,153,183,105] 83.3 -> 90.9), two
      // lost ([755,80,185,6] perm 2,3,1,0 89.9 -> 84.2, [1057,5,24,23,23] 87.6 -> 86.0), mean +2.9.
      // Not for 4-byte batches (28 plans: 9 up, 11 down, mean +0.3) nor 2-byte ones (13: 9 down,
      // mean -5.5). Measured against skew_tile, not against permute_box, which f64_box_beats would
      // put ahead of permute_runs: beat_box keeps runs (box against runs on f64 boxes: mean +0.8
      // for runs over 27 plans, seventy-ninth session, so no rule either way).
      if (s == 8 && runs_batch && short_side > 64)
        c.push_back({"permute_runs", "batch of 8-byte matrices whose strides rule out 16-byte vectors: A x B "
                                     "transposes of runs with 16-byte chunks both ways (H100, 23 such suite plans: "
                                     "mean +2.9 points of copy over skew_tile, 14 up to +11.5, 2 down)",
                     false, 0, true});
      if (s < 16 && short_side > 64)
        c.push_back({"skew_tile", "2-D transpose whose leading dimensions or pointers are not 16-byte aligned: "
                                  "tile edges staggered so the vectors stay aligned both ways (H200 10007x9973: "
                                  "i8 74, f16 86, f32 82, f64 91% of copy vs 37-69% for tiled)"});
      if (m.batch_rank > 1 || std::min(m.rows, m.cols) < 32) {
        if (runs) c.push_back({"permute_runs", kRunsReason});
        c.push_back({"permute_packed", "permutation whose strides rule out 16-byte vectors: packed boxes"});
      } else if ((s == 4 || s == 8) && runs_batch) {
        // Batches of 4- and 8-byte matrices with a side of 32-64 that fall to the classic tile:
        // permute_runs first. Seventy-ninth session, H100, by name, auto (tiled) against
        // permute_runs (scripts/cases/runs_vs_2d_78_cases.txt, seeds 2-12, three rounds), % of copy:
        // all nine gained, f32 by 15.4-22.0 ([588674,3,38] perm 2,1,0 67.4 -> 89.4, [38043,42,42]
        // 69.7 -> 85.2), f64 by 3.5-7.1 ([18641,80,45] 80.3 -> 87.4); on seed 1 (seventy-eighth
        // session) f32 [137,108,82,55] perm 3,2,0,1 +7.1, f64 [197,61,107,52] +2.9 and
        // [137,108,82,55] -0.3. As above, measured against the classic tile, not permute_box
        // (beat_box keeps it).
        c.push_back({"permute_runs", "batch of 4- or 8-byte matrices with a side of 32-64 whose strides rule out "
                                     "16-byte vectors: A x B transposes of runs (H100, 12 such suite plans: f32 "
                                     "+7 to +22 points of copy over the classic tile, f64 -0.3 to +7.1)",
                     false, 0, true});
      }
      c.push_back({"tiled", "2-D transpose whose strides or pointers rule out 16-byte vectors and skew_tile (a side of "
                            "64 or less, or 16-byte elements): classic 32x32 tile"});
      return c;
    }
    default: {
      // Row copies with rows of 2 KiB and more move whole 16-byte words one per thread faster than
      // through boxes (where permute_rows does not take them). H200 2026-11-29, f32, % of copy,
      // permute_general / permute_packed: [16,32,1024,128] perm 0,2,1,3 (512 B rows) 93.0 / 83.0;
      // [428,18,58,150] perm 2,0,1,3 (600 B) 74.6 / 67.5; [601,53,54,39] perm 1,0,2,3 (8 KiB) 76.9 /
      // 38.6. Shorter rows go the other way: [22974,127,23] perm 1,0,2 (92 B) 44.2 / 48.5, [5799,29,
      // 57,7] perm 2,1,0,3 (28 B) 33.0 / 40.1. Since then packed gained and permute_rows took the
      // whole-vector rows: 2026-12-01 (twenty-second session), general / packed / rows: 600 B 74.9 /
      // 83.8 / 82.0, 512 B 93.3 / 81.3 / 95.3 (rows), 8 KiB 76.8 / 50.6 / 93.0 (rows); hence 2 KiB.
      constexpr std::int64_t kLongRowBytes = 2048;
      const auto& last = pd.prob.dims[pd.prob.rank > 0 ? pd.prob.rank - 1 : 0];
      const bool long_rows = pd.cls == problem_class::kRowCopy && last.extent * pd.prob.elem_bytes >= kLongRowBytes;
      std::vector<candidate> c = {
          {"permute_packed", "general permutation or row copy: boxes over several dims, runs both ways"},
          {"permute_general", "row copy of long rows (>= 512 B): 16-byte words, one per thread; or a permutation "
                              "beyond permute_packed's 32-bit tile offsets"}};
      if (long_rows) std::swap(c[0], c[1]);
      if (runs_beat_packed(pd)) c.insert(c.begin(), {"permute_runs", kRunsReason});
      if (rows_beat_boxes(pd)) c.insert(c.begin(), {"permute_rows", kRowsReason});
      return c;
    }
  }
}

// The plan of the problem as the caller's element size gives it (plan_problem below may widen it).
status plan_problem_as_is(const problem& raw, const std::optional<matrix_view>& raw_matrix, const plan_options& opts,
                          const device_info& dev, plan_data* out, std::string* why) {
  plan_data pd;
  pd.where = opts.where;
  pd.device = dev;
  pd.prob = normalize(raw);
  pd.cls = classify(pd.prob);
  pd.cpu_threads = opts.cpu_threads;
  if (opts.tuning != cpu_tuning::kAuto && opts.tuning != cpu_tuning::kAmd && opts.tuning != cpu_tuning::kIntel)
    return fail(status::kInvalidOption, why,
                fmt::format("cpu tuning {}: expected kAuto, kAmd or kIntel", static_cast<int>(opts.tuning)));
  pd.tuning = cpu::resolve_tuning(opts.tuning);

  const bool is_auto = opts.variant == "auto" || opts.variant.empty();
  const variant_info* v = nullptr;
  if ((opts.block_x == 0) != (opts.block_y == 0))
    return fail(status::kInvalidBlock, why,
                fmt::format("block {}x{}: give both sides, or neither for the variant's default", opts.block_x,
                            opts.block_y));
  if (is_auto && (opts.block_x != 0 || opts.block_y != 0))
    return fail(status::kInvalidBlock, why, "auto chooses its own launch shape; name a variant to set a block");
  if (is_auto) {
    // Matrix view first: the 2-D candidates configure against it.
    if (pd.cls == problem_class::kTranspose2d || pd.cls == problem_class::kTransposeNd ||
        pd.cls == problem_class::kCopy) {
      pd.mat = as_matrix(pd.prob);
      pd.has_matrix = true;
    }
    pd.in_span_bytes = in_span(pd.prob) * pd.prob.elem_bytes;
    pd.out_span_bytes = out_span(pd.prob) * pd.prob.elem_bytes;
    const int natural = pd.where == backend::kGpu ? pd.prob.elem_bytes : 1;
    std::vector<plan_data> accepted;
    auto configured = [&](const candidate& c, plan_data* trial) {
      const variant_info* cv = find_variant(c.variant);
      if (!cv) return false;
      *trial = pd;
      trial->variant = cv;
      trial->reason = c.reason;
      trial->launch.block_x = cv->default_block_x;
      trial->launch.block_y = c.block_y > 0 ? c.block_y : cv->default_block_y;
      trial->align_bytes = natural;
      return cv->configure(*trial, nullptr) == status::kSuccess;
    };
    bool first = true;
    for (const auto& c : auto_candidates(pd)) {
      plan_data trial;
      if (!configured(c, &trial)) continue;
      // permute_box goes ahead of the kernel that would run first where it beat that kernel; it
      // runs on any element-aligned pointer, so it is then the whole plan.
      if (first) {
        first = false;
        plan_data box;
        if (!c.beat_box && box_beats(pd, c.variant) && configured({"permute_box", box_reason(pd)}, &box)) {
          plan_data runs;  // (permute_runs, too, runs on any element-aligned pointer)
          if (f32_runs_beat_box(pd) && configured({"permute_runs", kRunsOverBoxReason}, &runs))
            accepted.push_back(std::move(runs));
          else
            accepted.push_back(std::move(box));
          break;
        }
      }
      if (c.vector_pointers_only && trial.align_bytes < 16) trial.align_bytes = 16;
      accepted.push_back(std::move(trial));
      if (accepted.back().align_bytes <= natural) break;  // runs on any valid pointer: done
    }
    if (accepted.empty())
      return fail(status::kVariantNotApplicable, why,
                  fmt::format("no {} variant handles a {} problem yet ({})", backend_name(pd.where),
                              class_name(pd.cls), pd.prob.describe()));
    // Chain: each accepted plan falls back to the next one (the last runs on any pointer).
    for (std::size_t i = accepted.size() - 1; i > 0; --i)
      accepted[i - 1].fallback = std::make_shared<const plan_data>(accepted[i]);
    *out = std::move(accepted.front());
    return status::kSuccess;
  }
  v = find_variant(opts.variant);
  if (!v) return fail(status::kUnknownVariant, why, fmt::format("unknown variant '{}'", opts.variant));
  if (v->where != opts.where)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("{} is a {} variant but the plan is for the {}", v->name, backend_name(v->where),
                            backend_name(opts.where)));
  pd.reason = "named by the caller";
  pd.variant = v;

  const bool matrix_class = pd.cls == problem_class::kTranspose2d || pd.cls == problem_class::kTransposeNd ||
                            pd.cls == problem_class::kCopy;
  if (v->matrix_only || matrix_class) {
    if (v->matrix_only && raw_matrix) {
      pd.mat = *raw_matrix;  // a named 2-D kernel runs the descriptor as the caller wrote it
      pd.prob = raw;
      pd.has_matrix = true;
    } else if (matrix_class) {
      pd.mat = as_matrix(pd.prob);
      pd.has_matrix = true;
    } else {
      return fail(status::kVariantNotApplicable, why,
                  fmt::format("{} is a 2-D transpose kernel; this problem normalises to a {} permutation ({})",
                              v->name, class_name(pd.cls), pd.prob.describe()));
    }
  }

  pd.launch.block_x = opts.block_x > 0 ? opts.block_x : v->default_block_x;
  pd.launch.block_y = opts.block_y > 0 ? opts.block_y : v->default_block_y;
  if ((opts.block_x > 0 || opts.block_y > 0) && v->default_block_x == 0)
    return fail(status::kInvalidBlock, why, fmt::format("{} takes no block shape", v->name));
  if (opts.block_x < 0 || opts.block_y < 0)
    return fail(status::kInvalidBlock, why, fmt::format("block {}x{} is invalid", opts.block_x, opts.block_y));
  // GPU kernels load each element as one word of its own size, so they need at least its natural
  // alignment; a kernel with wider accesses raises it in configure.
  pd.align_bytes = pd.where == backend::kGpu ? pd.prob.elem_bytes : 1;
  pd.in_span_bytes = in_span(pd.prob) * pd.prob.elem_bytes;
  pd.out_span_bytes = out_span(pd.prob) * pd.prob.elem_bytes;
  if (status s = v->configure(pd, why); s != status::kSuccess) return s;
  *out = std::move(pd);
  return status::kSuccess;
}

}  // namespace

matrix_view raw_matrix(const transpose_desc& d) {
  matrix_view m;
  m.rows = d.rows;
  m.cols = d.cols;
  m.ld_in = d.ld_in.value_or(d.cols);
  m.ld_out = d.ld_out.value_or(d.rows);
  m.batch = d.batch;
  m.batch_rank = 1;
  m.bs_in = d.batch_stride_in ? *d.batch_stride_in : d.rows * m.ld_in;
  m.bs_out = d.batch_stride_out ? *d.batch_stride_out : d.cols * m.ld_out;
  return m;
}

// Row copies of bytes through permute_box moved as wider elements. Where `auto` picks permute_box for
// a row copy (the fastest dim stays fastest on both sides) of 1-byte elements whose fastest dim and
// every stride are whole W-byte words (gpu::rows_word_bytes, W = 2 to 16), the box is planned for
// the problem with W-byte elements (gpu::as_row_words, normalised again: a fastest dim of exactly W
// bytes drops out, so i8 [.., 2] becomes a permutation of halves). The box's gather, one shared load
// per element, then loads W times fewer per byte. The H200's 1-byte boxes are held by that work in
// the SM (docs/performance.md, eighty-first session, item 4: they run at the H100's GB/s, where the
// 2-byte ones gain 1.28x). The widened box needs both pointers aligned to W; with any other pointer
// execute falls back to the box of bytes.
// Eighty-second session, H100, auto of main and of the candidate (every element size widened) on the
// 53 suite plans of seeds 1-6 it moved (scripts/cases/widen_rows_82_cases.txt, two rounds, % of
// copy, results/widen-rows-ab-2026-12-07-h100.*): i8 19 plans,
// mean +2.8 (the suite's seed 1: [1516,23,10,12,8,4,2] 88.7 -> 92.4, [44,21,10,4,12,13,23,2] 86.1 ->
// 88.6, [132,10,23,16,23,8,3] 87.9 -> 89.3; out of sample up to +13.7, [1152,14,14,18,11,6] 78.7 ->
// 92.4; the largest loss -2.0, [17604,9,11,7,22]); f16 20 plans, mean +0.4, from -4.6 to +5.7 (the
// 2-byte boxes lose their bulk rows as 4- to 16-byte ones, kBoxBulkMaxElem, and most shrink: f16
// [1137438,59,2] 30208 -> 18880 B, 86.1 -> 81.5); f32 6 plans +0.3, f64 8 plans +0.4 (-2.0 to +3.9).
// Hence bytes only (kWidenBoxMaxElem).
// Only permute_box: permute_packed, permute_general and permute_rows widen row copies on their own,
// and planning the widened problem from scratch moved 8 other suite plans between kernels whose
// rules were measured on the narrower element (i8 [32,1024,1024,8] perm 0,2,1,3 from permute_packed
// to tma_tile, ...; unmeasured).
constexpr int kWidenBoxMaxElem = 1;
constexpr const char* kWidenedBoxReason = "row copy moved as {}-byte elements (its fastest dim and every stride are "
                                          "whole {}-byte words; pointers not so aligned take the {}-byte box): ";

status plan_problem(const problem& raw, const std::optional<matrix_view>& raw_matrix, const plan_options& opts,
                    const device_info& dev, plan_data* out, std::string* why) {
  if (status s = plan_problem_as_is(raw, raw_matrix, opts, dev, out, why); s != status::kSuccess) return s;
  const bool is_auto = opts.variant == "auto" || opts.variant.empty();
  const int s = out->prob.elem_bytes;
  if (!is_auto || out->where != backend::kGpu || out->cls != problem_class::kRowCopy || s > kWidenBoxMaxElem ||
      std::string_view(out->variant->name) != "permute_box")
    return status::kSuccess;
  const int w = gpu::rows_word_bytes(out->prob);
  if (w <= s) return status::kSuccess;
  plan_options box = opts;
  box.variant = "permute_box";
  plan_data wide;
  if (plan_problem_as_is(gpu::as_row_words(out->prob), std::nullopt, box, dev, &wide, nullptr) != status::kSuccess)
    return status::kSuccess;  // kept as given where the box does not plan the wider problem
  wide.align_bytes = std::max(wide.align_bytes, w);
  wide.reason = fmt::format(kWidenedBoxReason, w, w, s) + out->reason;
  wide.fallback = std::make_shared<const plan_data>(std::move(*out));
  *out = std::move(wide);
  return status::kSuccess;
}

std::string summarize(const plan_data& d) {
  const auto& l = d.launch;
  std::string shape = d.where == backend::kCpu
                          ? fmt::format("threads {}, {} tuning",
                                        d.cpu_threads > 0 ? fmt::format("{}", d.cpu_threads) : "all",
                                        d.tuning == cpu_tuning::kIntel ? "intel" : "amd")
                          : fmt::format("block {}x{} grid {}x{}x{}", l.block_x, l.block_y, l.grid_x, l.grid_y, l.grid_z);
  if (!d.launch_note.empty()) shape += ", " + d.launch_note;
  std::string what = d.has_matrix ? fmt::format("{} x {} x {} (ld {}/{})", d.mat.batch, d.mat.rows, d.mat.cols,
                                                d.mat.ld_in, d.mat.ld_out)
                                  : d.prob.describe();
  return fmt::format("{} on {} | {} {}, {}-byte elements | {} | {}", d.variant->name,
                     d.where == backend::kGpu ? "gpu" : "cpu", class_name(d.cls), what, d.prob.elem_bytes,
                     shape, d.reason);
}

namespace {

status device_for(const plan_options& opts, device_info* dev, std::string* why) {
  if (opts.where == backend::kCpu) return status::kSuccess;
#ifdef XPOSE_HAS_CUDA
  return gpu::query_device(dev, why);
#else
  (void)dev;
  return fail(status::kNoDevice, why, "xpose was built without CUDA; plan for backend::kCpu");
#endif
}

// What a plan keeps on its device (make_plan, once the plan is chosen): permute_box's tables
// (gpu/box_tables.cpp). The plans it falls back to keep none and build their own.
void attach_device_state(plan_data* pd) {
#ifdef XPOSE_HAS_CUDA
  if (pd->where == backend::kGpu) gpu::attach_box_tables(pd);
#else
  (void)pd;
#endif
}

}  // namespace
}  // namespace xpose::detail

namespace xpose {

plan::plan() = default;
plan::~plan() = default;
plan::plan(const plan&) = default;
plan& plan::operator=(const plan&) = default;
plan::plan(plan&&) noexcept = default;
plan& plan::operator=(plan&&) noexcept = default;

bool plan::valid() const noexcept { return data_ != nullptr; }
backend plan::where() const noexcept { return data_ ? data_->where : backend::kCpu; }

std::string plan::variant() const { return data_ ? data_->variant->name : "none"; }

std::string plan::summary() const { return data_ ? detail::summarize(*data_) : "invalid plan"; }

status make_plan(const transpose_desc& desc, const plan_options& opts, plan* out, std::string* why) {
  if (!out) return detail::fail(status::kNullPointer, why, "plan output pointer is null");
  if (status s = detail::validate(desc, why); s != status::kSuccess) return s;
  detail::device_info dev;
  if (status s = detail::device_for(opts, &dev, why); s != status::kSuccess) return s;
  auto pd = std::make_shared<detail::plan_data>();
  if (status s = detail::plan_problem(detail::to_problem(desc), detail::raw_matrix(desc), opts, dev, pd.get(), why);
      s != status::kSuccess)
    return s;
  detail::attach_device_state(pd.get());
  out->data_ = std::move(pd);
  return status::kSuccess;
}

status make_plan(const permute_desc& desc, const plan_options& opts, plan* out, std::string* why) {
  if (!out) return detail::fail(status::kNullPointer, why, "plan output pointer is null");
  if (status s = detail::validate(desc, why); s != status::kSuccess) return s;
  detail::device_info dev;
  if (status s = detail::device_for(opts, &dev, why); s != status::kSuccess) return s;
  auto pd = std::make_shared<detail::plan_data>();
  if (status s = detail::plan_problem(detail::to_problem(desc), std::nullopt, opts, dev, pd.get(), why);
      s != status::kSuccess)
    return s;
  detail::attach_device_state(pd.get());
  out->data_ = std::move(pd);
  return status::kSuccess;
}

const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& v : detail::all_variants()) n.emplace_back(v.name);
    return n;
  }();
  return names;
}

}  // namespace xpose
