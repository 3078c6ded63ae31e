// Helpers shared by the tests: seeded random data, poisoning, comparison, GPU presence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "xpose/xpose.hpp"

// Status values print by name in failure messages.
namespace xpose {
inline void PrintTo(status s, std::ostream* os) { *os << status_name(s); }
}  // namespace xpose

namespace xpose::test {

// Dense descriptors: a rows x cols transpose, a permutation of `extents`.
transpose_desc tdesc(std::int64_t rows, std::int64_t cols, int elem_bytes = 4);
permute_desc pdesc(std::vector<std::int64_t> extents, std::vector<int> perm, int elem_bytes = 4);

// The i8 suite's five shapes that take permute_box's shifted word gather (raw rows of bytes), cut to
// 22-33 MB: BoxTile.ShiftedWordGatherOnSuiteShapes checks they plan it, GpuRandom.
// PermuteBoxShiftedWords runs them.
std::vector<permute_desc> shifted_word_suite_shapes();

// Draw c of the shapes that give permute_box a compact halo often enough to test (box_tile.hpp):
// reversals of rank 3 or 4 (every other one with its two fastest output dims swapped) of 1- to
// 8-byte elements whose input-slowest dim, the output's fastest, holds 16 / s elements or more.
// BoxTile.CompactHaloRandomShapes and GpuRandom.PermuteBoxCompactHalo keep those that take one.
permute_desc compact_halo_shape(std::uint64_t seed, int c);

// One case per kernel that set_tile_order must put in panels (their input seams' neighbours far
// apart in output order, their spans at most kTilePanelMaxSpanBytes), with an input offset in
// elements: GpuPlanner.TilePanelCasesPlanPanels checks the plan, GpuRandom.TilePanels runs them.
struct tile_panel_case {
  permute_desc desc;
  const char* kernel;
  std::int64_t in_off;
};
std::vector<tile_panel_case> tile_panel_cases();

// Straight from desc.hpp, independent of the planner: for every output index in row-major order,
// the (input offset, output offset) pair in elements: out[i_0..i_{r-1}] = in[j], j[perm[k]] = i_k.
std::vector<std::pair<std::int64_t, std::int64_t>> definition_offsets(const permute_desc& d);

// plan_options for a GPU plan of `variant` with an optional block.
plan_options gpu_opts(std::string variant = "auto", int block_x = 0, int block_y = 0);

// Fills `bytes` bytes with a splitmix64 stream from `seed` (never all zeros).
void fill_random(void* p, std::size_t bytes, std::uint64_t seed);
// Poison pattern written over outputs before a run, so unwritten elements show.
inline constexpr unsigned char kPoison = 0xA5;
void poison(void* p, std::size_t bytes, unsigned char value = kPoison);
// Index of the first differing byte, or -1.
std::int64_t first_difference(const void* a, const void* b, std::size_t bytes);

// The buffers of a host emulation of a GPU kernel (tests/plan): a random input over the
// descriptor's input span, the reference output, a poisoned output the emulation fills through
// put(), and a count of the stores to each output byte.
struct emulation {
  std::int64_t in_bytes = 0, out_bytes = 0;
  std::vector<unsigned char> in, want, got;
  std::vector<int> written;
  // Stores v at output byte `at` and counts the store; false when `at` is outside the output.
  bool put(std::int64_t at, unsigned char v);
  // "" when no output byte was stored twice and the output equals the reference, else what differs.
  std::string verdict() const;
};
emulation make_emulation(const permute_desc& d, std::uint64_t seed);

// True when a CUDA device is usable; otherwise *reason says why (for GTEST_SKIP).
bool gpu_available(std::string* reason);

}  // namespace xpose::test

// Skips the current test with the reason when no GPU is usable.
#define XPOSE_REQUIRE_GPU()                                         \
  do {                                                              \
    std::string xpose_reason_;                                      \
    if (!::xpose::test::gpu_available(&xpose_reason_))              \
      GTEST_SKIP() << "no CUDA device: " << xpose_reason_;          \
  } while (0)
