// The packed tile of permute_packed: which sub-tensor one block moves, and the index arithmetic
// the kernel and the host tests share (everything here is __host__ __device__ or host-only).
//
// A permutation whose contiguous dims are short (the suite's random permutations have fastest dims
// of 1..7 elements, full reversals of rank 6..8 have dims of 4..32) gives a 2-D tile mostly empty
// rows. The packed tile instead is a box over several dims at once: on the input side it takes the
// dims in input order (fastest first) until the run it covers holds about R elements, on the
// output side likewise in output order, so a warp reads and writes runs of about R elements on both
// sides whatever the extents. Dims outside the box have tile extent 1; at most one dim per side is
// cut (tile extent < extent), so a tile at the tensor's edge is masked by two compares.
//
// Inside a tile, element slot q (0 <= q < volume) is read as the q-th element in *input* order and
// written as the q-th element in *output* order. Both mappings are fixed for all full tiles, so each
// thread computes its slots' offsets once (packed_slot_of) and every tile costs a base offset plus
// a register add per element. Shared memory holds the tile in input order, either padded (pad_unit
// elements after every pad_pitch) or swizzled (chunks of vin elements XORed with higher bits of
// their own index); the planner picks the layout by counting bank wavefronts of the accesses of
// both phases (packed_wavefronts).
#pragma once

#include <algorithm>
#include <cstdint>

#include "gpu/geometry.hpp"
#include "plan/problem.hpp"

namespace xpose::detail::gpu {

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31 by a multiply and a shift (Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994): with l = ceil(log2 d) and
// m = floor(2^32 (2^l - d) / d) + 1, n / d = (umulhi(m, n) + n) >> l. n < 2^31 keeps the sum
// below 2^32. A 32-bit division is about 20 instructions on the GPU, this is 3.
struct fast_div {
  std::uint32_t d = 1, mul = 1, shift = 0;
  fast_div() = default;
  explicit fast_div(std::uint32_t divisor) : d(divisor) {
    shift = 0;
    while ((std::uint64_t{1} << shift) < divisor) ++shift;
    mul = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << shift) - divisor)) / divisor + 1);
  }
  XPOSE_HD std::uint32_t div(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t hi = __umulhi(mul, n);
#else
    const auto hi = static_cast<std::uint32_t>((std::uint64_t{mul} * n) >> 32);
#endif
    return (hi + n) >> shift;
  }
};

inline constexpr int kPackedThreads = 256;  // one block: 8 warps
// Vector slots per thread on each side, a kernel template (packed_params::slots): 8 when both
// sides move single elements of at most 4 bytes, else 4. A box holds at most slots * 256 vectors
// of the narrower side's width. The packed-knob experiment (docs/results/packed-experiment-2026-11-29.txt,
// one element per access) had 16 slots lose to 4 or 8 everywhere (16384^2 f32 53% with 4 vs 20%
// with 16, rank-6 reversal f32 51% with 8 vs 20% with 16: the slot tables and values of 16 slots
// cost the occupancy). A first vector build with 4 slots for every width lost against the 8 slots
// it replaced on 4-byte scalar boxes ([6,7,19,17,3,14,21,5] perm 7,6,0,4,3,2,5,1 f32 39.7 -> 16.1%
// of copy, H200 2026-11-29; 45.4% with 8 slots in the next run). With vectors, 8 slots spill
// under the 64-register cap of 4 blocks per SM (cuobjdump --dump-resource-usage, nvcc 13.0:
// 56-72 bytes of stack for 2- and 4-byte words, 8 for single elements), so vectors keep 4.
inline constexpr int kPackedSlotsWide = 4, kPackedSlotsNarrow = 8;
constexpr int packed_slots(int vin, int vout, int elem_bytes) {
  return vin == 1 && vout == 1 && elem_bytes <= 4 ? kPackedSlotsNarrow : kPackedSlotsWide;
}
inline constexpr int kPackedNoDim = -1;
// Output-order dims an output vector may span. Two keep the gather's step at a few instructions
// (packed_gather_next); a general odometer over 4 dims compiled to ~40 instructions per gathered
// element (sm_90 SASS, nvcc 13.0), more than the byte kernel's whole budget.
inline constexpr int kPackedGatherLevels = 2;
inline constexpr std::uint32_t kPackedNoLimit = 0x10000;  // above any 16-bit tile coordinate

