// cpu_blocked: cache-blocked, vectorised, multi-threaded transpose and permutation on the host.
//
// Layers, as in the GPU path: make_nest (pure: which axes form the tile, which row is folded into
// the element, the loop order) -> configure_blocked (the planner's step: tile shape, streaming
// stores or not, reported in the plan's summary; run_blocked derives the same again, both being
// pure functions of the plan) -> run_blocked (splits the tasks over OpenMP threads) ->
// the tile kernels of src/cpu/microkernels*.cpp. docs/cpu.md has the measurements behind every
// constant below.
#include "cpu/blocked.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "cpu/cpu_variants.hpp"
#include "cpu/microkernels.hpp"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

// ---- tuning constants (docs/cpu.md, "constants", has the measurements) ----
// A tile is ti x tj elements: ti along i (its output rows are ti * E bytes long), tj along j (its
// input rows are tj * E bytes long); tasks walk j fastest (within macro blocks, kMacroBytes), so
// consecutive tiles continue the same ti input rows. Two pressures pull ti apart: each output row written in longer pieces is kinder
// to DRAM (and to the TLB), while fewer input rows in flight is what the hardware prefetchers
// keep up with. Which wins depends on the element size and, for f32, on the output row length;
// measured on the development machine (2 threads, % of memcpy, docs/cpu.md):
struct tile_rule {
  std::int64_t out_row, in_row, tile;  // bytes: ti * E, tj * E, ti * tj * E
};
// 1 and 2 bytes: 256 B output rows (53% vs 32% at 16384^2 i8, 67% vs 48% at 16384 x 8192 f16,
// against 64 B rows), and 2 KiB input rows (with the AVX2 kernels walking along the tile's rows,
// microkernels_avx2.cpp): 16384^2 i8 61-65% vs 47-53% and f16 62-64% vs 51-55% against 512 B
// input rows, interleaved runs; 4 KiB rows would not fit the staging buffer (kBufBytes).
constexpr tile_rule kRule1And2{256, 2048, 256 << 10};
// ... but in plain 2-D transposes (no outer dims, tiles walked row-major: kMacroBytes) 128 B
// output rows and 2 KiB (bytes) or 4 KiB (halves) input rows, the same 256 KiB. Interleaved runs
// (fourth round), GB/s, 256 B x 1-2 KiB -> 128 B x 2-4 KiB: 16384^2 i8 20.0-21.1 -> 21.7-22.2,
// 8192^2 i8 19.1-19.9 -> 21.0-22.0, 8192 x 16384 i8 19.8-20.2 -> 21.5-22.0, 16384 x 8192 i8
// 19.4-20.0 -> 20.8-21.3; 16384^2 f16 26.3-26.5 -> 28.1-28.4, 8192^2 f16 23.5-24.7 -> 26.6-27.0,
// 16384 x 8192 f16 25.8-26.4 -> 26.8-26.9. (Permutations with outer dims were not measured with
// it: the suite is f32.)
constexpr tile_rule kRule1And2Plain{128, 4096, 256 << 10};
// f32 and f64: 256 B output rows and 4 KiB input rows, one page of each input row per tile (with
// the kernels walking along rows). f32 16384^2 81% vs 42% against 512 B input rows; f32 8192^2
// 87% vs 66%; f64 8192^2 73-79% vs 48% and 8192 x 4096 96% vs 68% against 64 B output rows x
// 1 KiB input rows (interleaved runs, 2026-11-29).
constexpr tile_rule kRule4{256, 4096, 256 << 10};
constexpr tile_rule kRule8{256, 4096, 256 << 10};
// 16 bytes and longer (folded rows): two lines (95-100% vs 80% with one line at 4096^2); longer
// tiles did not help here (8192^2 c128 80% either way).
constexpr tile_rule kRule16{128, 1024, 32 << 10};
// Folded elements of other sizes (rows of 3..511 bytes: 12, 20, 28, 76, 96, 220 B in the suite)
// go through the strided scalar tile, one element at a time; with the rules above in elements a
// 220-byte element got 1 x 4 tiles and a 76-byte one 4 x 13. At least this many bytes per output
// and per input row of the tile instead. Interleaved runs, GB/s, before -> after (with copy_by_32
// for elements over 32 B): [10168,5,24,11,5] perm 1,2,0,3,4 (220 B) 19.8-20.1 -> 21.5-22.4,
// [22974,127,23] perm 1,0,2 (92 B) 18.8-19.0 -> 21.5-22.2, [56,23,21,7,22,16] perm 4,0,2,1,3,5
// (64 B) 15.2-16.3 -> 18.6-18.9, [8,1024,1024,8] perm 0,2,1,3 (32 B) 22.8-24.8 -> 24.3-27.0,
// [180400,124,3,1] perm 1,0,2,3 (12 B) 12.7-13.0 -> 13.7-14.0; the other changed plans within
// noise (docs/cpu.md "Fourth round").
constexpr i64 kFoldedOutRow = 256;
constexpr i64 kFoldedInRow = 1024;
// Row copies whose rows (kMinRowBytes up to kShortRowMaxBytes) fan out, consecutive input rows
// going to different output runs of at least kShortRowTileRun bytes, take tiles of folded rows
// instead (make_nest): each tile one output run's kShortRowTileRun bytes, gathered from input rows
// far apart (choose_tiles), the next tile the neighbouring run's (tasks walk j fastest), whose
// input rows continue the lines just read. Walked as rows (input order), each row's head and tail
// lines were ordinary stores beside the streamed ones. Intel Xeon host, 2 threads, builds
// alternating case by case, two rounds, GB/s, rows -> tiles (docs/cpu.md "Thirty-sixth session"):
// c128 [1393,15,13,13,19] perm 3,0,1,2,4 (304 B rows) 21.7, 21.9 -> 36.5, 35.4; [22974,127,23]
// perm 1,0,2 (368 B) 23.6, 22.7 -> 37.3, 36.2; [33,10,23,16,23,8,3] perm 2,4,3,1,0,5,6 (384 B)
// 24.3, 24.5 -> 32.2, 31.5; [10168,5,24,11,5] perm 1,2,0,3,4 (880 B) 27.3, 29.1 -> 36.2, 36.5; f64
// the same (440 B) 24.1, 21.5 -> 35.1, 35.6; f32 [428,18,58,150] perm 2,0,1,3 (600 B) 25.0, 25.9 ->
// 35.8, 35.6, [16,32,1024,128] perm 0,2,1,3 (512 B) 33.0, 33.9 -> 36.4, 37.2; f16 [856,18,58,150]
// (300 B) 20.7, 20.6 -> 36.6, 37.2, [32,32,1024,128] (256 B) 29.4, 30.8 -> 36.0, 33.6. Runs of 7
// rows lost (c128 [56,23,21,7,22,16] perm 4,0,2,1,3,5, 256 B: 32.0, 29.0 -> 26.8, 25.4), hence the
// run's minimum. Probes (one run each): rows of 1200 B and more stay rows (f64 [428,18,58,150]
// 30.6 as rows, 27.0 as tiles; c128's 2400 B 34.1 against 25.7); two input rows a tile were level
// with one; runs of 16 KiB lost (c128 [1393,...] 32.3 with 64 rows a tile).
constexpr i64 kShortRowMaxBytes = 1024;
constexpr i64 kShortRowTileRun = 4096;
// ... and folded elements (rows) of kShortRowMinBytes to kMinRowBytes, tiled already, take the same
// one-run tiles where the run is that long and their input rows are not a multiple of
// kAliasingStride apart. Builds alternating, two rounds, GB/s, tiles of 2-4 x 5-16 -> one run:
// c128 [462819,29,5] perm 1,0,2 (80 B) 23.2, 24.4 -> 29.4, 30.0, [5799,29,57,7] perm 2,1,0,3
// (112 B) 27.8, 27.8 -> 32.5, 31.5; f64 [22974,127,23] perm 1,0,2 (184 B) 28.4, 28.0 -> 35.6,
// 36.3, [1393,15,13,13,19] (152 B) 25.8, 25.2 -> 28.8, 27.1; f32 [10168,5,24,11,5] (220 B) 24.9,
// 26.8 -> 37.4, 38.4, [22974,127,23] (92 B) 29.6, 29.1 -> 33.8, 33.3; f16 [20336,5,24,11,5] (110 B) 30.3, 29.7 -> 34.1, 36.4; i8
// [1712,18,58,150] (150 B) 27.5, 28.0 -> 34.0, 32.9. Lost: f32 [1393,15,13,13,19] (76 B, hence
// kShortRowMinBytes) 31.7, 29.0 -> 27.5, 26.9, and at aliasing strides (64 KiB apart)
// [8,1024,1024,8] perm 0,2,1,3 f64 (64 B) 36.8, 36.4 -> 18.3, 21.1, c128 (128 B) 31.6, 32.0 ->
// 27.5, 26.8. The aliasing rule also keeps two that gained, i8 [64,32,1024,128] perm 0,2,1,3
// (128 B) 27.5, 27.9 -> 29.5, 33.5 and f64 [33,10,23,16,23,8,3] (192 B) 24.6 -> 28.0, 27.8, on their
// old tiles (docs/cpu.md "Thirty-sixth session").
constexpr i64 kShortRowMinBytes = 80;
// At aliasing strides, folded rows of at least kShortRowAliasedMinBytes take them all the same:
// Intel Xeon host, a switch alternating, three rounds, GB/s, 2x6 tiles -> 16x1 (one run): f64
// [33,10,23,16,23,8,3] perm 2,4,3,1,0,5,6 (192 B rows 16 MB apart) 24.4 -> 27.6 (thirty-sixth
// session, one round: 24.6 -> 28.0, 27.8); perm 0,2,1,3 of f64 [200,30,64,24] (rows 12 KiB apart)
// 28.1 -> 33.3, [50,40,256,24] 29.5 -> 32.9, f32 [200,30,64,48] 29.3 -> 33.0. The losses above were
// rows of 64 and 128 B (docs/cpu.md "Thirty-seventh session").
constexpr i64 kShortRowAliasedMinBytes = 192;
// Folded elements of at least kShortRunMinElemBytes whose whole output run (the i extent) is
// shorter than kShortRowTileRun: tiles of whole runs by as many input columns as make about
// kShortRowTileRun bytes, rather than a part of each run by 5-16 columns. Builds alternating (a
// switch), four rounds, GB/s (% of copy), part-runs -> whole runs: f64 [56,23,21,7,22,16] perm
// 4,0,2,1,3,5 (128 B elements, runs of 7) 19.1 (45.0) -> 26.5 (62.2); f32 the same (64 B) 15.7
// (58.6) -> 18.6 (70.8); c128 [298,14,9,17,15,7] perm 1,4,3,0,2,5 (112 B, runs of 9) 20.1 (44.8) ->
// 28.4 (63.5); f32 [33,10,23,16,23,8,3] perm 2,4,3,1,0,5,6 (96 B, runs of 33) 20.8 (77.2) -> 32.3
// (121.3); perm 0,2,1,3 of f64 [4000,9,500,12] (96 B) 23.9 -> 37.2 and [400,10,1000,24] (192 B) 27.0
// -> 35.9. Smaller elements lost: i8 [132,10,23,16,23,8,3] (24 B) 25.9 -> 12.9, f16 the same (48
// B) 23.0 -> 16.6, f64 [300,50,1000,5] perm 0,2,1,3 (40 B) 24.5 -> 17.2 (docs/cpu.md
// "Thirty-seventh session").
constexpr i64 kShortRunMinElemBytes = 64;
// ... but one line per output row, so that few input rows are in flight, when the input rows of
// a tile lie far apart (more than twice their length: reversals and the like) or, for f32, when
// the output rows are 256 B to 4 KiB long: 64% vs 37% on the [64,64,64,256] reversal, 66% vs 29%
// on [256,256,1024], 57-67% vs 30% at 1024 x 65536 f32, 55% vs 32% on [256,256,2048] f16.
constexpr tile_rule kRuleFewRows4{64, 1024, 16 << 10};
// In tiles without chains, only where the rows also alias in L1 (a multiple of kAliasingStride
// apart, as in every shape above): rows far apart at other strides kept the ordinary rule's long
// tiles better. Interleaved runs on the 2-core machine (AMD EPYC, Zen 2), two rounds (f32: four),
// GB/s, few-rows -> ordinary rule (docs/cpu.md "Twenty-fourth session"): f32 [5256,8,14,19,6] perm
// 2,3,4,1,0 (64x64 -> 64x1024 tiles) 9.2, 12.3, 8.5, 12.1 -> 12.8, 13.8, 13.4, 15.8, with
// [137,108,82,55] perm 3,2,0,1 and [21,25,14,19,19,25] perm 5,4,3,0,1,2 level; i8
// [360,163,56,81] perm 2,3,1,0 4.8, 3.9, 4.2, 5.9 -> 5.5, 4.3, 7.6, 6.8; [21024,8,14,19,6] perm
// 2,3,4,1,0 7.6, 7.7, 7.6, 9.1 -> 8.6, 8.8, 9.9, 10.6; [1000,100,2700] perm 2,1,0 5.5, 6.4 -> 7.0,
// 8.6; [3000,30,3000] perm 2,1,0 7.7, 7.0 -> 9.8, 11.0; f16 [180,163,56,81] 4.4, 5.2 -> 5.4, 8.8;
// [10512,8,14,19,6] 8.4, 9.2 -> 10.4, 10.8; [1000,50,2700] 9.9, 6.3 -> 14.7, 10.6; [3000,15,3000]
// 9.8, 5.5 -> 14.0, 10.2. At aliasing strides the two were level within noise (i8 [2048,256,512]
// and [4096,4,16384] reversals, f16 [1024,256,512] and [256,256,2048]), and in chained tiles, whose
// budget the rule sets, too (five i8 suite cases x0.75-x1.25 both ways): those keep it.
constexpr tile_rule kRuleFewRows1And2{64, 2048, 64 << 10};
// kRuleFewRows4's cases above were measured on the Zen 4 host with the code of 2026-11-29. On the
// Zen 2 host with today's (staging buffer, streaming, chunked tasks), f32 tiles without chains whose
// matrix is at least this large, with input rows of at least 1 KiB, run faster with kRule4's 64 x
// 1024 tiles (rule_for): alternating
// rounds, 2 threads, GB/s, few-rows -> kRule4 (docs/cpu.md "Twenty-eighth session"): the
// [256,256,1024] reversal 11.4-11.9 -> 18.7-18.9, [512,256,512] 13.0-13.1 -> 21.7-22.2,
// [1024,64,1024] 11.1-12.3 -> 21.9-23.0, [256,512,512] 11.8-12.6 -> 19.3-19.6, [128,512,256]
// (128 KiB matrices, the smallest measured) 12.2-12.7 -> 17.7-17.8, 1024 x 65536 13.5-16.9 ->
// 17.4-26.3, 256 x 262144 13.9-15.3 -> 22.8-23.4, batched perm 0,2,1 [64,1024,1024] 20.1-20.5 ->
// 24.9-26.3, the suite's [90,163,56,81] perm 2,3,1,0 10.0-10.2 -> 10.7-11.6. (Not re-measured on
// the Zen 4 or Intel hosts; smaller matrices, shorter input rows and chained tiles keep the rule.)
constexpr i64 kFewRows4MaxMatrixBytes = 128 << 10;
// The strided scalar loop (generic_tile_any: folded elements of sizes other than 1, 2, 4, 8 and 16
// bytes, 3 padded apart) walked the tile's output rows, each written front to back with its
// elements gathered down the tile's input rows. Where those input rows lie close together (at most
// twice their tile length apart, so the tile's input is one sequential stretch, the prefetchers'
// case) it walks the input rows instead, each read front to back with its elements scattered over
// the tile's output rows, as long as there are at most this many (tile_shape::rows_first).
// Zen 2 host, 2 threads, this build against the one before it, two alternating rounds, GB/s
// (docs/cpu.md "Twenty-ninth session"): i8 [1851276,29,5] perm 1,0,2 (224 x 29 tiles of 5 B) 7.4, 7.2
// -> 12.6, 12.4; i8 [5572,15,13,13,19] perm 3,0,1,2,4 (16 x 13 of 19 B) 15.8, 15.6 -> 23.3, 28.2; f16
// [360800,124,3,1] perm 1,0,2,3 (32 x 124 of 6 B) 5.5, 4.5 -> 14.1, 12.0; f16 [2786,15,13,13,19] (38 B)
// 12.3, 10.0 -> 21.8, 20.0; f32 [462819,29,5] (48 x 29 of 20 B) 12.7, 7.8 -> 18.7, 19.7; f32
// [180400,124,3,1] (16 x 80 of 12 B) 9.1, 10.4 -> 12.9, 12.8. The device machine's Intel Xeon, 2
// threads, one round: f32 [462819,29,5] 12.9 -> 15.0, f16 [925638,29,5] 9.8 -> 13.4, i8 [5572,...]
// 14.1 -> 15.5, i8 [1851276,29,5] 7.7 -> 8.9, but f16 [360800,124,3,1] 7.9 -> 4.7 and f32
// [180400,124,3,1] 7.7 -> 4.8: 124 and 80 output rows, each in its own pages, so the Intel tuning
// stops at 32 rows (29 measured ahead); 124 is the most measured on the AMD side. With the order
// switched for every strided scalar tile, tiles whose input rows lie far apart lost up to 25% (f16
// [11598,29,57,7] perm 2,1,0,3, rows 23 KiB apart; i8 [91896,127,23] perm 1,0,2), and chained tiles
// moved both ways: those keep the output rows first.
constexpr i64 kRowsFirstMaxOutRowsAmd = 128, kRowsFirstMaxOutRowsIntel = 32;
i64 rows_first_max_out_rows(cpu_tuning t) {
  return t == cpu_tuning::kIntel ? kRowsFirstMaxOutRowsIntel : kRowsFirstMaxOutRowsAmd;
}
// ... and such a tile's output rows (its i side) are at most this many bytes: the short-side growth
// (kShortSideTileBytes) made [N,29,5] perm 1,0,2 tiles of 29 input columns by 1120 B (i8: 224 x
// 29 of 5 B, 32 KiB of input and 32 KiB of staged output), which ran as slowly with the tensor in
// L2 as in DRAM. Zen 4 host, 2 threads, GB/s, ti swept in alternating rounds (docs/cpu.md "Fiftieth
// session"): i8 [1851276,29,5] ti 224 / 96 / 64 / 48 / 40 / 32: 17.7-18.2 / 17.6-18.6 / 19.4-20.2 /
// 21.3-23.0 / 20.4-20.5 / 19.8-20.9; f16 [925638,29,5] (10 B) ti 112 / 48 / 24 / 12: 22.2-23.8 /
// 23.9-25.8 / 25.1-28.0 / 26.5-28.3; f32 [462819,29,5] (20 B) ti 48 / 24 / 12 / 6: 24.4-25.9 /
// 25.4-28.1 / 28.1-32.5 / 26.8-26.9. Tiles that were already under it keep their ti (f16
// [360800,124,3,1], 32 x 124 of 6 B, lost at 16 and 8); those it trims by one or two elements
// measured level (f64 [462819,29,5] 7 -> 6, i8 [5572,15,13,13,19] 16 -> 13, f16 [2786,...] 8 -> 7).
constexpr i64 kRowsFirstOutRowBytes = 240;

// Output rows at differing line offsets (ld_out * E not a multiple of 64) take >= 256 B rows
// whatever the element: each tile then transposes one extra line's worth per row (run_tiles,
// `ext`), 25% extra at 256 B (with 64 B rows: 45% vs 77% of memcpy at 8193 x 8192 f32).
constexpr i64 kUnalignedOutRow = 256;

