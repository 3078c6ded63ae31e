// cpu_blocked against the shared naive reference: shapes (tiny, odd, prime, narrow, tile-edge),
// leading dimensions and batch strides, element sizes 1..16, thread counts 1..3, random
// permutations of rank 3..8 with dense, padded and broadcast strides; outputs are poisoned and the
// whole output allocation is compared, so writes outside the logical region (padding, guards)
// show. The tile kernels of every instruction set are also checked one by one, and the loop nest
// (make_nest) on hand-made problems.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "cpu/blocked.hpp"
#include "cpu/microkernels.hpp"
#include "cpu/reference.hpp"
#include "plan/problem.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::backend;
using xpose::permute_desc;
using xpose::plan_options;
using xpose::status;
using xpose::transpose_desc;
using i64 = std::int64_t;

constexpr int kElemSizes[] = {1, 2, 4, 8, 16};
constexpr i64 kGuard = 64;  // poisoned bytes before and after every output region

// The tuning tables the tests' plans use: kAuto (the host's) but where a test names one.
xpose::cpu_tuning g_tuning = xpose::cpu_tuning::kAuto;

plan_options blocked(int threads) {
  return plan_options{.where = backend::kCpu, .variant = "cpu_blocked", .cpu_threads = threads, .tuning = g_tuning};
}

// Output span of a transpose, in elements.
i64 out_span(const transpose_desc& d) {
  const i64 ld = d.ld_out.value_or(d.rows), bs = d.batch_stride_out.value_or(d.cols * ld);
  return (d.batch - 1) * bs + (d.cols - 1) * ld + d.rows;
}
i64 in_span(const transpose_desc& d) {
  const i64 ld = d.ld_in.value_or(d.cols), bs = d.batch_stride_in.value_or(d.rows * ld);
  return (d.batch - 1) * bs + (d.rows - 1) * ld + d.cols;
}

// Spans of a permutation, in elements (dense layouts when the strides are empty).
i64 span(const std::vector<i64>& extents, std::vector<i64> strides) {
  if (strides.empty()) {
    i64 n = 1;
    for (i64 e : extents) n *= e;
    return n;
  }
  i64 s = 1;
  for (std::size_t k = 0; k < extents.size(); ++k) s += (extents[k] - 1) * strides[k];
  return s;
}
std::vector<i64> out_extents(const permute_desc& d) {
  std::vector<i64> e;
  for (int p : d.perm) e.push_back(d.extents[p]);
  return e;
}

// Runs `d` with cpu_blocked into a poisoned buffer (offset by `out_offset` bytes from a 64-byte
// boundary, with poisoned guards around it) and compares the whole buffer with the reference's.
// Returns an empty string on success, else what differed.
template <class Desc>
std::string check(const Desc& d, int threads, i64 in_elems, i64 out_elems, i64 out_offset = 0, i64 in_offset = 0,
                  std::string* summary = nullptr) {
  const i64 eb = d.elem_bytes;
  const i64 in_bytes = in_elems * eb, out_bytes = out_elems * eb;
  std::vector<unsigned char> in_buf(static_cast<std::size_t>(in_bytes + in_offset + 64)), out_buf, ref_buf;
  unsigned char* in = in_buf.data() + (64 - reinterpret_cast<std::uintptr_t>(in_buf.data()) % 64) % 64 + in_offset;
  xpose::test::fill_random(in, static_cast<std::size_t>(in_bytes), static_cast<std::uint64_t>(in_elems * 31 + eb));
  const std::size_t total = static_cast<std::size_t>(out_bytes + 2 * kGuard + out_offset + 64);
  out_buf.assign(total, xpose::test::kPoison);
  ref_buf.assign(total, xpose::test::kPoison);
  const i64 start = (64 - static_cast<i64>(reinterpret_cast<std::uintptr_t>(out_buf.data()) % 64)) % 64 + kGuard + out_offset;
  const i64 ref_start = (64 - static_cast<i64>(reinterpret_cast<std::uintptr_t>(ref_buf.data()) % 64)) % 64 + kGuard + out_offset;

  xpose::plan p;
  std::string why;
  if (status s = xpose::make_plan(d, blocked(threads), &p, &why); s != status::kSuccess)
    return std::string("make_plan: ") + xpose::status_name(s) + " " + why;
  if (summary) *summary = p.summary();
  if (status s = xpose::execute(p, in, out_buf.data() + start, nullptr, &why); s != status::kSuccess)
    return std::string("execute: ") + xpose::status_name(s) + " " + why;
  if constexpr (std::is_same_v<Desc, transpose_desc>)
    xpose::reference::transpose(d, in, ref_buf.data() + ref_start);
  else
    xpose::reference::permute(d, in, ref_buf.data() + ref_start);
  // Compare the region [start - kGuard, start + out_bytes + kGuard) of both buffers.
  const i64 bad = xpose::test::first_difference(out_buf.data() + start - kGuard, ref_buf.data() + ref_start - kGuard,
                                                static_cast<std::size_t>(out_bytes + 2 * kGuard));
  if (bad < 0) return "";
  const i64 off = bad - kGuard;
  return "first difference at output byte " + std::to_string(off) + (off < 0 || off >= out_bytes ? " (outside the output)" : "") +
         " | " + p.summary();
}

std::string check_transpose(const transpose_desc& d, int threads, i64 out_offset = 0, i64 in_offset = 0,
                            std::string* summary = nullptr) {
  return check(d, threads, in_span(d), out_span(d), out_offset, in_offset, summary);
}

std::string check_permute(const permute_desc& d, int threads, std::string* summary = nullptr) {
  return check(d, threads, span(d.extents, d.in_strides), span(out_extents(d), d.out_strides), 0, 0, summary);
}

permute_desc pdesc(std::vector<i64> extents, std::vector<int> perm, int eb) {
  permute_desc d;
  d.extents = std::move(extents);
  d.perm = std::move(perm);
  d.elem_bytes = eb;
  return d;
}

transpose_desc tdesc(i64 rows, i64 cols, int eb) {
  transpose_desc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_bytes = eb;
  return d;
}

// ------------------------------------------------------------------------------------------------
// The tile kernels, each instruction set the build and the CPU have, against the definition.

std::vector<const xpose::detail::cpu::kernel_table*> kernel_tables() {
  std::vector<const xpose::detail::cpu::kernel_table*> t{&xpose::detail::cpu::scalar_kernels()};
  __builtin_cpu_init();
  // (The CPU is asked first: each table's accessor is itself compiled for its instruction set, and
  // on a CPU without AVX-512 calling vbmi_kernels() stops the process on an illegal instruction.)
  if (__builtin_cpu_supports("avx2") && xpose::detail::cpu::avx2_kernels())
    t.push_back(xpose::detail::cpu::avx2_kernels());
  if (xpose::detail::cpu::vbmi_supported() && xpose::detail::cpu::vbmi_kernels()) {
    t.push_back(xpose::detail::cpu::vbmi_kernels());
    // The `amd` tuning's 1- and 2-byte tiles (narrow tiles of any length) as a table of their own.
    static const xpose::detail::cpu::kernel_table amd = [] {
      xpose::detail::cpu::kernel_table k = xpose::detail::cpu::tuned_kernels(xpose::cpu_tuning::kAmd);
      k.isa = "avx512vbmi (amd tuning)";
      return k;
    }();
    if (amd.tile[0] != t.back()->tile[0]) t.push_back(&amd);
  }
  return t;
}

TEST(CpuBlockedKernels, TilesMatchDefinitionAndStayInside) {
  std::mt19937_64 rng(6);
  for (const auto* kt : kernel_tables()) {
    for (int ei = 0; ei < 5; ++ei) {
      const i64 e = i64{1} << ei;
      for (int trial = 0; trial < 80; ++trial) {
        // The last 20 trials have input rows around kRowsFirstBytes (1 KiB), which the kernels walk
        // along their rows first (block shapes and edges of their own).
        const i64 rows = 1 + static_cast<i64>(rng() % 40),
                  cols = trial < 60 ? 1 + static_cast<i64>(rng() % 40) : 1000 / e + static_cast<i64>(rng() % 60);
        const i64 ldi = (cols + static_cast<i64>(rng() % 5)) * e + static_cast<i64>(rng() % 3) * (e == 1 ? 1 : 0);
        const i64 ldo = (rows + static_cast<i64>(rng() % 5)) * e;
        std::vector<unsigned char> in(static_cast<std::size_t>(rows * ldi)),
            out(static_cast<std::size_t>(cols * ldo + 2 * kGuard), xpose::test::kPoison), want = out;
        xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(trial));
        for (i64 i = 0; i < rows; ++i)
          for (i64 j = 0; j < cols; ++j)
            std::memcpy(&want[static_cast<std::size_t>(kGuard + j * ldo + i * e)], &in[static_cast<std::size_t>(i * ldi + j * e)],
                        static_cast<std::size_t>(e));
        kt->tile[ei](reinterpret_cast<const std::byte*>(in.data()), ldi, reinterpret_cast<std::byte*>(out.data() + kGuard),
                     ldo, rows, cols);
        ASSERT_EQ(xpose::test::first_difference(out.data(), want.data(), out.size()), -1)
            << kt->isa << " " << e << "-byte tile " << rows << "x" << cols << " ldi " << ldi << " ldo " << ldo;
      }
    }
    // Both long-copy read patterns (kernel_table::stream_copy_pieces): every length and
    // destination alignment around the 64-byte blocks, and lengths around whole groups of pieces.
    for (const auto copy : {kt->stream_copy, kt->stream_copy_pieces}) {
      if (!copy) continue;
      const char* name = copy == kt->stream_copy ? "stream_copy" : "stream_copy_pieces";
      std::vector<unsigned char> src(700), dst(900), want(900);
      xpose::test::fill_random(src.data(), src.size(), 3);
      for (std::size_t off = 0; off < 64; off += 7)
        for (std::size_t n = 0; n < 700; n += 13) {
          std::fill(dst.begin(), dst.end(), xpose::test::kPoison);
          want = dst;
          std::memcpy(want.data() + off + 64, src.data(), n);
          copy(reinterpret_cast<std::byte*>(dst.data() + off + 64), reinterpret_cast<const std::byte*>(src.data()), n);
          kt->stream_fence();
          ASSERT_EQ(xpose::test::first_difference(dst.data(), want.data(), dst.size()), -1) << name << " " << n << " at +" << off;
        }
      // Lengths around whole groups of four 4 KiB pieces (kCopyPieces), and several groups.
      std::vector<unsigned char> big_src(70000), big_dst(70200), big_want(70200);
      xpose::test::fill_random(big_src.data(), big_src.size(), 5);
      for (std::size_t off : {0, 1, 37, 63})
        for (std::size_t n : {16383, 16384, 16385, 16384 + 4096 + 65, 32768 + 1000, 65536, 70000 - 64}) {
          std::fill(big_dst.begin(), big_dst.end(), xpose::test::kPoison);
          big_want = big_dst;
          std::memcpy(big_want.data() + off + 64, big_src.data(), n);
          copy(reinterpret_cast<std::byte*>(big_dst.data() + off + 64), reinterpret_cast<const std::byte*>(big_src.data()), n);
          kt->stream_fence();
          ASSERT_EQ(xpose::test::first_difference(big_dst.data(), big_want.data(), big_dst.size()), -1)
              << name << " " << n << " at +" << off;
        }
    }
  }
}

// 4-byte tiles of at least 8 x 8 whose sides are not multiples of 8 run full 8x8 blocks only, the
// last of each side overlapping the one before (microkernels_avx2.cpp, `overlapped`): every such
// size up to 8 past a multiple, walked down columns (short input rows) and along rows (>= 1 KiB
// input rows), with padded strides; nothing outside the tile may be written.
TEST(CpuBlockedKernels, OverlappedEdgeBlocks4B) {
  for (const auto* kt : kernel_tables())
    for (i64 rows : {8, 9, 12, 15, 16, 17, 22, 23, 31})
      for (i64 cols : {8, 9, 13, 15, 17, 24, 30, 257, 263, 300}) {
        const i64 e = 4, ldi = (cols + 3) * e, ldo = (rows + 5) * e;
        std::vector<unsigned char> in(static_cast<std::size_t>(rows * ldi)),
            out(static_cast<std::size_t>(cols * ldo + 2 * kGuard), xpose::test::kPoison), want = out;
        xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(rows * 1000 + cols));
        for (i64 i = 0; i < rows; ++i)
          for (i64 j = 0; j < cols; ++j)
            std::memcpy(&want[static_cast<std::size_t>(kGuard + j * ldo + i * e)],
                        &in[static_cast<std::size_t>(i * ldi + j * e)], static_cast<std::size_t>(e));
        kt->tile[2](reinterpret_cast<const std::byte*>(in.data()), ldi, reinterpret_cast<std::byte*>(out.data() + kGuard),
                    ldo, rows, cols);
        ASSERT_EQ(xpose::test::first_difference(out.data(), want.data(), out.size()), -1)
            << kt->isa << " 4-byte tile " << rows << "x" << cols;
      }
}

// Edges narrower than the 8x8 (4-byte) or 4x4 (8-byte) block, on tiles that are not packed (the
// narrow kernels take those): 4- and 2-row (column) pieces, the last one overlapping, instead of
// masked moves; tiles with a side under the block walk the other side with an overlapped last
// block. The padding of each output row stays poisoned: a piece that stored past the edge fails.
TEST(CpuBlockedKernels, OverlappedNarrowEdgePieces) {
  for (const auto* kt : kernel_tables())
    for (int ei : {2, 3}) {
      const i64 e = i64{1} << ei;
      for (i64 rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 18, 19, 26})
        for (i64 cols : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 23, 26, 64, 261}) {
          const i64 ldi = (cols + 3) * e, ldo = (rows + 5) * e;
          std::vector<unsigned char> in(static_cast<std::size_t>(rows * ldi)),
              out(static_cast<std::size_t>(cols * ldo + 2 * kGuard), xpose::test::kPoison), want = out;
          xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(rows * 1000 + cols + 7 * e));
          for (i64 i = 0; i < rows; ++i)
            for (i64 j = 0; j < cols; ++j)
              std::memcpy(&want[static_cast<std::size_t>(kGuard + j * ldo + i * e)],
                          &in[static_cast<std::size_t>(i * ldi + j * e)], static_cast<std::size_t>(e));
          kt->tile[ei](reinterpret_cast<const std::byte*>(in.data()), ldi,
                       reinterpret_cast<std::byte*>(out.data() + kGuard), ldo, rows, cols);
          ASSERT_EQ(xpose::test::first_difference(out.data(), want.data(), out.size()), -1)
              << kt->isa << " " << e << "-byte tile " << rows << "x" << cols;
        }
    }
}

// Tiles with input rows of >= 1 KiB (kRowsFirstBytes) are walked along their rows first, with
// the 16x32 byte and 8x16 two-byte blocks; with and without 1 KiB-multiple input strides (the
// local line copy of the byte kernel), and ragged edges on both sides.
TEST(CpuBlockedKernels, LongRowTiles) {
  std::mt19937_64 rng(11);
  for (const auto* kt : kernel_tables()) {
    for (int ei = 0; ei < 5; ++ei) {
      const i64 e = i64{1} << ei;
      for (int trial = 0; trial < 12; ++trial) {
        const i64 rows = 1 + static_cast<i64>(rng() % 70);
        const i64 cols = (xpose::detail::cpu::kRowsFirstBytes + static_cast<i64>(rng() % 700)) / e + (trial % 3);
        const i64 ldi = trial % 2 ? (cols * e + 1023) / 1024 * 1024 + (trial % 4 == 1 ? 1024 : 0)
                                  : cols * e + static_cast<i64>(rng() % 3) * e;
        const i64 ldo = (rows + static_cast<i64>(rng() % 5)) * e;
        std::vector<unsigned char> in(static_cast<std::size_t>(rows * ldi)),
            out(static_cast<std::size_t>(cols * ldo + 2 * kGuard), xpose::test::kPoison), want = out;
        xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(trial + 100 * ei));
        for (i64 i = 0; i < rows; ++i)
          for (i64 j = 0; j < cols; ++j)
            std::memcpy(&want[static_cast<std::size_t>(kGuard + j * ldo + i * e)],
                        &in[static_cast<std::size_t>(i * ldi + j * e)], static_cast<std::size_t>(e));
        kt->tile[ei](reinterpret_cast<const std::byte*>(in.data()), ldi,
                     reinterpret_cast<std::byte*>(out.data() + kGuard), ldo, rows, cols);
        ASSERT_EQ(xpose::test::first_difference(out.data(), want.data(), out.size()), -1)
            << kt->isa << " " << e << "-byte long-row tile " << rows << "x" << cols << " ldi " << ldi << " ldo " << ldo;
      }
    }
  }
}

