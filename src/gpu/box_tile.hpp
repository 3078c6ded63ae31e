// The tile of permute_box: a box over the dims that make runs of R bytes or more on *both* sides,
// and the index arithmetic the kernel and the host tests share (everything here is __host__
// __device__ or host-only).
//
// Why another tile. permute_packed caps its boxes at its per-thread slot tables (1-2 K elements for
// bytes, runs of 30-100 B) and permute_runs needs the input run and the output run to share no
// dim (so a row copy with short rows, or a permutation whose output's fastest dims include an input
// run dim, gets short runs or none). scripts/box_runs.py showed that every case of the permute suite
// has a box of 36 KB or less with runs of 128 B and more on both sides, half of them one of 4 KB.
//
// The box. Walk the input's dims from its stride-1 dim, fastest first, taking each whole while the
// run stays within R_in bytes and the next dim is contiguous, and a tile extent of the first dim
// that does not fit; walk the output's dims the same way for R_out (a dim both walks take gets the
// larger tile extent). Dims neither walk reaches have tile extent 1. So at most two dims are cut
// (their extent not a multiple of the tile extent): the last dim of the input walk (cut_a) and the
// last of the output walk (cut_b); each is the last dim of its side's run.
//
// The runs. An input run is the box's largest prefix contiguous in the input: its dims in input
// order, whole but for the last. The box is runs_in input runs of run_in elements (input run r
// starts at in_off[r] from the tile's origin) and runs_out output runs of run_out elements (output
// run o at out_off[o]). The two sets of runs may share dims (a row copy: the fastest dim is in
// both).
//
// Shared memory holds input run r as row r, realigned so its element 0 is at the row's start: the
// *linear* address of the element with box coordinates c is L(c) = sum_d c_d * spitch_d, with
// spitch_d = (element pitch of d inside the run) * s for the run's dims and (run pitch of d) * P for
// the others (P, the row pitch, a multiple of max(4, s) bytes). Being linear, element j of output
// run o is at out_base[o] + gtab[j]: one table over the output run, one per run, both fixed for
// every tile. The physical byte is L after a swizzle (box_phys): none, 16-byte granules (bits 4-6)
// XORed with bits 7-9, or 4-byte words (bits 2-6) XORed with bits 7-11 (elements of at most 4 bytes).
// The gather's lanes read elements 16 / s apart along an output run, rows 16 / s apart in a transpose:
// 16 P apart, the same bank for every P a multiple of 4 unless a swizzle spreads them (H200, Nsight
// Compute, 2026-11-30, [2048,256,512] perm 2,1,0 i8 with granules only: 2.4 wavefronts per shared
// load, the shared pipe 87% busy). The planner picks P and the swizzle by the bank model's count of
// both phases' wavefronts (box_wavefronts).
//
// The gather. Where the output run's fastest dim has a tile extent of at least 16 / s elements (one
// chunk wraps it at most once), a chunk's V elements are at L0 + i * p1 before the wrap and L0 + carry
// + i * p1 after it: two table loads per chunk ("wide"). Otherwise each element's table entry is loaded,
// two entries per 32-bit table word (box_gtab_word).
//
// Raw rows (p.raw; the element gather of 1- to 8-byte elements). The realignment above costs the
// load phase two aligned loads, a 15-select funnel shift and a register round trip per 16-byte
// chunk. Raw rows are stored as the input's aligned chunks stand instead, each by cp.async: every
// box dim outside the input run gets a shared pitch congruent to its input stride in bytes mod 16,
// so that a tile's shared linear byte minus its input address is one constant mod 16 for the whole
// tile, and a tile places its rows `sh` = (input address of its origin) mod 16 bytes past their
// linear start. Element c is then at L(c) + sh (the gather adds sh to out_base), row r's aligned
// chunks go to the aligned shared chunks from L_r + sh - m_r (m_r the row's input misalignment), and
// the rows lie far enough apart (box_tile.cpp, raw_gap) that no two share a chunk. A row takes up to
// 15 more bytes at each end and a table of its starts (in_base, after gtab). Raw rows take the word
// gather below at any byte phase ("shifted"). Unswizzled, a row's chunks are one piece of shared
// memory, which the copy engine can fill with one bulk copy (bulk; kBoxBulkMaxElem below).
//
// The word gather (1-byte elements; it ran halves too until raw rows made their element gather the
// faster, box_tile.cpp kWordGatherMaxElem). The gather above moves one element per shared load,
// which made the kernel issue-bound for bytes (about 8 of its 16 instructions per byte). Where the
// input's fastest box dim d0 is not in the output run, the 4 / s elements of a shared word at
// c_d0 = G g .. G g + G - 1 (G = 4 / s) belong to G output runs, at the same place in each. So a
// thread takes a *group* of G runs (runs o, o + so, ..., so their index stride along d0) and the
// same chunk of each: it loads V words instead of V elements, transposes them in registers (byte
// permutes) and stores G chunks. It needs every shared word to hold elements of one group
// at one place: every box dim but d0 has a shared pitch that is a multiple of 4 bytes (d0 alone in
// the input run, or t_d0 s a multiple of 4), and the G runs' chunks start at the same alignment
// (out_stride_d0 s a multiple of 16).
// Shifted (p.words_shift, raw rows of bytes): a group's 4 bytes need not start a shared word. Where
// the output run's dims have shared pitches of whole words, every element of a group's chunk sits
// at one byte phase f = (out_base + sh) & 3, so each of its V words is two aligned word loads and a
// byte permute (funnel). The other dims may have any pitch (a second input-run dim of 17 bytes,
// rows congruent to odd input strides): f varies from group to group, not inside one.
//
// Owned output ends (p.halo > 0; box_tile.cpp kBoxOwnEnds says where it is planned). The output
// run's last dim d (halo_dim) is consecutive in the output with the run's faster dims, which are
// whole, so the runs of the tiles along d are slices of one longer output run. Without ownership
// each tile writes the aligned chunks its slice touches, and the two its slice shares with a
// neighbour in pieces (chunk_ops.cuh store_run_chunk: up to four stores of bytes). Storing those
// chunks whole instead, a probe with wrong outputs, ran the slowest i8 / f16 box plans 7-18 points
// of copy faster (H100, 2026-12-06, docs/performance.md, sixty-eighth session; i8
// [776,12,21,3,8,19,3] 46.0 -> 63.9). With ownership a tile loads `halo` more slices of d (the
// next tile's first, enough for 16 / s - 1 elements of every output run: the *load box*, t with
// t[d] + halo, box_t), writes the chunks whose first byte lies in its own slice whole, reading the
// bytes past it from the halo, and skips the chunk its slice starts inside of, which the previous
// tile along d wrote. Only the longer run's own two ends are written in pieces. The tile grid steps
// by t; the shared layout, the input rows (runs_in) and gtab are the load box's. d lies outside
// the input run, so the halo's slices are more input rows; a tile knows which of them exist from
// its coordinate along d (cut_b is d, whether or not t divides its extent).
// Compact halo (halo_f != kPackedNoDim; raw rows, an output run of two dims f, d, both outside the
// input run): the next slice's first 16 / s - 1 elements of a run are at c_f = 0 .. halo_rows - 1,
// c_d = t[d], so a tile loads those halo_rows input rows only, into a region of their own at linear
// byte halo_base, row i at halo_base + i * spitch[f] (f's pitch, so the wide gather's step holds
// across the slice's end), and gtab's entries past run_out point there. The box itself keeps t.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/geometry.hpp"
#include "gpu/packed_tile.hpp"  // fast_div, packed_origin_of, packed_in_bounds
#include "plan/problem.hpp"

