// Randomized GPU tests (seeded, reproducible): 2-D transposes over shapes, element sizes, leading
// dimensions, batch strides and pointer offsets, and permutations of rank 1..8 (with `auto` and with
// each permutation kernel by name),
// against the CPU reference. Each case poisons the whole output span first and compares all of
// it, so a write outside the logical region (the padding of a strided output) fails the case.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "dispatch/plan_data.hpp"
#include "dispatch/registry.hpp"
#include "gpu/box_tile.hpp"
#include "gpu/runs_tile.hpp"
#include "gpu/kernels/tile_shapes.hpp"
#include "plan/planner.hpp"
#include "plan/problem.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::status;

struct dev_buf {
  void* p = nullptr;
  explicit dev_buf(std::size_t n) { EXPECT_EQ(cudaMalloc(&p, n ? n : 1), cudaSuccess); }
  ~dev_buf() { cudaFree(p); }
};

// Runs `auto` on a descriptor with the input and output placed `in_off` / `out_off` elements past a
// 256-byte aligned allocation; returns an empty string on success, else what went wrong.
// own_tables (permute_box): the plan must hold its tables in device memory (box_tables.cpp); they
// are stripped and the kernel builds its own, as where a plan has none.
template <class Desc>
std::string run_case(const Desc& d, int eb, std::int64_t in_off, std::int64_t out_off, std::uint64_t seed,
                     const std::string& variant = "auto", bool own_tables = false) {
  const auto raw = xpose::detail::to_problem(d);
  const std::size_t in_bytes = xpose::detail::in_span(raw) * eb, out_bytes = xpose::detail::out_span(raw) * eb;
  std::vector<unsigned char> in(in_bytes), expected(out_bytes), got(out_bytes);
  xpose::test::fill_random(in.data(), in_bytes, seed);
  xpose::test::poison(expected.data(), out_bytes);
  if constexpr (std::is_same_v<Desc, xpose::transpose_desc>)
    xpose::reference::transpose(d, in.data(), expected.data());
  else
    xpose::reference::permute(d, in.data(), expected.data());
  xpose::plan p;
  std::string why;
  const status ps = xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = variant}, &p, &why);
  if (variant != "auto" && ps == status::kVariantNotApplicable) return "";  // the variant says it does not apply
  if (ps != status::kSuccess) return "plan: " + why;
  dev_buf din(in_bytes + in_off * eb), dout(out_bytes + out_off * eb);
  auto* din_p = static_cast<unsigned char*>(din.p) + in_off * eb;
  auto* dout_p = static_cast<unsigned char*>(dout.p) + out_off * eb;
  if (cudaMemcpy(din_p, in.data(), in_bytes, cudaMemcpyHostToDevice) != cudaSuccess) return "upload";
  if (cudaMemset(dout_p, xpose::test::kPoison, out_bytes) != cudaSuccess) return "memset";
  status es;
  if (own_tables) {
    xpose::detail::plan_data stripped = *p.data();
    const auto* bp = static_cast<const xpose::detail::gpu::box_params*>(stripped.kernel_params.get());
    if (std::string(stripped.variant->name) != "permute_box" || !bp || !bp->tables)
      return "no device tables to strip: " + p.summary();
    auto own = std::make_shared<xpose::detail::gpu::box_params>(*bp);
    own->tables = nullptr;
    stripped.kernel_params = own;
    es = stripped.variant->run(stripped, din_p, dout_p, nullptr, &why);
  } else {
    es = xpose::execute(p, din_p, dout_p, nullptr, &why);
  }
  // A named kernel may need more alignment than an offset pointer has (permute_packed moves a row
  // copy's rows as wider words); it must say so and write nothing. `auto` falls back instead.
  if (variant != "auto" && es == status::kMisaligned) {
    if (cudaMemcpy(got.data(), dout_p, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return "download";
    std::vector<unsigned char> poisoned(out_bytes);
    xpose::test::poison(poisoned.data(), out_bytes);
    return xpose::test::first_difference(got.data(), poisoned.data(), out_bytes) < 0 ? "" : "refused but wrote";
  }
  if (es != status::kSuccess) return "execute: " + why;
  if (cudaDeviceSynchronize() != cudaSuccess) return "kernel failed";
  if (cudaMemcpy(got.data(), dout_p, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return "download";
  const auto bad = xpose::test::first_difference(got.data(), expected.data(), out_bytes);
  if (bad >= 0) return fmt::format("{}: first difference at output byte {}", p.summary(), bad);
  return "";
}

// "BxRxC eB ld I/O offsets i/o": a random transpose case, for failure messages.
std::string describe(const xpose::transpose_desc& d, std::int64_t in_off, std::int64_t out_off) {
  return fmt::format("{}x{}x{} {}B ld {}/{} offsets {}/{}", d.batch, d.rows, d.cols, d.elem_bytes,
                     d.ld_in.value_or(d.cols), d.ld_out.value_or(d.rows), in_off, out_off);
}

TEST(GpuRandom, TransposesSmall) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(20261129);
  const int sizes[] = {1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 700; ++c) {
    const int eb = sizes[pick(0, 4)];
    xpose::transpose_desc d{.rows = pick(1, c % 7 == 0 ? 3000 : 200), .cols = pick(1, c % 5 == 0 ? 3000 : 200),
                            .elem_bytes = eb};
    if (c % 3 == 0) d.ld_in = d.cols + pick(0, 40);
    if (c % 4 == 0) d.ld_out = d.rows + pick(0, 40);
    if (c % 6 == 0) {
      d.batch = pick(2, 9);
      if (c % 12 == 0) {
        d.batch_stride_in = d.rows * d.ld_in.value_or(d.cols) + pick(0, 100);
        d.batch_stride_out = d.cols * d.ld_out.value_or(d.rows) + pick(0, 100);
      }
    }
    const std::int64_t in_off = c % 8 == 0 ? pick(1, 15) : 0, out_off = c % 9 == 0 ? pick(1, 15) : 0;
    const std::string err = run_case(d, eb, in_off, out_off, 1000 + c);
    ASSERT_EQ(err, "") << "case " << c << ": " << describe(d, in_off, out_off);
  }
}

// Random 2-D transposes with any leading dimension, batch stride and pointer offset through a
// kernel that aligns its vectors itself (skew_tile, permute_runs), so every case runs it; small and
// odd extents put the tile edges everywhere.
void any_alignment_transposes(const std::string& variant, bool with_16_byte, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 300; ++c) {
    const int eb = sizes[c % (with_16_byte ? 5 : 4)];
    xpose::transpose_desc d{.rows = pick(1, c % 5 == 0 ? 1500 : 300), .cols = pick(1, c % 7 == 0 ? 1500 : 300),
                            .elem_bytes = eb};
    if (c % 2 == 0) d.ld_in = d.cols + pick(0, 17);
    if (c % 3 == 0) d.ld_out = d.rows + pick(0, 17);
    if (c % 5 == 1) {
      d.batch = pick(2, 5);
      d.batch_stride_in = d.rows * d.ld_in.value_or(d.cols) + pick(0, 9);
      d.batch_stride_out = d.cols * d.ld_out.value_or(d.rows) + pick(0, 9);
    }
    const std::int64_t in_off = pick(0, std::max(0, 16 / eb - 1)), out_off = pick(0, std::max(0, 16 / eb - 1));
    const std::string err = run_case(d, eb, in_off, out_off, 3000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << ": " << describe(d, in_off, out_off);
  }
}

TEST(GpuRandom, SkewTileAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  any_alignment_transposes("skew_tile", false, 20261130);
}

// tiled_skew staggers its output rows by the output pointer's and rows' misalignment to 32-byte
// sectors: every offset and odd leading dimension moves the stagger (1-byte cases: refused).
TEST(GpuRandom, TiledSkewAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  any_alignment_transposes("tiled_skew", true, 20261202);
}

// tiled_words: 1- and 2-byte matrices whose sides, leading dimensions and batch strides are whole
// K x K blocks (K = 4 / size), both pointers on word boundaries, with partial 32 x 32-block tiles
// everywhere; one case in eight breaks a multiple (refused: nothing runs) and one in ten offsets a
// pointer off its word (refused at execute: nothing may be written).
TEST(GpuRandom, TiledWordsWholeBlocks) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(20261203);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 400; ++c) {
    const int eb = c % 2 ? 2 : 1;
    const std::int64_t k = 4 / eb;
    xpose::transpose_desc d{.rows = k * pick(1, c % 5 == 0 ? 700 : 90), .cols = k * pick(1, c % 7 == 0 ? 700 : 90),
                            .elem_bytes = eb};
    if (c % 8 == 3) (c % 16 == 3 ? d.rows : d.cols) += pick(1, k - 1);  // refused: not whole blocks
    if (c % 2 == 0) d.ld_in = d.cols + k * pick(0, 9) + (c % 24 == 0 ? 1 : 0);
    if (c % 3 == 0) d.ld_out = d.rows + k * pick(0, 9);
    if (c % 5 == 1) {
      d.batch = pick(2, 6);
      d.batch_stride_in = d.rows * d.ld_in.value_or(d.cols) + k * pick(0, 5);
      d.batch_stride_out = d.cols * d.ld_out.value_or(d.rows) + k * pick(0, 5);
    }
    const std::int64_t in_off = c % 10 == 4 ? pick(1, k - 1) : k * pick(0, 3);
    const std::int64_t out_off = c % 10 == 9 ? pick(1, k - 1) : k * pick(0, 3);
    const std::string err = run_case(d, eb, in_off, out_off, 19000 + c, "tiled_words");
    ASSERT_EQ(err, "") << "tiled_words case " << c << ": " << describe(d, in_off, out_off);
  }
}

