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
  // As copy_rows, but reading kStageGroupRows rows side by side, one 64-byte line of each in
  // turn: the input staging of the staged byte and half tiles (blocked.cpp, run_tiles), whose rows
  // are far apart in memory. Null: those tiles take the ordinary path.
  void (*stage_rows)(std::byte* dst, std::int64_t ldd, const std::byte* src, std::int64_t lds, std::int64_t rows,
                     std::int64_t bytes) = nullptr;
  // Folded elements of e = 3, 5, 6, 7 or 9..15 bytes, padded to slots of padded_size(e) bytes so
  // that the kernel of that size transposes them (blocked.cpp, tile_runner): pad_rows copies `rows`
  // rows of `count` packed elements (src rows lds apart) into rows of slots (dst, ldd apart), the
  // slots' extra bytes left undefined; unpad_rows packs rows of slots back, writing exactly the
  // rows' count * e bytes. Null: such elements take the strided scalar tile.
  void (*pad_rows)(std::byte* dst, std::int64_t ldd, const std::byte* src, std::int64_t lds, std::int64_t rows,
                   std::int64_t count, std::int64_t e) = nullptr;
  void (*unpad_rows)(std::byte* dst, std::int64_t ldd, const std::byte* src, std::int64_t lds, std::int64_t rows,
                     std::int64_t count, std::int64_t e) = nullptr;
  // A tile of 16-byte elements transposed straight to the output with streaming stores, two
  // elements a store: each output row's `rows` elements in turn, so its write-combining buffers
  // fill whole lines one after another. The caller makes sure the rows are whole lines (rows a
  // multiple of 4) starting on line boundaries. Null: the tile goes through the staging buffer.
  tile_fn stream_tile_16b = nullptr;
  // The narrow unzip (blocked.cpp, run_unzip): `count` packed input rows of n (kUnzipMinChannels ..
  // kUnzipMaxChannels) e-byte elements (e = 1, 2, 4 or 8) at in -> n output rows of count elements,
  // row c at out + c * ldo, streamed: out[c * ldo + i * e] = in[(i * n + c) * e]. Each row's whole
  // lines are streamed and the partial lines at its ends written by masked stores (out and ldo
  // multiples of e). Null: such problems take the tiles.
  void (*unzip_stream)(const std::byte* in, std::byte* out, std::int64_t ldo, std::int64_t n, std::int64_t e,
                       std::int64_t count) = nullptr;
  // The reverse (blocked.cpp, run_zip): n input rows of count e-byte elements (row c at in + c * ldi)
  // -> count packed output rows of n elements at out, streamed from the output's first line boundary
  // a group can start on: out[(j * n + c) * e] = in[c * ldi + j * e]. Null: the tiles.
  void (*zip_stream)(const std::byte* in, std::int64_t ldi, std::byte* out, std::int64_t n, std::int64_t e,
                     std::int64_t count) = nullptr;
  // stream_copy reading several pieces of the source side by side instead of one sequential
  // stream, for plans of the `intel` tuning: tuned_kernels (blocked.hpp) puts it in stream_copy's
  // place for them (microkernels_avx2.cpp says why). Null: stream_copy serves every tuning.
  copy_fn stream_copy_pieces = nullptr;
  // The 1- and 2-byte tiles for plans of the `amd` tuning, which tuned_kernels puts in tile[0] and
  // tile[1]'s place: the VBMI table's, also taking narrow tiles of any length (microkernels_vbmi.cpp
  // says why). Null: tile[] serves every tuning.
  std::array<tile_fn, 2> tile_amd{};
  // stream_lines for 1- and 2-byte elements transposed as 4-byte words (blocked.cpp, run_tiles'
  // split tiles): buffer row k (at buf + k * ldb) holds words of W = 4 / e elements, and part q of
  // its word m (bytes q e .. q e + e - 1) is element m of output row W k + q (rows at dst + (W k +
  // q) * ldo). Each output row streams the lines stream_lines would stream for a row of len bytes.
  // Null: such tiles take the other paths. Only the AVX-512 table has it, and tuned_kernels keeps it
  // for the `amd` tuning only (blocked.cpp, kRuleSplit, says why).
  void (*stream_split_lines)(std::byte* dst, std::int64_t ldo, const std::byte* buf, std::int64_t ldb,
                             std::int64_t rows, std::int64_t len, std::int64_t e) = nullptr;
};