namespace xpose::detail::gpu {

inline constexpr int kBoxThreads = 256;
// Input chunks each thread loads (two aligned 16-byte loads each) before storing any, and the
// shared-memory budget of a block (tile and tables): 2 chunks and 44 KiB give 5 blocks of 256
// threads per SM (48 registers, no spills; 228 KiB of shared memory, 1 KiB reserved per block).
// The kernel is issue-bound with 35% of cycles lacking an eligible warp at 4 blocks; H200
// 2026-11-30, by name, % of copy, 4 chunks / 4 blocks / 46 KiB (before) -> 2 / 5 / 44 KiB -> 2 /
// 6 / 37 KiB: i8 [4,24,19,23,24,25,16,5] 42.6 -> 45.6 -> 46.6, [548,108,82,55] 49.0 -> 52.8 -> 46.7,
// [2172,20,11,11,17,3] 24.5 -> 23.5 -> 22.9, three more within a point but for [776,12,21,3,8,19,
// 3] 19.4 -> 18.8 -> 23.8; f16 [26,9,25,8,13,9,4,6] 52.3 -> 57.1 -> 59.0, [925638,29,5] 54.1 ->
// 60.6 -> 61.6, [12,15,17,4,9,6,13,14] 56.8 -> 63.9 -> 66.9, [1384,19,10,3,10,17] 41.2 -> 42.3 ->
// 39.6 (results/box-configs-2026-11-30g-*.log). 5 blocks gained or held everywhere within a point.
// Raw boxes of 4- to 8-byte elements keep within 20 KiB where they can (box_tile.cpp, kRawWideBudget).
inline constexpr int kBoxLoads = 2;
inline constexpr int kBoxMaxSmem = 44 * 1024;
// The byte word gather's kernels run 4 blocks per SM for their registers (fast_variants.cu
// kBoxWordsMinBlocks), so its boxes may take a quarter of the SM's shared memory: 228 KiB / 4, less
// the 1 KiB a block reserves and some room. box_plan takes the wider box only where it lengthens the
// box's shorter run, which is what the slow boxes pay for: H100, % of copy, 44 -> 54 KiB, i8
// [29048,22,5,2,7,6] 5,2,4,3,1,0 48.9 -> 61.0 (runs 84 / 359 B -> 252 / 168), [92,201,168,85]
// 3,2,1,0 55.3 -> 58.4 (85 / 276 -> 170 / 184); where the wider box shortened the shorter run,
// [2768,19,10,3,10,17] 5,4,1,2,3,0 (170 / 185 -> 340 / 126), it lost 8.3, so that box stays
// (docs/performance.md, sixty-fourth session; results/box-words-ab-2026-12-06-h100.json).
inline constexpr int kBoxWordsMaxSmem = 54 * 1024;
// Offsets inside a tile are 32-bit: its input window (from the aligned chunk holding the tile's
// origin, reached through a 64-bit offset) and its output runs' offsets stay below this (box_plan),
// with room for the chunk past a run's end. The tensor itself may span more (before the forty-first
// session the whole input span had to fit: f64's rank-8 suite case, 4 GB, went to permute_packed).
inline constexpr std::int32_t kBoxMaxWindow = 0x7fffffff - 63;  // 2^31 - 64

// The shared layout's swizzle (box_phys).
enum box_swizzle : int { kBoxPlain = 0, kBoxGranules = 1, kBoxWords = 2 };

// Raw rows without a swizzle of elements up to this size come in by one bulk copy per row
// (box_params::bulk; the copy engine, counted off an mbarrier) instead of a cp.async per chunk.
// H200, 2026-12-04, two alternating rounds against cp.async, suite cases by name, % of copy
// (results/box-bulk-ab-2026-12-04.json): i8 [1851276,29,5] perm 1,0,2 67.2 -> 72.9,
// [24,7,19,17,3,14,21,5] 53.3 -> 56.4, [8256,25,20,13,5] 60.5 -> 62.7, four more +0.5 to +1.7, one
// level; f16 [22,13,14,4,18,20,23] 77.5 -> 80.8, [925638,29,5] 82.2 -> 84.4, six more +0.2 to +1.6.
// For bytes and halves the element gather keeps the shared pipe busiest (box_gtab_word), and the
// bulk copy takes the load phase's 16-byte shared stores and its per-chunk index arithmetic off
// it. 4- and 8-byte elements: f32 [462819,29,5] 78.2 -> 72.4 and [128561,174,3] 87.4 -> 83.7 (one
// input run of 16-18 KiB a tile, one bulk copy), two more +0.5 and +1.6; f64 -1.4 to +0.9 on three.
// permute_box_kernel's kMayBulk (which kernels compile the bulk path) must cover it: a
// static_assert there.
inline constexpr int kBoxBulkMaxElem = 2;

// The element size whose plans get their tables built at make_plan and copied by each block
// (box_params::tables, box_tables.cpp) instead of built by each block: bytes, where a table entry
// serves the fewest bytes of data. permute_box_kernel's kMayCopyTables says what was measured.
inline constexpr int kBoxTablesElemBytes = 1;

// Which of a tile's limits (packed_origin lim_a / lim_b) shortens a side's run at the edge.
enum box_lim : int { kBoxLimNone = 0, kBoxLimA = 1, kBoxLimB = 2 };

struct box_params {
  int rank = 0;  // the normalised problem's dims (output order); the fields below index them
  std::int64_t in_stride[kMaxRank] = {}, out_stride[kMaxRank] = {};
  int ext[kMaxRank] = {}, t[kMaxRank] = {}, ntiles[kMaxRank] = {};
  fast_div ntiles_div[kMaxRank];
  int tile_first = kPackedNoDim;  // the dim numbered first (packed_origin_of, tile_first_dim)
  tile_panel panel;               // and in panels of the other dims (set_tile_order)
  // The load box's extents' divisors (box_t: t, and t + halo along halo_dim): the run tables every block builds before its first tile
  // (box_run_of, box_gtab_of) split an index over the box dims with them, a multiply and a shift
  // per dim where `%` and `/` cost an integer division each. H200, 2026-12-04, permute_box by name
  // on 42 boxes (scripts/cases/box_tables_cases.txt): mean +0.5 points, i8 [1472,6,22,6,10,23] 44.8 ->
  // 47.4, f16 [22,13,14,4,18,20,23] 66.5 -> 70.1; none down by more than 1.3.
  fast_div t_div[kMaxRank];
  std::int64_t tiles = 1;
  int one_shot = 0;  // 1: one block per tile; 0: a persistent grid (box_plan, kBoxOneShotBytesPerEntry)
  int cut_a = kPackedNoDim, cut_b = kPackedNoDim;  // cut dims (see above); packed_origin_of reads them
  // Owned output ends (above): slices of halo_dim (the output run's last dim, = cut_b) a tile loads
  // past its own; 0: none. gather_run: elements of an output run the gather may read (run_out, and
  // the halo's), gtab's length in entries.
  int halo = 0, halo_dim = kPackedNoDim;
  int gather_run = 1;
  // Compact halo (above): f, the rows (elements of the next slice), the box's own rows and the
  // region's linear start.
  int halo_f = kPackedNoDim, halo_rows = 0, own_rows = 0, halo_base = 0;
  int volume = 1;                                   // elements of a full tile
  // Box dims (t > 1) in each side's order, fastest first; the first in_run_dims / out_run_dims
  // make the side's run.
  int n_box = 0;
  int in_order[kMaxRank] = {}, out_order[kMaxRank] = {};
  int in_run_dims = 0, out_run_dims = 0;
  int run_in = 1, run_out = 1;    // elements of a full tile's runs
  int in_unit = 1, out_unit = 1;  // elements of a run per step of its last dim (run / t of it)
  int in_lim = kBoxLimNone, out_lim = kBoxLimNone;
  int runs_in = 1, runs_out = 1;  // volume / run (runs_in: of the load box, halo rows included)
  int spitch[kMaxRank] = {};      // linear shared byte pitch of each dim (0 outside the box)
  int nc_in = 1;                  // 16-byte chunks of a shared row (run_in * s, rounded up)
  int nc_out = 1;                 // 16-byte output chunks an output run can touch, at any alignment
  fast_div nc_in_div, nc_out_div;
  // Every output run of every tile starts on a 16-byte boundary from the pointer (box_out_chunks):
  // with an aligned pointer the store phase walks only the run's own chunks.
  int out_aligned = 0;
  int nc_out_aligned = 1;
  fast_div nc_out_aligned_div;
  int row_bytes = 16;             // P: a multiple of max(4, s), at least run_in * s
  int swizzle = kBoxPlain;        // box_swizzle
  int vec_rows = 1;               // 1: rows are whole 16-byte granules (P % 16 == 0, no word swizzle):
                                  // the load phase stores 16-byte vectors, else four 4-byte words
  int raw = 0;                    // 1: raw rows (above): row r at in_base[r] + sh, its chunks as they stand
  int bulk = 0;                   // 1: raw rows without a swizzle, each brought in by one bulk copy
  int out_fast_t = 1;             // tile extent of the output run's fastest dim, and its divisor
  fast_div out_fast_div;
  int out_fast_pitch = 0;         // its linear shared pitch (spitch)
  int wide = 0;                   // 1: out_fast_t >= 16 / s (the gather's two-load path)
  int gtab_shift = 0;             // gtab entry j is stored at j + (j >> gtab_shift): log2(16 / s)
  // The word gather (above): store items are groups x nc_out chunks; group g's first run and its
  // runs come from box_group_of.
  int words = 0;                  // 1: the word gather runs
  int words_shift = 0;            // 1: at any byte phase (raw rows; two word loads and a funnel each)
  int wg_n = 1;                   // G = 4 / s: runs per group, elements per shared word
  int wg_lo = 1;                  // so: the output runs' index stride along d0
  fast_div wg_lo_div;
  int wg_cg = 1;                  // groups along d0: ceil(t_d0 / G)
  fast_div wg_cg_div;
  int wg_t0 = 1;                  // t_d0
  int groups = 1;                 // runs_out / t_d0 * wg_cg
  std::int64_t in_span_bytes = 0; // bytes from the input's first element to past its last
  std::int32_t in_reach_bytes = 0;  // bytes past a tile's origin its loads may touch (both chunks)
  std::int32_t halo_reach_bytes = 0;  // and past that, a tile whose halo exists (owned ends)
  // Shared memory: the tile (tile_bytes), then int32 tables in_off[runs_in], in_cut[runs_in],
  // out_off[runs_out], out_cut[runs_out], out_base[runs_out], gtab[gtab_len] and, for raw rows,
  // in_base[runs_in].
  int tile_bytes = 0, gtab_len = 0, smem_bytes = 0;
  // The segment gather (box_segments.hpp): the rows' length L in bytes (3 or 5) where a byte row
  // copy's store runs it, else 0. Last in the struct, so every other field keeps its offset in the
  // kernels' parameters.
  int segs = 0;
  // The tables above as box_tables_build lays them out, in device memory, built at make_plan
  // (box_tables.cpp): each block copies the output side's into shared memory instead of computing
  // them. Null: the block builds them itself (a plan made without a device, or run on another device than its own).
  const std::int32_t* tables = nullptr;
  int tables_device = -1;  // the device they are on (run_permute_box passes none on another)
  // Copies of the tables, tables_stride words apart: block b reads copy b & tables_mask, so that
  // the blocks' reads spread over L2 slices instead of all meeting on the same few lines.
  int tables_stride = 0, tables_mask = 0;
};

// The physical shared byte of linear byte L under swizzle `mode`: bits 7 and up are kept, so a
// layout stays within its 128-byte lines.
XPOSE_HD inline int box_phys_mode(int mode, int L) {
  return mode == kBoxGranules ? L ^ ((L >> 3) & 0x70) : mode == kBoxWords ? L ^ ((L >> 5) & 0x7c) : L;
}
XPOSE_HD inline int box_phys(const box_params& p, int L) { return box_phys_mode(p.swizzle, L); }

// Where gtab entry j (j >= 0) is stored: one pad word per 16 / s entries, so the lanes of a warp,
// each reading the entries of its own 16-byte output chunk, fall in different banks.
XPOSE_HD inline int box_gtab_index(const box_params& p, int j) { return j + (j >> p.gtab_shift); }

// gtab's word for entry j holds two entries: L(j) (box_gtab_of) in its low 16 bits and L(j + 1) in
// its high 16 bits (0 past the run), so a chunk's gather loads V / 2 table words for its V elements
// instead of V. Every linear byte of a tile is below kBoxMaxSmem, so an entry fits in 16 bits.
// Why: in the byte kernels' element gather (two shared loads per byte, the entry and the byte) the
// shared pipe was the limit: H200, Nsight Compute, 2026-12-04, i8 [24,7,19,17,3,14,21,5] perm
// 7,6,0,4,3,2,5,1 at 50% of copy: L1 / shared throughput 83% of peak, the busiest unit; 47.8 M shared
// wavefronts (0.79 per SM cycle), 17.2 M of them table loads; short scoreboard the first stall
// (docs/performance.md, forty-eighth session).
static_assert(kBoxMaxSmem <= 65536 && kBoxWordsMaxSmem <= 65536, "gtab entries are 16-bit");
XPOSE_HD inline std::uint32_t box_gtab_word(std::int32_t entry, std::int32_t next) {
  return static_cast<std::uint32_t>(entry) | static_cast<std::uint32_t>(next) << 16;
}
// Entry j alone (the low half of its word).
XPOSE_HD inline std::int32_t box_gtab_at(const box_params& p, const std::uint32_t* gtab, int j) {
  return static_cast<std::int32_t>(gtab[box_gtab_index(p, j)] & 0xffffu);
}

// The gtab entries of the V = 16 / s consecutive output elements b .. b + V - 1 of a run (b >= 0): the
// word of entry b + i is lo[i] before the pad word that follows every V entries (box_gtab_index),
// hi[i] from brk on; entries b + 2m and b + 2m + 1 are the halves of word 2m (pair). A chunk's gather
// (the non-wide one: its entries and its elements) reads its words at constant offsets from one
// address, with a compare and a select per word. SASS of the byte kernel's non-wide converged chunk
// (16 elements): 174 instructions with box_gtab_index(b + i) per element, 104 with this (one entry
// per word then); H200, 2026-12-04, auto on the 28 lowest i8 / f16 suite cases, with the tile-extent
// divisors: mean +1.4 points, f16 [22,13,14,4,18,20,23] 66.4 -> 74.8, i8 [1472,6,22,6,10,23] 44.8 ->
// 50.6 (docs/performance.md, forty-seventh session).
struct box_gtab_span {
  const std::uint32_t *lo, *hi;  // hi = lo + 1
  int brk;
  // The word holding entries b + 2m (low half) and b + 2m + 1 (high half).
  XPOSE_HD std::uint32_t pair(int m) const { return (2 * m >= brk ? hi : lo)[2 * m]; }
  XPOSE_HD std::int32_t operator[](int i) const {
    const std::uint32_t w = pair(i / 2);
    return static_cast<std::int32_t>(i % 2 ? w >> 16 : w & 0xffffu);
  }
};
template <int V>
XPOSE_HD inline box_gtab_span box_gtab_span_of(const box_params& p, const std::uint32_t* gtab, int b) {
  static_assert(V == 1 || V == 2 || V == 4 || V == 8 || V == 16, "V = 16 / s elements per chunk");
  const std::uint32_t* lo = gtab + box_gtab_index(p, b);
#if defined(__CUDA_ARCH__)
  // Held as one opaque shared address: at the byte kernels' 48 registers nvcc otherwise re-derives
  // each element's entry address from the table offsets (the chunk above took 194 instructions in
  // a build without this, more than box_gtab_index's 174).
  auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(lo));
  asm volatile("" : "+r"(a));
  lo = static_cast<const std::uint32_t*>(__cvta_shared_to_generic(a));
#endif
  return {lo, lo + 1, V - (b & (V - 1))};
}