TEST(GpuRandom, PermuteRunsAnyAlignment) {
  XPOSE_REQUIRE_GPU();
  any_alignment_transposes("permute_runs", true, 20261201);
}

// The owned-ends tests' cases (runs_tile.hpp, box_tile.hpp): `fixed`, then random permutations of
// 1- to 8-byte elements, rank 2 to 6, extents up to `most` (900 at rank 2) and `volume` elements in
// all, for which has_halo(problem) holds, until 60 or `tries` draws.
namespace {
template <class HasHalo>
std::vector<xpose::permute_desc> owned_ends_cases(std::uint64_t seed, int tries, std::int64_t volume, std::int64_t most,
                                                  std::vector<xpose::permute_desc> fixed, HasHalo has_halo) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < tries && fixed.size() < 60; ++c) {
    const int rank = static_cast<int>(pick(2, 6)), eb = 1 << pick(0, 3);
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = volume;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t e = std::max<std::int64_t>(1, std::min<std::int64_t>(pick(1, rank == 2 ? 900 : most), budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    std::iota(d.perm.begin(), d.perm.end(), 0);
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    if (has_halo(xpose::detail::normalize(xpose::detail::to_problem(d)))) fixed.push_back(d);
  }
  return fixed;
}

// owned_ends_cases' test: the kernel's planner (runs_plan, box_plan) plans the problem with a halo.
template <class Params, class Plan>
auto plans_a_halo(Plan plan) {
  return [plan](const xpose::detail::problem& pr) {
    Params p;
    const char* reason = "";
    return plan(pr, &p, &reason) && p.halo > 0;
  };
}

// Each case at pointer offsets of every phase, by `variant` and (every third) under auto.
void run_owned_ends(const std::vector<xpose::permute_desc>& cases, const char* variant, std::uint64_t seed) {
  int n = 0;
  for (const auto& d : cases) {
    const int eb = d.elem_bytes, v = 16 / eb;
    const std::int64_t in_off = n % v, out_off = (n * 5 + 3) % v;
    const char* name = n % 3 == 2 ? "auto" : variant;
    ASSERT_EQ(run_case(d, eb, in_off, out_off, seed + n, name), "")
        << name << " case " << n << " extents " << fmt::format("{}", fmt::join(d.extents, ",")) << " perm "
        << fmt::format("{}", fmt::join(d.perm, ",")) << " elem " << eb << " offsets " << in_off << "/" << out_off;
    ++n;
  }
}
}  // namespace