// Staged tiles (1- and 2-byte elements, plain 2-D transposes whose output rows are streamed;
// run_tiles says how they run; the others keep kRule1And2Plain).
// Bytes: 256 B output rows, 1 KiB input rows. One thread, 16384^2 i8, GB/s (read + write), three
// rounds alternating: 256 x 1024 14.0-14.7, 192 x 1024 13.1-14.0, 128 x 2048 10.9-13.6; the
// kRule1And2Plain tiles unstaged 10.9-12.6. 64 x 4096 (10.5-11.0), 256 x 256 (11.1-11.8), 256 x 512
// (12.5), 512 x 512 (10.2-10.5) did worse (2026-11-29, `xpose bench --device cpu --variants auto
// --shapes 16384x16384 --dtype i8 --reps 5 --warmup 1 --threads 1`, docs/cpu.md "Seventh round").
constexpr tile_rule kRuleStaged1{256, 1024, 256 << 10};
// Halves: 256 B output rows, 2 KiB input rows (128 x 1024). One thread, 16384^2 f16, GB/s:
// 128 x 1024 14.7-17.2, 128 x 512 12.6-16.7, 64 x 2048 14.3-15.1; kRule1And2Plain unstaged
// 14.4-15.6 (as above, `--dtype f16`). For f32 staging measured no better (16.4-17.3 vs 17.5-17.8
// GB/s at 16384^2 with 64 x 1024 tiles, 13.6-14.3 with 32 x 1024), so 4-byte tiles stay unstaged.
constexpr tile_rule kRuleStaged2{256, 2048, 256 << 10};
// Split tiles: where a plain 2-D transpose of bytes or halves would be staged, its output rows share
// their line offset, and the table has kernel_table::stream_split_lines (the `amd` tuning on
// AVX-512), W = 4 / e adjacent input columns are one 4-byte word: the 4-byte kernel transposes the
// tile's words into the staging buffer (a row of words per W output rows), and stream_split_lines
// splits each row's words into the W output rows as it streams them. No staging copy, no 1- or
// 2-byte shuffles; the tile is 1024 words wide, as the f32 tiles are 1024 elements (output rows of
// 128 B; input rows of 2 KiB of bytes, 4 KiB of halves: 128 x 2048 bytes, 64 x 2048 halves). Zen 4
// host, 2 threads, `xpose bench --device cpu --shapes S --reps 5 --warmup 1`, three alternating
// rounds, ms, staged -> split (docs/cpu.md "Fifty-fourth session"): i8 16384^2 19.8, 20.3, 23.3 ->
// 16.0, 18.5, 18.1; 16384 x 8192 11.3, 10.4, 10.1 -> 9.4, 10.3, 8.8; 8192 x 16384 9.3, 9.7, 9.8 ->
// 8.5, 8.3, 8.9; f16 16384^2 32.7, 32.0, 36.5 -> 30.9, 30.4, 34.6 (five more rounds 38.5-43.3 ->
// 29.6-39.0; the same bytes as f32 16384 x 8192 ran 32.7-37.8). Output rows at differing line
// offsets (10007 x 9973, `ext` words) ran level or a few percent slower, so they stay staged. Other
// split tiles: halves 128 x 1024 (the staged shape) 65.7-70.0% of copy against 71.5-76.1, 256 x
// 512 60.8-63.3; bytes 256 x 1024 (the staged shape) 18.7-20.9 ms, 64 x 4096 19.7-21.5, against
// 16.2-19.1.
constexpr tile_rule kRuleSplit{128, 4096, 256 << 10};
// Batches of bytes and halves (outer dims: batched transposes, and permutations that are one, such as
// the rank-3 reversal [2048,256,512] perm 2,1,0) are staged as a plain transpose is where each
// matrix is at least kStagedBatchMatrixBytes, with input rows of at least kStagedBatchInRow bytes
// (the reversal's are 512 B, under kRuleStaged1's 1 KiB: the tile takes them whole). Zen 2 host, 2
// threads, old / new alternating, GB/s (docs/cpu.md "Twenty-eighth session"): i8 [2048,256,512] perm
// 2,1,0 11.7-12.5 / 14.2-14.5, [2048,64,2048] perm 2,1,0 10.0-10.2 / 14.2-14.3, f16 [1024,256,512]
// perm 2,1,0 15.2-15.8 / 17.8-17.9; batched perm 0,2,1: i8 [256,1024,1024] 14.0 / 14.8-15.1,
// [4,4096,4096] 14.2-14.5 / 14.4-15.7, f16 [8,2048,4096] 17.2-17.8 / 17.7-18.2, [64,2048,1024]
// 18.8-19.2 / 19.4-20.9. Matrices of 512 KiB staged measured level for i8 and +3% for f16, inside
// the rounds' spread ([512,1024,512] and [512,512,512] perm 0,2,1): they keep the unstaged tiles.
constexpr i64 kStagedBatchMatrixBytes = 1 << 20;
constexpr i64 kStagedBatchInRow = 512;
// Under the `amd` tuning, such batches of bytes whose input rows are not side by side (the rank-3
// reversal [R,B,C] perm 2,1,0 and its kin: rows of C bytes, B * C apart) take 512 B input rows
// instead of kRuleStaged1's 1 KiB. Zen 4 host, 2 threads, GB/s, two rounds alternating, 1 KiB / 512 B
// (docs/cpu.md "Fiftieth session"): i8 [21024,8,14,19,6] perm 2,3,4,1,0 (8 matrices of 21024 x 1596)
// 18.0-18.5 / 21.0-22.2, [16384,4,4096] perm 2,1,0 23.6-24.9 / 25.7-26.3, [8192,16,2048] 24.9-25.1 /
// 26.3-26.5, [4096,32,2048] 24.4-24.6 / 26.0-27.1. The plain 16384^2 transpose lost with them
// (25.2-27.3 / 23.9-25.3) and keeps 1 KiB; halves were mixed (f16 [10512,8,14,19,6] up 20% with 512
// B rows, [4096,16,2048] perm 2,1,0 down) and keep kRuleStaged2.
constexpr tile_rule kRuleStaged1Scattered{256, 512, 256 << 10};

// Input rows a multiple of this apart land in the same few sets of the 8-way, 64-set L1 data
// cache, so the 8 or 16 rows of a micro-kernel evict each other and every load goes to L2: the
// kernels ran 3.5-4x slower at a 16384-byte than at a 16448-byte input stride (5.3 vs 20 GB/s for
// bytes, 12 vs 44 GB/s for f32). Such tiles of 1- and 2-byte elements are first copied into a staging
// area whose rows are an odd number of lines apart, eight rows side by side (kernel_table::stage_rows;
// one row at a time, the copy restarted the prefetchers at every row). Chained tiles of bytes
// (chained_tile, chain_stages_input) too, since the eighteenth session. GB/s on the 2-core machine,
// builds interleaved, three rounds (docs/cpu.md, "Eighteenth session"): the suite's byte reversals of
// rank 4-8 (rows of 128-512 B, 1-4 MiB apart) 7.1-12.8 unstaged, 10.7-16.1 staged ([128,32,32,32,64]
// 11.6-12.4 -> 14.6-16.1); staged row by row they gained less, the copy taking more time than the
// kernel saved (perf: tile_1b 5.6% of the samples unstaged, copy_rows 3.7% + tile_1b 1.3% staged).
// Halves' reversals did not move (9.8-15.0 vs 11.3-15.2), nor [1024,256,512] perm 2,1,0 f16 with
// its rows side by side, against i8 [2048,256,512] 15.2-16.3 -> 16.2-18.9; for f32 staging was mixed
// (two reversals 5-10% down, one 15% up): chained tiles stage bytes only, 4-byte tiles never.
constexpr i64 kAliasingStride = 2048;

const tile_rule& rule_for(const blocked_nest& n) {
  // (plain_2d_walk may replace it for a plain 2-D transpose: choose_tiles.)
  const i64 e = n.elem, out_row = n.i.extent * e;
  const bool chained = n.i_chain_rank > 0 || n.j_chain_rank > 0;
  const bool scattered_rows =
      n.i.in_stride > 2 * n.j.extent * e && (chained || n.i.in_stride % kAliasingStride == 0);
  if (e <= 2) return scattered_rows ? kRuleFewRows1And2 : n.outer_rank == 0 ? kRule1And2Plain : kRule1And2;
  if (e == 4) {
    const bool large = !chained && n.i.extent * n.j.extent * e >= kFewRows4MaxMatrixBytes && n.j.extent * e >= 1024;
    return !large && (scattered_rows || (out_row > 256 && out_row <= 4096)) ? kRuleFewRows4 : kRule4;
  }
  if (e == 8) return kRule8;
  return kRule16;
}
// A tile whose one side covers its whole axis grows along the other only to this size: the 64 KiB
// the short-side shapes were measured with (NCHW-like [64,128,128,64] perm (0,3,1,2): 78% of
// memcpy vs 62% with 256 KiB tiles).
constexpr i64 kShortSideTileBytes = 64 << 10;
// ... but under the `amd` tuning, tiles of elements with a SIMD kernel grow only to
// kShortSideTileBytesAmd, unless their input rows lie side by side and are at least
// kShortSideLongRowBytes (the NCHW-like shape above). Zen 4 host, 2 threads, GB/s, medians of two
// alternating rounds, growth to 64 / 32 / 16 KiB (docs/cpu.md "Fiftieth session"): f16
// [274,108,82,55] perm 3,2,0,1 (576 / 288 / 128 x 55) 19.1 / 22.8 / 23.9; f32 [21,25,14,19,19,25]
// perm 5,4,3,0,1,2 17.1 / 20.5 / 22.8, [137,108,82,55] 27.9 / 30.9 / 33.0, [683,11,25,21,17] perm
// 4,0,1,2,3 27.9 / 27.8 / 30.9; f64 [692,19,10,3,10,17] perm 5,4,1,2,3,0 29.5 / 32.4 / 34.6,
// [21,25,...] 23.6 / 27.8 / 27.9; i8 [2732,11,25,21,17] 19.2 / 19.9 / 21.2, [256,128,128,64] perm
// 0,3,1,2 (64 B rows) 23.4 / 25.2 / 24.9; f16 [128,128,128,64] 25.9 / 26.2 / 26.6. The NCHW shape
// with 4- and 8-byte elements (rows of 256 and 512 B side by side) lost: f32 [64,128,128,64] 29.0 /
// 27.2 / 25.9, f64 31.0 / 32.2 / 28.0, so it keeps 64 KiB; so do folded elements (the strided scalar
// tile): i8 [23196,29,57,7] perm 2,1,0,3 13.2 / 12.2 / 9.8, [132,10,23,16,23,8,3] 25.9 / 26.2 /
// 22.8. The Intel host was not measured: its tuning keeps 64 KiB.
constexpr i64 kShortSideTileBytesAmd = 16 << 10, kShortSideLongRowBytes = 256;
i64 short_side_tile_bytes(const blocked_nest& n, cpu_tuning t) {
  const i64 e = n.elem, row = n.j.extent * e;
  const bool long_rows_side_by_side = n.i.in_stride == row && row >= kShortSideLongRowBytes;
  if (t == cpu_tuning::kIntel || elem_index(e) < 0 || long_rows_side_by_side) return kShortSideTileBytes;
  return kShortSideTileBytesAmd;
}
// Batches of byte and half matrices whose output rows are at most kWholeOutRowsMaxBytes and
// contiguous: tiles of whole output rows by kWholeOutRowsCols columns (choose_tiles), instead of
// whole input rows by part of the output rows. Intel Xeon host, 2 threads, % of memcpy, two runs
// each, before -> after (16 columns; 32 columns in brackets): i8 [2048,1024,128] perm 0,2,1 (512 x
// 128 tiles before) 54.9, 58.3 -> 76.4, 77.1 (71.1, 73.8); f16 [1024,1024,128] 66.2, 65.5 -> 79.2,
// 78.5 (74.9, 76.5); i8 [8192,512,64] 84.0, 82.3 -> 88.1, 92.7; [512,2048,256] 61.9, 60.4 -> 65.0,
// 66.9 (49.7, 50.2); [4096,256,256] 63.5, 67.8 -> 69.0, 68.8; f16 [4096,512,64] level. Longer rows
// lost: f16 [512,2048,128] (4 KiB rows) 69.8, 69.7 -> 61.2, 63.3, i8 [512,4096,128] 63.6, 64.2 ->
// 44.6, 46.2; so did f32 [16,32,1024,128] perm 0,1,3,2 (79-80 -> 71-73), hence bytes and halves only
// (docs/cpu.md "Thirty-second session").
constexpr i64 kWholeOutRowsMaxBytes = 2048, kWholeOutRowsCols = 16;
// Matrices of 2- to 16-byte elements with long input rows whose output rows are contiguous and at
// most kWholeOutRowsWideMaxBytes: tiles of whole output rows by as many input columns as the budget
// holds, so each tile writes one contiguous block, instead of part of each output row (f32 128 x
// 1048576 took 64 x 1024 tiles, two per output row). Intel Xeon host, 2 threads, GB/s, one run each,
// before -> after (docs/cpu.md "Thirty-fifth session"): f32 128 x 1048576 16.8 -> 30.0, 120 x
// 1118481 17.9 -> 31.9, 100 x 1342177 16.6 -> 31.8; f64 64 x 1048576 19.5 -> 29.8, 32 x 2097152
// 17.8 -> 33.4; c128 32 x 1048576 21.2 -> 33.0, 24 x 2000000 20.2 -> 34.8; f32 64 x 2097152 and
// f64 60 x 1118481 level; f16 256 x 1048576 16.6 -> 21.8, 128 x 2000000 13.9 -> 24.4, 200 x
// 1000000 13.6 -> 27.3. Rows of 1 KiB and more lost (f64 128 x 524288 25.2 -> 13.6, 256 x 262144
// 30.0 -> 12.8, f32 512 x 262144 27.3 -> 13.2), and bytes were mixed (i8 300 x 1000000 12.1 -> 15.5,
// 512 x 1048576 14.4 -> 12.3): halves and wider.
constexpr i64 kWholeOutRowsWideMaxBytes = 512;
// Narrow problems (a side of fewer than 16 elements: 3 x 40,000,000) read and write long contiguous
// runs whatever the tile, and their kernels are cheap, so the staging pass dominates: tiles of
// this size keep it in L1 (147% vs 99% of memcpy at 3 x 40,000,000 f32 with 64 KiB tiles).
constexpr i64 kNarrowTileBytes = 4 << 10;
// The per-thread staging buffer: the largest tile, its rows rounded up to whole lines plus one
// more (run_tiles' `ext`: 320 B per 256 B row, 192 B per 128 B row of kRule1And2Plain), plus a line.
constexpr i64 kBufBytes = std::max(kRule4.tile * 5 / 4, kRule1And2Plain.tile * 3 / 2) + 4096;
constexpr i64 kInStageBytes = 160 << 10;
// Contiguous tiles (run_tiles' kContiguous: a batch of whole small matrices, each tile's output one
// run) whose outputs follow one another are gathered in the staging buffer up to this many bytes
// and streamed out by one stream_copy, whose partial first and last lines (ordinary stores) and
// call then come once per group rather than once per matrix. Intel Xeon host, 2 threads,
// alternating rounds, GB/s, one stream_copy per tile -> groups of 8 KiB: i8 [514244,174,3] perm
// 0,2,1 (522 B matrices) 10.8, 10.3 -> 16.0, 16.1 (32 KiB groups: 10.9, 10.5 -> 15.5, 16.0); f16
// [257122,174,3] 17.2, 18.0 -> 18.0, 19.4; i8 [243148,184,6] 17.7, 18.1 -> 19.4, 19.1; f32, f64,
// c128 and larger matrices level. Groups of 32 KiB (the tile's input and the group no longer fit
// L1 together) lost on f32 [128561,174,3]: 25.2, 25.2 -> 22.4, 16.2 (docs/cpu.md "Thirtieth
// session").
// Only tiles of under kContiguousGroupTileBytes are gathered: the narrow transposes' 4 KiB tiles
// (kNarrowTileBytes) lost in groups, f32 3 x 40,000,000 39.2, 39.9 -> 35.4, 35.1 GB/s.
constexpr i64 kContiguousGroupBytes = 8 << 10, kContiguousGroupTileBytes = 2 << 10;
static_assert(kContiguousGroupBytes <= kBufBytes, "a group fits the staging buffer");
// A staged tile (run_tiles) is transposed this many input bytes (one line) of each row at a time
// into a block that stays in L1 (64 rows x 256 B) and streamed from there. One thread, 16384^2,
// GB/s, 64 / 32 / 128 B: i8 with 128 x 2048 tiles 12.9-13.0 / 10.1-12.3 / 13.1, with 256 x 1024
// tiles 13.8-14.7 / 14.7-15.5 / 13.3-14.1; f16 (128 x 1024) 12.8-16.9 / 15.9-16.4 / 16.0-16.5:
// within noise but for the 32 B with 128 x 2048 (2026-11-29, as kRuleStaged1).
constexpr i64 kStagedChunkBytes = 64;
// Outputs at least this large are written with streaming (non-temporal) stores, which skip the
// read-for-ownership of every output line. f32 transposes, streaming vs not, % of memcpy: 512^2
// (1 MiB, in L2/L3) 28 vs 48, 724^2 (2 MiB) 62 vs 63, 1024^2 (4 MiB) 36 vs 22, 2048^2 63 vs 41.
constexpr i64 kStreamMinBytes = 4 << 20;
// ... but chained tiles (make_nest) whose output rows are not whole lines are streamed only from
// this size up. Interleaved runs, % of memcpy, direct vs streaming stores: tiles of 6-7 KiB lost
// with streaming ([31,23,14,4,15,11,10] perm 3,1,6,0,4,5,2: 68-73 vs 40-45, 280 B rows x 10;
// [11,21,10,4,12,13,23,2] perm 4,3,6,2,0,1,5,7: 52-58 vs 40-45; [102,15,13,9,2,11,17] perm
// 6,2,0,3,4,5,1: 48-54 vs 35-48), tiles of 38-47 KiB won ([6,7,19,17,3,14,21,5] perm
// 7,6,0,4,3,2,5,1: 20-22 vs 47-48; [23,201,168,85] reversal 25-35 vs 31-41); the threshold lies
// between the two groups.
constexpr i64 kChainStreamMinTile = 16 << 10;
// A direct chained tile is staged whole (run_tiles, direct_staged) when its base tile, one kernel
// call without staging, is smaller than this. Interleaved runs on the 2-core machine, GB/s, every
// round (docs/cpu.md "Seventeenth session"): [264,12,6,2,15,18,13,2] perm 7,4,1,3,6,2,0,5, 18 x 2
// base tiles and a j chain of 13: i8 (36 B) 3.7, 3.8, 3.8, 3.1 -> 5.4, 5.2, 5.4, 5.5; f16 (72 B) 5.0,
// 5.2, 5.3, 5.2 -> 7.7, 8.4, 8.3, 8.0; f32 (144 B) 7.9, 9.0, 9.9, 10.6 -> 9.8, 10.7, 9.4, 8.9, no clear
// gain. [24,18,22,13,3,14,2,24] perm 7,1,4,6,3,2,0,5 (14 x 24 base tiles, a j chain of 2), staged with a
// threshold of 2 KiB: i8 (336 B) 6.0, 6.3 -> 7.3, 5.6; f16 (672 B) 7.5, 7.7 -> 7.5, 9.2; f32 (1344 B)
// 14.3, 14.4 -> 11.1, 11.1.
constexpr i64 kDirectStagedBelow = 128;
// Tiles are visited in macro blocks (macro_order) of this many bytes along each axis, one page of
// every input and every output row they touch, and at most kMacroMaxRows elements a side, so that
// the pages of a block (<= 2048) stay within the 3072-entry L2 TLB while the block is worked on:
// with a plain row of tiles, a 16384-wide f32 output touches 16384 pages before coming back to the
// first one. 16384^2 f32 65% -> 72-76% of memcpy, 8192^2 f64 54% -> 65% (interleaved runs).
// Not for plain 2-D transposes (no outer dims) any more: with the tiles and rows-first kernels of
// the second round they run faster in plain row-major tile order, each group of ti input rows
// read from start to end. Interleaved runs (2026-11-29, fourth round), GB/s, macro -> row-major:
// 16384^2 i8 19.3-20.2 -> 21.6-23.0, f16 26.8-28.2 -> 29.4-31.8, f32 30.0-37.5 -> 33.1-37.3,
// 8192^2 f32 29.6-31.9 -> 31.6-33.0, 8193 x 8191 f32 27.2-28.8 -> 30.2-31.2, 8192^2 f64 30.6-35.5
// -> 33.8-38.6, 8192 x 4096 f64 31.7-34.8 -> 33.9-38.6, 8192^2 c128 33.4-33.7 -> 33.7-34.0. On
// the permutation suite the same switch was neutral (geometric mean 15.36 vs 15.25 GB/s), so
// nests with outer dims keep the macro blocks.
constexpr i64 kMacroBytes = 4096;
constexpr i64 kMacroMaxRows = 1024;
// ... except on the Intel Xeon development host (cpu_tuning::kIntel), for 8- and 16-byte elements:
// tiles of 128 B output rows x 1 KiB input rows, visited in macro blocks of 8 KiB a side. There a
// row of tiles that touches one page per output row (16384 of them for a 16384-wide f64 output)
// made every 128-256 B piece written a page walk: c128 16384^2 45% of memcpy row-major. With the
// pages of an 8 KiB block (1024 input + 1024 output rows' pages for f64, 512 + 512 for c128)
// held by the TLB, interleaved runs, 2 threads, % of memcpy (docs/cpu.md "Twenty-first session"):
// c128 8192^2 47 -> 84 (macro 4 KiB 77, 16 KiB 79); 53.0, 55.9 -> 75.1, 77.8; f64 16384^2 55.2, 49.7 ->
// 71.9, 68.8 (macro 8 KiB with f64's 256 B x 4 KiB tiles: 61.8, 64.0; 128 B x 512 B 60.8, 63.6,
// 128 B x 2 KiB 59.0, 64.1, 64 B x 1 KiB 54.8, 51.3). A huge-page probe (2 MiB pages) ran the
// row-major walk at 79% too: it is the TLB. f32, i8 and f16 gained nothing from macro blocks or
// smaller tiles there (f32 16384^2: row-major 62-69, 128 B x 1 KiB in 8 KiB blocks 63), and keep
// the tables of the AMD host.
// 16-byte elements take it under the `amd` tuning too, since the twenty-fourth session: on an AMD
// EPYC Zen 2 development host (2048-entry L2 TLB) the row-major walk collapsed at 16384^2 c128,
// where it had run 58-72% on the Zen 4. Interleaved runs there, 2 threads, GB/s, `amd` -> `intel`
// tuning (docs/cpu.md "Twenty-fourth session"): c128 16384^2 2.0, 3.5, 6.3, 3.3 -> 12.2, 17.4,
// 14.8, 10.8; 4096 x 16384 17.9, 8.7 -> 19.5, 12.8; 8192^2 16.1, 14.6 -> 16.5, 10.8 (level). The
// old macro-vs-row-major comparison on the Zen 4 (kMacroBytes) had 8192^2 c128 level too. f64
// kept the row-major walk on that host (16384^2 19.9, 19.4 -> 14.5, 14.4; 8192^2 23.2, 22.5 ->
// 11.5, 16.1), so 8-byte elements keep the tuning's choice.
constexpr plain_walk kPlainWideWalk{128, 1024, 32 << 10, 8192};
// Batches of such matrices (outer dims, no chains) take its tile too, walked as the nest orders
// them, except where output rows are short and whole (kWholeOutRowsWideMaxBytes, whose tiles the
// budget sizes). For 16-byte elements that is kRule16 already; on the Intel host 8-byte ones leave
// kRule8's 256 B x 4 KiB. Intel Xeon host, 2 threads, a switch alternating, three rounds, GB/s, the
// f64 suite's batches (docs/cpu.md "Thirty-seventh session"): [512,256,512] perm 2,1,0 (32x512 ->
// 16x128 tiles) 23.0 -> 29.5; [5256,8,14,19,6] perm 2,3,4,1,0 21.8 -> 27.8; [16,32,1024,128] perm
// 0,1,3,2 (64x128 -> 32x128) 22.2 -> 27.3; [90,163,56,81] perm 2,3,1,0 17.4 -> 20.4;
// [39,78,144,150] perm 3,1,0,2 (48x150 -> 16x128) 17.4 -> 19.3; [137,108,82,55], [21,25,14,19,19,25],
// [692,19,10,3,10,17] level; the i8 suite's [32,1024,1024,8] perm 0,2,1,3 (folded to 8 bytes)
// 25.8 -> 31.9. Whole short output rows lost: [64,64,128,128] perm 0,2,3,1 (64x512 -> 64x64) 29.9
// -> 27.3. The f64 suite's median 54.2 -> 54.9 (results/cpu-intel-suite-f64-2026-12-03-batches.json).
// Such a batch whose input rows fill the tile's 1 KiB does not grow along its short side
// (kShortSideTileBytes) past the tile: f64 [16,32,1024,128] perm 0,1,3,2 (32x128 -> 16x128) 27.8 ->
// 30.5, perm 0,2,1 of [64,2048,128] 28.5 -> 31.2 and [16,4096,128] 29.9 -> 31.1, c128
// [64,128,128,64] perm 0,3,1,2 (32x64 -> 8x64) 26.5 -> 30.0 (three rounds, a switch alternating).
// Rows longer than this are split into chunks so that a few long rows (or one: a plain copy)
// still spread over every thread.
constexpr i64 kChunkBytes = 1 << 20;
// Tile tasks are handed to threads in chunks of about this many bytes, and at least
// kMinChunksPerThread chunks per thread: small enough that a thread delayed by other work on its
// core leaves its rest to the others, large enough that each thread still walks long runs of
// neighbouring tiles.
constexpr i64 kChunkBytesTiles = 2 << 20;
constexpr i64 kMinChunksPerThread = 8;
// With cpu_threads = 0 (all), one thread per this many bytes moved: starting a team costs a few
// microseconds, which a smaller share of the work does not repay.
constexpr i64 kMinBytesPerThread = 256 << 10;

