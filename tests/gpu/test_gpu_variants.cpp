// Every GPU variant x element size x awkward shape, against the CPU reference on random data, with
// the output (and its padding) poisoned first. Skips with the reason when no GPU is present.
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "dispatch/registry.hpp"
#include "plan/problem.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::status;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

struct dev_buf {
  void* p = nullptr;
  explicit dev_buf(std::size_t n) { EXPECT_EQ(cudaMalloc(&p, n), cudaSuccess); }
  ~dev_buf() { cudaFree(p); }
};

std::vector<std::string> gpu_variants() {
  std::vector<std::string> v;
  for (const auto& info : xpose::detail::all_variants())
    if (info.where == xpose::backend::kGpu && info.matrix_only) v.emplace_back(info.name);
  v.emplace_back("auto");
  return v;
}

// Whether every side, leading dimension and batch stride of 1- or 2-byte `d` is whole K x K blocks of
// 4-byte words (tiled_words).
bool whole_word_blocks(const xpose::transpose_desc& d) {
  const std::int64_t k = 4 / d.elem_bytes;
  for (std::int64_t v : {d.rows, d.cols, d.ld_in.value_or(d.cols), d.ld_out.value_or(d.rows),
                         d.batch_stride_in.value_or(0), d.batch_stride_out.value_or(0)})
    if (v % k) return false;
  return true;
}

// Runs `variant` on `d` and compares the whole output span (logical region and padding) with the
// reference applied to an equally poisoned buffer.
void check_transpose(const std::string& variant, const xpose::transpose_desc& d, std::uint64_t seed,
                     unsigned char poison = xpose::test::kPoison, int bx = 0, int by = 0) {
  SCOPED_TRACE(fmt::format("{} block {}x{} {}x{}x{} ({}B) ld {}/{}", variant, bx, by, d.batch, d.rows, d.cols,
                           d.elem_bytes, d.ld_in.value_or(d.cols), d.ld_out.value_or(d.rows)));
  const auto raw = xpose::detail::to_problem(d);
  const std::size_t in_bytes = xpose::detail::in_span(raw) * d.elem_bytes;
  const std::size_t out_bytes = xpose::detail::out_span(raw) * d.elem_bytes;
  std::vector<unsigned char> in(in_bytes), expected(out_bytes), got(out_bytes);
  xpose::test::fill_random(in.data(), in_bytes, seed);
  xpose::test::poison(expected.data(), out_bytes, poison);
  xpose::reference::transpose(d, in.data(), expected.data());

  xpose::plan p;
  std::string why;
  const status ps = xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = variant, .block_x = bx, .block_y = by}, &p, &why);
  // The fast kernels state their preconditions (a short dense side for narrow; 16-byte multiples
  // of the strides for the vector kernels): outside them planning says so and nothing runs.
  const bool vector_kernel =
      variant == "narrow" || variant == "interleave" || variant == "fast_tile" || variant == "reg_tile" ||
      variant == "reg_batch" || variant == "tma_tile";
  // skew_tile refuses 16-byte elements (one element is a whole vector: fast_tile's case).
  const bool refused = (variant == "narrow" && ps == status::kVariantNotApplicable) ||
                       // interleave takes single matrices with a dense side of 2-16, 32, 48 or 64 elements of 1-8 bytes
                       (variant == "interleave" && ps == status::kVariantNotApplicable) ||
                       (variant == "skew_tile" && d.elem_bytes == 16 && ps == status::kVariantNotApplicable) ||
                       // tiled_words takes 1- and 2-byte elements in whole K x K blocks (K = 4 / size)
                       (variant == "tiled_words" && (d.elem_bytes > 2 || !whole_word_blocks(d)) &&
                        ps == status::kVariantNotApplicable) ||
                       // tiled_skew refuses 1-byte elements (a stagger of up to 31 rows)
                       (variant == "tiled_skew" && d.elem_bytes == 1 && ps == status::kVariantNotApplicable) ||
                       // tma_tile refuses output rows that are not whole 16-byte units (configure_tma_tile)
                       (variant == "tma_tile" && (d.rows * d.elem_bytes) % 16 && ps == status::kVariantNotApplicable) ||
                       // reg_batch refuses sides that are not whole 16-byte blocks (configure_reg_batch)
                       (variant == "reg_batch" && ((d.rows * d.elem_bytes) % 16 || (d.cols * d.elem_bytes) % 16) &&
                        ps == status::kVariantNotApplicable);
  if (refused || (vector_kernel && ps == status::kMisaligned))
    return;
  ASSERT_EQ(ps, status::kSuccess) << why;
  dev_buf din(in_bytes), dout(out_bytes);
  CUDA_OK(cudaMemcpy(din.p, in.data(), in_bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dout.p, poison, out_bytes));
  ASSERT_EQ(xpose::execute(p, din.p, dout.p, nullptr, &why), status::kSuccess) << why;
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(got.data(), dout.p, out_bytes, cudaMemcpyDeviceToHost));
  const auto bad = xpose::test::first_difference(got.data(), expected.data(), out_bytes);
  ASSERT_EQ(bad, -1) << p.summary() << ": first difference at output byte " << bad;
}