// permute_runs with owned output ends (runs_tile.hpp: the tile writes whole the chunk that crosses
// into the next slice, from a halo of input runs, and skips the one its slice starts inside of):
// random permutations whose plan has a halo; a scaled-down f32 suite layout among them.
TEST(GpuRandom, PermuteRunsOwnedEnds) {
  const auto cases = owned_ends_cases(
      20261206, 400, 200000, 40,
      {xpose::test::pdesc({19, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 4),
       xpose::test::pdesc({23, 201, 37, 85}, {3, 2, 1, 0}, 4)},
      plans_a_halo<xpose::detail::gpu::runs_params>(xpose::detail::gpu::runs_plan));
  ASSERT_GE(cases.size(), 30u);  // the planning above runs without a device too
  XPOSE_REQUIRE_GPU();
  run_owned_ends(cases, "permute_runs", 9100);
}

// permute_box with owned output ends (box_tile.hpp: a halo of slices along the output run's last
// dim, the chunk crossing into the next slice written whole, the one the slice starts inside of
// skipped): random permutations whose box plan has a halo; six scaled-down suite layouts first
// (the word gather with halos of one and three slices, f16's element gather, two compact halos and
// a box planned within less room for its halo, as in BoxTile.OwnedEndsOnSuiteShapes).
TEST(GpuRandom, PermuteBoxOwnedEnds) {
  const auto cases = owned_ends_cases(
      20261207, 3000, 400000, 60,
      {xpose::test::pdesc({16, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 1),
       xpose::test::pdesc({6, 50, 168, 85}, {3, 2, 1, 0}, 1), xpose::test::pdesc({4, 50, 168, 85}, {3, 2, 1, 0}, 2),
       // compact halos (box_tile.hpp): the reversals' word and element gathers
       xpose::test::pdesc({92, 6, 20, 85}, {3, 2, 1, 0}, 1), xpose::test::pdesc({46, 10, 100, 85}, {3, 2, 1, 0}, 2),
       // 3x19x2x21x6 and a slice of halo where 3x19x2x21x7 had no room for one (kBoxHaloRoomKiB)
       xpose::test::pdesc({28, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 2)},
      plans_a_halo<xpose::detail::gpu::box_params>(xpose::detail::gpu::box_plan));
  ASSERT_GE(cases.size(), 30u);  // the planning above runs without a device too
  XPOSE_REQUIRE_GPU();
  run_owned_ends(cases, "permute_box", 9400);
}

// permute_box with a compact halo (box_tile.hpp): random reversals and transposes of 1- to 8-byte
// elements whose boxes take one (xpose::test::compact_halo_shape), 20 of them.
TEST(GpuRandom, PermuteBoxCompactHalo) {
  std::vector<xpose::permute_desc> cases;
  for (int c = 0; c < 4000 && cases.size() < 20; ++c) {
    const xpose::permute_desc d = xpose::test::compact_halo_shape(20261209, c);
    xpose::detail::gpu::box_params p;
    const char* reason = "";
    if (xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason) &&
        p.halo_f != xpose::detail::gpu::kPackedNoDim)
      cases.push_back(d);
  }
  ASSERT_EQ(cases.size(), 20u);  // the planning above runs without a device too
  XPOSE_REQUIRE_GPU();
  run_owned_ends(cases, "permute_box", 9700);
}

// Random 2-D transposes whose leading dimensions, batch strides and pointer offsets are whole 16-byte
// vectors (what reg_tile needs), with row counts that take every stacking of its warps
// (reg_tile_stack: 1-byte matrices of up to 64, 128, 256 rows and more), 64-column matrices
// (reg_tile_lanes) and partial blocks.
// whole_rows: three cases in four round the row count up to whole vectors (tma_tile refuses others).
void aligned_transposes(const std::string& variant, std::uint64_t seed, bool whole_rows = false) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 1, 1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const std::int64_t row_caps[] = {64, 128, 256, 700};
  for (int c = 0; c < 300; ++c) {
    const int eb = sizes[c % 7];
    const std::int64_t v = 16 / eb;
    auto whole = [&](std::int64_t n) { return (n + v - 1) / v * v; };
    xpose::transpose_desc d{.rows = pick(1, row_caps[c % 4]), .cols = pick(1, c % 5 == 0 ? 3000 : 600), .elem_bytes = eb};
    if (c % 9 == 0) {  // 64 columns and many rows: the 1-byte kernel's tall lane layout (reg_tile_lanes)
      d.cols = 64;
      d.rows = pick(257, 3000);
    }
    if (whole_rows && c % 4 != 3) d.rows = whole(d.rows);
    if (c % 2 == 0 || d.cols % v) d.ld_in = whole(d.cols) + (c % 2 == 0 ? v * pick(0, 3) : 0);
    if (c % 3 == 0 || d.rows % v) d.ld_out = whole(d.rows) + (c % 3 == 0 ? v * pick(0, 3) : 0);
    if (c % 5 == 1) {
      d.batch = pick(2, 7);
      d.batch_stride_in = whole(d.rows * d.ld_in.value_or(d.cols)) + v * pick(0, 2);
      d.batch_stride_out = whole(d.cols * d.ld_out.value_or(d.rows)) + v * pick(0, 2);
    }
    const std::int64_t in_off = v * pick(0, 2), out_off = v * pick(0, 2);
    const std::string err = run_case(d, eb, in_off, out_off, 7000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << ": " << describe(d, in_off, out_off);
  }
}

// Random narrow transposes through interleave, both ways: short dense sides of 2-16, 32, 48 and 64
// elements of 1, 2, 4 and 8 bytes, long sides from a few elements (the element-by-element tail
// only) to 10^5 (many warp tiles), any leading dimension on the long rows (every row misalignment),
// and pointers at whole 16-byte offsets or not (refused: nothing may be written), as are sides of
// 17 and 33.
TEST(GpuRandom, InterleaveNarrow) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(20261202);
  const int sizes[] = {1, 2, 4, 8};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 1000; ++c) {
    const int eb = sizes[c % 4];
    const std::int64_t v = 16 / eb;
    const std::int64_t shrt = c % 25 == 0 ? 17 + 16 * pick(0, 1)       // refused
                              : c % 3 == 1 ? 16 * pick(2, 4)           // groups of 16 rows
                                           : pick(2, 16);
    const int lc = c / 8 % 4;  // (sizes, directions and lengths each take every combination)
    const std::int64_t lng = lc == 0 ? pick(20000, 100000) : lc == 1 ? pick(1, 40 * v) : pick(1, 3000);
    const bool zip = c / 4 % 2 == 0;
    xpose::transpose_desc d{.rows = zip ? shrt : lng, .cols = zip ? lng : shrt, .elem_bytes = eb};
    if (c % 3 != 2) (zip ? d.ld_in : d.ld_out) = lng + pick(0, 40);
    const std::int64_t in_off = c % 10 == 0 ? pick(1, v - 1) : v * pick(0, 2);
    const std::int64_t out_off = c % 10 == 5 ? pick(1, v - 1) : v * pick(0, 2);
    const std::string err = run_case(d, eb, in_off, out_off, 17000 + c, "interleave");
    ASSERT_EQ(err, "") << "interleave case " << c << ": " << describe(d, in_off, out_off);
  }
}

