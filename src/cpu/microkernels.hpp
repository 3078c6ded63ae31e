// Tile kernels of the blocked CPU backend (cpu_blocked), one table per instruction set.
//
// A tile kernel transposes one cache-resident tile of E-byte elements; all strides are in BYTES,
// so one kernel serves a fused row of a permutation as well as a plain element:
//
//     out[j*ldo + i*E] = in[i*ldi + j*E],   0 <= i < rows, 0 <= j < cols          // (rows, cols)
//
// i.e. the tile's input rows are contiguous, and so are its output rows (the input's columns).
// The AVX2 table builds each tile from register micro-kernels (8x8 for 4-byte elements, 4x4 for
// 8-byte, 16x16 or 8x16 for 2-byte, 16x32 for 1-byte, plain 16-byte moves for 16-byte, pshufb or
// permute kernels for narrow tiles) plus masked or scalar edges;
// the scalar table is the portable fallback. src/cpu/blocked.cpp does the blocking and threading.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace xpose::detail::cpu {

using tile_fn = void (*)(const std::byte* in, std::int64_t ldi, std::byte* out, std::int64_t ldo, std::int64_t rows,
                         std::int64_t cols);
// Copies `bytes` bytes with non-temporal (streaming) stores where the destination allows it.
using copy_fn = void (*)(std::byte* dst, const std::byte* src, std::size_t bytes);

struct kernel_table {
  const char* isa;                 // "avx2" or "scalar", for plan summaries and tests
  std::array<tile_fn, 5> tile{};   // indexed by log2(element bytes): 1, 2, 4, 8, 16
  copy_fn stream_copy = nullptr;   // null: no streaming stores on this ISA (use memcpy)
  // For each of `rows` rows (row r at dst + r*ldo, staged at buf + r*ldb): streams the whole
  // 64-byte lines from the row's first line boundary on, through the line holding byte len - 1,
  // i.e. bytes [first, first + 64 * ceil((len - first) / 64)). The caller makes sure the staging
  // buffer holds those bytes and that the row owns those lines. Null with stream_copy.
  void (*stream_lines)(std::byte* dst, std::int64_t ldo, const std::byte* buf, std::int64_t ldb, std::int64_t rows,
                       std::int64_t len) = nullptr;
  void (*stream_fence)() = nullptr;  // orders this thread's streaming stores before later loads
  // Copies `rows` rows of `bytes` bytes (src rows lds apart, dst rows ldd apart) with ordinary
  // stores: the input staging of tiles whose input rows alias in the L1 cache.
  void (*copy_rows)(std::byte* dst, std::int64_t ldd, const std::byte* src, std::int64_t lds, std::int64_t rows,
                    std::int64_t bytes) = nullptr;
};

// Tiles whose input rows are at least this long are walked along each group of input rows first
// (the AVX2 kernels; microkernels_avx2.cpp says why), shorter ones down each column of blocks.
inline constexpr std::int64_t kRowsFirstBytes = 1024;

// Index into kernel_table::tile for E-byte elements, or -1 when E is not 1, 2, 4, 8 or 16.
constexpr int elem_index(std::int64_t e) {
  switch (e) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
  }
  return -1;
}

const kernel_table& scalar_kernels();
// Null when the library was built for a processor without an AVX2 build of the kernels.
const kernel_table* avx2_kernels();
// The kernels run_blocked uses: AVX2 when the build has them and the CPU supports them
// (__builtin_cpu_supports, checked once), else scalar.
const kernel_table& active_kernels();

}  // namespace xpose::detail::cpu