i64 round_up(i64 x, i64 m) { return (x + m - 1) / m * m; }
i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

// Offsets of the outer dims, walked in order: seek() once per thread, next() per step.
struct odometer {
  const blocked_nest& n;
  std::array<i64, kMaxRank> idx{};
  i64 in = 0, out = 0;

  explicit odometer(const blocked_nest& nest) : n(nest) {}
  void seek(i64 o) {
    in = out = 0;
    for (int k = n.outer_rank - 1; k >= 0; --k) {
      idx[k] = o % n.outer[k].extent;
      o /= n.outer[k].extent;
      in += idx[k] * n.outer[k].in_stride;
      out += idx[k] * n.outer[k].out_stride;
    }
  }
  // To outer index o from index *at (-1: none yet): one step when o follows it, else a seek.
  void move_to(i64 o, i64* at) {
    if (o == *at) return;
    if (*at >= 0 && o == *at + 1)
      next();
    else
      seek(o);
    *at = o;
  }
  void next() {
    for (int k = n.outer_rank - 1; k >= 0; --k) {
      const loop_dim& d = n.outer[k];
      in += d.in_stride;
      out += d.out_stride;
      if (++idx[k] < d.extent) return;
      in -= d.in_stride * d.extent;
      out -= d.out_stride * d.extent;
      idx[k] = 0;
    }
  }
};

// Thread t's share [begin, end) of n tasks: contiguous, so each thread walks its part of the
// output in order.
void share(i64 n, int t, int nt, i64* begin, i64* end) {
  const i64 q = n / nt, r = n % nt;
  *begin = t * q + std::min<i64>(t, r);
  *end = *begin + q + (t < r ? 1 : 0);
}

int team_size(const plan_data& pd, i64 bytes, i64 tasks) {
  i64 t = pd.cpu_threads > 0 ? pd.cpu_threads : omp_get_max_threads();
  if (pd.cpu_threads <= 0) t = std::min(t, std::max<i64>(1, bytes / kMinBytesPerThread));
  return static_cast<int>(std::max<i64>(1, std::min(t, tasks)));
}

// ---- the tile shape: the planner's choice (configure_blocked reports it) ----
struct tile_shape {
  i64 ti = 1, tj = 1;  // elements along i (output-contiguous) and j (input-contiguous)
  bool stream = false;
  bool staged = false;  // whole-line tiles staged through kernel_table::stage_rows (run_tiles)
  bool split = false;   // bytes or halves transposed as 4-byte words, split on the way out (kRuleSplit)
  bool rows_first = false;  // strided scalar tiles walked along their input rows (choose_tiles)
};

// Staged input rows of tj elements in the staging area (every staged path of run_tiles and
// chained_tile): an odd number of lines apart (as kAliasingStride below), so that the 16 rows a
// byte kernel reads at once spread over the L1 sets.
i64 staged_row_stride(i64 tj, i64 e) { return (tj * e + 127) / 128 * 128 + 64; }

// A split tile's row of words in the staging buffer (run_tiles' split tiles): ti words, whole lines.
i64 split_row_bytes(i64 ti) { return round_up(ti * 4, 64); }

// True when every output row of the tile nest starts at the same offset within a cache line
// (the strides of all dims but i are whole lines), whatever the base pointer.
bool rows_share_line_offset(const blocked_nest& n) {
  bool aligned = n.j.out_stride % 64 == 0;
  for (int k = 0; k < n.outer_rank; ++k) aligned = aligned && n.outer[k].out_stride % 64 == 0;
  return aligned;
}

// True when every output row is whole lines at the same line offset: no row shares a line with
// another, so the tiles at either end of a row need no ordinary stores once the base is aligned.
bool whole_line_rows(const blocked_nest& n) {
  return rows_share_line_offset(n) && n.i_chain_rank == 0 && n.i.extent * n.elem % 64 == 0;
}

// Whether a tile of tj columns may read its j chain as j's continuation in the input (each link
// one stride past the last), as a chained tile staged whole does: one kernel call over the whole
// chain (chained_tile). make_nest chains by the bytes j's extent covers, so a broadcast j (stride
// 0), or one whose stride exceeds the element, is chained but not continued; such tiles are
// written directly, a kernel call per chain index.
bool j_chain_continues(const blocked_nest& n, i64 tj) {
  bool ok = n.j_chain_rank > 0 && tj == n.j.extent && n.j.in_stride == n.elem;
  for (i64 k = 0, step = n.j.extent * n.elem; ok && k < n.j_chain_rank; step *= n.j_chain[k++].extent)
    ok = n.j_chain[k].in_stride == step;
  return ok;
}

// The copy that stages a tile's input rows: eight rows side by side where the kernel table has it
// (kernel_table::stage_rows), else one row at a time.
auto input_stager(const kernel_table& kt) { return kt.stage_rows ? kt.stage_rows : kt.copy_rows; }

// A chained tile's staged input rows (chained_tile): its whole j chain, an odd number of lines apart.
i64 chain_stage_stride(const blocked_nest& n, i64 tj) { return staged_row_stride(n.j_chain_count() * tj, n.elem); }

// Whether streamed chained tiles of bytes copy their input rows into the staging area first
// (chained_tile; kAliasingStride says why): rows a multiple of kAliasingStride apart, and the
// tile's rows fit.
bool chain_stages_input(const blocked_nest& n, const tile_shape& s) {
  const bool chained = n.i_chain_rank > 0 || n.j_chain_rank > 0;
  return s.stream && chained && n.elem == 1 && n.i.in_stride % kAliasingStride == 0 &&
         s.ti * chain_stage_stride(n, s.tj) <= kInStageBytes;
}

// Chained tiles of bytes (and of halves, below) with an i chain stage the input rows of a group of
// its links together and transpose them in one kernel call (chained_tile): kn links x ti rows, where
// each link was a call of its own, ti rows (often 5-23) in 16-row blocks, the rest an overlapped edge
// block, and loaded straight from memory. Rows of fewer than 16 elements sit packed side by side
// in the staging area, so that the call takes the narrow kernels' packed-input path (16 x N blocks
// of 16 rows; narrow_tile_small), rows of up to 64 B 16-byte aligned, longer ones an odd number of
// lines apart. Interleaved runs on the 2-core machine, two rounds, GB/s (docs/cpu.md "Nineteenth
// session", results/chain-links-cpu2-cases-2026-12-01w.txt): i8 [408,15,13,9,2,11,17] perm
// 6,2,0,3,4,5,1 (15x17 tiles, i chain x198, 17 B input rows) 9.4-9.5 -> 18.1-18.4,
// [1472,6,22,6,10,23] perm 0,2,5,1,4,3 (23 B rows) 7.1 -> 14.7-15.3, [92,201,168,85] reversal
// 8.5-8.7 -> 13.9-14.8, [24,7,19,17,3,14,21,5] perm 7,6,0,4,3,2,5,1 4.5 -> 8.8-8.9,
// [776,12,21,3,8,19,3] perm 6,5,4,1,3,0,2 4.3 -> 5.7-5.9; ten cases x1.00-x2.11. Until the twentieth
// session rows under 16 B were left out, having measured level or slower 16-byte aligned (10 and
// 14 B rows, 5.3-5.7 -> 5.3-5.5 and 5.1-5.6 -> 4.7-5.2 GB/s: the call then took the scalar edges);
// packed, three interleaved rounds (docs/cpu.md "Twentieth session"): i8 [1516,23,10,12,8,4,2] perm
// 5,1,3,2,0,4,6 (8 x 4 links of 2-byte elements, 8 B rows) 3.7, 3.6, 3.2 -> 7.4, 6.6, 6.3;
// [124,23,14,4,15,11,10] perm 3,1,6,0,4,5,2 (10 B) 4.5, 3.9, 3.4 -> 10.3, 8.5, 9.5;
// [24,15,17,4,9,6,13,14] perm 3,0,1,2,7,4,6,5 (14 B) 5.9, 5.2, 5.2 -> 14.6, 12.1, 13.1; and halves'
// rows of 16-30 B, 16-byte aligned before: f16 [12,15,17,4,9,6,13,14] (28 B) 7.9, 7.6, 8.8 -> 12.6,
// 14.6, 12.7; [62,23,14,4,15,11,10] (20 B) 7.9, 7.8, 8.7 -> 11.9, 16.1, 15.9.
// ... but not where a link already is a tall stack of whole 16-row blocks (ti of 64 rows and more,
// a multiple of 16): the copy then only costs. Suite A/B, one interleaved round (results/chain-links-
// cpu2-suite-i8-2026-12-01w.txt), GB/s: [64,16,16,16,16,64] reversal (64 rows x 4 links) 17.2 ->
// 15.5, [156,78,144,150] perm 3,1,0,2 (144 x 2) 15.1 -> 13.9, [128,32,32,32,64] reversal (128 x 2)
// 17.1 -> 16.4; the 16- and 32-row links of the [16,8,8,8,8,8,16,32] and [32,8,8,16,16,16,32]
// reversals held or gained (that round 10.7 -> 11.7, 9.6 -> 12.0; two more rounds x1.06, x1.00),
// the 92-row links of [92,201,168,85] gained (x1.67).
constexpr i64 kLinkTallRows = 64;
// Halves (since the twentieth session): the same staging, but not where a link already is whole
// 8 x 16 register blocks (ti a multiple of 8, tj of 16: the 2-byte kernels' rows-first shape,
// microkernels_avx2.cpp). Interleaved runs on the 2-core machine, four rounds, GB/s (docs/cpu.md
// "Twentieth session", results/chain-links-cpu2-halves-direct-2026-12-01x.txt): f16
// [736,6,22,6,10,23] perm 0,2,5,1,4,3 (6 x 23 links) 3.7-5.5 -> 7.5-10.8; [1634,8,6,18,19,5] perm
// 2,5,0,4,3,1 (8 x 5) 6.0-7.8 -> 9.5-13.4; [12,7,19,17,3,14,21,5] perm 7,6,0,4,3,2,5,1 (7 x 5) 2.5-4.2
// -> 5.3-5.8; seven cases x1.02-x1.97, geometric mean x1.34. The reversals of whole-block links lost
// ([32,16,16,16,16,64], 32 x 64 links: 6.4, 7.2 -> 5.5, 5.8; [16,8,8,16,16,16,32], 16 x 32: 5.9, 6.2
// -> 5.1, 5.2). Nor where a link's rows are shorter than kMinLinkPiece2 bytes per j chain index:
// [806,7,6,9,22,10,2] perm 6,0,5,3,1,2,4 (22 x 2 links, 4 B) lost in all four rounds, 11.0, 11.1, 13.7,
// 12.3 -> 10.5, 9.8, 13.2, 9.3, and [388,12,21,3,8,19,3] perm 6,5,4,1,3,0,2 (21 x 3, 6 B) was level
// (4.6-5.1 -> 3.8-5.3), while the 5-column links gained.
// Tiles written with ordinary stores (outputs under kStreamMinBytes, small chained tiles: see
// kChainStreamMinTile) too, since the twentieth session: the group's output rows go to the staging
// buffer and are copied out row by row. Interleaved runs, two rounds, GB/s: i8 [264,12,6,2,15,18,13,2]
// perm 7,4,1,3,6,2,0,5 3.9, 3.9 -> 5.4, 5.2; [44,21,10,4,12,13,23,2] perm 4,3,6,2,0,1,5,7 4.2, 3.9 ->
// 4.8, 4.6; [24,18,22,13,3,14,2,24] perm 7,1,4,6,3,2,0,5 3.2, 3.2 -> 5.0, 5.1; f16 [62,23,14,4,15,11,10]
// perm 3,1,6,0,4,5,2 9.3, 9.2 -> 10.1, 10.5; [204,15,13,9,2,11,17] perm 6,2,0,3,4,5,1 11.3, 11.5 ->
// 13.2, 13.2; [12,18,22,13,3,14,2,24] 4.4, 4.6 -> 6.0, 6.3. Not for 4-byte elements with rows of 8
// and more: of the 14 f32 suite cases it would take, ten lost (x0.68-x0.93, two rounds), two held
// and two gained (x1.22, x2.05); the 8 x 8 kernels' edges are cheap 4- and 2-row pieces already.
// (The kMinLinkPiece2 exception holds for streamed tiles only: written directly, f16 [132,12,6,2,15,18,13,2] perm
// 7,4,1,3,6,2,0,5, 18 x 2 links, went 4.3, 5.6, 4.7 -> 5.3, 5.9, 5.1 GB/s with them grouped.) And
// 4-byte elements whose links' rows are narrow (fewer than 8 elements, packed: tile_4b's narrow
// path), such as the folded halves of f16 [758,23,10,12,8,4,2] perm 5,1,3,2,0,4,6 (8 x 4 links):
// 4.4, 6.0, 6.6 -> 6.2, 9.0, 7.5 (three interleaved rounds); wider 4-byte links lost (below).
constexpr i64 kLinkBlockRows2 = 8, kLinkBlockCols2 = 16, kMinLinkPiece2 = 8, kNarrowLink4 = 8;
bool link_is_whole_blocks(const blocked_nest& n, const tile_shape& s) {
  if (n.elem == 1) return s.ti >= kLinkTallRows && s.ti % 16 == 0;
  if (n.elem == 4) return false;  // (narrow links only: chain_links_staged)
  return s.ti % kLinkBlockRows2 == 0 && s.tj % kLinkBlockCols2 == 0;
}
bool link_rows_too_short(const blocked_nest& n, const tile_shape& s) {
  return n.elem == 2 && s.tj * n.elem < kMinLinkPiece2;
}
i64 links_stage_stride(const blocked_nest& n, i64 tj) {
  const i64 row = n.j_chain_count() * tj * n.elem;
  if (row < (n.elem <= 2 ? 16 : kNarrowLink4) * n.elem) return row;  // packed: the narrow kernels' path
  // Byte rows of up to kMediumPackedMax1 are packed too, for the VBMI medium tiles (which take
  // packed rows only); the AVX2 16x16 blocks load them unaligned either way (measured level).
  if (n.elem == 1 && row <= kMediumPackedMax1) return row;
  return row <= 64 ? round_up(row, 16) : chain_stage_stride(n, tj);
}
// Whether a chained tile's output rows of one j index, over its whole j chain, are one run of the
// output (the j chain's dims follow the i chain's in the output: j_chain_runs). Such a tile is
// streamed as tj runs of JP rows, gathered from the staging buffer into one contiguous piece each
// (chained_tile), rather than as JP x tj rows, each with its own partial first and last lines; and
// it is streamed even when small (kChainStreamMinTile) where the runs are at least
// kChainRunMinBytes. Intel Xeon host, 2 threads, alternating runs, % of memcpy, before -> after
// (docs/cpu.md "Thirty-third session"): i8 [3268,8,6,18,19,5] perm 2,5,0,4,3,1 (8 x 5 tiles, 144-byte
// rows in runs of 2736 B; written with ordinary stores before) 64.3, 66.5, 65.6 -> 71.7, 70.7, 69.6;
// f16 [1634,8,6,18,19,5] (288-byte rows, streamed row by row before) 69.2, 70.5 -> 87.5, 86.5.
// Rows of whole lines keep stream_lines: as runs, i8 [36,12,16,22,10,23,7] perm 4,6,1,3,5,2,0
// (576-byte rows) went 13.7 -> 13.1 GB/s.
constexpr i64 kChainRunMinBytes = 1024;
bool j_chain_runs(const blocked_nest& n, i64 ti) {
  if (!n.j_chain_rank || ti != n.i.extent || n.i.out_stride != n.elem) return false;
  i64 step = n.i.extent * n.elem;
  for (int k = 0; k < n.i_chain_rank; step *= n.i_chain[k++].extent)
    if (n.i_chain[k].out_stride != step) return false;
  for (int k = 0; k < n.j_chain_rank; step *= n.j_chain[k++].extent)
    if (n.j_chain[k].out_stride != step) return false;
  return true;
}
// (The output rows, contiguous, staged whole: i chain x ti elements each, j chain x tj of them.)
bool chain_links_staged(const blocked_nest& n, const tile_shape& s) {
  const i64 e = n.elem, K = n.i_chain_count(), JP = n.j_chain_count();
  const bool narrow4 = e == 4 && JP * s.tj < kNarrowLink4;
  return (e <= 2 || narrow4) && K > 1 && n.i.out_stride == e && !link_is_whole_blocks(n, s) &&
         !(s.stream && link_rows_too_short(n, s)) && 2 * s.ti * links_stage_stride(n, s.tj) <= kInStageBytes &&
         JP * s.tj * round_up(K * n.i.extent * e, 64) <= kBufBytes;
}

bool pads_elements(i64 e);  // (below, with the padded tiles)

