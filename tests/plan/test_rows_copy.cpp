// permute_rows' host-side arithmetic, run on the CPU chunk by chunk as the kernel runs it
// (gpu/rows_copy.hpp, gpu/kernels/permute_rows.cuh): random row copies of every element size, with
// padded input strides and pointers at every misalignment, moved byte by byte from a random input
// into a poisoned output through rows_pieces. The pieces of a chunk must lie back to back inside
// it, no more of them than the kernel's loop holds, every byte they keep taken from inside the
// input and stored once; the output must equal the reference with nothing else written.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "gpu/rows_copy.hpp"
#include "plan/problem.hpp"

namespace {

using namespace xpose::detail::gpu;

// in_mis / out_mis: the pointers' misalignment in bytes past a 16-byte boundary (multiples of the
// element size).
std::string emulate(const xpose::permute_desc& d, int in_mis, int out_mis, std::uint64_t seed) {
  const auto raw = xpose::detail::to_problem(d);
  const auto pr = xpose::detail::normalize(raw);
  rows_params p;
  const char* reason = "";
  if (!rows_plan(pr, &p, &reason)) return std::string("not planned: ") + reason;
  auto io = xpose::test::make_emulation(d, seed);
  const std::int64_t in_bytes = io.in_bytes, out_bytes = io.out_bytes;
  if (p.in_span_bytes != in_bytes || p.total_bytes != out_bytes) return "the plan's spans disagree";
  if (p.max_pieces > 16) return "more pieces than the kernel's largest loop";

  const std::uint64_t in_base = (1u << 20) + in_mis, in_end = in_base + in_bytes;
  const std::int64_t chunks = rows_chunks(p, out_mis);
  // Each kernel thread walks chunks 32 apart with one cursor (rows_cursor): so does this loop, one
  // cursor per lane, steps of kRowsSteps.
  std::vector<rows_cursor> lanes(32);
  for (std::int64_t j = 0; j < chunks; ++j) {
    const std::int64_t pos0 = 16 * j - out_mis;  // the output byte of chunk byte 0
    int pieces = 0, next = -1;
    std::string err;
    rows_cursor& cur = lanes[j % 32];
    if (j % (32 * kRowsSteps) < 32) cur = rows_cursor{};  // a new warp's first step
    rows_pieces<16>(p, static_cast<std::uint32_t>(j), out_mis, &cur, [&](int b, int n, std::int32_t src) {
      ++pieces;
      if (next >= 0 && b != next) err = "pieces not back to back";
      next = b + n;
      if (b < 0 || n < 1 || b + n > 16) err = "piece outside the chunk";
      for (int t = b; t < b + n && err.empty(); ++t) {
        const std::uint64_t a = in_base + static_cast<std::uint64_t>(src + t);  // the kernel's byte address
        if (a < in_base || a >= in_end) err = "a kept byte lies outside the input";
        const std::int64_t o = pos0 + t;
        if (o < 0 || o >= out_bytes) err = "a byte outside the output";
        if (!err.empty()) break;
        if (io.written[o]) err = fmt::format("output byte {} stored twice", o);
        io.put(o, io.in[a - in_base]);
      }
    });
    if (!err.empty()) return fmt::format("chunk {}: {}", j, err);
    if (pieces > p.max_pieces) return fmt::format("chunk {}: {} pieces, max_pieces {}", j, pieces, p.max_pieces);
  }
  return io.verdict();
}

TEST(RowsCopy, RefusesProblemsThatAreNotRowCopies) {
  rows_params p;
  const char* reason = "";
  auto prob = [](std::vector<std::int64_t> e, std::vector<int> perm, int eb) {
    return xpose::detail::normalize(xpose::detail::to_problem(xpose::test::pdesc(std::move(e), std::move(perm), eb)));
  };
  EXPECT_FALSE(rows_plan(prob({30, 40}, {1, 0}, 4), &p, &reason));  // a transpose: no shared fastest dim
  EXPECT_NE(std::string(reason).find("row copy"), std::string::npos) << reason;
  EXPECT_TRUE(rows_plan(prob({30, 40, 5}, {1, 0, 2}, 1), &p, &reason)) << reason;
  EXPECT_EQ(p.row_bytes, 5);
  EXPECT_EQ(p.rows, 1200);
  EXPECT_EQ(p.max_pieces, 4);  // a byte of one row, then 5 + 5 + 5
  EXPECT_EQ(rows_max_pieces(16), 2);
  EXPECT_EQ(rows_max_pieces(15), 2);
  EXPECT_EQ(rows_max_pieces(14), 3);
  EXPECT_EQ(rows_max_pieces(1), 16);
}

TEST(RowsCopy, EveryItemMovesItsRowBytesOnce) {
  std::mt19937_64 rng(20261130);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const int sizes[] = {1, 2, 4, 8, 16};
  int ran = 0;
  for (int c = 0; c < 2000 && ran < 400; ++c) {
    const int eb = sizes[c % 5], rank = static_cast<int>(pick(2, 6));
    xpose::permute_desc d;
    d.elem_bytes = eb;
    std::int64_t budget = 20000 / eb;
    for (int k = 0; k < rank; ++k) {
      const std::int64_t want = k == rank - 1 ? pick(1, c % 4 == 0 ? 300 : 40) : pick(2, 9);
      const std::int64_t e = std::max<std::int64_t>(1, std::min(want, budget));
      d.extents.push_back(e);
      budget = std::max<std::int64_t>(1, budget / e);
    }
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end() - 1, rng);  // the fastest dim stays the fastest
    if (c % 3 == 0) {  // padded input strides
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) {
        d.in_strides[k] = st;
        st *= d.extents[k] + pick(0, 3);
      }
    }
    const int in_mis = static_cast<int>(pick(0, 15)) / eb * eb, out_mis = static_cast<int>(pick(0, 15)) / eb * eb;
    const auto pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    if (xpose::detail::classify(pr) != xpose::detail::problem_class::kRowCopy) continue;  // fused to a copy
    ++ran;
    const std::string err = emulate(d, in_mis, out_mis, 100 + c);
    ASSERT_EQ(err, "") << "case " << c << " extents " << fmt::format("{}", fmt::join(d.extents, ",")) << " perm "
                       << fmt::format("{}", fmt::join(d.perm, ",")) << " elem " << eb << " mis " << in_mis << "/"
                       << out_mis;
  }
  EXPECT_EQ(ran, 400);  // cases that fused to plain copies are drawn again
}

