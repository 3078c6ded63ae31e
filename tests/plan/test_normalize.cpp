// The pure planning steps (src/plan/normalize.cpp): to_problem, drop_unit_dims, fuse_dims, normalize,
// classify, as_matrix, in_span / out_span. Expectations are computed by hand or, for the property
// tests, straight from the descriptor's definition (desc.hpp), never through the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "common/test_util.hpp"
#include "plan/problem.hpp"
#include "plan/validate.hpp"
#include "xpose/xpose.hpp"


namespace {

using xpose::test::pdesc;
using xpose::test::tdesc;

using xpose::permute_desc;
using xpose::transpose_desc;
using xpose::detail::dim;
using xpose::detail::problem;
using xpose::detail::problem_class;
using i64 = std::int64_t;



std::vector<dim> dims_of(const problem& p) { return {p.dims.begin(), p.dims.begin() + p.rank}; }

std::string show(const std::vector<dim>& ds) {
  std::string s;
  for (const dim& d : ds)
    s += "{" + std::to_string(d.extent) + "," + std::to_string(d.in_stride) + "," + std::to_string(d.out_stride) + "}";
  return s;
}

#define EXPECT_DIMS(p, ...)                                   \
  do {                                                        \
    const std::vector<dim> want_ = __VA_ARGS__;               \
    const std::vector<dim> got_ = dims_of(p);                 \
    EXPECT_EQ(got_, want_) << "got " << show(got_) << "\nwant " << show(want_); \
  } while (0)

problem make_problem(int elem_bytes, std::vector<dim> ds) {
  problem p;
  p.elem_bytes = elem_bytes;
  p.rank = static_cast<int>(ds.size());
  for (int k = 0; k < p.rank; ++k) p.dims[k] = ds[k];
  return p;
}

// ------------------------------------------------------------------------------------------------
// to_problem

TEST(ToProblem, TransposeDescDense) {
  const problem p = xpose::detail::to_problem(tdesc(4, 3));
  EXPECT_EQ(p.elem_bytes, 4);
  // Output order: (batch, j over cols, i over rows).
  EXPECT_DIMS(p, {{1, 12, 12}, {3, 1, 4}, {4, 3, 1}});
}

TEST(ToProblem, TransposeDescStridedBatched) {
  transpose_desc d = tdesc(4, 3);
  d.elem_bytes = 8;
  d.ld_in = 5;
  d.ld_out = 6;
  d.batch = 2;
  problem p = xpose::detail::to_problem(d);
  EXPECT_EQ(p.elem_bytes, 8);
  EXPECT_DIMS(p, {{2, 20, 18}, {3, 1, 6}, {4, 5, 1}});  // default batch strides rows*ld_in, cols*ld_out
  d.batch_stride_in = 30;
  d.batch_stride_out = 19;
  p = xpose::detail::to_problem(d);
  EXPECT_DIMS(p, {{2, 30, 19}, {3, 1, 6}, {4, 5, 1}});
}

TEST(ToProblem, PermuteDescDense) {
  // extents (2, 3, 4): input strides (12, 4, 1). perm {2, 0, 1}: output extents (4, 2, 3),
  // output strides (6, 3, 1).
  const problem p = xpose::detail::to_problem(pdesc({2, 3, 4}, {2, 0, 1}, 2));
  EXPECT_EQ(p.elem_bytes, 2);
  EXPECT_DIMS(p, {{4, 1, 6}, {2, 12, 3}, {3, 4, 1}});
}

TEST(ToProblem, PermuteDescWithStrides) {
  permute_desc d = pdesc({2, 3, 4}, {2, 0, 1});
  d.in_strides = {100, 20, 2};
  problem p = xpose::detail::to_problem(d);
  EXPECT_DIMS(p, {{4, 2, 6}, {2, 100, 3}, {3, 20, 1}});
  d.out_strides = {50, 10, 2};
  p = xpose::detail::to_problem(d);
  EXPECT_DIMS(p, {{4, 2, 50}, {2, 100, 10}, {3, 20, 2}});
}

TEST(ToProblem, PermuteDescRankOneAndEight) {
  EXPECT_DIMS(xpose::detail::to_problem(pdesc({7}, {0})), {{7, 1, 1}});
  // Full reversal of (2,1,3,1,2,1,1,2): input strides (12,12,4,4,2,2,2,1); output extents reversed,
  // (2,1,1,2,1,3,1,2), with output strides (12,12,12,6,6,2,2,1).
  const problem p = xpose::detail::to_problem(pdesc({2, 1, 3, 1, 2, 1, 1, 2}, {7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_DIMS(p, {{2, 1, 12}, {1, 2, 12}, {1, 2, 12}, {2, 2, 6}, {1, 4, 6}, {3, 4, 2}, {1, 12, 2}, {2, 12, 1}});
}

// ------------------------------------------------------------------------------------------------
// drop_unit_dims, fuse_dims

TEST(DropUnitDims, RemovesOnlyExtentOne) {
  const problem p = make_problem(8, {{1, 99, 98}, {3, 4, 1}, {1, 7, 7}, {4, 1, 3}, {1, 0, 0}});
  const problem q = xpose::detail::drop_unit_dims(p);
  EXPECT_EQ(q.elem_bytes, 8);
  EXPECT_DIMS(q, {{3, 4, 1}, {4, 1, 3}});
  const problem all_ones = make_problem(4, {{1, 5, 5}, {1, 1, 1}});
  const problem r = xpose::detail::drop_unit_dims(all_ones);
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.count(), 1);
  EXPECT_DIMS(xpose::detail::drop_unit_dims(make_problem(4, {{5, 1, 1}})), {{5, 1, 1}});
}

TEST(FuseDims, IdentityFusesToOneDim) {
  EXPECT_DIMS(xpose::detail::fuse_dims(xpose::detail::to_problem(pdesc({2, 3, 4}, {0, 1, 2}))), {{24, 1, 1}});
}

TEST(FuseDims, NchwToNhwcFusesHw) {
  // (N,C,H,W) = (2,3,4,5), strides (60,20,5,1); output (N,H,W,C), strides (60,15,3,1).
  const problem raw = xpose::detail::to_problem(pdesc({2, 3, 4, 5}, {0, 2, 3, 1}));
  EXPECT_DIMS(raw, {{2, 60, 60}, {4, 5, 15}, {5, 1, 3}, {3, 20, 1}});
  EXPECT_DIMS(xpose::detail::fuse_dims(raw), {{2, 60, 60}, {20, 1, 3}, {3, 20, 1}});
}

TEST(FuseDims, NeedsAdjacencyOnBothSides) {
  // Adjacent in the input only (padded output): no fusion.
  EXPECT_DIMS(xpose::detail::fuse_dims(make_problem(4, {{3, 4, 5}, {4, 1, 1}})), {{3, 4, 5}, {4, 1, 1}});
  // Adjacent in the output only: no fusion.
  EXPECT_DIMS(xpose::detail::fuse_dims(make_problem(4, {{3, 5, 4}, {4, 1, 1}})), {{3, 5, 4}, {4, 1, 1}});
  // Adjacent on both sides but in the other order (inner dim is the outer one in the input): no.
  EXPECT_DIMS(xpose::detail::fuse_dims(make_problem(4, {{3, 1, 4}, {4, 3, 1}})), {{3, 1, 4}, {4, 3, 1}});
  // Both, padded consistently: (3,4) with in strides (40,10), out strides (8,2) -> (12, 10, 2).
  EXPECT_DIMS(xpose::detail::fuse_dims(make_problem(4, {{3, 40, 8}, {4, 10, 2}})), {{12, 10, 2}});
  // A run of four fuses into one; the outer neighbour that does not fit stays.
  EXPECT_DIMS(xpose::detail::fuse_dims(make_problem(4, {{7, 1, 120}, {2, 60, 60}, {3, 20, 20}, {4, 5, 5}, {5, 1, 1}})),
              {{7, 1, 120}, {120, 1, 1}});
  // Does not drop unit dims itself; normalize does both.
  const problem with_unit = make_problem(4, {{3, 4, 4}, {1, 9, 9}, {4, 1, 1}});
  EXPECT_EQ(xpose::detail::fuse_dims(with_unit).rank, 3);  // {3,4,4}+{1,9,9} do not fit, {1,9,9}+{4,1,1} do not
  EXPECT_DIMS(xpose::detail::normalize(with_unit), {{12, 1, 1}});
}

// ------------------------------------------------------------------------------------------------
// Property: normalisation keeps every element's (in_offset, out_offset), in output order.

using offset_pairs = std::vector<std::pair<i64, i64>>;

// Straight from desc.hpp (tests/common): out[i_0..i_{r-1}] = in[j], j[perm[k]] = i_k.
offset_pairs pairs_of_desc(const permute_desc& d) { return xpose::test::definition_offsets(d); }

offset_pairs pairs_of_problem(const problem& p) {
  offset_pairs out;
  const i64 n = p.count();
  for (i64 e = 0; e < n; ++e) {
    i64 rem = e, oi = 0, oo = 0;
    for (int k = p.rank - 1; k >= 0; --k) {
      const i64 i = rem % p.dims[k].extent;
      rem /= p.dims[k].extent;
      oi += i * p.dims[k].in_stride;
      oo += i * p.dims[k].out_stride;
    }
    out.emplace_back(oi, oo);
  }
  return out;
}

// Random permute descriptors of rank 1..8 with small extents. Permutations are fully random, block
// permutations (contiguous runs of dims moved together, so fusion has something to do), identity
// or reversal; strides are dense, padded, or (input only) broadcast.
permute_desc random_desc(std::mt19937_64& rng) {
  auto uni = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
  permute_desc d;
  const int r = static_cast<int>(uni(1, 8));
  i64 total;
  do {
    d.extents.assign(r, 1);
    total = 1;
    for (auto& e : d.extents) {
      e = uni(0, 9) < 3 ? 1 : uni(2, r <= 4 ? 6 : 3);
      total *= e;
    }
  } while (total > 4096);
  d.perm.resize(r);
  std::iota(d.perm.begin(), d.perm.end(), 0);
  switch (uni(0, 5)) {
    case 0:
    case 1: std::shuffle(d.perm.begin(), d.perm.end(), rng); break;
    case 2:
    case 3: {  // block permutation
      std::vector<std::vector<int>> blocks;
      for (int k = 0; k < r; ++k) {
        if (blocks.empty() || uni(0, 2) == 0) blocks.emplace_back();
        blocks.back().push_back(k);
      }
      std::shuffle(blocks.begin(), blocks.end(), rng);
      d.perm.clear();
      for (const auto& b : blocks) d.perm.insert(d.perm.end(), b.begin(), b.end());
      break;
    }
    case 4: std::reverse(d.perm.begin(), d.perm.end()); break;
    default: break;  // identity
  }
  d.elem_bytes = std::array{1, 2, 4, 8, 16}[uni(0, 4)];
  const i64 mode_in = uni(0, 3), mode_out = uni(0, 3);
  if (mode_in == 1 || mode_in == 2) {  // padded
    d.in_strides.assign(r, 0);
    i64 s = 1;
    for (int j = r - 1; j >= 0; --j) {
      d.in_strides[j] = s;
      s *= d.extents[j] + uni(0, 2);
    }
    if (mode_in == 2) d.in_strides[uni(0, r - 1)] = 0;  // broadcast one input dim
  }
  if (mode_out == 1) {
    d.out_strides.assign(r, 0);
    i64 s = 1;
    for (int k = r - 1; k >= 0; --k) {
      d.out_strides[k] = s;
      s *= d.extents[d.perm[k]] + uni(0, 2);
    }
  }
  return d;
}

bool fusable(const dim& outer, const dim& inner) {
  return outer.in_stride == inner.extent * inner.in_stride && outer.out_stride == inner.extent * inner.out_stride;
}

TEST(NormalizeProperty, KeepsEveryOffsetInOutputOrder) {
  std::mt19937_64 rng(20240601);
  int fused_somewhere = 0, dropped_somewhere = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const permute_desc d = random_desc(rng);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " extents " << testing::PrintToString(d.extents)
                                    << " perm " << testing::PrintToString(d.perm) << " in_strides "
                                    << testing::PrintToString(d.in_strides) << " out_strides "
                                    << testing::PrintToString(d.out_strides));
    ASSERT_EQ(xpose::detail::validate(d, nullptr), xpose::status::kSuccess);
    const offset_pairs want = pairs_of_desc(d);
    const problem raw = xpose::detail::to_problem(d);
    EXPECT_EQ(raw.elem_bytes, d.elem_bytes);
    ASSERT_EQ(pairs_of_problem(raw), want) << "to_problem";
    const problem dropped = xpose::detail::drop_unit_dims(raw);
    ASSERT_EQ(pairs_of_problem(dropped), want) << "drop_unit_dims";
    ASSERT_EQ(pairs_of_problem(xpose::detail::fuse_dims(raw)), want) << "fuse_dims without dropping";
    const problem norm = xpose::detail::normalize(raw);
    ASSERT_EQ(pairs_of_problem(norm), want) << "normalize: " << norm.describe();
    EXPECT_EQ(norm.elem_bytes, d.elem_bytes);
    EXPECT_EQ(norm.count(), static_cast<i64>(want.size()));
    // Fully normalised: no unit dims, no neighbours left that could fuse, idempotent.
    for (int k = 0; k < norm.rank; ++k) EXPECT_NE(norm.dims[k].extent, 1) << norm.describe();
    for (int k = 0; k + 1 < norm.rank; ++k)
      EXPECT_FALSE(fusable(norm.dims[k], norm.dims[k + 1])) << "left unfused: " << norm.describe();
    EXPECT_EQ(dims_of(xpose::detail::normalize(norm)), dims_of(norm));
    // Spans are the largest offset + 1 on each side.
    i64 max_in = 0, max_out = 0;
    for (const auto& [i, o] : want) {
      max_in = std::max(max_in, i);
      max_out = std::max(max_out, o);
    }
    EXPECT_EQ(xpose::detail::in_span(raw), max_in + 1);
    EXPECT_EQ(xpose::detail::out_span(raw), max_out + 1);
    EXPECT_EQ(xpose::detail::in_span(norm), max_in + 1);
    EXPECT_EQ(xpose::detail::out_span(norm), max_out + 1);
    fused_somewhere += norm.rank < dropped.rank;
    dropped_somewhere += dropped.rank < raw.rank;
  }
  // The generator must actually exercise both steps.
  EXPECT_GT(fused_somewhere, 100);
  EXPECT_GT(dropped_somewhere, 100);
}

// ------------------------------------------------------------------------------------------------
// The inverse permutation round-trips through the CPU backend.

TEST(InversePermutation, RoundTripsThroughTheCpuBackend) {
  std::mt19937_64 rng(77);
  xpose::plan_options cpu;
  cpu.where = xpose::backend::kCpu;
  for (int trial = 0; trial < 200; ++trial) {
    permute_desc d = random_desc(rng);
    d.in_strides.clear();
    d.out_strides.clear();
    const int r = static_cast<int>(d.extents.size());
    permute_desc inv;
    inv.elem_bytes = d.elem_bytes;
    inv.perm.resize(r);
    for (int k = 0; k < r; ++k) inv.perm[d.perm[k]] = k;
    for (int k = 0; k < r; ++k) inv.extents.push_back(d.extents[d.perm[k]]);  // the first output's extents
    SCOPED_TRACE(testing::Message() << "extents " << testing::PrintToString(d.extents) << " perm "
                                    << testing::PrintToString(d.perm) << " inverse "
                                    << testing::PrintToString(inv.perm));
    i64 n = 1;
    for (i64 e : d.extents) n *= e;
    const std::size_t bytes = static_cast<std::size_t>(n) * d.elem_bytes;
    std::vector<unsigned char> a(bytes), b(bytes), c(bytes);
    xpose::test::fill_random(a.data(), bytes, 1000 + trial);
    xpose::test::poison(b.data(), bytes);
    xpose::test::poison(c.data(), bytes);
    xpose::plan p, q;
    std::string why;
    ASSERT_EQ(xpose::make_plan(d, cpu, &p, &why), xpose::status::kSuccess) << why;
    ASSERT_EQ(xpose::make_plan(inv, cpu, &q, &why), xpose::status::kSuccess) << why;
    ASSERT_EQ(xpose::execute(p, a.data(), b.data(), nullptr, &why), xpose::status::kSuccess) << why;
    ASSERT_EQ(xpose::execute(q, b.data(), c.data(), nullptr, &why), xpose::status::kSuccess) << why;
    ASSERT_EQ(xpose::test::first_difference(a.data(), c.data(), bytes), -1);
  }
}

// ------------------------------------------------------------------------------------------------
// classify

problem_class class_of(const permute_desc& d) {
  return xpose::detail::classify(xpose::detail::normalize(xpose::detail::to_problem(d)));
}
problem_class class_of(const transpose_desc& d) {
  return xpose::detail::classify(xpose::detail::normalize(xpose::detail::to_problem(d)));
}

TEST(Classify, HandCases) {
  using pc = problem_class;
  EXPECT_EQ(class_of(pdesc({2, 3, 4}, {0, 1, 2})), pc::kCopy);               // identity
  EXPECT_EQ(class_of(pdesc({7}, {0})), pc::kCopy);
  EXPECT_EQ(class_of(pdesc({1, 1, 1}, {2, 0, 1})), pc::kCopy);               // one element
  EXPECT_EQ(class_of(pdesc({5, 1, 3}, {1, 0, 2})), pc::kCopy);               // moves only a unit dim
  EXPECT_EQ(class_of(tdesc(5, 7)), pc::kTranspose2d);                        // 2-D transpose
  EXPECT_EQ(class_of(pdesc({5, 7}, {1, 0})), pc::kTranspose2d);
  EXPECT_EQ(class_of(pdesc({3, 5, 7}, {0, 2, 1})), pc::kTranspose2d);        // [B,M,N] -> [B,N,M]
  {
    transpose_desc d = tdesc(5, 7);
    d.batch = 3;
    EXPECT_EQ(class_of(d), pc::kTranspose2d);
    d.ld_in = 9;
    d.ld_out = 6;
    d.batch_stride_out = 100;
    EXPECT_EQ(class_of(d), pc::kTranspose2d);
  }
  EXPECT_EQ(class_of(pdesc({2, 3, 4, 5}, {0, 2, 3, 1})), pc::kTranspose2d);  // NCHW -> NHWC (H,W fuse)
  EXPECT_EQ(class_of(pdesc({2, 3, 4, 5}, {0, 3, 1, 2})), pc::kTranspose2d);  // NHWC -> NCHW
  EXPECT_EQ(class_of(pdesc({2, 3, 4, 5}, {0, 2, 1, 3})), pc::kRowCopy);      // [B,H,N,D] -> [B,N,H,D]
  // Full reversals: the input-contiguous dim is the output's first, the output-contiguous dim the
  // input's first; the dims between are a batch (one dim: kTranspose2d, more: kTransposeNd).
  EXPECT_EQ(class_of(pdesc({2, 3, 4}, {2, 1, 0})), pc::kTranspose2d);
  EXPECT_EQ(class_of(pdesc({2, 3, 4, 5, 6}, {4, 3, 2, 1, 0})), pc::kTransposeNd);
  {
    // A strided input with no unit-stride dim is neither: element by element.
    permute_desc d = pdesc({3, 4}, {1, 0});
    d.in_strides = {8, 2};
    EXPECT_EQ(class_of(d), pc::kGeneral);
  }
  {
    // Input-fastest dim in the middle and a column-major output, whose fastest dim is the first:
    // dims (2, in 12, out 1), (4, in 1, out 2), (3, in 4, out 8). Dims are found by role, not
    // position: B = dim 0 (rows), A = dim 1 (cols), dim 2 the batch.
    permute_desc d = pdesc({2, 3, 4}, {0, 2, 1});
    d.out_strides = {1, 2, 8};
    EXPECT_EQ(class_of(d), pc::kTranspose2d);
    const auto m = xpose::detail::as_matrix(xpose::detail::normalize(xpose::detail::to_problem(d)));
    EXPECT_EQ(m.rows, 2);
    EXPECT_EQ(m.cols, 4);
    EXPECT_EQ(m.ld_in, 12);
    EXPECT_EQ(m.ld_out, 2);
    EXPECT_EQ(m.batch, 3);
    EXPECT_EQ(m.bs_in, 4);
    EXPECT_EQ(m.bs_out, 8);
    d.out_strides.clear();  // the same permutation into a dense output
    EXPECT_EQ(class_of(d), pc::kTranspose2d);
  }
  {
    // Rank 2 likewise: the output-fastest dim must be the last one.
    permute_desc d = pdesc({3, 5}, {1, 0});
    d.out_strides = {1, 5};  // (5, in 1, out 1), (3, in 5, out 5)
    EXPECT_NE(class_of(d), pc::kTranspose2d);
  }
  EXPECT_EQ(class_of(tdesc(1, 9)), pc::kCopy);                               // 1 x N transpose
  EXPECT_EQ(class_of(tdesc(9, 1)), pc::kCopy);                               // N x 1 transpose
  EXPECT_EQ(class_of(tdesc(1, 1)), pc::kCopy);
}

TEST(Classify, ClassNames) {
  EXPECT_STREQ(xpose::detail::class_name(problem_class::kCopy), "copy");
  EXPECT_STREQ(xpose::detail::class_name(problem_class::kTranspose2d), "transpose2d");
  EXPECT_STREQ(xpose::detail::class_name(problem_class::kRowCopy), "row-copy");
  EXPECT_STREQ(xpose::detail::class_name(problem_class::kGeneral), "general");
}

// ------------------------------------------------------------------------------------------------
// as_matrix, in_span / out_span

TEST(AsMatrix, TwoDimensional) {
  const problem p = xpose::detail::normalize(xpose::detail::to_problem(tdesc(5, 7)));
  ASSERT_EQ(p.rank, 2);
  const auto m = xpose::detail::as_matrix(p);
  EXPECT_EQ(m.rows, 5);
  EXPECT_EQ(m.cols, 7);
  EXPECT_EQ(m.ld_in, 7);
  EXPECT_EQ(m.ld_out, 5);
  EXPECT_EQ(m.batch, 1);
}

TEST(AsMatrix, BatchedStrided) {
  transpose_desc d = tdesc(5, 7);
  d.batch = 3;
  d.ld_in = 9;
  d.ld_out = 6;
  d.batch_stride_in = 50;
  d.batch_stride_out = 45;
  const problem p = xpose::detail::normalize(xpose::detail::to_problem(d));
  ASSERT_EQ(p.rank, 3);
  const auto m = xpose::detail::as_matrix(p);
  EXPECT_EQ(m.rows, 5);
  EXPECT_EQ(m.cols, 7);
  EXPECT_EQ(m.ld_in, 9);
  EXPECT_EQ(m.ld_out, 6);
  EXPECT_EQ(m.batch, 3);
  EXPECT_EQ(m.bs_in, 50);
  EXPECT_EQ(m.bs_out, 45);
}

TEST(AsMatrix, NchwToNhwc) {
  // (N,C,H,W) = (2,3,4,5) -> (N, HW, C): per image a C x HW matrix (rows = C, cols = HW) transposed.
  const problem p = xpose::detail::normalize(xpose::detail::to_problem(pdesc({2, 3, 4, 5}, {0, 2, 3, 1})));
  const auto m = xpose::detail::as_matrix(p);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 20);
  EXPECT_EQ(m.ld_in, 20);
  EXPECT_EQ(m.ld_out, 3);
  EXPECT_EQ(m.batch, 2);
  EXPECT_EQ(m.bs_in, 60);
  EXPECT_EQ(m.bs_out, 60);
}