tile_shape choose_tiles(const blocked_nest& n, const kernel_table& kt, i64 out_bytes, cpu_tuning tuning) {
  tile_shape s;
  const i64 e = n.elem, ni = n.i.extent, nj = n.j.extent;
  // Staged tiles: a 2-D transpose of bytes or halves (or a batch of large ones), both sides
  // contiguous, large enough to stream, and an i extent of several tiles (the first and last i
  // tiles take the ordinary path). Output rows at differing line offsets are staged too (thirty-
  // second session), with their `ext` rows (run_tiles): Intel Xeon host, 2 threads, alternating
  // rounds, % of memcpy, unstaged -> staged: i8 [21024,8,14,19,6] perm 2,3,4,1,0 (a batch of 8
  // matrices of 21024 x 1596 whose output rows are 21024 B apart) 49.1, 50.3 -> 63.6, 64.8;
  // 16385 x 16384 50.8, 50.3 -> 64.6, 68.2; f16 [10512,8,14,19,6] 58.3, 56.4 -> 76.5, 72.7;
  // 10000 x 10000 69.8, 62.0 -> 78.3, 74.4 (docs/cpu.md "Thirty-second session").
  // Batches whose output rows are whole lines (whole_line_rows) are staged with fewer i tiles too,
  // down to one staged tile's rows: the tiles at the rows' ends need no ordinary stores there.
  // i8 batches of transposes whose output rows sit side by side (the middle dim a batch), Zen 4
  // host, 2 threads, GB/s, unstaged -> staged: [256,40,16384] perm 2,1,0 14.6 -> 22.6,
  // [256,163,4536] 15.5 -> 23.1, [384,163,56,81] perm 2,3,1,0 15.3 -> 24.2 (fifty-second session);
  // rows of one line lost ([256,64,128,128] perm 0,2,3,1, 64 B rows: 30.7 -> 25.0), hence the floor.
  const bool batch = n.outer_rank > 0;  // (kStagedBatchMatrixBytes)
  const bool scattered_batch_rows = batch && n.i.in_stride != nj * e && tuning != cpu_tuning::kIntel;
  const tile_rule& staged_rule = e == 1 ? (scattered_batch_rows ? kRuleStaged1Scattered : kRuleStaged1) : kRuleStaged2;
  s.staged = kt.stage_rows && e <= 2 && (!batch || ni * nj * e >= kStagedBatchMatrixBytes) && n.i.out_stride == e &&
             n.j.in_stride == e && out_bytes >= kStreamMinBytes &&
             (ni * e >= 4 * staged_rule.out_row || (whole_line_rows(n) && ni * e >= staged_rule.out_row)) &&
             nj * e >= (batch ? kStagedBatchInRow : staged_rule.in_row);
  // (Batches stay staged: split tiles of halves lost on three of four batches; so do output rows at
  // differing line offsets, where they ran level or a few percent slower: docs/cpu.md.)
  s.split = s.staged && n.outer_rank == 0 && rows_share_line_offset(n) && kt.stream_split_lines;
  if (s.split) s.staged = false;
  tile_rule rule = s.split ? kRuleSplit : s.staged ? staged_rule : rule_for(n);
  // (kPlainWideWalk: batches take the plain walk's tile, not its macro blocks.)
  const bool whole_short_out_rows = n.j.out_stride == ni * e && ni * e <= kWholeOutRowsWideMaxBytes;
  const bool plain_tile = n.outer_rank == 0 || (!n.i_chain_rank && !n.j_chain_rank && !whole_short_out_rows);
  const plain_walk w = plain_2d_walk(tuning, e);
  const bool plain = plain_tile && !s.staged && w.tile > 0;
  if (plain) rule = tile_rule{w.out_row, w.in_row, w.tile};
  const i64 budget = std::min(ni * n.i_chain_count(), nj * n.j_chain_count()) < 16 ? kNarrowTileBytes : rule.tile;
  s.ti = std::max<i64>(1, rule.out_row / e);
  if (!rows_share_line_offset(n)) s.ti = std::max(s.ti, kUnalignedOutRow / e);  // keeps `ext` at <= 25%
  s.ti = std::min(s.ti, ni);
  s.tj = std::min(nj, std::max<i64>(1, std::min(rule.in_row / e, budget / (s.ti * e))));
  if (elem_index(e) < 0) {  // folded elements of other sizes: whole rows of bytes, not elements
    s.ti = std::min(ni, std::max(s.ti, ceil_div(kFoldedOutRow, e)));
    s.tj = std::min(nj, std::max(s.tj, ceil_div(kFoldedInRow, e)));
  }
  // One side short: the tile grows along the other, to at most short_side_tile_bytes.
  const i64 grow = std::min(budget, short_side_tile_bytes(n, tuning));
  // Not a batch in the plain walk's tile whose input rows fill the tile's (kPlainWideWalk).
  const bool plain_rows_whole = plain && n.outer_rank > 0 && nj * e >= w.in_row;
  if (s.tj == nj && !plain_rows_whole) s.ti = std::min(ni, std::max(s.ti, grow / (nj * e)));
  // A whole matrix that fits kShortSideTileBytes is one tile (4- to 16-byte elements): its output
  // rows are whole, so a dense batch writes one contiguous block per tile. Interleaved runs on the
  // 2-core machine, GB/s, three rounds (docs/cpu.md "Fifth session"): [60787,184,6] perm 0,2,1 f32
  // (160x6 -> 184x6 tiles) 17.3-18.6 -> 25.1-37.0; [197,61,107,52] perm 0,1,3,2 f32 and f64,
  // [60787,184,6] f64, [692,19,10,3,10,17] and 100000 x 32x48 f32 the same within noise.
  if (s.tj == nj && e >= 4 && elem_index(e) >= 0 && ni * nj * e <= kShortSideTileBytes) s.ti = ni;
  if (s.ti == ni) s.tj = std::min(nj, std::max(s.tj, grow / (ni * e)));
  // Output rows that are short and one contiguous run: the tile takes whole output rows, so each
  // tile's output is one block streamed by one copy (run_tiles' kContiguous). Bytes and halves with
  // short input rows too (batches of small matrices) by kWholeOutRowsCols input columns; else
  // halves and wider, rows of at most kWholeOutRowsWideMaxBytes, by the budget's columns.
  if (!n.i_chain_rank && !n.j_chain_rank && s.ti < ni && n.j.out_stride == ni * e) {
    if (e <= 2 && s.tj == nj && ni * e <= kWholeOutRowsMaxBytes)
      s.ti = ni, s.tj = std::min(nj, kWholeOutRowsCols);
    else if (e >= 2 && ni * e <= kWholeOutRowsWideMaxBytes)
      s.ti = ni, s.tj = std::min(nj, std::max<i64>(16, budget / (ni * e)));
  }
  // Chains are taken whole; the other axis fills the budget, for an i chain at least the chain
  // tile cap (kMaxChainTileBytes, 128 KiB; 64 KiB until the fifteenth session): with the 16 KiB
  // budget of the few-rows rule the
  // [16,16,16,16,16,64] reversal read 256 input rows of 64 B per tile, 29-34% of memcpy vs 54-62%
  // with 256 B rows (interleaved runs, docs/cpu.md "Third round").
  const i64 K = n.i_chain_count(), JP = n.j_chain_count();
  if (n.i_chain_rank) {
    s.ti = ni;
    s.tj = std::min(nj, std::max<i64>(1, std::max(budget, kMaxChainTileBytes) / (K * ni * e)));
  }
  if (n.j_chain_rank) {
    s.tj = nj;
    // (A j chain on a long i axis, make_nest's "j-only" chains, or on an i axis of 256-511 B,
    // kChainOutMaxBytes: kMaxChainTileBytes whatever the rule; the [64,64,128,128] reversal was
    // measured with 64 KiB tiles, and i8 / f16 ran 10.9-9.6 / 13.8-14.0 -> 13.6-12.3 / 15.6-15.3 GB/s
    // with 128 KiB ones.)
    const bool j_only = !(ni * e < kChainOutBytes && nj * e < kChainInBytes);
    const i64 jb = j_only ? std::max(budget, kMaxChainTileBytes) : budget;
    if (!n.i_chain_rank) s.ti = std::min(ni, std::max(std::max<i64>(1, 64 / e), jb / (JP * nj * e)));
  }
  // Short rows that fan out (make_nest), and folded rows from kShortRowMinBytes: one output run's
  // kShortRowTileRun bytes a tile; a shorter whole run by kShortRowTileRun bytes' worth of columns
  // (kShortRunMinElemBytes).
  if (elem_index(e) < 0 && !n.i_chain_rank && !n.j_chain_rank) {
    if (ni * e < kShortRowTileRun) {
      if (e >= kShortRunMinElemBytes) s.ti = ni, s.tj = std::min(nj, ceil_div(kShortRowTileRun, ni * e));
    } else if (e >= kMinRowBytes || (e >= kShortRowMinBytes && (n.i.in_stride % kAliasingStride != 0 ||
                                                                  e >= kShortRowAliasedMinBytes))) {
      s.ti = std::min(ni, ceil_div(kShortRowTileRun, e)), s.tj = 1;
    }
  }
  // Whole register blocks (16 covers every micro-kernel) unless the extent itself is smaller.
  if (s.tj > 16 && s.tj < nj) s.tj &= ~i64{15};
  // i tiles also cover whole output lines (ti * e a multiple of 64, for 1- and 2-byte elements
  // more than 16), so that streamed tiles can start on line boundaries (run_tiles, `shift`).
  const i64 i_unit = std::max<i64>(16, 64 / e);
  if (s.ti > i_unit && s.ti < ni) s.ti -= s.ti % i_unit;
  // Streaming needs output rows of whole lines: tile rows of >= 64 B, or rows that are one
  // contiguous run (the tile spans the whole i extent of a dense output).
  const i64 row_bytes = K * s.ti * e;  // of the tile's output rows
  const bool contiguous_rows = s.ti == ni && n.j.out_stride == row_bytes;
  s.stream = kt.stream_copy && out_bytes >= kStreamMinBytes && n.i.out_stride == e &&
             (row_bytes >= 64 || contiguous_rows);
  // Small chained tiles whose output rows are not whole lines: each row's partial lines take
  // ordinary stores beside the streamed ones (see run_tiles), which costs more than streaming saves.
  const bool runs = j_chain_runs(n, s.ti) && JP * row_bytes >= kChainRunMinBytes && JP * row_bytes <= kInStageBytes;
  if ((n.i_chain_rank || n.j_chain_rank) && !contiguous_rows && (row_bytes | n.j.out_stride) % 64 != 0 &&
      row_bytes * s.tj * JP < kChainStreamMinTile && !runs)
    s.stream = false;
  // Streamed chained tiles are staged whole (j_chain_continues).
  if (n.j_chain_rank && !j_chain_continues(n, s.tj)) s.stream = false;
  if (s.stream) {  // the staging buffer's rows: whole lines, plus one more line (run_tiles' `ext`)
    const i64 row = contiguous_rows ? row_bytes : round_up(row_bytes + 64, 64);
    if (n.j_chain_rank)
      s.stream = JP * nj * row <= kBufBytes;  // guaranteed by make_nest's caps; checked all the same
    else
      s.tj = std::max<i64>(1, std::min(s.tj, kBufBytes / row));
  }
  // (Staged tiles need whole-line output rows and their staged input within the staging buffer,
  // the `ext` rows too where the output rows start at differing line offsets: run_tiles.)
  const i64 staged_rows = s.ti + (rows_share_line_offset(n) ? 0 : 64 / e);
  s.staged = s.staged && s.stream && s.ti * e % 64 == 0 && (s.ti < ni || whole_line_rows(n)) &&
             staged_rows * staged_row_stride(s.tj, e) <= kBufBytes && staged_rows * kStagedChunkBytes <= kInStageBytes;
  // (Split tiles need their rows of words within the staging buffer: run_tiles.)
  s.split = s.split && s.stream && s.tj * e / 4 * split_row_bytes(s.ti) <= kBufBytes;
  // Folded elements of other sizes (the strided scalar loop): input rows first where the tile's
  // input is one sequential stretch and its output rows few enough (kRowsFirstMaxOutRows).
  s.rows_first = elem_index(e) < 0 && !pads_elements(e) && !n.i_chain_rank && !n.j_chain_rank &&
                 n.j.in_stride == e && n.i.in_stride <= 2 * s.tj * e && s.tj <= rows_first_max_out_rows(tuning);
  if (s.rows_first) s.ti = std::min(s.ti, ceil_div(kRowsFirstOutRowBytes, e));
  return s;
}

// ---- tiles ----
template <int E>
void generic_tile(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj) {
  for (i64 j = 0; j < tj; ++j)
    for (i64 i = 0; i < ti; ++i) std::memcpy(out + j * so_j + i * so_i, in + i * si + j * sj, E);
}

// Copies an element of 2..32 bytes as two fixed-size moves that overlap in the middle (a memcpy
// call of a run-time size per element ran the [462819,29,5] perm (1,0,2) f32 problem, 20-byte
// elements, at a quarter of memcpy).
template <int W>
inline void copy_overlapping(std::byte* dst, const std::byte* src, i64 e) {
  unsigned char a[W], b[W];
  std::memcpy(a, src, W);
  std::memcpy(b, src + e - W, W);
  std::memcpy(dst, a, W);
  std::memcpy(dst + e - W, b, W);
}

// Copies an element of more than 32 bytes (folded rows of 33..511 bytes) as 32-byte moves, the
// last one overlapping the one before, rather than one memcpy call of a run-time size per element:
// [33,10,23,16,23,8,3] perm 2,4,3,1,0,5,6 (96-byte elements) went from 17.2-17.5 to 20.0-20.5 GB/s
// with this and kFoldedOutRow / kFoldedInRow together (interleaved runs, docs/cpu.md "Fourth round").
inline void copy_by_32(std::byte* dst, const std::byte* src, i64 e) {
  i64 k = 0;
  for (; k + 32 <= e; k += 32) std::memcpy(dst + k, src + k, 32);
  if (k < e) std::memcpy(dst + e - 32, src + e - 32, 32);
}

// Copies an element of W / 2 + 1 .. W - 1 bytes as one W-byte move, spilling W - e bytes past it
// (into the next element along the output row, written after it; see spilling_tile).
template <int W>
inline void copy_spilling(std::byte* dst, const std::byte* src) {
  unsigned char a[W];
  std::memcpy(a, src, W);
  std::memcpy(dst, a, W);
}

void generic_tile_any(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj,
                      i64 e, bool rows_first = false) {
  auto each = [&](auto&& copy) {
    if (rows_first) {  // each input row front to back (tile_shape::rows_first)
      for (i64 i = 0; i < ti; ++i)
        for (i64 j = 0; j < tj; ++j) copy(out + j * so_j + i * so_i, in + i * si + j * sj);
      return;
    }
    for (i64 j = 0; j < tj; ++j)
      for (i64 i = 0; i < ti; ++i) copy(out + j * so_j + i * so_i, in + i * si + j * sj);
  };
  if (e > 32)
    each([e](std::byte* d, const std::byte* s) { copy_by_32(d, s, e); });
  else if (e > 16 && e <= 32)
    each([e](std::byte* d, const std::byte* s) { copy_overlapping<16>(d, s, e); });
  else if (e > 8 && e < 16)
    each([e](std::byte* d, const std::byte* s) { copy_overlapping<8>(d, s, e); });
  else if (e > 4 && e < 8)
    each([e](std::byte* d, const std::byte* s) { copy_overlapping<4>(d, s, e); });
  else if (e == 3)  // a run-time memcpy call per 3-byte element ran [721600,124,3,1] i8 at 4.8 GB/s
    each([e](std::byte* d, const std::byte* s) { copy_overlapping<2>(d, s, e); });
  else
    each([e](std::byte* d, const std::byte* s) { std::memcpy(d, s, static_cast<std::size_t>(e)); });
}

// Folded elements padded to the next power of two (tile_runner::padded_tile): 3-byte ones only.
// Interleaved runs on the 2-core machine (an Intel Xeon that day), GB/s, strided scalar -> padded
// (docs/cpu.md "Twentieth session"): i8 [721600,124,3,1] perm 1,0,2,3 (3 B) 6.2, 4.3, 5.4 -> 8.1,
// 8.0, 7.6 (the whole tile padded at once, without kPadChunkBytes: 8.1, 8.0); but 5-byte elements
// lost (i8 [1851276,29,5] perm 1,0,2 12.9, 12.2, 10.8 -> 11.2, 8.8, 7.8), as did 10-byte ones (f16
// [925638,29,5] 15.8, 15.7, 13.2 -> 13.7, 6.7, 10.3) and the chained tiles of 5, 10 and 14 bytes
// (x0.6-x0.8); 6, 7 and 12 bytes were mixed. The strided scalar tile moves such elements as two
// overlapping fixed-size moves, and the two extra passes of padding cost as much as the kernel
// saves, but for 3 bytes, which it moves as two 2-byte halves.
bool pads_elements(i64 e) { return e == 3; }
// A padded tile is worked on in column chunks whose two padded copies stay within this (in L1).
constexpr i64 kPadChunkBytes = 8 << 10;
// This thread's scratch for padded tiles (tile_runner::padded_tile), grown to the largest request
// and kept for the thread's life; null if the allocation failed.
std::byte* pad_scratch(i64 bytes) {
  struct holder {
    std::byte* p = nullptr;
    i64 size = 0;
    ~holder() { std::free(p); }
  };
  thread_local holder h;
  if (h.size < bytes) {
    std::free(h.p);
    h.size = round_up(bytes, 4096);
    h.p = static_cast<std::byte*>(std::aligned_alloc(64, static_cast<std::size_t>(h.size)));
    if (!h.p) h.size = 0;
  }
  return h.p;
}

// Elements of 5-7 bytes take spilling_tile's 8-byte moves, of 9 to kSpillMaxMove - 1 its 16-byte
// ones (defined after tile_runner, which calls it).
constexpr i64 kSpillMaxMove = 16;
template <int W>
void spilling_tile(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_j, i64 ti, i64 tj, i64 e,
                   bool rows_first, void (*exact)(std::byte*, const std::byte*, i64));

// One tile of the nest, to `out` with strides (so_i, so_j): through the kernel table when the
// element is a supported size and both sides are contiguous, else the strided scalar loop.
// Folded elements of 3 bytes (pads_elements) with both sides contiguous are padded to 4 bytes
// (kernel_table::pad_rows), transposed by that size's kernel and packed again (`padded`).
struct tile_runner {
  const blocked_nest& n;
  tile_fn simd = nullptr;    // valid when in_sj == elem (the kernel also needs so_i == elem)
  tile_fn padded = nullptr;  // the padded size's kernel, under the same conditions
  const kernel_table* kt = nullptr;
  i64 si = n.i.in_stride;  // input row stride: the nest's, or a staging copy's
  bool rows_first = false;  // tile_shape::rows_first, for the strided scalar loop

  tile_runner with_input_stride(i64 s) const { return tile_runner{n, simd, padded, kt, s, rows_first}; }

  void padded_tile(const std::byte* in, std::byte* out, i64 so_j, i64 ti, i64 tj) const {
    const i64 e = n.elem, P = padded_size(e);
    const i64 c = std::min(tj, std::max<i64>(8, kPadChunkBytes / (ti * P) / 8 * 8));
    const i64 a_bytes = round_up(ti * c * P, 64);
    std::byte* const a = pad_scratch(2 * a_bytes);
    if (!a) return generic_tile_any(in, si, e, out, e, so_j, ti, tj, e);
    std::byte* const b = a + a_bytes;
    for (i64 j = 0; j < tj; j += c) {
      const i64 w = std::min(c, tj - j);
      kt->pad_rows(a, w * P, in + j * e, si, ti, w, e);
      padded(a, w * P, b, ti * P, ti, w);
      kt->unpad_rows(out + j * so_j, so_j, b, ti * P, w, ti, e);
    }
  }

  void operator()(const std::byte* in, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj) const {
    const i64 e = n.elem, sj = n.j.in_stride;
    if (simd && so_i == e) return simd(in, si, out, so_j, ti, tj);
    if (padded && so_i == e) return padded_tile(in, out, so_j, ti, tj);
    switch (e) {
      case 1: return generic_tile<1>(in, si, sj, out, so_i, so_j, ti, tj);
      case 2: return generic_tile<2>(in, si, sj, out, so_i, so_j, ti, tj);
      case 4: return generic_tile<4>(in, si, sj, out, so_i, so_j, ti, tj);
      case 8: return generic_tile<8>(in, si, sj, out, so_i, so_j, ti, tj);
      case 16: return generic_tile<16>(in, si, sj, out, so_i, so_j, ti, tj);
      default:
        if (so_i == e && si > 0 && sj > 0 && so_j > 0 && ti > 0 && e > 4 && e < kSpillMaxMove) {
          if (e < 8) return spilling_tile<8>(in, si, sj, out, so_j, ti, tj, e, rows_first, copy_overlapping<4>);
          if (e > 8) return spilling_tile<16>(in, si, sj, out, so_j, ti, tj, e, rows_first, copy_overlapping<8>);
        }
        return generic_tile_any(in, si, sj, out, so_i, so_j, ti, tj, e, rows_first);
    }
  }
};