// Narrow tiles packed on the short side (the permute-and-blend / pshufb kernels): every short side
// 1..31 (17-31: the VBMI medium tiles, whose packed input is read a register past each group but
// never past the tile), both directions, long sides around the vector widths, every element size.
TEST(CpuBlockedKernels, NarrowPackedTiles) {
  for (const auto* kt : kernel_tables()) {
    for (int ei = 0; ei < 5; ++ei) {
      const i64 e = i64{1} << ei;
      for (i64 n = 1; n < 32; ++n)
        for (i64 m : {1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100}) {
          for (int dir = 0; dir < 2; ++dir) {
            const i64 rows = dir ? m : n, cols = dir ? n : m;
            const i64 ldi = dir ? cols * e : (cols + 3) * e, ldo = dir ? (rows + 5) * e : rows * e;
            std::vector<unsigned char> in(static_cast<std::size_t>(rows * ldi)),
                out(static_cast<std::size_t>(cols * ldo + 2 * kGuard), xpose::test::kPoison), want = out;
            xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(n * 1000 + m));
            for (i64 i = 0; i < rows; ++i)
              for (i64 j = 0; j < cols; ++j)
                std::memcpy(&want[static_cast<std::size_t>(kGuard + j * ldo + i * e)],
                            &in[static_cast<std::size_t>(i * ldi + j * e)], static_cast<std::size_t>(e));
            kt->tile[ei](reinterpret_cast<const std::byte*>(in.data()), ldi,
                         reinterpret_cast<std::byte*>(out.data() + kGuard), ldo, rows, cols);
            ASSERT_EQ(xpose::test::first_difference(out.data(), want.data(), out.size()), -1)
                << kt->isa << " " << e << "-byte narrow tile " << rows << "x" << cols << " ldi " << ldi << " ldo " << ldo;
          }
        }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// The loop nest.

xpose::detail::problem normalized(const permute_desc& d) {
  return xpose::detail::normalize(xpose::detail::to_problem(d));
}

TEST(CpuBlockedNest, TransposeTilesOverBothContiguousDims) {
  transpose_desc d = tdesc(100, 300, 4);
  const auto n = xpose::detail::cpu::make_nest(xpose::detail::normalize(xpose::detail::to_problem(d)));
  EXPECT_EQ(n.k, xpose::detail::cpu::blocked_nest::kind::kTiles);
  EXPECT_EQ(n.elem, 4);
  EXPECT_EQ(n.i.extent, 100);  // the output's fastest: rows
  EXPECT_EQ(n.j.extent, 300);
  EXPECT_EQ(n.i.out_stride, 4);
  EXPECT_EQ(n.j.in_stride, 4);
  EXPECT_EQ(n.outer_rank, 0);
}

TEST(CpuBlockedNest, ShortSharedRowIsFoldedIntoTheElement) {
  const permute_desc d = pdesc({30, 50, 4}, {1, 0, 2}, 4);
  const auto n = xpose::detail::cpu::make_nest(normalized(d));
  EXPECT_EQ(n.k, xpose::detail::cpu::blocked_nest::kind::kTiles);
  EXPECT_EQ(n.elem, 16);  // 4 f32 move as one 16-byte element
  EXPECT_EQ(n.i.extent, 30);
  EXPECT_EQ(n.j.extent, 50);
}

TEST(CpuBlockedNest, LongSharedRowIsARowCopy) {
  const permute_desc d = pdesc({30, 50, 256}, {1, 0, 2}, 4);
  const auto n = xpose::detail::cpu::make_nest(normalized(d));
  EXPECT_EQ(n.k, xpose::detail::cpu::blocked_nest::kind::kRows);
  EXPECT_EQ(n.elem, 1024);
  ASSERT_EQ(n.outer_rank, 2);
  EXPECT_EQ(n.outer[0].extent, 30);  // input order: the reads are sequential (make_nest says why)
  EXPECT_EQ(n.outer[1].extent, 50);
}

// Rows of kMinRowBytes up to kShortRowMaxBytes whose consecutive input rows go to different output
// runs (of at least kShortRowTileRun bytes) are folded into the element and tiled; not when the runs
// are short or the rows do not fan out (blocked.cpp, kShortRowMaxBytes).
TEST(CpuBlockedNest, ShortRowsThatFanOutAreTiles) {
  namespace c = xpose::detail::cpu;
  const auto a = c::make_nest(normalized(pdesc({300, 13, 19}, {1, 0, 2}, 16)));  // 304 B rows to 13 runs
  EXPECT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.elem, 304);
  EXPECT_EQ(a.i.extent, 300);
  EXPECT_EQ(a.j.extent, 13);
  EXPECT_EQ(c::make_nest(normalized(pdesc({7, 13, 19}, {1, 0, 2}, 16))).k, c::blocked_nest::kind::kRows);  // runs of 2128 B
  EXPECT_EQ(c::make_nest(normalized(pdesc({300, 13, 64}, {1, 0, 2}, 16))).k, c::blocked_nest::kind::kRows);  // 1 KiB rows
  permute_desc padded = pdesc({300, 13, 19}, {0, 1, 2}, 16);  // a copy of padded rows: no fan-out
  padded.in_strides = {13 * 20, 20, 1};
  EXPECT_EQ(c::make_nest(normalized(padded)).k, c::blocked_nest::kind::kRows);
}

TEST(CpuBlockedNest, CopyIsOneRow) {
  const permute_desc d = pdesc({30, 50, 7}, {0, 1, 2}, 2);
  const auto n = xpose::detail::cpu::make_nest(normalized(d));
  EXPECT_EQ(n.k, xpose::detail::cpu::blocked_nest::kind::kRows);
  EXPECT_EQ(n.elem, 30 * 50 * 7 * 2);
  EXPECT_EQ(n.outer_count(), 1);
}

TEST(CpuBlockedNest, OuterLoopsInnermostIsSmallestInputStride) {
  const permute_desc d = pdesc({600, 7, 8, 900}, {3, 2, 1, 0}, 4);
  const auto n = xpose::detail::cpu::make_nest(normalized(d));
  ASSERT_EQ(n.k, xpose::detail::cpu::blocked_nest::kind::kTiles);
  EXPECT_EQ(n.i.extent, 600);
  EXPECT_EQ(n.j.extent, 900);
  EXPECT_EQ(n.i_chain_rank + n.j_chain_rank, 0);
  ASSERT_EQ(n.outer_rank, 2);
  EXPECT_GT(n.outer[0].in_stride, n.outer[1].in_stride);
}

// Short tile axes go on along the dims that continue them contiguously.
TEST(CpuBlockedNest, ShortAxesGrowChains) {
  const auto a = xpose::detail::cpu::make_nest(normalized(pdesc({6, 7, 8, 9}, {3, 2, 1, 0}, 4)));
  EXPECT_EQ(a.i.extent, 6);
  ASSERT_EQ(a.i_chain_rank, 2);  // 6 -> 6*7 -> 6*7*8 elements, contiguous in the output
  EXPECT_EQ(a.i_chain[0].extent, 7);
  EXPECT_EQ(a.i_chain[1].extent, 8);
  EXPECT_EQ(a.i_chain_count(), 56);
  EXPECT_EQ(a.outer_rank, 0);

  // Both axes short: i (8 f32) goes on along the 18, j (5 f32) along the 19.
  const auto b = xpose::detail::cpu::make_nest(normalized(pdesc({817, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 4)));
  EXPECT_EQ(b.i.extent, 8);
  ASSERT_EQ(b.i_chain_rank, 1);
  EXPECT_EQ(b.i_chain[0].extent, 18);
  EXPECT_EQ(b.j.extent, 5);
  ASSERT_EQ(b.j_chain_rank, 1);
  EXPECT_EQ(b.j_chain[0].extent, 19);

  // One long axis and input rows of a line or more (17 f32 = 68 B): no chains (the narrow tile
  // shape serves it better).
  const auto c = xpose::detail::cpu::make_nest(normalized(pdesc({300, 5, 17}, {2, 1, 0}, 4)));
  EXPECT_EQ(c.i.extent, 300);
  EXPECT_EQ(c.j.extent, 17);
  EXPECT_EQ(c.i_chain_rank + c.j_chain_rank, 0);
}

// A long i axis with input rows shorter than a line: a j chain alone, grown to >= 128 B.
TEST(CpuBlockedNest, ShortInputRowsGrowAJChainAlone) {
  namespace c = xpose::detail::cpu;
  // j = 7 f32 (28 B), continued by the 5 (in stride 28 B): 140 B, past the 128 B target.
  const auto a = c::make_nest(normalized(pdesc({300, 5, 7}, {2, 1, 0}, 4)));
  ASSERT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.i.extent, 300);
  EXPECT_EQ(a.j.extent, 7);
  EXPECT_EQ(a.i_chain_rank, 0);
  ASSERT_EQ(a.j_chain_rank, 1);
  EXPECT_EQ(a.j_chain[0].extent, 5);
  EXPECT_EQ(a.j_chain[0].in_stride, 28);
  EXPECT_EQ(a.outer_rank, 0);
  // The 6 (24 B) goes on along the 7 (168 B) and stops there; the rest stay outer loops.
  const auto b = c::make_nest(normalized(pdesc({7262, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 4)));
  EXPECT_EQ(b.i.extent, 7262);
  EXPECT_EQ(b.j.extent, 6);
  EXPECT_EQ(b.i_chain_rank, 0);
  ASSERT_EQ(b.j_chain_rank, 1);
  EXPECT_EQ(b.j_chain[0].extent, 7);
  EXPECT_EQ(b.outer_count(), 22 * 5 * 2);
  // A continuing dim too long to take whole (83 x 28 B rows in tiles of 64 output elements pass the
  // 128 KiB chained-tile cap): split at the smallest block reaching 128 B (5 x 28 B), clipped when it
  // does not divide the extent (83 = 16 x 5 + 3).
  const auto d = c::make_nest(normalized(pdesc({300, 83, 7}, {2, 1, 0}, 4)));
  ASSERT_EQ(d.j_chain_rank, 1);
  EXPECT_EQ(d.j_chain[0].extent, 5);
  ASSERT_GE(d.j_split, 0);
  EXPECT_EQ(d.j_split_extent, 83);
  EXPECT_EQ(d.outer[d.j_split].extent, 17);
  // 53 of them (95 KiB) are taken whole.
  EXPECT_EQ(c::make_nest(normalized(pdesc({300, 53, 7}, {2, 1, 0}, 4))).j_chain[0].extent, 53);
  // 16 bytes x 3 (48 B) too; 16 bytes x 4 (64 B) not.
  EXPECT_EQ(c::make_nest(normalized(pdesc({300, 5, 3}, {2, 1, 0}, 16))).j_chain_rank, 1);
  EXPECT_EQ(c::make_nest(normalized(pdesc({300, 5, 4}, {2, 1, 0}, 16))).j_chain_rank, 0);
}

// A dim continuing a short axis but too long to take whole is split into blocks: the block ends
// the chain, the blocks' index stays an outer loop with the stride scaled.
TEST(CpuBlockedNest, LongChainDimsAreSplitIntoBlocks) {
  namespace c = xpose::detail::cpu;
  // f32 [16,201,168,85] reversal: i = 16 x 4 B = one line, j = 85 x 4 B.
  const auto a = c::make_nest(normalized(pdesc({16, 201, 168, 85}, {3, 2, 1, 0}, 4)));
  ASSERT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.i.extent, 16);
  EXPECT_EQ(a.j.extent, 85);
  ASSERT_EQ(a.i_chain_rank, 1);
  EXPECT_EQ(a.i_chain[0].extent, 4);  // 64 B -> 256 B, the first block reaching 256 B
  EXPECT_EQ(a.i_chain[0].out_stride, 16 * 4);
  ASSERT_EQ(a.j_chain_rank, 1);
  EXPECT_EQ(a.j_chain[0].extent, 4);  // 340 B -> 1360 B, the first block reaching 1 KiB
  EXPECT_EQ(a.j_chain[0].in_stride, 85 * 4);
  ASSERT_EQ(a.outer_rank, 2);
  EXPECT_EQ(a.outer_count(), 51 * 42);
  for (int k = 0; k < a.outer_rank; ++k) {  // the outer parts step over the inner ones
    if (a.outer[k].extent == 51) EXPECT_EQ(a.outer[k].out_stride, 16 * 4 * 4);
    if (a.outer[k].extent == 42) EXPECT_EQ(a.outer[k].in_stride, 85 * 4 * 4);
  }
  // Extents the blocks do not divide: the outer dims have ceil(N / f) blocks, the last one clipped.
  ASSERT_GE(a.i_split, 0);  // 201 = 50 x 4 + 1
  EXPECT_EQ(a.i_split_extent, 201);
  EXPECT_EQ(a.j_split, -1);  // 4 | 168: no block to clip
  const auto b = c::make_nest(normalized(pdesc({16, 200, 167, 85}, {3, 2, 1, 0}, 4)));
  ASSERT_EQ(b.i_chain_rank, 1);
  ASSERT_EQ(b.j_chain_rank, 1);
  EXPECT_EQ(b.i_chain[0].extent, 4);
  EXPECT_EQ(b.j_chain[0].extent, 4);
  EXPECT_EQ(b.i_split, -1);
  ASSERT_GE(b.j_split, 0);
  EXPECT_EQ(b.j_split_extent, 167);
  EXPECT_EQ(b.outer[b.j_split].extent, 42);  // ceil(167 / 4)
  EXPECT_EQ(b.outer[b.j_split].in_stride, 85 * 4 * 4);
}

// An i block grows past the first one reaching the target to the first whose output rows are
// whole lines (make_nest, "Whole-line i blocks").
TEST(CpuBlockedNest, IBlocksEndOnWholeLines) {
  namespace c = xpose::detail::cpu;
  // i8 [156,78,144,150] perm 3,1,0,2: i = 144 B; 2 x 144 = 288 B reaches 256 B but ends in half a
  // line; 4 x 144 = 576 B is 9 lines.
  const auto a = c::make_nest(normalized(pdesc({156, 78, 144, 150}, {3, 1, 0, 2}, 1)));
  ASSERT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.i.extent, 144);
  EXPECT_EQ(a.i_chain_count(), 4);
  EXPECT_EQ(a.i_split, -1);  // 4 | 156
  // f32 [23,201,168,85] reversal: i = 92 B; 3 x 92 = 276 B reaches 256 B, 16 x 92 = 1472 B is the
  // first whole-line block (23 lines); 16 does not divide 201, so the last block is clipped.
  const auto b = c::make_nest(normalized(pdesc({23, 201, 168, 85}, {3, 2, 1, 0}, 4)));
  ASSERT_EQ(b.i_chain_rank, 1);
  EXPECT_EQ(b.i_chain[0].extent, 16);
  ASSERT_GE(b.i_split, 0);
  EXPECT_EQ(b.outer[b.i_split].extent, 13);  // ceil(201 / 16)
  EXPECT_EQ(b.outer[b.i_split].out_stride, 23 * 16 * 4);
  // An i axis past the target off a line boundary goes on to the next whole-line block (second
  // step): f16 [78,78,144,150] perm 3,1,0,2 has i = 288 B (no chain before), now 2 x 288 = 576 B.
  const auto e = c::make_nest(normalized(pdesc({78, 78, 144, 150}, {3, 1, 0, 2}, 2)));
  EXPECT_EQ(e.i.extent, 144);
  EXPECT_EQ(e.i_chain_count(), 2);
  // ... but not along a dim the j chain has taken: f16 [1634,8,6,18,19,5] perm 2,5,0,4,3,1 keeps
  // its i chain x18 (288 B) and its j chain x19.
  const auto f = c::make_nest(normalized(pdesc({1634, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 2)));
  EXPECT_EQ(f.i_chain_count(), 18);
  EXPECT_EQ(f.j_chain_count(), 19);
  // Where no whole-line block fits the tile cap, the first block reaching the target stays: with
  // 100-element input rows, 16 x 92 B output rows would make a 144 KiB tile (cap 128 KiB).
  const auto d = c::make_nest(normalized(pdesc({23, 201, 168, 100}, {3, 2, 1, 0}, 4)));
  ASSERT_EQ(d.i_chain_rank, 1);
  EXPECT_EQ(d.i_chain[0].extent, 3);
}

// An empty j chain whose input rows are under 4 lines takes a pair of its dim even past the tile
// cap, up to twice (make_nest, "kShortJRowBytes"), where the i chain has filled the tile.
TEST(CpuBlockedNest, ShortJRowsTakeAPairPastTheCap) {
  namespace c = xpose::detail::cpu;
  // i8 [92,201,168,85] reversal: i chain x16 (1472 B rows) x 85 B input rows is 125 KiB, so the 168
  // fits no block under the 128 KiB cap; a pair of it makes 170 B input rows (250 KiB).
  const auto a = c::make_nest(normalized(pdesc({92, 201, 168, 85}, {3, 2, 1, 0}, 1)));
  ASSERT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.i_chain_count(), 16);
  ASSERT_EQ(a.j_chain_rank, 1);
  EXPECT_EQ(a.j_chain[0].extent, 2);
  EXPECT_EQ(a.j_split, -1);  // 2 | 168
  // f16: the same rows of 170 B.
  const auto b = c::make_nest(normalized(pdesc({46, 201, 168, 85}, {3, 2, 1, 0}, 2)));
  EXPECT_EQ(b.i_chain_count(), 16);
  EXPECT_EQ(b.j_chain_count(), 2);
  // f32 rows of 340 B stay alone.
  const auto f = c::make_nest(normalized(pdesc({23, 201, 168, 85}, {3, 2, 1, 0}, 4)));
  EXPECT_EQ(f.j_chain_count(), 1);
  // An odd dim: the last pair is clipped (9 = 4 x 2 + 1), and the tiles run correctly.
  const auto d = c::make_nest(normalized(pdesc({92, 20, 9, 85}, {3, 2, 1, 0}, 1)));
  EXPECT_EQ(d.j_chain_count(), 2);
  EXPECT_GE(d.j_split, 0);
  for (int threads : {1, 2, 3})
    for (const auto& ext : {std::vector<i64>{92, 20, 9, 85}, std::vector<i64>{92, 33, 10, 85}}) {
      std::string summary;
      ASSERT_EQ(check_permute(pdesc(ext, {3, 2, 1, 0}, 1), threads, &summary), "") << summary;
    }
}