// The wide gather (p.wide): the linear bytes of elements b0 .. b0 + v - 1 (b0 >= 0) of the output
// run at `base` are pre + i * p1 for i < w and post + i * p1 after, w the elements before the fastest
// dim wraps, pre = base + gtab(b0), post = base + gtab(b0 + w) - w * p1 (pre when w >= v).
struct box_wide {
  int w = 0;
  std::int32_t pre = 0, post = 0;
};
XPOSE_HD inline box_wide box_wide_of(const box_params& p, const std::uint32_t* gtab, std::int32_t base, int b0, int v) {
  box_wide r;
  r.w = p.out_fast_t - (b0 - static_cast<int>(p.out_fast_div.div(static_cast<std::uint32_t>(b0))) * p.out_fast_t);
  r.pre = base + box_gtab_at(p, gtab, b0);
  r.post = r.w < v ? base + box_gtab_at(p, gtab, b0 + r.w) - r.w * p.out_fast_pitch : r.pre;
  return r;
}

// One run of a side: its offset from the tile's origin (elements, that side's strides), its
// coordinates along the cut dims outside the run (cut_a in bits 0-15, cut_b in 16-31: the run is
// inside an edge tile when packed_in_bounds holds), and the linear shared byte of its element 0.
struct box_run {
  std::int32_t off = 0;
  std::uint32_t cut = 0;
  std::int32_t base = 0;
};