// kSpillMaxMove (which elements take spilling_tile, and with which move). Zen 4 host, 2 threads,
// against two overlapping moves per element, GB/s (docs/cpu.md, forty-ninth session).
// 16-byte moves, two rounds then three: f16 [925638,29,5] perm 1,0,2 (10 B) 21.0, 20.7 -> 25.8,
// 24.0 and 18.9, 19.1, 21.1 -> 21.3, 20.5, 23.2; [596,14,9,17,15,7] perm 1,4,3,0,2,5 (14 B) 13.5,
// 13.0 -> 18.6, 19.1 and 13.7, 13.3, 13.6 -> 18.3, 18.1, 18.8; [11598,29,57,7] perm 2,1,0,3 (14 B)
// 23.6, 25.7, 24.9 -> 26.8, 26.1, 26.7; f32 [180400,124,3,1] perm 1,0,2,3 (12 B) level.
// 8-byte moves, four rounds: i8 [1192,14,9,17,15,7] perm 1,4,3,0,2,5 (7 B) 8.3, 8.1, 8.4, 8.4 ->
// 11.2, 10.3, 11.1, 11.2; f16 [360800,124,3,1] (6 B) 16.0, 15.2, 15.8, 15.9 -> 17.8, 17.3, 18.2,
// 17.9; i8 [4,24,19,23,24,25,16,5] perm 2,1,4,0,6,5,3,7 (5 B, two rounds) 10.0, 10.6 -> 13.2, 13.5;
// [1851276,29,5] perm 1,0,2 (5 B) 18.8, 17.6, 17.7, 17.6 -> 18.6, 17.3, 18.7, 19.0; but i8
// [23196,29,57,7] perm 2,1,0,3 (7 B, nine rounds) median 15.4 -> 14.3.
// 32-byte moves for 17-31 bytes: f32 [462819,29,5] (20 B) level, so those keep two moves.
// spilling_tile is defined here, after tile_runner: defined ahead of generic_tile_any, it moved
// that function's code and its 5-byte loop ran 6% slower (i8 [1851276,29,5], six rounds, 16.2-17.0
// against 17.5-18.1 GB/s), with not one instruction of it changed. (The first measurement of 8-byte
// moves, in that placement, had the 5- and 7-byte cases 5-11% down.)

// The strided scalar tile where the output row is contiguous (so_i == e) and the strides are
// positive: every element but the tile's last along the output row, i = ti - 1, is one W-byte move
// (copy_spilling) instead of two overlapping ones. Its W - e spilled bytes land in element i + 1 of
// the same output row, which both walks write after element i, so the tile's output is exact and
// nothing outside it is touched. Its W - e bytes read past the element lie in the input buffer: the
// element at the tile's highest input address, (ti - 1, tj - 1), is after it, and elements do not
// overlap. The last output row element keeps the exact copy.
template <int W>
void spilling_tile(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_j, i64 ti, i64 tj, i64 e,
                   bool rows_first, void (*exact)(std::byte*, const std::byte*, i64)) {
  if (rows_first) {  // each input row front to back (tile_shape::rows_first)
    for (i64 i = 0; i < ti; ++i) {
      const std::byte* src = in + i * si;
      std::byte* dst = out + i * e;
      if (i + 1 < ti)
        for (i64 j = 0; j < tj; ++j) copy_spilling<W>(dst + j * so_j, src + j * sj);
      else
        for (i64 j = 0; j < tj; ++j) exact(dst + j * so_j, src + j * sj, e);
    }
    return;
  }
  for (i64 j = 0; j < tj; ++j) {
    const std::byte* src = in + j * sj;
    std::byte* dst = out + j * so_j;
    for (i64 i = 0; i + 1 < ti; ++i) copy_spilling<W>(dst + i * e, src + i * si);
    exact(dst + (ti - 1) * e, src + (ti - 1) * si, e);
  }
}

// This thread's staging area for streaming tiles: kBufBytes for the transposed tile, then
// kInStageBytes for its input rows (64-byte aligned), allocated on its first use and kept for the
// thread's life; null if the allocation failed (the tiles are then written directly, which is
// slower but as correct).
std::byte* staging_buffer() {
  struct holder {
    std::byte* p = static_cast<std::byte*>(std::aligned_alloc(64, kBufBytes + kInStageBytes));
    ~holder() { std::free(p); }
  };
  thread_local holder h;
  return h.p;
}

// How a tile reaches the output; fixed per run by the output pointer and strides.
enum class store_mode {
  kDirect,      // the kernel writes the output (small outputs, strided rows, misaligned elements)
  kContiguous,  // the tile's rows are one run of memory: one streaming copy
  kLines,       // staged, then each row streams the whole cache lines it owns (see run_tiles)
};

// Byte offsets, in and out, of index `idx` of a chain (innermost dim first).
void chain_offsets(const std::array<loop_dim, kMaxRank>& c, int rank, i64 idx, i64* in_off, i64* out_off) {
  *in_off = *out_off = 0;
  for (int k = 0; k < rank; ++k) {
    const i64 x = idx % c[k].extent;
    idx /= c[k].extent;
    *in_off += x * c[k].in_stride;
    *out_off += x * c[k].out_stride;
  }
}

// Every index's offsets of both chains, computed once per call: chained tiles look them up per
// link and per output row, where chain_offsets' divisions (one per chain dim) had been most of
// run_tiles' own time (perf, i8 [2484,25,18,6,10,4] perm 4,2,0,3,5,1, 300 j chain links a tile:
// the divisions' latency 60% of run_tiles' samples). A clipped tile (a split link's last block)
// takes a prefix of the same indices, so one table serves every tile.
struct chain_table {
  std::vector<i64> ki, ko, ji, jo;  // i chain in / out, j chain in / out, bytes
  explicit chain_table(const blocked_nest& n) {
    auto fill = [](const std::array<loop_dim, kMaxRank>& c, int rank, i64 count, std::vector<i64>& in,
                   std::vector<i64>& out) {
      in.resize(static_cast<std::size_t>(count));
      out.resize(static_cast<std::size_t>(count));
      for (i64 x = 0; x < count; ++x) chain_offsets(c, rank, x, &in[x], &out[x]);
    };
    fill(n.i_chain, n.i_chain_rank, n.i_chain_count(), ki, ko);
    fill(n.j_chain, n.j_chain_rank, n.j_chain_count(), ji, jo);
  }
};

// Copies a row of at most 64 bytes as two overlapping fixed-size moves, longer ones by memcpy: a
// memcpy call of a run-time size per short row cost as much as the tile's transpose (perf, i8
// [52,9,25,8,13,9,4,6] perm 4,1,3,0,6,2,7,5, 54-byte output rows: memcpy 17% of the samples).
inline void copy_short(std::byte* d, const std::byte* s, i64 bytes) {
  if (bytes > 64) std::memcpy(d, s, static_cast<std::size_t>(bytes));
  else if (bytes >= 32) copy_overlapping<32>(d, s, bytes);
  else if (bytes >= 16) copy_overlapping<16>(d, s, bytes);
  else if (bytes >= 8) copy_overlapping<8>(d, s, bytes);
  else if (bytes >= 4) copy_overlapping<4>(d, s, bytes);
  else std::memcpy(d, s, static_cast<std::size_t>(bytes));
}

// Copies `rows` input rows of `bytes` each into the staging area (chain_links_staged): short rows
// as two overlapping moves each rather than a memcpy call of a run-time size, long ones as
// input_stager does.
void stage_link_rows(const kernel_table& kt, std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows,
                     i64 bytes) {
  if (bytes > 64) return input_stager(kt)(dst, ldd, src, lds, rows, bytes);
  for (i64 r = 0; r < rows; ++r) copy_short(dst + r * ldd, src + r * lds, bytes);
}

// Before a group of chained links is staged (chained_tile, chain_links_staged), the lines it will
// read are prefetched, all at once: the staging copy otherwise waits on one cache miss after
// another, its pieces (often 8-100 bytes) lying where the hardware prefetchers do not look (perf, i8
// [24,15,17,4,9,6,13,14] perm 3,0,1,2,7,4,6,5, 14-byte rows: half of the samples on one load in the
// staging loop). What is prefetched follows how compact the input is, `kPrefetchCompact` meaning at
// most twice the bytes read: the whole tile's span, into L1; else each row's span over the chain,
// into L2; else each link's block of rows, into L1 when all of them fit kPrefetchL1Bytes, else L2;
// else every row of every link, into L2. Intel Xeon host, 2 threads, alternating runs (two
// rounds, the tiers behind a run-time switch in one build, whose by-rows tier still used L1 where
// it fit 32 KiB), % of memcpy, before -> after (docs/cpu.md "Thirty-third session"): i8 by the tile's span
// [24,15,17,4,9,6,13,14] 57, 58 -> 66, 65; by rows [124,23,14,4,15,11,10] perm 3,1,6,0,4,5,2 46, 47
// -> 57, 58, [408,15,13,9,2,11,17] perm 6,2,0,3,4,5,1 59, 58 -> 63, 64; by links
// [44,21,10,4,12,13,23,2] perm 4,3,6,2,0,1,5,7 22, 22 -> 33, 33, [1612,7,6,9,22,10,2] perm
// 6,0,5,3,1,2,4 45, 44 -> 57, 56, [8256,25,20,13,5] perm 3,4,1,0,2 36, 35 -> 44, 44,
// [24,18,22,13,3,14,2,24] perm 7,1,4,6,3,2,0,5 26, 26 -> 36, 37; every row [36,12,16,22,10,23,7]
// perm 4,6,1,3,5,2,0 55, 55 -> 63, 64, [24,7,19,17,3,14,21,5] perm 7,6,0,4,3,2,5,1 21, 22 -> 26,
// 25. Level within 3 points: the reversals, [776,12,21,3,8,19,3], [1472,6,22,6,10,23]; down 2-3:
// [3268,8,6,18,19,5] (by rows) and [1516,23,10,12,8,4,2] (links of one line each).
// Links transposed straight from the input (chained_tile's one call per link) prefetch that link's
// rows into L2 before the call the same way. One round, builds alternating, % of memcpy: i8
// [29048,22,5,2,7,6] perm 5,2,4,3,1,0 26 -> 42, [84,25,14,19,19,25] perm 5,4,3,0,1,2 27 -> 44,
// [548,108,82,55] perm 3,2,0,1 32 -> 45, [2768,19,10,3,10,17] perm 5,4,1,2,3,0 33 -> 57,
// [2172,20,11,11,17,3] perm 2,4,3,1,5,0 36, 33 -> 51, 52; f32 [5256,8,14,19,6] perm 2,3,4,1,0 35 ->
// 85. Links copied by input_stager first (chain_stages_input: the byte reversals, whose rows it
// reads eight side by side) do not: with it [256,64,128,128] perm 3,2,1,0 went 64.5 -> 60.0.
constexpr i64 kPrefetchCompact = 2, kPrefetchL1Bytes = 32 << 10;
// ... except rows of a KiB or more a multiple of kAliasingStride apart (the reversals of power-of-two
// extents, rows 1-16 MiB apart): they fall into the same L2 sets, where the prefetched lines of
// one link evict each other, and the hardware prefetchers follow such long rows by themselves. Two
// rounds, builds alternating, prefetch -> none, % of memcpy (docs/cpu.md "Thirty-fourth session"):
// f16 reversals [128,64,128,128] 57.6, 56.1 -> 68.8, 69.8, [64,32,32,32,64] 60.4, 60.0 -> 65.4, 66.4,
// [32,16,16,16,16,64] 59.2, 61.0 -> 66.7, 66.8, [16,8,8,16,16,16,32] 49.7, 50.5 -> 64.0, 64.3,
// [8,8,8,8,8,8,16,32] 54.8, 54.2 -> 60.2, 60.8; f32 [64,64,128,128] 77.6, 79.5 -> 92.1, 91.8,
// [32,32,32,32,64] 82.1, 82.0 -> 87.5, 87.4, [8,8,8,16,16,16,32] 65.6, 65.8 -> 73.4, 76.1. Shorter
// rows at such strides keep it (f32 [16,16,16,16,16,64], 512-byte rows 4 MiB apart: 79.3 -> 103.2
// with it, one round), and so do long rows at other strides (f16 [22,13,14,4,18,20,23] perm
// 0,4,5,2,1,6,3, 1058-byte rows 8280 B apart: 38.3 -> 50.9).
constexpr i64 kPrefetchAliasedRowBytes = 1024;
bool prefetch_straight_links(const blocked_nest& n, i64 row_bytes) {
  return !(row_bytes >= kPrefetchAliasedRowBytes && n.i.in_stride % kAliasingStride == 0);
}
// Streamed tiles without chains whose input rows are short (kNextTileRowBytes) prefetch the *next*
// task's input rows into L2 at the start of each task (run_tiles), so that they arrive while this
// tile is transposed and streamed out; prefetch_tile_rows above only puts the current tile's rows
// in flight together, when the kernel is about to wait for them. One core moves ~13 GB/s through
// f64 [197,61,107,52] perm 0,1,3,2 and two 25.6: the transposes are bound by each core's misses in
// flight, not by DRAM. Taken where rows are short and either apart in the input or the tile's
// output one contiguous block (kContiguous); rows side by side in a tile written by lines are
// what the hardware prefetchers follow (f64 [683,11,25,21,17] perm 4,0,1,2,3 -1.1 GB/s, f16
// [2786,15,13,13,19] -2.6, i8 [5572,15,13,13,19] -1.5, f64 [64,128,128,64] perm 0,3,1,2 -1.0).
// Rows closer than a line (next_tile_span) are prefetched as one span: one prefetch per row lost
// where rows are a few bytes (i8 [514244,174,3] perm 0,2,1 16.3 -> 9.8 GB/s, as a span 17.1 ->
// 17.6). Rows under a line farther apart do not (f16 [32,32,1024,128] perm 0,1,3,2, 32 B rows
// 256 B apart, 20.8 -> 18.8). Intel Xeon host, 2 threads, GB/s, alternating rounds (3 for f64 /
// c128, 2 for the rest), median, without -> with: f64 [197,61,107,52] 24.6 -> 27.4,
// [128561,174,3] perm 0,2,1 24.8 -> 28.9, [137,108,82,55] perm 3,2,0,1 19.1 -> 20.6, [60787,184,6]
// perm 0,2,1 31.8 -> 33.5, [21,25,14,19,19,25] perm 5,4,3,0,1,2 15.9 -> 15.1, [692,19,10,3,10,17]
// perm 5,4,1,2,3,0 19.4 -> 19.3; c128 [128561,174,3] 28.9 -> 30.6, [60787,184,6] 27.5 -> 31.3,
// [692,...] 23.2 -> 26.2, [21,25,...] 19.6 -> 21.1, [7262,22,5,2,7,6] perm 5,2,4,3,1,0 10.5 -> 11.3,
// [197,...] 24.6 -> 24.4; f32 [197,...] 23.8 -> 27.9, [128561,...] 25.6 -> 30.6, [137,...] 13.6 ->
// 16.6, [692,...] 13.1 -> 16.5, [60787,...] 23.6 -> 27.5; f16 [394,61,107,52] 25.1 -> 26.5,
// [257122,174,3] 18.9 -> 22.2, [121574,184,6] 24.5 -> 31.8; i8 [788,61,107,52] 22.6 -> 24.8,
// [243148,184,6] 19.4 -> 21.7, [2048,256,512] perm 2,1,0 17.1 -> 16.4 (docs/cpu.md "Thirty-eighth
// session"). Rows of 640 B and more lost (f64 [1,24,19,23,24,25,16,5] perm 2,1,4,0,6,5,3,7 (40 B
// elements) 31.8 -> 27.6, [512,256,512] reversal 30.3 -> 27.2); folded elements of other sizes
// were mixed (f64 [1393,15,13,13,19] perm 3,0,1,2,4, 152 B: 28.6 -> 34.7; [10168,5,24,11,5] perm
// 1,2,0,3,4, 440 B: 38.9 -> 36.3) and are left out.
constexpr i64 kNextTileRowBytes = 512;
bool next_tile_span(const blocked_nest& n, const tile_shape& s) { return n.i.in_stride - s.tj * n.elem < 64; }
bool prefetches_next_tile(const blocked_nest& n, const tile_shape& s) {
  const i64 e = n.elem, row = s.tj * e;
  const bool chained = n.i_chain_rank > 0 || n.j_chain_rank > 0;
  const bool contiguous_out = s.ti == n.i.extent && n.i.out_stride == e && n.j.out_stride == n.i.extent * e;
  return (e == 1 || e == 2 || e == 4 || e == 8 || e == 16) && s.stream && !chained && row <= kNextTileRowBytes &&
         (contiguous_out || n.i.in_stride != row) && (row >= 64 || next_tile_span(n, s));
}
// Straight links (chained_tile's one kernel call per i chain link, tiles of 8- and 16-byte
// elements) prefetch the *next* link's rows before this link's call rather than each link's own
// rows just before it, where a link's rows are at most kNextLinkRowBytes and the link at least
// kNextLinkMinBytes. Intel Xeon host, 2 threads, five alternating rounds in two runs, GB/s, the
// medians of each, without -> with: f64 [66,12,6,2,15,18,13,2] perm 7,4,1,3,6,2,0,5 (208 B rows,
// links of 3.7 KiB) 18.2, 18.7 -> 20.0, 20.0; [11,21,10,4,12,13,23,2] perm 4,3,6,2,0,1,5,7 (368 B,
// 4.8 KiB) 18.0, 17.9 -> 20.2, 18.9; [403,7,6,9,22,10,2] perm 6,0,5,3,1,2,4 20.4, 20.8 -> 22.4,
// 22.2; [368,6,22,6,10,23] perm 0,2,5,1,4,3 (184 B, 1.1 KiB) 19.8, 20.2 -> 21.6, 22.5;
// [2064,25,20,13,5] perm 3,4,1,0,2 (520 B, 10 KiB) 24.6, 25.4 -> 26.4, 26.8. Left out: rows of
// 680 B and more ([23,201,168,85] reversal 20.3, 20.0 -> 19.3, 20.0; [9,12,16,22,10,23,7], 896 B,
// 26.1, 26.5 -> 27.4, 26.8) and links under 1 KiB ([379,23,10,12,8,4,2] perm 5,1,3,2,0,4,6, 512 B
// links, 15.1, 13.6 -> 13.4, 12.9) (docs/cpu.md "Thirty-eighth session").
constexpr i64 kNextLinkRowBytes = 576, kNextLinkMinBytes = 1024;
bool prefetches_next_link(const blocked_nest& n, const tile_shape& s) {
  const i64 e = n.elem, row = n.j_chain_count() * s.tj * e;
  return (e == 8 || e == 16) && s.stream && n.i_chain_count() > 1 && !chain_links_staged(n, s) &&
         !chain_stages_input(n, s) && row <= kNextLinkRowBytes && s.ti * row >= kNextLinkMinBytes &&
         prefetch_straight_links(n, row);
}
// (The prefetches are volatile asm on x86: GCC's pure-const analysis counts __builtin_prefetch as
// without side effects, so a function made only of them was deleted with its call.)
template <int Locality>  // 3: into L1 (prefetcht0), 2: into L2 (prefetcht1)
void prefetch_span(const std::byte* p, i64 bytes) {
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{63};
  const auto last = reinterpret_cast<std::uintptr_t>(p + bytes - 1);
  for (std::uintptr_t a = first; a <= last; a += 64) {
#if defined(__x86_64__)
    if constexpr (Locality == 3)
      asm volatile("prefetcht0 %0" : : "m"(*reinterpret_cast<const char*>(a)));
    else
      asm volatile("prefetcht1 %0" : : "m"(*reinterpret_cast<const char*>(a)));
#else
    __builtin_prefetch(reinterpret_cast<const void*>(a), 0, Locality);
#endif
  }
}
void prefetch_lines(const std::byte* p, i64 bytes, bool l1) {
  if (l1)
    prefetch_span<3>(p, bytes);
  else
    prefetch_span<2>(p, bytes);
}
// Rows of `bytes` each, `stride` apart, into L2.
void prefetch_rows(const std::byte* p, i64 stride, i64 rows, i64 bytes) {
  for (i64 r = 0; r < rows; ++r) prefetch_lines(p + r * stride, bytes, false);
}
void prefetch_links(const blocked_nest& n, const chain_table& ct, const std::byte* src, i64 ti, i64 K, i64 row) {
  i64 cs = row;  // one row's span over the i chain
  for (int c = 0; c < n.i_chain_rank; ++c) cs += (n.i_chain[c].extent - 1) * n.i_chain[c].in_stride;
  const i64 span = (ti - 1) * n.i.in_stride + cs, lb = (ti - 1) * n.i.in_stride + row;
  if (span <= kPrefetchCompact * K * ti * row && span <= kPrefetchL1Bytes) {
    prefetch_lines(src, span, true);
  } else if (cs <= kPrefetchCompact * K * row) {
    prefetch_rows(src, n.i.in_stride, ti, cs);
  } else if (lb <= kPrefetchCompact * ti * row) {
    for (i64 k = 0; k < K; ++k) prefetch_lines(src + ct.ki[k], lb, K * lb <= kPrefetchL1Bytes);
  } else {
    for (i64 k = 0; k < K; ++k) prefetch_rows(src + ct.ki[k], n.i.in_stride, ti, row);
  }
}