// as_row_words (what permute_packed plans a row copy as): the widened problem addresses the same
// bytes, word by word, as the element problem does at each word's first element.
TEST(RowsCopy, WidenedWordsKeepEveryByteOffset) {
  std::mt19937_64 rng(20261201);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  int widened = 0;
  for (int c = 0; c < 300; ++c) {
    const int eb = 1 << (c % 4), rank = static_cast<int>(pick(2, 4));
    xpose::permute_desc d;
    d.elem_bytes = eb;
    for (int k = 0; k + 1 < rank; ++k) d.extents.push_back(pick(2, 6));
    d.extents.push_back(c % 3 ? 16 / eb * pick(1, 6) : pick(1, 40));  // rows of whole 16-byte words, or any
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    std::shuffle(d.perm.begin(), d.perm.end() - 1, rng);
    const auto pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    const auto wp = as_row_words(pr);
    SCOPED_TRACE(fmt::format("case {}: {} x {} B -> {} x {} B", c, pr.describe(), pr.elem_bytes, wp.describe(), wp.elem_bytes));
    ASSERT_EQ(wp.elem_bytes, rows_word_bytes(pr));
    ASSERT_EQ(wp.rank, pr.rank);
    ASSERT_EQ(wp.count() * wp.elem_bytes, pr.count() * pr.elem_bytes);
    const std::int64_t f = wp.elem_bytes / pr.elem_bytes;
    widened += f > 1;
    std::vector<std::int64_t> idx(wp.rank, 0);
    for (std::int64_t n = 0; n < wp.count(); ++n) {
      std::int64_t wi = 0, wo = 0, ei = 0, eo = 0;
      for (int k = 0; k < wp.rank; ++k) {
        wi += idx[k] * wp.dims[k].in_stride, wo += idx[k] * wp.dims[k].out_stride;
        const std::int64_t e = k == wp.rank - 1 ? idx[k] * f : idx[k];
        ei += e * pr.dims[k].in_stride, eo += e * pr.dims[k].out_stride;
      }
      ASSERT_EQ(wi * wp.elem_bytes, ei * pr.elem_bytes) << "word " << n;
      ASSERT_EQ(wo * wp.elem_bytes, eo * pr.elem_bytes) << "word " << n;
      for (int k = wp.rank - 1; k >= 0 && ++idx[k] == wp.dims[k].extent; --k) idx[k] = 0;
    }
  }
  EXPECT_GT(widened, 100);
}

}  // namespace