// A dim's extent in the load box: its tile extent, and the halo's slices along halo_dim. kHalo
// false: the tile extent (a kernel without owned ends, compiled as before them).
template <bool kHalo = true>
XPOSE_HD inline int box_t(const box_params& p, int d) {
  if constexpr (kHalo) return d == p.halo_dim && p.halo_f == kPackedNoDim ? p.t[d] + p.halo : p.t[d];
  return p.t[d];
}

template <bool kHalo = true>
XPOSE_HD inline box_run box_run_of(const box_params& p, bool in_side, int idx) {
  box_run r;
  if (kHalo && in_side && p.halo_f != kPackedNoDim && idx >= p.own_rows) {  // a compact halo's row
    const int i = idx - p.own_rows, d = p.halo_dim;
    r.off = static_cast<std::int32_t>(i * p.in_stride[p.halo_f] + p.t[d] * p.in_stride[d]);
    r.base = p.halo_base + i * p.spitch[p.halo_f];
    r.cut = static_cast<std::uint32_t>(p.t[d]) << 16;  // d is cut_b; f is whole
    return r;
  }
  const int* order = in_side ? p.in_order : p.out_order;
  for (int i = in_side ? p.in_run_dims : p.out_run_dims; i < p.n_box; ++i) {
    const int d = order[i];
    const int q = static_cast<int>(p.t_div[d].div(static_cast<std::uint32_t>(idx)));
    const int c = idx - q * box_t<kHalo>(p, d);
    idx = q;
    r.off += static_cast<std::int32_t>(c * (in_side ? p.in_stride[d] : p.out_stride[d]));
    r.base += c * p.spitch[d];
    if (d == p.cut_a) r.cut |= static_cast<std::uint32_t>(c);
    if (d == p.cut_b) r.cut |= static_cast<std::uint32_t>(c) << 16;
  }
  return r;
}

