// The planner: variant choice, 2-D views and launch shapes. GPU plans are made through
// detail::plan_problem with a hand-made device_info, so all of this runs without a GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "dispatch/plan_data.hpp"
#include "dispatch/registry.hpp"
#include "gpu/geometry.hpp"
#include "gpu/kernels/tile_shapes.hpp"
#include "plan/narrow_rules.hpp"
#include "plan/planner.hpp"
#include "plan/problem.hpp"
#include "xpose/xpose.hpp"


namespace {

using xpose::test::pdesc;
using xpose::test::tdesc;

using xpose::backend;
using xpose::permute_desc;
using xpose::plan_options;
using xpose::status;
using xpose::transpose_desc;
using xpose::detail::plan_data;
using i64 = std::int64_t;



i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

xpose::detail::device_info test_device() {
  xpose::detail::device_info dev;
  dev.sm_count = 7;  // distinctive, to see that the plan keeps the device it was made for
  return dev;
}

class GpuPlanner : public testing::Test {
 protected:
  void SetUp() override {
    if (!xpose::detail::find_variant("tiled")) GTEST_SKIP() << "built without the GPU backend";
  }
  static plan_options gpu(std::string variant = "auto", int bx = 0, int by = 0) {
    return xpose::test::gpu_opts(std::move(variant), bx, by);
  }
  // As make_plan does it: the raw problem plus the descriptor's own 2-D view (built here by hand).
  static status plan_t(const transpose_desc& d, const plan_options& o, plan_data* pd, std::string* why) {
    xpose::detail::matrix_view m;
    m.rows = d.rows;
    m.cols = d.cols;
    m.ld_in = d.ld_in.value_or(d.cols);
    m.ld_out = d.ld_out.value_or(d.rows);
    m.batch = d.batch;
    m.bs_in = d.batch_stride_in.value_or(d.rows * m.ld_in);
    m.bs_out = d.batch_stride_out.value_or(d.cols * m.ld_out);
    return xpose::detail::plan_problem(xpose::detail::to_problem(d), m, o, test_device(), pd, why);
  }
  static status plan_p(const permute_desc& d, const plan_options& o, plan_data* pd, std::string* why) {
    return xpose::detail::plan_problem(xpose::detail::to_problem(d), std::nullopt, o, test_device(), pd, why);
  }
  // auto's choice for each permutation of `cases` (extents, perm, element size, the variant).
  struct auto_case {
    std::vector<i64> ext;
    std::vector<int> perm;
    int elem;
    const char* want;
  };
  static void expect_auto_picks(const std::vector<auto_case>& cases) {
    for (const auto& k : cases) {
      plan_data pd;
      std::string why;
      ASSERT_EQ(plan_p(pdesc(k.ext, k.perm, k.elem), gpu(), &pd, &why), status::kSuccess) << why;
      EXPECT_STREQ(pd.variant->name, k.want) << pd.prob.describe() << " elem " << k.elem;
    }
  }
  static void expect_grid(const plan_data& pd, i64 gx, i64 gy, i64 gz) {
    EXPECT_EQ(pd.launch.grid_x, gx);
    EXPECT_EQ(pd.launch.grid_y, gy);
    EXPECT_EQ(pd.launch.grid_z, gz);
  }
};

// ------------------------------------------------------------------------------------------------
// auto

// reg_tile's band order (raster_tile) visits every tile exactly once, for any grid and band height,
// and keeps consecutive tile numbers inside one band, column by column.
TEST(RasterTile, IsABijectionInBandsOfColumns) {
  for (std::int64_t nbx : {1, 2, 7, 64}) {
    for (std::int64_t nby : {1, 3, 64, 65, 130}) {
      for (std::int64_t band : {1, 4, 64, 200}) {
        std::vector<int> seen(static_cast<std::size_t>(nbx * nby), 0);
        for (std::int64_t lin = 0; lin < nbx * nby; ++lin) {
          std::int64_t bx = -1, by = -1;
          xpose::detail::gpu::raster_tile(lin, nbx, nby, band, &bx, &by);
          ASSERT_TRUE(bx >= 0 && bx < nbx && by >= 0 && by < nby) << lin << " -> " << bx << "," << by;
          ++seen[static_cast<std::size_t>(by * nbx + bx)];
          EXPECT_EQ(by / band, lin / (band * nbx)) << "tile " << lin << " left its band";
        }
        for (int v : seen) ASSERT_EQ(v, 1) << nbx << "x" << nby << " band " << band;
      }
    }
  }
  std::int64_t bx = 0, by = 0;
  xpose::detail::gpu::raster_tile(1, 10, 10, 4, &bx, &by);  // down the band's first column
  EXPECT_EQ(bx, 0);
  EXPECT_EQ(by, 1);
  xpose::detail::gpu::raster_tile(4, 10, 10, 4, &bx, &by);  // then its second
  EXPECT_EQ(bx, 1);
  EXPECT_EQ(by, 0);
}

TEST_F(GpuPlanner, AutoPicksAGpu2dKernelForTransposes) {
  struct named {
    const char* what;
    transpose_desc d;
  };
  std::vector<named> cases;
  cases.push_back({"dense 256x512", tdesc(256, 512)});
  cases.push_back({"odd 1000x77 f64", tdesc(1000, 77, 8)});
  {
    transpose_desc d = tdesc(100, 70, 2);
    d.ld_in = 80;
    d.ld_out = 128;
    d.batch = 5;
    cases.push_back({"batched strided", d});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_t(c.d, gpu(), &pd, &why), status::kSuccess) << why;
    ASSERT_NE(pd.variant, nullptr);
    EXPECT_EQ(pd.where, backend::kGpu);
    EXPECT_EQ(pd.variant->where, backend::kGpu) << pd.variant->name;
    EXPECT_STRNE(pd.variant->name, "copy");
    EXPECT_EQ(pd.cls, xpose::detail::problem_class::kTranspose2d);
    EXPECT_FALSE(pd.reason.empty()) << "auto must say why it chose " << pd.variant->name;
    EXPECT_EQ(pd.device.sm_count, 7);
    ASSERT_TRUE(pd.has_matrix);
    EXPECT_EQ(pd.mat.rows, c.d.rows);
    EXPECT_EQ(pd.mat.cols, c.d.cols);
    EXPECT_EQ(pd.mat.batch, c.d.batch);
    EXPECT_EQ(pd.mat.ld_in, c.d.ld_in.value_or(c.d.cols));
    EXPECT_EQ(pd.mat.ld_out, c.d.ld_out.value_or(c.d.rows));
    // GPU kernels move whole elements: natural alignment. Spans: last element + 1, in bytes.
    EXPECT_EQ(pd.align_bytes % c.d.elem_bytes, 0);
    const i64 ldi = c.d.ld_in.value_or(c.d.cols), ldo = c.d.ld_out.value_or(c.d.rows);
    EXPECT_EQ(pd.in_span_bytes, ((c.d.batch - 1) * c.d.rows * ldi + (c.d.rows - 1) * ldi + c.d.cols) * c.d.elem_bytes);
    EXPECT_EQ(pd.out_span_bytes, ((c.d.batch - 1) * c.d.cols * ldo + (c.d.cols - 1) * ldo + c.d.rows) * c.d.elem_bytes);
  }
}