// A panel order over the tiles (set_tile_order). With dim k = tile_first numbered first, the other
// dims' tile index r (output order, last fastest) is split into panels of w: a panel holds w x n_k
// tiles, k's slowest and r's fastest inside it. w = 1 is k strictly first; the last panel holds
// what is left of r (last_w). panel_to_first maps a tile number to k-first numbering
// (r x n_k + c), which packed_origin_of then takes apart.
struct tile_panel {
  std::uint32_t w = 1, nk = 1;    // panel width (tiles of r), tiles along k
  std::uint32_t full_tiles = 0;   // tiles in whole panels
  std::uint32_t full_r = 0;       // r where the last panel starts
  std::uint32_t last_w = 1;       // the last panel's width (1 when there is none)
  fast_div whole_div, w_div, last_div;  // by w x nk, by w, by last_w
};

inline tile_panel make_tile_panel(std::uint32_t w, std::uint32_t nk, std::uint32_t rest) {
  tile_panel q;
  q.w = w, q.nk = nk;
  q.full_r = rest / w * w;
  q.full_tiles = q.full_r * nk;
  q.last_w = rest > q.full_r ? rest - q.full_r : 1;
  q.whole_div = fast_div(w * nk), q.w_div = fast_div(w), q.last_div = fast_div(q.last_w);
  return q;
}

XPOSE_HD inline std::uint32_t panel_to_first(const tile_panel& q, std::uint32_t tile) {
  std::uint32_t r, c;
  if (tile < q.full_tiles) {
    const std::uint32_t panel = q.whole_div.div(tile);
    const std::uint32_t in = tile - panel * q.w * q.nk;
    c = q.w_div.div(in);
    r = panel * q.w + (in - c * q.w);
  } else {
    const std::uint32_t in = tile - q.full_tiles;
    c = q.last_div.div(in);
    r = q.full_r + (in - c * q.last_w);
  }
  return r * q.nk + c;
}

struct packed_params {
  int rank = 0;                                   // the normalised problem's dims, output order
  std::int64_t in_stride[kMaxRank] = {}, out_stride[kMaxRank] = {};
  int ext[kMaxRank] = {}, t[kMaxRank] = {};       // extent and tile extent of each dim
  int ntiles[kMaxRank] = {};                      // ceil(ext / t)
  fast_div ntiles_div[kMaxRank];
  std::int64_t tiles = 1;                         // product of ntiles
  int tile_first = kPackedNoDim;                  // the dim numbered first (packed_origin_of)
  tile_panel panel;                               // and in panels of the other dims (set_tile_order)
  int volume = 1;                                 // elements of a full tile
  int n_box = 0;                                  // dims with t > 1
  int in_order[kMaxRank] = {}, out_order[kMaxRank] = {};  // those dims, fastest first on each side
  int pitch[kMaxRank] = {};                       // slot stride of each box dim in input order
  int run_in = 1, run_out = 1;                    // elements a full tile covers contiguously
  int pad_pitch = 0;                              // pad_unit padding elements per pad_pitch (0: none)
  int pad_unit = 1;                               // = vin, so padding keeps input vectors aligned
  fast_div pad_div;
  // Swizzle (when pad_pitch is 0): chunk c = index >> vin_log (vin elements, kept whole for the
  // vector stores) goes to c ^ ((c >> swz_shift) & swz_mask); swz_shift 0: none. swz_mask + 1
  // chunks span the 32 banks (128 bytes) and swz_shift >= log2(swz_mask + 1) leaves the bits it
  // reads unchanged, so the map is a bijection inside each group of swz_mask + 1 chunks.
  int vin_log = 0, swz_shift = 0, swz_mask = 0;
  // Vector widths in elements (powers of two, vin * elem_bytes <= 16): input slot u moves elements
  // u * vin .. u * vin + vin - 1 in input order as one load and one shared store, output slot o
  // moves o * vout .. in output order as vout shared loads and one store. A vector lies inside its
  // side's contiguous run of the box (dims from stride 1, whole but for the last) and starts
  // aligned in every tile: the run, every stride outside it and a cut run dim's span are multiples
  // of it (packed_plan), and pointers are aligned to width * elem_bytes (checked at launch; the
  // scalar plan runs otherwise).
  int vin = 1, vout = 1;
  int slots = kPackedSlotsWide;                   // slots per thread: packed_slots(vin, vout, size)
  // An output vector's elements are gathered from the input-ordered shared array. Along one dim
  // (gather_levels 0) they are out_fast_pitch apart. Across two (gather_levels 2: the output's
  // fastest box dim is shorter than the vector or does not divide it, the first two do) the kernel
  // steps out_fast_pitch along the first and, each time its coordinate reaches gather_t (its tile
  // extent), wraps it to 0 and adds gather_carry (the second dim's pitch less gather_t pitches of
  // the first): packed_gather_next.
  int out_fast_pitch = 0;
  int gather_levels = 0;
  int gather_t = 0, gather_carry = 0;
  int cut_a = kPackedNoDim, cut_b = kPackedNoDim; // the dims whose extent the tile does not divide
  // For each cut dim (a, b): its slot strides in input and output order and its tile extent, as
  // divisors, so a slot's coordinate along it is (q / stride) % t (packed_cut_coords).
  fast_div cut_in_stride[2], cut_out_stride[2], cut_t[2];
  int smem_elems = 1;                             // volume plus padding
};