// An i chain that would overshoot its target by taking a long dim whole takes a block of it
// instead, for 1- and 2-byte elements, where that lets the j chain grow at least 4 times longer
// (make_nest, "kShortChainGain").
TEST(CpuBlockedNest, ShortElementsTradeIChainForJChain) {
  namespace c = xpose::detail::cpu;
  // i8 [16,8,8,16,32] reversal: i = 16 B; the 8 takes it to 128 B, the next 8 whole would reach
  // 1 KiB for a 256 B target. A block of 2 (256 B) leaves the j chain 16 x 32 B instead of 4 x.
  const auto a = c::make_nest(normalized(pdesc({16, 8, 8, 16, 32}, {4, 3, 2, 1, 0}, 1)));
  ASSERT_EQ(a.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(a.i.extent, 16);
  EXPECT_EQ(a.j.extent, 32);
  EXPECT_EQ(a.i_chain_count(), 16);
  EXPECT_EQ(a.j_chain_count(), 16);
  EXPECT_EQ(a.i_split_extent, 8);  // the block of the second 8
  // The same layout in f32 keeps the whole dim (smaller i chains lost there).
  const auto b = c::make_nest(normalized(pdesc({4, 8, 8, 16, 32}, {4, 3, 2, 1, 0}, 4)));
  EXPECT_EQ(b.i_chain_count(), 64);
  // Where the j chain cannot gain 4 times, bytes keep the whole dim too: the input's fastest dim is
  // continued by nothing (the 7 goes to the output's side).
  const auto d = c::make_nest(normalized(pdesc({1612, 7, 6, 9, 22, 10, 2}, {6, 0, 5, 3, 1, 2, 4}, 1)));
  EXPECT_EQ(d.i_chain_count(), 42);
  // Where neither the whole dim nor a block of it leaves the j chain anything, the i chain stops
  // before it once its rows are a line long (kStopChainMinOutBytes): i8 [3268,8,6,18,19,5] perm
  // 2,5,0,4,3,1 has i = 8 B, the 18 takes it to 144 B, and the 19 goes to the j chain (5 B -> 95 B
  // input rows) instead of to the i chain (2736 B output rows, 5 B input rows).
  const auto e = c::make_nest(normalized(pdesc({3268, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1)));
  EXPECT_EQ(e.i_chain_count(), 18);
  EXPECT_EQ(e.j_chain_count(), 19);
  EXPECT_EQ(e.i_split, -1);
  EXPECT_EQ(e.j_split, -1);
  // ... but not into i rows under a line: [124,23,14,4,15,11,10] perm 3,1,6,0,4,5,2 keeps its i chain.
  const auto f = c::make_nest(normalized(pdesc({124, 23, 14, 4, 15, 11, 10}, {3, 1, 6, 0, 4, 5, 2}, 1)));
  EXPECT_EQ(f.i_chain_count(), 165);
  EXPECT_EQ(f.j_chain_count(), 1);
}

// ------------------------------------------------------------------------------------------------
// 2-D transposes.

TEST(CpuBlocked, AutoPicksItOnTheCpu) {
  xpose::plan p;
  ASSERT_EQ(xpose::make_plan(tdesc(64, 64, 4), plan_options{.where = backend::kCpu}, &p), status::kSuccess);
  EXPECT_EQ(p.variant(), "cpu_blocked");
}

TEST(CpuBlocked, ShapesElementSizesThreads) {
  const std::pair<i64, i64> shapes[] = {{1, 1},    {1, 7},   {7, 1},   {2, 3},     {5, 5},    {8, 8},    {16, 16},
                                        {17, 31},  {31, 17}, {64, 64}, {65, 63},   {127, 129}, {1, 1000}, {1000, 1},
                                        {3, 4000}, {4000, 3}, {13, 997}, {997, 13}, {129, 1031}, {256, 300}};
  for (const auto& [r, c] : shapes)
    for (int eb : kElemSizes)
      for (int threads : {1, 2, 3})
        ASSERT_EQ(check_transpose(tdesc(r, c, eb), threads), "") << r << "x" << c << " " << eb << "B " << threads << " threads";
}

TEST(CpuBlocked, NarrowShapes) {
  for (int eb : kElemSizes)
    for (i64 small : {2, 3, 4, 5, 7, 9, 15})
      for (int threads : {1, 3}) {
        ASSERT_EQ(check_transpose(tdesc(small, 40000 + small, eb), threads), "") << small << "xN " << eb << "B";
        ASSERT_EQ(check_transpose(tdesc(40000 + small, small, eb), threads), "") << "Nx" << small << " " << eb << "B";
      }
}

TEST(CpuBlocked, LeadingDimsAndBatchStrides) {
  std::mt19937_64 rng(61);
  for (int trial = 0; trial < 40; ++trial)
    for (int eb : kElemSizes) {
      transpose_desc d = tdesc(1 + static_cast<i64>(rng() % 150), 1 + static_cast<i64>(rng() % 150), eb);
      d.ld_in = d.cols + static_cast<i64>(rng() % 9);
      d.ld_out = d.rows + static_cast<i64>(rng() % 9);
      d.batch = 1 + static_cast<i64>(rng() % 4);
      if (trial % 2) {
        d.batch_stride_in = d.rows * *d.ld_in + static_cast<i64>(rng() % 50);
        d.batch_stride_out = d.cols * *d.ld_out + static_cast<i64>(rng() % 50);
      }
      const int threads = 1 + trial % 3;
      ASSERT_EQ(check_transpose(d, threads, static_cast<i64>(rng() % 4) * eb), "")
          << "trial " << trial << " " << d.rows << "x" << d.cols << " ld " << *d.ld_in << "/" << *d.ld_out << " batch "
          << d.batch << " " << eb << "B";
    }
}

// Outputs of >= 4 MiB take the streaming-store path; misaligned pointers and padded rows test
// its alignment logic (tiles start at output cache-line boundaries when every row shares one).
TEST(CpuBlocked, LargeStreamingOutputs) {
  struct big {
    transpose_desc d;
    i64 out_offset, in_offset;
  };
  std::vector<big> cases;
  cases.push_back({tdesc(2048, 2048, 4), 0, 0});
  cases.push_back({tdesc(2048, 2048, 4), 16, 4});  // glibc's large blocks start 16 bytes into a page
  cases.push_back({tdesc(2051, 2049, 4), 8, 0});
  transpose_desc padded = tdesc(2000, 2100, 4);
  padded.ld_out = 2016;
  padded.ld_in = 2101;
  cases.push_back({padded, 48, 0});
  cases.push_back({tdesc(4100, 4097, 1), 1, 3});
  cases.push_back({tdesc(4096, 4096, 1), 16, 0});  // 1 KiB-multiple input strides: staged input lines
  cases.push_back({tdesc(2048, 4096, 2), 16, 2});
  cases.push_back({tdesc(1030, 1029, 16), 16, 0});
  cases.push_back({tdesc(3, 1500000, 4), 4, 0});  // narrow: the tile's output rows are one contiguous run
  cases.push_back({tdesc(1500000, 3, 4), 0, 0});
  // Narrow bytes with whole-line output rows: tiles of a budget / 3 elements end mid-line unless
  // rounded to lines (40,000,000 x 3 i8 came out wrong).
  cases.push_back({tdesc(2000000, 3, 1), 0, 0});
  cases.push_back({tdesc(1000000, 5, 1), 16, 1});
  cases.push_back({tdesc(1048576, 5, 1), 0, 0});
  cases.push_back({tdesc(1000000, 3, 2), 0, 0});
  // Large tiles with ragged macro blocks (kMacroBytes) and tile edges on both sides, 1 KiB-multiple
  // input strides for bytes and halves, handed out in chunks to 3 threads below.
  cases.push_back({tdesc(3001, 1500, 4), 0, 0});
  cases.push_back({tdesc(1100, 1700, 8), 8, 8});
  cases.push_back({tdesc(2500, 2100, 1), 0, 0});
  transpose_desc bytes_aliased = tdesc(2500, 2000, 1);
  bytes_aliased.ld_in = 4096;
  cases.push_back({bytes_aliased, 16, 0});
  transpose_desc halves_aliased = tdesc(2100, 1500, 2);
  halves_aliased.ld_in = 2048;
  cases.push_back({halves_aliased, 0, 2});
  for (const auto& c : cases) {
    std::string summary;
    ASSERT_EQ(check_transpose(c.d, 3, c.out_offset, c.in_offset), "")
        << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << "B +" << c.out_offset << " 3 threads";
    ASSERT_EQ(check_transpose(c.d, 2, c.out_offset, c.in_offset, &summary), "")
        << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << "B +" << c.out_offset;
    if (xpose::detail::cpu::active_kernels().stream_copy) {
      EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
    }
  }
}

// kernel_table::stream_split_lines against its definition, bytes and halves: each output row (W k + q,
// W = 4 / e, part q of buffer row k's words) gets exactly the lines stream_lines would stream for it,
// from its first line boundary through the line holding byte len - 1; rows at one line offset (one
// loop for all W) and at differing ones, lengths under a line, ragged and whole; nothing else is
// written.
TEST(CpuBlockedKernels, StreamSplitLines) {
  const auto& kt = xpose::detail::cpu::active_kernels();
  if (!kt.stream_split_lines) GTEST_SKIP() << "no stream_split_lines on this CPU's kernel table (" << kt.isa << ")";
  for (i64 e : {1, 2})
    for (i64 rows : {1, 3})
      for (i64 len : {2, 62, 64, 190, 256, 1026})
        for (i64 off : {0, 2, 30, 62})  // bytes from a line boundary to the first output row
          for (i64 skew : {0, 2, 34}) {  // the output stride's bytes past whole lines
            const i64 w = 4 / e, ldo = (len + 63) / 64 * 64 + 128 + skew, ldb = w * ((len + 63) / 64 * 64 + 64);
            std::vector<unsigned char> buf(static_cast<std::size_t>(rows * ldb));
            xpose::test::fill_random(buf.data(), buf.size(), static_cast<std::uint64_t>(len * 7 + off + skew + e));
            std::vector<unsigned char> mem(static_cast<std::size_t>(w * rows * ldo + 192), xpose::test::kPoison);
            unsigned char* out = mem.data() + (64 - reinterpret_cast<std::uintptr_t>(mem.data()) % 64) % 64 + off;
            kt.stream_split_lines(reinterpret_cast<std::byte*>(out), ldo, reinterpret_cast<const std::byte*>(buf.data()),
                                  ldb, rows, len, e);
            kt.stream_fence();
            for (i64 r = 0; r < w * rows; ++r) {
              const auto row = reinterpret_cast<std::uintptr_t>(out + r * ldo);
              const i64 first = static_cast<i64>((64 - row % 64) % 64);
              const i64 end = len > first ? first + (len - first + 63) / 64 * 64 : first;
              for (i64 b = 0; b < ldo; ++b) {
                // Byte b of output row r: element b / e of the row, part r % w of word b / e of buffer row r / w.
                const auto at = static_cast<std::size_t>((r / w) * ldb + 4 * (b / e) + e * (r % w) + b % e);
                const unsigned char want = b >= first && b < end ? buf[at] : xpose::test::kPoison;
                ASSERT_EQ(out[r * ldo + b], want) << e << " B, " << rows << " rows, len " << len << ", offset " << off
                                                  << ", skew " << skew << ", row " << r << " byte " << b;
              }
            }
          }
}

// kernel_table::unzip_stream against its definition: 1-, 2-, 4- and 8-byte elements, every channel
// count it takes, counts over its two-piece blocks, its single groups and its masked ends, output
// rows padded past the count, at one line offset or at differing ones; nothing past each row's count
// is written.
TEST(CpuBlockedKernels, UnzipStream) {
  namespace cpu = xpose::detail::cpu;
  const auto& kt = cpu::active_kernels();
  if (!kt.unzip_stream) GTEST_SKIP() << "no unzip_stream on this CPU's kernel table (" << kt.isa << ")";
  for (i64 e : {1, 2, 4, 8})
    for (i64 n = cpu::kUnzipMinChannels; n <= cpu::kUnzipMaxChannels; ++n) {
      const i64 block = cpu::kUnzipPieces * cpu::kUnzipPieceBytes / e, w = 64 / e;
      for (i64 count : {i64{1}, w - 1, w, 3 * w + 5, block, block + w + 3, 3 * block - 1})
        for (i64 skew : {0, 1, 5}) {  // output rows skew elements past whole lines apart; out skew elements in
        const i64 ldo = (count * e + 63) / 64 * 64 + 128 + skew * e;  // bytes: at least two spare lines a row
        std::vector<unsigned char> in(static_cast<std::size_t>(count * n * e));
        xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(count * 131 + n * 7 + e));
        std::vector<unsigned char> buf(static_cast<std::size_t>(n * ldo + 128), xpose::test::kPoison);
        unsigned char* out = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 + skew * e;
        kt.unzip_stream(reinterpret_cast<const std::byte*>(in.data()), reinterpret_cast<std::byte*>(out), ldo, n, e,
                        count);
        kt.stream_fence();
        for (i64 c = 0; c < n; ++c)
          for (i64 b = 0; b < ldo; ++b) {
            const unsigned char want = b < count * e ? in[((b / e) * n + c) * e + b % e] : xpose::test::kPoison;
            ASSERT_EQ(out[c * ldo + b], want) << e << " B, " << n << " channels, count " << count << ", skew "
                                              << skew << ", row " << c << " byte " << b;
          }
      }
    }
}

// A transpose that the narrow kernels (run_unzip, run_zip) should or should not take, and a check of
// a list of them against the reference with 1-3 threads: `takes` when the plan summary holds
// `marker` (and the kernel table has the kernel, `has`).
// d as a batch of `batch` matrices, batch strides (elements) given where not 0.
transpose_desc batched(transpose_desc d, i64 batch, i64 stride_in = 0, i64 stride_out = 0) {
  d.batch = batch;
  if (stride_in) d.batch_stride_in = stride_in;
  if (stride_out) d.batch_stride_out = stride_out;
  return d;
}
struct narrow_case {
  transpose_desc d;
  i64 out_offset;
  bool takes;
};
void check_narrow_cases(const std::vector<narrow_case>& cases, const char* marker, bool has) {
  for (const auto& c : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_transpose(c.d, threads, c.out_offset, 0, &summary), "")
          << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << " B +" << c.out_offset << ", " << threads
          << " threads";
      EXPECT_EQ(summary.find(marker) != std::string::npos, has && c.takes) << summary;
    }
}

// kernel_table::zip_stream against its definition: 1-, 2-, 4- and 8-byte elements, every channel
// count, counts of a few groups, of whole blocks and ragged, input rows padded, the output at line
// boundaries and off them (masked heads); nothing past the output is written.
TEST(CpuBlockedKernels, ZipStream) {
  namespace cpu = xpose::detail::cpu;
  const auto& kt = cpu::active_kernels();
  if (!kt.zip_stream) GTEST_SKIP() << "no zip_stream on this CPU's kernel table (" << kt.isa << ")";
  for (i64 e : {1, 2, 4, 8})
    for (i64 n = cpu::kUnzipMinChannels; n <= cpu::kUnzipMaxChannels; ++n) {
      const i64 w = 64 / e;
      for (i64 count : {i64{1}, w - 1, w, 3 * w + 5, 8192 / e + 3})
        for (i64 skew : {0, 1, 3}) {  // the output skew elements past a line; input rows padded by it
          const i64 ldi = count * e + 64 + skew * e;
          std::vector<unsigned char> in(static_cast<std::size_t>(n * ldi));
          xpose::test::fill_random(in.data(), in.size(), static_cast<std::uint64_t>(count * 17 + n * 5 + e + skew));
          const i64 bytes = count * n * e;
          std::vector<unsigned char> buf(static_cast<std::size_t>(bytes + 256), xpose::test::kPoison);
          unsigned char* out = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 + 64 + skew * e;
          kt.zip_stream(reinterpret_cast<const std::byte*>(in.data()), ldi, reinterpret_cast<std::byte*>(out), n, e,
                        count);
          kt.stream_fence();
          for (i64 b = -64; b < bytes + 64; ++b) {
            const i64 el = b / e, j = el / n, c = el % n;
            const unsigned char want = b >= 0 && b < bytes ? in[c * ldi + j * e + b % e] : xpose::test::kPoison;
            ASSERT_EQ(out[b], want) << e << " B, " << n << " channels, count " << count << ", skew " << skew
                                    << ", output byte " << b;
          }
        }
    }
}

// The zips (3 x 40,000,000 -> 40,000,000 x 3; NCHW -> NHWC with 2-7 channels) go to zip_stream
// (blocked.cpp, run_zip) where the kernel table has it: 1- to 8-byte elements, outputs on and off
// line boundaries, padded input rows, batches (strided ones too), 1-3 threads; input rows under a
// piece and more channels than it takes keep the tiles.
TEST(CpuBlocked, NarrowZips) {
  std::vector<narrow_case> cases;
  for (int e : {1, 2, 4, 8})
    for (i64 n : {2, 3, 7}) {
      const i64 cols = 4200007 / (n * e) + 3;  // an output of over 4 MiB (kStreamMinBytes)
      cases.push_back({tdesc(n, cols, e), 0, true});
      cases.push_back({tdesc(n, cols, e), e, true});
    }
  transpose_desc padded = tdesc(3, 700001, 8);
  padded.ld_in = 700011;
  cases.push_back({padded, 16, true});
  cases.push_back({batched(tdesc(3, 50001, 1), 30), 1, true});  // uint8 images, NCHW -> NHWC
  cases.push_back({batched(tdesc(5, 60000, 4), 4, 5 * 60000 + 7, 5 * 60000 + 3), 4, true});
  cases.push_back({batched(tdesc(3, 1000, 4), 400), 0, false});
  cases.push_back({tdesc(8, 600000, 4), 0, false});
  check_narrow_cases(cases, "; zip of", xpose::detail::cpu::active_kernels().zip_stream != nullptr);
}

// Plain transposes whose input rows are 2-7 packed elements of 1, 2, 4 or 8 bytes go to unzip_stream
// (blocked.cpp, run_unzip) where the kernel table has it: outputs at a line boundary, an element
// past it, off by a non-multiple of the element (the tiles instead), padded output rows, output
// rows at differing line offsets, batches (strided ones too), 1-3 threads (shares of its blocks,
// the last one partial); more channels than it takes and rows shorter than its pieces keep the
// tiles.
TEST(CpuBlocked, NarrowUnzips) {
  std::vector<narrow_case> cases;
  for (int e : {1, 2, 4, 8})
    for (i64 n : {2, 3, 5, 7}) {
      // Outputs of over 4 MiB (kStreamMinBytes), rows whole lines apart (a multiple of 64 elements).
      const i64 rows = (4200007 / (n * e) / 64 + 1) * 64;
      cases.push_back({tdesc(rows, n, e), 0, true});
      cases.push_back({tdesc(rows, n, e), e, true});
    }
  cases.push_back({tdesc(1400000, 3, 4), 2, true});  // (planned so; run by the tiles)
  cases.push_back({tdesc(600000, 8, 4), 0, false});    // more channels than it takes
  transpose_desc padded = tdesc(700001, 3, 8);
  padded.ld_out = 700008;  // 5,600,064 B: whole lines
  cases.push_back({padded, 16, true});
  transpose_desc ragged = tdesc(700001, 3, 8);
  ragged.ld_out = 700003;
  cases.push_back({ragged, 0, true});
  cases.push_back({ragged, 24, true});
  // Dense, output rows at differing line offsets (a row of 1,400,012 / 1,400,024 B).
  cases.push_back({tdesc(350003, 3, 4), 0, true});
  cases.push_back({tdesc(175003, 3, 8), 8, true});
  // Batches (NHWC -> NCHW with a few channels): dense with odd rows, padded batch strides, and rows
  // shorter than a piece (the tiles).
  cases.push_back({batched(tdesc(120011, 3, 4), 3), 4, true});
  cases.push_back({batched(tdesc(60000, 5, 8), 2, 5 * 60000 + 5, 5 * 60000 + 3), 0, true});
  cases.push_back({batched(tdesc(50001, 3, 1), 30), 1, true});  // uint8 images, NHWC -> NCHW
  cases.push_back({tdesc(1400003, 3, 2), 2, true});
  cases.push_back({tdesc(1400003, 3, 2), 1, true});  // (planned so; run by the tiles)
  cases.push_back({batched(tdesc(1000, 3, 4), 400), 0, false});
  check_narrow_cases(cases, "unzip of", xpose::detail::cpu::active_kernels().unzip_stream != nullptr);
}