TEST_F(GpuPlanner, AutoPicksAGpu2dKernelForPermutationsThatAreTransposes) {
  for (const auto& d : {pdesc({2, 3, 40, 50}, {0, 2, 3, 1}),  // NCHW -> NHWC
                        pdesc({2, 40, 50, 3}, {0, 3, 1, 2}),  // NHWC -> NCHW
                        pdesc({300, 200}, {1, 0}),            // plain 2-D
                        pdesc({4, 30, 20}, {0, 2, 1})}) {     // batched
    SCOPED_TRACE(testing::PrintToString(d.extents) + " perm " + testing::PrintToString(d.perm));
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(d, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_EQ(pd.variant->where, backend::kGpu);
    EXPECT_STRNE(pd.variant->name, "copy");
    EXPECT_TRUE(pd.has_matrix);
  }
}

// The choices auto_candidates documents with H200 measurements (src/plan/planner.cpp): each row is
// a shape whose winner was measured, so a change of the rules that moves one shows up here.
TEST_F(GpuPlanner, AutoFollowsTheMeasuredChoices) {
  struct row {
    permute_desc d;
    const char* variant;
  };
  auto with = [](permute_desc d, int eb) {
    d.elem_bytes = eb;
    return d;
  };
  const row rows[] = {
      // batches of small matrices of whole 16-byte blocks: reg_batch for bytes and halves; wider
      // elements filling 3/4 of fast_tile's tiles fast_tile, else reg_batch; c128 stays on narrow
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 1), "reg_batch"},
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 2), "reg_batch"},
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 4), "fast_tile"},
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 8), "fast_tile"},
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 16), "narrow"},
      {with(pdesc({50000, 64, 64}, {0, 2, 1}), 2), "fast_tile"},     // full tiles: fast_tile
      {with(pdesc({50000, 64, 64}, {0, 2, 1}), 16), "fast_tile"},    // c128 only with full tiles
      // c128 batches with a side over 64 and the other 32 or more: the staggered classic tile (95.4 vs
      // fast_tile 93.8); 64 x 16384x64 and its reverse (97.7 / 95.1 vs narrow 81.3 / 83.5); a single
      // matrix with a side of 17 under narrow_rules' sizes (93.9 vs narrow 86.3); 32768 x 32x64 (no
      // side over 64) went to fast_tile until the runs rule below, and batches with a side under 32 stay
      // with the boxes
      {with(pdesc({8192, 64, 256}, {0, 2, 1}), 16), "tiled_skew"},
      {with(pdesc({64, 128, 128, 64}, {0, 3, 1, 2}), 16), "tiled_skew"},
      {with(pdesc({64, 64, 128, 128}, {0, 2, 3, 1}), 16), "tiled_skew"},
      {with(pdesc({683, 11, 25, 21, 17}, {4, 0, 1, 2, 3}), 16), "tiled_skew"},
      // c128 permutations over several batch dims whose runs tiles are a full 32 x 32 (512-byte runs
      // both ways): permute_runs (reversals 91.4-92.4 vs 86.8-90.3); a single batch dim does not (runs
      // 86.3 vs tma_tile 89.1 vs box 90.3: c128_box_beats_tma, below), nor do shorter runs (the rank-4
      // reversal below: box 75.4 vs runs 72.2)
      {with(pdesc({32, 32, 32, 32, 64}, {4, 3, 2, 1, 0}), 16), "permute_runs"},
      {with(pdesc({64, 64, 128, 128}, {3, 2, 1, 0}), 16), "permute_runs"},
      {with(pdesc({16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}), 16), "permute_runs"},
      {with(pdesc({4, 8, 8, 8, 8, 8, 16, 32}, {7, 6, 5, 4, 3, 2, 1, 0}), 16), "permute_runs"},
      {with(pdesc({5256, 8, 14, 19, 6}, {2, 3, 4, 1, 0}), 16), "permute_box"},
      // c128 batches whose batch dim lies between the matrix dims: the box ahead of tma_tile (92.0 vs
      // 88.1, 93.5 vs 87.4); dense batches keep tma_tile; 8-byte elements are not in the rule
      {with(pdesc({90, 163, 56, 81}, {2, 3, 1, 0}), 16), "permute_box"},
      {with(pdesc({2048, 16, 2048}, {2, 1, 0}), 16), "permute_box"},
      {with(pdesc({16, 32, 1024, 128}, {0, 1, 3, 2}), 16), "tma_tile"},
      {with(pdesc({2048, 16, 2048}, {2, 1, 0}), 8), "tma_tile"},
      // narrow f64 matrices with input rows of 16-32 from 259 MiB: tiled_skew (2000000 x 17: 96.6 vs
      // narrow 82.7); 33 lost (78.7 vs narrow 88.9), smaller sizes were not measured
      {with(pdesc({2000000, 17}, {1, 0}), 8), "tiled_skew"},
      {with(pdesc({5000000, 24}, {1, 0}), 8), "tiled_skew"},
      {with(pdesc({1000000, 33}, {1, 0}), 8), "narrow"},
      {with(pdesc({1000000, 17}, {1, 0}), 8), "narrow"},
      // c128 row copies [N, n, R] -> [n, N, R] with n <= 64 and odd rows under 2 KiB: the box ahead of
      // permute_rows (n = 13, R = 19: 92.7 vs 80.4); n = 127, or even rows, keep permute_rows
      {with(pdesc({1393, 15, 13, 13, 19}, {3, 0, 1, 2, 4}), 16), "permute_box"},
      {with(pdesc({91180, 32, 23}, {1, 0, 2}), 16), "permute_box"},
      {with(pdesc({22974, 127, 23}, {1, 0, 2}), 16), "permute_rows"},
      {with(pdesc({65536, 32, 32}, {1, 0, 2}), 16), "permute_rows"},
      {with(pdesc({34415, 13, 150}, {1, 0, 2}), 16), "permute_rows"},
      {with(pdesc({10168, 5, 24, 11, 5}, {1, 2, 0, 3, 4}), 16), "permute_rows"},
      {with(pdesc({23, 201, 168, 85}, {3, 2, 1, 0}), 16), "permute_box"},
      {with(pdesc({16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}), 8), "permute_packed"},  // 16-byte only
      {with(pdesc({692, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}), 16), "permute_box"},
      {with(pdesc({1000000, 16, 16}, {0, 2, 1}), 4), "reg_batch"},   // quarter-full tiles
      {with(pdesc({1000000, 16, 16}, {0, 2, 1}), 16), "reg_batch"},
      {with(pdesc({1000000, 16, 16}, {0, 2, 1}), 1), "permute_packed"},  // 16-byte output rows
      {with(pdesc({1000000, 16, 16}, {0, 2, 1}), 2), "permute_packed"},  // 32-byte output rows
      {with(pdesc({40000, 48, 80}, {0, 2, 1}), 4), "reg_batch"},     // segments, tiles 5/8 full
      {with(pdesc({40000, 48, 80}, {0, 2, 1}), 16), "reg_batch"},
      {with(pdesc({100000, 30, 48}, {0, 2, 1}), 1), "permute_packed"},  // not whole blocks (no vectors)
      // several batch dims: bytes with both sides of 64 B and more (reversals of rank 4 to 6), not rank 7
      {with(pdesc({64, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}), 1), "reg_batch"},
      {with(pdesc({32, 8, 8, 16, 16, 16, 32}, {6, 5, 4, 3, 2, 1, 0}), 1), "permute_packed"},
      {with(pdesc({16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}), 4), "permute_packed"},
      // 256x384 batches of 2-byte elements, 64 MiB and more: tma_tile; smaller ones fast_tile; bytes
      // fast_tile at any size (its full 128 x 128 tiles; reg_batch before the thirteenth session)
      {with(pdesc({4096, 256, 384}, {0, 2, 1}), 2), "tma_tile"},
      {with(pdesc({4096, 256, 384}, {0, 2, 1}), 1), "fast_tile"},
      {with(pdesc({256, 256, 384}, {0, 2, 1}), 1), "fast_tile"},
      {with(pdesc({256, 256, 384}, {0, 2, 1}), 2), "fast_tile"},
      // 1-byte batches filling fast_tile's tiles: fast_tile (reg_batch / reg_tile before the thirteenth
      // session); small matrices that would leave them mostly empty: reg_batch
      {with(pdesc({256, 1024, 128}, {0, 2, 1}), 1), "fast_tile"},
      {with(pdesc({64, 1024, 256}, {0, 2, 1}), 1), "fast_tile"},
      {with(pdesc({100000, 32, 48}, {0, 2, 1}), 1), "reg_batch"},
      {with(pdesc({50000, 64, 64}, {0, 2, 1}), 1), "reg_batch"},
      // several batch dims of bytes (a rank-4 reversal): reg_batch (was permute_packed), not reg_tile
      {with(pdesc({64, 64, 128, 128}, {3, 2, 1, 0}), 1), "reg_batch"},
      // the same for 2-byte elements stays with fast_tile (packed ran 71% vs 86%)
      {with(pdesc({64, 64, 128, 128}, {3, 2, 1, 0}), 2), "fast_tile"},
      // 1-byte matrices of 64 rows or columns, long the other way (NCHW <-> NHWC, 64 channels):
      // reg_tile; small matrices: permute_packed (48 rows: reg_batch, below)
      {with(pdesc({64, 64, 128, 128}, {0, 2, 3, 1}), 1), "reg_tile"},
      {with(pdesc({64, 10000000}, {1, 0}), 1), "reg_tile"},
      {with(pdesc({64, 128, 128, 64}, {0, 3, 1, 2}), 1), "reg_tile"},
      {with(pdesc({10000000, 64}, {1, 0}), 1), "reg_tile"},
      {with(pdesc({40000, 64}, {1, 0}), 1), "permute_packed"},
      {with(pdesc({64, 64, 128, 128}, {0, 2, 3, 1}), 2), "permute_packed"},
      // matrices of 64 MiB and more (1-byte: 128 MiB): tma_tile; below, fast_tile; odd rows
      // skew_tile (c128: single matrices over 64 MiB go to the classic tile, 32 x 16 threads)
      {with(pdesc({16384, 16384}, {1, 0}), 4), "tma_tile"},
      {with(pdesc({16384, 16384}, {1, 0}), 8), "tma_tile"},
      {with(pdesc({16384, 16384}, {1, 0}), 1), "tma_tile"},
      {with(pdesc({10000, 10000}, {1, 0}), 16), "tiled"},
      {with(pdesc({100, 10000, 10000}, {0, 2, 1}), 16), "tma_tile"},  // batches keep tma_tile
      {with(pdesc({4096, 4096}, {1, 0}), 2), "fast_tile"},
      {with(pdesc({4096, 4096}, {1, 0}), 4), "fast_tile"},   // 64 MiB: under 192 MiB for 4 bytes and up
      {with(pdesc({4096, 4096}, {1, 0}), 8), "fast_tile"},
      {with(pdesc({4096, 4096}, {1, 0}), 16), "tiled"},
      {with(pdesc({10000, 10000}, {1, 0}), 2), "tma_tile"},  // 200 MB of 2-byte elements
      {with(pdesc({4096, 4096}, {1, 0}), 1), "fast_tile"},
      {with(pdesc({8192, 8192}, {1, 0}), 1), "fast_tile"},   // 64 MiB of bytes: under 128 MiB
      {with(pdesc({8192, 8192}, {1, 0}), 2), "tma_tile"},
      // ... unless the matrices fill less than 3/4 of tma_tile's tiles (1024 x 128 bytes in 128 x 256)
      {with(pdesc({64, 32, 1024, 128}, {0, 1, 3, 2}), 1), "fast_tile"},
      {with(pdesc({64, 32, 1024, 128}, {0, 1, 3, 2}), 2), "tma_tile"},
      // small single matrices of whole vectors: the classic tile up to 256 KiB / 512 KiB / 16 / 32 /
      // 64 MiB (1 / 2 / 4 / 8 / 16 bytes)
      {with(pdesc({512, 512}, {1, 0}), 1), "tiled"},
      {with(pdesc({1024, 1024}, {1, 0}), 1), "fast_tile"},
      {with(pdesc({512, 512}, {1, 0}), 2), "tiled"},
      {with(pdesc({1024, 1024}, {1, 0}), 2), "fast_tile"},
      {with(pdesc({2048, 2048}, {1, 0}), 4), "tiled"},
      {with(pdesc({2048, 2048}, {1, 0}), 8), "tiled"},
      {with(pdesc({2048, 2048}, {1, 0}), 16), "tiled"},
      {with(pdesc({2048, 4096}, {1, 0}), 16), "tiled"},  // 128 MiB: the 16-byte rule, 32 x 16 threads
      {with(pdesc({10007, 9973}, {1, 0}), 1), "skew_tile"},
      // single 1- and 2-byte matrices of whole words, not whole vectors: the classic tile of words
      // (tiled_words_height), bytes from 4 MiB, halves from 4 to 34 MiB
      {with(pdesc({4100, 4092}, {1, 0}), 1), "tiled_words"},
      {with(pdesc({10000, 10004}, {1, 0}), 1), "tiled_words"},
      {with(pdesc({16380, 16388}, {1, 0}), 1), "tiled_words"},
      {with(pdesc({2052, 2044}, {1, 0}), 2), "tiled_words"},
      {with(pdesc({4100, 4092}, {1, 0}), 2), "tiled_words"},
      {with(pdesc({8196, 8188}, {1, 0}), 2), "skew_tile"},        // halves over 34 MiB
      {with(pdesc({1024, 1028}, {1, 0}), 1), "tiled"},            // bytes under 4 MiB
      {with(pdesc({4100, 4094}, {1, 0}), 1), "skew_tile"},        // 4094 bytes: not whole words
      {with(pdesc({2, 4100, 4092}, {0, 2, 1}), 1), "tiled_words"},  // batches of bytes: any matrix size
      {with(pdesc({360, 163, 56, 81}, {2, 3, 1, 0}), 1), "tiled_words"},      // 163 of 360 x 4536
      {with(pdesc({21024, 8, 14, 19, 6}, {2, 3, 4, 1, 0}), 1), "tiled_words"},
      {with(pdesc({10512, 8, 14, 19, 6}, {2, 3, 4, 1, 0}), 2), "tiled_words"},  // halves of 4-34 MiB
      {with(pdesc({180, 163, 56, 81}, {2, 3, 1, 0}), 2), "skew_tile"},        // 1.6 MiB halves
      // ... single ones up to 12 / 34 / 48 / 200 MiB (1 / 2 / 4 / 8 bytes) the classic tile
      {with(pdesc({1000, 1000}, {1, 0}), 1), "tiled"},
      {with(pdesc({1448, 1448}, {1, 0}), 1), "tiled"},
      {with(pdesc({3500, 3501}, {1, 0}), 1), "tiled"},
      {with(pdesc({4096, 4097}, {1, 0}), 1), "skew_tile"},    // over 12 MiB
      {with(pdesc({999, 1001}, {1, 0}), 2), "tiled"},
      {with(pdesc({4096, 4097}, {1, 0}), 2), "tiled"},
      {with(pdesc({5000, 5003}, {1, 0}), 2), "skew_tile"},    // over 34 MiB
      {with(pdesc({2896, 2897}, {1, 0}), 4), "tiled"},
      {with(pdesc({3500, 3501}, {1, 0}), 4), "tiled"},
      {with(pdesc({3999, 4001}, {1, 0}), 4), "tiled_skew"},   // over 48 MiB, odd output rows
      {with(pdesc({5000, 5003}, {1, 0}), 8), "tiled"},
      {with(pdesc({6001, 6003}, {1, 0}), 8), "tiled_skew"},   // over 200 MiB, odd output rows
      // ... and 4- and 8-byte ones of any size whose output rows are whole 32-byte sectors
      {with(pdesc({10000, 10007}, {1, 0}), 4), "tiled"},
      {with(pdesc({16384, 16383}, {1, 0}), 8), "tiled"},
      {with(pdesc({6000, 6001}, {1, 0}), 8), "tiled"},
      {with(pdesc({16380, 16383}, {1, 0}), 4), "tiled_skew"},  // 16380 f32: 16-byte, not 32-byte rows
      {with(pdesc({16383, 16384}, {1, 0}), 4), "tiled_skew"},
      {with(pdesc({16383, 16384}, {1, 0}), 2), "skew_tile"},
      {with(pdesc({46341, 46343}, {1, 0}), 4), "skew_tile"},  // over 2^31 elements: no one-tile-per-block form
      {with(pdesc({10000, 10007}, {1, 0}), 2), "skew_tile"},
      {with(pdesc({2, 10000, 10007}, {0, 2, 1}), 4), "skew_tile"},  // batches not measured
      {with(pdesc({2000, 2000}, {1, 0}), 1), "fast_tile"},    // whole 16-byte rows
      {with(pdesc({10007, 9973}, {1, 0}), 4), "tiled_skew"},
      {with(pdesc({10007, 9973}, {1, 0}), 8), "tiled_skew"},
      {with(pdesc({10007, 9973}, {1, 0}), 2), "skew_tile"},
      {with(pdesc({10007, 9973}, {1, 0}), 16), "tiled"},  // rows of whole 16-byte units: the 16-byte rule
      // a short side (<= 64) goes to narrow, whatever the long side's alignment (interleave first where it won)
      {with(pdesc({48, 1000003}, {1, 0}), 4), "narrow"},
      {with(pdesc({1000003, 3}, {1, 0}), 1), "interleave"},  // kNarrowRules from a few MiB
      // single narrow matrices: permute_packed for 1- to 4-byte elements and for a side of <= 4,
      // narrow for wider elements with a longer short side
      {with(pdesc({4, 40000000}, {1, 0}), 4), "interleave"},  // kNarrowRules (4 x 1e7: 98.9 vs 88.8)
      {with(pdesc({40000000, 3}, {1, 0}), 1), "interleave"},  // kNarrowRules (1e7 x 3: 104.2 vs 75.9)
      // interleave: short sides of 2-16 (1-4 B) where it won, from the smallest size measured
      {with(pdesc({3, 10000001}, {1, 0}), 1), "interleave"},
      {with(pdesc({10000001, 16}, {1, 0}), 1), "interleave"},
      {with(pdesc({16, 10000001}, {1, 0}), 2), "interleave"},
      {with(pdesc({10000001, 8}, {1, 0}), 4), "interleave"},
      {with(pdesc({16, 10000000}, {1, 0}), 2), "reg_batch"},   // 97.7 vs interleave 90.9
      {with(pdesc({10000001, 2}, {1, 0}), 4), "narrow"},       // 94.3 vs interleave 89.3
      {with(pdesc({3, 1000001}, {1, 0}), 1), "interleave"},    // from a few MiB (155.7 vs 77.4)
      {with(pdesc({1000000, 8}, {1, 0}), 2), "interleave"},    // 15 MiB (92.4 vs 65.6)
      {with(pdesc({10000000, 8}, {1, 0}), 2), "reg_batch"},    // ... but not from 38 MiB (95.2 vs 93.3)
      {with(pdesc({3, 100001}, {1, 0}), 1), "narrow"},         // 0.3 MB: launch-bound, not taken
      {with(pdesc({3, 40000000}, {1, 0}), 8), "interleave"},  // kNarrowRules (3 x 1e7: 99.2 vs 88.6)
      {with(pdesc({3, 40000001}, {1, 0}), 16), "permute_packed"},
      {with(pdesc({64, 10000000}, {1, 0}), 8), "interleave"},  // kNarrowRules (91.9 vs narrow 82.7)
      {with(pdesc({64, 1000000}, {1, 0}), 8), "narrow"},       // below the size measured
      // interleave in row groups: sides of 32, 48 and 64 with an odd long side; the sides between
      // keep the rows that follow (interleave does not take them)
      {with(pdesc({48, 10000001}, {1, 0}), 1), "interleave"},
      {with(pdesc({40, 10000001}, {1, 0}), 1), "permute_box"},
      {with(pdesc({10000001, 64}, {1, 0}), 1), "interleave"},
      {with(pdesc({10000001, 32}, {1, 0}), 2), "interleave"},
      {with(pdesc({10000000, 32}, {1, 0}), 2), "interleave"},
      {with(pdesc({32, 10000001}, {1, 0}), 4), "interleave"},
      {with(pdesc({48, 10000001}, {1, 0}), 4), "permute_runs"},  // +3.1 only: not taken
      {with(pdesc({32, 1000001}, {1, 0}), 2), "interleave"},     // from 61 MiB (76.6 vs 51.5)
      {with(pdesc({48, 1000001}, {1, 0}), 1), "interleave"},     // i8 from 30 MiB (63.7 vs 42.9)
      {with(pdesc({64, 1000001}, {1, 0}), 1), "permute_box"},    // ... not 64 rows there (67.1 vs 68.8)
      {with(pdesc({1000001, 64}, {1, 0}), 1), "interleave"},     // i8 from 45 MiB (64.9 vs 50.3)
      {with(pdesc({1000001, 64}, {1, 0}), 2), "interleave"},     // from 122 MiB (78.2 vs 60.7)
      {with(pdesc({1000001, 48}, {1, 0}), 2), "interleave"},     // tile per block: from 91 MiB (80.2 vs 72.6)
      {with(pdesc({1000001, 48}, {1, 0}), 4), "interleave"},     // f32 183 MiB to 1.2 GiB (82.4 vs 73.0)
      {with(pdesc({1000001, 64}, {1, 0}), 4), "interleave"},     // (79.1 vs 69.2)
      {with(pdesc({10000001, 64}, {1, 0}), 4), "tiled_skew"},    // ... not at 10^7 (88.1 vs 82.1)
      {with(pdesc({500001, 64}, {1, 0}), 4), "narrow"},          // below the size measured
      {with(pdesc({1000001, 32}, {1, 0}), 2), "narrow"},         // 78.3 both: not taken below 610 MiB
      {with(pdesc({1000000, 32}, {1, 0}), 4), "interleave"},     // 92.7 vs 82.2
      {with(pdesc({10000000, 48}, {1, 0}), 16), "tiled_skew"},  // kNarrowRules (94.4 vs narrow 94.1)
      {with(pdesc({10000001, 64}, {1, 0}), 8), "tiled_skew"},   // kNarrowRules (90.5 vs tiled 76.5)
      {with(pdesc({10000001, 64}, {1, 0}), 16), "tiled_skew"},  // kNarrowRules (90.4 vs narrow 86.7)
      {with(pdesc({64, 10000001}, {1, 0}), 16), "tiled_skew"},  // (92.6 vs narrow 88.1)
      {with(pdesc({48, 10000001}, {1, 0}), 16), "tiled_skew"},  // (92.6 vs narrow 89.2)
      {with(pdesc({64, 1000001}, {1, 0}), 16), "narrow"},       // below the size measured
      {with(pdesc({10000000, 64}, {1, 0}), 16), "tiled_skew"},  // (93.8 vs narrow 83.7)
      {with(pdesc({64, 10000000}, {1, 0}), 16), "tiled_skew"},  // (95.1 vs narrow 86.0)
      {with(pdesc({48, 10000000}, {1, 0}), 16), "narrow"},      // whole 48 long rows: narrow 96.2 vs 95.2
      // ... but 8-byte ones with a side of 32 or 48: fast_tile (its 32 x 32 tiles whole or 3/4 full)
      {with(pdesc({48, 10000000}, {1, 0}), 8), "fast_tile"},
      {with(pdesc({32, 20000000}, {1, 0}), 8), "fast_tile"},
      {with(pdesc({20000000, 32}, {1, 0}), 8), "tiled_skew"},  // kNarrowRules (1e7 x 32: 95.0 vs 93.9)
      {with(pdesc({16, 20000000}, {1, 0}), 8), "permute_packed"},  // kNarrowRules (16 x 1e7: 91.2 vs 84)
      // single narrow matrices of whole blocks, 1, 2 and 8 B: reg_batch with short input rows, and with
      // short columns where a warp covers whole output rows from 128-byte input pieces
      {with(pdesc({10000000, 48}, {1, 0}), 1), "reg_batch"},
      {with(pdesc({10000000, 64}, {1, 0}), 8), "tiled_skew"},  // ... but f64 64-element rows: kNarrowRules (95.1 vs 86.5)
      {with(pdesc({48, 10000000}, {1, 0}), 1), "reg_batch"},
      {with(pdesc({32, 20000000}, {1, 0}), 2), "reg_batch"},
      {with(pdesc({48, 10000000}, {1, 0}), 2), "permute_packed"},  // 80-byte input pieces
      {with(pdesc({10000000, 48}, {1, 0}), 4), "permute_packed"},  // 4 bytes: not measured
      {with(pdesc({16, 10000000}, {1, 0}), 1), "permute_packed"},  // 16-byte output rows
      // odd narrow 8-byte matrices: permute_runs at 48 rows (kNarrowRules: 84.3 vs tiled 80.3;
      // narrow's shifted rows lost there), tiled_skew at 48 columns
      {with(pdesc({48, 10000001}, {1, 0}), 8), "permute_runs"},
      {with(pdesc({10000001, 48}, {1, 0}), 8), "tiled_skew"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(testing::PrintToString(r.d.extents) + " perm " + testing::PrintToString(r.d.perm) + " elem " +
                 std::to_string(r.d.elem_bytes));
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(r.d, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_STREQ(pd.variant->name, r.variant) << pd.reason;
  }
}