class GpuVariant : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(GpuVariant, AwkwardShapesMatchReference) {
  XPOSE_REQUIRE_GPU();
  const auto& [variant, eb] = GetParam();
  struct shape { std::int64_t r, c; };
  const shape shapes[] = {{1, 1}, {2, 3}, {7, 5}, {16, 16}, {31, 33}, {100, 257}, {257, 100},
                          {1, 1000}, {1000, 1}, {1, 70001}, {70001, 1}, {513, 1025}};
  std::uint64_t seed = 100 + eb;
  for (const auto& s : shapes) {
    check_transpose(variant, {.rows = s.r, .cols = s.c, .elem_bytes = eb}, ++seed);
    check_transpose(variant, {.rows = s.r, .cols = s.c, .elem_bytes = eb}, ++seed, 0x5A);  // second poison
  }
}

TEST_P(GpuVariant, StridedAndBatched) {
  XPOSE_REQUIRE_GPU();
  const auto& [variant, eb] = GetParam();
  check_transpose(variant, {.rows = 45, .cols = 67, .elem_bytes = eb, .ld_in = 70, .ld_out = 50}, 7);
  check_transpose(variant, {.rows = 33, .cols = 17, .elem_bytes = eb, .batch = 5}, 8);
  check_transpose(variant, {.rows = 20, .cols = 30, .elem_bytes = eb, .ld_in = 31, .ld_out = 21, .batch = 3,
                            .batch_stride_in = 700, .batch_stride_out = 800}, 9);
  // More matrices than a grid's z dimension holds (65535): the kernels loop over the batch.
  check_transpose(variant, {.rows = 2, .cols = 3, .elem_bytes = eb, .batch = 70000}, 10);
}

TEST_P(GpuVariant, MoreThan65535BlockRows) {
  XPOSE_REQUIRE_GPU();
  const auto& [variant, eb] = GetParam();
  if (eb != 4 && eb != 16) GTEST_SKIP() << "covered with 4- and 16-byte elements";
  // 2.1 million rows: more than 65535 blocks of 16 or 32 rows in grid y.
  check_transpose(variant, {.rows = 2'100'001, .cols = 5, .elem_bytes = eb}, 11);
  check_transpose(variant, {.rows = 5, .cols = 2'100'001, .elem_bytes = eb}, 12);
}

INSTANTIATE_TEST_SUITE_P(All, GpuVariant,
                         ::testing::Combine(::testing::ValuesIn(gpu_variants()), ::testing::Values(1, 2, 4, 8, 16)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "B";
                         });