// A batched transpose against the reference (check_transpose), the case named on failure; returns
// the plan's summary.
std::string check_batch(const transpose_desc& d, int threads, i64 out_offset, i64 in_offset) {
  std::string summary;
  EXPECT_EQ(check_transpose(d, threads, out_offset, in_offset, &summary), "")
      << d.rows << "x" << d.cols << " x" << d.batch << " " << d.elem_bytes << "B +" << out_offset << " " << threads
      << " threads | " << summary;
  return summary;
}

// Batches of whole small matrices stream each tile's output as one run (run_tiles' kContiguous);
// tiles under kContiguousGroupTileBytes whose outputs follow one another are gathered in the
// staging buffer and streamed together (kContiguousGroupBytes). Outputs off line boundaries,
// matrices whose output is under a line, just under the tile bound or over it (streamed alone),
// 1-3 threads (so groups also break where a thread's chunk of tiles ends).
TEST(CpuBlocked, ContiguousTilesStreamInGroups) {
  struct c {
    transpose_desc d;
    i64 out_offset, in_offset;
  };
  auto batched = [](i64 rows, i64 cols, int eb, i64 batch) {
    transpose_desc d = tdesc(rows, cols, eb);
    d.batch = batch;
    return d;
  };
  const c cases[] = {
      {batched(174, 3, 1, 40000), 0, 0},  {batched(174, 3, 1, 40000), 5, 3}, {batched(107, 52, 1, 3000), 1, 0},
      {batched(5, 7, 2, 300000), 6, 2},   {batched(174, 3, 4, 10000), 4, 0}, {batched(300, 700, 4, 30), 12, 4},
      {batched(40, 9, 8, 20000), 8, 0},   {batched(60, 16, 2, 5000), 2, 0},  {batched(31, 9, 4, 40000), 20, 8},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      const std::string summary = check_batch(k.d, threads, k.out_offset, k.in_offset);
      if (xpose::detail::cpu::active_kernels().stream_copy) {
        EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
      }
    }
}

// Batches of byte and half matrices whose output rows are contiguous and at most 2 KiB
// (kWholeOutRowsMaxBytes): tiles of whole output rows by 16 input columns, each tile's output one
// streamed block. Column counts that are not a multiple of 16 (a short last tile), odd row lengths,
// misaligned pointers, 1-3 threads; and the shapes that keep their tiles (rows over 2 KiB, padded
// output rows).
TEST(CpuBlocked, WholeOutputRowTiles) {
  struct c {
    transpose_desc d;
    i64 out_offset, in_offset;
    const char* tile;  // the plan's tile, or null: not whole output rows by 16
  };
  auto batched = [](i64 rows, i64 cols, int eb, i64 batch, i64 ld_out = 0) {
    transpose_desc d = tdesc(rows, cols, eb);
    d.batch = batch;
    if (ld_out) d.ld_out = ld_out;
    return d;
  };
  const c cases[] = {
      {batched(1024, 128, 1, 40), 0, 0, "1024x16 tiles"},  {batched(1024, 128, 1, 40), 5, 3, "1024x16 tiles"},
      {batched(2048, 100, 1, 24), 0, 1, "2048x16 tiles"},  {batched(333, 200, 1, 80), 63, 0, "333x16 tiles"},
      {batched(700, 77, 2, 50), 2, 4, "700x16 tiles"},     {batched(1024, 130, 2, 20), 0, 0, "1024x16 tiles"},
      {batched(1025, 64, 2, 40), 0, 0, nullptr},           {batched(2049, 64, 1, 40), 0, 0, nullptr},
      {batched(1024, 128, 1, 40, 1088), 0, 0, nullptr},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      const std::string summary = check_batch(k.d, threads, k.out_offset, k.in_offset);
      if (k.tile)
        EXPECT_NE(summary.find(k.tile), std::string::npos) << summary;
      else
        EXPECT_EQ(summary.find("x16 tiles"), std::string::npos) << summary;
    }
}

// Matrices of 2- to 16-byte elements whose output rows are contiguous and at most 512 B
// (kWholeOutRowsWideMaxBytes): tiles of whole output rows. Odd extents, misaligned pointers, a batch,
// 1-3 threads; a padded output, and rows of 1 KiB, keep part-row tiles.
TEST(CpuBlocked, WholeOutputRowWideTiles) {
  struct c {
    transpose_desc d;
    i64 out_offset, in_offset;
    const char* tile;  // the plan's tile starts with it, or null: not whole output rows
  };
  transpose_desc batch = tdesc(128, 9000, 4);
  batch.batch = 4;
  transpose_desc padded = tdesc(128, 40000, 4);
  padded.ld_out = 136;
  const c cases[] = {
      {tdesc(128, 40000, 4), 0, 0, "128x"}, {tdesc(128, 40000, 4), 4, 8, "128x"}, {tdesc(120, 30001, 4), 0, 0, "120x"},
      {tdesc(64, 40000, 8), 8, 0, "64x"},   {tdesc(32, 20000, 16), 0, 16, "32x"}, {batch, 0, 4, "128x"},
      {tdesc(200, 30000, 2), 2, 6, "200x"},
      {padded, 0, 0, nullptr},              {tdesc(256, 20000, 4), 0, 0, nullptr},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      const std::string summary = check_batch(k.d, threads, k.out_offset, k.in_offset);
      const std::string whole = std::to_string(k.d.rows) + "x";
      if (k.tile)
        EXPECT_NE(summary.find(std::string("; ") + k.tile), std::string::npos) << summary;
      else
        EXPECT_EQ(summary.find("; " + whole), std::string::npos) << summary;
    }
}

// Short rows that fan out (kShortRowMaxBytes) and folded rows from kShortRowMinBytes: tiles of one
// output run's 4 KiB each, the reference's bytes at 1-3 threads, streamed (large) or not, rows of
// whole lines or not; padded input rows stay row copies.
TEST(CpuBlocked, ShortRowsThatFanOutTileOneRunEach) {
  struct c {
    permute_desc d;
    const char* tile;
  };
  permute_desc strided = pdesc({3000, 7, 75}, {1, 0, 2}, 4);
  strided.in_strides = {7 * 80, 80, 1};
  const c cases[] = {
      {pdesc({4000, 13, 19}, {1, 0, 2}, 16), "14x1 tiles of 304 B"},  // 15.8 MB: streamed
      {pdesc({300, 13, 19}, {1, 0, 2}, 16), "14x1 tiles of 304 B"},
      {pdesc({3000, 7, 75}, {1, 0, 2}, 4), "14x1 tiles of 300 B"},
      {pdesc({1000, 9, 24}, {1, 0, 2}, 16), "11x1 tiles of 384 B"},
      {pdesc({40, 23, 7, 110}, {2, 0, 1, 3}, 8), "5x1 tiles of 880 B"},
      {strided, "rows of 300 B"},  // input rows apart (padded): not measured, rows as before
      // Folded rows of kShortRowMinBytes (80 B) and more: one run a tile too.
      {pdesc({3000, 29, 5}, {1, 0, 2}, 16), "48x1 tiles of 80 B"},
      {pdesc({2000, 9, 23}, {1, 0, 2}, 8), "16x1 tiles of 184 B"},
      // ... at aliasing strides too from kShortRowAliasedMinBytes (192 B rows 12 KiB apart).
      {pdesc({20, 30, 64, 24}, {0, 2, 1, 3}, 8), "16x1 tiles of 192 B"},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_permute(k.d, threads, &summary), "") << summary;
      EXPECT_NE(summary.find(k.tile), std::string::npos) << summary;
    }
  // Not: folded rows under 80 B, rows under 192 B a multiple of kAliasingStride apart, runs under 4 KiB.
  for (const permute_desc& d : {pdesc({3000, 15, 19}, {1, 0, 2}, 4), pdesc({2, 256, 256, 8}, {0, 2, 1, 3}, 16),
                                pdesc({20, 29, 5}, {1, 0, 2}, 16)}) {
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << summary;
    EXPECT_EQ(summary.find("x1 tiles of"), std::string::npos) << summary;
  }
}

// The reference's bytes at 1-3 threads, and whether each plan's summary carries `mark`.
void expect_summary_mark(const permute_desc& d, const char* mark, bool expected) {
  for (int threads : {1, 2, 3}) {
    std::string summary;
    ASSERT_EQ(check_permute(d, threads, &summary), "") << summary;
    EXPECT_EQ(summary.find(mark) != std::string::npos, expected) << mark << ": " << summary;
  }
}