// Linear shared byte of element j of an output run, from the run's element 0.
template <bool kHalo = true>
XPOSE_HD inline std::int32_t box_gtab_of(const box_params& p, int j) {
  if (kHalo && p.halo_f != kPackedNoDim && j >= p.run_out) return p.halo_base + (j - p.run_out) * p.spitch[p.halo_f];
  std::int32_t L = 0;
  for (int i = 0; i < p.out_run_dims; ++i) {
    const int d = p.out_order[i];
    const int q = static_cast<int>(p.t_div[d].div(static_cast<std::uint32_t>(j)));
    L += (j - q * box_t<kHalo>(p, d)) * p.spitch[d];
    j = q;
  }
  return L;
}

// The output chunks per run the store phase walks, and their divisor: nc_out, or the run's own
// chunks where every run starts aligned (out_aligned) and so does the pointer. nc_out keeps a chunk
// for a misaligned start; at 128 runs of 256 B (the i8 reversals' boxes) that chunk made the last
// of 9 (words: 3) rounds of the block's store loop a single warp's.
struct box_chunks {
  int n;
  fast_div div;
};
XPOSE_HD inline bool box_out_exact(const box_params& p, int out_mis) { return out_mis == 0 && p.out_aligned; }
XPOSE_HD inline box_chunks box_out_chunks(const box_params& p, int out_mis) {
  return box_out_exact(p, out_mis) ? box_chunks{p.nc_out_aligned, p.nc_out_aligned_div} : box_chunks{p.nc_out, p.nc_out_div};
}