// unzip_stream's channels, and how it walks its input: kUnzipPieces pieces of kUnzipPieceBytes of
// each output row side by side (unzip_avx512.cpp says why); run_unzip splits the work between
// threads in such blocks. Eight channels (16 output streams a thread) lost to the tiles: Intel Xeon
// host, 2 threads, two alternating rounds, GB/s, tiles -> unzip_stream, 4e7 x 8 f32 34.9, 35.4 ->
// 33.1, 33.7, f64 38.7, 39.3 -> 33.7, 34.2; 3e7 x 7 f64 35.2, 36.3 -> 36.0, 36.4 (f32 16.1, 16.5 ->
// 20.3, 22.7); 2 to 6 channels gained 5-16 GB/s (docs/cpu.md "Thirty-first session").
inline constexpr std::int64_t kUnzipMinChannels = 2, kUnzipMaxChannels = 7;
inline constexpr int kUnzipPieces = 2;
inline constexpr std::int64_t kUnzipPieceBytes = 4096;
// The AVX-512 (F, BW, VBMI) unzip_stream (unzip_avx512.cpp); only for the VBMI table, chosen after a
// run-time check.
void unzip_stream_avx512(const std::byte* in, std::byte* out, std::int64_t ldo, std::int64_t n, std::int64_t e,
                         std::int64_t count);
void zip_stream_avx512(const std::byte* in, std::int64_t ldi, std::byte* out, std::int64_t n, std::int64_t e,
                       std::int64_t count);

// The widest packed byte rows (2-D: columns) that the VBMI medium tiles take on the input side
// (microkernels_vbmi.cpp says why; wider rows lost to the AVX2 blocks); chained links of byte rows
// up to this width are staged packed for them (blocked.cpp, links_stage_stride).
inline constexpr std::int64_t kMediumPackedMax1 = 24;

// The slot a folded element of e bytes is padded to (kernel_table::pad_rows): the next power of
// two, for e = 3, 5, 6, 7 and 9..15; 0 for the others (1, 2, 4, 8, 16 have kernels of their own,
// longer ones take the strided scalar tile).
constexpr std::int64_t padded_size(std::int64_t e) {
  if (e == 3) return 4;
  if (e > 4 && e < 8) return 8;
  if (e > 8 && e < 16) return 16;
  return 0;
}

// Rows read side by side by kernel_table::stage_rows. A group of 8 gives the hardware prefetchers
// 8 sequential streams, enough to keep the loads in flight, where one row at a time (copy_rows)
// restarts a stream at every row: 16384^2 i8, input rows 16 KiB apart, one thread, the copy alone
// moved 26-32 GB/s (read + write) in groups of 8, 27 in groups of 16, 17 one row at a time; the
// whole transpose 13.0-15.0 GB/s with groups of 4, 6 or 8, 13.1-14.4 with 12 (2026-11-29, `xpose
// bench --device cpu --variants auto --shapes 16384x16384 --dtype i8 --reps 5 --warmup 1 --threads
// 1`, settings alternating); with two threads (a disturbed run) 16 gave 10.3-11.2 vs 11.2-14.6
// with 8 (docs/cpu.md "Seventh round").
inline constexpr std::int64_t kStageGroupRows = 8;

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
// The AVX2 table with the AVX-512 VBMI narrow 1- and 2-byte tiles (microkernels_vbmi.cpp); null
// when the build has no AVX2 kernels. Call only where vbmi_supported(): the function itself runs
// AVX-512 instructions (an illegal instruction on an AMD Zen 2, say).
const kernel_table* vbmi_kernels();
// Whether this CPU runs vbmi_kernels(): AVX-512 F, BW, VL and VBMI.
bool vbmi_supported();
// The kernels run_blocked uses: AVX-512 VBMI, else AVX2, when the build has them and the CPU
// supports them (__builtin_cpu_supports, checked once), else scalar. The environment variable
// XPOSE_CPU_ISA=avx2 or =scalar caps the choice (for measurements and tests).
const kernel_table& active_kernels();

}  // namespace xpose::detail::cpu