// interleave's grouped unzip with a tile per block (interleave_block_tiles): `cases` dense runs
// split into rows that are not all aligned (the form's condition), each case's element size, short
// side and long side from shape(c, pick); the plan must name the form, the output match the reference.
template <class Shape>
void interleave_block_tile_unzips(std::uint64_t seed, int cases, Shape shape) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < cases; ++c) {
    const auto [eb, shrt, lng] = shape(c, pick);
    const std::int64_t v = 16 / eb;
    xpose::transpose_desc d{.rows = lng, .cols = shrt, .elem_bytes = eb};
    d.ld_out = lng + pick(0, 40);
    if (*d.ld_out % v == 0) *d.ld_out += 1 + pick(0, v - 2);
    xpose::plan p;
    std::string why;
    ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "interleave"}, &p, &why),
              status::kSuccess)
        << why;
    EXPECT_NE(p.summary().find("one per block"), std::string::npos) << p.summary();
    const std::int64_t in_off = v * pick(0, 2), out_off = v * pick(0, 2);
    const std::string err = run_case(d, eb, in_off, out_off, seed + c, "interleave");
    ASSERT_EQ(err, "") << "interleave case " << c << ": " << describe(d, in_off, out_off);
  }
}

// Bytes take the form only with 48 or 64 rows and a long side of 4 * 10^6 or more, which
// InterleaveNarrow's lengths never reach: lengths just past the threshold.
TEST(GpuRandom, InterleaveBlockTilesLongBytes) {
  XPOSE_REQUIRE_GPU();
  interleave_block_tile_unzips(20261227, 6, [](int c, auto& pick) {
    return std::tuple<int, std::int64_t, std::int64_t>{
        1, c % 2 == 0 ? 48 : 64, xpose::detail::gpu::kInterleaveBlockTilesMinLong1B + pick(0, 50000)};
  });
}

// 2- to 8-byte elements take it at every length: short ones, for racecheck too
// (scripts/device_interleave.sh runs it there: the warps hand vectors over through shared memory).
TEST(GpuRandom, InterleaveBlockTilesShort) {
  XPOSE_REQUIRE_GPU();
  interleave_block_tile_unzips(20261228, 18, [](int c, auto& pick) {
    constexpr int kSizes[] = {2, 4, 8};
    return std::tuple<int, std::int64_t, std::int64_t>{kSizes[c % 3], 16 * (2 + c / 3 % 3),
                                                       c < 9 ? pick(1, 4000) : pick(4000, 40000)};
  });
}

TEST(GpuRandom, RegTileAligned) {
  XPOSE_REQUIRE_GPU();
  aligned_transposes("reg_tile", 20261203);
}

// reg_batch: batches of matrices of whole V x V blocks, with padded leading dimensions, batch
// strides and pointer offsets in whole vectors; then permutations that are batched transposes with
// the batch dims anywhere (batch strides below the leading dimensions, two batch dims). Every case
// must plan (whole blocks by construction), so none is skipped.
TEST(GpuRandom, RegBatchWholeBlocks) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(20261206);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const int sizes[] = {1, 1, 2, 2, 4, 8, 16};
  auto plans = [](const auto& d) {
    xpose::plan p;
    std::string why;
    const status s = xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "reg_batch"}, &p, &why);
    return s == status::kSuccess ? std::string() : why;
  };
  for (int c = 0; c < 300; ++c) {
    const int eb = sizes[c % 7];
    const std::int64_t v = 16 / eb;
    // Columns up to 80 blocks: rows taken whole (up to 16 blocks) and in segments, even and partial.
    xpose::transpose_desc d{.rows = v * pick(1, c % 6 == 0 ? 40 : 6), .cols = v * pick(1, c % 5 == 0 ? 80 : 6),
                            .elem_bytes = eb};
    const bool small = c % 6 != 0 && c % 5 != 0;  // many matrices only when they are small
    d.batch = c % 4 == 0 ? 1 : pick(2, small && c % 3 == 0 ? 3000 : 50);
    if (c % 2 == 0) d.ld_in = d.cols + v * pick(0, 3);
    if (c % 3 == 0) d.ld_out = d.rows + v * pick(0, 3);
    if (c % 5 == 1) {
      d.batch_stride_in = d.rows * d.ld_in.value_or(d.cols) + v * pick(0, 2);
      d.batch_stride_out = d.cols * d.ld_out.value_or(d.rows) + v * pick(0, 2);
    }
    ASSERT_EQ(plans(d), "") << "case " << c << ": " << describe(d, 0, 0);
    const std::int64_t in_off = v * pick(0, 2), out_off = v * pick(0, 2);
    const std::string err = run_case(d, eb, in_off, out_off, 11000 + c, "reg_batch");
    ASSERT_EQ(err, "") << "reg_batch case " << c << ": " << describe(d, in_off, out_off);
  }
  // Permutations of rank 3 and 4 that are batched transposes: the input's last dim and the output's
  // fastest one (input dim perm.back()) are whole blocks; the others, batch dims anywhere, any extent.
  for (int c = 0; c < 120; ++c) {
    const int eb = sizes[c % 7];
    const std::int64_t v = 16 / eb;
    xpose::permute_desc d;
    d.elem_bytes = eb;
    const int rank = 3 + c % 2;
    d.perm.resize(static_cast<std::size_t>(rank));
    std::iota(d.perm.begin(), d.perm.end(), 0);
    do std::shuffle(d.perm.begin(), d.perm.end(), rng);
    while (d.perm.back() == rank - 1);
    for (int k = 0; k < rank; ++k) d.extents.push_back(pick(1, rank == 3 ? 60 : 12));
    d.extents.back() = v * pick(2, 8);
    d.extents[static_cast<std::size_t>(d.perm.back())] = v * pick(2, 8);
    ASSERT_EQ(plans(d), "") << "permutation case " << c;
    const std::string err = run_case(d, eb, 0, 0, 12000 + c, "reg_batch");
    ASSERT_EQ(err, "") << "reg_batch permutation case " << c;
  }
}