// Every kNarrowRules row is the first match for some single matrix of its class: a row placed
// after a broader one would never be taken. Probes: each element size, short side and long-side
// alignment the row names, at its smallest and largest size and a larger one.
TEST(NarrowRules, EveryRowIsReachable) {
  const auto rules = xpose::detail::narrow_rules();
  ASSERT_FALSE(rules.empty());
  for (std::size_t k = 0; k < rules.size(); ++k) {
    const auto& r = rules[k];
    SCOPED_TRACE(fmt::format("row {}: {} ({})", k, r.variant, r.reason));
    ASSERT_LE(r.elem_lo, r.elem_hi);
    ASSERT_LE(r.side_lo, r.side_hi);
    ASSERT_LE(r.min_mib, r.max_mib);
#ifdef XPOSE_HAS_CUDA
    EXPECT_NE(xpose::detail::find_variant(r.variant), nullptr);
#endif
    bool reached = false;
    for (int e = 1; e <= 16 && !reached; e *= 2) {
      if (e < r.elem_lo || e > r.elem_hi) continue;
      for (int side = r.side_lo; side <= r.side_hi && !reached; ++side)
        for (int whole : {0, 1}) {
          if (r.whole >= 0 && whole != r.whole) continue;
          const i64 targets[] = {r.min_mib, std::min<i64>(r.max_mib, r.min_mib + 1), std::min<i64>(r.max_mib, 4 * r.min_mib + 64)};
          for (i64 mib : targets) {
            i64 len = std::max<i64>(side + 1, ((mib << 20) + side * e) / (side * e));
            if (whole) len = (len + 15) / 16 * 16;
            else if (len % 2 == 0) ++len;
            plan_data pd;
            pd.has_matrix = true;
            pd.mat.rows = r.short_rows ? side : len;
            pd.mat.cols = r.short_rows ? len : side;
            pd.prob = xpose::detail::to_problem(tdesc(pd.mat.rows, pd.mat.cols, e));
            if (xpose::detail::narrow_rule_for(pd) == &r) reached = true;
          }
        }
    }
    EXPECT_TRUE(reached) << "no matrix of its class takes this row: a row above shadows it";
  }
}