// More than 2^31 elements (1-byte, 46341^2 = 2,147,488,281): 64-bit index arithmetic everywhere.
class GpuHuge : public ::testing::TestWithParam<std::string> {};
TEST_P(GpuHuge, MoreThan2Pow31Elements) {
  XPOSE_REQUIRE_GPU();
  check_transpose(GetParam(), {.rows = 46341, .cols = 46341, .elem_bytes = 1}, 13);
}
INSTANTIATE_TEST_SUITE_P(All, GpuHuge, ::testing::ValuesIn(gpu_variants()));
// reg_batch refuses 46341^2 (not whole 16 x 16 blocks); 4194320 x 512 bytes (rows of 32 blocks, in
// segments) and 46352^2 (46352 = 16 x 2897, prime: uneven segments) are more than 2^31 elements.
TEST(GpuHugeWholeBlocks, RegBatch) {
  XPOSE_REQUIRE_GPU();
  check_transpose("reg_batch", {.rows = 4194320, .cols = 512, .elem_bytes = 1}, 14);
  check_transpose("reg_batch", {.rows = 46352, .cols = 46352, .elem_bytes = 1}, 15);
}

TEST(GpuVariantBlocks, NonDefaultBlocks) {
  XPOSE_REQUIRE_GPU();
  struct cfg { const char* v; int bx, by; };
  const cfg cfgs[] = {{"naive_row_read", 32, 16}, {"naive_col_read", 32, 16}, {"naive_row_read", 7, 9},
                      {"naive_col_read", 1024, 1}, {"smem_v1", 8, 8}, {"smem_v2", 32, 32},
                      {"smem_v3", 8, 8}, {"smem_v3", 32, 32}, {"tiled", 32, 4}, {"tiled", 32, 32}, {"tiled", 32, 1},
                      {"tiled", 32, 16}, {"tiled_skew", 32, 4}, {"tiled_skew", 32, 16}};
  std::uint64_t seed = 200;
  for (const auto& c : cfgs)
    for (int eb : {1, 4, 16}) check_transpose(c.v, {.rows = 301, .cols = 203, .elem_bytes = eb}, ++seed, 0xA5, c.bx, c.by);
  // tiled_words at every height, on whole blocks (301 x 203 is refused).
  for (int h : {4, 16, 32})
    for (int eb : {1, 2}) check_transpose("tiled_words", {.rows = 300, .cols = 204, .elem_bytes = eb}, ++seed, 0xA5, 32, h);
}

// Execute-time checks that need a device: memory spaces and alignment. Nothing may be written.
TEST(GpuExecuteChecks, WrongMemorySpaceAndMisalignment) {
  XPOSE_REQUIRE_GPU();
  xpose::transpose_desc d{.rows = 64, .cols = 48, .elem_bytes = 4};
  xpose::plan gp, cp;
  std::string why;
  ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kGpu, .variant = "tiled"}, &gp, &why), status::kSuccess);
  ASSERT_EQ(xpose::make_plan(d, {.where = xpose::backend::kCpu}, &cp, &why), status::kSuccess);
  const std::size_t bytes = 64 * 48 * 4 + 64;
  dev_buf din(bytes), dout(bytes);
  std::vector<unsigned char> hin(bytes), hout(bytes, xpose::test::kPoison), before;
  CUDA_OK(cudaMemset(dout.p, xpose::test::kPoison, bytes));
  before = hout;

  EXPECT_EQ(xpose::execute(gp, hin.data(), dout.p, nullptr, &why), status::kWrongMemorySpace);
  EXPECT_NE(why.find("host"), std::string::npos) << why;
  EXPECT_EQ(xpose::execute(gp, din.p, hout.data(), nullptr, &why), status::kWrongMemorySpace);
  EXPECT_EQ(hout, before);
  EXPECT_EQ(xpose::execute(cp, din.p, hout.data(), nullptr, &why), status::kWrongMemorySpace);
  EXPECT_EQ(xpose::execute(cp, hin.data(), dout.p, nullptr, &why), status::kWrongMemorySpace);
  // 4-byte elements need 4-byte aligned pointers on the GPU.
  EXPECT_EQ(xpose::execute(gp, static_cast<char*>(din.p) + 1, dout.p, nullptr, &why), status::kMisaligned);
  EXPECT_EQ(xpose::execute(gp, din.p, static_cast<char*>(dout.p) + 2, nullptr, &why), status::kMisaligned);
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> after(bytes);
  CUDA_OK(cudaMemcpy(after.data(), dout.p, bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(after, before) << "a rejected execute wrote to the output";
  EXPECT_EQ(hout, before);
}

}  // namespace