// Which form of the store phase permute_box runs, for the word gather (box_store_words) and the
// element gather alike: "whole" where every full run is whole aligned 16-byte chunks (out pointer
// and run starts aligned, runs a multiple of 16 bytes; edge tiles may still cut a run short), else
// "converged". Measured for the word gather on the H200 (seventeenth session, the permutation
// suites, docs/performance.md): the converged store raised the i8 reversal [92,201,168,85] (276-byte
// runs) from 24 to 37% of copy and three f16 cases with ragged runs by 3-6 points, but cost 2.5-6
// points where every chunk is whole (f16 [32,16,16,16,16,64] reversal 72 -> 66, [274,108,82,55]
// perm 3,2,0,1 59.5 -> 54.6), where the head-and-tail path is never taken. The element gather's
// converged store (eleventh session) had cost boxes of long aligned runs 3-6 points the same way (i8
// [1516,23,10,12,8,4,2] 64.0 -> 58.2, f16 [16,1024,1024,8] 77.6 -> 72.2); in two forms (eighteenth
// session) it ran that case at 63.8 against 58.2, the f16 suite median 66.4 against 64.2 (five cases
// +2.5 to +4.7, one -2.8: [360800,124,3,1] perm 1,0,2,3), i8, f32 and f64 level.
XPOSE_HD inline bool box_store_converged(const box_params& p, int elem_bytes, int out_mis) {
  return p.segs || !(box_out_exact(p, out_mis) && p.run_out * elem_bytes % 16 == 0);  // segments: converged only
}

