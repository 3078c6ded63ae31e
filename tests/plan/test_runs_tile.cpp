// permute_runs' host-side arithmetic, run on the CPU exactly as the kernel runs it: the run choice,
// the run tables, the rotated shared rows, the chunk loops of both phases, byte addresses included
// (gpu/runs_tile.hpp, gpu/kernels/permute_runs.cuh). The emulation moves real bytes from a random
// input at a chosen misalignment through a simulated shared array into a poisoned output, and checks
// every access: loads inside the input, 16-byte vectors aligned on both sides and in shared memory,
// no shared byte stored twice or read unstored in a tile, and the output equal to the reference
// with nothing else written.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "gpu/runs_tile.hpp"
#include "plan/problem.hpp"

namespace {

using xpose::detail::problem;
using namespace xpose::detail::gpu;

// in_mis / out_mis: misalignment of the pointers, in elements past a 16-byte boundary.
std::string emulate(const xpose::permute_desc& d, const runs_params& p, int in_mis, int out_mis, std::uint64_t seed) {
  const int s = d.elem_bytes, V = 16 / s;
  auto io = xpose::test::make_emulation(d, seed);
  const std::int64_t in_bytes = io.in_bytes, out_bytes = io.out_bytes;
  if (p.in_span_bytes != in_bytes) return "the plan's input span disagrees";

  const std::uint64_t in_base = (1u << 20) + in_mis * s, out_base = (3u << 20) + out_mis * s;
  const std::uint64_t in_end = in_base + in_bytes;
  const int rows_max = p.B + p.halo;
  if (rows_max * p.nc_in > kRunsThreads * kRunsLoads) return "the input chunks exceed one pass of loads";
  if (p.smem_bytes != rows_max * p.row_bytes + 4 * (2 * rows_max + p.A) || p.smem_bytes > kRunsMaxSmem)
    return "shared memory size";
  if (p.halo && (p.halo != V - 1 || p.b_last != p.b_dims[p.nb - 1])) return "the halo's parameters";
  std::vector<std::int32_t> in_off(rows_max), out_off(p.A);
  for (int b = 0; b < rows_max; ++b) in_off[b] = runs_side_offset(p, true, b);
  for (int a = 0; a < p.A; ++a) out_off[a] = runs_side_offset(p, false, a);
  std::vector<int> smem(rows_max * p.row_bytes), row_word(rows_max);

  for (std::int64_t t = 0; t < p.tiles; ++t) {
    int b_start = 0;
    const packed_origin o = p.halo ? packed_origin_of<true>(p, static_cast<std::uint32_t>(t), p.b_last, &b_start)
                                   : packed_origin_of(p, static_cast<std::uint32_t>(t));
    const int la = o.lim_a < kPackedNoLimit ? p.a_unit * static_cast<int>(o.lim_a) : p.A;
    const int lb = o.lim_b < kPackedNoLimit ? p.b_unit * static_cast<int>(o.lim_b) : p.B;
    const int rows = runs_rows_of(p, lb, b_start);
    if (la < 1 || la > p.A || lb < 1 || lb > p.B || rows < lb || rows > rows_max) return "edge lengths out of range";
    const std::uint64_t tin = in_base + o.in * s, tout = out_base + o.out * s;
    const int run_bytes = la * s;
    std::fill(smem.begin(), smem.end(), -1);  // -1: not stored this tile
    std::fill(row_word.begin(), row_word.end(), -1);
    std::vector<char> chunk_taken(rows_max * p.row_bytes, 0);
    for (int u = 0; u < rows_max * p.nc_in; ++u) {
      const int b = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
      const int k = u - b * p.nc_in;
      if (b >= rows) continue;
      const std::uint64_t rs = tin + static_cast<std::uint64_t>(in_off[b]) * s;
      const int mis = static_cast<int>(rs & 15);
      if (k == 0) row_word[b] = runs_row_word(p, b, mis);
      if (16 * k >= mis + run_bytes) continue;
      const std::uint64_t c = (rs & ~std::uint64_t{15}) + 16 * k;
      const int dst = runs_chunk_byte(p, b, k);
      if (dst % std::max(4, s) || dst < b * p.row_bytes || dst + 16 > (b + 1) * p.row_bytes) return "a chunk outside its row";
      for (int j = 0; j < 16; ++j)
        if (chunk_taken[dst + j]++) return "two chunks stored to one shared byte";
      if (c >= in_base && c + 16 <= in_end) {  // one 16-byte load
        for (int j = 0; j < 16; ++j) smem[dst + j] = io.in[c + j - in_base];
        continue;
      }
      for (int e = 0; e < V; ++e) {  // element loads, inside the run only
        const std::uint64_t at = c + static_cast<std::uint64_t>(e) * s;
        if (at < rs || at >= rs + run_bytes) continue;
        if (at < in_base || at + s > in_end) return "an element load outside the input";
        for (int j = 0; j < s; ++j) smem[dst + e * s + j] = io.in[at + j - in_base];
      }
    }
    for (int u = 0; u < la * p.nc_out; ++u) {
      const int a = static_cast<int>(p.nc_out_div.div(static_cast<std::uint32_t>(u)));
      const int j = u - a * p.nc_out;
      const std::uint64_t rs = tout + static_cast<std::uint64_t>(out_off[a]) * s;
      const int first = 16 * j - static_cast<int>(rs & 15);
      if (first >= lb * s) continue;
      if (first < 0 && b_start > 0) continue;  // owned ends: the previous tile's chunk
      if (first % s) return "an output chunk splits an element";
      const int b0 = first / s;
      const std::uint64_t c = rs + first;
      const bool vector = first >= 0 && first + 16 <= rows * s;
      if (vector && c % 16) return "an output vector is not aligned";
      // Owned ends: pieces only at the longer run's own end (its head is the first < 0 chunk of the
      // first slice), never where the next slice goes on.
      if (p.halo && !vector && first >= 0 &&
          static_cast<std::int64_t>(b_start) * p.b_unit + rows != static_cast<std::int64_t>(p.ext[p.b_last]) * p.b_unit)
        return "a partial chunk where the next slice goes on";
      for (int i = 0; i < V; ++i) {
        const int b = b0 + i;
        if (!vector && (b < 0 || b >= rows)) continue;
        if (b < 0 || b >= rows) return "a vector reads outside the tile";
        if (row_word[b] < 0) return "a row's word was not recorded";
        const int at = row_word[b] + a * s;
        if (at % s) return "a shared element is not aligned";
        if (at % s || at < b * p.row_bytes || at + s > (b + 1) * p.row_bytes) return "a shared read outside its row";
        const std::uint64_t dst = c + static_cast<std::uint64_t>(i) * s;
        if (dst < out_base || dst + s > out_base + out_bytes) return "a store outside the output";
        for (int e = 0; e < s; ++e) {
          if (smem[at + e] < 0) return "a shared byte read before it was stored";
          io.put(static_cast<std::int64_t>(dst - out_base) + e, static_cast<unsigned char>(smem[at + e]));
        }
      }
    }
  }
  return io.verdict();
}

TEST(RunsTile, RandomPermutationsMoveEveryElementOnce) {
  std::mt19937_64 rng(20261130);
  int planned = 0, cut_both = 0, strided = 0, first = 0, paneled = 0, owned = 0;
  for (int c = 0; c < 800; ++c) {
    const int rank = 2 + static_cast<int>(rng() % 7);
    const int eb = 1 << (rng() % 5);
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t count = 1;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t e = 1 + static_cast<std::int64_t>(rng() % (rank <= 2 ? 700 : rank <= 3 ? 90 : rank <= 5 ? 14 : 6));
      d.extents.push_back(e);
      count *= e;
    }
    if (count > 200000) continue;
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    if (c % 4 == 0) {  // padded input strides
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + static_cast<std::int64_t>(rng() % 3);
      ++strided;
    }
    const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    runs_params p;
    const char* reason = "";
    if (!runs_plan(pr, &p, &reason)) continue;  // a copy, or one fastest dim on both sides
    const int in_mis = static_cast<int>(rng() % (16 / eb)), out_mis = static_cast<int>(rng() % (16 / eb));
    SCOPED_TRACE(fmt::format("case {}: {} elem {} misaligned {}/{}: tile {} x {}", c, pr.describe(), eb, in_mis,
                             out_mis, p.A, p.B));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 77 + c), "");
    if (const int k = input_seam_dim(p); k != kPackedNoDim && p.tiles / p.ntiles[k] > 2) {
      auto q = p;
      number_in_panels(q, k, 2 + c % 3);  // panels of 2-4 (set_tile_order picks them for large tensors only)
      paneled += q.panel.full_r * q.panel.nk < q.tiles;
      ASSERT_EQ(emulate(d, q, in_mis, out_mis, 77 + c), "") << "in panels of " << q.panel.w;
    }
    if (p.halo) {  // the same tiles without owned ends (the plans that do not qualify run so)
      auto q = p;
      q.halo = 0, q.b_last = kPackedNoDim;
      q.smem_bytes = q.B * q.row_bytes + 4 * (2 * q.B + q.A);
      ASSERT_EQ(emulate(d, q, in_mis, out_mis, 77 + c), "") << "without owned ends";
      ++owned;
    }
    ++planned;
    cut_both += p.cut_a != kPackedNoDim && p.cut_b != kPackedNoDim;
    first += p.tile_first != kPackedNoDim;
  }
  EXPECT_GT(planned, 400);
  EXPECT_GT(cut_both, 15);  // edge tiles on both sides are common enough to test
  EXPECT_GT(first, 30);     // and tiles numbered along an input dim first (tile_first_dim)
  EXPECT_GT(paneled, 30);  // and in panels with a partial last one
  EXPECT_GT(owned, 60);    // and with owned output ends (runs_tile.hpp): 92 of 800 when written
}