// Links staged together (chain_links_staged) whose rows lie one after another in the input, so that
// each link is one block of ti x row bytes (the tile's i rows contiguous with its j rows), prefetch
// the *next* tile's link k into L2 right after staging their own link k: the next tile's input
// arrives while this one is transposed and written, a link's worth at a time, instead of all at once
// just before it is staged (prefetch_links, which stays). Links of other shapes lost with it, their
// rows' lines prefetched once per row over overlapping links ([1472,6,22,6,10,23] perm 0,2,5,1,4,3
// 25.1 -> 20.1 GB/s), and so did links of a single line ([1516,23,10,12,8,4,2] perm 5,1,3,2,0,4,6, 64 B
// links, 11.3 -> 10.6). Zen 4 host, 2 threads, two rounds alternating, GB/s, without -> with: i8
// [8256,25,20,13,5] perm 3,4,1,0,2 (1300 B links) 14.8 -> 19.0, [44,21,10,4,12,13,23,2] perm
// 4,3,6,2,0,1,5,7 15.1 -> 17.9, [1612,7,6,9,22,10,2] perm 6,0,5,3,1,2,4 13.3 -> 20.0,
// [264,12,6,2,15,18,13,2] perm 7,4,1,3,6,2,0,5 11.8 -> 14.7, [24,18,22,13,3,14,2,24] 19.3 -> 21.4;
// f16 [4128,25,20,13,5] 16.6 -> 23.7 (docs/cpu.md "Fifty-second session").
constexpr i64 kNextTileLinkMinBytes = 128;
bool next_tile_links(const blocked_nest& n, i64 ti, i64 row) {
  return n.i.in_stride == row && ti * row >= kNextTileLinkMinBytes;
}

// One tile of a nest with chains: ti x tj of the base axes, times every index of the i chain
// (output columns) and of the j chain (output rows). With a staging buffer (`buf`) the kernel
// covers the whole j chain in one call, the input being contiguous along it, and the tile's output
// rows, (i chain x ti) elements each and contiguous in the output, are then streamed (`stream`)
// or copied with ordinary stores; without one each (i, j) chain index is a kernel call of its own.
// K and JP are the chains' counts for this tile: less than the full ones for the last block of a
// chain link split with a remainder (blocked_nest::i_split, j_split). The input rows go to the
// kernel straight, or staged a link at a time (stage_in: chain_stages_input), or staged a group of
// links at a time for one call per group (stage_links: chain_links_staged, which takes precedence).
// next_src: the next tile's input, whose links such groups prefetch as they go (next_tile_links), or null.
void chained_tile(const blocked_nest& n, const chain_table& ct, const kernel_table& kt, const tile_runner& tile,
                  std::byte* buf, i64 ldb, bool stream, bool stage_in, bool stage_links, bool next_link,
                  const std::byte* src, std::byte* dst, i64 ti, i64 tj, i64 K, i64 JP, const std::byte* next_src) {
  const i64 e = n.elem;
  if (!buf) {
    for (i64 k = 0; k < K; ++k)
      for (i64 jp = 0; jp < JP; ++jp)
        tile(src + ct.ki[k] + ct.ji[jp], dst + ct.ko[k] + ct.jo[jp], n.i.out_stride, n.j.out_stride, ti, tj);
    return;
  }
  const i64 len = K * ti * e;  // bytes of each output row
  const bool whole_lines = (n.j.out_stride | len) % 64 == 0;
  const bool packed = ti == n.i.extent && n.j.out_stride == len && ldb == len;  // rows form one run
  const i64 lds = chain_stage_stride(n, tj);  // (JP is at most the whole chain)
  const bool runs = stream && !packed && !whole_lines && K == n.i_chain_count() && j_chain_runs(n, ti) &&
                    JP * len <= kInStageBytes;
  if (stage_links && K > 1) {  // chain_links_staged: kn links' rows staged, one kernel call per group
    const i64 slds = links_stage_stride(n, tj), row = JP * tj * e;
    prefetch_links(n, ct, src, ti, K, row);
    if (!next_tile_links(n, ti, row)) next_src = nullptr;
    const i64 per = std::max<i64>(1, kInStageBytes / (ti * slds));
    for (i64 k0 = 0; k0 < K; k0 += per) {
      const i64 kn = std::min(per, K - k0);
      for (i64 k = k0; k < k0 + kn; ++k) {
        stage_link_rows(kt, buf + kBufBytes + (k - k0) * ti * slds, slds, src + ct.ki[k], n.i.in_stride, ti, row);
        if (next_src) prefetch_lines(next_src + ct.ki[k], ti * row, false);  // (next_tile_links)
      }
      tile.with_input_stride(slds)(buf + kBufBytes, buf + k0 * ti * e, e, ldb, kn * ti, JP * tj);
    }
  } else {
    for (i64 k = 0; k < K; ++k) {
      const i64 ki = ct.ki[k];
      if (stage_in) {
        input_stager(kt)(buf + kBufBytes, lds, src + ki, n.i.in_stride, ti, JP * tj * e);
        tile.with_input_stride(lds)(buf + kBufBytes, buf + k * ti * e, e, ldb, ti, JP * tj);
      } else {
        if (prefetch_straight_links(n, JP * tj * e)) {
          if (!next_link || k == 0)
            prefetch_rows(src + ki, n.i.in_stride, ti, JP * tj * e);
          if (next_link && k + 1 < K)  // prefetches_next_link: the next link's rows, ahead of their call
            prefetch_rows(src + ct.ki[k + 1], n.i.in_stride, ti, JP * tj * e);
        }
        tile(src + ki, buf + k * ti * e, e, ldb, ti, JP * tj);
      }
    }
  }
  if (runs) {  // each j index's rows over the j chain are one output run: gathered, then streamed
    std::byte* t = buf + kBufBytes;  // the input staging area, free once transposed
    for (i64 j = 0; j < tj; ++j) {
      for (i64 jp = 0; jp < JP; ++jp) copy_short(t + jp * len, buf + (jp * tj + j) * ldb, len);
      kt.stream_copy(dst + j * n.j.out_stride, t, static_cast<std::size_t>(JP * len));
    }
    return;
  }
  for (i64 jp = 0; jp < JP; ++jp) {
    std::byte* d = dst + ct.jo[jp];
    const std::byte* b = buf + jp * tj * ldb;
    if (!stream) {
      for (i64 j = 0; j < tj; ++j) copy_short(d + j * n.j.out_stride, b + j * ldb, len);
    } else if (packed) {
      kt.stream_copy(d, b, static_cast<std::size_t>(tj * len));
    } else if (whole_lines && reinterpret_cast<std::uintptr_t>(d) % 64 == 0) {
      kt.stream_lines(d, n.j.out_stride, b, ldb, tj, len);
    } else {
      for (i64 j = 0; j < tj; ++j) kt.stream_copy(d + j * n.j.out_stride, b + j * ldb, static_cast<std::size_t>(len));
    }
  }
}

// The count of a chain at the odometer's position: all of it, except in the last block of a link
// split with a remainder (extent N into blocks of f: the block at index b holds min(f, N - b f)).
i64 split_count(const std::array<loop_dim, kMaxRank>& chain, int rank, int split, i64 extent, i64 count,
                const odometer& cur) {
  if (split < 0) return count;
  const i64 f = chain[rank - 1].extent;
  return count / f * std::min(f, extent - cur.idx[split] * f);
}

// The order of the nti x ntj tiles of one outer index: macro blocks of mi x mj tiles, row-major,
// and row-major tiles inside each block (mi = nti, mj = ntj: plain row-major).
struct macro_order {
  i64 nti, ntj, mi, mj;
  void locate(i64 t, i64* bi, i64* bj) const {
    const i64 band = t / (mi * ntj), r = t - band * mi * ntj;
    const i64 h = std::min(mi, nti - band * mi);
    const i64 bx = r / (h * mj), r2 = r - bx * h * mj;
    const i64 w = std::min(mj, ntj - bx * mj);
    *bi = band * mi + r2 / w;
    *bj = bx * mj + r2 % w;
  }
};

void run_tiles(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, const tile_shape& s,
               const std::byte* in, std::byte* out) {
  const i64 e = n.elem, ni = n.i.extent, nj = n.j.extent;
  const int ke = elem_index(e);
  const int kp = pads_elements(e) ? elem_index(padded_size(e)) : -1;
  const tile_runner tile{n, ke >= 0 && n.j.in_stride == e ? kt.tile[ke] : nullptr,
                         kp >= 0 && kt.pad_rows && n.j.in_stride == e ? kt.tile[kp] : nullptr,
                         &kt, n.i.in_stride, s.rows_first};

  // Streaming stores must cover whole cache lines (microkernels_avx2.cpp says why). A line split
  // between two i tiles would need ordinary stores, each a read-for-ownership from memory at full
  // latency (15% of memcpy at 8193 x 8192 f32). So each output row owns the lines that *start* in
  // its part [i0, i1) of the tile: when all rows share the base's line offset, the i tiles are
  // shifted to start on line boundaries; otherwise each tile also transposes the next line's worth
  // of elements (`ext`), so every row can finish its last line. The row's first and last partial
  // lines (at i = 0 and i = ni) take ordinary stores.
  const auto mis = static_cast<i64>(reinterpret_cast<std::uintptr_t>(out) % 64);
  const bool rows_aligned = rows_share_line_offset(n);
  const bool ichain = n.i_chain_rank > 0, jchain = n.j_chain_rank > 0, chained = ichain || jchain;
  const i64 K = n.i_chain_count();
  store_mode mode = store_mode::kDirect;
  // Folded elements of sizes that do not divide a line (5, 7, 23, ... bytes): line boundaries fall
  // inside elements, so a row's lines are owned by bytes (the line starting in the tile's part)
  // rather than by elements; the tile transposes the `ext` elements after its part as well. These
  // tiles were written directly with ordinary stores before (a read-for-ownership per output line).
  // Intel Xeon host, 2 threads, alternating rounds, GB/s, direct -> streamed: i8 [91896,127,23]
  // perm 1,0,2 (23 B elements) 15.9, 15.7 -> 23.0, 23.1; [40672,5,24,11,5] perm 1,2,0,3,4 (55 B)
  // 12.2, 12.5 -> 28.6, 28.6; [23196,29,57,7] perm 2,1,0,3 (7 B) 8.6, 8.4 -> 12.6, 12.6;
  // [721600,124,3,1] perm 1,0,2,3 (3 B, padded) 8.9, 8.6 -> 13.6, 13.4; [1851276,29,5] perm 1,0,2
  // (5 B) 12.9, 12.5 -> 13.5, 14.5; f16 [925638,29,5] 16.1, 16.6 -> 18.8, 18.3; f32 [462819,29,5]
  // 21.7, 21.4 -> 23.4, 23.0; i8 [5572,15,13,13,19] (19 B) 23.5, 24.2 -> 24.0, 22.4 (docs/cpu.md
  // "Thirtieth session").
  const bool odd_lines = s.stream && !chained && 64 % e != 0;
  if (s.stream && !chained && s.ti == ni && n.j.out_stride == ni * e)
    mode = store_mode::kContiguous;
  else if (s.stream && ((64 % e == 0 && mis % e == 0) || odd_lines))  // line boundaries between elements
    mode = store_mode::kLines;
  const bool lines = mode == store_mode::kLines;
  // (Shifting only helps when every tile is whole lines long; a tile of 1360 one-byte elements
  // would end mid-line, with the next tile owning the rest: such tiles take `ext` instead.)
  const bool line_tiles = rows_aligned && s.ti * e % 64 == 0 && 64 % e == 0;
  const bool line_rows = lines && line_tiles && mis == 0 && whole_line_rows(n);
  const i64 shift = lines && line_tiles && !ichain ? (s.ti - ((64 - mis) % 64) / e % s.ti) % s.ti : 0;
  const i64 ext = lines && !line_tiles && !ichain ? ceil_div(64, e) : 0;
  // Likewise on the input side: j tiles start on input line boundaries when every input row shares
  // the base's line offset, so no line is read by two tiles far apart in time (glibc's large
  // allocations start 16 bytes into a page: 71% vs 79% of memcpy at 8192^2 f32 without this).
  bool in_rows_aligned = n.i.in_stride % 64 == 0;
  for (int k = 0; k < n.outer_rank; ++k) in_rows_aligned = in_rows_aligned && n.outer[k].in_stride % 64 == 0;
  const auto in_mis = static_cast<i64>(reinterpret_cast<std::uintptr_t>(in) % 64);
  const i64 jshift = in_rows_aligned && n.j.in_stride == e && 64 % e == 0 && in_mis % e == 0 && s.tj < nj && !jchain
                         ? (s.tj - ((64 - in_mis) % 64) / e % s.tj) % s.tj
                         : 0;
  const i64 nti = ceil_div(ni + shift, s.ti), ntj = ceil_div(nj + jshift, s.tj);
  // (Chained tiles whose rows are one contiguous run stage them packed, as kContiguous does.)
  const bool packed_rows = s.ti == ni && n.j.out_stride == K * ni * e;
  const i64 ldb = mode == store_mode::kContiguous || (chained && packed_rows)
                      ? K * ni * e
                      : round_up(((ichain ? K * ni : s.ti) + ext) * e, 64);
  // (Only for tiles whose kernels walk down columns of blocks: those walking along rows first
  // read each line whole through their own small staging block, and this extra copy slowed them,
  // 16384^2 f16 63-64% of memcpy without it, 52-55% with it.)
  const bool stage_in = lines && !chained && tile.simd && e <= 2 &&
                        n.i.in_stride % kAliasingStride == 0 && s.tj * e < kRowsFirstBytes;
  const i64 lds = staged_row_stride(s.tj, e);  // an odd number of lines: rows spread over the sets
  // Chained tiles of bytes stage their input the same way (chained_tile), their whole j chain per
  // row: the power-of-two reversals, whose rows of 128-512 B sit 1-4 MiB apart (see kAliasingStride).
  const bool chain_stage_in = lines && tile.simd && chain_stages_input(n, s);
  const bool chain_stage_links = (lines || mode == store_mode::kDirect) && tile.simd && chain_links_staged(n, s);
  // Staged tiles (choose_tiles; interior i tiles, which start and end on output line boundaries):
  // the tile's input rows are first copied into the staging buffer, a group of rows side by side
  // (kernel_table::stage_rows), then transposed kStagedChunkBytes of each row at a time into a
  // block in L1 (buf + kBufBytes) and streamed from there. Each step then does one thing well:
  // the copy reads a few long sequential streams (what the prefetchers follow), the transpose
  // writes whole output lines in L1 (the unstaged tile writes 16 bytes into each of 2048 staged
  // output lines per group of 16 input rows, and every such line comes from L2 four times), and
  // the streaming stores read from L1 and overlap with the rest. One thread, 16384^2 i8: copy
  // alone 26-29 GB/s, transpose and stream alone 22-28, all three 14.0-14.7, the unstaged tile
  // 10.9-12.6 (docs/cpu.md "Seventh round").
  // Output rows at differing line offsets stage their `ext` rows too.
  const bool staged = s.staged && lines && (line_tiles || ext > 0) && !chained && tile.simd && kt.stage_rows;
  // Split tiles (kRuleSplit): interior tiles of whole words (a multiple of 4 / e columns) go through
  // the 4-byte kernel into rows of words (split_row_bytes apart), split by stream_split_lines; the
  // others (the i tiles at the rows' ends, a last tile of a ragged width) take the ordinary path.
  const bool split = s.split && lines && ext == 0 && !chained && e <= 2 && kt.tile[2] && kt.stream_split_lines;
  const i64 split_ldb = split ? split_row_bytes(s.ti) : 0, split_w = 4 / e;
  // Transposes of 16-byte elements (batched or not, folded ones too) whose tiles are whole output
  // lines: each interior tile goes straight to the output with streaming stores
  // (kernel_table::stream_tile_16b), skipping the staging buffer and stream_lines. Zen 2, 2 threads,
  // alternating rounds: c128 16384^2 23.2 vs 19.4 GB/s, 8192^2 25.4 vs 18.1, [4,4096,4096] perm 0,2,1
  // 29.4 vs 24.2, f32 [4096,4096,4] perm 1,0,2 25.5 vs 20.8 (docs/cpu.md, "Twenty-seventh session").
  const bool stream_direct =
      lines && line_tiles && !chained && e == 16 && n.j.in_stride == e && tile.simd && kt.stream_tile_16b;
  // Chained tiles written directly (small ones, choose_tiles) whose base tile is under
  // kDirectStagedBelow bytes and whose j chain has more than one index: transposed into the staging
  // buffer whole, one kernel call per i chain index, and copied out row by row, instead of one
  // kernel call per (i, j) chain index.
  const bool direct_staged = mode == store_mode::kDirect && j_chain_continues(n, s.tj) && n.j_chain_count() > 1 &&
                             s.ti == ni && n.i.out_stride == e && s.ti * s.tj * e < kDirectStagedBelow &&
                             n.j_chain_count() * s.tj * ldb <= kBufBytes;
  // Streamed tiles of 8- and 16-byte elements with input rows of at most kPrefetchTileRowBytes
  // prefetch their rows into L2 before the kernel call, as chained tiles' links do (prefetch_links):
  // the kernel then finds its rows in flight together instead of missing on each in turn. Intel
  // host, % of memcpy, one round over the 40 f64 / c128 suite plans it changes, then two more on
  // eight (docs/cpu.md "Thirty-fourth session"): f64 [64,128,128,64] perm 0,3,1,2 49-51 -> 62-64,
  // [180400,124,3,1] perm 1,0,2,3 59 -> 73, [1,24,19,23,24,25,16,5] 57 -> 69, [137,108,82,55] perm
  // 3,2,0,1 36 -> 47; c128 [683,11,25,21,17] perm 4,0,1,2,3 50 -> 63-65, [197,61,107,52] perm
  // 0,1,3,2 41 -> 52-53, [21,25,14,19,19,25] 35 -> 43; down: c128 [8,1024,1024,8] perm 0,2,1,3 74-75
  // -> 70-73, [112410,199,3] 78-81 -> 72-77. Rows of 4 KiB lost (f32 16384^2 57 -> 46-47, f32 8192^2
  // 85-91 -> 67-73, f64 [512,256,512] reversal 48-49 -> 46); smaller elements were not measured.
  constexpr i64 kPrefetchTileRowBytes = 1024;
  const bool prefetch_tile_rows = e >= 8 && !chained && s.tj * e <= kPrefetchTileRowBytes;
  const bool lookahead = prefetches_next_tile(n, s), ahead_span = next_tile_span(n, s);
  const bool next_link = prefetches_next_link(n, s);
  const i64 staged_lds = staged_row_stride(s.tj, e), staged_cw = std::max<i64>(1, kStagedChunkBytes / e);

  const chain_table chains(chained ? n : blocked_nest{});
  const i64 tasks = n.outer_count() * nti * ntj;
  const int threads = team_size(pd, n.outer_count() * ni * nj * e, tasks);
  const i64 macro_el = std::min(kMacroBytes / e, kMacroMaxRows);
  // (A plain 2-D transpose, no outer dims, walks its tiles row-major instead, see kMacroBytes, or
  // in the macro blocks of its host's plain_2d_walk.)
  const bool plain_2d = n.outer_rank == 0;
  const i64 block_el = plain_2d ? std::min(plain_2d_walk(pd.tuning, e).macro / e, kMacroMaxRows) : macro_el;
  const macro_order macro = block_el > 0 ? macro_order{nti, ntj, std::max<i64>(1, block_el / s.ti),
                                                       std::max<i64>(1, block_el / s.tj)}
                                         : macro_order{nti, ntj, 1, ntj};  // row-major
  // Threads take chunks of consecutive tasks from a shared counter rather than one fixed share
  // each: on a machine shared with other work a thread that loses its core for a while no longer
  // holds up the whole call (see kChunkBytesTiles).
  const i64 tile_bytes = std::max<i64>(1, s.ti * s.tj * e * K * n.j_chain_count());
  const i64 chunk =
      std::max<i64>(1, std::min(ceil_div(tasks, threads * kMinChunksPerThread), kChunkBytesTiles / tile_bytes));
  std::atomic<i64> next_task{0};
#pragma omp parallel num_threads(threads)
  {
    std::byte* const buf =
        mode == store_mode::kDirect && !direct_staged && !chain_stage_links ? nullptr : staging_buffer();
    odometer cur(n);
    i64 bi = 0, bj = 0, cur_o = -1;
    odometer ahead(n);  // the next task's outer position, for `lookahead`
    i64 ahead_o = -1;
    std::byte* group_dst = nullptr;  // kContiguous: the gathered tiles' output, group_bytes of it in buf
    i64 group_bytes = 0;
    auto flush_group = [&] {
      if (group_bytes > 0) kt.stream_copy(group_dst, buf, static_cast<std::size_t>(group_bytes));
      group_bytes = 0;
    };
    for (;;) {
      const i64 begin = next_task.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= tasks) break;
      const i64 end = std::min(tasks, begin + chunk);
      for (i64 task = begin; task < end; ++task) {
        {
          const i64 o = task / (nti * ntj);
          cur.move_to(o, &cur_o);
          macro.locate(task - o * nti * ntj, &bi, &bj);
        }
        // The next task's tile (its i and j tile indices; `ahead` at its outer position).
        auto locate_next = [&](i64* ai, i64* aj) {
          const i64 o = (task + 1) / (nti * ntj);
          macro.locate(task + 1 - o * nti * ntj, ai, aj);
          ahead.move_to(o, &ahead_o);
        };
        if (lookahead && task + 1 < tasks) {  // the next tile's input rows, into L2 (prefetches_next_tile)
          i64 ai = 0, aj = 0;
          locate_next(&ai, &aj);
          const i64 a0 = std::max<i64>(0, ai * s.ti - shift), a1 = std::min(ni, (ai + 1) * s.ti - shift + ext);
          const i64 b0 = std::max<i64>(0, aj * s.tj - jshift), b1 = std::min(nj, (aj + 1) * s.tj - jshift);
          const std::byte* next = in + ahead.in + a0 * n.i.in_stride + b0 * n.j.in_stride;
          const i64 row = (b1 - b0) * e;
          if (ahead_span)  // rows within a line of each other: their whole span at once
            prefetch_lines(next, (a1 - a0 - 1) * n.i.in_stride + row, false);
          else
            prefetch_rows(next, n.i.in_stride, a1 - a0, row);
        }
        const i64 i0 = std::max<i64>(0, bi * s.ti - shift), i1 = std::min(ni, (bi + 1) * s.ti - shift);
        const i64 j0 = std::max<i64>(0, bj * s.tj - jshift), j1 = std::min(nj, (bj + 1) * s.tj - jshift);
        const std::byte* src = in + cur.in + i0 * n.i.in_stride + j0 * n.j.in_stride;
        std::byte* dst = out + cur.out + i0 * n.i.out_stride + j0 * n.j.out_stride;
        if (chained) {
          const std::byte* next_src = nullptr;
          if (chain_stage_links && task + 1 < tasks) {  // the next tile's links, for next_tile_links
            i64 ai = 0, aj = 0;
            locate_next(&ai, &aj);
            next_src = in + ahead.in + std::max<i64>(0, ai * s.ti - shift) * n.i.in_stride +
                       std::max<i64>(0, aj * s.tj - jshift) * n.j.in_stride;
          }
          const bool buffered = mode == store_mode::kLines || direct_staged || chain_stage_links;
          chained_tile(n, chains, kt, tile, buffered ? buf : nullptr, ldb, mode == store_mode::kLines, chain_stage_in,
                       chain_stage_links, next_link, src, dst, i1 - i0, j1 - j0,
                       split_count(n.i_chain, n.i_chain_rank, n.i_split, n.i_split_extent, K, cur),
                       split_count(n.j_chain, n.j_chain_rank, n.j_split, n.j_split_extent, n.j_chain_count(), cur),
                       next_src);
        } else if (mode == store_mode::kDirect || !buf) {
          tile(src, dst, n.i.out_stride, n.j.out_stride, i1 - i0, j1 - j0);
        } else if (mode == store_mode::kContiguous) {
          const i64 bytes = (j1 - j0) * ldb;
          if (bytes >= kContiguousGroupTileBytes) {  // a tile of its own
            flush_group();
            tile(src, buf, e, ldb, i1 - i0, j1 - j0);
            kt.stream_copy(dst, buf, static_cast<std::size_t>(bytes));
            continue;
          }
          if (group_bytes > 0 && (dst != group_dst + group_bytes || group_bytes + bytes > kContiguousGroupBytes))
            flush_group();
          if (group_bytes == 0) group_dst = dst;
          tile(src, buf + group_bytes, e, ldb, i1 - i0, j1 - j0);
          group_bytes += bytes;
        } else {
          const i64 i1x = std::min(ni, i1 + ext);
          const bool row_end = !line_rows && (i0 == 0 || i1 + std::max<i64>(ext, 1) > ni);
          if (split && !row_end && (j1 - j0) % split_w == 0) {
            kt.tile[2](src, n.i.in_stride, buf, split_ldb, i1x - i0, (j1 - j0) / split_w);
            kt.stream_split_lines(dst, n.j.out_stride, buf, split_ldb, (j1 - j0) / split_w, (i1 - i0) * e, e);
            continue;
          }
          if (staged && !row_end) {  // (i1x = i1 + ext: the lines that start in the part end in it)
            const i64 rows = i1x - i0, cols = j1 - j0, part = (i1 - i0) * e, ldk = rows * e;
            std::byte* const block = buf + kBufBytes;
            kt.stage_rows(buf, staged_lds, src, n.i.in_stride, rows, cols * e);
            for (i64 c = 0; c < cols; c += staged_cw) {
              const i64 w = std::min(staged_cw, cols - c);
              tile.simd(buf + c * e, staged_lds, block, ldk, rows, w);
              kt.stream_lines(dst + c * n.j.out_stride, n.j.out_stride, block, ldk, w, part);
            }
            continue;
          }
          if (stream_direct && !row_end && (i1 - i0) % 4 == 0 && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 &&
              n.j.out_stride % 64 == 0) {  // whole lines from line boundaries (kernel_table::stream_tile_16b)
            kt.stream_tile_16b(src, n.i.in_stride, dst, n.j.out_stride, i1 - i0, j1 - j0);
            continue;
          }
          if (row_end)  // its partial lines take ordinary stores: start their reads-for-ownership now
            for (i64 j = 0; j < j1 - j0; ++j) {
              __builtin_prefetch(dst + j * n.j.out_stride, 1);
              __builtin_prefetch(dst + j * n.j.out_stride + (i1 - i0) * e - 1, 1);
            }
          if (stage_in && (i1x - i0) * lds <= kInStageBytes) {
            input_stager(kt)(buf + kBufBytes, lds, src, n.i.in_stride, i1x - i0, (j1 - j0) * e);
            tile.with_input_stride(lds)(buf + kBufBytes, buf, e, ldb, i1x - i0, j1 - j0);
          } else {
            if (prefetch_tile_rows)
              prefetch_rows(src, n.i.in_stride, i1x - i0, (j1 - j0) * e);
            tile(src, buf, e, ldb, i1x - i0, j1 - j0);
          }
          if (!row_end) {
            kt.stream_lines(dst, n.j.out_stride, buf, ldb, j1 - j0, (i1 - i0) * e);
          } else {  // a tile at either end of the rows: clip the owned lines to the row (in bytes)
            const i64 row_bytes = (ni - i0) * e, part = (i1 - i0) * e;
            for (i64 j = 0; j < j1 - j0; ++j) {
              std::byte* row = dst + j * n.j.out_stride;
              const auto a = static_cast<i64>(reinterpret_cast<std::uintptr_t>(row) % 64);
              const i64 first = std::min(i0 == 0 ? 0 : (64 - a) % 64, row_bytes);
              const i64 last = std::min(row_bytes, part + (64 - (a + part) % 64) % 64);
              if (last > first)
                kt.stream_copy(row + first, buf + j * ldb + first, static_cast<std::size_t>(last - first));
            }
          }
        }
      }
    }
    flush_group();
    if (s.stream) kt.stream_fence();
  }
}