// Streamed tiles of short input rows prefetch the next tile's input (prefetches_next_tile): rows
// apart in the input, or tiles whose output is one block; rows closer than a line as one span (the
// 6-byte rows). Not: rows side by side written by lines, rows under a line far apart, folded
// elements of other sizes, chained tiles. The reference's bytes at 1-3 threads either way.
TEST(CpuBlocked, ShortRowTilesPrefetchTheNextTile) {
  struct c {
    permute_desc d;
    bool prefetched;  // the plan summary says so
  };
  const c cases[] = {
      {pdesc({3, 61, 107, 52}, {0, 1, 3, 2}, 8), true},    // whole 107 x 52 matrices, one block out
      {pdesc({1100, 174, 3}, {0, 2, 1}, 8), true},         // 24-byte rows side by side: one span
      {pdesc({5000, 184, 6}, {0, 2, 1}, 1), true},         // 6-byte rows
      {pdesc({12, 108, 82, 55}, {3, 2, 0, 1}, 4), true},   // 220-byte rows 35 KiB apart
      {pdesc({20, 11, 25, 21, 17}, {4, 0, 1, 2, 3}, 8), false},
      {pdesc({2, 32, 1024, 128}, {0, 1, 3, 2}, 2), false},  // 32-byte rows 256 B apart
      {pdesc({400, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 8), false},
      {pdesc({4, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 16), false},
  };
  for (const auto& k : cases) expect_summary_mark(k.d, "next tile prefetched", k.prefetched);
}

// Chained tiles of 8- and 16-byte elements whose links are straight kernel calls prefetch the next
// link's rows ahead of each call (prefetches_next_link): rows of at most 576 B, links of 1 KiB and
// more. Not: links of 512 B, rows of 680 B, 4-byte elements. The reference's bytes at 1-3 threads.
TEST(CpuBlocked, ChainedLinksPrefetchTheNextLink) {
  struct c {
    permute_desc d;
    bool prefetched;  // the plan summary says so
  };
  const c cases[] = {
      {pdesc({20, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 8), true},               // 184 B rows, 6 a link
      {pdesc({4, 12, 6, 2, 15, 18, 13, 2}, {7, 4, 1, 3, 6, 2, 0, 5}, 8), true},  // a j chain of 13
      {pdesc({20, 7, 6, 9, 22, 10, 2}, {6, 0, 5, 3, 1, 2, 4}, 8), true},
      {pdesc({40, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, 8), false},  // 16-byte folded, links of 512 B
      {pdesc({2, 20, 168, 85}, {3, 2, 1, 0}, 8), false},                    // rows of 1360 B
      {pdesc({20, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 4), false},
  };
  for (const auto& k : cases) expect_summary_mark(k.d, "next link prefetched", k.prefetched);
}

// Folded elements of 64 B and more whose whole output run is under 4 KiB (kShortRunMinElemBytes):
// tiles of whole runs by about 4 KiB's worth of input columns; smaller folded elements keep part-run
// tiles. Odd extents (a short last column tile), a padded input, 1-3 threads.
TEST(CpuBlocked, FoldedShortRunsTileWholeRuns) {
  struct c {
    permute_desc d;
    const char* tile;
  };
  permute_desc padded = pdesc({30, 9, 41, 14}, {0, 2, 1, 3}, 8);
  padded.in_strides = {9 * 41 * 16, 41 * 16, 16, 1};
  const c cases[] = {
      {pdesc({40, 7, 30, 16}, {0, 2, 1, 3}, 8), "7x5 tiles of 128 B"},    // runs of 896 B
      {pdesc({30, 9, 41, 14}, {0, 2, 1, 3}, 8), "9x5 tiles of 112 B"},    // 41 columns: a short last tile
      {pdesc({50, 7, 43, 16}, {0, 2, 1, 3}, 4), "7x10 tiles of 64 B"},
      {pdesc({20, 33, 23, 24}, {0, 2, 1, 3}, 4), "33x2 tiles of 96 B"},
      {padded, "9x5 tiles of 112 B"},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_permute(k.d, threads, &summary), "") << summary;
      EXPECT_NE(summary.find(k.tile), std::string::npos) << summary;
    }
  // Not: folded elements under 64 B (48 B here), nor runs of 4 KiB and more.
  for (const permute_desc& d : {pdesc({50, 20, 40, 12}, {0, 2, 1, 3}, 4), pdesc({20, 70, 30, 16}, {0, 2, 1, 3}, 8)}) {
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << summary;
    EXPECT_EQ(summary.find(d.extents[1] == 20 ? "20x" : "70x"), std::string::npos) << summary;
  }
}

// Batches of 8-byte matrices take the plain walk's 128 B x 1 KiB tiles under the Intel tuning
// (kPlainWideWalk), kRule8's 256 B x 4 KiB under the AMD one; whole short output rows keep the
// budget's tiles under both, and input rows that fill the tile's do not grow it along the short
// side. Output rows off line boundaries (2400 B), a rank-3 reversal, 1-3 threads.
TEST(CpuBlocked, WideBatchesTakeThePlainTileOnIntel) {
  using xpose::cpu_tuning;
  struct c {
    permute_desc d;
    const char *intel, *amd;
  };
  const c cases[] = {
      {pdesc({6, 300, 520}, {0, 2, 1}, 8), "32x128 tiles", "32x512 tiles"},
      {pdesc({40, 8, 300}, {2, 1, 0}, 8), "16x128 tiles", "32x300 tiles"},
      {pdesc({64, 60, 64}, {0, 2, 1}, 8), "60x64 tiles", "60x64 tiles"},  // output rows of 480 B, whole
      // Input rows of the tile's 1 KiB: no growth along the short side in the plain tile (16-byte
      // elements take it under both tunings).
      {pdesc({4, 200, 128}, {0, 2, 1}, 8), "16x128 tiles", "64x128 tiles"},
      {pdesc({4, 200, 64}, {0, 2, 1}, 16), "8x64 tiles", "8x64 tiles"},
  };
  for (cpu_tuning t : {cpu_tuning::kIntel, cpu_tuning::kAmd}) {
    g_tuning = t;
    for (const auto& k : cases)
      for (int threads : {1, 2, 3}) {
        std::string summary;
        ASSERT_EQ(check_permute(k.d, threads, &summary), "") << summary;
        EXPECT_NE(summary.find(t == cpu_tuning::kIntel ? k.intel : k.amd), std::string::npos) << summary;
      }
  }
  g_tuning = cpu_tuning::kAuto;
}

// Under the `amd` tuning, tensors of 16-byte elements chain further (kWideChainOutBytes): a j axis
// of a whole 1 KiB counts as short and the i chain grows to 1 KiB. The `intel` tuning and other
// element sizes keep today's targets. Every plan gives the reference's bytes, 1-3 threads.
TEST(CpuBlocked, WideElementsChainFurtherUnderAmd) {
  using xpose::cpu_tuning;
  namespace c = xpose::detail::cpu;
  // Reversals: output rows of 256 B (16 x 16 B), input rows of 1 KiB (64 x 16 B); 4 MiB.
  const permute_desc wide = pdesc({16, 4, 4, 4, 4, 64}, {5, 4, 3, 2, 1, 0}, 16);
  const auto amd = c::make_nest(normalized(wide), cpu_tuning::kAmd);
  const auto intel = c::make_nest(normalized(wide), cpu_tuning::kIntel);
  ASSERT_EQ(amd.k, c::blocked_nest::kind::kTiles);
  EXPECT_EQ(intel.i_chain_rank + intel.j_chain_rank, 0);
  EXPECT_GT(amd.i_chain_rank, 0);
  EXPECT_GT(amd.i_chain_count() * amd.i.extent * amd.elem, c::kChainOutBytes);
  EXPECT_LE(amd.i_chain_count() * amd.i.extent * amd.elem, c::kWideChainOutBytes);
  // The same bytes in 8-byte elements: one rule under both tunings.
  const permute_desc narrow = pdesc({32, 4, 4, 4, 4, 128}, {5, 4, 3, 2, 1, 0}, 8);
  const auto amd8 = c::make_nest(normalized(narrow), cpu_tuning::kAmd);
  const auto intel8 = c::make_nest(normalized(narrow), cpu_tuning::kIntel);
  EXPECT_EQ(amd8.i_chain_rank, intel8.i_chain_rank);
  EXPECT_EQ(amd8.j_chain_rank, intel8.j_chain_rank);
  EXPECT_EQ(amd8.i_chain_count(), intel8.i_chain_count());
  const permute_desc odd = pdesc({5, 13, 3, 2, 7, 64}, {5, 3, 4, 1, 2, 0}, 16);
  for (cpu_tuning t : {cpu_tuning::kAmd, cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const permute_desc* d : {&wide, &narrow, &odd})
      for (int threads : {1, 2, 3}) {
        std::string summary;
        ASSERT_EQ(check_permute(*d, threads, &summary), "") << summary;
        if (d == &wide) EXPECT_EQ(summary.find("i chain") != std::string::npos, t == cpu_tuning::kAmd) << summary;
      }
  }
  g_tuning = cpu_tuning::kAuto;
}

// Plain 2-D transposes of 8- and 16-byte elements under each host's tuning: the Intel tables
// (plain_2d_walk) walk 128 B x 1 KiB tiles in macro blocks of 8 KiB a side, the AMD ones their
// element size's rule row-major; both must give the reference's bytes. Ragged macro blocks on both
// sides (extents not a multiple of the block, nor of the tile), misaligned and padded outputs,
// outputs too small to stream, 1-3 threads.
TEST(CpuBlocked, PlainWideTransposesUnderEachTuning) {
  using xpose::cpu_tuning;
  struct c {
    transpose_desc d;
    i64 out_offset, in_offset;
  };
  transpose_desc padded = tdesc(1500, 1333, 8);
  padded.ld_out = 1504;
  padded.ld_in = 1400;
  const c cases[] = {
      {tdesc(1100, 1700, 8), 0, 0},   {tdesc(1100, 1700, 8), 8, 8},    {tdesc(2100, 1029, 16), 16, 0},
      {tdesc(1030, 1029, 16), 0, 16}, {padded, 24, 0},                 {tdesc(300, 200, 8), 0, 0},
      {tdesc(129, 1025, 16), 0, 0},   {tdesc(2048, 1024, 8), 0, 0},
  };
  for (cpu_tuning t : {cpu_tuning::kAmd, cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& k : cases)
      for (int threads : {1, 2, 3}) {
        std::string summary;
        const std::string label = std::to_string(k.d.rows) + "x" + std::to_string(k.d.cols) + " " +
                                  std::to_string(k.d.elem_bytes) + "B +" + std::to_string(k.out_offset) + " " +
                                  std::to_string(threads) + " threads, " + (t == cpu_tuning::kIntel ? "intel" : "amd");
        EXPECT_EQ(check_transpose(k.d, threads, k.out_offset, k.in_offset, &summary), "") << label;
        const bool blocks = summary.find("in blocks of 8 KiB a side") != std::string::npos;
        // (16-byte elements walk in blocks under either tuning: blocked.cpp, kPlainWideWalk.)
        const bool wide = t == cpu_tuning::kIntel || k.d.elem_bytes == 16;
        EXPECT_EQ(blocks, wide) << label << " | " << summary;
        EXPECT_NE(summary.find(t == cpu_tuning::kIntel ? "intel tuning" : "amd tuning"), std::string::npos) << summary;
        // 128 B output rows and 1 KiB input rows where the output rows share their line offset (else
        // 256 B output rows: kUnalignedOutRow).
        if (wide && k.d.ld_out.value_or(k.d.rows) * k.d.elem_bytes % 64 == 0)
          EXPECT_NE(summary.find(k.d.elem_bytes == 8 ? "16x128 tiles" : "8x64 tiles"), std::string::npos) << summary;
      }
  }
  g_tuning = cpu_tuning::kAuto;
  // Other element sizes, and problems with outer dims, keep the AMD tables under either tuning.
  std::string amd, intel;
  g_tuning = cpu_tuning::kIntel;
  ASSERT_EQ(check_transpose(tdesc(1100, 1700, 4), 2, 0, 0, &intel), "");
  g_tuning = cpu_tuning::kAmd;
  ASSERT_EQ(check_transpose(tdesc(1100, 1700, 4), 2, 0, 0, &amd), "");
  g_tuning = cpu_tuning::kAuto;
  EXPECT_EQ(intel.substr(intel.find("tiles") - 10), amd.substr(amd.find("tiles") - 10));
  EXPECT_EQ(intel.find("blocks of"), std::string::npos) << intel;
}

// Long copies read one sequential stream under the `amd` tuning and several pieces side by side
// under the `intel` one (tuned_kernels); the plan summary says which, and both give the reference's
// bytes: a plain copy and row copies of odd lengths at odd offsets, large enough to stream, 1-3
// threads.
TEST(CpuBlocked, LongCopiesReadByTuning) {
  using xpose::cpu_tuning;
  namespace cpu = xpose::detail::cpu;
  const cpu::kernel_table& active = cpu::active_kernels();
  EXPECT_EQ(cpu::tuned_kernels(cpu_tuning::kAmd).stream_copy, active.stream_copy);
  EXPECT_EQ(cpu::tuned_kernels(cpu_tuning::kIntel).stream_copy,
            active.stream_copy_pieces ? active.stream_copy_pieces : active.stream_copy);
  const permute_desc cases[] = {
      pdesc({3, 700001}, {0, 1}, 4),           // one plain copy of 8.4 MB
      pdesc({5, 40, 9001}, {1, 0, 2}, 4),      // rows of 36004 B, moved
      pdesc({7, 3, 150007}, {1, 0, 2}, 2),     // rows of 300014 B at 2-byte offsets
  };
  for (cpu_tuning t : {cpu_tuning::kAmd, cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& d : cases)
      for (int threads : {1, 2, 3}) {
        std::string summary;
        ASSERT_EQ(check_permute(d, threads, &summary), "") << summary;
        EXPECT_EQ(summary.find("streaming stores") != std::string::npos, active.stream_copy != nullptr) << summary;
        const bool pieces = t == cpu_tuning::kIntel && active.stream_copy_pieces != nullptr;
        EXPECT_EQ(summary.find("read in pieces side by side") != std::string::npos, pieces) << summary;
      }
  }
  g_tuning = cpu_tuning::kAuto;
}

TEST(CpuBlocked, TuningResolvesAndIsValidated) {
  using xpose::cpu_tuning;
  namespace cpu = xpose::detail::cpu;
  const cpu_tuning host = cpu::resolve_tuning(cpu_tuning::kAuto);
  EXPECT_TRUE(host == cpu_tuning::kAmd || host == cpu_tuning::kIntel);
  EXPECT_EQ(cpu::resolve_tuning(cpu_tuning::kIntel), cpu_tuning::kIntel);
  EXPECT_EQ(cpu::resolve_tuning(cpu_tuning::kAmd), cpu_tuning::kAmd);
  EXPECT_EQ(cpu::plain_2d_walk(cpu_tuning::kIntel, 8).macro, 8192);
  EXPECT_EQ(cpu::plain_2d_walk(cpu_tuning::kIntel, 16).macro, 8192);
  for (int e : {1, 2, 4, 3, 12, 32}) EXPECT_EQ(cpu::plain_2d_walk(cpu_tuning::kIntel, e).macro, 0) << e;
  for (int e : {1, 2, 4, 8}) EXPECT_EQ(cpu::plain_2d_walk(cpu_tuning::kAmd, e).macro, 0) << e;
  EXPECT_EQ(cpu::plain_2d_walk(cpu_tuning::kAmd, 16).macro, 8192);  // 16 B: blocks under either tuning
  // An out-of-range value is refused with its own status and leaves the plan alone.
  plan_options o = blocked(1);
  o.tuning = static_cast<cpu_tuning>(7);
  xpose::plan p;
  std::string why;
  EXPECT_EQ(xpose::make_plan(tdesc(10, 20, 4), o, &p, &why), status::kInvalidOption);
  EXPECT_NE(why.find("tuning 7"), std::string::npos) << why;
  EXPECT_FALSE(p.valid());
}

// ------------------------------------------------------------------------------------------------
// Permutations.

// Random permutations of rank 3..8 (seeded): extents with small fastest dims (1..7) among larger
// ones, every element size, dense, padded and (input only) broadcast strides.
TEST(CpuBlocked, RandomPermutations) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 240; ++trial) {
    const int rank = 3 + trial % 6;
    const int eb = kElemSizes[(trial / 6) % 5];
    permute_desc d;
    d.elem_bytes = eb;
    const i64 budget = 60000 / eb + 200;  // elements, roughly
    i64 n = 1;
    for (int k = 0; k < rank; ++k) {
      i64 e = 1 + static_cast<i64>(rng() % (k == rank - 1 || rng() % 3 == 0 ? 7 : 24));
      while (n * e > budget && e > 1) e /= 2;
      d.extents.push_back(e);
      n *= e;
    }
    d.perm.resize(static_cast<std::size_t>(rank));
    for (int k = 0; k < rank; ++k) d.perm[static_cast<std::size_t>(k)] = k;
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    const int layout = trial % 4;  // 0 dense, 1 padded input, 2 padded output, 3 broadcast + padded
    if (layout == 1 || layout == 3) {
      std::vector<i64> s(static_cast<std::size_t>(rank));
      i64 acc = 1;
      for (int k = rank - 1; k >= 0; --k) {
        s[static_cast<std::size_t>(k)] = acc;
        acc *= d.extents[static_cast<std::size_t>(k)] + static_cast<i64>(rng() % 3);
      }
      if (layout == 3) s[static_cast<std::size_t>(rng() % rank)] = 0;  // broadcast one input dim
      d.in_strides = s;
    }
    if (layout == 2 || layout == 3) {
      std::vector<i64> s(static_cast<std::size_t>(rank));
      i64 acc = 1;
      for (int k = rank - 1; k >= 0; --k) {
        s[static_cast<std::size_t>(k)] = acc;
        acc *= d.extents[static_cast<std::size_t>(d.perm[static_cast<std::size_t>(k)])] + static_cast<i64>(rng() % 3);
      }
      d.out_strides = s;
    }
    const int threads = 1 + trial % 3;
    std::string ext, perm;
    for (int k = 0; k < rank; ++k) {
      ext += std::to_string(d.extents[static_cast<std::size_t>(k)]) + " ";
      perm += std::to_string(d.perm[static_cast<std::size_t>(k)]) + " ";
    }
    ASSERT_EQ(check_permute(d, threads), "")
        << "trial " << trial << " extents [" << ext << "] perm [" << perm << "] " << eb << "B layout " << layout;
  }
}

// Shapes whose chains end in a split dim (see LongChainDimsAreSplitIntoBlocks), dense and padded,
// every element size and 1-3 threads; the large ones stream through the staging buffer.
TEST(CpuBlocked, SplitChainDims) {
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
  } cases[] = {
      {{6, 600, 10, 12}, {3, 2, 1, 0}},          // i chain split (600 = 20 x 30 for f32)
      {{7, 36, 30, 9}, {3, 2, 1, 0}},
      {{5, 4, 90, 3, 2}, {4, 3, 2, 1, 0}},
      {{9, 2, 110, 7, 60}, {0, 4, 3, 2, 1}},   // j chain split, batch dim outside
      {{3, 8, 5, 7, 6, 128, 11}, {6, 2, 1, 5, 0, 4, 3}},
      {{6, 601, 10, 12}, {3, 2, 1, 0}},          // prime extents: the last block clipped
      {{7, 37, 31, 9}, {3, 2, 1, 0}},
      {{5, 4, 89, 3, 2}, {4, 3, 2, 1, 0}},
      {{9, 2, 113, 7, 61}, {0, 4, 3, 2, 1}},
      {{3, 8, 5, 7, 6, 127, 11}, {6, 2, 1, 5, 0, 4, 3}},
      {{23, 4, 7, 3, 41, 2}, {5, 1, 3, 4, 0, 2}},
      {{16, 8, 8, 16, 32}, {4, 3, 2, 1, 0}},  // bytes: the i chain's block (ShortElementsTradeIChainForJChain)
      {{16, 8, 7, 16, 32}, {4, 3, 2, 1, 0}},  // the same block clipped (7 = 2 + 2 + 2 + 1)
  };
  for (const auto& c : cases)
    for (int eb : kElemSizes)
      for (int threads : {1, 2, 3})
        for (bool padded : {false, true}) {
          permute_desc d = pdesc(c.extents, c.perm, eb);
          if (padded) {  // input rows one element longer than the extent, so no chain is contiguous past it
            std::vector<i64> s(c.extents.size());
            i64 acc = 1;
            for (int k = static_cast<int>(s.size()) - 1; k >= 0; --k) {
              s[static_cast<std::size_t>(k)] = acc;
              acc *= c.extents[static_cast<std::size_t>(k)] + (k == static_cast<int>(s.size()) - 2 ? 1 : 0);
            }
            d.in_strides = s;
          }
          ASSERT_EQ(check_permute(d, threads), "") << c.extents.size() << "-d case, " << eb << "B, " << threads
                                                   << " threads, padded " << padded;
        }
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
    bool streams = true;
  } large[] = {
      {{6, 201, 168, 36}, {3, 2, 1, 0}},  // 29 MiB of f32, split on both sides
      {{6, 199, 167, 37}, {3, 2, 1, 0}},  // the same with clipped blocks
      {{379, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}},
      {{8, 16, 16, 16, 64}, {4, 3, 2, 1, 0}},  // i chain, tiles grown past 16 KiB to the 64 KiB cap
      {{4, 8, 8, 8, 16, 32}, {5, 4, 3, 2, 1, 0}},
      // (A j chain alone since the fourth round, 9.5 KiB tiles of 264 B rows: direct stores.)
      {{66, 12, 6, 2, 15, 18, 2}, {6, 4, 1, 3, 5, 2, 0}, false},
  };
  for (const auto& c : large) {
    const permute_desc d = pdesc(c.extents, c.perm, 4);
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << summary;
    if (xpose::detail::cpu::active_kernels().stream_copy && c.streams) {
      EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
    }
  }
}

// Tiles of 1-, 2- and 4-byte elements whose rows lie far apart in the input take the few-rows
// tiles (one line per output row: blocked.cpp's kRuleFewRows1And2, kRuleFewRows4) only when that
// distance is a multiple of kAliasingStride (and, for f32, the matrix is under 128 KiB or its input
// rows under 1 KiB); at other distances the ordinary rule's long tiles. Both run correctly.
TEST(CpuBlocked, FewRowsTilesOnlyAtAliasingStrides) {
  struct c {
    std::vector<i64> extents;
    int eb;
    const char* tiles;
    const char* amd_tiles = nullptr;  // where the `amd` tuning differs (its short-side growth)
  } cases[] = {
      {{600, 4, 512}, 1, "256x256 tiles"},  // rows 2048 B apart: few rows (256 B: odd line offsets)
      {{600, 4, 520}, 1, "256x520 tiles"},  // 2080 B apart: whole rows of the ordinary rule
      {{600, 4, 512}, 2, "128x256 tiles"},
      {{600, 4, 520}, 2, "128x520 tiles"},
      {{600, 8, 700}, 1, "256x700 tiles"},
      {{1100, 16, 128}, 4, "64x64 tiles"},  // (output rows of 4400 B: f32's other few-rows case is off)
      {{1100, 16, 130}, 4, "112x130 tiles", "64x130 tiles"},
      // f32 matrices of 128 KiB and more with input rows of 1 KiB and more keep the long tiles
      // (kFewRows4MaxMatrixBytes): 2.2 MiB matrices, rows 8 KiB apart
      {{1100, 4, 512}, 4, "64x512 tiles"},
      {{1100, 4, 520}, 4, "64x520 tiles"},
      {{128, 32, 256}, 4, "64x256 tiles"},  // 128 KiB matrices: long tiles
      {{120, 32, 256}, 4, "64x64 tiles"},   // 120 KiB: few rows
  };
  for (xpose::cpu_tuning t : {xpose::cpu_tuning::kAmd, xpose::cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& k : cases) {
      std::string summary;
      ASSERT_EQ(check_permute(pdesc(k.extents, {2, 1, 0}, k.eb), 2, &summary), "") << summary;
      const char* want = t == xpose::cpu_tuning::kAmd && k.amd_tiles ? k.amd_tiles : k.tiles;
      EXPECT_NE(summary.find(want), std::string::npos) << want << " | " << summary;
    }
  }
  g_tuning = xpose::cpu_tuning::kAuto;
}

// A permutation and the tiles its plan names under each tuning.
struct tuned_tiles {
  permute_desc d;
  const char *amd, *intel;
};
// Each case against the reference under both tunings, 2 threads; its summary names that tuning's
// tiles, and `also` where given.
static void expect_tiles_per_tuning(const std::vector<tuned_tiles>& cases, const char* also = nullptr) {
  for (xpose::cpu_tuning t : {xpose::cpu_tuning::kAmd, xpose::cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& k : cases) {
      std::string summary;
      ASSERT_EQ(check_permute(k.d, 2, &summary), "") << summary;
      const char* want = t == xpose::cpu_tuning::kAmd ? k.amd : k.intel;
      EXPECT_NE(summary.find(want), std::string::npos) << want << " | " << summary;
      if (also) EXPECT_NE(summary.find(also), std::string::npos) << also << " | " << summary;
    }
  }
  g_tuning = xpose::cpu_tuning::kAuto;
}

// Tiles with one whole short side grow along the other to 64 KiB, but to 16 KiB under the `amd`
// tuning for elements with a SIMD kernel whose input rows are not side by side and 256 B or longer
// (kShortSideTileBytesAmd). Rows-first strided scalar tiles take output rows of at most 240 B
// (kRowsFirstOutRowBytes) under both. Each against the reference, 2 threads.
TEST(CpuBlocked, ShortSideGrowthAndRowsFirstRows) {
  expect_tiles_per_tuning({
      {pdesc({20000, 17}, {1, 0}, 1), "960x17 tiles", "3840x17 tiles"},
      {pdesc({4000, 17}, {1, 0}, 2), "480x17 tiles", "1920x17 tiles"},
      {pdesc({64, 16384, 64}, {0, 2, 1}, 1), "256x64 tiles", "1024x64 tiles"},  // 64 B rows side by side
      {pdesc({8, 4096, 64}, {0, 2, 1}, 4), "256x64 tiles", "256x64 tiles"},     // 256 B rows: 64 KiB on both
      {pdesc({9000, 29, 5}, {1, 0, 2}, 1), "48x29 tiles", "48x29 tiles"},       // rows first, 5 B: 240 B rows
      {pdesc({4000, 29, 5}, {1, 0, 2}, 4), "12x29 tiles", "12x29 tiles"},       // 20 B
      {pdesc({3000, 124, 3, 1}, {1, 0, 2, 3}, 2), "32x124 tiles", "32x124 tiles"},  // under the cap already
  });
}