// Group gi of the word gather: its first output run and how many runs it holds (G but at the end
// of d0, where t_d0 is not a multiple of G); run t of the group is run0 + t * wg_lo.
struct box_group {
  int run0 = 0, members = 0;
};
XPOSE_HD inline box_group box_group_of(const box_params& p, int gi) {
  const int rest = static_cast<int>(p.wg_lo_div.div(static_cast<std::uint32_t>(gi)));
  const int lo = gi - rest * p.wg_lo;
  const int hi = static_cast<int>(p.wg_cg_div.div(static_cast<std::uint32_t>(rest)));
  const int c0 = p.wg_n * (rest - hi * p.wg_cg);
  box_group g;
  g.run0 = lo + p.wg_lo * (c0 + p.wg_t0 * hi);
  g.members = p.wg_t0 - c0 < p.wg_n ? p.wg_t0 - c0 : p.wg_n;
  return g;
}

// A side's run length in a tile (the full run, or its edge piece).
XPOSE_HD inline int box_run_length(const packed_origin& o, int run, int unit, int lim) {
  if (lim == kBoxLimA && o.lim_a < kPackedNoLimit) return unit * static_cast<int>(o.lim_a);
  if (lim == kBoxLimB && o.lim_b < kPackedNoLimit) return unit * static_cast<int>(o.lim_b);
  return run;
}