// skew_tile's raw layout (kernels/skew_tile.cuh skew_load_raw): taken for the input leading
// dimensions kRawMask names, at the row pitch whose gather the bank model counts fewest wavefronts
// for; scripts/skew_pitch.py, a separate replay of the same accesses, gives for 10007 output columns of
// 1 byte: L = 12 7.0 wavefronts per instruction at Pr = 144, 4.0 at 160-192; L = 2 3.5, 2.0, 3.5, 2.0;
// L = 5 2.0 at every Pr (the smallest kept).
TEST_F(GpuPlanner, SkewTilePitchFromTheBankModel) {
  struct row {
    transpose_desc d;
    int pitch;  // Pr, 0: the scatter
  };
  auto t = [](i64 rows, i64 cols, int eb) { return transpose_desc{.rows = rows, .cols = cols, .elem_bytes = eb}; };
  const std::vector<row> rows = {
      {t(10007, 10012, 1), 160}, {t(10007, 10002, 1), 160}, {t(10007, 9973, 1), 144},
      {t(10007, 10004, 1), 0},   {t(10007, 10008, 1), 0},   {t(10007, 10014, 1), 0},  // L = 4, 8, 14: scatter
      {t(16383, 16385, 2), 72},  {t(10007, 10002, 2), 0},   {t(10007, 9971, 2), 0},   // f16: L = 1 and 5 only
      {t(10007, 9973, 4), 0},
  };
  for (const auto& r : rows) {
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_t(r.d, gpu("skew_tile"), &pd, &why), status::kSuccess) << why;
    EXPECT_EQ(pd.launch.skew_pitch, r.pitch) << pd.prob.describe() << " elem " << r.d.elem_bytes;
    EXPECT_NE(pd.launch_note.find(r.pitch ? "as they stand" : "scattered"), std::string::npos) << pd.launch_note;
  }
}

// The rules that pick the classic tile set its block height: 32 x 16 for large 16-byte matrices,
// 32 x 4 / 32 x 8 for 4- / 8-byte ones with sector-aligned output rows, the default 32 x 8 for the
// small ones (tiled_small_wins).
TEST_F(GpuPlanner, TiledRulesSetTheirBlockHeight) {
  struct row {
    permute_desc d;
    int height;
  };
  auto with = [](permute_desc d, int eb) {
    d.elem_bytes = eb;
    return d;
  };
  const std::vector<row> rows = {
      {with(pdesc({10007, 9973}, {1, 0}), 16), 16}, {with(pdesc({4096, 4096}, {1, 0}), 16), 16},
      {with(pdesc({2048, 2048}, {1, 0}), 16), 8},   {with(pdesc({10000, 10007}, {1, 0}), 4), 4},
      {with(pdesc({10000, 10007}, {1, 0}), 8), 8},  {with(pdesc({2048, 2049}, {1, 0}), 4), 8},
  };
  for (const auto& r : rows) {
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(r.d, gpu(), &pd, &why), status::kSuccess) << why;
    ASSERT_STREQ(pd.variant->name, "tiled") << pd.prob.describe();
    EXPECT_EQ(pd.launch.block_x, 32) << pd.prob.describe();
    EXPECT_EQ(pd.launch.block_y, r.height) << pd.prob.describe() << " elem " << r.d.elem_bytes;
  }
  // tiled_skew (odd output rows): 32 x 4 for 4-byte elements, 32 x 8 for 8-byte ones.
  for (const auto& r : std::vector<row>{{with(pdesc({10007, 9973}, {1, 0}), 4), 4},
                                        {with(pdesc({10007, 9973}, {1, 0}), 8), 8}}) {
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(r.d, gpu(), &pd, &why), status::kSuccess) << why;
    ASSERT_STREQ(pd.variant->name, "tiled_skew") << pd.prob.describe();
    EXPECT_EQ(pd.launch.block_y, r.height) << pd.prob.describe() << " elem " << r.d.elem_bytes;
  }
}

// A large f32 matrix runs tma_tile, then permute_packed's vector plan, on 16-byte aligned pointers
// only; other pointers fall back to skew_tile (which keeps its vectors aligned) rather than the
// packed kernel's element-wise plan.
TEST_F(GpuPlanner, LargeF32MisalignedPointersFallBackToSkewTile) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_p(pdesc({16384, 16384}, {1, 0}), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_STREQ(pd.variant->name, "tma_tile");
  EXPECT_EQ(pd.align_bytes, 16);
  ASSERT_NE(pd.fallback, nullptr);
  EXPECT_STREQ(pd.fallback->variant->name, "permute_packed");
  EXPECT_EQ(pd.fallback->align_bytes, 16);
  const plan_data* f = pd.fallback.get();
  while (f && f->align_bytes > 4) f = f->fallback.get();  // the first plan that runs a 4-byte aligned pointer
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(f->variant->name, "skew_tile");
}