// Staged batches of byte matrices take 1 KiB input rows, but 512 B under the `amd` tuning where the
// input rows are not side by side (kRuleStaged1Scattered: the rank-3 reversal); batches of
// contiguous matrices keep 1 KiB under both. Each against the reference, 2 threads.
TEST(CpuBlocked, StagedByteBatchInputRows) {
  if (!xpose::detail::cpu::active_kernels().stage_rows) GTEST_SKIP() << "this CPU's kernels do not stage input rows (no AVX2)";
  expect_tiles_per_tuning({{pdesc({1024, 4, 2048}, {2, 1, 0}, 1), "256x512 tiles", "256x1024 tiles"},
                           {pdesc({4, 1024, 2048}, {0, 2, 1}, 1), "256x1024 tiles", "256x1024 tiles"}},
                          "staged input");
}

// Tiles with a packed side of 17-31 elements (the VBMI medium tiles where the CPU has them), long
// narrow tiles (under the `amd` tuning, VBMI's narrow kernels at any length) and chained links of
// 17-24 B byte rows staged packed, end to end against the reference under both tunings.
TEST(CpuBlocked, MediumAndLongNarrowTiles) {
  expect_tiles_per_tuning({
      {pdesc({20000, 23}, {1, 0}, 1), "704x23 tiles", "2816x23 tiles"},
      {pdesc({23, 20000}, {1, 0}, 1), "23x4096 tiles", "23x4096 tiles"},
      {pdesc({20000, 29}, {1, 0}, 2), "256x29 tiles", "1120x29 tiles"},
      {pdesc({3000, 174, 3}, {0, 2, 1}, 1), "174x3 tiles", "174x3 tiles"},
      {pdesc({3000, 3, 174}, {0, 2, 1}, 2), "3x174 tiles", "3x174 tiles"},
      {pdesc({16, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 1), "6x23 tiles (i chain x60", "6x23 tiles (i chain x60"},
      {pdesc({8, 15, 13, 9, 2, 11, 17}, {6, 2, 0, 3, 4, 5, 1}, 1), "15x17 tiles (i chain x198",
       "15x17 tiles (i chain x198"},
  });
}

// Folded elements through the strided scalar loop walk the input rows first where the tile's input
// rows lie close together and its output rows are few (kRowsFirstMaxOutRows: 128 under the AMD
// tuning, 32 under the Intel one), else the output rows first; both orders against the reference,
// 1-3 threads, under each tuning. Elements of 5-7 and 9-15 bytes take one 8- or 16-byte move each,
// spilling into the next element of the output row, but at a row's end.
TEST(CpuBlocked, RowsFirstScalarTiles) {
  using xpose::cpu_tuning;
  struct c {
    permute_desc d;
    bool amd, intel;  // rows first under each tuning
  } cases[] = {
      {pdesc({4000, 29, 5}, {1, 0, 2}, 4), true, true},        // 20 B elements, whole 580 B input rows
      {pdesc({9000, 29, 5}, {1, 0, 2}, 1), true, true},        // 5 B
      {pdesc({700, 15, 13, 13, 19}, {3, 0, 1, 2, 4}, 2), true, true},  // 38 B
      {pdesc({3000, 124, 3, 1}, {1, 0, 2, 3}, 2), true, false},  // 124 output rows: not on Intel
      {pdesc({300, 29, 57, 7}, {2, 1, 0, 3}, 2), false, false},  // input rows 23 KiB apart
      {pdesc({900, 127, 23}, {1, 0, 2}, 1), false, false},      // a tile of 32 of each 127-element row
      // 5-7 and 9-15 bytes: one 8- or 16-byte move per element but the last of an output row
      // (spilling_tile).
      {pdesc({300, 29, 57, 7}, {2, 1, 0, 3}, 1), false, false},  // 7 B, output rows first
      {pdesc({9000, 29, 5}, {1, 0, 2}, 2), true, true},         // 10 B
      {pdesc({3000, 124, 3, 1}, {1, 0, 2, 3}, 4), true, false},  // 12 B
      {pdesc({200, 29, 57, 6}, {2, 1, 0, 3}, 2), false, false},  // 12 B, output rows first
  };
  for (cpu_tuning t : {cpu_tuning::kAmd, cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& k : cases)
      for (int threads : {1, 3}) {
        std::string summary;
        ASSERT_EQ(check_permute(k.d, threads, &summary), "") << summary;
        const bool want = t == cpu_tuning::kIntel ? k.intel : k.amd;
        EXPECT_EQ(summary.find("input rows first") != std::string::npos, want) << summary;
        EXPECT_NE(summary.find("strided scalar kernels"), std::string::npos) << summary;
      }
  }
  g_tuning = cpu_tuning::kAuto;
}

// Folded elements whose size does not divide a line (3, 5, 7, 14, 20, 23, 55 bytes), outputs large
// enough to stream: each tile owns the lines that start in its part of a row, by bytes (run_tiles'
// odd_lines), and the tiles at a row's ends its partial lines. Outputs at offsets that put line
// boundaries inside elements, 1-3 threads.
TEST(CpuBlocked, FoldedOddElementsStreamByBytes) {
  struct c {
    permute_desc d;
    i64 out_offset, in_offset;
  };
  const c cases[] = {
      {pdesc({30000, 29, 5}, {1, 0, 2}, 1), 0, 0},          {pdesc({30000, 29, 5}, {1, 0, 2}, 1), 37, 3},
      {pdesc({2000, 127, 23}, {1, 0, 2}, 1), 5, 0},          {pdesc({12000, 29, 5}, {1, 0, 2}, 4), 12, 4},
      {pdesc({2000, 5, 24, 11, 5}, {1, 2, 0, 3, 4}, 1), 63, 1}, {pdesc({20000, 29, 7}, {1, 0, 2}, 2), 2, 0},
      {pdesc({110000, 13, 3}, {1, 0, 2}, 1), 1, 0},         {pdesc({300, 29, 57, 7}, {2, 1, 0, 3}, 2), 6, 2},
  };
  for (const auto& k : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      EXPECT_EQ(check(k.d, threads, span(k.d.extents, k.d.in_strides), span(out_extents(k.d), k.d.out_strides),
                      k.out_offset, k.in_offset, &summary),
                "")
          << k.d.extents[0] << " x" << k.d.elem_bytes << "B +" << k.out_offset << " " << threads << " threads | "
          << summary;
      if (xpose::detail::cpu::active_kernels().stream_copy) {
        EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
      }
    }
}

// Seeded random shapes of small dims and one or two long ones (31-300, often prime), so chains
// form and their links split, with and without a remainder; every element size, 1-3 threads.
TEST(CpuBlocked, RandomSplitChains) {
  std::mt19937_64 rng(11);
  int split = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int rank = 3 + trial % 4;
    const int eb = kElemSizes[(trial / 4) % 5];
    permute_desc d;
    d.elem_bytes = eb;
    i64 count = 1;
    for (int k = 0; k < rank; ++k) {
      i64 e = rng() % 3 == 0 ? 31 + static_cast<i64>(rng() % 270) : 2 + static_cast<i64>(rng() % 9);
      while (count * e > 400000 / eb && e > 2) e = e / 2 + 1;  // at most ~400 KB per side
      d.extents.push_back(e);
      count *= e;
    }
    d.perm.resize(static_cast<std::size_t>(rank));
    for (int k = 0; k < rank; ++k) d.perm[static_cast<std::size_t>(k)] = k;
    std::shuffle(d.perm.begin(), d.perm.end(), rng);
    const auto n = xpose::detail::cpu::make_nest(normalized(d));
    split += n.i_split >= 0 || n.j_split >= 0;
    std::string ext, perm;
    for (int k = 0; k < rank; ++k) {
      ext += std::to_string(d.extents[static_cast<std::size_t>(k)]) + " ";
      perm += std::to_string(d.perm[static_cast<std::size_t>(k)]) + " ";
    }
    ASSERT_EQ(check_permute(d, 1 + trial % 3), "")
        << "trial " << trial << " extents [" << ext << "] perm [" << perm << "] " << eb << "B";
  }
  EXPECT_GE(split, 10);  // the clipped blocks were exercised
}

// j chains alone (a long i axis, input rows shorter than a line), against the reference: whole
// links, split links with and without a clipped last block, every element size, 1-3 threads, and
// large ones whose tiles stream (>= 4 MiB outputs).
TEST(CpuBlocked, JOnlyChains) {
  namespace c = xpose::detail::cpu;
  int chained = 0;
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
  } cases[] = {
      {{300, 5, 3}, {2, 1, 0}},                 // the 5 joins whole
      {{301, 53, 3}, {2, 1, 0}},                // the 53 is split, the last block clipped
      {{517, 40, 3}, {2, 1, 0}},                // split without remainder for some sizes
      {{131, 9, 5, 2, 7, 3}, {5, 2, 4, 3, 1, 0}},  // like [7262,22,5,2,7,6] perm 5,2,4,3,1,0
      {{97, 4, 11, 2}, {3, 1, 0, 2}},
      {{1031, 13, 2}, {0, 2, 1}},               // i is the output's fastest but the input's slowest
  };
  for (const auto& cs : cases)
    for (int eb : kElemSizes)
      for (int threads : {1, 2, 3}) {
        const permute_desc d = pdesc(cs.extents, cs.perm, eb);
        const auto n = c::make_nest(normalized(d));
        chained += n.k == c::blocked_nest::kind::kTiles && n.j_chain_rank > 0 && n.i_chain_rank == 0 &&
                   n.i.extent * n.elem >= c::kChainOutBytes;
        ASSERT_EQ(check_permute(d, threads), "") << cs.extents.size() << "-d case, " << eb << "B, " << threads << " threads";
      }
  EXPECT_GE(chained, 40);  // most of them take the j-only chain (not the 16-byte ones with 64 B rows)
  // Large: the tiles stream.
  for (const auto& ext : std::vector<std::vector<i64>>{{5003, 45, 6}, {10007, 37, 3}}) {  // 5.4 and 4.4 MB
    const permute_desc d = pdesc(ext, {2, 1, 0}, 4);
    const auto n = c::make_nest(normalized(d));
    EXPECT_GT(n.j_chain_rank, 0);
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << summary;
    ASSERT_EQ(check_permute(d, 3), "");
    if (c::active_kernels().stream_copy) {
      EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
    }
  }
}

// An i axis of 256-511 B with short input rows (kChainOutMaxBytes): i is not chained, j is
// (to 1 KiB), in tiles of up to 64 KiB; every element size, whole and clipped split links, 1-3
// threads, and one that streams (like the [64,64,128,128] reversal).
TEST(CpuBlocked, MidLengthIAxisGrowsTheJChain) {
  namespace c = xpose::detail::cpu;
  const struct {
    std::vector<i64> extents;
    int eb;
  } cases[] = {
      {{300, 3, 5, 100}, 1},  // j 100 B x 2 of the 5, clipped (the tile cap)
      {{150, 4, 9, 100}, 2},  // j 200 B x 2 of the 9, clipped
      {{64, 8, 16, 128}, 4},  // j 512 B x 2 of the 16 (divides)
      {{64, 3, 4, 64}, 4},    // j 256 B x 4: the 4 joins whole
      {{100, 5, 7, 130}, 4},  // 400 B / 520 B: the 7 does not fit the tile cap
      {{40, 6, 9, 50}, 8},    // j 400 B x 3 of the 9
      {{20, 4, 9, 40}, 16},   // j 640 B x 2 of the 9, clipped
  };
  int chained = 0;
  for (const auto& cs : cases) {
    const permute_desc d = pdesc(cs.extents, {3, 2, 1, 0}, cs.eb);
    const auto n = c::make_nest(normalized(d));
    ASSERT_EQ(n.k, c::blocked_nest::kind::kTiles);
    EXPECT_GE(n.i.extent * n.elem, c::kChainOutBytes);
    EXPECT_LT(n.i.extent * n.elem, c::kChainOutMaxBytes);
    EXPECT_EQ(n.i_chain_rank, 0);
    chained += n.j_chain_rank > 0;
    for (int threads : {1, 2, 3})
      ASSERT_EQ(check_permute(d, threads), "") << cs.extents[0] << "... " << cs.eb << "B, " << threads << " threads";
  }
  EXPECT_GE(chained, 5);
  // Large (8 MiB): the tiles stream.
  const permute_desc big = pdesc({64, 16, 16, 128}, {3, 2, 1, 0}, 4);
  EXPECT_EQ(c::make_nest(normalized(big)).j_chain_rank, 1);
  std::string summary;
  ASSERT_EQ(check_permute(big, 2, &summary), "") << summary;
  ASSERT_EQ(check_permute(big, 3), "");
  if (c::active_kernels().stream_copy) {
    EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
  }
}

// kernel_table::stream_tile_16b alone: a 12 x 5 tile of 16-byte elements into output rows a
// padded stride apart, every byte of each row's 12 elements as the transpose puts it, the padding
// between rows untouched.
TEST(CpuBlockedKernels, StreamTile16b) {
  const auto& kt = xpose::detail::cpu::active_kernels();
  if (!kt.stream_tile_16b) GTEST_SKIP() << "no stream_tile_16b on this CPU's kernel table (" << kt.isa << ")";
  constexpr i64 rows = 12, cols = 5, ldi = 7 * 16, ldo = 16 * 16;  // bytes
  std::vector<unsigned char> in(rows * ldi);
  xpose::test::fill_random(in.data(), in.size(), 2026120227);
  alignas(64) unsigned char out[cols * ldo];
  std::memset(out, xpose::test::kPoison, sizeof out);
  kt.stream_tile_16b(reinterpret_cast<const std::byte*>(in.data()), ldi, reinterpret_cast<std::byte*>(out), ldo, rows,
                     cols);
  if (kt.stream_fence) kt.stream_fence();
  for (i64 j = 0; j < cols; ++j)
    for (i64 b = 0; b < ldo; ++b) {
      const unsigned char want = b < rows * 16 ? in[(b / 16) * ldi + j * 16 + b % 16] : xpose::test::kPoison;
      ASSERT_EQ(out[j * ldo + b], want) << "output row " << j << " byte " << b;
    }
}

// Transposes of 16-byte elements whose output rows share one line offset: their interior tiles go
// straight to the output through stream_tile_16b (blocked.cpp, stream_direct); the others (rows at
// differing offsets, the first and last tile of each row) through the staging buffer. Plain,
// batched, and 4- and 8-byte elements folded into 16-byte ones by a shared fastest dim.
TEST(CpuBlocked, StreamedTilesOf16ByteElements) {
  transpose_desc padded = tdesc(1000, 700, 16);
  padded.ld_out = 1004;  // a whole number of lines
  padded.ld_in = 701;
  transpose_desc batched = tdesc(600, 520, 16);
  batched.batch = 3;
  const struct {
    transpose_desc d;
    i64 out_offset, in_offset;
  } cases[] = {
      {tdesc(1024, 1024, 16), 0, 0},  // 16 MiB: every row's tiles whole lines from line boundaries
      {tdesc(1024, 1024, 16), 16, 0},  // off a line by one element: the i tiles shift
      {tdesc(1021, 1030, 16), 0, 16},  // ragged edges; output rows at differing line offsets
      {padded, 64, 0},
      {padded, 48, 16},
      {batched, 0, 0},
  };
  for (const auto& c : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_transpose(c.d, threads, c.out_offset, c.in_offset, &summary), "")
          << c.d.rows << "x" << c.d.cols << " +" << c.out_offset << " " << threads << " threads";
      if (xpose::detail::cpu::active_kernels().stream_copy) {
        EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
      }
    }
  for (const permute_desc& d : {pdesc({1024, 1030, 4}, {1, 0, 2}, 4), pdesc({3, 700, 800, 2}, {0, 2, 1, 3}, 8)})
    for (int threads : {1, 2}) ASSERT_EQ(check_permute(d, threads), "") << d.elem_bytes << "B, " << threads << " threads";
}

// Plain 2-D transposes of bytes and halves take 128-byte output rows and 2-4 KiB input rows
// (kRule1And2Plain), walked row-major: ragged shapes over several tiles on both axes, with
// misaligned pointers, streamed, 1-3 threads; batched ones keep the 256-byte rows.
TEST(CpuBlocked, PlainTransposesOfBytesAndHalves) {
  // (Both take kRuleSplit's tiles where the host's tuning has split tiles: SplitTiles.)
  const bool split = xpose::detail::cpu::tuned_kernels(xpose::detail::cpu::resolve_tuning(g_tuning)).stream_split_lines;
  const struct {
    transpose_desc d;
    i64 out_offset, in_offset;
    const char* tile;
  } cases[] = {
      // (Bytes and halves whose output rows share their line offset are staged since the seventh
      // round: 256 x 1024 and 128 x 1024 tiles; StagedTiles below.)
      {tdesc(4224, 5000, 1), 16, 3, "256x1024 tiles"},
      {tdesc(4224, 5000, 1), 0, 0, "256x1024 tiles"},
      {tdesc(2112, 4500, 2), 0, 2, "128x1024 tiles"},
      {tdesc(2112, 4500, 2), 32, 0, "128x1024 tiles"},
      {tdesc(704, 9000, 2), 0, 0, "128x1024 tiles"},
      {tdesc(2112, 4500, 2), 2, 2, "128x1024 tiles"},  // off a line by one element: the i tiles shift
  };
  for (const auto& c : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_transpose(c.d, threads, c.out_offset, c.in_offset, &summary), "")
          << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << "B +" << c.out_offset << " " << threads << " threads";
      const char* tile = !split ? c.tile : c.d.elem_bytes == 2 ? "64x2048 tiles" : "128x2048 tiles";
      EXPECT_NE(summary.find(tile), std::string::npos) << summary;
      if (xpose::detail::cpu::active_kernels().stream_copy) {
        EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
      }
    }
  transpose_desc batched = tdesc(2112, 1000, 1);
  batched.batch = 3;
  std::string summary;
  ASSERT_EQ(check_transpose(batched, 2, 0, 0, &summary), "");
  EXPECT_NE(summary.find("256x1000 tiles"), std::string::npos) << summary;
}