// Owned ends (above): how many of a tile's halo slices exist, from its first coordinate along
// halo_dim (none in the last tile along it, some in the one before where the last is short).
XPOSE_HD inline int box_halo_live(const box_params& p, int start) {
  const int after = p.ext[p.halo_dim] - start - p.t[p.halo_dim];
  return after < 0 ? 0 : after < p.halo ? after : p.halo;
}
// The elements past its own that an output run's gather may read in a tile (its halo's).
XPOSE_HD inline int box_halo_elems(const box_params& p, int start) {
  const int live = box_halo_live(p, start) * p.out_unit, most = p.gather_run - p.run_out;
  return live < most ? live : most;
}
// The load phase's bounds of a tile: its origin, with lim_b at the slices of halo_dim it loads
// (its own and the halo's that exist; where the tile is at the edge that is the edge's lim_b).
XPOSE_HD inline packed_origin box_load_origin(const box_params& p, packed_origin o, int start) {
  if (p.halo == 0) return o;
  const int after = p.ext[p.halo_dim] - start - p.t[p.halo_dim];
  if (after < p.halo) o.lim_b = static_cast<std::uint32_t>(p.t[p.halo_dim] + after), o.full = false;
  return o;
}

// Whether a tile's loads all lie inside the input (the kernel's unchecked loads): its origin, in
// bytes from the input's first element, and how many of its halo slices exist.
XPOSE_HD inline bool box_tile_inside(const box_params& p, std::int64_t origin_bytes, int halo_live) {
  const std::int64_t reach = p.in_reach_bytes + (halo_live > 0 ? p.halo_reach_bytes : 0);
  return origin_bytes >= 16 && origin_bytes <= p.in_span_bytes - reach;
}

// Table offsets in shared memory (int32 words after the tile).
struct box_tables {
  int in_off, in_cut, out_off, out_cut, out_base, gtab, in_base, end;
};
// The shared-memory budget a box keeps within: word boxes have more (kBoxWordsMaxSmem).
inline int box_budget(const box_params& p) { return p.words ? kBoxWordsMaxSmem : kBoxMaxSmem; }

XPOSE_HD inline box_tables box_tables_of(const box_params& p) {
  box_tables t;
  t.in_off = 0;
  t.in_cut = t.in_off + p.runs_in;
  t.out_off = t.in_cut + p.runs_in;
  t.out_cut = t.out_off + p.runs_out;
  t.out_base = t.out_cut + p.runs_out;
  t.gtab = t.out_base + p.runs_out;
  t.in_base = t.gtab + p.gtab_len;
  t.end = t.in_base + (p.raw ? p.runs_in : 0);
  return t;
}

// The shared-memory tables of box_tables_of(p) (tb.end words), as permute_box_kernel's blocks build
// them (box_run_of, box_gtab_of; owned ends where p.halo), for elements of elem_bytes bytes: in_off
// in bytes, gtab's pad words zero. Host side (box_tile.cpp); make_plan uploads them (box_tables.cpp).
std::vector<std::int32_t> box_tables_build(const box_params& p, int elem_bytes);

// Host side (box_tile.cpp): fills *p for a normalised problem, or returns false with *reason (rank
// below 2, a plain copy, no unit-stride dim on a side, negative strides, an input span of 2^31 bytes
// or more, no box within the shared-memory budget).
bool box_plan(const problem& pr, box_params* p, const char** reason);
// Shared-memory wavefronts of one full tile (the loads' 16-byte stores, the gather's table and
// element loads) by the bank model's hardware rule, with every run's output chunks as they fall
// for a 16-byte aligned output.
std::int64_t box_wavefronts(const box_params& p, int elem_bytes);

}  // namespace xpose::detail::gpu