// ---- narrow unzips and zips ----
// A plain 2-D transpose whose input rows are 2-7 packed 1- to 8-byte elements (40,000,000 x 3 f32 ->
// 3 x 40,000,000) goes to kernel_table::unzip_stream where the table has one: each thread unzips
// its share of the rows straight into the output, walking two distant pieces of it side by side
// (unzip_avx512.cpp says why). The staged narrow tiles (kNarrowTileBytes) ran these at 63-68% of
// memcpy on the Intel Xeon development host, f32 and f64 4e7 x 3; now 90-101 (2 threads,
// alternating rounds, GB/s, tiles -> unzip: f32 4e7 x 3 27.8, 28.2 -> 40.2, 42.8; f64 29.2, 30.8 ->
// 41.5, 43.5; 4e7 x 2 / 4 and 2e7 x 5 gained alike), and so do output rows at differing line
// offsets (40,000,001 x 3 f32 25.9, 28.1 -> 40.0, 41.9; docs/cpu.md "Thirty-first session").
// Batches of such transposes (outer dims, no chains: NHWC -> NCHW with 3 channels) too, where each
// output row is at least a piece long: f32 [1024,50176,3] perm 0,2,1 30.0, 31.2 -> 39.5, 42.1 GB/s
// (66 -> 92% of memcpy), [16384,2048,3] 26.1, 26.8 -> 39.9, 40.6; rows of one piece level (f32
// [65536,1024,3] 30.1, 28.2 -> 31.4, 29.4).
bool unzips(const blocked_nest& n, const kernel_table& kt, i64 out_bytes) {
  const i64 e = n.elem, ch = n.j.extent;
  return kt.unzip_stream && n.k == blocked_nest::kind::kTiles && n.i_chain_rank == 0 && n.j_chain_rank == 0 &&
         (e == 1 || e == 2 || e == 4 || e == 8) && ch >= kUnzipMinChannels && ch <= kUnzipMaxChannels &&
         n.j.in_stride == e && n.i.in_stride == ch * e && n.i.out_stride == e && n.i.extent * e >= kUnzipPieceBytes &&
         out_bytes >= kStreamMinBytes;
}

// The narrow kernels' threads: every outer index's work cut into `blocks` blocks, contiguous shares
// of all of them per thread; f(cur, b0, b1) runs blocks [b0, b1) of the outer index at cur.
template <class F>
void for_item_blocks(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, i64 blocks, i64 item_bytes,
                     F&& f) {
  const i64 items = n.outer_count(), tasks = items * blocks;
  const int threads = team_size(pd, items * item_bytes, tasks);
#pragma omp parallel num_threads(threads)
  {
    i64 t0, t1;
    share(tasks, omp_get_thread_num(), omp_get_num_threads(), &t0, &t1);
    odometer cur(n);
    if (t0 < t1) cur.seek(t0 / blocks);
    for (i64 t = t0; t < t1;) {
      const i64 o = t / blocks;
      f(cur, t - o * blocks, std::min(blocks, t1 - o * blocks));
      t = (o + 1) * blocks;
      cur.next();
    }
    kt.stream_fence();
  }
}

// Each outer index's rows in blocks of unzip_stream's pieces from its first output row's first line
// boundary (so that a block's lines are its own). False (nothing written) when the output pointer
// is not aligned to the element: no row would reach a line boundary.
bool run_unzip(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, const std::byte* in,
               std::byte* out) {
  const i64 e = n.elem, ch = n.j.extent, count = n.i.extent, ldi = n.i.in_stride, ldo = n.j.out_stride;
  if (reinterpret_cast<std::uintptr_t>(out) % e != 0) return false;
  const i64 block = kUnzipPieces * kUnzipPieceBytes / e, blocks = ceil_div(count, block) + 1;  // (+1: the head)
  for_item_blocks(pd, n, kt, blocks, count * ch * e, [&](const odometer& cur, i64 b0, i64 b1) {
    std::byte* const dst = out + cur.out;
    const i64 head = std::min(count, (64 - static_cast<i64>(reinterpret_cast<std::uintptr_t>(dst) % 64)) % 64 / e);
    // Block 0 is the head; block b > 0 starts at head + (b - 1) * block.
    const i64 i0 = b0 == 0 ? 0 : std::min(count, head + (b0 - 1) * block);
    const i64 i1 = b1 == blocks ? count : std::min(count, head + (b1 - 1) * block);
    if (i0 < i1) kt.unzip_stream(in + cur.in + i0 * ldi, dst + i0 * e, ldo, ch, e, i1 - i0);
  });
  return true;
}

// The reverse, a zip: 2-7 input rows (channels) of 1- to 8-byte elements interleaved into packed
// output rows (3 x 40,000,000 -> 40,000,000 x 3; NCHW -> NHWC), batched too, each input row at
// least a piece long: kernel_table::zip_stream (unzip_avx512.cpp) where the table has one. Intel
// Xeon host, 2 threads, alternating rounds, GB/s, tiles -> zip: f32 3 x 4e7 37.1, 39.0 -> 47.4,
// 48.0; i8 [4096,3,50176] perm 0,2,1 28.5, 29.5 -> 42.5, 44.5 (docs/cpu.md "Thirty-first session").
bool zips(const blocked_nest& n, const kernel_table& kt, i64 out_bytes) {
  const i64 e = n.elem, ch = n.i.extent;
  return kt.zip_stream && n.k == blocked_nest::kind::kTiles && n.i_chain_rank == 0 && n.j_chain_rank == 0 &&
         (e == 1 || e == 2 || e == 4 || e == 8) && ch >= kUnzipMinChannels && ch <= kUnzipMaxChannels &&
         n.i.out_stride == e && n.j.in_stride == e && n.j.out_stride == ch * e && n.j.extent * e >= kUnzipPieceBytes &&
         out_bytes >= kStreamMinBytes;
}

// Each outer index's elements in blocks of a piece pair per channel (the kernel finds each block's
// first line boundary itself).
void run_zip(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, const std::byte* in,
             std::byte* out) {
  const i64 e = n.elem, ch = n.i.extent, count = n.j.extent, ldi = n.i.in_stride;
  const i64 block = kUnzipPieces * kUnzipPieceBytes / e, blocks = ceil_div(count, block);
  for_item_blocks(pd, n, kt, blocks, count * ch * e, [&](const odometer& cur, i64 b0, i64 b1) {
    const i64 j0 = b0 * block, j1 = std::min(count, b1 * block);
    kt.zip_stream(in + cur.in + j0 * e, ldi, out + cur.out + j0 * ch * e, ch, e, j1 - j0);
  });
}

// ---- rows ----
bool stream_row_copies(const blocked_nest& n, const kernel_table& kt, i64 out_bytes) {
  return kt.stream_copy && out_bytes >= kStreamMinBytes && n.elem >= 64;
}

void run_rows(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, bool stream, const std::byte* in,
              std::byte* out) {
  const i64 chunks = ceil_div(n.elem, kChunkBytes), rows = n.outer_count();
  const i64 tasks = rows * chunks;
  const int threads = team_size(pd, rows * n.elem, tasks);
#pragma omp parallel num_threads(threads)
  {
    i64 begin, end;
    share(tasks, omp_get_thread_num(), omp_get_num_threads(), &begin, &end);
    if (begin < end) {
      odometer cur(n);
      cur.seek(begin / chunks);
      i64 c = begin % chunks;
      for (i64 task = begin; task < end; ++task) {
        const i64 off = c * kChunkBytes, len = std::min(kChunkBytes, n.elem - off);
        if (stream)
          kt.stream_copy(out + cur.out + off, in + cur.in + off, static_cast<std::size_t>(len));
        else
          std::memcpy(out + cur.out + off, in + cur.in + off, static_cast<std::size_t>(len));
        if (++c == chunks) {
          c = 0;
          cur.next();
        }
      }
      if (stream) kt.stream_fence();
    }
  }
}

}  // namespace

std::int64_t blocked_nest::outer_count() const {
  i64 c = 1;
  for (int k = 0; k < outer_rank; ++k) c *= outer[k].extent;
  return c;
}
std::int64_t blocked_nest::i_chain_count() const {
  i64 c = 1;
  for (int k = 0; k < i_chain_rank; ++k) c *= i_chain[k].extent;
  return c;
}
std::int64_t blocked_nest::j_chain_count() const {
  i64 c = 1;
  for (int k = 0; k < j_chain_rank; ++k) c *= j_chain[k].extent;
  return c;
}