// Staged byte and half tiles (seventh round): the interior i tiles of a large plain transpose copy
// their input rows into the staging buffer (stage_rows, groups of 8 rows) and are transposed 64
// bytes of each row at a time into a block in L1, then streamed. Ragged shapes (the last j tile
// and the last 64-byte chunk short, a tail of fewer than 64 bytes per row in the copy, fewer than
// a group of rows nowhere since tiles are 256 rows, i extents that are not a multiple of the tile),
// misaligned pointers (the first i tile shifted, taking the ordinary path), padded leading
// dimensions (input rows a multiple of 1 KiB apart, output rows padded to whole lines), 1-3
// threads; and shapes that must not be staged.
TEST(CpuBlocked, StagedTiles) {
  const bool avx2 = xpose::detail::cpu::active_kernels().stage_rows != nullptr;
  // Plain transposes go as 4-byte words instead where the host's tuning has split tiles (SplitTiles).
  const bool split = xpose::detail::cpu::tuned_kernels(xpose::detail::cpu::resolve_tuning(g_tuning)).stream_split_lines;
  const struct {
    transpose_desc d;
    i64 out_offset, in_offset;
    bool staged;
  } cases[] = {
      {tdesc(4224, 5000, 1), 0, 0, true},
      {tdesc(4224, 5000, 1), 16, 3, true},
      {tdesc(4160, 4103, 1), 1, 63, true},  // 4160 = 16 x 256 + 64: a short last i tile
      {tdesc(2048, 2048, 1), 0, 0, true},   // exactly 4 MiB: the smallest streamed output
      {[] { transpose_desc d = tdesc(1100, 4100, 1); d.ld_in = 4096 + 1024; d.ld_out = 1152; return d; }(), 5, 0, true},
      {[] { transpose_desc d = tdesc(3000, 3000, 1); d.ld_in = 3072; d.ld_out = 3008; return d; }(), 0, 7, true},
      // Output rows at differing line offsets (thirty-second session): staged with their `ext`
      // rows, each row streaming the lines that start in its part; odd and padded lengths, the
      // pointers off line boundaries, the last i tile (row end) short or long.
      {tdesc(4225, 5000, 1), 0, 0, true},
      {tdesc(4225, 5000, 1), 17, 5, true},
      {tdesc(4097, 4100, 1), 63, 1, true},   // a last i tile of one element
      {tdesc(4350, 4099, 1), 1, 0, true},    // a last i tile of 254: its `ext` would pass the row
      {[] { transpose_desc d = tdesc(1100, 4100, 1); d.ld_in = 4111; d.ld_out = 1130; return d; }(), 3, 9, true},
      {tdesc(4225, 3001, 2), 0, 0, true},
      {tdesc(2113, 4000, 2), 2, 14, true},
      {[] { transpose_desc d = tdesc(1500, 2100, 2); d.ld_in = 2100; d.ld_out = 1510; return d; }(), 6, 2, true},
      {tdesc(1000, 8000, 1), 0, 0, false},  // fewer than 4 tiles along i
      {tdesc(1024, 2048, 1), 0, 0, false},  // 2 MiB: not streamed
      {tdesc(4224, 5000, 2), 0, 0, true},  // halves: 128 x 1024 tiles
      {tdesc(1088, 3001, 2), 2, 6, true},
      {[] { transpose_desc d = tdesc(1500, 2100, 2); d.ld_in = 2560; d.ld_out = 1504; return d; }(), 0, 0, true},
      // (The plan stages; at run time an output pointer that splits elements between lines
      // takes direct stores instead, and nothing is staged.)
      {tdesc(4224, 5000, 2), 1, 0, true},
      {tdesc(500, 9000, 2), 0, 0, false},   // fewer than 4 tiles along i
      {tdesc(4224, 5000, 4), 0, 0, false},  // 4-byte tiles stay unstaged
  };
  for (const auto& c : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_transpose(c.d, threads, c.out_offset, c.in_offset, &summary), "")
          << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << "B +" << c.out_offset << " " << threads << " threads";
      const bool as_words = split && c.staged && c.d.ld_out.value_or(c.d.rows) * c.d.elem_bytes % 64 == 0;
      EXPECT_EQ(summary.find("staged input") != std::string::npos, avx2 && c.staged && !as_words) << summary;
      EXPECT_EQ(summary.find("as 4-byte") != std::string::npos, as_words) << summary;
    }
  // Batches (outer dims) are staged where each matrix is at least 1 MiB (kStagedBatchMatrixBytes),
  // with input rows from 512 B: batched transposes, misaligned ones, and permutations that are one
  // (the rank-3 reversal); a batch of smaller matrices is not, and stays right too.
  const struct {
    permute_desc d;
    bool staged;
  } batches[] = {
      {pdesc({2, 1088, 4096}, {0, 2, 1}, 1), true},
      {pdesc({3, 1120, 1536}, {0, 2, 1}, 2), true},
      {pdesc({2112, 8, 512}, {2, 1, 0}, 1), true},   // 2112 x 512 bytes a matrix, 8 of them
      {pdesc({1056, 8, 600}, {2, 1, 0}, 2), true},   // rows of 1200 B, a short last tile
      {pdesc({8, 1024, 960}, {0, 2, 1}, 1), false},  // 960 KiB a matrix
      {pdesc({2400, 8, 448}, {2, 1, 0}, 1), false},  // input rows of 448 B
      {pdesc({2113, 3, 1596}, {1, 2, 0}, 1), true},  // output rows at differing line offsets
      {pdesc({1030, 4, 1300}, {1, 2, 0}, 2), true},
      // Output rows of whole lines, fewer than 4 tiles long (whole_line_rows): every tile staged,
      // the first and last along i too; a short last i tile; halves; rows off whole lines are not.
      {pdesc({256, 16, 4096}, {2, 1, 0}, 1), true},
      {pdesc({320, 8, 4160}, {2, 1, 0}, 1), true},
      {pdesc({128, 8, 4100}, {2, 1, 0}, 2), true},
      {pdesc({360, 8, 4096}, {2, 1, 0}, 1), false},
      {pdesc({64, 64, 4096}, {2, 1, 0}, 1), false},  // rows of one line: below the staged tile's
  };
  for (const auto& b : batches)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_permute(b.d, threads, &summary), "") << summary << ", " << threads << " threads";
      EXPECT_EQ(summary.find("staged input") != std::string::npos, avx2 && b.staged) << summary;
    }
  transpose_desc batched = tdesc(1088, 4096, 1);  // and through the transpose API, pointers misaligned
  batched.batch = 2;
  std::string summary;
  ASSERT_EQ(check_transpose(batched, 2, 5, 3, &summary), "");
  EXPECT_EQ(summary.find("staged input") != std::string::npos, avx2) << summary;
  // Whole-line rows at a misaligned output: the plan stages, the tiles at the rows' ends take the
  // ordinary path at run time (their partial lines).
  for (int offset : {0, 1, 32})
    for (int threads : {1, 2}) {
      transpose_desc t = tdesc(256, 4096, 1);
      t.batch = 5;  // the matrices' output rows side by side, as in the [256,5,4096] reversal
      t.ld_out = 256 * 5;
      t.batch_stride_out = 256;
      ASSERT_EQ(check_transpose(t, threads, offset, 7, &summary), "") << offset << " " << threads;
    }
}

// Plain 2-D transposes of bytes and halves as 4-byte words (kRuleSplit, the `amd` tuning where the
// table has stream_split_lines): the 4-byte kernel's rows of quads or pairs, split into 4 or 2 output
// rows each as they stream. Against the reference under both tunings, 1-3 threads: whole and ragged
// tiles, column counts not a multiple of the word (the last j tile: the ordinary path), misaligned
// pointers (shifted i tiles, a first j tile off the word), padded leading dims, an output off by one
// byte (direct stores at run time); output rows at differing line offsets, narrow i extents and
// batches are not split.
TEST(CpuBlocked, SplitTiles) {
  namespace cpu = xpose::detail::cpu;
  const bool has = cpu::active_kernels().stream_split_lines != nullptr;
  const struct {
    transpose_desc d;
    i64 out_offset, in_offset;
    bool split;
  } cases[] = {
      {tdesc(4224, 5000, 2), 0, 0, true},
      {tdesc(4224, 3001, 2), 0, 0, true},  // an odd last j tile
      {tdesc(2112, 4000, 2), 2, 14, true},  // pointers off lines: shifted i tiles, a j tile off the pair
      {tdesc(1088, 4097, 2), 6, 2, true},
      {[] { transpose_desc d = tdesc(1500, 2100, 2); d.ld_in = 2560; d.ld_out = 1504; return d; }(), 0, 0, true},
      {tdesc(4224, 5000, 2), 1, 0, true},  // (the plan splits; at run time direct stores)
      {tdesc(4224, 5000, 1), 0, 0, true},
      {tdesc(4224, 5003, 1), 0, 0, true},   // a last j tile 3 past whole quads
      {tdesc(4160, 4103, 1), 1, 63, true},
      {tdesc(4224, 4099, 1), 17, 5, true},
      {[] { transpose_desc d = tdesc(1100, 4100, 1); d.ld_in = 4111; d.ld_out = 1152; return d; }(), 3, 9, true},
      // Output rows at differing line offsets stay staged, as do narrow i extents and batches.
      {tdesc(4225, 3001, 2), 0, 0, false},
      {[] { transpose_desc d = tdesc(1500, 2100, 2); d.ld_in = 2100; d.ld_out = 1510; return d; }(), 6, 2, false},
      {tdesc(4350, 4099, 1), 17, 5, false},
      {tdesc(500, 9000, 2), 0, 0, false},
      {tdesc(1000, 8000, 1), 0, 0, false},
      {batched(tdesc(1120, 1536, 2), 3), 0, 0, false},
      {batched(tdesc(1088, 4096, 1), 2), 0, 0, false},
  };
  for (xpose::cpu_tuning t : {xpose::cpu_tuning::kAmd, xpose::cpu_tuning::kIntel}) {
    g_tuning = t;
    for (const auto& c : cases)
      for (int threads : {1, 2, 3}) {
        std::string summary;
        ASSERT_EQ(check_transpose(c.d, threads, c.out_offset, c.in_offset, &summary), "")
            << c.d.rows << "x" << c.d.cols << " " << c.d.elem_bytes << "B +" << c.out_offset << " " << threads
            << " threads";
        EXPECT_EQ(summary.find("as 4-byte") != std::string::npos, has && c.split && t == xpose::cpu_tuning::kAmd)
            << summary;
      }
  }
  g_tuning = xpose::cpu_tuning::kAuto;
}

// stage_rows against a plain row copy: every row count around the group of 8, byte counts around
// whole lines, misaligned source and destination; nothing outside the rows is written.
TEST(CpuBlockedKernels, StageRowsCopiesEveryRow) {
  const auto* kt = xpose::detail::cpu::avx2_kernels();
  if (!kt || !__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2";
  std::mt19937_64 rng(7);
  for (i64 rows : {1, 7, 8, 9, 16, 23})
    for (i64 bytes : {1, 63, 64, 65, 200, 1024})
      for (i64 mis : {0, 5}) {
        const i64 lds = bytes + 37, ldd = bytes + 64 + 3;
        std::vector<unsigned char> src(static_cast<std::size_t>(rows * lds + 64)), dst(static_cast<std::size_t>(rows * ldd + 64), 0xA5);
        for (auto& b : src) b = static_cast<unsigned char>(rng());
        std::vector<unsigned char> want = dst;
        for (i64 r = 0; r < rows; ++r)
          std::memcpy(want.data() + mis + r * ldd, src.data() + mis + r * lds, static_cast<std::size_t>(bytes));
        kt->stage_rows(reinterpret_cast<std::byte*>(dst.data() + mis), ldd, reinterpret_cast<const std::byte*>(src.data() + mis),
                       lds, rows, bytes);
        ASSERT_EQ(dst, want) << rows << " rows of " << bytes << " B, +" << mis;
      }
}

// kernel_table::pad_rows / unpad_rows, every padded element size: each element's bytes land in its
// slot and come back, rows of 1-40 elements at an odd offset, and nothing past a row's slots (pad)
// or its packed bytes (unpad) is written.
TEST(CpuBlockedKernels, PadRowsRoundTrip) {
  namespace c = xpose::detail::cpu;
  const auto* kt = c::avx2_kernels();
  if (!kt || !__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2";
  ASSERT_NE(kt->pad_rows, nullptr);
  std::mt19937_64 rng(11);
  for (const i64 e : {3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15}) {
    const i64 P = c::padded_size(e);
    ASSERT_GT(P, e);
    for (i64 count = 1; count <= 40; ++count) {
      const i64 rows = 3, mis = 3, lds = count * e + 5, ldd = count * P + 7;
      std::vector<unsigned char> src(static_cast<std::size_t>(rows * lds + mis + 16));
      for (auto& b : src) b = static_cast<unsigned char>(rng());
      std::vector<unsigned char> slots(static_cast<std::size_t>(rows * ldd + mis + 16), 0xA5);
      kt->pad_rows(reinterpret_cast<std::byte*>(slots.data() + mis), ldd,
                   reinterpret_cast<const std::byte*>(src.data() + mis), lds, rows, count, e);
      for (i64 r = 0; r < rows; ++r) {
        for (i64 k = 0; k < count; ++k)
          ASSERT_EQ(std::memcmp(slots.data() + mis + r * ldd + k * P, src.data() + mis + r * lds + k * e,
                                static_cast<std::size_t>(e)),
                    0)
              << e << " B, " << count << " elements, row " << r << " element " << k;
        for (i64 b = count * P; b < ldd; ++b)
          ASSERT_EQ(slots[static_cast<std::size_t>(mis + r * ldd + b)], 0xA5) << e << " B, " << count << ", past row " << r;
      }
      std::vector<unsigned char> back(src.size(), 0x5A);
      kt->unpad_rows(reinterpret_cast<std::byte*>(back.data() + mis), lds,
                     reinterpret_cast<const std::byte*>(slots.data() + mis), ldd, rows, count, e);
      for (i64 r = 0; r < rows; ++r) {
        ASSERT_EQ(std::memcmp(back.data() + mis + r * lds, src.data() + mis + r * lds, static_cast<std::size_t>(count * e)), 0)
            << e << " B, " << count << " elements, row " << r;
        for (i64 b = count * e; b < lds; ++b)
          ASSERT_EQ(back[static_cast<std::size_t>(mis + r * lds + b)], 0x5A) << e << " B, " << count << ", past row " << r;
      }
    }
  }
}

// Folded elements of 3 bytes go through the 4-byte kernel on padded slots (blocked.cpp
// tile_runner::padded_tile, pads_elements): plain (small and streamed, 1-3 threads) and chained,
// against the reference; 5 bytes keep the strided scalar tile.
TEST(CpuBlocked, PaddedOddElements) {
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
    bool padded;
  } cases[] = {
      {{37, 41, 3}, {1, 0, 2}, true},
      {{3000, 700, 3}, {1, 0, 2}, true},  // 6 MB: streams
      {{5, 3001, 3}, {1, 0, 2}, true},    // a short side
      {{60, 14, 9, 17, 15, 3}, {1, 4, 3, 0, 2, 5}, true},  // chained tiles
      {{53, 29, 5}, {1, 0, 2}, false},
  };
  for (const auto& cs : cases)
    for (int threads : {1, 2, 3}) {
      std::string summary;
      ASSERT_EQ(check_permute(pdesc(cs.extents, cs.perm, 1), threads, &summary), "")
          << cs.extents.back() << "-byte elements, " << threads << " threads: " << summary;
      if (__builtin_cpu_supports("avx2"))
        EXPECT_EQ(summary.find("4-byte slots") != std::string::npos, cs.padded) << summary;
    }
}

// Folded rows of sizes other than 1, 2, 4, 8, 16 bytes, from 3 bytes up and including those over 32
// bytes (copied in 32-byte moves, the last one overlapping), with the folded tile shapes; small
// and streaming.
TEST(CpuBlocked, FoldedOddElements) {
  namespace c = xpose::detail::cpu;
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
    int eb;
    i64 elem;  // the folded element's bytes
  } cases[] = {
      {{37, 41, 3}, {1, 0, 2}, 4, 12},    {{37, 41, 33}, {1, 0, 2}, 1, 33},  {{29, 53, 9}, {1, 0, 2}, 4, 36},
      {{29, 53, 32}, {1, 0, 2}, 2, 64},   {{23, 31, 24}, {1, 0, 2}, 4, 96},  {{13, 17, 55}, {1, 0, 2}, 4, 220},
      {{5, 7, 9, 19}, {2, 0, 1, 3}, 8, 152}, {{11, 3, 101, 5}, {2, 1, 0, 3}, 16, 80},
      {{300, 200, 25}, {1, 0, 2}, 4, 100},  // 6 MB: streams
      {{2000, 70, 11}, {1, 0, 2}, 2, 22},   // 3 MB
      {{37, 41, 3}, {1, 0, 2}, 1, 3},       // 3 bytes: two overlapping 2-byte moves
      {{29, 53, 5}, {1, 0, 2}, 1, 5},       {{29, 53, 7}, {1, 0, 2}, 1, 7},
      {{3000, 700, 3}, {1, 0, 2}, 1, 3},    // 6 MB of 3-byte elements: streams
  };
  for (const auto& cs : cases) {
    const permute_desc d = pdesc(cs.extents, cs.perm, cs.eb);
    const auto n = c::make_nest(normalized(d));
    ASSERT_EQ(n.k, c::blocked_nest::kind::kTiles);
    EXPECT_EQ(n.elem, cs.elem);
    for (int threads : {1, 2, 3})
      ASSERT_EQ(check_permute(d, threads), "") << cs.elem << "-byte elements, " << threads << " threads";
  }
}