// tma_tile: the same aligned cases (16-byte units are what its tensor maps need), then large enough
// matrices that every block claims several tiles through the ticket, run back to back so each
// launch finds the counter its predecessor reset.
TEST(GpuRandom, TmaTileAligned) {
  XPOSE_REQUIRE_GPU();
  aligned_transposes("tma_tile", 20261204, true);
  std::mt19937_64 rng(20261205);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int c = 0; c < 40; ++c) {
    const int eb = sizes[c % 5];
    const std::int64_t v = 16 / eb;
    xpose::transpose_desc d{.rows = v * pick(1000 / v, 5000 / v), .cols = v * pick(100, 5000 / v), .elem_bytes = eb};
    if (c % 2) d.ld_out = d.rows + v * pick(0, 2);
    if (c % 4 == 1) d.batch = pick(2, 3);
    const std::string err = run_case(d, eb, 0, 0, 9000 + c, "tma_tile");
    ASSERT_EQ(err, "") << "tma_tile case " << c << ": " << describe(d, 0, 0);
  }
  // Rank-3 permutations that are batches of transposes, the batch dim anywhere (a reversal's batch
  // stride is smaller than its leading dimensions): every extent whole 16-byte units.
  const std::vector<int> perms[] = {{2, 1, 0}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}};
  for (int c = 0; c < 60; ++c) {
    const int eb = sizes[c % 5];
    const std::int64_t v = 16 / eb;
    xpose::permute_desc d;
    d.elem_bytes = eb;
    d.extents = {v * pick(1, 300 / v + 1), v * pick(1, 40 / v + 2), v * pick(1, 300 / v + 1)};
    d.perm = perms[c % 4];
    const std::string err = run_case(d, eb, 0, 0, 9500 + c, "tma_tile");
    ASSERT_EQ(err, "") << "tma_tile permutation case " << c << " extents " << fmt::format("{}", fmt::join(d.extents, ","))
                       << " perm " << fmt::format("{}", fmt::join(d.perm, ","));
  }
}