TEST(RunsTile, OddSuitePermutationGetsLongRuns) {
  // The suite's worst case for permute_packed (5% of copy for i8): fastest dims of 5 and 7.
  xpose::permute_desc d;
  d.extents = {6, 7, 19, 17, 3, 14, 21, 5};
  d.perm = {7, 6, 0, 4, 3, 2, 5, 1};
  for (const int eb : {1, 2, 4, 8, 16}) {
    d.elem_bytes = eb;
    runs_params p;
    const char* reason = "";
    ASSERT_TRUE(runs_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    EXPECT_GE(p.A * eb, 64) << eb;
    EXPECT_GE(p.B * eb, 64) << eb;
  }
}

TEST(RunsTile, PersistentGridForEveryElementSize) {
  // kRunsOneShotMinElem: one block per tile gained 2.5-4.0 points on the c128 reversals on an H100
  // against the static grid, tied the ticketed one, and lost 5-10 on the H200; every element size
  // launches the persistent grid, whose tiles are claimed by ticket.
  xpose::permute_desc d;
  d.extents = {32, 32, 32, 32, 64};
  d.perm = {4, 3, 2, 1, 0};
  for (const int eb : {1, 2, 4, 8, 16}) {
    d.elem_bytes = eb;
    runs_params p;
    const char* reason = "";
    ASSERT_TRUE(runs_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    EXPECT_EQ(p.one_shot, 0) << eb;
    EXPECT_GT(p.tiles, 132 * 8) << eb;  // enough tiles that the grid is capped, so tickets are leased
  }
}

TEST(RunsTile, RefusesWhatItCannotRun) {
  const char* reason = "";
  runs_params p;
  xpose::permute_desc d;
  d.extents = {40, 30, 8};
  d.perm = {1, 0, 2};  // the same fastest dim on both sides: a batch of row copies
  d.elem_bytes = 4;
  EXPECT_FALSE(runs_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason));
  EXPECT_NE(std::string(reason).find("unit-stride"), std::string::npos) << reason;
}

TEST(RunsTile, TwoDimTransposeWithOddLeadingDims) {
  xpose::permute_desc d;
  d.extents = {301, 173};
  d.perm = {1, 0};
  for (const int eb : {1, 2, 4, 8, 16}) {
    d.elem_bytes = eb;
    runs_params p;
    const char* reason = "";
    ASSERT_TRUE(runs_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    for (int mis = 0; mis < 16 / eb; ++mis) EXPECT_EQ(emulate(d, p, mis, (mis * 3) % (16 / eb), 5 + mis), "") << eb;
  }
}

}  // namespace
