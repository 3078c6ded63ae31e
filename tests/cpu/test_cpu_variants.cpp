// The CPU backend (`cpu_naive` and the `auto` CPU plan) against the shared naive reference and
// against the descriptor's definition computed here element by element, on seeded random data with
// poisoned outputs. The reference itself is checked first on cases written out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "xpose/xpose.hpp"


namespace {

using xpose::test::pdesc;
using xpose::test::tdesc;

using xpose::backend;
using xpose::permute_desc;
using xpose::plan_options;
using xpose::status;
using xpose::transpose_desc;
using i64 = std::int64_t;
using xpose::test::kPoison;

constexpr int kElemSizes[] = {1, 2, 4, 8, 16};
constexpr std::size_t kGuard = 64;  // poisoned bytes before and after every output region



// ------------------------------------------------------------------------------------------------
// The reference, on cases written out by hand.

TEST(Reference, Transpose2x3Int32) {
  const std::int32_t in[6] = {1, 2, 3, 4, 5, 6};  // [[1 2 3] [4 5 6]]
  std::int32_t out[6] = {0, 0, 0, 0, 0, 0};
  xpose::reference::transpose(tdesc(2, 3), in, out);
  const std::int32_t want[6] = {1, 4, 2, 5, 3, 6};  // [[1 4] [2 5] [3 6]]
  EXPECT_EQ(std::vector<std::int32_t>(out, out + 6), std::vector<std::int32_t>(want, want + 6));
}

TEST(Reference, TransposeStridedLeavesPaddingAlone) {
  // 2x2 with ld_in = 3 and ld_out = 3: [[1 2 x] [3 4 x]] -> [[1 3 P] [2 4 P]].
  transpose_desc d = tdesc(2, 2, 2);
  d.ld_in = 3;
  d.ld_out = 3;
  const std::uint16_t in[6] = {1, 2, 0xEEEE, 3, 4, 0xEEEE};
  std::uint16_t out[6] = {7, 7, 7, 7, 7, 7};
  xpose::reference::transpose(d, in, out);
  const std::uint16_t want[6] = {1, 3, 7, 2, 4, 7};
  EXPECT_EQ(std::vector<std::uint16_t>(out, out + 6), std::vector<std::uint16_t>(want, want + 6));
}

TEST(Reference, TransposeBatched) {
  // Two 1x2 matrices, input batch stride 3, output batch stride 4: [a b] -> [a; b] each.
  transpose_desc d = tdesc(1, 2, 1);
  d.batch = 2;
  d.batch_stride_in = 3;
  d.batch_stride_out = 4;
  const unsigned char in[6] = {10, 11, 99, 20, 21, 99};
  unsigned char out[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  xpose::reference::transpose(d, in, out);
  const unsigned char want[8] = {10, 11, 0, 0, 20, 21, 0, 0};
  EXPECT_EQ(std::vector<unsigned char>(out, out + 8), std::vector<unsigned char>(want, want + 8));
}

TEST(Reference, PermuteRank3) {
  // in[a][b][c] = 6a + 2b + c over (2, 3, 2); perm {2, 0, 1}: out[c][a][b] = in[a][b][c].
  std::int32_t in[12];
  std::iota(in, in + 12, 0);
  std::int32_t out[12] = {};
  xpose::reference::permute(pdesc({2, 3, 2}, {2, 0, 1}), in, out);
  const std::int32_t want[12] = {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11};
  EXPECT_EQ(std::vector<std::int32_t>(out, out + 12), std::vector<std::int32_t>(want, want + 12));
}

TEST(Reference, PermuteWithInputStrides) {
  // A 2x2 view with row stride 3 of [[1 2 x] [3 4 x]], transposed: [1 3 2 4].
  permute_desc d = pdesc({2, 2}, {1, 0}, 8);
  d.in_strides = {3, 1};
  const std::uint64_t in[6] = {1, 2, 0xDEAD, 3, 4, 0xDEAD};
  std::uint64_t out[4] = {};
  xpose::reference::permute(d, in, out);
  const std::uint64_t want[4] = {1, 3, 2, 4};
  EXPECT_EQ(std::vector<std::uint64_t>(out, out + 4), std::vector<std::uint64_t>(want, want + 4));
}

TEST(Reference, PermuteWithOutputStridesAndRankOne) {
  permute_desc d = pdesc({3}, {0}, 1);
  d.out_strides = {2};
  const unsigned char in[3] = {5, 6, 7};
  unsigned char out[5] = {0, 0, 0, 0, 0};
  xpose::reference::permute(d, in, out);
  const unsigned char want[5] = {5, 0, 6, 0, 7};
  EXPECT_EQ(std::vector<unsigned char>(out, out + 5), std::vector<unsigned char>(want, want + 5));
}

// ------------------------------------------------------------------------------------------------
// Helpers: run a CPU plan and check it.

plan_options cpu_opts(const char* variant, int threads = 0) {
  plan_options o;
  o.where = backend::kCpu;
  o.variant = variant;
  o.cpu_threads = threads;
  return o;
}

// Output offsets (in elements) and their source input offsets, straight from desc.hpp.
struct offset_map {
  std::vector<i64> in_off, out_off;
  i64 in_span = 0, out_span = 0;  // largest offset + 1
};

offset_map offsets_of(const transpose_desc& d) {
  offset_map m;
  const i64 ldi = d.ld_in.value_or(d.cols), ldo = d.ld_out.value_or(d.rows);
  const i64 bsi = d.batch_stride_in.value_or(d.rows * ldi), bso = d.batch_stride_out.value_or(d.cols * ldo);
  for (i64 b = 0; b < d.batch; ++b)
    for (i64 i = 0; i < d.rows; ++i)
      for (i64 j = 0; j < d.cols; ++j) {
        m.in_off.push_back(b * bsi + i * ldi + j);
        m.out_off.push_back(b * bso + j * ldo + i);
      }
  for (i64 o : m.in_off) m.in_span = std::max(m.in_span, o + 1);
  for (i64 o : m.out_off) m.out_span = std::max(m.out_span, o + 1);
  return m;
}

offset_map offsets_of(const permute_desc& d) {
  offset_map m;
  for (const auto& [in_off, out_off] : xpose::test::definition_offsets(d)) {
    m.in_off.push_back(in_off);
    m.out_off.push_back(out_off);
  }
  for (i64 o : m.in_off) m.in_span = std::max(m.in_span, o + 1);
  for (i64 o : m.out_off) m.out_span = std::max(m.out_span, o + 1);
  return m;
}

void run_reference(const transpose_desc& d, const void* in, void* out) { xpose::reference::transpose(d, in, out); }
void run_reference(const permute_desc& d, const void* in, void* out) { xpose::reference::permute(d, in, out); }

// Plans `d` for the CPU with `opts`, runs it on random input (placed `misalign` bytes past an
// aligned address) into a poisoned output with poisoned guards on both sides, and checks:
//  - every logical output element equals its input element (computed here from the definition);
//  - every other byte of the output buffer, guards and padding included, is still poison;
//  - the whole buffer equals the reference's, byte for byte;
//  - the input is unchanged.
template <class Desc>
void check_cpu(const Desc& d, const plan_options& opts, std::uint64_t seed, std::size_t misalign = 0) {
  const int eb = d.elem_bytes;
  const offset_map m = offsets_of(d);
  const std::size_t in_bytes = static_cast<std::size_t>(m.in_span) * eb;
  const std::size_t out_bytes = static_cast<std::size_t>(m.out_span) * eb;

  std::vector<unsigned char> in_buf(in_bytes + misalign + 16);
  unsigned char* in = in_buf.data() + misalign;
  xpose::test::fill_random(in, in_bytes, seed);
  const std::vector<unsigned char> in_copy(in, in + in_bytes);

  std::vector<unsigned char> got(out_bytes + 2 * kGuard + misalign), want(got.size());
  xpose::test::poison(got.data(), got.size());
  xpose::test::poison(want.data(), want.size());
  unsigned char* out = got.data() + kGuard + misalign;

  xpose::plan p;
  std::string why;
  ASSERT_EQ(xpose::make_plan(d, opts, &p, &why), status::kSuccess) << why;
  ASSERT_EQ(p.where(), backend::kCpu);
  if (opts.variant != "auto") {
    ASSERT_EQ(p.variant(), opts.variant);
  }
  ASSERT_EQ(xpose::execute(p, in, out, nullptr, &why), status::kSuccess) << why << " | " << p.summary();

  // 1. Logical elements, from the definition.
  std::vector<bool> logical(static_cast<std::size_t>(m.out_span), false);
  for (std::size_t e = 0; e < m.out_off.size(); ++e) {
    logical[m.out_off[e]] = true;
    if (std::memcmp(out + m.out_off[e] * eb, in + m.in_off[e] * eb, eb) != 0) {
      ADD_FAILURE() << "element " << e << " (out offset " << m.out_off[e] << ", in offset " << m.in_off[e]
                    << ") is wrong | " << p.summary();
      return;
    }
  }
  // 2. Nothing else written: padding and guards are still poison.
  for (std::size_t b = 0; b < got.size(); ++b) {
    const std::ptrdiff_t rel = static_cast<std::ptrdiff_t>(b) - static_cast<std::ptrdiff_t>(kGuard + misalign);
    const bool inside = rel >= 0 && rel < static_cast<std::ptrdiff_t>(out_bytes) && logical[rel / eb];
    if (!inside && got[b] != kPoison) {
      ADD_FAILURE() << "byte " << rel << " relative to the output, outside the logical region, was written | "
                    << p.summary();
      return;
    }
  }
  // 3. Same bytes as the reference.
  run_reference(d, in, want.data() + kGuard + misalign);
  EXPECT_EQ(xpose::test::first_difference(got.data(), want.data(), got.size()), -1) << p.summary();
  // 4. Input untouched.
  EXPECT_EQ(std::memcmp(in, in_copy.data(), in_bytes), 0);
}

std::string shape_name(const transpose_desc& d) {
  return testing::PrintToString(d.batch) + "x" + std::to_string(d.rows) + "x" + std::to_string(d.cols) + " ld " +
         std::to_string(d.ld_in.value_or(d.cols)) + "/" + std::to_string(d.ld_out.value_or(d.rows)) + " bs " +
         (d.batch_stride_in ? std::to_string(*d.batch_stride_in) : "-") + "/" +
         (d.batch_stride_out ? std::to_string(*d.batch_stride_out) : "-") + " eb " + std::to_string(d.elem_bytes);
}

std::string shape_name(const permute_desc& d) {
  return "extents " + testing::PrintToString(d.extents) + " perm " + testing::PrintToString(d.perm) + " in_strides " +
         testing::PrintToString(d.in_strides) + " out_strides " + testing::PrintToString(d.out_strides) + " eb " +
         std::to_string(d.elem_bytes);
}

const char* const kVariants[] = {"cpu_naive", "auto"};

// ------------------------------------------------------------------------------------------------
// 2-D transposes

TEST(CpuTranspose, DenseShapes) {
  const std::pair<i64, i64> shapes[] = {{1, 1},   {2, 3},   {3, 2},   {7, 13},  {13, 7},  {15, 16}, {16, 15},
                                        {17, 33}, {33, 17}, {31, 32}, {33, 32}, {31, 65}, {65, 31}, {64, 48},
                                        {129, 67}, {1, 100}, {100, 1}, {1, 37},  {37, 1},  {1, 1024}, {1024, 1}};
  std::uint64_t seed = 1;
  for (const char* v : kVariants)
    for (int eb : kElemSizes)
      for (const auto& [r, c] : shapes) {
        const transpose_desc d = tdesc(r, c, eb);
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
}

TEST(CpuTranspose, StridedShapesKeepPaddingPoisoned) {
  struct s {
    i64 rows, cols, ld_in, ld_out;
  };
  const s shapes[] = {{5, 7, 9, 6},    {1, 10, 12, 3},  {10, 1, 4, 13},  {33, 17, 40, 35},
                      {16, 16, 17, 17}, {2, 3, 3, 100}, {31, 1, 1, 32}, {1, 31, 31, 2}};
  std::uint64_t seed = 100;
  for (const char* v : kVariants)
    for (int eb : kElemSizes)
      for (const s& x : shapes) {
        transpose_desc d = tdesc(x.rows, x.cols, eb);
        d.ld_in = x.ld_in;
        d.ld_out = x.ld_out;
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
}

TEST(CpuTranspose, BatchedWithStrides) {
  std::vector<transpose_desc> descs;
  {
    transpose_desc d = tdesc(7, 5);
    d.batch = 3;  // default batch strides
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(9, 17);
    d.batch = 4;
    d.ld_in = 20;
    d.ld_out = 11;
    d.batch_stride_in = 9 * 20 + 13;   // padded between matrices
    d.batch_stride_out = 17 * 11 + 5;
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(6, 4);
    d.batch = 5;
    d.batch_stride_in = 0;  // the same input matrix, broadcast
    descs.push_back(d);
  }
  {
    // Interleaved output batches: 2x3 matrices transposed into a 3x4 grid with ld_out = 4, the
    // second matrix at offset 2, in the first one's padding columns.
    transpose_desc d = tdesc(2, 3);
    d.batch = 2;
    d.ld_out = 4;
    d.batch_stride_out = 2;
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(1, 8);
    d.batch = 6;  // batched 1xN: a copy after fusion
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(8, 1);
    d.batch = 6;
    d.batch_stride_in = 11;  // batched Nx1 with padded batches
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(1, 9);
    d.ld_out = 4;  // 1xN into a padded column
    descs.push_back(d);
  }
  {
    transpose_desc d = tdesc(9, 1);
    d.ld_in = 3;  // Nx1 from a padded column
    descs.push_back(d);
  }
  std::uint64_t seed = 500;
  for (const char* v : kVariants)
    for (int eb : kElemSizes)
      for (transpose_desc d : descs) {
        d.elem_bytes = eb;
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
}

TEST(CpuTranspose, AnyAlignmentAndThreadCount) {
  // CPU plans move elements through memcpy: they accept pointers at any byte offset.
  std::uint64_t seed = 900;
  for (int eb : kElemSizes)
    for (std::size_t misalign : {std::size_t{1}, std::size_t{3}, std::size_t{7}}) {
      transpose_desc d = tdesc(19, 23, eb);
      d.ld_in = 25;
      SCOPED_TRACE(shape_name(d) + " misalign " + std::to_string(misalign));
      check_cpu(d, cpu_opts("auto"), seed++, misalign);
      check_cpu(d, cpu_opts("cpu_naive", 1), seed++, misalign);
      check_cpu(d, cpu_opts("auto", 2), seed++, misalign);
    }
}

// ------------------------------------------------------------------------------------------------
// Permutations

// A random permutation of rank 1..8: extents small enough to keep every case tiny, and a fastest
// input dim and a fastest output dim of 1..7 elements in most cases; dense, padded or broadcast
// input strides; dense or padded output strides.
permute_desc random_permute(std::mt19937_64& rng, int rank) {
  auto uni = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
  permute_desc d;
  d.perm.resize(rank);
  std::iota(d.perm.begin(), d.perm.end(), 0);
  std::shuffle(d.perm.begin(), d.perm.end(), rng);
  const i64 cap = 6000;
  i64 total;
  do {
    d.extents.assign(rank, 1);
    for (auto& e : d.extents) e = uni(1, rank <= 2 ? 90 : rank <= 4 ? 12 : 4);
    if (uni(0, 3) != 0) d.extents[rank - 1] = uni(1, 7);            // input-fastest dim of 1..7
    if (uni(0, 3) != 0) d.extents[d.perm[rank - 1]] = uni(1, 7);    // output-fastest dim of 1..7
    total = 1;
    for (i64 e : d.extents) total *= e;
  } while (total > cap);
  d.elem_bytes = kElemSizes[uni(0, 4)];
  const i64 mode_in = uni(0, 3), mode_out = uni(0, 2);
  if (mode_in == 1 || mode_in == 2) {
    d.in_strides.assign(rank, 0);
    i64 s = 1;
    for (int q = rank - 1; q >= 0; --q) {
      d.in_strides[q] = s;
      s *= d.extents[q] + uni(0, 3);
    }
    if (mode_in == 2) d.in_strides[uni(0, rank - 1)] = 0;
  }
  if (mode_out == 1) {
    d.out_strides.assign(rank, 0);
    i64 s = 1;
    for (int k = rank - 1; k >= 0; --k) {
      d.out_strides[k] = s;
      s *= d.extents[d.perm[k]] + uni(0, 3);
    }
  }
  return d;
}

TEST(CpuPermute, RandomRanksOneToEight) {
  std::mt19937_64 rng(424242);
  std::uint64_t seed = 10000;
  for (int rank = 1; rank <= 8; ++rank)
    for (int trial = 0; trial < 40; ++trial) {
      const permute_desc d = random_permute(rng, rank);
      for (const char* v : kVariants) {
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
    }
}

TEST(CpuPermute, FullReversals) {
  std::uint64_t seed = 20000;
  const std::vector<std::vector<i64>> extents = {
      {37}, {5, 9}, {3, 5, 7}, {2, 3, 4, 5}, {3, 1, 4, 2, 5}, {2, 3, 2, 3, 2, 3}, {2, 2, 3, 1, 2, 2, 3}, {2, 3, 2, 2, 3, 2, 2, 3}};
  for (const auto& e : extents)
    for (int eb : kElemSizes)
      for (const char* v : kVariants) {
        std::vector<int> perm(e.size());
        std::iota(perm.rbegin(), perm.rend(), 0);
        const permute_desc d = pdesc(e, perm, eb);
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
}

TEST(CpuPermute, NchwNhwcAndAttentionLayouts) {
  struct named {
    std::vector<i64> extents;
    std::vector<int> perm;
  };
  const named cases[] = {
      {{2, 3, 5, 7}, {0, 2, 3, 1}},     // NCHW -> NHWC
      {{2, 5, 7, 3}, {0, 3, 1, 2}},     // NHWC -> NCHW
      {{3, 1, 9, 11}, {0, 2, 3, 1}},    // C = 1
      {{1, 6, 17, 19}, {0, 2, 3, 1}},   // N = 1
      {{2, 17, 19, 4}, {0, 3, 1, 2}},
      {{2, 3, 10, 8}, {0, 2, 1, 3}},    // [B,H,N,D] -> [B,N,H,D]
      {{2, 3, 10, 8}, {0, 1, 3, 2}},    // [B,H,N,D] -> [B,H,D,N]
      {{1, 4, 33, 5}, {0, 2, 1, 3}},
      {{4, 7, 6}, {1, 0, 2}},           // outer dims only
      {{3, 4, 5}, {0, 1, 2}},           // identity
      {{1, 1, 1, 1, 1}, {4, 2, 0, 1, 3}},  // one element
  };
  std::uint64_t seed = 30000;
  for (const named& c : cases)
    for (int eb : kElemSizes)
      for (const char* v : kVariants) {
        const permute_desc d = pdesc(c.extents, c.perm, eb);
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
}

TEST(CpuPermute, StridedInputsAndOutputs) {
  std::uint64_t seed = 40000;
  for (int eb : kElemSizes)
    for (const char* v : kVariants) {
      {
        permute_desc d = pdesc({3, 4, 5}, {2, 0, 1}, eb);
        d.in_strides = {40, 8, 1};  // padded rows and planes
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
      {
        permute_desc d = pdesc({3, 4, 5}, {2, 0, 1}, eb);
        d.in_strides = {1, 3, 12};  // a column-major input
        d.out_strides = {20, 6, 1};  // padded output (extents 5, 3, 4)
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
      {
        permute_desc d = pdesc({4, 6}, {1, 0}, eb);
        d.in_strides = {0, 1};  // every row the same
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
      {
        permute_desc d = pdesc({6, 5}, {0, 1}, eb);
        d.out_strides = {1, 6};  // an identity permutation into a column-major output
        SCOPED_TRACE(std::string(v) + " " + shape_name(d));
        check_cpu(d, cpu_opts(v), seed++);
      }
    }
}

// A 2-D transpose described as a transpose_desc and as a permute_desc gives the same bytes.
TEST(CpuPermute, TransposeDescAndPermuteDescAgree) {
  for (int eb : kElemSizes) {
    const i64 rows = 23, cols = 41;
    const std::size_t bytes = static_cast<std::size_t>(rows * cols * eb);
    std::vector<unsigned char> in(bytes), a(bytes), b(bytes);
    xpose::test::fill_random(in.data(), bytes, 77 + eb);
    xpose::test::poison(a.data(), bytes);
    xpose::test::poison(b.data(), bytes, 0x5A);
    xpose::plan pt, pp;
    ASSERT_EQ(xpose::make_plan(tdesc(rows, cols, eb), cpu_opts("auto"), &pt), status::kSuccess);
    ASSERT_EQ(xpose::make_plan(pdesc({rows, cols}, {1, 0}, eb), cpu_opts("auto"), &pp), status::kSuccess);
    ASSERT_EQ(xpose::execute(pt, in.data(), a.data()), status::kSuccess);
    ASSERT_EQ(xpose::execute(pp, in.data(), b.data()), status::kSuccess);
    EXPECT_EQ(xpose::test::first_difference(a.data(), b.data(), bytes), -1) << eb;
  }
}

}  // namespace