// What one slot of a full tile is: offsets from the tile's origin on each side, shared-memory
// index on each side, and the slot's coordinates along the two cut dims (16 bits each) on each side.
struct packed_slot {
  std::int32_t in_rel = 0, out_rel = 0;
  std::int32_t s_in = 0, s_out = 0;
  std::int32_t pos = 0;  // the output-order slot's position in input order (s_out before padding)
  std::int32_t gather = 0;  // its coordinate along the output's fastest box dim (for gather_levels 2)
  std::uint32_t cut_in = 0, cut_out = 0;
};

// The shared layouts, as a compile-time choice for the kernel's per-element gather (a branch per
// element would cost more than the index arithmetic itself: the byte kernel is issue-bound there).
enum packed_layout : int { kPackedPlain = 0, kPackedPadded = 1, kPackedSwizzled = 2 };

XPOSE_HD inline packed_layout packed_layout_of(const packed_params& p) {
  return p.pad_pitch ? kPackedPadded : p.swz_shift ? kPackedSwizzled : kPackedPlain;
}

// The shared index of input-order position pos in layout L (which must be p's).
template <int L>
XPOSE_HD inline int packed_smem_index_as(const packed_params& p, int pos) {
  if constexpr (L == kPackedPadded) {
    return pos + static_cast<int>(p.pad_div.div(static_cast<std::uint32_t>(pos))) * p.pad_unit;
  } else if constexpr (L == kPackedSwizzled) {
    const int c = pos >> p.vin_log;
    return ((c ^ ((c >> p.swz_shift) & p.swz_mask)) << p.vin_log) | (pos & ((1 << p.vin_log) - 1));
  } else {
    return pos;
  }
}

XPOSE_HD inline int packed_smem_index(const packed_params& p, int pos) {
  switch (packed_layout_of(p)) {
    case kPackedPadded: return packed_smem_index_as<kPackedPadded>(p, pos);
    case kPackedSwizzled: return packed_smem_index_as<kPackedSwizzled>(p, pos);
    default: return pos;
  }
}

XPOSE_HD inline packed_slot packed_slot_of(const packed_params& p, int q) {
  packed_slot s;
  int rem = q;
  for (int i = 0; i < p.n_box; ++i) {  // q as input-order coordinates
    const int d = p.in_order[i];
    const int c = rem % p.t[d];
    rem /= p.t[d];
    s.in_rel += static_cast<std::int32_t>(c * p.in_stride[d]);
    if (d == p.cut_a) s.cut_in |= static_cast<std::uint32_t>(c);
    if (d == p.cut_b) s.cut_in |= static_cast<std::uint32_t>(c) << 16;
  }
  s.s_in = packed_smem_index(p, q);
  rem = q;
  int pos = 0;
  for (int i = 0; i < p.n_box; ++i) {  // q as output-order coordinates
    const int d = p.out_order[i];
    const int c = rem % p.t[d];
    rem /= p.t[d];
    s.out_rel += static_cast<std::int32_t>(c * p.out_stride[d]);
    pos += c * p.pitch[d];
    if (i == 0) s.gather = c;
    if (d == p.cut_a) s.cut_out |= static_cast<std::uint32_t>(c);
    if (d == p.cut_b) s.cut_out |= static_cast<std::uint32_t>(c) << 16;
  }
  s.pos = pos;
  s.s_out = packed_smem_index(p, pos);
  return s;
}