TEST(CpuBlocked, NamedPermutations) {
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
  } cases[] = {
      {{4, 6, 10, 12}, {0, 2, 3, 1}},        // NCHW -> NHWC
      {{4, 10, 12, 6}, {0, 3, 1, 2}},        // NHWC -> NCHW
      {{5, 6, 7, 8, 9}, {4, 3, 2, 1, 0}},    // reversal
      {{20, 30, 3}, {1, 0, 2}},              // 12-byte rows folded into the element (not a kernel size)
      {{20, 30, 200}, {1, 0, 2}},            // rows of >= 512 B: row copies
      {{9, 20, 30, 2}, {2, 1, 0, 3}},        // 8-byte folded rows, reversed outer dims
      {{2, 3, 2, 3, 2, 3, 2, 3}, {7, 5, 3, 1, 6, 4, 2, 0}},  // rank 8
      {{1, 50, 1, 60}, {3, 2, 1, 0}},        // unit dims dropped
      {{100000}, {0}},                       // a copy
  };
  for (const auto& c : cases)
    for (int eb : kElemSizes)
      for (int threads : {1, 2, 3}) {
        const permute_desc d = pdesc(c.extents, c.perm, eb);
        ASSERT_EQ(check_permute(d, threads), "") << d.extents.size() << "-d case, " << eb << "B, " << threads << " threads";
      }
}

TEST(CpuBlocked, LargePermutationsStream) {
  const struct {
    std::vector<i64> extents;
    std::vector<int> perm;
  } cases[] = {
      {{16, 64, 64, 64}, {0, 2, 3, 1}},  // 16 MiB f32, tiles
      {{64, 64, 1024}, {1, 0, 2}},       // rows of 4 KiB
      {{4194304}, {0}},                  // a 16 MiB copy
      {{4, 8, 8, 8, 8, 16, 32}, {6, 5, 4, 3, 2, 1, 0}},  // small extents: chained tiles
      {{1024, 9, 9, 7, 8}, {3, 0, 4, 2, 1}},
  };
  for (const auto& c : cases) {
    const permute_desc d = pdesc(c.extents, c.perm, 4);
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << summary;
    if (xpose::detail::cpu::active_kernels().stream_copy) {
      EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
    }
  }
}

}  // namespace

// Broadcast inputs (a zero input stride) whose nests chain along the broadcast axis: a tile must
// not read the j chain as j's continuation (its links continue j's extent, not j's zero stride;
// j_chain_continues). [M, 8, 17, 6] perm 0,3,2,1 with the fastest input dim broadcast and padded
// output rows: j is that dim, its chain the 17; likewise with that dim at a stride of 2 (inputs may
// alias: element (b, j) at 6b + 2j). Until the seventeenth session the large ones (M = 1000, rows 16
// elements apart) were streamed, staged whole, and wrong.
TEST(CpuBlocked, BroadcastChains) {
  for (const i64 m : {1, 40, 1000}) {
    for (const int eb : kElemSizes) {
      for (const i64 pad : {10, 16}) {  // output rows of the 17 apart by 10 or 16 elements
        for (const i64 js : {0, 2}) {    // broadcast, or every other element (aliasing)
          permute_desc d = pdesc({m, 8, 17, 6}, {0, 3, 2, 1}, eb);
          d.in_strides = {8 * 108, 108, 6, js};
          d.out_strides = {6 * 17 * pad, 17 * pad, pad, 1};
          std::string summary;
          ASSERT_EQ(check_permute(d, 2, &summary), "")
              << m << " x " << eb << " B, pad " << pad << ", j stride " << js << ": " << summary;
          EXPECT_NE(summary.find("j chain x17"), std::string::npos) << summary;
        }
      }
    }
  }
}

// Direct chained tiles of a few elements a side with a long j chain, staged whole (run_tiles'
// direct_staged, below kDirectStagedBelow): the suite's [264,12,6,2,15,18,13,2] perm
// 7,4,1,3,6,2,0,5 layout (18 x 2 base tiles, a j chain of 13) at a few sizes, every element size.
TEST(CpuBlocked, SmallChainedTilesStagedWhole) {
  for (const i64 m : {5, 7}) {
    for (const int eb : kElemSizes) {
      const permute_desc d = pdesc({m, 12, 6, 2, 15, 18, 13, 2}, {7, 4, 1, 3, 6, 2, 0, 5}, eb);
      for (const int threads : {1, 2}) {
        std::string summary;
        ASSERT_EQ(check_permute(d, threads, &summary), "") << m << " x " << eb << " B: " << summary;
        EXPECT_NE(summary.find("j chain x13"), std::string::npos) << summary;
      }
    }
  }
}

namespace {

// A permutation of eb-byte elements against the reference with 1 thread and an aligned output, then
// with 2 threads and the output 5 elements off alignment; each run's plan summary goes to `expect`.
template <class Expect>
void check_both_ways(const std::vector<i64>& extents, const std::vector<int>& perm, int eb, Expect&& expect) {
  const permute_desc d = pdesc(extents, perm, eb);
  for (const int threads : {1, 2}) {
    const i64 out_off = threads == 1 ? 0 : 5 * eb;
    std::string summary;
    ASSERT_EQ(check(d, threads, span(d.extents, d.in_strides), span(out_extents(d), d.out_strides), out_off, 0,
                    &summary),
              "")
        << d.extents[0] << " x ... " << threads << " threads: " << summary;
    expect(summary);
  }
}

}  // namespace

// Chained tiles of bytes whose input rows alias in the L1 cache (a multiple of 2 KiB apart) copy
// them into the staging area first (chained_tile): reversals whose tiles take a chain link in
// blocks with a remainder (24: a j chain of 5 out of a link of 16), or leave an edge tile (300: 256
// rows, then 44), aligned and unaligned outputs.
TEST(CpuBlocked, ChainedTilesStageInput) {
  struct shape {
    std::vector<i64> extents;
    std::vector<int> perm;
  };
  const std::vector<shape> shapes = {{{16, 8, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}},
                                     {{24, 8, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}},
                                     {{16, 8, 16, 16, 40, 64}, {5, 4, 3, 2, 1, 0}},
                                     {{64, 16, 64, 128}, {3, 2, 1, 0}},
                                     {{300, 4, 16, 16, 32}, {4, 3, 2, 1, 0}}};
  for (const shape& sh : shapes)
    check_both_ways(sh.extents, sh.perm, 1, [](const std::string& summary) {
      EXPECT_NE(summary.find("chain x"), std::string::npos) << summary;
      EXPECT_NE(summary.find("staged input"), std::string::npos) << summary;
    });
}

// Streamed chained tiles of bytes whose i chain has several links stage a group of links' rows
// together and transpose them in one call (blocked.cpp
// chain_links_staged): random inputs against the reference, 1 and 2 threads, an output offset by
// 5 bytes (no line-aligned rows), an i chain link split with a remainder ([5,201,168,85]: blocks of
// 52 of the 201, the last one clipped), input rows of 17-456 B, and rows of 14, 10 and 8 B (2-byte
// folded elements), which are staged packed for the narrow kernels' packed-input path.
TEST(CpuBlocked, ChainLinksStagedTogether) {
  struct shape {
    std::vector<i64> extents;
    std::vector<int> perm;
    bool together;
  };
  const std::vector<shape> shapes = {{{24, 15, 13, 9, 2, 11, 17}, {6, 2, 0, 3, 4, 5, 1}, true},
                                     {{88, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, true},
                                     {{6, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, true},
                                     {{48, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, true},
                                     {{5, 201, 168, 85}, {3, 2, 1, 0}, true},
                                     {{4, 15, 17, 4, 9, 6, 13, 14}, {3, 0, 1, 2, 7, 4, 6, 5}, true},
                                     {{12, 23, 14, 4, 15, 11, 10}, {3, 1, 6, 0, 4, 5, 2}, true},
                                     {{24, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, true}};
  for (const shape& sh : shapes)
    check_both_ways(sh.extents, sh.perm, 1, [&sh](const std::string& summary) {
      EXPECT_EQ(summary.find("i chain links together") != std::string::npos, sh.together) << summary;
    });
}

// Chained tiles written with ordinary stores (outputs under 4 MiB, or tiles too small to stream)
// stage their links together too, then copy the tile's output rows out of the staging buffer:
// bytes and halves, 1 and 2 threads, aligned and offset outputs.
TEST(CpuBlocked, ChainLinksStagedDirect) {
  struct shape {
    std::vector<i64> extents;
    std::vector<int> perm;
    int eb;
  };
  const std::vector<shape> shapes = {{{4, 12, 6, 2, 15, 18, 13, 2}, {7, 4, 1, 3, 6, 2, 0, 5}, 1},
                                     {{3, 15, 13, 9, 2, 11, 17}, {6, 2, 0, 3, 4, 5, 1}, 2},
                                     {{6, 23, 14, 4, 15, 11, 10}, {3, 1, 6, 0, 4, 5, 2}, 2},
                                     {{2, 12, 6, 2, 15, 18, 13, 2}, {7, 4, 1, 3, 6, 2, 0, 5}, 2}};  // 2-column links
  for (const shape& sh : shapes)
    check_both_ways(sh.extents, sh.perm, sh.eb, [](const std::string& summary) {
      EXPECT_NE(summary.find("i chain links together"), std::string::npos) << summary;
      EXPECT_EQ(summary.find("streaming"), std::string::npos) << summary;
    });
}

// The stopped i chain's plan against the reference (a smaller [N,8,6,18,19,5] perm 2,5,0,4,3,1 of
// bytes, 1 and 2 threads, aligned and offset output).
TEST(CpuBlocked, StoppedIChain) {
  check_both_ways({40, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1, [](const std::string& summary) {
    EXPECT_NE(summary.find("i chain x18, j chain x19"), std::string::npos) << summary;
  });
}

// Chained tiles whose output rows of one j index form one run over the j chain (blocked.cpp
// j_chain_runs) stream each run whole, gathered from the staging buffer: [N,8,6,18,19,5] perm
// 2,5,0,4,3,1 (runs of 19 rows of 144 B for bytes, 288 B for halves; outputs over 4 MiB), 1 and 2
// threads, aligned and offset outputs. The bytes' tiles (13.7 KB) are streamed only through the
// runs (kChainRunMinBytes): written with ordinary stores otherwise.
TEST(CpuBlocked, ChainRunsStreamWhole) {
  check_both_ways({320, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1, [](const std::string& summary) {
    EXPECT_NE(summary.find("i chain x18, j chain x19"), std::string::npos) << summary;
    EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
  });
  check_both_ways({160, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 2, [](const std::string& summary) {
    EXPECT_NE(summary.find("streaming"), std::string::npos) << summary;
  });
}

// The same for halves: links of 3-8 rows and 5-85 columns staged together, a link split with a
// remainder ([3,201,168,85]), output rows off alignment; links that are whole 8 x 16 register
// blocks ([8,8,16,16,16,64]: 8 x 64) or 3 columns narrow ([24,12,21,3,8,19,3], streamed) keep one
// kernel call each (blocked.cpp link_is_whole_blocks, link_rows_too_short); the folded 4-byte
// elements of [24,23,10,12,8,4,2] (links of 4 columns, packed rows) are grouped too.
TEST(CpuBlocked, ChainLinksStagedTogetherHalves) {
  struct shape {
    std::vector<i64> extents;
    std::vector<int> perm;
    bool together;
  };
  const std::vector<shape> shapes = {{{44, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, true},
                                     {{2, 15, 17, 4, 9, 6, 13, 14}, {3, 0, 1, 2, 7, 4, 6, 5}, true},  // 28 B rows, packed
                                     {{24, 23, 10, 12, 8, 4, 2}, {5, 1, 3, 2, 0, 4, 6}, true},  // 4-byte folded, 4 wide
                                     {{3, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, true},
                                     {{24, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, false},
                                     {{3, 201, 168, 85}, {3, 2, 1, 0}, true},
                                     {{60, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, true},
                                     {{8, 8, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, false}};
  for (const shape& sh : shapes)
    check_both_ways(sh.extents, sh.perm, 2, [&sh](const std::string& summary) {
      EXPECT_EQ(summary.find("i chain links together") != std::string::npos, sh.together) << summary;
    });
}

namespace {

// For the large random tests below: a permutation of `rank` dims and about 6 MiB, extents of 1-40
// (1-9 for the last and a third of the others) with one stretched to the budget, in random order.
permute_desc random_large_permutation(std::mt19937_64& rng, int rank, int eb) {
  permute_desc d;
  d.elem_bytes = eb;
  const i64 budget = (6 << 20) / eb;
  i64 n = 1;
  for (int k = 0; k < rank; ++k) {
    i64 e = 1 + static_cast<i64>(rng() % (k == rank - 1 || rng() % 3 == 0 ? 9 : 40));
    while (n * e > budget / 4 && e > 1) e /= 2;  // the long dim below brings it to the budget
    d.extents.push_back(e);
    n *= e;
  }
  d.extents[static_cast<std::size_t>(rng() % rank)] *= std::max<i64>(1, budget / n);  // one long dim
  d.perm.resize(static_cast<std::size_t>(rank));
  for (int k = 0; k < rank; ++k) d.perm[static_cast<std::size_t>(k)] = k;
  std::shuffle(d.perm.begin(), d.perm.end(), rng);
  return d;
}

// Row-major strides of d's input (out: output) dims, the fastest `first` apart, each dim padded by
// 0-2 elements where `pad`.
std::vector<i64> random_strides(std::mt19937_64& rng, const permute_desc& d, bool out, i64 first, bool pad) {
  const int rank = static_cast<int>(d.extents.size());
  std::vector<i64> s(static_cast<std::size_t>(rank));
  i64 acc = first;
  for (int k = rank - 1; k >= 0; --k) {
    s[static_cast<std::size_t>(k)] = acc;
    const int dim = out ? d.perm[static_cast<std::size_t>(k)] : k;
    acc *= d.extents[static_cast<std::size_t>(dim)] + (pad ? static_cast<i64>(rng() % 3) : 0);
  }
  return s;
}

}  // namespace

// Random permutations with one broadcast input dim at sizes that stream (outputs of 4-16 MiB), dense
// or padded outputs, every element size: the paths the small random cases above never reach. Before
// j_chain_continues, trial 6 ([40,27,7,416] f16, the 7 broadcast) was wrong from output byte 157248.
TEST(CpuBlocked, RandomBroadcastsLarge) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 3 + trial % 4;
    permute_desc d = random_large_permutation(rng, rank, kElemSizes[trial % 5]);
    d.in_strides = random_strides(rng, d, false, 1, false);
    d.in_strides[static_cast<std::size_t>(rng() % rank)] = 0;
    if (trial % 2) d.out_strides = random_strides(rng, d, true, 1, true);
    std::string summary;
    ASSERT_EQ(check_permute(d, 2, &summary), "") << "trial " << trial << ": " << summary;
  }
}

// Random permutations at streaming sizes (outputs of 4-16 MiB) whose inputs are strided in every dim
// (the fastest too: every other element, or rows padded), dense or padded outputs, every element size.
TEST(CpuBlocked, RandomStridedLarge) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 30; ++trial) {
    permute_desc d = random_large_permutation(rng, 2 + trial % 5, kElemSizes[trial % 5]);
    d.in_strides = random_strides(rng, d, false, trial % 3 == 0 ? 2 : 1, true);
    if (trial % 2) d.out_strides = random_strides(rng, d, true, 1, true);
    std::string summary;
    ASSERT_EQ(check_permute(d, 1 + trial % 2, &summary), "") << "trial " << trial << ": " << summary;
  }
}

// Random 2-D transposes at streaming sizes (4-12 MiB outputs): any shape, padded leading dimensions,
// batches with padded batch strides, pointers at any element offset from a line, every element size.
TEST(CpuBlocked, RandomTransposesLarge) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 30; ++trial) {
    const int eb = kElemSizes[trial % 5];
    const i64 elems = ((4 << 20) + static_cast<i64>(rng() % (8 << 20))) / eb;
    const i64 batch = trial % 3 ? 1 : 1 + static_cast<i64>(rng() % 6);
    const i64 rows = 1 + static_cast<i64>(rng() % (trial % 4 == 0 ? 40 : 5000));
    const i64 cols = std::max<i64>(1, elems / batch / rows);
    transpose_desc d = tdesc(rows, cols, eb);
    d.batch = batch;
    if (trial % 2) {
      d.ld_in = cols + static_cast<i64>(rng() % 20);
      d.ld_out = rows + static_cast<i64>(rng() % 20);
    }
    if (batch > 1 && trial % 4 == 3) {
      d.batch_stride_in = rows * d.ld_in.value_or(cols) + static_cast<i64>(rng() % 100);
      d.batch_stride_out = cols * d.ld_out.value_or(rows) + static_cast<i64>(rng() % 100);
    }
    const i64 out_off = static_cast<i64>(rng() % (64 / eb)) * eb, in_off = static_cast<i64>(rng() % (64 / eb)) * eb;
    std::string summary;
    ASSERT_EQ(check_transpose(d, 1 + trial % 2, out_off, in_off, &summary), "")
        << "trial " << trial << ": " << batch << " x " << rows << "x" << cols << " " << eb << " B ld "
        << d.ld_in.value_or(cols) << "/" << d.ld_out.value_or(rows) << " offsets " << in_off << "/" << out_off << ": "
        << summary;
  }
}

// Random permutations at streaming sizes with pointers at any element offset from a line, dense or
// padded on either side, every element size: the alignment logic of the streamed paths (tile shifts,
// `ext`, partial lines) on permutations rather than 2-D transposes.
TEST(CpuBlocked, RandomPermutationsLargeOffsets) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 30; ++trial) {
    const int eb = kElemSizes[trial % 5];
    permute_desc d = random_large_permutation(rng, 3 + trial % 5, eb);
    if (trial % 3 == 1) d.in_strides = random_strides(rng, d, false, 1, true);
    if (trial % 2 == 1) d.out_strides = random_strides(rng, d, true, 1, true);
    const i64 out_off = static_cast<i64>(rng() % (64 / eb)) * eb, in_off = static_cast<i64>(rng() % (64 / eb)) * eb;
    std::string summary;
    ASSERT_EQ(check(d, 1 + trial % 2, span(d.extents, d.in_strides), span(out_extents(d), d.out_strides), out_off,
                    in_off, &summary),
              "")
        << "trial " << trial << " offsets " << in_off << "/" << out_off << ": " << summary;
  }
}