TEST(AsMatrix, CopyAndSingleElement) {
  const auto m = xpose::detail::as_matrix(xpose::detail::normalize(xpose::detail::to_problem(pdesc({3, 4}, {0, 1}))));
  EXPECT_EQ(m.rows, 1);
  EXPECT_EQ(m.cols, 12);
  EXPECT_EQ(m.batch, 1);
  EXPECT_GE(m.ld_in, m.cols);
  EXPECT_GE(m.ld_out, m.rows);
  const auto one = xpose::detail::as_matrix(xpose::detail::normalize(xpose::detail::to_problem(tdesc(1, 1))));
  EXPECT_EQ(one.rows, 1);
  EXPECT_EQ(one.cols, 1);
  EXPECT_EQ(one.batch, 1);
}

TEST(Span, HandCases) {
  transpose_desc d = tdesc(4, 3);
  d.ld_in = 5;
  d.ld_out = 6;
  d.batch = 2;
  d.batch_stride_in = 30;
  d.batch_stride_out = 20;
  const problem p = xpose::detail::to_problem(d);
  // in: last element at 30 + 3*5 + 2 = 47; out: 20 + 2*6 + 3 = 35.
  EXPECT_EQ(xpose::detail::in_span(p), 48);
  EXPECT_EQ(xpose::detail::out_span(p), 36);
  EXPECT_EQ(xpose::detail::in_span(xpose::detail::normalize(p)), 48);
  EXPECT_EQ(xpose::detail::out_span(xpose::detail::normalize(p)), 36);
  // Dense: the element count.
  const problem q = xpose::detail::to_problem(pdesc({2, 3, 4}, {1, 2, 0}));
  EXPECT_EQ(xpose::detail::in_span(q), 24);
  EXPECT_EQ(xpose::detail::out_span(q), 24);
  // Rank 0: one element.
  problem z;
  EXPECT_EQ(xpose::detail::in_span(z), 1);
  EXPECT_EQ(xpose::detail::out_span(z), 1);
  EXPECT_EQ(z.count(), 1);
  // Broadcast input (zero stride): the input span is one row.
  permute_desc b = pdesc({5, 3}, {1, 0});
  b.in_strides = {0, 1};
  EXPECT_EQ(xpose::detail::in_span(xpose::detail::to_problem(b)), 3);
  EXPECT_EQ(xpose::detail::out_span(xpose::detail::to_problem(b)), 15);
}

TEST(Describe, OneLineWithExtentsAndStrides) {
  const problem p = xpose::detail::to_problem(pdesc({2, 3, 4}, {2, 0, 1}));
  const std::string s = p.describe();
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_NE(s.find("4,2,3"), std::string::npos) << s;
}

}  // namespace
