// Host side of the box tile (see box_tile.hpp): the box for each pair of run targets, its score,
// the shared layout by the bank model.
#include "gpu/box_tile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "gpu/box_segments.hpp"
#include "model/bank_model.hpp"

namespace xpose::detail::gpu {

namespace {

// Run targets tried on each side, in bytes. Below 64 B a run wastes most of its sectors; above
// 1 KiB a box of two such runs outgrows the shared-memory budget.
constexpr std::array<int, 8> kTargets = {64, 128, 192, 256, 384, 512, 768, 1024};

std::int64_t side_stride(const problem& pr, int d, bool in_side) {
  return in_side ? pr.dims[d].in_stride : pr.dims[d].out_stride;
}

// The dims of a side in its order, fastest first, while each is contiguous with the last.
std::vector<int> contiguous_order(const problem& pr, bool in_side) {
  std::vector<int> order;
  std::int64_t next = 1;
  while (true) {
    int d = -1;
    for (int k = 0; k < pr.rank; ++k)
      if (side_stride(pr, k, in_side) == next && std::find(order.begin(), order.end(), k) == order.end()) d = k;
    if (d < 0) break;
    order.push_back(d);
    next *= pr.dims[d].extent;
  }
  return order;
}

// One side's walk for a run of about `target` elements: whole dims while they fit, then a balanced
// tile extent (ext split into equal pieces) of the first that does not; t only grows.
void walk(const problem& pr, const std::vector<int>& order, std::int64_t target, std::vector<int>& t) {
  std::int64_t len = 1;
  for (int d : order) {
    const std::int64_t e = pr.dims[d].extent;
    if (len * e <= target) {
      t[d] = static_cast<int>(e);
      len *= e;
      continue;
    }
    const std::int64_t want = std::max<std::int64_t>(1, (target + len - 1) / len);
    const std::int64_t pieces = (e + want - 1) / want, bal = (e + pieces - 1) / pieces;
    t[d] = std::max<int>(t[d], static_cast<int>(bal));
    return;
  }
}

// The gather's table has an entry per element of an output run; a box that is one contiguous piece
// on both sides (a batch of small matrices grown by `grow`) would need one as large as the box.
// Where that does not fit, the output run stops at a dim boundary within twice this many entries
// (32 KiB of table) or, where that does not fit either, this many (16 KiB); pieces that long keep the
// partial chunks at their ends (element stores) a small share. The first cap lets boxes of byte
// matrices of 4-8 KiB grow over several matrices, one run per matrix, where the second alone cut
// the run to a matrix row and `grow` kept one matrix a box (docs/performance.md "Thirty-first
// session").
constexpr std::int64_t kMaxGatherEntries = 4096;

// The run of a side: the box's dims in that side's order from its stride-1 dim, whole but for the
// last, and no dim after the first that takes it past max_len elements. Returns the number of run
// dims and fills order (all box dims, run dims first).
int run_of(const problem& pr, const std::vector<int>& t, bool in_side, std::vector<int>* order, int* run, int* unit,
           std::int64_t max_len) {
  order->clear();
  std::int64_t next = 1;
  *run = 1;
  *unit = 1;
  bool open = true;
  while (open) {
    int d = -1;
    for (int k = 0; k < pr.rank; ++k)
      if (t[k] > 1 && side_stride(pr, k, in_side) == next) d = k;
    if (d < 0 || (!order->empty() && std::int64_t{*run} * t[d] > max_len)) break;
    order->push_back(d);
    *unit = *run;
    *run *= t[d];
    next *= pr.dims[d].extent;
    open = t[d] == pr.dims[d].extent;
  }
  const int n = static_cast<int>(order->size());
  // The other box dims, by increasing stride on this side.
  std::vector<int> rest;
  for (int k = 0; k < pr.rank; ++k)
    if (t[k] > 1 && std::find(order->begin(), order->end(), k) == order->end()) rest.push_back(k);
  std::sort(rest.begin(), rest.end(),
            [&](int a, int b) { return side_stride(pr, a, in_side) < side_stride(pr, b, in_side); });
  order->insert(order->end(), rest.begin(), rest.end());
  return n;
}

// Whether every run of a side starts on a 32-byte sector (relative to the pointer).
bool sector_aligned(const problem& pr, const std::vector<int>& t, const std::vector<int>& order, int run_dims,
                    bool in_side) {
  const std::int64_t s = pr.elem_bytes;
  for (int k = 0; k < pr.rank; ++k) {
    const bool in_run = std::find(order.begin(), order.begin() + run_dims, k) != order.begin() + run_dims;
    if (!in_run && side_stride(pr, k, in_side) * s % 32 != 0) return false;
  }
  const int last = order[run_dims - 1];
  return t[last] * side_stride(pr, last, in_side) * s % 32 == 0;
}

int log2_of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// Fills the box fields of p from tile extents t (layout fields left for the caller): false when
// the box breaks a limit of the kernel.
// split_d0: end the output run before the input's fastest dim (d0) where it would include it, so
// the word gather can run (box_tile.hpp).
// budget: the shared-memory budget of the tile and its tables (kBoxMaxSmem, or box_plan's
// kRawWideBudget).
bool box_from(const problem& pr, const std::vector<int>& t, box_params* out, bool split_d0 = false,
              int budget = kBoxMaxSmem) {
  box_params p;
  const int s = pr.elem_bytes;
  p.rank = pr.rank;
  std::int64_t volume = 1, max_in = 0, max_out = 0;
  for (int k = 0; k < pr.rank; ++k) {
    p.ext[k] = static_cast<int>(pr.dims[k].extent);
    p.t[k] = t[k];
    p.in_stride[k] = pr.dims[k].in_stride;
    p.out_stride[k] = pr.dims[k].out_stride;
    p.ntiles[k] = (p.ext[k] + p.t[k] - 1) / p.t[k];
    p.ntiles_div[k] = fast_div(static_cast<std::uint32_t>(p.ntiles[k]));
    p.t_div[k] = fast_div(static_cast<std::uint32_t>(p.t[k]));
    p.tiles *= p.ntiles[k];
    volume *= t[k];
    max_in += (t[k] - 1) * p.in_stride[k];
    max_out += (t[k] - 1) * p.out_stride[k];
  }
  if (volume * s > budget || max_in >= (std::int64_t{1} << 31) || max_out >= (std::int64_t{1} << 31) ||
      p.tiles >= (std::int64_t{1} << 32))
    return false;
  p.volume = static_cast<int>(volume);
  std::vector<int> in_order, out_order;
  p.in_run_dims = run_of(pr, t, true, &in_order, &p.run_in, &p.in_unit, std::numeric_limits<std::int64_t>::max());
  // The output run: whole, or, where the tile and the tables would not fit the shared-memory
  // budget, cut short at a dim boundary within 2 * kMaxGatherEntries, else kMaxGatherEntries (the
  // box then holds several output pieces per contiguous output run).
  std::int64_t whole = std::numeric_limits<std::int64_t>::max();
  if (split_d0) {
    p.out_run_dims = run_of(pr, t, false, &out_order, &p.run_out, &p.out_unit, whole);
    const auto at = std::find(out_order.begin(), out_order.begin() + p.out_run_dims, in_order[0]);
    if (at == out_order.begin() || at == out_order.begin() + p.out_run_dims) return false;  // nothing to split
    whole = 1;
    for (auto it = out_order.begin(); it != at; ++it) whole *= t[*it];
  }
  for (const std::int64_t cap : {whole, std::min(whole, 2 * kMaxGatherEntries), std::min(whole, kMaxGatherEntries)}) {
    p.out_run_dims = run_of(pr, t, false, &out_order, &p.run_out, &p.out_unit, cap);
    const std::int64_t runs_in = volume / p.run_in, runs_out = volume / p.run_out;
    const std::int64_t tables = 4 * (2 * runs_in + 3 * runs_out + p.run_out + p.run_out * s / 16 + 1);
    if (volume * s + 16 * runs_in + 128 + tables <= budget) break;
  }
  if (p.in_run_dims == 0 || p.out_run_dims == 0) return false;
  p.n_box = static_cast<int>(in_order.size());
  if (static_cast<int>(out_order.size()) != p.n_box) return false;  // every box dim reaches both orders
  std::copy(in_order.begin(), in_order.end(), p.in_order);
  std::copy(out_order.begin(), out_order.end(), p.out_order);
  // Cut dims: those the tile extent does not divide; each must be the last dim of a run.
  const int in_last = in_order[p.in_run_dims - 1], out_last = out_order[p.out_run_dims - 1];
  for (int k = 0; k < pr.rank; ++k) {
    if (p.ext[k] % p.t[k] == 0) continue;
    if (k == in_last && p.cut_a == kPackedNoDim) p.cut_a = k;
    else if (k == out_last && p.cut_b == kPackedNoDim) p.cut_b = k;
    else return false;
  }
  auto lim_of = [&](int last) { return last == p.cut_a ? kBoxLimA : last == p.cut_b ? kBoxLimB : kBoxLimNone; };
  p.in_lim = lim_of(in_last);
  p.out_lim = lim_of(out_last);
  p.runs_in = p.volume / p.run_in;
  p.runs_out = p.volume / p.run_out;
  p.nc_in = (p.run_in * s + 15) / 16;
  p.nc_out = (p.run_out * s + 16 - s + 15) / 16;
  p.nc_in_div = fast_div(static_cast<std::uint32_t>(p.nc_in));
  p.nc_out_div = fast_div(static_cast<std::uint32_t>(p.nc_out));
  // Run starts: the tile origin's steps along every tiled dim and the run offsets along every box
  // dim outside the output run, all whole 16-byte steps.
  p.out_aligned = 1;
  for (int k = 0; k < pr.rank; ++k) {
    const bool in_run = std::find(out_order.begin(), out_order.begin() + p.out_run_dims, k) != out_order.begin() + p.out_run_dims;
    if (p.ntiles[k] > 1 && std::int64_t{p.t[k]} * p.out_stride[k] * s % 16 != 0) p.out_aligned = 0;
    if (p.t[k] > 1 && !in_run && p.out_stride[k] * s % 16 != 0) p.out_aligned = 0;
  }
  p.nc_out_aligned = (p.run_out * s + 15) / 16;
  p.nc_out_aligned_div = fast_div(static_cast<std::uint32_t>(p.nc_out_aligned));
  p.gtab_shift = log2_of(16 / s);
  p.gather_run = p.run_out;
  p.gtab_len = box_gtab_index(p, p.gather_run - 1) + 1;
  *out = p;
  return true;
}

// The word gather runs for elements up to this size (box_tile.hpp). For halves the element gather
// of raw rows beats it: H200, the f16 suite's seven word-gather boxes, three alternating rounds each,
// word gather -> element gather (raw rows where they fit): [8,8,8,8,8,8,16,32] reversal 75.6 ->
// 82.1% of copy, [806,7,6,9,22,10,2] 62.3 -> 66.4, [132,12,6,2,15,18,13,2] 56.1 -> 59.2,
// [14524,22,5,2,7,6] 51.5 -> 54.2, the other three +1.0 to +1.8; for bytes the word gather keeps its
// lead ([24,18,22,13,3,14,2,24] 65.8 against 50.9, [92,201,168,85] 43.4 against 40.5;
// results/box-words-f16-ab-2026-12-03.json, thirty-sixth session).
constexpr int kWordGatherMaxElem = 1;

// The gather's fields from the shared pitches: the output run's fastest dim and, where may_words
// and the layout allow it, the word gather's groups; `shifted` (raw rows) at any byte phase.
void gather_fields(box_params* p, int elem_bytes, bool may_words, bool shifted = false) {
  const int fast = p->out_order[0];
  p->out_fast_t = box_t(*p, fast);  // with owned ends and a 1-dim output run, the halo goes on along it
  p->out_fast_div = fast_div(static_cast<std::uint32_t>(p->out_fast_t));
  p->out_fast_pitch = p->spitch[fast];
  p->wide = p->out_fast_t >= 16 / elem_bytes;
  // The word gather (box_tile.hpp): d0 outside the output run, every other box dim's shared pitch
  // whole words, and the runs of a group equally aligned in the output.
  p->words = 0, p->words_shift = 0, p->wg_n = 1, p->wg_lo = 1, p->wg_cg = 1, p->wg_t0 = 1, p->groups = p->runs_out;
  const int d0 = p->in_order[0];
  int pos = p->n_box;  // d0's place in the output order
  for (int i = 0; i < p->n_box; ++i)
    if (p->out_order[i] == d0) pos = i;
  bool words = may_words && elem_bytes <= kWordGatherMaxElem && pos >= p->out_run_dims && pos < p->n_box &&
               p->out_stride[d0] * elem_bytes % 16 == 0;
  // Aligned: every dim but d0 in whole words. Shifted: the output run's dims only (box_tile.hpp).
  if (shifted)
    for (int i = 0; i < p->out_run_dims; ++i) words = words && p->spitch[p->out_order[i]] % 4 == 0;
  else
    for (int i = 1; i < p->n_box; ++i) words = words && p->spitch[p->in_order[i]] % 4 == 0;
  if (words) {
    p->words = 1;
    p->words_shift = shifted;
    p->wg_n = 4 / elem_bytes;
    for (int i = p->out_run_dims; i < pos; ++i) p->wg_lo *= p->t[p->out_order[i]];
    p->wg_t0 = p->t[d0];
    p->wg_cg = (p->wg_t0 + p->wg_n - 1) / p->wg_n;
    p->groups = p->runs_out / p->wg_t0 * p->wg_cg;
  }
  p->wg_lo_div = fast_div(static_cast<std::uint32_t>(p->wg_lo));
  p->wg_cg_div = fast_div(static_cast<std::uint32_t>(p->wg_cg));
}

// Fills the pitches and sizes for row pitch P and the swizzle; false over the budget.
bool layout(box_params* p, int elem_bytes, int row_bytes, int swizzle, int budget = kBoxMaxSmem) {
  p->row_bytes = row_bytes;
  p->swizzle = swizzle;
  p->raw = 0;
  p->vec_rows = row_bytes % 16 == 0 && swizzle != kBoxWords;
  std::fill(std::begin(p->spitch), std::end(p->spitch), 0);
  int pitch = elem_bytes;
  for (int i = 0; i < p->n_box; ++i) {
    const int d = p->in_order[i];
    if (i == p->in_run_dims) pitch = row_bytes;
    p->spitch[d] = pitch;
    pitch *= box_t(*p, d);
  }
  gather_fields(p, elem_bytes, true);
  // Rows end on a 16-byte chunk (the load phase writes whole chunks), the tile on a 128-byte line
  // (the swizzles stay inside lines).
  const int rows_bytes = (p->runs_in - 1) * row_bytes + p->nc_in * 16;
  p->tile_bytes = (rows_bytes + 127) / 128 * 128;
  p->smem_bytes = p->tile_bytes + 4 * box_tables_of(*p).end;
  return p->smem_bytes <= budget;
}

// Whether two raw rows whose linear starts lie `gap` bytes apart never share a 16-byte chunk, for a
// run of `run_bytes` at any tile shift: the earlier row's chunks end at ceil16(a + run_bytes), the
// later's begin at floor16(a + gap).
bool raw_gap(int gap, int run_bytes) {
  for (int a = 0; a < 16; ++a)
    if ((a + gap) / 16 * 16 < (a + run_bytes + 15) / 16 * 16) return false;
  return true;
}

// One block per tile (the hardware hands out blocks in launch order and a finished block's place
// goes to the next tile) where the box holds at least this many bytes per table entry that a block
// builds before its first tile (box_plan); else a persistent grid (the blocks resident at once, each
// looping over the tiles grid-stride, the tables built once per block). H200, one block per tile
// against the persistent grid on 66 suite boxes (one call, `scripts/cases/box_grid_cases.txt`;
// docs/performance.md, forty-third session), % of copy:
// - 1-, 2-, 8- and 16-byte elements: i8 [2768,19,10,3,10,17] 31.6 -> 47.6 (58 B per entry),
//   [776,12,21,3,8,19,3] 30.5 -> 41.6 (64), [548,108,82,55] 55.0 -> 65.8 (58); f16 [46,201,168,85]
//   31.9 -> 53.3 (88), [388,12,21,3,8,19,3] 46.0 -> 60.6; f64 [1393,15,13,13,19] 75.4 -> 84.7; c128
//   [543,20,11,11,17,3] 68.5 -> 82.3; means i8 +4.6, f16 +6.2, f64 +3.4, c128 +8.1 points over
//   17 / 14 / 11 / 11 boxes; 5 of these 53 down by 0.2-4.6 (f16 [22,13,14,4,18,20,23] 70.9 -> 66.3,
//   f64 [4,8,8,8,8,8,16,32] 86.4 -> 81.8).
// - 4-byte elements: mixed at 48 B per entry, mean -0.9 over 13 boxes (f32 [6,15,17,4,9,6,13,14]
//   78.1 -> 70.6, [7262,22,5,2,7,6] 59.7 -> 67.2); they kept the persistent grid until the
//   seventy-second session (below).
// - Below the threshold then (48): i8 [1851276,29,5] 58.4 -> 55.3 (28 B per entry),
//   [1472,6,22,6,10,23] 43.9 -> 6.7 (1 B per entry: an 8280-entry table for an 8280-byte box).
// The seventy-first session measured the bound again (H100, alternating rounds by name, each
// build's plans against the next lower bound's; docs/performance.md; results/oneshot-*-2026-12-06-
// h100.json): every suite box (seeds 1-3) that moves to one block per tile at 40-48 B per entry
// gained but one (10 of 11: i8 [23196,29,57,7] 73.8 -> 84.3, f16 [758,23,10,12,8,4,2] 83.3 ->
// 93.9, c128 [112410,199,3] 92.3 -> 99.6, from permute_packed), at 32-40 (17 of 17, one by 0.4:
// i8 [36,11,7,5,23,12,11,6] 69.0 -> 83.8, [44,13,14,4,18,20,23] 69.8 -> 80.9), at 16-32 (14 of
// 14: i8 [1851276,29,5] itself 79.4 -> 87.1, f16 [2,24,19,23,24,25,16,5] 77.8 -> 97.4); at 8-16
// four of seven gained, one held and two lost 4.5 and 6.1 (i8 [3268,8,6,18,19,5] 84.3 -> 78.2);
// below 8 all six lost 12-48 (i8 [3480,3,17,21,18,4] 78.9 -> 31.0). So 16.
// The seventy-second session gave 4-byte elements the same bound (they had kept the persistent
// grid at any size): the f32 suite of both builds in one H100 call (results/suite-f32-2026-12-06-
// h100-{b1a1cd0,f32os}.json), the 21 of 61 plans that move gained 7.0 points on average, 20 of 21
// ([3623,7,2,21,21,3] 70.3 -> 86.4, [13,9,25,8,13,9,4,6] 69.3 -> 82.9, [6,15,17,4,9,6,13,14] 87.6
// -> 93.5), one lost 2.9 ([22,12,5,21,6,20,20] 85.3 -> 82.5); the 40 that do not move -1.2 to +0.7.
constexpr std::int64_t kBoxOneShotBytesPerEntry = 16;
// 16-byte elements from 8 B per entry: the same session, every suite box of seeds 1-10 that moves
// between 16 and 8 (scripts/plan_diff.sh; H100, two or three alternating rounds by name,
// results/oneshot-b8{,more}-ab-2026-12-06-h100.{json,log}): c128 11 of 11 gained 5.2-14.6
// ([56775,197,6] 84.6 -> 99.2, [9078,7,22,24,2] 90.2 -> 100.1; seven of them from permute_packed),
// where 2- to 8-byte elements were mixed (f16 9 of 12 gained, one held, two lost 13:
// [1978,17,3,7,19,2,5] 87.2 -> 74.1; f32 two of three, [121,20,3,23,19,3,7] 67.9 -> 60.3; f64 two
// of four, [1027,191,171,2] 41.8 -> 35.1). Not for single matrices (a normalised rank of 2): the
// narrow c128 transposes that 8 would move (2 x 10^7, 3 x 10000001: permute_packed -> permute_box)
// have not been measured.
constexpr std::int64_t kBoxOneShotBytesPerEntryWide = 8;
// 2- to 8-byte elements take the same 8 where the box has raw rows, the wide gather (two table
// loads per chunk), at least kBoxOneShotRawWideMinBytes and runs over at most
// kBoxOneShotRawWideMaxRunDims box dims on either side. Read from the seventy-second session's
// plans (seeds 1-10: of the 18 such boxes that moved, the four that lost 6.7-13.1 were a per-element
// gather, two rows by pitch and a 2 KiB box) and measured out of sample in the seventy-fourth
// (H100, the 36 boxes of seeds 11-24 that raw + wide + 8 KiB moves,
// scripts/cases/box_oneshot_b8_oos_72_cases.txt, two rounds,
// results/box-b8-rawwide-oos-ab-2026-12-06-h100.{json,log}): 27 gained, 7 lost, mean +3.7. The
// 13 whose runs span at most two dims both ways all gained, 4.0-11.7 (f16 [3152,14,19,5,8,4]
// 70.9 -> 82.6, f64 [7239,45,103,2] 84.8 -> 90.5), as did the four such of seeds 1-10 (0.7-7.5;
// these 17 are every suite plan of seeds 1-24 that the rule moves); the 23 with a run over three
// or more dims were mixed, 14 up, 7 down (f16 [8778,7,13,14,2,6] 90.7 -> 75.6, f32
// [1,24,21,11,20,9,13,3] 74.5 -> 63.1), so they keep 16.
constexpr std::int64_t kBoxOneShotRawWideMinBytes = 8192;
constexpr int kBoxOneShotRawWideMaxRunDims = 2;
// The word gather on rows laid out by pitch (not raw) keeps the earlier 48: at 40 the one such
// suite box that moved, i8 [24,18,22,13,3,14,2,24] (42 B per entry), ran 77.2 -> 70.8% of copy on
// one block per tile (the one of the 40-48 group above that lost; H100, seventy-first session).
constexpr std::int64_t kBoxOneShotWordsBytesPerEntry = 48;

// Elements up to this size may take raw rows (box_tile.hpp). 16-byte elements' rows are aligned
// chunks already wherever the pointer is.
constexpr int kBoxRawMaxElem = 8;

// kBoxBulkMaxElem (box_tile.hpp): which raw rows may come in by bulk copies, and what measured it.
// bulk_alternative: layout p's raw rows could be bulk rows (under no swizzle); bulk_rows: they are
// (unswizzled, each run's aligned chunks one piece of shared memory).
bool bulk_alternative(const box_params& p, int elem_bytes) { return p.raw && elem_bytes <= kBoxBulkMaxElem; }
bool bulk_rows(const box_params& p, int elem_bytes) { return bulk_alternative(p, elem_bytes) && p.swizzle == kBoxPlain; }
// What the bank model (box_wavefronts) counts for a raw row's cp.async chunk, as a multiple of an
// ideal 16-byte store, where the layout could take bulk rows instead (no swizzle): Nsight Compute
// put the cp.async stores of i8 [24,7,19,17,3,14,21,5] at 5.7 M shared wavefronts against 1.9 M for
// conflict-free 16-byte stores (H200, 2026-12-04, docs/performance.md, forty-eighth session). With
// bulk rows counted as none and these at 1, raw byte and half boxes kept the granule swizzle where
// plain rows with bulk copies ran faster. H200, 2026-12-04, the 26 suite boxes whose plan moves when
// raw bytes and halves are forced to plain rows, two alternating rounds, % of copy
// (results/box-bulk-plain-ab-2026-12-04.json): plain with bulk rows gained up to 10.5 points on 17
// ([3268,8,6,18,19,5] i8 64.9 -> 74.0, [1242,25,18,6,10,4] f16 71.0 -> 81.4) and lost up to 30.7 on
// 9 (f16 [14524,22,5,2,7,6] 60.6 -> 29.9: 192 short rows whose column walks conflict unswizzled).
// Weighed 1, the model moved 6 of them to plain, all winners. Weighed 3, it moves 18 suite boxes,
// 15 to plain rows; against the model before (bulk rows counted as the threads' stores), two
// alternating rounds (results/box-bulk-model-ab-2026-12-04.json): 11 up by 1.8 to 9.8 points, 6
// level, i8 [36,12,16,22,10,23,7] 56.9 -> 53.4; mean +4.1.
constexpr int kRawAsyncWeight = 3;

// The raw layout (box_tile.hpp "Raw rows") of a box the element gather runs: row dims in input
// order, each at the least pitch congruent to its input stride mod 16 that keeps every row `extra`
// chunks clear of the rows before it; false over the budget.
bool layout_raw(box_params* p, int elem_bytes, int extra, int swizzle, int budget = kBoxMaxSmem) {
  const int s = elem_bytes;
  p->raw = 1;
  p->swizzle = swizzle;  // plain or granules: the load copies whole 16-byte chunks
  p->vec_rows = 1;
  std::fill(std::begin(p->spitch), std::end(p->spitch), 0);
  const int run_bytes = p->run_in * s;
  int pitch = s, last = 0;  // last: the linear start of the last row placed so far
  for (int i = 0; i < p->n_box; ++i) {
    const int d = p->in_order[i];
    if (i < p->in_run_dims) {  // contiguous in the input: the input's own pitch
      p->spitch[d] = pitch;
      pitch *= p->t[d];
      continue;
    }
    const int want = static_cast<int>(p->in_stride[d] * s % 16);
    int q = last + run_bytes;
    q += ((want - q) % 16 + 16) % 16;
    while (!raw_gap(q - last, run_bytes)) q += 16;
    if (i == p->in_run_dims) q += 16 * extra;
    p->spitch[d] = q;
    last += (box_t(*p, d) - 1) * q;
  }
  p->nc_in = (run_bytes + 15 + 15) / 16;
  p->nc_in_div = fast_div(static_cast<std::uint32_t>(p->nc_in));
  p->row_bytes = p->runs_in > 1 ? p->spitch[p->in_order[p->in_run_dims]] : p->nc_in * 16;
  // The word gather at any byte phase where the layout allows it (box_tile.hpp "Shifted"). H200,
  // the i8 suite's five boxes it takes, four alternating rounds against the element gather of raw
  // rows (docs/performance.md, forty-second session), % of copy: [2768,19,10,3,10,17] 28.8 -> 31.3,
  // [36,12,16,22,10,23,7] 54.9 -> 57.7, [1612,7,6,9,22,10,2] 52.8 -> 54.0, [776,12,21,3,8,19,3] and
  // [29048,22,5,2,7,6] level. Realigned rows take it only at phase 0: allowing them any phase moved
  // seven boxes' plans, two up ([2768,...] 37.7, [776,...] 34.3) and five down by 2-17 points.
  gather_fields(p, s, true, true);
  // The last row's chunks end at most 15 + 16 nc_in bytes past its linear start.
  p->tile_bytes = (last + 15 + 16 * p->nc_in + 127) / 128 * 128;
  p->smem_bytes = p->tile_bytes + 4 * box_tables_of(*p).end;
  return p->smem_bytes <= budget;
}

// Where the load phase stores chunk 0 of row r of a tile at shift 0 (linear).
int row_start(const box_params& p, int r) { return p.raw ? box_run_of(p, true, r).base / 16 * 16 : r * p.row_bytes; }

// Boxes of at least this many bytes where the tensor allows: when both runs are whole dims (a
// batch of small matrices, rows of a few hundred bytes) the walks alone stop at a box of one
// matrix or row, and per-tile costs (origin, two barriers, a partial warp) dominate: the suite's
// [243148,184,6] perm 0,2,1 i8 ran a 1104-byte box at 15% of copy (H200, 2026-11-30).
constexpr int kMinBoxBytes = 16 * 1024;
// A box that comes out under kSmallBoxBytes is planned again with kMinBoxBytes doubled, and takes
// the larger box where it is at least kSmallBoxGrowth times as large, keeps the shared layout
// (swizzle) and its elements are at most 8 bytes. H200, the five suites, every box that doubling
// kMinBoxBytes changed (47), one round each (results/box-min32-ab-2026-12-02.json, thirty-first
// session): doubling everywhere gave 27 up and 15 down (+21 to -17 points), the losers boxes of 24
// KiB and more, boxes whose swizzle changed, and 16-byte elements; the 15 this rule takes gave
// +0.7 to +9.9 but one (-3.8, i8 [514244,174,3] perm 0,2,1), +64.6 points in all. Confirmed in a
// second run, two alternating rounds (results/box-small-rule-ab-2026-12-02.json): 14 up by 0.8 to
// 9.9 points (f16 [12,15,17,4,9,6,13,14] 66.5 -> 76.5, f16 [22,21,10,4,12,13,23,2] 56.8 -> 65.2, f32
// [128561,174,3] 63.8 -> 71.7, i8 [24,15,17,4,9,6,13,14] 48.8 -> 55.2), i8 [514244,174,3] 43.7 ->
// 40.6 (docs/performance.md "Thirty-second session").
constexpr int kSmallBoxBytes = 24 * 1024;
constexpr double kSmallBoxGrowth = 1.5;
// Raw boxes of 4- to 8-byte elements over kRawWideBudget bytes are planned again within that budget
// (tile and tables), and take that box where its rows are raw too: boxes of 22-38 KiB become boxes
// of 13-18.5 KiB. H200, fortieth session (docs/performance.md "Fortieth session"): a temporary switch
// planned every box within 20, 24 or 28 KiB; on the f64 suite's raw boxes and six of f32's 20 KiB
// gained most (+2.6 points on average, 24 and 28 KiB +0.6 and +0.5), and the rule's 24 changed suite
// plans against main's, two or three rounds each, % of copy (results/box-pipe-budget-ab-2026-12-03-1,
// box-budget-ab-2026-12-03, box-budget-confirm-2026-12-03-{1,2}): 15 up, e.g. f64 [462819,29,5] perm
// 1,0,2 63.4 -> 76.7, [22974,127,23] perm 1,0,2 73.3 -> 79.5, f32 [462819,29,5] 68.2 -> 78.2,
// [298,14,9,17,15,7] perm 1,4,3,0,2,5 66.8 -> 76.0, [1393,15,13,13,19] perm 3,0,1,2,4 74.4 -> 78.8;
// four level; five down, f32 [180400,124,3,1] perm 1,0,2,3 78.2 -> 72.8 the most (f64 80.8 -> 79.6),
// f64 [683,11,25,21,17] 82.4 -> 80.2; +2.3 points on average. Boxes already under the budget keep
// theirs: f64 [22,12,5,21,6,20,20] (19200 B) fell from 84.8 to 77.7 when cut to 9600 B. Bytes and
// halves keep theirs: f16 [1384,19,10,3,10,17] fell from 49.4 to 33.0 within 20 KiB. Why the smaller
// boxes run faster is not known: its registers (45 a thread) hold permute_box at five blocks an SM
// either way.
constexpr int kRawWideBudget = 20 * 1024;
constexpr int kRawWideMinElem = 4;

// Grows a box below `target` bytes (kMinBoxBytes, or twice that) along further dims, fastest in the
// input first: each by the factor the volume lacks (balanced pieces), or whole, whichever the
// kernel accepts (a partial dim must end a run).
void grow(const problem& pr, std::vector<int>* t, box_params* p, bool split_d0, int target, int budget) {
  const int s = pr.elem_bytes;
  std::vector<int> dims(pr.rank);
  for (int k = 0; k < pr.rank; ++k) dims[k] = k;
  std::sort(dims.begin(), dims.end(), [&](int a, int b) { return pr.dims[a].in_stride < pr.dims[b].in_stride; });
  while (static_cast<std::int64_t>(p->volume) * s < target) {
    bool grown = false;
    // A pass with the factor the volume lacks; where no dim takes it and the box is at least a
    // quarter of the target, one with smaller factors down to 2: a batch of 7055-byte byte
    // matrices grows to pairs where triples do not fit the budget (i8 [38000,83,85] perm 0,2,1
    // 46.1 -> 50.5% of copy, H200, docs/performance.md "Thirty-first session"). From smaller boxes
    // it also took i8 [514244,174,3] perm 0,2,1 from 32 matrices of 522 B a box to 16, 43.8 -> 43.1.
    for (const bool smaller : {false, true}) {
      if (smaller && std::int64_t{p->volume} * s < target / 4) break;
      for (int d : dims) {
        const std::int64_t e = pr.dims[d].extent, cur = (*t)[d];
        if (cur >= e) continue;
        const std::int64_t factor = (target + std::int64_t{p->volume} * s - 1) / (std::int64_t{p->volume} * s);
        const std::int64_t want = std::min(e, cur * factor), pieces = (e + want - 1) / want;
        std::vector<std::int64_t> nexts{(e + pieces - 1) / pieces, e};
        if (smaller) {
          nexts.clear();
          for (std::int64_t f = factor - 1; f >= 2; --f) nexts.push_back(std::min(e, cur * f));
        }
        for (std::int64_t next : nexts) {
          if (next <= cur) continue;
          std::vector<int> u = *t;
          u[d] = static_cast<int>(next);
          box_params q;
          if (!box_from(pr, u, &q, split_d0, budget) || !layout(&q, s, q.nc_in * 16, kBoxPlain, budget)) continue;
          // Not at the cost of the runs (a bigger box whose output run's table no longer fits cuts
          // the run at a dim boundary: [788,61,107,52] perm 0,1,3,2 i8 went from one 5564-byte run
          // to runs of 107 B, 28.2 -> 19.6% of copy, H200 2026-11-30).
          if (std::min(q.run_in, q.run_out) < std::min({p->run_in, p->run_out, 1024 / s})) continue;
          *t = u, *p = q, grown = true;
          break;
        }
        if (grown) break;
      }
      if (grown) break;
    }
    if (!grown) return;
  }
}

// Estimated efficiency (0 to 1), as runs_tile's: DRAM sectors of each side's runs, the share of
// launched tiles' elements inside the tensor, and a per-tile cost (origin, two barriers, the tables'
// edge chunks) spread over the tile; the 16-byte chunks of each output run at its ends cost element
// stores.
double score(const problem& pr, const box_params& p) {
  const double s = pr.elem_bytes;
  std::vector<int> t(p.t, p.t + pr.rank), in_order(p.in_order, p.in_order + p.n_box),
      out_order(p.out_order, p.out_order + p.n_box);
  auto sectors = [&](double bytes, bool aligned) {
    return aligned ? bytes / (std::ceil(bytes / 32) * 32) : bytes / (bytes + 32 - s);
  };
  double fill = 1;
  for (int k = 0; k < pr.rank; ++k) {
    const double e = p.ext[k], tk = p.t[k];
    fill *= e / (std::ceil(e / tk) * tk);
  }
  const double bi = p.run_in * s, bo = p.run_out * s;
  const double vol = p.volume * s;
  const double per_tile = vol / (vol + 1024 + 16.0 * (p.runs_in + p.runs_out));
  const double ends = bo / (bo + 8);
  return sectors(bi, sector_aligned(pr, t, in_order, p.in_run_dims, true)) *
         sectors(bo, sector_aligned(pr, t, out_order, p.out_run_dims, false)) * fill * per_tile * ends;
}

// The score of a box the word gather runs, relative to one it does not: an estimate from the
// instruction counts, not yet a measurement. Nsight Compute put the kernel at 16 instructions per
// byte for i8, half of them the element gather (H200, 2026-11-30); the word gather's V word loads,
// permutes and G stores for G chunks come to about 2 per byte, so a byte box would run about 1.6
// times as fast where issue-bound, a half box less.
constexpr double kWordGatherGain = 1.2;

}  // namespace

std::int64_t box_wavefronts(const box_params& p, int elem_bytes) {
  // At most kSample warps of each phase (the planner scores many layouts per plan): the first ones
  // of the tile, whose patterns repeat through it.
  constexpr int kSample = 8;
  std::int64_t total = 0;
  std::array<model::lane_access, model::kWarpSize> lanes;
  auto fill = [&](int l, bool active, std::int64_t byte, int width) {
    model::lane_access& a = lanes[l];
    a = {};
    a.lane = l;
    a.active = active;
    if (active) model::place(a, byte, width);
  };
  // Load phase: lane u stores chunk k of row r at P * r + 16 k, as one 16-byte store or four words.
  // Bulk rows (kBoxBulkMaxElem) come in through the copy engine, not the threads' stores; where
  // the alternative is bulk rows, raw rows' cp.async stores weigh kRawAsyncWeight.
  const int load_weight = bulk_alternative(p, elem_bytes) ? kRawAsyncWeight : 1;
  const int load_items = bulk_rows(p, elem_bytes) ? 0 : p.runs_in * p.nc_in;
  for (int w0 = 0; w0 < load_items && w0 < kSample * model::kWarpSize; w0 += model::kWarpSize)
    for (int q = 0; q < (p.vec_rows ? 1 : 4); ++q) {
      for (int l = 0; l < model::kWarpSize; ++l) {
        const int u = w0 + l, r = u / p.nc_in, k = u - r * p.nc_in;
        fill(l, u < load_items, u < load_items ? box_phys(p, row_start(p, r) + 16 * k + 4 * q) : 0, p.vec_rows ? 16 : 4);
      }
      total += load_weight * model::count_wavefronts_total(model::smem_op::kStore, p.vec_rows ? 16 : 4, lanes);
    }
  // Store phase: lane u gathers output chunk j of run o, its V elements one load each, after the
  // table loads (one word per two elements, or two per chunk when wide); with the word gather,
  // chunk j of group g's runs, V words. The output runs' misalignments are those of tile 0 for a 16-byte
  // aligned output.
  const int s = elem_bytes, V = 16 / s, width = p.words ? 4 : s;
  const box_chunks nc = box_out_chunks(p, 0);
  const int store_items = p.groups * nc.n;
  const box_tables tb = box_tables_of(p);
  auto gtab_byte = [&](int j) { return p.tile_bytes + 4 * (tb.gtab + box_gtab_index(p, j)); };
  for (int w0 = 0; w0 < store_items && w0 < kSample * model::kWarpSize; w0 += model::kWarpSize) {
    std::array<int, model::kWarpSize> run{}, b0{}, base{};
    for (int l = 0; l < model::kWarpSize; ++l) {
      const int u = w0 + l;
      run[l] = -1;
      if (u >= store_items) continue;
      const int item = u / nc.n, j = u - item * nc.n;
      const int o = p.words ? box_group_of(p, item).run0 : item;
      const box_run br = box_run_of(p, false, o);
      run[l] = o;
      base[l] = br.base;
      b0[l] = (16 * j - static_cast<int>((br.off * s) & 15)) / s;
    }
    auto elem_ok = [&](int l, int i) { return run[l] >= 0 && b0[l] + i >= 0 && b0[l] + i < p.run_out; };
    if (p.wide) {  // the tables at b0 and past the wrap
      for (int l = 0; l < model::kWarpSize; ++l) fill(l, elem_ok(l, 0), elem_ok(l, 0) ? gtab_byte(b0[l]) : 0, 4);
      total += model::count_wavefronts_total(model::smem_op::kLoad, 4, lanes);
      for (int l = 0; l < model::kWarpSize; ++l) {
        const bool ok = elem_ok(l, 0);
        const int w = ok ? p.out_fast_t - b0[l] % p.out_fast_t : V;
        fill(l, ok && w < V && b0[l] + w < p.run_out, ok && w < V && b0[l] + w < p.run_out ? gtab_byte(b0[l] + w) : 0, 4);
      }
      total += model::count_wavefronts_total(model::smem_op::kLoad, 4, lanes);
    }
    for (int i = 0; i < V; ++i) {
      if (!p.wide && i % 2 == 0) {  // a table word per two elements (box_gtab_word)
        for (int l = 0; l < model::kWarpSize; ++l) fill(l, elem_ok(l, i), elem_ok(l, i) ? gtab_byte(b0[l] + i) : 0, 4);
        total += model::count_wavefronts_total(model::smem_op::kLoad, 4, lanes);
      }
      if (p.words_shift) {  // two aligned words, the second where the group's bytes cross into it
        for (int half = 0; half < 2; ++half) {
          for (int l = 0; l < model::kWarpSize; ++l) {
            const int lin = elem_ok(l, i) ? base[l] + box_gtab_of(p, b0[l] + i) : 0;
            const bool ok = elem_ok(l, i) && (half == 0 || lin % 4 != 0);
            fill(l, ok, ok ? box_phys(p, lin / 4 * 4 + 4 * half) : 0, 4);
          }
          total += model::count_wavefronts_total(model::smem_op::kLoad, 4, lanes);
        }
        continue;
      }
      for (int l = 0; l < model::kWarpSize; ++l) {
        const bool ok = elem_ok(l, i);
        fill(l, ok, ok ? box_phys(p, base[l] + box_gtab_of(p, b0[l] + i)) : 0, width);
      }
      total += model::count_wavefronts_total(model::smem_op::kLoad, width, lanes);
    }
  }
  return total;
}

// The layout of `base` with the fewest shared-memory wavefronts (box_wavefronts; the first of equals,
// so the smaller tile): lay(q, k, swizzle) lays q out for step k = 0 .. steps - 1 under each swizzle,
// false when that step and all later ones do not fit. False if none fits.
template <class Lay>
bool fewest_wavefronts(const box_params& base, int elem_bytes, int steps, box_params* out, Lay lay) {
  std::int64_t fewest = -1;
  for (int swz : {kBoxPlain, kBoxGranules, kBoxWords})
    for (int k = 0; k < steps; ++k) {
      box_params q = base;
      if (!lay(&q, k, swz)) break;
      const std::int64_t w = box_wavefronts(q, elem_bytes);
      if (fewest < 0 || w < fewest) fewest = w, *out = q;
    }
  return fewest >= 0;
}

// The layout of box p with the fewest wavefronts: row pitches from the run's bytes up by 0..15
// steps of max(4, s) bytes, each plain and with every swizzle the element allows; then the smaller
// tile. False if none fits the budget.
bool row_layout(const box_params& p, int elem_bytes, int budget, box_params* out) {
  const int s = elem_bytes, step = std::max(4, s);
  const int min_row = (p.run_in * s + step - 1) / step * step;
  return fewest_wavefronts(p, s, 16, out, [&](box_params* q, int k, int swz) {
    return (swz != kBoxWords || s <= 4) && layout(q, s, min_row + step * k, swz, budget);
  });
}

// The best-scoring box whose growth aims at `target` bytes (grow), in its layout of fewest
// wavefronts; false if none fits the shared-memory budget.
bool pick_box(const problem& pr, int target, int budget, box_params* chosen) {
  const int s = pr.elem_bytes;
  const std::vector<int> in_order = contiguous_order(pr, true), out_order = contiguous_order(pr, false);

  box_params best;
  double best_score = -1;
  // Input run targets: kTargets, and (0) the input's fastest dim alone where it is shorter than
  // them, which the word gather may need (its other box dims must have whole-word pitches).
  std::vector<int> in_targets(kTargets.begin(), kTargets.end());
  if (!in_order.empty() && pr.dims[in_order[0]].extent * s < kTargets[0]) in_targets.push_back(0);
  for (int ri : in_targets)
    for (int ro : kTargets) {
      std::vector<int> t(pr.rank, 1);
      if (ri == 0) t[in_order[0]] = static_cast<int>(pr.dims[in_order[0]].extent);
      else walk(pr, in_order, std::max(1, ri / s), t);
      walk(pr, out_order, std::max(1, ro / s), t);
      for (const bool split : {false, true}) {
        if (split && s > 2) continue;
        std::vector<int> u = t;
        box_params p;
        if (!box_from(pr, u, &p, split, budget)) continue;
        grow(pr, &u, &p, split, target, budget);
        if (!layout(&p, s, p.nc_in * 16, kBoxPlain, budget)) continue;
        const double sc = score(pr, p) * (p.words ? kWordGatherGain : 1.0);
        if (sc > best_score + 1e-9) best_score = sc, best = p;
      }
    }
  if (best_score < 0) return false;
  return row_layout(best, s, budget, chosen);
}

// The raw layout with the fewest wavefronts for box p (0..7 chunks of extra room for the rows,
// plain or granules swizzled; then the smaller tile); false if none fits the budget.
bool raw_layout(const box_params& p, int elem_bytes, int budget, box_params* out) {
  return fewest_wavefronts(p, elem_bytes, 8, out, [&](box_params* q, int extra, int swz) {
    return swz != kBoxWords && layout_raw(q, elem_bytes, extra, swz, budget);
  });
}

// A box the element gather runs whose raw layout does not fit: raw rows take up to 30 bytes more
// per input row and a table of row starts, and a box of many short rows overflows the budget. The
// largest box with fewer rows, one dim outside the input run cut to 15/16 .. 1/2 of its extent in
// the box (in balanced pieces), the runs and the output's alignment kept, whose raw layout fits;
// false if there is none. H200, the five suite boxes it changed, three alternating rounds each
// (results/box-shrink-raw-ab-2026-12-03.json, thirty-sixth session), % of copy: i8
// [24,7,19,17,3,14,21,5] 38.1 -> 45.2, [29048,22,5,2,7,6] 34.9 -> 41.6, [2172,20,11,11,17,3] 35.3 ->
// 38.4, f16 [1384,19,10,3,10,17] 46.0 -> 48.1; one lost, i8 [372,25,19,14,18,6] 52.9 -> 49.1 (its
// output runs 600 -> 450 B).
bool shrink_for_raw(const problem& pr, const box_params& p, int budget, box_params* out) {
  const int s = pr.elem_bytes;
  int best = 0;
  for (int i = p.in_run_dims; i < p.n_box; ++i) {
    const int d = p.in_order[i];
    for (int k = 15; k >= 8; --k) {
      std::vector<int> u(p.t, p.t + pr.rank);
      const int want = std::max(1, p.t[d] * k / 16), pieces = (p.ext[d] + want - 1) / want;
      u[d] = (p.ext[d] + pieces - 1) / pieces;
      box_params q, r;
      if (u[d] >= p.t[d] || !box_from(pr, u, &q, false, budget) || q.volume <= best || q.in_run_dims != p.in_run_dims ||
          q.out_run_dims != p.out_run_dims || q.out_aligned < p.out_aligned ||
          !layout(&q, s, q.nc_in * 16, kBoxPlain, budget) || q.words || !raw_layout(q, s, budget, &r))
        continue;
      best = q.volume, *out = r;
    }
  }
  return best > 0;
}

// Owned output ends (box_tile.hpp): planned where tiles step along the output run's last dim d,
// elements are under 16 bytes, d is outside the input run, the converged store runs (runs of whole
// aligned chunks have no pieces), the halo adds at most a quarter to the box's input rows
// (kBoxHaloMaxShare) and the load box, laid out again by the bank model, fits the budget. A switch,
// so that one build can be measured with and without them.
// H100, 2026-12-06, the 35 suite plans (seed 1) whose box took a halo with no bound on it, auto
// against main, one or two rounds (docs/performance.md, sixty-ninth session; results/own-ends-ab-
// 2026-12-06-h100.json): i8 [776,12,21,3,8,19,3] 45.9 -> 65.1 (147-byte output runs, rows +14%),
// [2768,19,10,3,10,17] 50.0 -> 66.6 (+8%), [52,9,25,8,13,9,4,6] 72.7 -> 83.0 (+20%), eight more
// i8 / f16 boxes +5 to +9; the boxes whose rows grew by a third or more all lost: f64
// [23,201,168,85] 82.4 -> 73.7 (+50%), f32 [13,9,25,8,13,9,4,6] and f64 [10168,5,24,11,5] -2.8
// and -2.6, f64 [194,12,21,3,8,19,3] -1.0 (+33% each), so the bound sits between a quarter (f32
// [11,21,10,4,12,13,23,2] +4.2, [298,14,9,17,15,7] -1.3) and a third.
constexpr bool kBoxOwnEnds = true;
constexpr int kBoxHaloMaxShare = 4;  // halo slices * kBoxHaloMaxShare <= the tile's slices of d
// Where the halo does not fit beside the box, box_plan plans the box again within up to this many
// KiB less (1 KiB steps), taken where it keeps 80% of the volume, 90% of the shorter run, one block
// per tile and at most a quarter more shared wavefronts (box_wavefronts). The suite's slowest i8 /
// f16 boxes without a halo were 2-5 KiB over. H100, 2026-12-06, three alternating rounds by name
// against main (docs/performance.md, seventieth session; results/halo-guard-ab-2026-12-06-h100.json),
// % of copy: i8 [2172,20,11,11,17,3] 54.5 -> 69.1 (34272 -> 27693 B), f16 [1384,19,10,3,10,17]
// 64.0 -> 73.4, [42,25,14,19,19,25] 69.4 -> 78.6, [388,12,21,3,8,19,3] 64.7 -> 75.6 (6 slices and
// one of halo where there were 7), [596,14,9,17,15,7] 87.9 -> 89.9. Without the last two conditions
// (suites, same machine): [388,...] took rows of 256 B at 4.3 times the wavefronts and lost 16
// points, i8 [84,25,14,19,19,25] a persistent grid and 5.7 (it keeps its box now).
constexpr int kBoxHaloRoomKiB = 8;
// Where neither the box nor the room retry has room for the halo: the same box with 15/16 down to
// 12/16 of its slices of the halo dim, under the retry's conditions (shrink_for_halo). The retry
// plans the whole box again and may change its shape; i8 [29048,22,5,2,7,6], the i8 suite's
// minimum (61.5% of copy, H100, seventieth session), came back from it as a narrower box and so
// kept no halo; 157 of its 168 slices leave room for one of 15. H100, three alternating rounds by
// name against main (docs/performance.md, seventy-first session; results/halo-shrink-ab-2026-12-06-
// h100.json), % of copy: i8 [29048,...] 61.2 -> 67.0, f16 [132,12,6,2,15,18,13,2] 80.9 -> 87.6
// (14 slices and one of halo where there were 15), [668,2,19,4,3,20,22] 65.8 -> 70.4.
constexpr bool kBoxHaloShrink = true;
// The compact halo (box_tile.hpp) where whole slices do not apply or fit. H100, the same rounds:
// i8 [92,201,168,85] 58.4 -> 67.8, f16 [46,201,168,85] 55.9 -> 69.9 (15 and 7 rows loaded where
// whole slices would be 92 and 46), f64 [23,201,168,85] 82.4 -> 85.8, [194,12,21,3,8,19,3] 82.9 -> 83.7.
constexpr bool kBoxCompactHalo = true;

// The grid (kBoxOneShotBytesPerEntry): one block per tile where the box's bytes pay for the tables
// each block builds (runs_in + runs_out + gather_run entries) and gridDim.x holds the tiles, a
// persistent grid elsewhere.
bool one_block_per_tile(const box_params& p, int elem_bytes) {
  const std::int64_t entries = std::int64_t{p.runs_in} + p.runs_out + p.gather_run;
  const bool raw_wide = elem_bytes >= 2 && p.raw && p.wide &&
                        std::int64_t{p.volume} * elem_bytes >= kBoxOneShotRawWideMinBytes &&
                        std::max(p.in_run_dims, p.out_run_dims) <= kBoxOneShotRawWideMaxRunDims;
  const std::int64_t per_entry = p.words && !p.raw                              ? kBoxOneShotWordsBytesPerEntry
                                 : (elem_bytes == 16 && p.rank >= 3) || raw_wide ? kBoxOneShotBytesPerEntryWide
                                                                                 : kBoxOneShotBytesPerEntry;
  return std::int64_t{p.volume} * elem_bytes >= per_entry * entries &&
         p.tiles <= std::numeric_limits<std::int32_t>::max();
}

// The halo's slices box p would take for owned ends, 0 where they do not apply (the budget aside).
int halo_of(const box_params& p, int elem_bytes) {
  const int s = elem_bytes, d = p.out_order[p.out_run_dims - 1];
  if (!kBoxOwnEnds || s >= 16 || p.ntiles[d] < 2 || (p.out_aligned && p.run_out * s % 16 == 0)) return 0;
  for (int i = 0; i < p.in_run_dims; ++i)
    if (p.in_order[i] == d) return 0;
  if (p.cut_b != kPackedNoDim && p.cut_b != d) return 0;
  const int halo = (16 / s - 1 + p.out_unit - 1) / p.out_unit;  // slices: 16 / s - 1 elements of every output run
  return halo * kBoxHaloMaxShare > p.t[d] ? 0 : halo;
}

// Box p (raw rows) with a compact halo (box_tile.hpp) where its output run is two dims f, d
// outside the input run and f holds the 16 / s - 1 elements: false where that does not apply or
// fit. Taken only where whole slices are not (measured first): the i8 / f16 reversals whose slices
// are half the box gained 9 and 14 points (kBoxCompactHalo).
bool compact_halo(const box_params& p, int elem_bytes, box_params* out) {
  const int s = elem_bytes, V = 16 / s;
  if (!kBoxOwnEnds || s >= 16 || !p.raw || p.out_run_dims != 2) return false;
  const int f = p.out_order[0], d = p.out_order[1];
  if (p.ntiles[d] < 2 || (p.out_aligned && p.run_out * s % 16 == 0) || p.t[f] < V - 1 || p.t[f] != p.ext[f]) return false;
  for (int i = 0; i < p.in_run_dims; ++i)
    if (p.in_order[i] == d || p.in_order[i] == f) return false;
  if (p.cut_b != kPackedNoDim && p.cut_b != d) return false;
  box_params q = p;
  q.halo = 1, q.halo_dim = d, q.halo_f = f, q.halo_rows = V - 1, q.own_rows = p.runs_in;
  q.cut_b = d, q.out_lim = kBoxLimB;
  q.runs_in = p.runs_in + q.halo_rows;
  q.gather_run = p.run_out + q.halo_rows;
  q.gtab_len = box_gtab_index(q, q.gather_run - 1) + 1;
  // The region after the last row, at a start congruent to where element (c_f 0, c_d t[d]) would
  // be (t[d] * spitch[d], which the input's alignment requires mod 16) and no chunk shared.
  const int run_bytes = p.run_in * s;
  int last = 0;
  for (int r = 0; r < p.runs_in; ++r) last = std::max(last, box_run_of(p, true, r).base);
  const int want = p.t[d] * p.spitch[d] % 16;
  int h = last + run_bytes;
  h += ((want - h) % 16 + 16) % 16;
  while (!raw_gap(h - last, run_bytes)) h += 16;
  q.halo_base = h;
  const int end = h + (q.halo_rows - 1) * p.spitch[f];
  q.tile_bytes = (std::max(end, last) + 15 + 16 * p.nc_in + 127) / 128 * 128;
  q.smem_bytes = q.tile_bytes + 4 * box_tables_of(q).end;
  *out = q;
  return q.smem_bytes <= box_budget(p);
}

// Owned ends by whole slices of the halo dim (the load box).
bool own_slices(const box_params& p, int elem_bytes, box_params* out) {
  const int s = elem_bytes, d = p.out_order[p.out_run_dims - 1];
  box_params q = p;
  q.halo = halo_of(p, s);
  if (q.halo == 0) return false;
  q.halo_dim = d;
  q.cut_b = d;  // in_cut then holds each input row's coordinate along d (box_load_origin)
  q.out_lim = kBoxLimB;
  q.t_div[d] = fast_div(static_cast<std::uint32_t>(box_t(q, d)));
  q.runs_in = p.runs_in / p.t[d] * box_t(q, d);
  q.gather_run = p.run_out + q.halo * p.out_unit;
  q.gtab_len = box_gtab_index(q, q.gather_run - 1) + 1;
  const int budget = box_budget(p);
  return (p.raw ? raw_layout(q, s, budget, out) : row_layout(q, s, budget, out)) && out->words == p.words;
}

// Box p with owned ends (whole slices, else a compact halo); false where they do not apply or fit.
bool own_ends(const box_params& p, int elem_bytes, box_params* out) {
  return own_slices(p, elem_bytes, out) || (kBoxCompactHalo && compact_halo(p, elem_bytes, out));
}

// Whether `smaller`, a box in place of `box` that took owned ends as `with_halo`, keeps what the
// halo must not cost (kBoxHaloRoomKiB says why): the same gather and rows, 80% of the volume, 90%
// of the shorter run, one block per tile where the box had it, at most a quarter more shared
// wavefronts.
bool halo_keeps(const box_params& box, const box_params& smaller, const box_params& with_halo, int elem_bytes) {
  return smaller.words == box.words && smaller.raw == box.raw &&
         std::int64_t{smaller.volume} * 10 >= std::int64_t{box.volume} * 8 &&
         std::int64_t{std::min(smaller.run_in, smaller.run_out)} * 10 >= std::int64_t{std::min(box.run_in, box.run_out)} * 9 &&
         one_block_per_tile(with_halo, elem_bytes) >= one_block_per_tile(box, elem_bytes) &&
         box_wavefronts(with_halo, elem_bytes) * 4 <= box_wavefronts(box, elem_bytes) * 5;
}

// Box p with 15/16 down to 12/16 of its slices of the halo dim (kBoxHaloShrink), the largest whose
// halo fits and keeps what halo_keeps asks, laid out as box_plan lays boxes out (raw rows where p
// has them): the box in *smaller, with owned ends in *owned. False where none does.
bool shrink_for_halo(const problem& pr, const box_params& p, box_params* smaller, box_params* owned) {
  const int s = pr.elem_bytes, d = p.out_order[p.out_run_dims - 1];
  const int budget = box_budget(p);
  for (int k = 15; k >= 12; --k) {
    std::vector<int> u(p.t, p.t + pr.rank);
    u[d] = std::max(1, p.t[d] * k / 16);
    if (u[d] >= p.t[d] || (k < 15 && u[d] == std::max(1, p.t[d] * (k + 1) / 16))) continue;
    for (const bool split : {false, true}) {
      box_params q, laid, with_halo;
      if (!box_from(pr, u, &q, split, budget) || q.in_run_dims != p.in_run_dims || q.out_run_dims != p.out_run_dims ||
          !std::equal(p.out_order, p.out_order + p.n_box, q.out_order) ||
          !(p.raw ? raw_layout(q, s, budget, &laid) : row_layout(q, s, budget, &laid)) ||
          !own_ends(laid, s, &with_halo) || !halo_keeps(p, laid, with_halo, s))
        continue;
      *smaller = laid, *owned = with_halo;
      return true;
    }
  }
  return false;
}

// The segment gather (box_segments.hpp) for the store of a byte row copy whose rows are 3 or 5
// bytes long (rows of 7 measured a loss): the output run's fastest dim is the input run's (one
// shared byte apart), without the word gather or owned ends (its kernels have neither), in a plain
// or granule-swizzled layout (the two raw rows take; its kernels are compiled for those). Rows of
// 2, 4 or 8 bytes go as wider elements before this (planner.cpp kWidenBoxMaxElem); rows of 16 bytes
// or more take the wide gather's two table loads. kBoxSegments false plans the element gather for
// them again.
namespace {
constexpr bool kBoxSegments = true;
int segment_rows(const box_params& p, int s) {
  if (!kBoxSegments || s != 1 || p.words || p.halo || p.wide || p.swizzle == kBoxWords) return 0;
  return p.out_fast_pitch == 1 && box_segment_length(p.out_fast_t) ? p.out_fast_t : 0;
}
}  // namespace

bool box_plan(const problem& pr, box_params* out, const char** reason) {
  const int s = pr.elem_bytes;
  if (pr.rank < 2) {
    *reason = "permute_box runs permutations of rank 2 and more (after normalisation)";
    return false;
  }
  bool in_unit = false, out_unit = false;
  std::int64_t span = 1;
  for (int k = 0; k < pr.rank; ++k) {
    if (pr.dims[k].in_stride < 0 || pr.dims[k].out_stride < 0) {
      *reason = "permute_box needs non-negative strides";
      return false;
    }
    in_unit |= pr.dims[k].in_stride == 1;
    out_unit |= pr.dims[k].out_stride == 1;
    span += (pr.dims[k].extent - 1) * pr.dims[k].in_stride;
  }
  if (!in_unit || !out_unit) {
    *reason = "permute_box needs a unit-stride dim on both sides";
    return false;
  }
  // The box and its layout within a shared-memory budget.
  auto plan_within = [&](int budget, box_params* plan) {
    box_params chosen;
    if (!pick_box(pr, kMinBoxBytes, budget, &chosen)) return false;
    box_params larger;  // kSmallBoxBytes says when and why
    if (s <= 8 && std::int64_t{chosen.volume} * s < kSmallBoxBytes && pick_box(pr, 2 * kMinBoxBytes, budget, &larger) &&
        larger.volume >= kSmallBoxGrowth * chosen.volume && larger.swizzle == chosen.swizzle)
      chosen = larger;
    // Raw rows where the element gather runs (box_tile.hpp), for the box chosen above: 0..7 chunks
    // of extra room for the rows, plain or granules swizzled; fewest wavefronts, then the smaller tile.
    box_params raw;
    if (!chosen.words && s <= kBoxRawMaxElem &&
        (raw_layout(chosen, s, budget, &raw) || shrink_for_raw(pr, chosen, budget, &raw)))
      chosen = raw;
    *plan = chosen;
    return true;
  };
  box_params chosen;
  if (!plan_within(kBoxMaxSmem, &chosen)) {
    *reason = "permute_box found no box within its shared-memory budget";
    return false;
  }
  box_params wide;  // kBoxWordsMaxSmem says when and why
  if (chosen.words && plan_within(kBoxWordsMaxSmem, &wide) && wide.words &&
      std::min(wide.run_in, wide.run_out) > std::min(chosen.run_in, chosen.run_out))
    chosen = wide;
  box_params within;  // kRawWideBudget says when and why
  if (chosen.raw && s >= kRawWideMinElem && std::int64_t{chosen.volume} * s > kRawWideBudget &&
      plan_within(kRawWideBudget, &within) && within.raw)
    chosen = within;
  // Owned ends (below) where the halo does not fit beside the box: the box planned again within
  // 1-8 KiB less (kBoxHaloRoomKiB), else the same box with fewer slices of the halo dim
  // (kBoxHaloShrink), each taken where its halo fits and it keeps what halo_keeps asks.
  box_params owned;
  bool own = own_ends(chosen, s, &owned);
  const bool wants_halo = !own && halo_of(chosen, s) > 0;
  for (int k = 1; wants_halo && !own && k <= kBoxHaloRoomKiB; ++k) {
    box_params smaller, with_halo;
    if (plan_within(box_budget(chosen) - 1024 * k, &smaller) &&
        own_ends(smaller, s, &with_halo) && halo_keeps(chosen, smaller, with_halo, s))
      chosen = smaller, owned = with_halo, own = true;
  }
  box_params shrunk;
  if (wants_halo && !own && kBoxHaloShrink && shrink_for_halo(pr, chosen, &shrunk, &owned)) chosen = shrunk, own = true;
  chosen.in_span_bytes = span * s;
  // 32-bit offsets inside a tile (kBoxMaxWindow): its input window (the origin's chunk, 16 bytes,
  // then its loads' reach) and its output runs.
  std::int64_t max_in = 0, max_out = 0;
  for (int k = 0; k < pr.rank; ++k) {
    max_in += (chosen.t[k] - 1) * pr.dims[k].in_stride;
    max_out += (chosen.t[k] - 1) * pr.dims[k].out_stride;
  }
  const std::int64_t reach = max_in * s + 16 * chosen.nc_in + 32;
  if (16 + reach >= kBoxMaxWindow || (max_out + 1) * s >= kBoxMaxWindow) {
    *reason = "permute_box keeps offsets inside a tile in 32 bits (a tile reaching 2 GiB or more)";
    return false;
  }
  chosen.in_reach_bytes = static_cast<std::int32_t>(reach);
  // Owned ends (kBoxOwnEnds says where and why), where the halo's reach keeps within the window too.
  // A tile whose halo exists reaches halo_reach_bytes further: the kernel's test for a tile inside
  // the input adds it only there, so that the last tiles along halo_dim keep the unchecked loads
  // (with the halo's reach added to every tile, the i8 box [132,10,23,16,23,8,3] perm
  // 2,4,3,1,0,5,6, whose halo_dim is the input's slowest, sent a quarter of its tiles through the
  // checked loads and ran 78.2 -> 62.3% of copy; H100, sixty-ninth session).
  if (own) {
    owned.in_span_bytes = chosen.in_span_bytes, owned.in_reach_bytes = chosen.in_reach_bytes;
    const std::int64_t more = std::int64_t{owned.halo} * pr.dims[owned.halo_dim].in_stride * s;
    if (16 + reach + more < kBoxMaxWindow) chosen = owned, chosen.halo_reach_bytes = static_cast<std::int32_t>(more);
  }
  chosen.one_shot = one_block_per_tile(chosen, s);
  chosen.bulk = bulk_rows(chosen, s);  // kBoxBulkMaxElem
  chosen.segs = segment_rows(chosen, s);
  set_tile_order(chosen, s);
  *out = chosen;
  return true;
}

namespace {
template <bool Owned>
std::vector<std::int32_t> tables_build(const box_params& p, int elem_bytes) {
  const box_tables tb = box_tables_of(p);
  std::vector<std::int32_t> tab(static_cast<std::size_t>(tb.end), 0);
  for (int r = 0; r < p.runs_in; ++r) {
    const box_run run = box_run_of<Owned>(p, true, r);
    tab[tb.in_off + r] = run.off * elem_bytes;
    tab[tb.in_cut + r] = static_cast<std::int32_t>(run.cut);
    if (p.raw) tab[tb.in_base + r] = run.base;
  }
  for (int o = 0; o < p.runs_out; ++o) {
    const box_run run = box_run_of<Owned>(p, false, o);
    tab[tb.out_off + o] = run.off;
    tab[tb.out_cut + o] = static_cast<std::int32_t>(run.cut);
    tab[tb.out_base + o] = run.base;
  }
  const int gather_run = Owned ? p.gather_run : p.run_out;
  for (int j = 0; j < gather_run; ++j)
    tab[tb.gtab + box_gtab_index(p, j)] = static_cast<std::int32_t>(
        box_gtab_word(box_gtab_of<Owned>(p, j), !p.wide && j + 1 < gather_run ? box_gtab_of<Owned>(p, j + 1) : 0));
  return tab;
}
}  // namespace

std::vector<std::int32_t> box_tables_build(const box_params& p, int elem_bytes) {
  return p.halo ? tables_build<true>(p, elem_bytes) : tables_build<false>(p, elem_bytes);
}

}  // namespace xpose::detail::gpu