// Advances (*pos, *c) from one output-order element of a vector to the next (gather_levels 2):
// c is the coordinate along the output's fastest box dim; a vector never wraps the second dim.
XPOSE_HD inline void packed_gather_next(const packed_params& p, int* pos, std::int32_t* c) {
  *pos += p.out_fast_pitch;
  if (++*c == p.gather_t) {
    *c = 0;
    *pos += p.gather_carry;
  }
}

// The unpadded input-order position of element i of the output vector whose first element has
// position pos and fastest-dim coordinate c (the kernel steps instead of calling this per i).
XPOSE_HD inline int packed_gather_pos(const packed_params& p, int pos, std::int32_t c, int i) {
  if (p.gather_levels == 0) return pos + i * p.out_fast_pitch;
  for (int n = 0; n < i; ++n) packed_gather_next(p, &pos, &c);
  return pos;
}

// The slot's coordinates along the cut dims (a in bits 0-15, b in bits 16-31) as the input-order
// (in_side) or output-order slot q: what packed_slot_of computes, by multiply-shift divisions, for
// the tiles at the tensor's edge.
XPOSE_HD inline std::uint32_t packed_cut_coords(const packed_params& p, int q, bool in_side) {
  std::uint32_t r = 0;
  for (int i = 0; i < 2; ++i) {
    if ((i == 0 ? p.cut_a : p.cut_b) == kPackedNoDim) continue;
    const std::uint32_t steps = (in_side ? p.cut_in_stride[i] : p.cut_out_stride[i]).div(static_cast<std::uint32_t>(q));
    const std::uint32_t c = steps - p.cut_t[i].div(steps) * p.cut_t[i].d;
    r |= c << (16 * i);
  }
  return r;
}

// Where tile `tile` starts on each side, and how much of each cut dim it holds (kPackedNoLimit when
// the dim is not cut). Tiles are numbered in output order of their origins (last dim fastest),
// except that p.tile_first, where set (tile_first_dim), is numbered before all of them.
struct packed_origin {
  std::int64_t in = 0, out = 0;
  std::uint32_t lim_a = kPackedNoLimit, lim_b = kPackedNoLimit;
  bool full = true;
};

// Params: packed_params or runs_params (the same tile-grid fields). With kStart, *dim_start also
// receives the tile's first coordinate along dim `dim` (permute_runs' owned output ends); without
// it the code is what every other kernel compiled before.
template <bool kStart = false, class Params>
XPOSE_HD inline packed_origin packed_origin_of(const Params& p, std::uint32_t tile, int dim = kPackedNoDim,
                                               int* dim_start = nullptr) {
  packed_origin o;
  std::uint32_t rem = p.panel.w > 1 ? panel_to_first(p.panel, tile) : tile;
  // Step s = rank takes p.tile_first (none when unset); steps rank-1 .. 0 take the dims last first,
  // skipping the one already taken. One loop body: with a loop for each order, ptxas gave the 1- and
  // 2-byte permute_box kernels stack frames and the f16 suite lost about 3 points of copy on the
  // plans whose order did not change; with one body those moved -0.08 on average (H100, 2026-12-05).
  for (int s = p.rank; s >= 0; --s) {
    const int k = s == p.rank ? p.tile_first : s;
    if (k == kPackedNoDim || (s < p.rank && s == p.tile_first)) continue;
    const std::uint32_t q = p.ntiles_div[k].div(rem);
    const int c = static_cast<int>(rem - q * static_cast<std::uint32_t>(p.ntiles[k]));
    rem = q;
    const int start = c * p.t[k];
    if constexpr (kStart) {
      if (k == dim) *dim_start = start;
    }
    o.in += start * p.in_stride[k];
    o.out += start * p.out_stride[k];
    const int left = p.ext[k] - start;
    if (k == p.cut_a && left < p.t[k]) o.lim_a = static_cast<std::uint32_t>(left), o.full = false;
    if (k == p.cut_b && left < p.t[k]) o.lim_b = static_cast<std::uint32_t>(left), o.full = false;
  }
  return o;
}