// Launches in flight on several streams at once each lease their own ticket (tma_variants.cu): twelve
// transposes of one plan, four streams, nothing synchronised until the end, every output checked.
TEST(GpuRandom, TmaTileConcurrentStreams) {
  XPOSE_REQUIRE_GPU();
  const xpose::transpose_desc d{.rows = 1500, .cols = 2048, .elem_bytes = 4};
  xpose::plan p;
  std::string why;
  ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "tma_tile"}, &p, &why), status::kSuccess)
      << why;
  const std::size_t bytes = d.rows * d.cols * 4;
  constexpr int kLaunches = 12, kStreams = 4;
  std::vector<cudaStream_t> streams(kStreams);
  for (auto& st : streams) ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  std::vector<std::vector<unsigned char>> in(kLaunches, std::vector<unsigned char>(bytes));
  std::vector<std::unique_ptr<dev_buf>> din, dout;
  for (int k = 0; k < kLaunches; ++k) {
    xpose::test::fill_random(in[k].data(), bytes, 11000 + k);
    din.push_back(std::make_unique<dev_buf>(bytes));
    dout.push_back(std::make_unique<dev_buf>(bytes));
    ASSERT_EQ(cudaMemcpy(din[k]->p, in[k].data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(dout[k]->p, xpose::test::kPoison, bytes), cudaSuccess);
  }
  for (int k = 0; k < kLaunches; ++k)
    ASSERT_EQ(xpose::execute(p, din[k]->p, dout[k]->p, streams[k % kStreams], &why), status::kSuccess) << why;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> expected(bytes), got(bytes);
  for (int k = 0; k < kLaunches; ++k) {
    xpose::reference::transpose(d, in[k].data(), expected.data());
    ASSERT_EQ(cudaMemcpy(got.data(), dout[k]->p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_LT(xpose::test::first_difference(got.data(), expected.data(), bytes), 0) << "launch " << k;
  }
  for (auto& st : streams) cudaStreamDestroy(st);
}

// Random permutations of rank 1..8 (fastest dims of 1..7 elements, a fifth with padded input
// strides, some with an offset output pointer) through `variant`.
void random_permutations(const std::string& variant, int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  int whole = 0, converged = 0;  // permute_box's element store forms (box_store_converged)
  for (int c = 0; c < cases; ++c) {
    const int rank = static_cast<int>(pick(1, 8)), eb = sizes[pick(0, 4)];
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = 60000;
    // Every third case draws extents with factors of 2 so that permute_packed's 16-byte vectors
    // (which need whole vectors along the fastest dims and strides) get exercised.
    const std::int64_t even[] = {2, 4, 6, 8, 12, 16, 24, 32};
    for (int k = 0; k < rank; ++k) {
      const std::int64_t want = c % 3 == 0 ? even[pick(0, 7)] : pick(1, k == rank - 1 ? 7 : 24);
      const std::int64_t e = std::max<std::int64_t>(1, std::min<std::int64_t>(want, budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    if (c % 5 == 0) {  // strided input: pad every dim
      d.in_strides.resize(rank);
      std::int64_t s = 1;
      for (int k = rank - 1; k >= 0; --k) {
        d.in_strides[k] = s;
        s *= d.extents[k] + pick(0, 2);
      }
    }
    // Offset pointers (by whole elements) take permute_packed's scalar plan.
    const std::int64_t in_off = c % 11 == 0 ? pick(1, 3) : 0, out_off = c % 7 == 0 ? pick(1, 3) : 0;
    if (variant == "permute_box") {
      xpose::detail::gpu::box_params p;
      const char* reason = "";
      if (xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason) && !p.words)
        ++(xpose::detail::gpu::box_store_converged(p, eb, static_cast<int>(out_off) * eb) ? converged : whole);
    }
    const std::string err = run_case(d, eb, in_off, out_off, 5000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << " rank " << rank << " extents " << fmt::format("{}", fmt::join(d.extents, ","))
                       << " perm " << fmt::format("{}", fmt::join(d.perm, ","));
  }
  if (variant == "permute_box") {  // both forms of its element store
    EXPECT_GT(whole, cases / 50);
    EXPECT_GT(converged, cases / 50);
  }
}

// permute_box's tables: make_plan gives every box plan of 1-byte elements its tables in device
// memory (box_tables.cpp), which every other byte box test runs; here random byte permutations run
// both with them and without (each block building its own, as before they were prebuilt), owned
// ends too. The other sizes' plans must hold none.
TEST(GpuRandom, PermuteBoxOwnTables) {
  std::mt19937_64 rng(20261207);
  const int sizes[] = {1, 1, 1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  std::vector<std::pair<xpose::permute_desc, std::int64_t>> cases;  // with an element offset for both pointers
  int owned = 0;
  for (int c = 0; c < 600 && cases.size() < 120; ++c) {
    const int rank = static_cast<int>(pick(2, 8)), eb = sizes[pick(0, 6)];
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = 200000 / eb;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t e = std::max<std::int64_t>(1, std::min<std::int64_t>(pick(1, k == rank - 1 ? 9 : 40), budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    std::iota(d.perm.begin(), d.perm.end(), 0);
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    xpose::detail::gpu::box_params bp;
    const char* reason = "";
    if (!xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &bp, &reason)) continue;
    owned += bp.halo > 0;
    cases.emplace_back(d, c % 3 == 0 ? pick(1, 7) : 0);
  }
  ASSERT_EQ(cases.size(), 120u);  // the planning above runs without a device too
  EXPECT_GT(owned, 0);
  XPOSE_REQUIRE_GPU();
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const auto& [d, off] = cases[n];
    {  // tables exactly where the element size has them
      xpose::plan pl;
      std::string why;
      ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "permute_box"}, &pl, &why),
                status::kSuccess)
          << why;
      const auto* bp = static_cast<const xpose::detail::gpu::box_params*>(pl.data()->kernel_params.get());
      ASSERT_NE(bp, nullptr);
      EXPECT_EQ(bp->tables != nullptr, d.elem_bytes == xpose::detail::gpu::kBoxTablesElemBytes)
          << "case " << n << ": " << pl.summary();
    }
    for (const bool own : {false, true}) {
      if (own && d.elem_bytes != xpose::detail::gpu::kBoxTablesElemBytes) continue;  // none to strip
      ASSERT_EQ(run_case(d, d.elem_bytes, off, (off * 5) % 8, 6100 + n, "permute_box", own), "")
          << (own ? "tables built by the blocks" : "tables from make_plan") << ", case " << n << " extents "
          << fmt::format("{}", fmt::join(d.extents, ",")) << " perm " << fmt::format("{}", fmt::join(d.perm, ","));
    }
  }
}

TEST(GpuRandom, PermutationsSmall) {
  XPOSE_REQUIRE_GPU();
  random_permutations("auto", 400, 7);
}

// permute_packed's vector paths on shapes whose plans are known (tests/plan/test_packed_tile.cpp):
// 16-byte vectors both ways, input vectors across dims, output vectors gathered across two dims,
// and the scalar plan on offset pointers, for every element size.
TEST(GpuRandom, PackedVectorPaths) {
  XPOSE_REQUIRE_GPU();
  struct c {
    std::vector<std::int64_t> ext;
    std::vector<int> perm;
  };
  const c cases[] = {
      {{4, 64, 128, 128}, {0, 2, 3, 1}}, {{1000, 32, 48}, {0, 2, 1}}, {{5, 6, 7}, {2, 1, 0}},
      {{300, 6, 34}, {0, 2, 1}},         {{607, 184, 6}, {0, 2, 1}},  {{2, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}},
      {{250, 12, 10}, {0, 2, 1}},        {{7, 6, 20, 9}, {3, 1, 0, 2}},
  };
  std::uint64_t seed = 900;
  for (const auto& k : cases)
    for (const int eb : {1, 2, 4, 8, 16})
      for (const std::int64_t off : {0, 1}) {
        xpose::permute_desc d;
        d.extents = k.ext;
        d.perm = k.perm;
        d.elem_bytes = eb;
        for (const char* v : {"permute_packed", "auto"}) {
          const std::string err = run_case(d, eb, off, off, seed++, v);
          ASSERT_EQ(err, "") << v << " extents " << fmt::format("{}", fmt::join(k.ext, ",")) << " elem " << eb
                             << " offset " << off;
        }
      }
}

// Random row copies (the fastest dim stays the fastest): rows of 1 B to 8 KiB, every element size,
// padded input strides, pointers offset by any number of elements below 16 bytes, through
// permute_rows (which realigns every row) and auto.
void random_row_copies(const std::string& variant, int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  int ran = 0;
  for (int c = 0; c < 4 * cases && ran < cases; ++c) {
    const int eb = sizes[c % 5], rank = static_cast<int>(pick(2, 6));
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = 200000 / eb;
    const std::int64_t row_caps[] = {7, 40, 300, 8192};
    for (int k = 0; k < rank; ++k) {
      const std::int64_t want = k == rank - 1 ? pick(1, std::max<std::int64_t>(1, row_caps[c % 4] / eb)) : pick(2, 12);
      const std::int64_t e = std::max<std::int64_t>(1, std::min(want, budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end() - 1, rng);
    if (c % 3 == 0) {
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) {
        d.in_strides[k] = st;
        st *= d.extents[k] + pick(0, 3);
      }
    }
    const auto pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    if (xpose::detail::classify(pr) != xpose::detail::problem_class::kRowCopy) continue;
    ++ran;
    const std::int64_t in_off = pick(0, std::max(0, 16 / eb - 1)), out_off = pick(0, std::max(0, 16 / eb - 1));
    const std::string err = run_case(d, eb, in_off, out_off, 9000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << " extents " << fmt::format("{}", fmt::join(d.extents, ","))
                       << " perm " << fmt::format("{}", fmt::join(d.perm, ",")) << " elem " << eb << " offsets "
                       << in_off << "/" << out_off;
  }
  EXPECT_EQ(ran, cases);
}

TEST(GpuRandom, RowCopies) {
  XPOSE_REQUIRE_GPU();
  random_row_copies("permute_rows", 300, 20261204);
  random_row_copies("auto", 150, 20261205);
}

// permute_box (which realigns every run) on 2-D transposes at any alignment, random permutations
// and row copies: 750 cases.
// Permutations in the word gather's domain as it was for 1- and 2-byte elements (the input's
// fastest dim not the output's, the output's fastest extent a multiple of 16 / s, or under a chunk
// and the next one a multiple), pointers at any element offset. The word gather runs the bytes
// (box_tile.cpp, kWordGatherMaxElem); the halves take the element gather, raw rows mostly.
void random_word_gathers(const std::string& variant, int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  int gathered = 0, whole = 0;
  for (int c = 0; c < cases; ++c) {
    const int rank = static_cast<int>(pick(2, 5)), eb = static_cast<int>(pick(1, 2));
    xpose::permute_desc d;
    d.elem_bytes = eb;
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    do std::shuffle(d.perm.begin(), d.perm.end(), rng);
    while (d.perm.back() == rank - 1);
    for (int k = 0; k < rank; ++k) d.extents.push_back(pick(2, rank <= 3 ? 21 : 7));
    d.extents[d.perm.back()] = 16 / eb * pick(1, 4);
    if (c % 4 == 1 && d.perm[rank - 2] != rank - 1) {
      d.extents[d.perm[rank - 2]] = d.extents[d.perm.back()];
      d.extents[d.perm.back()] = pick(2, 16 / eb - 1);
    }
    d.extents[rank - 1] = pick(2, rank > 3 ? 25 : rank == 3 ? 151 : 1201);
    if (c % 3 == 0) {
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + (k == rank - 1 ? 0 : pick(0, 2));
    }
    xpose::detail::gpu::box_params p;
    const char* reason = "";
    const bool planned = xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason);
    const std::int64_t in_off = pick(0, 16 / eb - 1), out_off = c % 3 == 1 ? 0 : pick(0, 16 / eb - 1);
    if (planned && p.words) {
      ++gathered;
      whole += !xpose::detail::gpu::box_store_converged(p, eb, static_cast<int>(out_off) * eb);
    }
    const std::string err = run_case(d, eb, in_off, out_off, 12000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << " extents " << fmt::format("{}", fmt::join(d.extents, ","))
                       << " perm " << fmt::format("{}", fmt::join(d.perm, ",")) << " elem " << eb << " offsets "
                       << in_off << "/" << out_off << (p.words ? " (word gather)" : "");
  }
  EXPECT_GT(gathered, cases / 16);  // 62 of 400 when written, 36 since halves left the word gather
  // Both forms of the word store (box_store_converged).
  EXPECT_GT(whole, cases / 50);
  EXPECT_GT(gathered - whole, cases / 50);
}

TEST(GpuRandom, PermuteBox) {
  XPOSE_REQUIRE_GPU();
  any_alignment_transposes("permute_box", true, 20261206);
  random_permutations("permute_box", 300, 17);
  random_row_copies("permute_box", 150, 20261207);
  random_word_gathers("permute_box", 400, 20261130);
  // Batches of byte matrices of 4-8 KiB: boxes of several matrices, one output run per matrix.
  const xpose::permute_desc small[] = {xpose::test::pdesc({300, 61, 107, 52}, {0, 1, 3, 2}, 1),
                                       xpose::test::pdesc({301, 75, 70}, {0, 2, 1}, 1),
                                       xpose::test::pdesc({97, 67, 97}, {0, 2, 1}, 1),
                                       xpose::test::pdesc({41, 83, 85}, {0, 2, 1}, 1)};
  for (const auto& d : small)
    for (const std::int64_t off : {0, 1, 13})
      for (const char* v : {"auto", "permute_box"})
        ASSERT_EQ(run_case(d, 1, off, (off * 5) % 16, 4100 + off, v), "")
            << v << " " << fmt::format("{}", fmt::join(d.extents, ",")) << " offset " << off;
}

// The shifted word gather (raw rows of bytes, box_tile.hpp) on the i8 suite's shapes that take it
// (test_util.hpp shifted_word_suite_shapes), at pointers aligned and not (every byte phase).
TEST(GpuRandom, PermuteBoxShiftedWords) {
  XPOSE_REQUIRE_GPU();
  for (const auto& d : xpose::test::shifted_word_suite_shapes())
    for (const std::int64_t off : {0, 1, 6, 11})
      ASSERT_EQ(run_case(d, 1, off, (off * 7) % 16, 4300 + off, off % 2 ? "permute_box" : "auto"), "")
          << fmt::format("{}", fmt::join(d.extents, ",")) << " offset " << off;
}

// A word box past 48 KiB of shared memory (box_tile.hpp kBoxWordsMaxSmem; the launcher raises the
// kernel's dynamic shared-memory limit): the i8 suite's [29048,22,5,2,7,6] itself (45 MB), at
// pointers aligned and not.
TEST(GpuRandom, PermuteBoxWideWords) {
  XPOSE_REQUIRE_GPU();
  const xpose::permute_desc d = xpose::test::pdesc({29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1);
  xpose::detail::gpu::box_params p;
  const char* reason = "";
  ASSERT_TRUE(xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
  ASSERT_TRUE(p.words);
  ASSERT_GT(p.smem_bytes, 48 * 1024);
  ASSERT_EQ(p.halo, 15);  // 157 of its 168 slices and a halo (box_tile.cpp kBoxHaloShrink)
  for (const std::int64_t off : {0, 5})
    ASSERT_EQ(run_case(d, 1, off, (off * 7) % 16, 4400 + off, off ? "permute_box" : "auto"), "") << "offset " << off;
}

namespace {
// A random byte row copy of rank 3 to 7 (its last dim stays last): extents of 2 to max_extent
// within about `budget` elements, then rows of row() bytes.
template <class Row>
xpose::permute_desc random_byte_row_copy(std::mt19937_64& rng, std::int64_t max_extent, std::int64_t budget, Row&& row) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const int rank = static_cast<int>(pick(3, 7));
  xpose::permute_desc d;
  d.elem_bytes = 1;
  for (int k = 0; k + 1 < rank; ++k) {
    const std::int64_t e = std::max<std::int64_t>(1, std::min(pick(2, max_extent), budget));
    d.extents.push_back(e);
    budget = std::max<std::int64_t>(1, budget / e);
  }
  d.extents.push_back(row());
  d.perm.resize(rank);
  std::iota(d.perm.begin(), d.perm.end(), 0);
  std::shuffle(d.perm.begin(), d.perm.end() - 1, rng);
  return d;
}
}  // namespace

// Row copies of bytes that auto runs through permute_box as wider elements (planner.cpp,
// plan_problem: the fastest dim and every stride whole W-byte words): random ones whose plan widens,
// and two suite shapes scaled down, at pointers aligned to W (the widened box) and offset by one
// byte and by 8 (the box of bytes, the fallback, where W does not divide the offset).
TEST(GpuRandom, PermuteBoxWidenedRowCopies) {
  std::vector<xpose::permute_desc> cases = {
      xpose::test::pdesc({44, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 1),  // 2-byte rows
      xpose::test::pdesc({13, 10, 23, 16, 23, 8, 3}, {2, 4, 3, 1, 0, 5, 6}, 1),         // 24-byte rows: 8 B
  };
  std::mt19937_64 rng(20261207);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 3000 && cases.size() < 60; ++c) {
    const xpose::permute_desc d = random_byte_row_copy(rng, 30, 300000, [&] {
      return (2 << pick(0, 3)) * pick(1, 3);  // rows of whole 2- to 16-byte words
    });
    xpose::detail::plan_data pd;
    std::string why;
    if (xpose::detail::plan_problem(xpose::detail::to_problem(d), std::nullopt, xpose::test::gpu_opts(), {}, &pd,
                                    &why) != status::kSuccess)
      continue;
    if (pd.prob.elem_bytes > 1) cases.push_back(d);
  }
  ASSERT_GE(cases.size(), 40u);  // the planning above runs without a device too
  XPOSE_REQUIRE_GPU();
  int n = 0;
  for (const auto& d : cases) {
    for (const std::int64_t off : {0, 1, 8}) {
      ASSERT_EQ(run_case(d, 1, off, (off * 3) % 16, 4500 + n, "auto"), "")
          << "case " << n << " extents " << fmt::format("{}", fmt::join(d.extents, ",")) << " perm "
          << fmt::format("{}", fmt::join(d.perm, ",")) << " offset " << off;
    }
    ++n;
  }
}

// The segment gather (gpu/box_segments.hpp): byte row copies whose rows are 3 or 5 bytes, by
// permute_box, random ones whose box takes it and three suite shapes scaled down (those by `auto`
// too), at aligned and offset pointers (raw rows at every shift, output chunks at every phase).
TEST(GpuRandom, PermuteBoxSegments) {
  std::vector<xpose::permute_desc> cases = {
      xpose::test::pdesc({3000, 98, 3}, {1, 0, 2}, 1),
      xpose::test::pdesc({3000, 124, 3, 1}, {1, 0, 2, 3}, 1),
      xpose::test::pdesc({2, 6, 19, 23, 4, 25, 4, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 1),
  };
  const std::size_t suite_shapes = cases.size();
  std::mt19937_64 rng(20261208);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < 3000 && cases.size() < 60; ++c) {
    const xpose::permute_desc d = random_byte_row_copy(rng, 40, 100000, [&] { return 2 * pick(1, 2) + 1; });  // 3 or 5
    xpose::detail::gpu::box_params p;
    const char* reason = "";
    if (xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason) && p.segs)
      cases.push_back(d);
  }
  ASSERT_GE(cases.size(), 40u);  // the planning above runs without a device too
  XPOSE_REQUIRE_GPU();
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const auto& d = cases[n];
    for (const std::int64_t off : {0, 1, 7}) {
      for (const char* variant : {"permute_box", "auto"}) {
        if (n >= suite_shapes && std::string(variant) == "auto") continue;
        ASSERT_EQ(run_case(d, 1, off, (off * 5) % 16, 4700 + n, variant), "")
            << variant << " case " << n << " extents " << fmt::format("{}", fmt::join(d.extents, ",")) << " perm "
            << fmt::format("{}", fmt::join(d.perm, ",")) << " offset " << off;
      }
    }
  }
}

// Inputs spanning more than 2 GiB (forty-first session: permute_box reaches each tile's input
// window through a 64-bit offset and keeps 32-bit offsets inside it; it refused such inputs
// before). An outer dim of 3 strided by about 1 GiB puts a third of the tiles' origins past 2 GiB
// while the tensor stays small; byte (raw rows) and 8-byte elements, pointers aligned and not.
TEST(GpuRandom, PermuteBoxOver2GiB) {
  XPOSE_REQUIRE_GPU();
  const struct {
    int eb;
    std::int64_t in_off;
    const char* variant;
  } cases[] = {{1, 3, "permute_box"}, {8, 0, "permute_box"}, {8, 1, "auto"}};
  for (const auto& c : cases) {
    xpose::permute_desc d = xpose::test::pdesc({3, 37, 29, 11}, {0, 2, 3, 1}, c.eb);
    const std::int64_t outer = ((std::int64_t{1} << 30) + 4099) / c.eb;  // elements
    d.in_strides = {outer, 29 * 11, 11, 1};
    ASSERT_GT(2 * outer * c.eb, std::int64_t{1} << 31);
    xpose::plan p;
    std::string why;
    ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "permute_box"}, &p, &why), status::kSuccess)
        << why;
    ASSERT_EQ(run_case(d, c.eb, c.in_off, 0, 7100 + c.eb, c.variant), "") << c.eb << " B, " << c.variant;
  }
}

// Tiles numbered in panels (set_tile_order): xpose::test::tile_panel_cases, one per kernel and a
// few element sizes, one with offset pointers; the plan must say it uses panels (as
// GpuPlanner.TilePanelCasesPlanPanels checks without a GPU). The panels' index math is also emulated
// on the CPU (the RandomPermutations tests of packed, runs and box tiles).
TEST(GpuRandom, TilePanels) {
  XPOSE_REQUIRE_GPU();
  for (const auto& c : xpose::test::tile_panel_cases()) {
    const int eb = c.desc.elem_bytes;
    xpose::plan p;
    std::string why;
    ASSERT_EQ(xpose::make_plan(c.desc, {.where = xpose::backend::kGpu}, &p, &why), status::kSuccess) << why;
    EXPECT_EQ(p.variant(), c.kernel) << p.summary();
    EXPECT_NE(p.summary().find("in panels of"), std::string::npos) << p.summary();
    EXPECT_EQ(run_case(c.desc, eb, c.in_off, 0, 7300 + eb), "") << p.summary();
  }
}

// Broadcast inputs: one input dim of stride 0 (every index of it reads the same elements), the
// others dense, padded or (every third case) at twice the dense strides, any permutation and element
// size, pointers at any element offset; `auto`
// and each permutation kernel by name (a kernel may say it does not apply). The CPU backend had
// chained such a dim as if it continued in memory (docs/cpu.md, seventeenth session).
void random_broadcasts(const std::string& variant, int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 2, 4, 8, 16};
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int c = 0; c < cases; ++c) {
    const int rank = static_cast<int>(pick(2, 6)), eb = sizes[pick(0, 4)];
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = 60000;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t e = std::max<std::int64_t>(1, std::min<std::int64_t>(pick(1, k == rank - 1 ? 9 : 24), budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    d.in_strides.resize(rank);
    std::int64_t st = c % 3 == 2 ? 2 : 1;  // every third case: every other element along the fastest dim
    for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + (c % 2 ? pick(0, 2) : 0);
    d.in_strides[pick(0, rank - 1)] = 0;
    const std::int64_t in_off = c % 4 == 0 ? pick(1, 3) : 0, out_off = c % 5 == 0 ? pick(1, 3) : 0;
    const std::string err = run_case(d, eb, in_off, out_off, 15000 + c, variant);
    ASSERT_EQ(err, "") << variant << " case " << c << " extents " << fmt::format("{}", fmt::join(d.extents, ","))
                       << " perm " << fmt::format("{}", fmt::join(d.perm, ",")) << " in strides "
                       << fmt::format("{}", fmt::join(d.in_strides, ",")) << " elem " << eb;
  }
}

TEST(GpuRandom, BroadcastInputs) {
  XPOSE_REQUIRE_GPU();
  random_broadcasts("auto", 300, 20261130);
  for (const char* v : {"permute_box", "permute_packed", "permute_runs", "permute_rows", "permute_general"})
    random_broadcasts(v, 80, 20261131);
}

// The permutation kernels by name, each on its own cases (auto picks among them).
TEST(GpuRandom, PermutationsPerVariant) {
  XPOSE_REQUIRE_GPU();
  random_permutations("permute_packed", 300, 11);
  random_permutations("permute_runs", 300, 13);
  random_permutations("permute_general", 150, 11);
}

}  // namespace
