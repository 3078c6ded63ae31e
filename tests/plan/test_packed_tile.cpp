// permute_packed's host-side arithmetic, run on the CPU exactly as the kernel runs it: the box
// choice, the fast division, the slot tables and the tile origins (gpu/packed_tile.hpp). The
// emulation moves every tile through a simulated shared array and checks that each output element
// receives the right input element exactly once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/packed_tile.hpp"
#include "model/bank_model.hpp"
#include "plan/problem.hpp"

namespace {

using xpose::detail::problem;
using namespace xpose::detail::gpu;

TEST(FastDiv, MatchesIntegerDivision) {
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= 3000; ++d) divisors.push_back(d);
  for (int i = 0; i < 3000; ++i) divisors.push_back(1 + static_cast<std::uint32_t>(rng() % 0x7fffffffu));
  divisors.push_back(0x7fffffffu);
  for (std::uint32_t d : divisors) {
    const fast_div f(d);
    const std::uint32_t probes[] = {0, 1, d - 1, d, d + 1, 2 * d - 1 < 0x7fffffffu ? 2 * d - 1 : 5, 0x7ffffffeu,
                                    0x7fffffffu};
    for (std::uint32_t n : probes) ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    for (int i = 0; i < 50; ++i) {
      const auto n = static_cast<std::uint32_t>(rng() % 0x80000000u);
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
  }
}

// Input offset of every output offset, from the problem's own definition.
std::vector<std::int64_t> expected_sources(const problem& pr, std::int64_t out_size) {
  std::vector<std::int64_t> src(out_size, -1);
  std::int64_t idx[xpose::kMaxRank] = {};
  for (std::int64_t e = 0; e < pr.count(); ++e) {
    std::int64_t io = 0, oo = 0;
    for (int k = 0; k < pr.rank; ++k) io += idx[k] * pr.dims[k].in_stride, oo += idx[k] * pr.dims[k].out_stride;
    src[oo] = io;
    for (int k = pr.rank - 1; k >= 0 && ++idx[k] == pr.dims[k].extent; --k) idx[k] = 0;
  }
  return src;
}

// Runs the kernel's schedule on the host, vectors included: returns an empty string when every
// output element got its input element exactly once and every vector the kernel would issue is
// contiguous and aligned on its side (global memory and shared memory).
std::string emulate(const problem& pr, const packed_params& p) {
  std::int64_t out_size = 1;
  for (int k = 0; k < pr.rank; ++k) out_size += (pr.dims[k].extent - 1) * pr.dims[k].out_stride;
  const auto want = expected_sources(pr, out_size);
  std::vector<std::int64_t> got(out_size, -1);
  std::vector<int> writes(out_size, 0);
  std::vector<std::int64_t> smem(p.smem_elems, -1);
  std::vector<std::int64_t> stamp(p.smem_elems, -1);
  if (p.volume % p.vin || p.volume % p.vout) return "the volume is not a number of vectors";
  const int in_vectors = p.volume / p.vin, out_vectors = p.volume / p.vout;
  if (p.slots != packed_slots(p.vin, p.vout, pr.elem_bytes)) return "slots disagree with the widths";
  if (in_vectors > p.slots * kPackedThreads || out_vectors > p.slots * kPackedThreads)
    return "the box needs more slots than the threads have";
  std::vector<packed_slot> table(p.volume);
  for (int q = 0; q < p.volume; ++q) {
    table[q] = packed_slot_of(p, q);
    if (table[q].s_in < 0 || table[q].s_in >= p.smem_elems || table[q].s_out < 0 || table[q].s_out >= p.smem_elems)
      return "shared index out of range";
  }
  for (int q = 0; q < p.volume; ++q) {  // the kernel's on-the-fly cut coordinates agree with the tables
    if (packed_cut_coords(p, q, true) != table[q].cut_in || packed_cut_coords(p, q, false) != table[q].cut_out)
      return "cut coordinates of slot " + std::to_string(q) + " disagree";
    if (packed_smem_index(p, q) != table[q].s_in) return "input-side shared index disagrees";
  }
  // Vectors: what the kernel computes for the first element must give every element's place.
  for (int u = 0; u < in_vectors; ++u) {
    const packed_slot& a = table[u * p.vin];
    if (a.s_in % p.vin) return "an input vector is not aligned in shared memory";
    for (int i = 1; i < p.vin; ++i)
      if (table[u * p.vin + i].in_rel != a.in_rel + i || table[u * p.vin + i].s_in != a.s_in + i)
        return "input vector " + std::to_string(u) + " is not contiguous";
  }
  for (int o = 0; o < out_vectors; ++o) {
    const packed_slot& b = table[o * p.vout];
    for (int i = 0; i < p.vout; ++i) {
      const int index = p.vout == 1 ? b.s_out : packed_smem_index(p, packed_gather_pos(p, b.pos, b.gather, i));
      if (table[o * p.vout + i].out_rel != b.out_rel + i || index != table[o * p.vout + i].s_out)
        return "output vector " + std::to_string(o) + " is not contiguous";
    }
  }
  constexpr std::int64_t kGarbage = -2;  // what a slot outside an edge tile leaves in shared memory
  for (std::int64_t t = 0; t < p.tiles; ++t) {
    const packed_origin o = packed_origin_of(p, static_cast<std::uint32_t>(t));
    for (int u = 0; u < in_vectors; ++u) {  // every used slot stores, as the kernel does
      const int q0 = u * p.vin;
      const bool inside = o.full || packed_in_bounds(o, packed_cut_coords(p, q0, true));
      if ((o.in + table[q0].in_rel) % p.vin) return "an input vector is not aligned in global memory";
      for (int i = 0; i < p.vin; ++i) {
        const int q = q0 + i;
        if (!o.full && packed_in_bounds(o, table[q].cut_in) != inside) return "an input vector straddles the edge";
        if (stamp[table[q].s_in] == t) return "two slots store to one shared element";
        smem[table[q].s_in] = inside ? o.in + table[q].in_rel : kGarbage;
        stamp[table[q].s_in] = t;
      }
    }
    for (int v = 0; v < out_vectors; ++v) {
      const int q0 = v * p.vout;
      const bool inside = o.full || packed_in_bounds(o, packed_cut_coords(p, q0, false));
      if ((o.out + table[q0].out_rel) % p.vout) return "an output vector is not aligned in global memory";
      for (int i = 0; i < p.vout; ++i) {
        const int q = q0 + i;
        if (!o.full && packed_in_bounds(o, table[q].cut_out) != inside) return "an output vector straddles the edge";
        if (!inside) continue;
        if (stamp[table[q].s_out] != t) return "a slot reads a shared element this tile did not store";
        if (smem[table[q].s_out] == kGarbage) return "a slot writes out an element its tile did not load";
        const std::int64_t dst = o.out + table[q].out_rel;
        if (dst < 0 || dst >= out_size) return "store outside the output";
        got[dst] = smem[table[q].s_out];
        ++writes[dst];
      }
    }
  }
  for (std::int64_t i = 0; i < out_size; ++i) {
    if (want[i] < 0) continue;  // a gap of a strided output
    if (writes[i] != 1) return "output offset " + std::to_string(i) + " written " + std::to_string(writes[i]) + " times";
    if (got[i] != want[i]) return "output offset " + std::to_string(i) + " got the wrong element";
  }
  return "";
}

problem permuted(std::vector<std::int64_t> extents, std::vector<int> perm, int eb) {
  xpose::permute_desc d;
  d.extents = std::move(extents);
  d.perm = std::move(perm);
  d.elem_bytes = eb;
  return xpose::detail::normalize(xpose::detail::to_problem(d));
}

TEST(PackedTile, RandomPermutationsMoveEveryElementOnce) {
  std::mt19937_64 rng(20261129);
  int planned = 0, vectorised = 0, gathered = 0, first = 0, paneled = 0;
  for (int c = 0; c < 300; ++c) {
    const int rank = 1 + static_cast<int>(rng() % 8);
    const int eb = 1 << (rng() % 5);
    std::vector<std::int64_t> ext(rank);
    std::int64_t count = 1;
    for (auto& e : ext) {
      e = 1 + static_cast<std::int64_t>(rng() % (rank <= 3 ? 90 : rank <= 5 ? 12 : 5));
      count *= e;
    }
    if (count > 300000) continue;
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    const problem pr = permuted(ext, perm, eb);
    if (pr.rank == 0) continue;
    SCOPED_TRACE(pr.describe() + " elem " + std::to_string(eb));
    for (const bool vectors : {true, false}) {
      packed_params p;
      const char* reason = "";
      ASSERT_TRUE(packed_plan(pr, vectors, &p, &reason)) << reason;
      EXPECT_LE(p.vin * eb, 16);
      EXPECT_LE(p.vout * eb, 16);
      if (!vectors) EXPECT_EQ(p.vin * p.vout, 1);
      vectorised += p.vin > 1 || p.vout > 1;
      gathered += p.gather_levels > 0;
      first += p.tile_first != kPackedNoDim;
      EXPECT_EQ(emulate(pr, p), "") << (vectors ? "vectors" : "scalar");
      if (const int k = input_seam_dim(p); k != kPackedNoDim && p.tiles / p.ntiles[k] > 2) {
        number_in_panels(p, k, 2 + c % 3);  // panels of 2-4 (set_tile_order picks them for large tensors only)
        paneled += p.panel.w > 1 && p.panel.full_r * p.panel.nk < p.tiles;
        EXPECT_EQ(emulate(pr, p), "") << (vectors ? "vectors" : "scalar") << ", in panels of " << p.panel.w;
      }
    }
    ++planned;
  }
  EXPECT_GT(planned, 200);
  EXPECT_GT(vectorised, 50);  // the random extents give both widths often enough to test them
  EXPECT_GT(gathered, 10);    // and output vectors across several dims
  EXPECT_GT(first, 10);       // and tiles numbered along an input dim first (tile_first_dim)
  EXPECT_GT(paneled, 20);     // and in panels with a partial last one
}

// panel_to_first maps the panel numbering onto k-first numbering (r x n_k + c) one to one: inside
// a panel the other dims' index r steps fastest and k's index c slowest, the last panel as wide as
// what is left of r; w = 1 is k-first itself.
TEST(PackedTile, TilePanelNumbersEveryTileOnce) {
  for (const auto& [w, nk, rest] : {std::array<std::uint32_t, 3>{1, 3, 7}, {3, 4, 10}, {5, 2, 5}, {3, 7, 3}, {2, 1, 9}, {4, 6, 9}}) {
    SCOPED_TRACE("w " + std::to_string(w) + " nk " + std::to_string(nk) + " rest " + std::to_string(rest));
    const tile_panel q = make_tile_panel(w, nk, rest);
    std::vector<int> seen(static_cast<std::size_t>(nk) * rest, 0);
    for (std::uint32_t tile = 0; tile < nk * rest; ++tile) {
      const std::uint32_t f = panel_to_first(q, tile);
      ASSERT_LT(f, nk * rest);
      ++seen[f];
      const std::uint32_t r = f / nk, c = f % nk;
      const std::uint32_t whole = rest / w * w * nk;  // tiles in whole panels
      if (tile < whole) {
        EXPECT_EQ(c, tile % (w * nk) / w) << tile;
        EXPECT_EQ(r, tile / (w * nk) * w + tile % w) << tile;
      } else {
        const std::uint32_t left = rest - rest / w * w;
        EXPECT_EQ(c, (tile - whole) / left) << tile;
        EXPECT_EQ(r, rest / w * w + (tile - whole) % left) << tile;
      }
      if (w == 1) EXPECT_EQ(f, tile);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(nk * rest));
  }
}

// set_tile_order puts tiles in panels only where tile_first_dim declines the input's seam, the seam
// falls inside a burst, the span up to it is at most kTilePanelMaxSpanBytes, and the seam's
// neighbours are far apart in output order (kTilePanelMinReachBytes).
TEST(PackedTile, TilePanelsOnlyForShortSpansFarApart) {
  // Output order: dims 0, 1, 2 (fastest); the input's fastest is dim 1, cut in 10 tiles (more than
  // kTileFirstMaxTiles); dim 2 has `reach` tiles of 16, the tile numbers between seam neighbours.
  const auto params = [](int t1, std::int64_t reach) {
    packed_params p;
    p.rank = 3;
    const std::int64_t ext[3] = {4, 10 * t1, 16 * reach};
    const int t[3] = {2, t1, 16};
    const std::int64_t in_stride[3] = {ext[1] * ext[2], 1, ext[1]}, out_stride[3] = {ext[1] * ext[2], ext[2], 1};
    p.tiles = 1;
    for (int k = 0; k < 3; ++k) {
      p.ext[k] = static_cast<int>(ext[k]), p.t[k] = t[k], p.in_stride[k] = in_stride[k], p.out_stride[k] = out_stride[k];
      p.ntiles[k] = static_cast<int>((ext[k] + t[k] - 1) / t[k]);
      p.ntiles_div[k] = fast_div(static_cast<std::uint32_t>(p.ntiles[k]));
      p.tiles *= p.ntiles[k];
    }
    return p;
  };
  packed_params p = params(71, 2000);  // tiles of 2 x 71 x 16 x 4 B = 9088 B; 2000 apart: 36 MB
  set_tile_order(p, 4);                // 71 x 4 = 284 B
  EXPECT_EQ(p.tile_first, 1);
  EXPECT_EQ(p.panel.w, static_cast<std::uint32_t>(kTilePanelBytes / 9088));
  EXPECT_EQ(p.panel.nk, 10u);
  p = params(71, 2000);
  set_tile_order(p, 16);  // 71 x 16 = 1136 B: longer than kTilePanelMaxSpanBytes
  EXPECT_EQ(p.tile_first, kPackedNoDim);
  EXPECT_EQ(p.panel.w, 1u);
  p = params(64, 2000);
  set_tile_order(p, 4);  // 64 x 4 = 256 B: the seam is a burst boundary
  EXPECT_EQ(p.tile_first, kPackedNoDim);
  p = params(71, 1000);
  set_tile_order(p, 4);  // 1000 apart: 18 MB, within L2's reach
  EXPECT_EQ(p.tile_first, kPackedNoDim);
  EXPECT_EQ(p.panel.w, 1u);
}

// tile_first_dim numbers first the input's first cut dim where its seam falls inside a DRAM burst,
// its tiles' input spans are short and it has few tiles, and packed_origin_of still gives every tile
// origin once, the tiles along that dim at consecutive numbers.
TEST(PackedTile, TileOrderNumbersTheInputSeamFirst) {
  packed_params p;
  p.rank = 3;  // output order: dims 0, 1, 2 (fastest); the input's fastest is dim 1
  const int ext[3] = {4, 85, 6}, t[3] = {2, 29, 2};
  const std::int64_t in_stride[3] = {85 * 6, 1, 85}, out_stride[3] = {85 * 6, 6, 1};
  for (int k = 0; k < 3; ++k) {
    p.ext[k] = ext[k], p.t[k] = t[k], p.in_stride[k] = in_stride[k], p.out_stride[k] = out_stride[k];
    p.ntiles[k] = (ext[k] + t[k] - 1) / t[k];
    p.ntiles_div[k] = fast_div(static_cast<std::uint32_t>(p.ntiles[k]));
    p.tiles *= p.ntiles[k];
  }
  EXPECT_EQ(tile_first_dim(p, 4), 1);             // 29 x 4 = 116 B: inside a burst, 3 tiles
  EXPECT_EQ(tile_first_dim(p, 8), 1);             // 29 x 8 = 232 B: 3.6 bursts
  EXPECT_EQ(tile_first_dim(p, 16), kPackedNoDim);  // 29 x 16 = 464 B: longer than kTileFirstMaxSpanBytes
  p.t[1] = 32, p.ntiles[1] = 3;
  EXPECT_EQ(tile_first_dim(p, 2), kPackedNoDim);   // 32 x 2 = 64 B: the seam is a burst boundary
  p.t[1] = 10, p.ntiles[1] = 9;
  EXPECT_EQ(tile_first_dim(p, 4), kPackedNoDim);   // 9 tiles: more than kTileFirstMaxTiles
  p.t[1] = 29, p.ntiles[1] = 3;
  p.t[2] = 6, p.ntiles[2] = 1;
  EXPECT_EQ(tile_first_dim(p, 4), kPackedNoDim);  // the output order already numbers dim 1 first
  p.t[2] = 2, p.ntiles[2] = 3;
  p.tile_first = 1;
  std::vector<int> seen(static_cast<std::size_t>(ext[0]) * ext[1] * ext[2], 0);
  for (std::uint32_t tile = 0; tile < p.tiles; ++tile) {
    const packed_origin o = packed_origin_of(p, tile);
    ASSERT_GE(o.in, 0);
    ++seen[static_cast<std::size_t>(o.in)];
    const std::int64_t along = o.in % 85;  // the dim numbered first: consecutive tiles step along it
    EXPECT_EQ(along, 29 * (tile % 3)) << tile;
    EXPECT_EQ(o.in % 510 / (2 * 85), tile / 3 % 3) << tile;  // then the output's fastest dim
    EXPECT_EQ(o.in / (2 * 510), tile / 9) << tile;           // then the slowest
    EXPECT_EQ(o.lim_a, kPackedNoLimit);  // no cut dims declared: every tile full
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(p.tiles));
}

// packed_wavefronts walks each lane's gather once per warp and counts with count_wavefronts_total;
// the plain form (every gathered element's position from the start, count_wavefronts' full result)
// must give the same totals for the plans of random permutations and for their padded and swizzled
// layouts.
std::int64_t plain_packed_wavefronts(const packed_params& p, int eb) {
  namespace m = xpose::model;
  std::int64_t total = 0;
  std::vector<m::lane_access> lanes(m::kWarpSize);
  auto fill = [&](int l, bool active, int index, int width) {
    m::lane_access& a = lanes[l];
    a = {};
    a.lane = l;
    a.active = active;
    if (active) m::place(a, static_cast<std::int64_t>(index) * eb, width);
  };
  const int in_vectors = p.volume / p.vin, out_vectors = p.volume / p.vout;
  for (int w0 = 0; w0 < in_vectors; w0 += m::kWarpSize) {
    for (int l = 0; l < m::kWarpSize; ++l)
      fill(l, w0 + l < in_vectors, w0 + l < in_vectors ? packed_smem_index(p, (w0 + l) * p.vin) : 0, eb * p.vin);
    total += m::count_wavefronts(m::smem_op::kStore, eb * p.vin, lanes).wavefronts;
  }
  for (int w0 = 0; w0 < out_vectors; w0 += m::kWarpSize)
    for (int i = 0; i < p.vout; ++i) {
      for (int l = 0; l < m::kWarpSize; ++l) {
        const bool active = w0 + l < out_vectors;
        const packed_slot b = packed_slot_of(p, active ? (w0 + l) * p.vout : 0);
        fill(l, active, active ? packed_smem_index(p, packed_gather_pos(p, b.pos, b.gather, i)) : 0, eb);
      }
      total += m::count_wavefronts(m::smem_op::kLoad, eb, lanes).wavefronts;
    }
  return total;
}

TEST(PackedTile, WavefrontScoreMatchesThePlainCount) {
  std::mt19937_64 rng(20261130);
  int compared = 0;
  for (int c = 0; c < 200; ++c) {
    const int rank = 2 + static_cast<int>(rng() % 7);
    const int eb = 1 << (rng() % 5);
    std::vector<std::int64_t> ext(rank);
    for (auto& e : ext) e = 1 + static_cast<std::int64_t>(rng() % (rank <= 3 ? 300 : rank <= 5 ? 24 : 8));
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    const problem pr = permuted(ext, perm, eb);
    if (pr.rank == 0) continue;
    packed_params p;
    const char* reason = "";
    if (!packed_plan(pr, true, &p, &reason)) continue;
    SCOPED_TRACE(pr.describe() + " elem " + std::to_string(eb));
    EXPECT_EQ(packed_wavefronts(p, eb), plain_packed_wavefronts(p, eb));
    ++compared;
  }
  EXPECT_GT(compared, 150);
}

TEST(PackedTile, StridedInputAndOutput) {
  xpose::permute_desc d;
  d.extents = {7, 9, 5};
  d.perm = {2, 0, 1};
  d.in_strides = {200, 21, 2};   // padded rows, every other element
  d.out_strides = {90, 10, 1};   // output rows padded from 9 to 10
  const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
  packed_params p;
  const char* reason = "";
  ASSERT_TRUE(packed_plan(pr, true, &p, &reason)) << reason;
  EXPECT_EQ(emulate(pr, p), "");
}

// The suite's worst cases for folded 2-D tiles: the box reaches long runs on both sides.
TEST(PackedTile, ShortDimsStillGiveLongRuns) {
  struct c {
    std::vector<std::int64_t> ext;
    std::vector<int> perm;
    int min_run;
  };
  const c cases[] = {
      {{16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, 32},       // rank-6 reversal
      {{128561, 174, 3}, {0, 2, 1}, 128},                       // a batch of 174 x 3 transposes
      {{22, 12, 5, 21, 6, 20, 20}, {5, 2, 4, 0, 3, 6, 1}, 20},  // random rank 7
      {{13, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 24},
  };
  for (const auto& k : cases) {
    const problem pr = permuted(k.ext, k.perm, 4);
    SCOPED_TRACE(pr.describe());
    packed_params p;
    const char* reason = "";
    ASSERT_TRUE(packed_plan(pr, true, &p, &reason)) << reason;
    EXPECT_GE(p.run_in, k.min_run);
    EXPECT_GE(p.run_out, k.min_run);
    EXPECT_GE(p.volume, 512);  // half of one element per slot or more
  }
}

// Vector widths: 16 bytes on both sides when the fastest dims and strides allow, narrower when the
// extents have a smaller power of two, none when a stride breaks alignment. Input vectors may span
// several dims of the contiguous input run; output vectors stay on the output's fastest dim.
TEST(PackedTile, VectorWidthsFollowExtentsAndStrides) {
  struct c {
    std::vector<std::int64_t> ext;
    std::vector<int> perm;
    int eb, vin, vout;
  };
  const c cases[] = {
      {{4, 64, 128, 128}, {0, 2, 3, 1}, 1, 16, 16},   // NCHW -> NHWC of bytes
      {{4, 64, 128, 128}, {0, 2, 3, 1}, 4, 4, 4},
      {{1000, 1200}, {1, 0}, 2, 8, 8},
      {{1000, 32, 48}, {0, 2, 1}, 1, 16, 16},        // a batch of 32 x 48: 48 = 16 * 3, 32
      {{5, 7, 9}, {2, 1, 0}, 4, 1, 1},                // odd extents: no vector divides any run
      {{5, 6, 7}, {2, 1, 0}, 4, 2, 2},                // vectors across dims: runs 7 x 6 x 5 and 5 x 6 x 7
      {{300, 6, 34}, {0, 2, 1}, 4, 4, 4},             // 300 batches of 6 x 34: output vectors over 6 x 34
      {{607, 184, 6}, {0, 2, 1}, 4, 4, 4},            // input run 6 x 184 (or more), output 184 = 8 x 23
      {{2, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, 8, 2, 2},
  };
  for (const auto& k : cases) {
    const problem pr = permuted(k.ext, k.perm, k.eb);
    SCOPED_TRACE(pr.describe() + " elem " + std::to_string(k.eb));
    packed_params p;
    const char* reason = "";
    ASSERT_TRUE(packed_plan(pr, true, &p, &reason)) << reason;
    EXPECT_EQ(p.vin, k.vin);
    EXPECT_EQ(p.vout, k.vout);
    EXPECT_EQ(emulate(pr, p), "");
    if (k.ext[0] == 300) EXPECT_EQ(p.gather_levels, 2);  // 6 elements, then the next dim
  }
  xpose::permute_desc d;  // an input row pitch of 21 elements: no input vectors, output ones stay
  d.extents = {64, 16};
  d.perm = {1, 0};
  d.in_strides = {21, 1};
  d.elem_bytes = 4;
  const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
  packed_params p;
  const char* reason = "";
  ASSERT_TRUE(packed_plan(pr, true, &p, &reason)) << reason;
  EXPECT_EQ(p.vin, 1);
  EXPECT_EQ(p.vout, 4);
  EXPECT_EQ(emulate(pr, p), "");
}

TEST(PackedTile, PaddingRemovesTheTransposeConflicts) {
  // A 2-D transpose box for 4-byte elements, one element per access: unpadded, consecutive lanes
  // of an output-order read are one box row apart in shared memory (an even number of words:
  // conflicts); padding one element per row makes the step odd, as the classic tile's 32 x 33.
  const problem pr = permuted({1000, 1000}, {1, 0}, 4);
  packed_params p;
  const char* reason = "";
  ASSERT_TRUE(packed_plan(pr, false, &p, &reason)) << reason;
  EXPECT_NE(p.pad_pitch, 0);
  packed_params none = p;
  none.pad_pitch = 0;
  EXPECT_LT(packed_wavefronts(p, 4), packed_wavefronts(none, 4));
  EXPECT_EQ(emulate(pr, p), "");
}

TEST(PackedTile, SwizzleRemovesTheGatherConflicts) {
  // Bytes with 16-byte vectors on both sides: a warp's gathering loads read rows 16 apart, and
  // any padding by whole 16-byte vectors puts those rows on one bank (8 lanes, 8 different words);
  // the swizzle spreads them over all 32 banks.
  const problem pr = permuted({1024, 1024}, {1, 0}, 1);
  packed_params p;
  const char* reason = "";
  ASSERT_TRUE(packed_plan(pr, true, &p, &reason)) << reason;
  EXPECT_EQ(p.vin, 16);
  EXPECT_EQ(p.vout, 16);
  EXPECT_EQ(p.pad_pitch, 0);
  EXPECT_NE(p.swz_shift, 0);
  packed_params plain = p;
  plain.swz_shift = 0;
  EXPECT_LT(packed_wavefronts(p, 1) * 4, packed_wavefronts(plain, 1));
  EXPECT_EQ(emulate(pr, p), "");
}

TEST(PackedTile, RefusesTensorsOf2Pow31Elements) {
  const problem pr = permuted({1 << 16, 1 << 15, 2}, {2, 1, 0}, 1);
  packed_params p;
  const char* reason = "";
  EXPECT_FALSE(packed_plan(pr, true, &p, &reason));
  EXPECT_NE(std::string(reason).find("2^31"), std::string::npos);
}

}  // namespace