// The tile order (host side; Params as above). Walk the input's dims fastest first: the first one
// that tiles cut (the faster ones are whole in every tile) is where a tile's input stops being
// contiguous, and its neighbour along that dim starts right after it in memory. Where that seam
// falls inside a 64-byte DRAM burst, both tiles read the burst; in output order they are a whole
// plane of tiles apart, too far for L2 to keep the burst between them. f32 [23,201,168,85] perm
// 3,2,1,0 under permute_runs (input runs of 116 B, the 85-long dim cut in three) read 1.53 times the
// tensor from DRAM (H100, Nsight Compute, 2026-12-05, results/runs-box-memprofile-f32-2026-12-05-
// h100.log); numbered along that dim first it read 1.00 times (H200, results/tile-order-memprofile-
// 2026-12-05-h200.log) and ran 62.3 -> 67.3% of copy.
//
// Only where that dim has few tiles (kTileFirstMaxTiles): numbering it first puts the tiles that
// are neighbours in the output that many tile numbers apart. H200, 2026-12-05, same-run A/B of the
// order on 11 suite cases, two rounds (scripts/cases/tile_order_cases.txt, results/tile-order-ab-2026-12-
// 05-h200.json), by that dim's tile count: 2-5 tiles gained +0.3 to +5.0 (i8 [29048,22,5,2,7,6]
// +4.0, f64 [7262,22,5,2,7,6] +3.0, f16 [1384,19,10,3,10,17] +2.2); 6-84 tiles -6.3 to -0.1 (f32
// [194,12,21,3,8,19,3], 8 tiles, -6.3; f32 [543,20,11,11,17,3], 11, -5.8; f16 [46,201,168,85], 84,
// -5.0). Seams on a burst boundary share nothing and keep the output order, as do seams that the
// output order already numbers first (the output's dims faster than the seam's are whole).
//
// And only where the tile's contiguous input span (t x |stride| x element size) is short
// (kTileFirstMaxSpanBytes): the shared bursts are at most one per span, so a 116 B span can waste
// over half the reads and a 5 KB one about one percent, less than the order costs. H100,
// 2026-12-05, same-run suites of main and the branch for f32, f16 and i8 (i8 with the loop of each
// order, see packed_origin_of; results/tile-order-suites-2026-12-05-h100.json): the 16 plans with
// spans of 84-340 B gained -1.2 to +7.0 (f32 [23,201,168,85] 116 B +7.0, f16 [1384,19,10,3,10,17]
// 170 B +6.1, f32 [692,19,10,3,10,17] 340 B +3.6; two lost, by 1.0 and 1.2); the 21 with spans of
// 504 B to 39 KB gained -2.9 to +1.2 (f32 [180400,124,3,1] 504 B -1.2, [5799,29,57,7] 532 B -1.9,
// [13,9,25,8,13,9,4,6] 6048 B -2.9). The bound sits between 340 and 504, at six bursts.
inline constexpr int kDramBurstBytes = 64;
inline constexpr int kTileFirstMaxTiles = 5;
inline constexpr std::int64_t kTileFirstMaxSpanBytes = 6 * kDramBurstBytes;
// The input's first cut dim (fastest first; kPackedNoDim when tiles cut none).
template <class Params>
inline int input_seam_dim(const Params& p) {
  int order[kMaxRank], n = 0;
  for (int k = 0; k < p.rank; ++k) order[n++] = k;
  std::sort(order, order + n, [&](int a, int b) { return std::llabs(p.in_stride[a]) < std::llabs(p.in_stride[b]); });
  for (int i = 0; i < n; ++i)
    if (p.ntiles[order[i]] > 1) return order[i];
  return kPackedNoDim;
}

// The tile's contiguous input bytes up to the seam across dim k: t x |stride| x element size.
template <class Params>
inline std::int64_t input_span_bytes(const Params& p, int k, int elem_bytes) {
  return std::int64_t{p.t[k]} * std::llabs(p.in_stride[k]) * elem_bytes;
}

// Tile numbers between neighbours across dim k in output order: the tiles of the faster dims.
template <class Params>
inline std::int64_t output_reach_tiles(const Params& p, int k) {
  std::int64_t n = 1;
  for (int j = k + 1; j < p.rank; ++j) n *= p.ntiles[j];
  return n;
}