// permute_runs takes the suite's odd random permutations from permute_packed where packed gets no
// input vectors and short runs (planner.cpp, runs_beat_packed), and 16-byte permutations over several
// batch dims whose runs tiles are full (c128_runs_full_tiles).
TEST_F(GpuPlanner, OddFastestDimsGoToPermuteRuns) {
  expect_auto_picks({
      {{6, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, 4, "permute_runs"},  // fastest dims 5 and 7
      {{6, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, 1, "permute_box"},  // bytes: box beat runs
      {{817, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 4, "permute_runs"},
      {{817, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 8, "permute_box"},  // 8 bytes: box beat runs (f64_box_beats)
      // 16-byte elements: not runs; packed's box holds 840 elements with runs of 28-30, so permute_box
      // (c128_box_beats_packed: 57.3 -> 75.1% of copy)
      {{6, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, 16, "permute_box"},
      {{93, 25, 19, 14, 18, 6}, {2, 3, 4, 0, 5, 1}, 16, "permute_box"},      // 750 elements, a run of 30
      // 1012 and 1020 elements, but packed's runs (22/46, 34/30) are not whole 128-byte lines and the
      // box launches one block per tile: box (72.8 -> 75.4, 78.0 -> 82.0)
      {{23, 201, 168, 85}, {3, 2, 1, 0}, 16, "permute_box"},
      {{692, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 16, "permute_box"},
      // packed's runs 32/32: packed 89.8 vs box 83.4; but the runs tile is a full 32 x 32 over several
      // batch dims (c128_runs_full_tiles): runs 92.1 vs packed 90.3
      {{8, 8, 8, 16, 16, 16, 32}, {6, 5, 4, 3, 2, 1, 0}, 16, "permute_runs"},
      {{379, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 16, "permute_packed"},  // runs 128/128: 90.9 vs 83.8
      {{13, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 4, "permute_box"},  // output runs of 9: box beat packed
      // packed's runs are long, but its box is 8 KiB, so the box went ahead of it; a 3944325 x 17 f64
      // matrix of 512 MiB, it now takes kNarrowRules' tiled_skew (93.3 vs box 86.4)
      {{683, 11, 25, 21, 17}, {4, 0, 1, 2, 3}, 8, "tiled_skew"},
      {{64, 64, 128, 128}, {0, 2, 3, 1}, 4, "permute_packed"},                      // vectors both ways
  });
}

// permute_rows takes row copies of long rows, of whole 16-byte rows from 128 bytes and of rows only
// 1- or 2-byte words fit (or 4-byte words, for 1- and 2-byte elements) from 128 bytes (planner.cpp,
// rows_beat_boxes); short rows and rows of 4- or 8-byte elements' words below 2 KiB stay with the
// box kernels.
TEST_F(GpuPlanner, RowCopiesGoToPermuteRowsWhereItWon) {
  expect_auto_picks({
      {{596, 7, 19, 23, 21, 7}, {1, 0, 2, 3, 4, 5}, 1, "permute_rows"},     // rows of 64,239 B
      {{2404, 53, 54, 39}, {1, 0, 2, 3}, 4, "permute_rows"},                // 8,424 B
      {{16, 32, 1024, 128}, {0, 2, 1, 3}, 4, "permute_rows"},               // 512 B, whole vectors
      {{91896, 127, 23}, {1, 0, 2}, 1, "permute_box"},                      // 23 B of bytes: under 128
      {{40672, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 1, "permute_box"},           // 55 B of bytes: box 64.9 vs 60.6
      {{1712, 18, 58, 150}, {2, 0, 1, 3}, 1, "permute_rows"},               // 150 B of 2-byte words
      {{45948, 127, 23}, {1, 0, 2}, 2, "permute_box"},                      // f16, 46 B: box 73.5 vs 65.7
      {{20336, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 2, "permute_box"},           // f16, 110 B: box 78.9 vs 71.6
      {{2786, 15, 13, 13, 19}, {3, 0, 1, 2, 4}, 2, "permute_box"},          // f16, 38 B
      {{856, 18, 58, 150}, {2, 0, 1, 3}, 2, "permute_rows"},                // f16, 300 B of 4-byte words
      {{22974, 127, 23}, {1, 0, 2}, 4, "permute_box"},                      // f32, 92 B: not for 4-byte elements
      {{1851276, 29, 5}, {1, 0, 2}, 1, "permute_box"},                      // 5 B: too short (box beat packed)
      {{224, 23, 21, 7, 22, 16}, {4, 0, 2, 1, 3, 5}, 1, "permute_packed"},  // 16 B: one vector
      {{10168, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 4, "permute_packed"},        // 220 B of 4-byte words
      {{428, 18, 58, 150}, {2, 0, 1, 3}, 4, "permute_packed"},              // 600 B of 8-byte words: packed 83.8, general 74.9
      {{64, 32, 1024, 16}, {0, 2, 1, 3}, 4, "permute_packed"},              // 64 B, whole vectors
  });
}

// permute_box goes ahead of the kernel auto would run for 1- and 2-byte elements where that is
// permute_packed with boxes under 4 KiB, permute_runs or the classic tile, and for 4-, 8- and
// 16-byte elements where their rules say (planner.cpp, box_beats); elsewhere the kernels it lost to
// keep their cases.
TEST_F(GpuPlanner, BoxWhereItWon) {
  expect_auto_picks({
      {{4, 24, 19, 23, 24, 25, 16, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 1, "permute_box"},  // packed box of 960 B
      {{721600, 124, 3, 1}, {1, 0, 2, 3}, 1, "permute_box"},                         // 3-byte rows
      {{26, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 2, "permute_box"},     // packed box of 1728 B
      {{3268, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1, "permute_box"},               // runs, bytes
      {{548, 108, 82, 55}, {3, 2, 0, 1}, 1, "permute_box"},                          // tiled
      {{1634, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 4, "permute_runs"},              // 4-byte elements
      {{4128, 25, 20, 13, 5}, {3, 4, 1, 0, 2}, 2, "permute_box"},                    // runs, f16 (raw rows)
      {{256, 64, 128, 128}, {3, 2, 1, 0}, 1, "fast_tile"},  // packed box of 16 KiB; fast_tile first (thirteenth session)
      {{2404, 53, 54, 39}, {1, 0, 2, 3}, 1, "permute_rows"},                         // long rows
      {{925638, 29, 5}, {1, 0, 2}, 2, "permute_box"},                                // 10-byte rows
      {{7405201, 29, 5}, {1, 0, 2}, 2, "permute_box"},  // the same over 2 GiB (58.4 vs packed 20.7; refused before)
      // 4 and 8 bytes (ninth session): packed with vectors under 16 B on a side (f32) or a box of
      // at most 8 KiB (f64), moving single elements.
      {{13, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 4, "permute_box"},   // vectors 4/2
      {{462819, 29, 5}, {1, 0, 2}, 4, "permute_box"},                             // vectors 1/1
      {{60787, 184, 6}, {0, 2, 1}, 4, "permute_packed"},                          // vectors 4/4
      {{10168, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 4, "permute_packed"},              // vectors 4/4
      {{13, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 8, "permute_box"},   // box of 6912 B
      {{462819, 29, 5}, {1, 0, 2}, 8, "permute_box"},                             // box of 5600 B
      {{1, 24, 19, 23, 24, 25, 16, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 8, "permute_box"},  // 4 GB: 72.0 vs 49.6
      {{601, 53, 54, 39}, {1, 0, 2, 3}, 8, "permute_rows"},                       // long rows
      // 8 bytes (fifty-seventh session, f64_box_beats): the box ahead of runs, and of packed where
      // the box's rows are plain, unless packed's runs are whole lines both ways or its box one run.
      {{23, 201, 168, 85}, {3, 2, 1, 0}, 8, "permute_box"},                       // runs 67.7 vs 78.8
      {{66, 12, 6, 2, 15, 18, 13, 2}, {7, 4, 1, 3, 6, 2, 0, 5}, 8, "permute_box"},  // packed 86.8 vs 94.5
      {{11, 13, 14, 4, 18, 20, 23}, {0, 4, 5, 2, 1, 6, 3}, 8, "permute_box"},     // packed 81.1 vs 87.6
      {{8, 8, 8, 16, 16, 16, 32}, {6, 5, 4, 3, 2, 1, 0}, 8, "permute_packed"},    // swizzled box 82.3 vs 89.1
      {{64, 128, 128, 64}, {0, 3, 1, 2}, 8, "permute_packed"},                    // whole lines: box 67.4 vs 90.1
      {{128561, 174, 3}, {0, 2, 1}, 8, "permute_packed"},                         // one run: box 78.1 vs 90.4
      // 4 bytes (fifty-eighth session, f32_box_beats_packed): the box ahead of packed where its rows
      // are plain and it has several runs a side, packed's words are under 16 B and its shorter run
      // under 1 KiB (H200, % of copy, packed vs box).
      {{379, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 4, "permute_box"},      // 8 B words: 66.5 vs 84.5
      {{368, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 4, "permute_box"},            // 480 B runs: 77.4 vs 84.7
      {{8, 1024, 1024, 8}, {0, 2, 1, 3}, 4, "permute_packed"},                    // 16 B words: 83.6 vs 79.7
      {{64, 128, 128, 64}, {0, 3, 1, 2}, 4, "permute_packed"},                    // one input run: 84.7 vs 64.0
      {{428, 18, 58, 150}, {2, 0, 1, 3}, 4, "permute_packed"},                    // 2400 B runs: 83.8 vs 71.8
      {{6, 18, 22, 13, 3, 14, 2, 24}, {7, 1, 4, 6, 3, 2, 0, 5}, 4, "permute_packed"},  // swizzled: 79.0 vs 70.9
      // 4 bytes (sixty-sixth session, f32_box_beats_runs and f32_runs_beat_box): the box ahead of
      // runs where the runs tile has a run under 100 B, runs ahead of a swizzled box past 100 B
      // (H200, by name, % of copy, box vs runs).
      {{3623, 7, 2, 21, 21, 3}, {2, 0, 4, 1, 5, 3}, 4, "permute_box"},    // runs of 84 B: 64.3 vs 50.7
      {{692, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 4, "permute_runs"},  // words swizzled, 136 B: 59.9 vs 67.2
      {{7262, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 4, "permute_runs"},    // granules, 168 B: 58.4 vs 65.1
      {{194, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 4, "permute_runs"},  // plain box, 228 B: kept
      {{22, 12, 5, 21, 6, 20, 20}, {5, 2, 4, 0, 3, 6, 1}, 4, "permute_box"},  // plain, runs of 48 B: kept
      {{93, 25, 19, 14, 18, 6}, {2, 3, 4, 0, 5, 1}, 4, "permute_box"},        // granules, 100 B: 68.7 vs 68.0
      // 1 and 2 bytes (eleventh session): packed moving widened 2- or 4-byte words one at a time,
      // packed vectors across two output dims over short runs, skew_tile tiles under 40% full.
      {{1516, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 1, "permute_box"},      // packed: 2 B words
      {{758, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 2, "permute_box"},       // packed: 4 B words
      {{32, 1024, 1024, 8}, {0, 2, 1, 3}, 1, "permute_packed"},                    // 8 B words: kept
      {{88, 12, 5, 21, 6, 20, 20}, {5, 2, 4, 0, 3, 6, 1}, 1, "permute_box"},       // across 2 dims, runs 400 B
      {{12, 18, 22, 13, 3, 14, 2, 24}, {7, 1, 4, 6, 3, 2, 0, 5}, 2, "permute_box"},  // runs 336 B
      {{243148, 184, 6}, {0, 2, 1}, 1, "permute_packed"},                          // runs of 15 KiB: kept
      {{156, 78, 144, 150}, {3, 1, 0, 2}, 1, "permute_box"},                       // skew tiles 33% full
      {{92, 201, 168, 85}, {3, 2, 1, 0}, 1, "permute_box"},  // 48%: permute_runs first, then box_beats
      {{78, 78, 144, 150}, {3, 1, 0, 2}, 2, "permute_box"},  // f16, 59%: permute_runs first, then box_beats
      {{180, 163, 56, 81}, {2, 3, 1, 0}, 2, "skew_tile"},     // 360 x 4536 matrices, 94%: kept
      {{32, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, 2, "permute_box"},  // fast_tile's tiles 50% full
      {{64, 32, 32, 32, 64}, {4, 3, 2, 1, 0}, 2, "fast_tile"},           // 100%: kept
  });
}

// Row copies of bytes that auto runs through permute_box as wider elements (plan_problem): where
// the fastest dim and every stride are whole W-byte words, the box moves W-byte elements on pointers
// aligned to W and falls back to the box of bytes on any other; 3-byte rows, strides that are not
// whole words, wider elements (kWidenBoxMaxElem) and named variants keep the element as given.
TEST_F(GpuPlanner, BoxRowCopiesOfWholeWordsMoveWiderElements) {
  struct row {
    permute_desc d;
    int w;
  };
  const std::vector<row> rows = {
      {pdesc({44, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 1), 2},
      {pdesc({1516, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 1), 2},
      {pdesc({132, 10, 23, 16, 23, 8, 3}, {2, 4, 3, 1, 0, 5, 6}, 1), 8},  // rows of 24 B: 3 words of 8
      {pdesc({3132, 19, 7, 23, 7, 4}, {2, 0, 1, 4, 3, 5}, 1), 4},
  };
  for (const auto& r : rows) {
    const int s = r.d.elem_bytes;
    const std::string what = fmt::format("{} elem {}", fmt::join(r.d.extents, ","), s);
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(r.d, gpu(), &pd, &why), status::kSuccess) << why;
    ASSERT_STREQ(pd.variant->name, "permute_box") << what;
    EXPECT_EQ(pd.prob.elem_bytes, r.w) << what;
    EXPECT_EQ(pd.align_bytes, r.w) << what;
    EXPECT_EQ(pd.reason.rfind(fmt::format("row copy moved as {}-byte elements", r.w), 0), 0u) << pd.reason;
    // The widened problem is the same bytes: spans, and the count of elements times their size.
    EXPECT_EQ(pd.prob.count() * r.w, xpose::detail::to_problem(r.d).count() * s) << what;
    ASSERT_NE(pd.fallback, nullptr) << what;
    const plan_data& f = *pd.fallback;
    EXPECT_STREQ(f.variant->name, "permute_box") << what;
    EXPECT_EQ(f.prob.elem_bytes, s) << what;
    EXPECT_EQ(f.align_bytes, s) << what;
    EXPECT_EQ(f.fallback, nullptr) << what;
    EXPECT_EQ(pd.in_span_bytes, f.in_span_bytes) << what;
    EXPECT_EQ(pd.out_span_bytes, f.out_span_bytes) << what;
    // Named, the box moves the element as given.
    plan_data named;
    ASSERT_EQ(plan_p(r.d, gpu("permute_box"), &named, &why), status::kSuccess) << why;
    EXPECT_EQ(named.prob.elem_bytes, s) << what;
    EXPECT_EQ(named.fallback, nullptr) << what;
  }
  // Rows of 3 bytes (no wider word divides them), a stride that is not whole words (a padded input
  // row of 2 * 23 + 1 bytes), and 2- and 8-byte elements: the element as given.
  for (const auto& d : {pdesc({721600, 124, 3, 1}, {1, 0, 2, 3}, 1),
                        pdesc({758, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 2),
                        pdesc({112, 23, 21, 7, 22, 16}, {4, 0, 2, 1, 3, 5}, 2),
                        pdesc({11, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 8),
                        [] {
                          permute_desc d = pdesc({44, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 1);
                          d.in_strides.assign(8, 1);
                          d.in_strides[6] = 2;
                          d.in_strides[5] = 2 * 23 + 1;  // dim 6's 23 rows of 2 bytes padded by a byte
                          for (int k = 4; k >= 0; --k) d.in_strides[k] = d.in_strides[k + 1] * d.extents[k + 1];
                          return d;
                        }()}) {
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(d, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_EQ(pd.prob.elem_bytes, d.elem_bytes) << pd.prob.describe();
    EXPECT_EQ(pd.reason.find("row copy moved as"), std::string::npos) << pd.reason;
  }
}

// Batches of 4- and 8-byte matrices whose strides rule out 16-byte vectors (seventy-ninth session,
// H100, by name against auto's kernel before): the classic tile's fallback (a side of 32-64) goes to
// permute_runs for both sizes, skew_tile for 8-byte elements only, from 128 MiB; 2-byte batches,
// 4-byte skew_tile batches and small batches keep their kernels.
TEST_F(GpuPlanner, RunsForLargeBatchesOfOddMatrices) {
  expect_auto_picks({
      {{588674, 3, 38}, {2, 1, 0}, 4, "permute_runs"},        // tiled 67.4 vs runs 89.4
      {{38043, 42, 42}, {2, 1, 0}, 8, "permute_runs"},        // tiled 82.1 vs 85.9
      {{21, 161, 137, 141}, {2, 0, 3, 1}, 8, "permute_runs"},  // skew_tile 81.8 vs 93.4
      {{22, 161, 137, 141}, {2, 0, 3, 1}, 4, "skew_tile"},     // 4-byte skew_tile batches: mixed, kept
      {{176, 196, 34, 114}, {2, 3, 1, 0}, 2, "skew_tile"},     // 2 bytes: runs lost 21.3, kept
      {{1000, 3, 38}, {2, 1, 0}, 4, "tiled"},                  // 0.4 MiB: not measured, kept
      {{2, 161, 137, 141}, {2, 0, 3, 1}, 8, "skew_tile"},      // 50 MiB: not measured, kept
  });
}

TEST_F(GpuPlanner, AutoOnACopyPicksCopy) {
  struct named {
    const char* what;
    permute_desc d;
  };
  for (const auto& c : {named{"identity", pdesc({2, 3, 4}, {0, 1, 2})}, named{"rank 1", pdesc({1000}, {0}, 16)},
                        named{"moves unit dims only", pdesc({1, 5, 1, 7}, {2, 1, 0, 3})},
                        named{"one element", pdesc({1, 1}, {1, 0}, 1)}}) {
    SCOPED_TRACE(c.what);
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(c.d, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_STREQ(pd.variant->name, "copy");
    EXPECT_EQ(pd.cls, xpose::detail::problem_class::kCopy);
    EXPECT_FALSE(pd.reason.empty());
  }
  for (const auto& d : {tdesc(1, 1000), tdesc(1000, 1), tdesc(1, 1)}) {
    SCOPED_TRACE(testing::Message() << d.rows << "x" << d.cols);
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_t(d, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_STREQ(pd.variant->name, "copy");
  }
}

// Every valid transpose_desc is a 2-D transpose, so `auto` must plan it on the GPU whatever its
// strides (issue 2: every shape, 1xN and Nx1 included). These descriptors normalise to a rank-1
// strided problem or a rank-2 row copy (classify: kGeneral / kRowCopy), not to kTranspose2d, so the
// 2-D candidates do not take them. Before the permute_general backstop was registered this returned
// kVariantNotApplicable ("no gpu variant handles a general problem yet"); kept as a regression test.
TEST_F(GpuPlanner, AutoPlansEveryTransposeDescriptor) {
  struct named {
    const char* what;
    transpose_desc d;
  };
  std::vector<named> cases;
  {
    transpose_desc d = tdesc(1, 100);
    d.ld_out = 4;  // a 1xN transpose into a padded column: out[j * 4] = in[j]
    cases.push_back({"1xN, ld_out 4", d});
  }
  {
    transpose_desc d = tdesc(100, 1);
    d.ld_in = 3;  // an Nx1 transpose from a padded column: out[i] = in[i * 3]
    cases.push_back({"Nx1, ld_in 3", d});
  }
  {
    transpose_desc d = tdesc(50, 1);
    d.batch = 4;
    d.batch_stride_in = 60;  // batched Nx1 with padded batches: four strided row copies
    cases.push_back({"batched Nx1, batch stride 60", d});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    plan_data pd;
    std::string why;
    EXPECT_EQ(plan_t(c.d, gpu(), &pd, &why), status::kSuccess) << why;
    // The named seed plans the same descriptor (so the descriptor itself is fine).
    plan_data named_pd;
    EXPECT_EQ(plan_t(c.d, gpu("naive_row_read"), &named_pd, &why), status::kSuccess) << why;
  }
}

// ------------------------------------------------------------------------------------------------
// Named variants

TEST_F(GpuPlanner, NamedSeedsKeepTheDescriptors2dView) {
  for (const char* name : {"naive_row_read", "naive_col_read", "smem_v1", "smem_v2", "smem_v3", "tiled"}) {
    SCOPED_TRACE(name);
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_t(tdesc(1, 1000), gpu(name), &pd, &why), status::kSuccess) << why;
    EXPECT_STREQ(pd.variant->name, name);
    ASSERT_TRUE(pd.has_matrix);
    EXPECT_EQ(pd.mat.rows, 1);
    EXPECT_EQ(pd.mat.cols, 1000);
    EXPECT_EQ(pd.mat.ld_in, 1000);
    EXPECT_EQ(pd.mat.ld_out, 1);
    EXPECT_EQ(pd.mat.batch, 1);
    EXPECT_FALSE(pd.reason.empty());
    // Nx1 likewise.
    ASSERT_EQ(plan_t(tdesc(1000, 1), gpu(name), &pd, &why), status::kSuccess) << why;
    EXPECT_EQ(pd.mat.rows, 1000);
    EXPECT_EQ(pd.mat.cols, 1);
  }
}

TEST_F(GpuPlanner, NamedVariantOnAPermuteDescUsesTheNormalisedMatrix) {
  // NCHW -> NHWC of (2,3,4,5): per image a 3 x 20 matrix transposed.
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_p(pdesc({2, 3, 4, 5}, {0, 2, 3, 1}), gpu("naive_col_read"), &pd, &why), status::kSuccess) << why;
  ASSERT_TRUE(pd.has_matrix);
  EXPECT_EQ(pd.mat.rows, 3);
  EXPECT_EQ(pd.mat.cols, 20);
  EXPECT_EQ(pd.mat.batch, 2);
  EXPECT_EQ(pd.mat.bs_in, 60);
  EXPECT_EQ(pd.mat.bs_out, 60);
}

// ------------------------------------------------------------------------------------------------
// Launch shapes

TEST_F(GpuPlanner, SeedLaunchShapes) {
  transpose_desc d = tdesc(1000, 1030);
  d.batch = 3;
  plan_data pd;
  std::string why;
  // naive_row_read: x walks input columns.
  ASSERT_EQ(plan_t(d, gpu("naive_row_read"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 16);  // note 000's default
  EXPECT_EQ(pd.launch.block_y, 16);
  expect_grid(pd, ceil_div(1030, 16), ceil_div(1000, 16), 3);
  ASSERT_EQ(plan_t(d, gpu("naive_row_read", 32, 16), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 32);
  EXPECT_EQ(pd.launch.block_y, 16);
  expect_grid(pd, 33, 63, 3);
  // naive_col_read: x walks input rows, so the grid is swapped.
  ASSERT_EQ(plan_t(d, gpu("naive_col_read"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, ceil_div(1000, 16), ceil_div(1030, 16), 3);
  ASSERT_EQ(plan_t(d, gpu("naive_col_read", 32, 16), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 32, 65, 3);
  // The shared-memory seeds: BxB blocks over (cols, rows).
  for (const char* name : {"smem_v1", "smem_v2", "smem_v3"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(plan_t(d, gpu(name), &pd, &why), status::kSuccess) << why;
    EXPECT_EQ(pd.launch.block_x, 16);
    EXPECT_EQ(pd.launch.block_y, 16);
    expect_grid(pd, 65, 63, 3);
    ASSERT_EQ(plan_t(d, gpu(name, 32, 32), &pd, &why), status::kSuccess) << why;
    expect_grid(pd, 33, 32, 3);
    ASSERT_EQ(plan_t(d, gpu(name, 8, 8), &pd, &why), status::kSuccess) << why;
    expect_grid(pd, 129, 125, 3);
  }
  // tiled: 32x32 tiles whatever the block height; batches walk across the tile columns (x), single
  // matrices down the tile rows (kernels/tiled.cuh).
  ASSERT_EQ(plan_t(d, gpu("tiled"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 32);
  EXPECT_EQ(pd.launch.block_y, 8);
  expect_grid(pd, 33, 32, 3);
  ASSERT_EQ(plan_t(d, gpu("tiled", 32, 16), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_y, 16);
  expect_grid(pd, 33, 32, 3);
  ASSERT_EQ(plan_t(d, gpu("tiled", 32, 1), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 33, 32, 3);
  ASSERT_EQ(plan_t(tdesc(1000, 1030), gpu("tiled"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 32, 33, 1);
}

// tiled_skew: the classic tile's grid plus one band of tile rows (its rows are staggered by up to
// 32 / S - 1 elements); 1-byte elements and blocks other than 32x4/8/16 are refused.
TEST_F(GpuPlanner, TiledSkewLaunchShape) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_t(tdesc(1024, 1030), gpu("tiled_skew"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 32);
  EXPECT_EQ(pd.launch.block_y, 8);
  expect_grid(pd, 33, 33, 1);  // (1024 + 7) / 32 rounded up, 1030 / 32 rounded up
  ASSERT_EQ(plan_t(tdesc(1024, 1030, 16), gpu("tiled_skew", 32, 16), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 33, 33, 1);
  ASSERT_EQ(plan_t(tdesc(1000, 1030, 8), gpu("tiled_skew", 32, 4), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 32, 33, 1);
  EXPECT_EQ(plan_t(tdesc(1024, 1030, 1), gpu("tiled_skew"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("1-byte"), std::string::npos) << why;
  EXPECT_EQ(plan_t(tdesc(1024, 1030), gpu("tiled_skew", 32, 2), &pd, &why), status::kInvalidBlock);
  EXPECT_NE(why.find("32xH"), std::string::npos) << why;
}

// tiled_words: the classic tile's grid over K x K blocks (K = 4 / size), down the tile rows for a
// single matrix and across for batches; 4-byte pointers; refuses wider elements, sides, leading
// dimensions or batch strides that are not whole blocks, and blocks other than 32x4/8/16/32.
TEST_F(GpuPlanner, TiledWordsLaunchShape) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_t(tdesc(1024, 2048, 2), gpu("tiled_words"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 32);
  EXPECT_EQ(pd.launch.block_y, 8);
  EXPECT_EQ(pd.align_bytes, 4);
  expect_grid(pd, 16, 32, 1);  // 512 row blocks, 1024 column blocks, 32 a tile
  ASSERT_EQ(plan_t(tdesc(2048, 1028, 1), gpu("tiled_words", 32, 32), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 16, 9, 1);  // 512 row blocks, 257 column blocks
  transpose_desc b = tdesc(256, 128, 1);
  b.batch = 3;
  ASSERT_EQ(plan_t(b, gpu("tiled_words", 32, 4), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1, 2, 3);  // across: x the tile columns
  EXPECT_EQ(plan_t(tdesc(1024, 1024), gpu("tiled_words"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("words already"), std::string::npos) << why;
  EXPECT_EQ(plan_t(tdesc(1026, 1024, 1), gpu("tiled_words"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("multiples of 4"), std::string::npos) << why;
  transpose_desc ld = tdesc(1024, 1024, 2);
  ld.ld_in = 1025;
  EXPECT_EQ(plan_t(ld, gpu("tiled_words"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("multiples of 2"), std::string::npos) << why;
  b.batch_stride_in = 256 * 128 + 2;
  EXPECT_EQ(plan_t(b, gpu("tiled_words"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_EQ(plan_t(tdesc(1024, 1024, 2), gpu("tiled_words", 32, 2), &pd, &why), status::kInvalidBlock);
  EXPECT_NE(why.find("32xH"), std::string::npos) << why;
}

// The classic tile's two small-matrix rules give their own reasons: whole 16-byte rows (against
// fast_tile) or rows that are not (against skew_tile).
TEST_F(GpuPlanner, SmallTiledReasonsNameTheirRule) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_t(tdesc(512, 512), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_STREQ(pd.variant->name, "tiled");
  EXPECT_NE(pd.reason.find("whole 16-byte rows"), std::string::npos) << pd.reason;
  ASSERT_EQ(plan_t(tdesc(500, 501), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_STREQ(pd.variant->name, "tiled");
  EXPECT_NE(pd.reason.find("not 16-byte aligned"), std::string::npos) << pd.reason;
}

// auto's tiled_words runs at the measured heights: 32 x 16 for bytes, 32 x 8 for halves.
TEST_F(GpuPlanner, TiledWordsRuleHeights) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_t(tdesc(4100, 4092, 1), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(std::string(pd.variant->name), "tiled_words");
  EXPECT_EQ(pd.launch.block_y, 16);
  ASSERT_EQ(plan_t(tdesc(4100, 4092, 2), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(std::string(pd.variant->name), "tiled_words");
  EXPECT_EQ(pd.launch.block_y, 8);
}

TEST_F(GpuPlanner, GridsBeyondTheHardwareLimitStillPlan) {
  plan_data pd;
  std::string why;
  // 65,537 block rows of 16: more than the 65,535 a grid may have in y. The plan keeps the true
  // count (64-bit fields); the kernels loop over what the capped launch does not cover.
  const i64 tall = 16 * i64{65536} + 1;
  ASSERT_EQ(plan_t(tdesc(tall, 3), gpu("naive_row_read"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1, 65537, 1);
  ASSERT_EQ(plan_t(tdesc(tall, 3), gpu("naive_col_read"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 65537, 1, 1);
  ASSERT_EQ(plan_t(tdesc(tall, 3), gpu("smem_v2"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1, 65537, 1);
  const i64 taller = 32 * i64{65536} + 5;
  ASSERT_EQ(plan_t(tdesc(40, taller), gpu("tiled"), &pd, &why), status::kSuccess) << why;  // y: tile columns
  expect_grid(pd, 2, 65537, 1);
  // Batches beyond 65,535 in z.
  transpose_desc b = tdesc(2, 2);
  b.batch = 70000;
  ASSERT_EQ(plan_t(b, gpu("tiled"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1, 1, 70000);
  ASSERT_EQ(plan_t(b, gpu("naive_row_read"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1, 1, 70000);
  // More than 2^31 elements.
  ASSERT_EQ(plan_t(tdesc(50000, 50000), gpu("tiled"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, 1563, 1563, 1);
  EXPECT_EQ(pd.in_span_bytes, i64{50000} * 50000 * 4);
  // And auto plans the tall shapes too.
  ASSERT_EQ(plan_t(tdesc(taller, 40), gpu(), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.variant->where, backend::kGpu);
}

// tma_tile's preconditions, checked at plan time with a specific status and message: whole 16-byte
// units on every strided side and along the output rows (the engine clips stores at 16-byte
// granularity), one batch dim, compute capability 9.0; its launch shape is the persistent grid.
// GpuRandom.TilePanels' cases plan the kernel they name, in panels (set_tile_order), so that the
// GPU test exercises the panel map; checked here because CI has no GPU.
TEST_F(GpuPlanner, TilePanelCasesPlanPanels) {
  for (const auto& c : xpose::test::tile_panel_cases()) {
    plan_data pd;
    std::string why;
    ASSERT_EQ(plan_p(c.desc, gpu(), &pd, &why), status::kSuccess) << why;
    EXPECT_STREQ(pd.variant->name, c.kernel) << pd.prob.describe();
    EXPECT_NE(pd.launch_note.find("in panels of"), std::string::npos) << pd.launch_note;
  }
}

TEST_F(GpuPlanner, TmaTilePreconditions) {
  plan_data pd;
  std::string why;
  ASSERT_EQ(plan_t(tdesc(4096, 4096, 4), gpu("tma_tile"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.grid_x, 3 * 7);  // kBlocksPerSm x the test device's 7 SMs: fewer than the 4096 tiles
  EXPECT_EQ(pd.launch.block_x, 256);
  EXPECT_EQ(pd.launch.block_y, 1);
  EXPECT_EQ(pd.align_bytes, 16);
  EXPECT_NE(pd.launch_note.find("tiles of 64x64"), std::string::npos) << pd.launch_note;
  // Fewer tiles than that: one block per tile (100 x 64 in 64 x 64 tiles).
  ASSERT_EQ(plan_t(tdesc(100, 64, 4), gpu("tma_tile"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.grid_x, 2);
  // A leading dimension that is not whole 16-byte units.
  transpose_desc odd = tdesc(64, 63, 4);
  EXPECT_EQ(plan_t(odd, gpu("tma_tile"), &pd, &why), status::kMisaligned);
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  // Output rows that are not whole 16-byte units, even with a padded output: refused.
  transpose_desc padded = tdesc(63, 64, 4);
  padded.ld_out = 64;
  EXPECT_EQ(plan_t(padded, gpu("tma_tile"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("whole 16-byte units of each output row"), std::string::npos) << why;
  // Two batch dims (a rank-4 reversal).
  EXPECT_EQ(plan_p(pdesc({64, 64, 128, 128}, {3, 2, 1, 0}), gpu("tma_tile"), &pd, &why),
            status::kVariantNotApplicable);
  EXPECT_NE(why.find("one batch dimension"), std::string::npos) << why;
  // An older GPU: no tensor copy engine.
  xpose::detail::device_info old = test_device();
  old.cc_major = 8;
  xpose::detail::matrix_view m;
  m.rows = m.cols = m.ld_in = m.ld_out = 4096;
  m.bs_in = m.bs_out = 4096 * 4096;
  EXPECT_EQ(xpose::detail::plan_problem(xpose::detail::to_problem(tdesc(4096, 4096, 4)), m, gpu("tma_tile"), old,
                                        &pd, &why),
            status::kVariantNotApplicable);
  EXPECT_NE(why.find("compute capability 9.0"), std::string::npos) << why;
  // ... where auto runs another kernel for the same matrix.
  ASSERT_EQ(xpose::detail::plan_problem(xpose::detail::to_problem(tdesc(16384, 16384, 4)), std::nullopt, gpu(), old,
                                        &pd, &why),
            status::kSuccess)
      << why;
  EXPECT_STRNE(pd.variant->name, "tma_tile");
}

// reg_batch's preconditions: sides of whole V x V blocks (kVariantNotApplicable, saying so) and
// 16-byte vector strides (kMisaligned); its grid is one thread per block of the whole batch, and two
// batch dims (a permutation) plan too.
TEST_F(GpuPlanner, RegBatchPreconditions) {
  plan_data pd;
  std::string why;
  transpose_desc d = tdesc(32, 48, 1);
  d.batch = 1000;
  ASSERT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.block_x, 128);
  // 2 x 3 blocks of 16 x 16 bytes per matrix: a warp takes 5 matrices (10 block rows), 4 warps a block
  EXPECT_EQ(pd.launch.warp_rows, 10);
  expect_grid(pd, ceil_div(ceil_div(1000 * 2, 10) * 32, 128), 1, 1);
  EXPECT_EQ(pd.align_bytes, 16);
  d.elem_bytes = 2;  // 8 x 8 blocks: 4 x 6 per matrix, one matrix per warp
  ASSERT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.warp_rows, 4);
  expect_grid(pd, ceil_div(1000 * 32, 128), 1, 1);
  d.elem_bytes = 4;  // 8 x 12 blocks: two block rows per warp (an even divisor of 8)
  ASSERT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.warp_rows, 2);
  // Rows of more than 16 blocks go in segments: 256 x 384 bytes (24 blocks a row) in warps of 4 x 8.
  d = tdesc(256, 384, 1);
  d.batch = 10;
  ASSERT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kSuccess) << why;
  EXPECT_EQ(pd.launch.warp_rows, 4);
  EXPECT_EQ(pd.launch.warp_cols, 8);
  expect_grid(pd, ceil_div(10 * 16 / 4 * 3 * 32, 128), 1, 1);
  // Sides that are not whole blocks.
  d = tdesc(30, 48, 1);
  d.batch = 1000;
  EXPECT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("multiples of 16 (got 30 x 48)"), std::string::npos) << why;
  d = tdesc(32, 44, 2);
  EXPECT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("multiples of 8"), std::string::npos) << why;
  // A leading dimension that is not whole vectors.
  d = tdesc(32, 48, 1);
  d.ld_in = 50;
  EXPECT_EQ(plan_t(d, gpu("reg_batch"), &pd, &why), status::kMisaligned);
  EXPECT_NE(why.find("reg_batch moves 16-byte vectors"), std::string::npos) << why;
  // Two batch dims: [8, 32, 5, 48] -> [5, 8, 48, 32] (4-byte elements: 8 x 12 blocks, 2 rows a warp).
  ASSERT_EQ(plan_p(pdesc({8, 32, 5, 48}, {2, 0, 3, 1}), gpu("reg_batch"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, ceil_div(40 * 8 / 2 * 32, 128), 1, 1);
}

TEST_F(GpuPlanner, InterleavePreconditions) {
  plan_data pd;
  std::string why;
  // zip: 3 long rows of bytes, any leading dimension, into a dense 10000001 x 3 output; a warp per
  // 32 x 16 elements, four warps a block.
  transpose_desc d = tdesc(3, 10000001, 1);
  d.ld_in = 10000003;
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_TRUE(pd.launch.wide_in);
  EXPECT_EQ(pd.launch.block_x, 128);
  expect_grid(pd, ceil_div(ceil_div(10000001, 32 * 16), 4), 1, 1);
  EXPECT_EQ(pd.align_bytes, 16);
  // unzip: a dense 1000 x 16 matrix of halves into 16 rows (8 halves a vector)
  d = tdesc(1000, 16, 2);
  d.ld_out = 1001;
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_FALSE(pd.launch.wide_in);
  expect_grid(pd, ceil_div(ceil_div(1000, 31 * 8), 4), 1, 1);  // unaligned rows: tiles 31 blocks apart
  d.ld_out = 1008;
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, ceil_div(ceil_div(1000, 32 * 8), 4), 1, 1);
  // Short sides of 32, 48 and 64 in groups of 16 rows: tiles of 16, 10 and 8 blocks (unzip into
  // unaligned rows: 15, 9 and 7 apart).
  d = tdesc(48, 10000001, 1);
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_TRUE(pd.launch.wide_in);
  expect_grid(pd, ceil_div(ceil_div(10000001, 10 * 16), 4), 1, 1);
  d = tdesc(10000001, 64, 2);
  d.ld_out = 10000001;
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_FALSE(pd.launch.wide_in);
  expect_grid(pd, ceil_div(10000001, 31 * 8), 1, 1);  // a tile of 4 x 8 blocks per block (handoff)
  EXPECT_TRUE(pd.launch.block_tiles);
  // ... for bytes only with 48 or 64 rows and a long side from 4 * 10^6 (interleave_block_tiles)
  d = tdesc(10000001, 48, 1);
  d.ld_out = 10000001;
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_TRUE(pd.launch.block_tiles);
  expect_grid(pd, ceil_div(10000001, 39 * 16), 1, 1);
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{10000001, 32}, {3999999, 64}}) {
    d = tdesc(rows, cols, 1);
    d.ld_out = rows;
    ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
    EXPECT_FALSE(pd.launch.block_tiles) << rows << " x " << cols;
    expect_grid(pd, ceil_div(ceil_div(rows, (xpose::detail::gpu::interleave_tile_blocks(static_cast<int>(cols)) - 1) * 16), 4), 1, 1);
  }
  d = tdesc(10000000, 64, 2);  // aligned rows: a tile per warp
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  EXPECT_FALSE(pd.launch.block_tiles);
  d = tdesc(10000000, 32, 4);
  ASSERT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kSuccess) << why;
  expect_grid(pd, ceil_div(ceil_div(10000000, 16 * 4), 4), 1, 1);
  // Refused: short sides of 17, 33 and 63, a strided short side, 16-byte elements, batches.
  for (std::int64_t r : {17, 33, 63}) {
    d = tdesc(r, 1000, 1);
    EXPECT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kVariantNotApplicable) << r;
    EXPECT_NE(why.find("a side of 2 to 16, 32, 48 or 64 elements"), std::string::npos) << why;
  }
  d = tdesc(4, 1000, 1);
  d.ld_out = 5;
  EXPECT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kVariantNotApplicable);
  d = tdesc(4, 1000, 16);
  EXPECT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("1- to 8-byte elements"), std::string::npos) << why;
  d = tdesc(4, 1000, 4);
  d.batch = 2;
  EXPECT_EQ(plan_t(d, gpu("interleave"), &pd, &why), status::kVariantNotApplicable);
  EXPECT_NE(why.find("one matrix"), std::string::npos) << why;
}

// The warp's block rows (reg_batch_warp_rows): whole matrices where they fit, else an even divisor,
// else any divisor, else one.
// The warp's shape for long rows (reg_batch_lanes_of): whole rows up to 16 blocks, else segments.
TEST(RegBatchWarpRows, SegmentsOfLongRows) {
  using xpose::detail::gpu::reg_batch_lanes_of;
  auto lanes = [](long long nbr, long long nbc) {
    const auto l = reg_batch_lanes_of(nbr, nbc);
    return std::to_string(l.g) + "x" + std::to_string(l.w);
  };
  EXPECT_EQ(lanes(2, 3), "10x3");
  EXPECT_EQ(lanes(16, 16), "2x16");
  EXPECT_EQ(lanes(16, 24), "4x8");
  EXPECT_EQ(lanes(16, 32), "4x8");
  EXPECT_EQ(lanes(16, 17), "2x9");   // prime: two even segments
  EXPECT_EQ(lanes(7, 1000), "7x4");   // a whole matrix of 7 block rows, segments of 4 (28 lanes)
  EXPECT_EQ(lanes(7, 34), "1x12");  // 34 = 2 x 17: no divisor in 4..16; three even segments of 12
  for (long long nbr = 1; nbr <= 20; ++nbr)
    for (long long nbc = 1; nbc <= 300; ++nbc) {
      const auto l = reg_batch_lanes_of(nbr, nbc);
      EXPECT_GE(l.w, 1);
      EXPECT_LE(l.w, 16) << nbr << " x " << nbc;
      EXPECT_LE(l.w * l.g, 32) << nbr << " x " << nbc;
      EXPECT_TRUE(l.g % nbr == 0 || nbr % l.g == 0) << nbr << " x " << nbc;
    }
}

TEST(RegBatchWarpRows, WholeMatricesThenDivisors) {
  using xpose::detail::gpu::reg_batch_warp_rows;
  EXPECT_EQ(reg_batch_warp_rows(2, 3), 10);   // 32 x 48 bytes: 5 matrices
  EXPECT_EQ(reg_batch_warp_rows(4, 6), 4);    // 32 x 48 halves: 1 matrix
  EXPECT_EQ(reg_batch_warp_rows(3, 5), 6);    // 48 x 80 bytes: 2 matrices
  EXPECT_EQ(reg_batch_warp_rows(8, 12), 2);   // 32 x 48 floats: 2 of 8 block rows
  EXPECT_EQ(reg_batch_warp_rows(9, 10), 3);   // no even divisor fits: 3
  EXPECT_EQ(reg_batch_warp_rows(7, 10), 1);   // 7 is prime: one block row
  EXPECT_EQ(reg_batch_warp_rows(1, 32), 1);
  EXPECT_EQ(reg_batch_warp_rows(16, 16), 2);
  for (long long nbr = 1; nbr <= 40; ++nbr)
    for (long long nbc = 1; nbc <= 32; ++nbc) {
      const int g = reg_batch_warp_rows(nbr, nbc);
      EXPECT_GE(g, 1);
      EXPECT_LE(g * nbc, 32) << nbr << " x " << nbc;
      EXPECT_TRUE(g % nbr == 0 || nbr % g == 0) << nbr << " x " << nbc;  // never straddles a matrix
    }
}

// ------------------------------------------------------------------------------------------------
// Plans made through make_plan (CPU here; GPU when one is present)

plan_options cpu_opts(std::string variant = "auto") {
  plan_options o;
  o.where = backend::kCpu;
  o.variant = std::move(variant);
  return o;
}

TEST(CpuPlanner, AutoPicksACpuVariant) {
  for (const auto& d : {pdesc({2, 3, 4}, {2, 1, 0}), pdesc({2, 3, 4, 5}, {0, 2, 1, 3}), pdesc({6, 7}, {1, 0}),
                        pdesc({8}, {0})}) {
    xpose::plan p;
    std::string why;
    ASSERT_EQ(xpose::make_plan(d, cpu_opts(), &p, &why), status::kSuccess) << why;
    EXPECT_TRUE(p.valid());
    EXPECT_EQ(p.where(), backend::kCpu);
    const auto* v = xpose::detail::find_variant(p.variant());
    ASSERT_NE(v, nullptr) << p.variant();
    EXPECT_EQ(v->where, backend::kCpu);
  }
}

TEST(CpuPlanner, NamedCpuNaive) {
  xpose::plan p;
  ASSERT_EQ(xpose::make_plan(tdesc(5, 6), cpu_opts("cpu_naive"), &p), status::kSuccess);
  EXPECT_EQ(p.variant(), "cpu_naive");
  EXPECT_FALSE(p.data()->reason.empty());
  // cpu_naive takes no block shape.
  plan_options o = cpu_opts("cpu_naive");
  o.block_x = 16;
  o.block_y = 16;
  std::string why;
  EXPECT_EQ(xpose::make_plan(tdesc(5, 6), o, &p, &why), status::kInvalidBlock);
  EXPECT_FALSE(why.empty());
}

TEST(CpuPlanner, SummaryIsOneLineNamingTheVariant) {
  for (const char* variant : {"auto", "cpu_naive"}) {
    for (const auto& d : {pdesc({2, 3, 4}, {2, 1, 0}), pdesc({6, 7}, {1, 0}), pdesc({6, 7}, {0, 1})}) {
      xpose::plan p;
      ASSERT_EQ(xpose::make_plan(d, cpu_opts(variant), &p), status::kSuccess);
      const std::string s = p.summary();
      EXPECT_EQ(s.find('\n'), std::string::npos) << s;
      EXPECT_NE(s.find(p.variant()), std::string::npos) << s;
      EXPECT_NE(s.find("cpu"), std::string::npos) << s;
    }
  }
  xpose::plan t;
  ASSERT_EQ(xpose::make_plan(tdesc(300, 200, 8), cpu_opts(), &t), status::kSuccess);
  EXPECT_EQ(t.summary().find('\n'), std::string::npos);
  EXPECT_NE(t.summary().find(t.variant()), std::string::npos);
  EXPECT_NE(t.summary().find("300"), std::string::npos) << t.summary();  // names the problem
}

TEST(CpuPlanner, PlansAreValuesThatCopy) {
  xpose::plan empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_EQ(empty.variant(), "none");
  EXPECT_FALSE(empty.summary().empty());
  xpose::plan p;
  ASSERT_EQ(xpose::make_plan(tdesc(5, 6), cpu_opts(), &p), status::kSuccess);
  xpose::plan q = p;
  EXPECT_TRUE(q.valid());
  EXPECT_EQ(q.summary(), p.summary());
  xpose::plan r = std::move(q);
  EXPECT_TRUE(r.valid());
  EXPECT_EQ(r.variant(), p.variant());
}

TEST(GpuMakePlan, SummaryIsOneLineNamingTheVariant) {
  XPOSE_REQUIRE_GPU();
  plan_options o;
  o.where = backend::kGpu;
  for (const char* variant : {"auto", "naive_row_read", "naive_col_read", "smem_v1", "smem_v2", "smem_v3", "tiled"}) {
    o.variant = variant;
    xpose::plan p;
    std::string why;
    ASSERT_EQ(xpose::make_plan(tdesc(1000, 700), o, &p, &why), status::kSuccess) << why;
    const std::string s = p.summary();
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
    EXPECT_NE(s.find(p.variant()), std::string::npos) << s;
    if (std::string(variant) != "auto") {
      EXPECT_EQ(p.variant(), variant);
    }
  }
}

}  // namespace