blocked_nest make_nest(const problem& p, cpu_tuning t) {
  blocked_nest n;
  const i64 b = p.elem_bytes;
  std::array<loop_dim, kMaxRank> d{};
  int r = 0;
  for (int k = 0; k < p.rank; ++k) d[r++] = {p.dims[k].extent, p.dims[k].in_stride * b, p.dims[k].out_stride * b};
  auto take = [&](int k) {
    const loop_dim x = d[k];
    std::copy(d.begin() + k + 1, d.begin() + r, d.begin() + k);
    --r;
    return x;
  };
  auto argmin = [&](i64 loop_dim::*stride) {
    int best = 0;
    for (int k = 1; k < r; ++k)
      if (d[k].*stride < d[best].*stride) best = k;
    return best;
  };
  auto finish_outer = [&](auto order) {
    std::stable_sort(d.begin(), d.begin() + r, order);
    n.outer_rank = r;
    std::copy(d.begin(), d.begin() + r, n.outer.begin());
  };

  n.elem = b;
  if (r > 0) {
    const int f = argmin(&loop_dim::out_stride);
    if (d[f].in_stride == b && d[f].out_stride == b) {  // a contiguous row on both sides
      n.elem = d[f].extent * b;
      take(f);
      // Short rows that fan out take tiles (kShortRowMaxBytes).
      const int io = r > 0 ? argmin(&loop_dim::out_stride) : 0, ii = r > 0 ? argmin(&loop_dim::in_stride) : 0;
      const bool fan_out = r > 0 && io != ii && d[io].out_stride == n.elem && d[ii].in_stride == n.elem &&
                           d[io].extent * n.elem >= kShortRowTileRun;
      if ((n.elem >= kMinRowBytes && !(fan_out && n.elem < kShortRowMaxBytes)) || r == 0) {
        // Row copies: walk the rows in input order (innermost = smallest input stride), so the reads
        // are sequential and the hardware prefetchers follow them; the writes are whole streamed
        // lines wherever they land. Output order (writes sequential, reads jumping between rows)
        // lost everywhere it was measured: f32, GB/s, interleaved runs on the 2-core machine
        // (docs/cpu.md "Fifth session"): [16,32,1024,128] perm 0,2,1,3 (512 B rows) 15.0-22.5 ->
        // 25.3-29.9, [428,18,58,150] perm 2,0,1,3 (600 B) 9.8-12.5 -> 36.7-36.8, [601,53,54,39]
        // perm 1,0,2,3 (8 KiB) 17.0-20.1 -> 26.3-43.5, [8,64,64,64,128] perm 0,3,2,1,4 17.4-20.5 ->
        // 33.8-35.7, and rows of 64 KiB and more the same or faster.
        n.k = blocked_nest::kind::kRows;
        finish_outer([](const loop_dim& x, const loop_dim& y) { return x.in_stride > y.in_stride; });
        return n;
      }
    }
  }
  if (r == 0) {  // a single element
    n.k = blocked_nest::kind::kRows;
    return n;
  }
  n.k = blocked_nest::kind::kTiles;
  n.i = take(argmin(&loop_dim::out_stride));
  if (r > 0) n.j = take(argmin(&loop_dim::in_stride));
  // The chains: dims continuing i in the output, then j in the input, while the axis is short;
  // only when both axes are short (with one long side, the narrow tiles of choose_tiles, long on
  // that side, did better: 53% vs 43% of memcpy on [543,20,11,11,17,3] perm (2,4,3,1,5,0)).
  // "Short" for i is below kChainOutMaxBytes, though the i chain grows only to kChainOutBytes: an
  // i axis of 256-511 B keeps its length and the j chain takes it (see kChainOutMaxBytes).
  // The chain targets: longer for 16-byte elements under the `amd` tuning (kWideChainOutBytes).
  const bool wide = t == cpu_tuning::kAmd && b == kWideChainElemBytes;
  const i64 out_target = wide ? kWideChainOutBytes : kChainOutBytes;
  const i64 out_short = wide ? kWideChainOutBytes : kChainOutMaxBytes;
  const i64 in_target = wide ? kWideChainInBytes : kChainInBytes;
  const bool both_short = n.i.extent * n.elem < out_short && n.j.extent * n.elem < in_target;
  // ... and a j chain alone when the input rows are shorter than a line (kJOnlyChainMaxInBytes)
  // while i is long: the tile then reads each input line whole instead of a few bytes of it per
  // tile, the rest of the line waiting in cache for the tile of the next outer index. It stops at
  // kJOnlyChainInBytes, so that i keeps most of the tile (choose_tiles gives such tiles
  // kMaxChainTileBytes). [7262,22,5,2,7,6] perm 5,2,4,3,1,0 (24 B input rows): 7.2-7.5 -> 13.4-15.3
  // GB/s, 18-24% -> 33-49% of memcpy; [543,20,11,11,17,3] perm 2,4,3,1,5,0 (12 B) 17.5-17.9 ->
  // 18.3-18.6 GB/s. With the 1 KiB target and the few-rows tile budget of both-short chains
  // instead, [543,...] fell to 8.6-12.4 GB/s, and input rows of 64 B and more lost as well:
  // [692,19,10,3,10,17] perm 5,4,1,2,3,0 (68 B rows) 18.0-19.5 -> 15.1-15.4 GB/s (interleaved
  // runs, docs/cpu.md "Fourth round"). These are the only two suite cases whose plan changes.
  const bool j_only = !both_short && n.j.extent * n.elem < kJOnlyChainMaxInBytes;
  // A dim continuing the axis but too long to take whole (past kMaxChainBytes or the tile cap) is
  // split into blocks of f: the block is the chain's last link, the blocks' index (ceil(N / f) of
  // them, strides x f) an outer loop, and the last block is clipped when f does not divide N
  // (blocked_nest::i_split, run_tiles). The reversal [23,201,168,85] then moves 276 B output rows
  // (23 x 3) and 680 B input rows (85 x 2) instead of 92 B and 340 B ones, 17-25% -> 31-45% of
  // memcpy; [32,32,32,32,64] reversal 19-25% -> 48-53%; with clipped blocks (prime extents) too,
  // [379,23,10,12,8,4,2] perm 5,1,3,2,0,4,6 15-16% -> 37-39% (interleaved runs, docs/cpu.md
  // "Third round"). f is the smallest block that reaches the chain's target: the tile stays small.
  i64 i_split_stride = 0, j_split_stride = 0;  // output strides of the outer parts of split links
  auto fits = [&](i64 bytes, i64 f, i64 other, i64 tile_cap = kMaxChainTileBytes) {
    return bytes * f <= kMaxChainBytes && bytes * f * other <= tile_cap;
  };
  // Whole-line i blocks: a block of a split i link is grown past the smallest one reaching the
  // target to the first whose output rows are a whole number of lines (bounded only by the chain
  // and tile caps, `fits`). With rows of 4.5 lines ([156,78,144,150] perm 3,1,0,2: 2 x 144 B) every
  // row ends in half a line that the next block's tile writes, one streamed half at a time, much
  // later; 4 x 144 B = 9 lines leaves none. Every suite plan this changes gained, % of memcpy in two
  // interleaved rounds on the Intel host (docs/cpu.md "Thirty-fourth session"): i8 [156,78,144,150]
  // 59 -> 77, [8256,25,20,13,5] perm 3,4,1,0,2 44 -> 71, [264,12,6,2,15,18,13,2] 29 -> 65,
  // [44,21,10,4,12,13,23,2] 33 -> 68, [92,201,168,85] reversal 43-49 -> 53-57, [776,12,21,3,8,19,3]
  // 22 -> 28-29, [1192,14,9,17,15,7] 21 -> 32; f16 [4128,25,20,13,5] 52 -> 82-85, [46,201,168,85]
  // 51 -> 63; f32 [23,201,168,85] 55-58 -> 87, [11,21,10,4,12,13,23,2] 30-32 -> 72; f64
  // [23,201,168,85] 32 -> 50, [403,7,6,9,22,10,2] 26 -> 47; c128 [102,15,13,9,2,11,17] 54 -> 60.
  // The same rule for the j chain's blocks (input rows of whole lines) measured level.
  // Second step (in `chains`): i rows that pass the target off a line boundary, by whole dims or as
  // the i axis alone, go on along the next dim to a whole-line block, once the j chain has taken
  // its dims (taking the j chain's dim instead lost: f16 [1634,8,6,18,19,5] perm 2,5,0,4,3,1, i
  // chain x18 -> x36 and j chain x19 -> x1, 81-85 -> 43-45; f32 [6,7,19,17,3,14,21,5] 60 -> 36-42).
  // Two rounds, % of memcpy: i8 [24,18,22,13,3,14,2,24] perm 7,1,4,6,3,2,0,5 36.0, 36.4 -> 66.9, 67.5;
  // f16 [78,78,144,150] perm 3,1,0,2 50.0, 48.2 -> 81.9, 80.6, [12,18,22,13,3,14,2,24] 37.1, 37.1 ->
  // 84.4, 83.4; f32 [6,18,22,13,3,14,2,24] 31.7, 33.6 -> 77.3, 74.5, [6,15,17,4,9,6,13,14] perm
  // 3,0,1,2,7,4,6,5 52.3, 53.0 -> 55.9, 54.8; f64 [368,6,22,6,10,23] perm 0,2,5,1,4,3 33.0, 34.0 ->
  // 56.1, 52.0, [298,14,9,17,15,7] perm 1,4,3,0,2,5 28.1, 29.3 -> 39.5, 39.2, [6,18,22,13,3,14,2,24]
  // 46.0, 49.7 -> 54.4, 53.6; c128 [66,12,6,2,15,18,13,2] 32.4, 33.8 -> 55.6, 54.1,
  // [11,21,10,4,12,13,23,2] 31.8, 31.1 -> 47.5, 48.8, [403,7,6,9,22,10,2] 33.9, 35.8 -> 62.9, 64.0,
  // [6,15,17,4,9,6,13,14] level. Down: f64 [6,15,17,4,9,6,13,14] 44.9, 46.6 -> 39.4, 39.5 (x13 ->
  // x52 links, 624 B -> 2496 B rows).
  constexpr i64 kLineBytes = 64;
  // Short rows for an empty j chain: input rows under 4 lines, whose tile the i chain filled to the
  // cap (whole-line i blocks make it long: the [92,201,168,85] i8 reversal's i chain is x16, 1472 B
  // rows of 1472 x 85 B = 125 KiB, leaving the j chain nothing), take a block of 2 of the j chain's
  // dim, up to twice the cap: each tile then reads 2-4 lines per input row instead of 1-2 lines
  // shared with the tile of the next outer index. Zen 4, 2 threads, three alternating rounds, GB/s
  // (docs/cpu.md "Fifty-third session"): i8 [92,201,168,85] reversal 15.8 -> 19.5, [184,201,84,85]
  // 15.7 -> 19.4, [60,301,168,70] 14.3 -> 16.3; f16 [46,201,168,85] 19.6 -> 20.6. The whole cap
  // raised to 256 KiB instead lost where the j chain had links already (i8 [36,12,16,22,10,23,7]
  // perm 4,6,1,3,5,2,0 21.5 -> 11.8, [2172,20,11,11,17,3] 19.1 -> 12.1); a j chain of 4 at 512 KiB
  // took the reversal to 8.9 (past the staging buffer).
  constexpr i64 kShortJRowBytes = 256, kShortJRowTileCap = 2;
  // A block of f of dim k becomes the chain's last link, the blocks' index (strides x f) staying
  // in d as an outer loop; all of it (f = extent) is taken whole.
  auto take_block = [&](std::array<loop_dim, kMaxRank>& chain, int& rank, int k, i64 f, i64& split_extent,
                        i64& split_stride) {
    if (f == d[k].extent) {
      chain[rank++] = take(k);
      return;
    }
    chain[rank++] = {f, d[k].in_stride, d[k].out_stride};
    split_extent = d[k].extent;
    split_stride = d[k].out_stride * f;
    d[k] = {ceil_div(d[k].extent, f), d[k].in_stride * f, d[k].out_stride * f};
  };
  // past: what the chain does with a dim that would take it past twice its target: take it whole,
  // take the smallest block of it that reaches the target, or stop before it (see below).
  enum class past { kWhole, kBlock, kStop };
  auto grow = [&](std::array<loop_dim, kMaxRank>& chain, int& rank, i64 loop_dim::*stride, i64 bytes, i64 target,
                  i64 other, i64& split_extent, i64& split_stride, past mode) {
    const bool overshoot = mode == past::kWhole;
    while ((both_short || (j_only && stride == &loop_dim::in_stride)) && bytes < target) {
      int k = 0;
      while (k < r && d[k].*stride != bytes) ++k;
      // (The blocks' index of a split i link stays an outer loop: its last block may be clipped.)
      if (k == r || (i_split_stride && d[k].out_stride == i_split_stride)) break;
      if (fits(bytes, d[k].extent, other) && (overshoot || bytes * d[k].extent <= 2 * target)) {
        bytes *= d[k].extent;
        chain[rank++] = take(k);
        continue;
      }
      if (mode == past::kStop && fits(bytes, d[k].extent, other)) break;
      // The smallest block that reaches the target, else the largest that fits.
      i64 f = 1;
      while (f + 1 < d[k].extent && fits(bytes, f + 1, other) && bytes * f < target) ++f;
      // ... and for the i chain, the smallest block from there whose output rows are whole lines
      // (kLineBytes), wherever one fits (see "Whole-line i blocks" above).
      if (stride == &loop_dim::out_stride && f > 1)
        for (i64 g = f; g < d[k].extent && fits(bytes, g, other); ++g)
          if (bytes * g % kLineBytes == 0) {
            f = g;
            break;
          }
      // ... and an empty j chain whose rows are short takes a pair of its dim past the tile cap
      // (kShortJRowBytes).
      if (f == 1 && rank == 0 && stride == &loop_dim::in_stride && bytes < kShortJRowBytes && d[k].extent > 2 &&
          fits(bytes, 2, other, kShortJRowTileCap * kMaxChainTileBytes))
        f = 2;
      if (f > 1) {
        take_block(chain, rank, k, f, split_extent, split_stride);
        bytes *= f;
      }
      break;
    }
    return bytes;
  };
  // Both chains, the i chain allowed or not to overshoot its target by taking a long dim whole
  // (else a block of it, or nothing of it: below). For 1- and 2-byte elements the plan without overshoot is kept where it
  // gives the j chain at least 4 times the length: the budget of the tile then goes to longer
  // input rows. The reversals of small power-of-two extents took a dim of 8-16 whole, an i chain
  // of 1 KiB for a target of 256 B, and left input rows of 32-64 B. GB/s, two interleaved rounds
  // (docs/cpu.md "Ninth session"): i8 [16,8,8,8,8,8,16,32] reversal 5.4, 5.2 -> 7.2, 6.5 (j chain
  // x2 -> x8); [64,16,16,16,16,64] reversal 4.1, 6.4 -> 10.2, 10.3 (x1 -> x4); f16 [32,16,16,16,
  // 16,64] 9.4, 10.2 -> 13.0, 12.6; [8,8,8,8,8,8,16,32] 5.4, 5.4 -> 7.0, 7.2; [12,7,19,17,3,14,21,
  // 5] perm 7,6,0,4,3,2,5,1 4.6, 5.1 -> 6.3, 6.1 (x3 -> x21). Where the j chain grew less the
  // smaller i chain only shrank the tile: i8 [24,7,19,17,3,14,21,5] (x7 -> x21) 4.5 -> 2.6,
  // [1612,7,6,9,22,10,2] (x10 both) 7.9 -> 4.4, f16 [806,7,6,9,22,10,2] 13.5 -> 7.3; and for 4- to
  // 16-byte elements it lost everywhere (f32 [4,8,8,8,8,8,16,32] 15.0 -> 11.3, f64 [408,8,6,18,19,
  // 5] perm 2,5,0,4,3,1 24.7 -> 16.9).
  constexpr i64 kShortChainGain = 4;
  // Where neither the whole dim nor a block of it gives the j chain that gain (the block's blocks
  // are an outer loop, so the j chain cannot take the dim either), the i chain may stop before the
  // dim instead, leaving it whole to the j chain, once the i chain's rows are a line long (twentieth
  // session; with shorter rows, 14-36 B, the stop took four suite cases' i chains to nothing, among
  // them [408,15,13,9,2,11,17], whose i chain links staged together ran at twice the speed). i8
  // [3268,8,6,18,19,5] perm 2,5,0,4,3,1: i chain x342 (2736 B rows), j chain x1 (5 B input rows) ->
  // x18 (144 B), x19 (95 B, links staged together), GB/s in three interleaved rounds 3.4, 3.4, 2.9 ->
  // 15.1, 15.9, 15.2 (docs/cpu.md "Twentieth session"); the only suite case whose plan changes.
  constexpr i64 kStopChainMinOutBytes = 64;
  const auto d0 = d;
  const int r0 = r;
  const blocked_nest n0 = n;
  auto chains = [&](past mode) {
    d = d0, r = r0, n = n0, i_split_stride = j_split_stride = 0;
    const i64 i_bytes = grow(n.i_chain, n.i_chain_rank, &loop_dim::out_stride, n.i.extent * n.elem, out_target,
                             std::min(n.j.extent, std::max<i64>(1, in_target / n.elem)), n.i_split_extent,
                             i_split_stride, mode);
    const i64 j_bytes =
        grow(n.j_chain, n.j_chain_rank, &loop_dim::in_stride, n.j.extent * n.elem,
             both_short ? in_target : kJOnlyChainInBytes,
             n.i_chain_rank ? i_bytes / n.elem : std::min(n.i.extent, std::max<i64>(1, out_target / n.elem)),
             n.j_split_extent, j_split_stride, past::kWhole);
    // Whole-line i rows, second step: rows that reached the target off a line boundary take the
    // smallest block (or all) of the dim continuing them that ends on one, where that dim is left
    // after the j chain's growth and the tile stays within the caps.
    if (both_short && i_bytes % kLineBytes && !i_split_stride) {
      int k = 0;
      while (k < r && d[k].out_stride != i_bytes) ++k;
      for (i64 g = 2; k < r && g <= d[k].extent && fits(i_bytes, g, j_bytes / n.elem); ++g) {
        if (i_bytes * g % kLineBytes) continue;
        take_block(n.i_chain, n.i_chain_rank, k, g, n.i_split_extent, i_split_stride);
        break;
      }
    }
    return n.j_chain_count();
  };
  const i64 j_with = chains(past::kWhole);
  auto out_row_bytes = [&] { return n.i_chain_count() * n.i.extent * n.elem; };
  if (n.elem <= 2 && chains(past::kBlock) < kShortChainGain * j_with &&
      (chains(past::kStop) < kShortChainGain * j_with || out_row_bytes() < kStopChainMinOutBytes))
    chains(past::kWhole);
  // Innermost outer loop = smallest input stride: consecutive tiles read neighbouring lines (and
  // pages) of the input, which the hardware prefetchers follow; the output side is streamed.
  finish_outer([](const loop_dim& x, const loop_dim& y) { return x.in_stride > y.in_stride; });
  // Find the outer parts of split links again (output strides are unique: outputs never overlap);
  // a split without remainder needs no clipping.
  const bool i_clip = i_split_stride && n.i_split_extent % n.i_chain[n.i_chain_rank - 1].extent;
  const bool j_clip = j_split_stride && n.j_split_extent % n.j_chain[n.j_chain_rank - 1].extent;
  for (int k = 0; k < n.outer_rank; ++k) {
    if (i_clip && n.outer[k].out_stride == i_split_stride) n.i_split = k;
    if (j_clip && n.outer[k].out_stride == j_split_stride) n.j_split = k;
  }
  return n;
}

cpu_tuning resolve_tuning(cpu_tuning t) {
  if (t != cpu_tuning::kAuto) return t;
  static const cpu_tuning host = [] {
    __builtin_cpu_init();
    return __builtin_cpu_is("intel") ? cpu_tuning::kIntel : cpu_tuning::kAmd;
  }();
  return host;
}

plain_walk plain_2d_walk(cpu_tuning t, i64 elem) {
  return (t == cpu_tuning::kIntel && elem == 8) || elem == 16 ? kPlainWideWalk : plain_walk{};
}

kernel_table tuned_kernels(cpu_tuning t) {
  kernel_table k = active_kernels();
  if (t == cpu_tuning::kIntel && k.stream_copy_pieces) k.stream_copy = k.stream_copy_pieces;
  if (t == cpu_tuning::kAmd && k.tile_amd[0]) std::copy(k.tile_amd.begin(), k.tile_amd.end(), k.tile.begin());
  if (t != cpu_tuning::kAmd) k.stream_split_lines = nullptr;  // measured on the Zen 4 host only (kRuleSplit)
  return k;
}

// The planner's step: the nest and tile shape are pure functions of the normalised problem and the
// kernel table, so run_blocked derives the same ones again instead of carrying them in the plan;
// configure records them in the plan's summary (and the tile in block_x/block_y, for display).
status configure_blocked(plan_data& pd, std::string*) {
  const blocked_nest n = make_nest(pd.prob, pd.tuning);
  const kernel_table kt = tuned_kernels(pd.tuning);
  const i64 out_bytes = pd.prob.count() * pd.prob.elem_bytes;
  pd.launch.block_x = pd.launch.block_y = 0;
  if (n.k == blocked_nest::kind::kRows) {
    pd.reason += fmt::format("; rows of {} B x {}{}", n.elem, n.outer_count(),
                             !stream_row_copies(n, kt, out_bytes) ? ""
                             : kt.stream_copy_pieces && kt.stream_copy == kt.stream_copy_pieces
                                 ? ", streaming stores, read in pieces side by side"
                                 : ", streaming stores");
  } else if (unzips(n, kt, out_bytes)) {
    pd.reason += fmt::format("; unzip of {} rows of {} packed {} B elements x {} ({} kernels), streaming stores",
                             n.i.extent, n.j.extent, n.elem, n.outer_count(), kt.isa);
  } else if (zips(n, kt, out_bytes)) {
    pd.reason += fmt::format("; zip of {} rows of {} {} B elements x {} ({} kernels), streaming stores", n.i.extent,
                             n.j.extent, n.elem, n.outer_count(), kt.isa);
  } else {
    const tile_shape s = choose_tiles(n, kt, out_bytes, pd.tuning);
    pd.launch.block_y = static_cast<int>(s.ti);
    pd.launch.block_x = static_cast<int>(s.tj);
    const bool simd = elem_index(n.elem) >= 0 && n.j.in_stride == n.elem && n.i.out_stride == n.elem;
    std::string chains;
    if (n.i_chain_rank || n.j_chain_rank)
      chains = fmt::format(" (i chain x{}, j chain x{})", n.i_chain_count(), n.j_chain_count());
    const bool padded = pads_elements(n.elem) && kt.pad_rows && n.j.in_stride == n.elem && n.i.out_stride == n.elem;
    const std::string kernels = simd     ? fmt::format("{} kernels", kt.isa)
                                : padded ? fmt::format("{} kernels on {}-byte slots", kt.isa, padded_size(n.elem))
                                         : std::string(s.rows_first ? "strided scalar kernels, input rows first"
                                                                    : "strided scalar kernels");
    const i64 macro = n.outer_rank == 0 ? plain_2d_walk(pd.tuning, n.elem).macro : 0;
    pd.reason += fmt::format("; {}x{} tiles{} of {} B elements ({}) x {}{}{}{}{}", s.ti, s.tj, chains, n.elem,
                             kernels, n.outer_count(),
                             macro > 0 ? fmt::format(", in blocks of {} KiB a side", macro / 1024) : "",
                             s.stream ? ", streaming stores" : "",
                             prefetches_next_tile(n, s)   ? ", next tile prefetched"
                             : prefetches_next_link(n, s) ? ", next link prefetched"
                                                          : "",
                             simd && chain_links_staged(n, s) ? ", staged input (i chain links together)"
                             : s.staged || (simd && chain_stages_input(n, s)) ? ", staged input"
                             : s.split ? (n.elem == 1 ? ", bytes as 4-byte quads" : ", halves as 4-byte pairs")
                                                                                : "");
  }
  return status::kSuccess;
}

status run_blocked(const plan_data& pd, const void* in, void* out, CUstream_st*, std::string*) {
  const blocked_nest n = make_nest(pd.prob, pd.tuning);
  const kernel_table kt = tuned_kernels(pd.tuning);
  const i64 out_bytes = pd.prob.count() * pd.prob.elem_bytes;
  const auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  if (n.k == blocked_nest::kind::kRows)
    run_rows(pd, n, kt, stream_row_copies(n, kt, out_bytes), src, dst);
  else if (zips(n, kt, out_bytes))
    run_zip(pd, n, kt, src, dst);
  else if (!unzips(n, kt, out_bytes) || !run_unzip(pd, n, kt, src, dst))
    run_tiles(pd, n, kt, choose_tiles(n, kt, out_bytes, pd.tuning), src, dst);
  return status::kSuccess;
}

}  // namespace xpose::detail::cpu