template <class Params>
inline int tile_first_dim(const Params& p, int elem_bytes) {
  const int k = input_seam_dim(p);
  if (k == kPackedNoDim) return kPackedNoDim;
  const std::int64_t span = input_span_bytes(p, k, elem_bytes);
  const bool mid_burst = span % kDramBurstBytes != 0;
  // Every output dim faster than k whole: the output order numbers k first already.
  const bool first_already = output_reach_tiles(p, k) == 1;
  const bool pays = mid_burst && span <= kTileFirstMaxSpanBytes && p.ntiles[k] <= kTileFirstMaxTiles;
  return pays && !first_already ? k : kPackedNoDim;
}

// Panels. Where tile_first_dim declines a seam inside a burst whose neighbours are far apart in
// output order (reads and writes of the tiles between them at least kTilePanelMinReachBytes, most
// of L2, so the shared burst has left it), number that dim first inside panels of kTilePanelBytes
// of tiles: the neighbours are then one panel width apart, and consecutive tiles still step along
// the output as before.
//
// Only where the tile's contiguous input span is at most kTilePanelMaxSpanBytes (16 bursts): a
// seam re-reads at most one burst per span, 6% of the reads at 1 KiB. H100, 2026-12-05, same-run
// suites of main and the branch for i8, f16, f32, f64 and c128 (results/tile-panel-suites-2026-12-
// 05-h100.json): the 17 plans it put in panels with spans of 228-1064 B gained +0.0 to +4.2, mean
// +1.5 (c128 [2064,25,20,13,5] 528 B +4.2, c128 [21,25,14,19,19,25] 400 B +3.7, f64 the same 400 B
// +3.1, f32 [194,12,21,3,8,19,3] 228 B +1.7); the 26 with spans of 1196 B to 39 KB gained -2.1 to
// +1.8, mean -0.2. The bound sits between 1064 and 1196. The 262 plans it left alone moved -0.03 on
// average: the panel map costs nothing where it is off.
inline constexpr std::int64_t kTilePanelMinReachBytes = std::int64_t{32} << 20;
inline constexpr std::int64_t kTilePanelBytes = std::int64_t{4} << 20;
inline constexpr std::int64_t kTilePanelMaxSpanBytes = 16 * kDramBurstBytes;

// Dim k numbered first in panels of w tiles of the other dims (w clamped to 1 .. all of them).
template <class Params>
inline void number_in_panels(Params& p, int k, std::int64_t w) {
  const std::int64_t rest = p.tiles / p.ntiles[k];
  w = std::clamp<std::int64_t>(w, 1, rest);
  p.tile_first = k;
  p.panel = make_tile_panel(static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(p.ntiles[k]),
                            static_cast<std::uint32_t>(rest));
}

template <class Params>
inline void set_tile_order(Params& p, int elem_bytes) {
  p.panel = tile_panel{};
  p.tile_first = tile_first_dim(p, elem_bytes);
  if (p.tile_first != kPackedNoDim) return;
  const int k = input_seam_dim(p);
  if (k == kPackedNoDim) return;
  std::int64_t tile_bytes = elem_bytes;
  for (int j = 0; j < p.rank; ++j) tile_bytes *= p.t[j];
  const std::int64_t span = input_span_bytes(p, k, elem_bytes);
  if (span % kDramBurstBytes == 0 || span > kTilePanelMaxSpanBytes) return;
  if (2 * output_reach_tiles(p, k) * tile_bytes < kTilePanelMinReachBytes) return;
  number_in_panels(p, k, kTilePanelBytes / tile_bytes);
}

XPOSE_HD inline bool packed_in_bounds(const packed_origin& o, std::uint32_t cut) {
  return (cut & 0xffffu) < o.lim_a && (cut >> 16) < o.lim_b;
}

// What configure_permute_packed hands the launch: the plan with vectors and the one without, for
// pointers not aligned to the vectors (the same when the problem allows no vectors).
struct packed_plans {
  packed_params vec, scalar;
};

// The host side (packed_tile.cpp).
// Fills *p for a normalised problem; false (with *reason) when the kernel cannot run it: more than
// 2^31 elements, or offsets inside a tile beyond 32 bits. With vectors = false both widths are 1
// (the plan for pointers that are not aligned to the vectors).
bool packed_plan(const problem& pr, bool vectors, packed_params* p, const char** reason);
// Shared-memory wavefronts of one full tile (vector stores and output-order loads) for p's padding,
// by the bank model's hardware rule (model::count_wavefronts).
std::int64_t packed_wavefronts(const packed_params& p, int elem_bytes);

}  // namespace xpose::detail::gpu
