// The table behind narrow_rule_for (plan/narrow_rules.hpp): one row per shape class where a kernel
// measured ahead of the one `auto` ran before, each naming its measurement.
#include "plan/narrow_rules.hpp"

#include <algorithm>
#include <string_view>

#include "gpu/kernels/tile_shapes.hpp"  // interleave_short_side: the sides interleave takes

namespace xpose::detail {
namespace {

constexpr narrow_rule kNarrowRules[] = {
    // interleave (twenty-fifth session, H200 2026-12-01, by name against auto, three calls, mean % of
    // copy; docs/performance.md "Twenty-fifth session", results/interleave-*-2026-12-01.json): sides
    // of 2, 3, 4, 8 and 16 measured (the rows interpolate between them), the long side 10^7 or 10^7 + 1.
    // They replaced three rows of the twenty-first session that they cover whole (NarrowRules.
    // EveryRowIsReachable found them shadowed): f64 2-8 long rows with an odd long side
    // (permute_packed 83.1-91.0%, now 93.8-102.0), f16 4-8 long rows with an odd long side
    // (permute_box 56.0 / 62.5, now 100.1 / 92.0), i8 2-8-element input rows (narrow 63.4-75.9, now
    // 88.4-108.3).
    {1, 1, true, 2, 8, -1, 19, "interleave",
     "i8 matrix of 2-8 long rows: rows interleaved in registers by constant byte permutes (H200 2 / 3 / 4 / 8 x "
     "10^7: 119.9 / 100.2 / 98.9 / 91.1% of copy vs 68.5 / 81.8 / 81.5 / 85.3 before; x 10000001: 121.2 / 99.1 / 97.4 / "
     "88.6 vs 34.9 / 42.2 / 45.3 / 45.4)"},
    {1, 1, true, 9, 16, 0, 19, "interleave",
     "i8 matrix of 9-16 long rows, odd long side: rows interleaved in registers (H200 16 x 10000001: 84.6% of copy vs "
     "54.9 before; 16 x 10^7 not: 85.7 vs 91.5)"},
    {1, 1, false, 2, 8, -1, 19, "interleave",
     "i8 matrix of 2-8-element input rows: the dense run split into rows in registers (H200 10^7 x 2 / 3 / 4 / 8: "
     "93.2 / 104.2 / 93.3 / 89.7% of copy vs 65.7 / 75.9 / 74.9 / 73.4 before; 10000001 x: 92.1 / 106.8 / 90.6 / 87.6 "
     "vs 54.9 / 65.5 / 61.4 / 58.6)"},
    {1, 1, false, 9, 16, 0, 19, "interleave",
     "i8 matrix of 9-16-element input rows, odd long side: the dense run split into rows in registers (H200 "
     "10000001 x 16: 82.1% of copy vs 58.6 before; 10^7 x 16 not: 83.3 vs 89.5)"},
    {2, 2, true, 2, 4, -1, 38, "interleave",
     "f16 matrix of 2-4 long rows: rows interleaved in registers (H200 2 / 3 / 4 x 10^7: 110.2 / 105.1 / 101.0% of "
     "copy vs 88.5 / 90.9 / 90.4 before; x 10000001: 111.3 / 107.1 / 99.9 vs 55.7 / 55.2 / 56.1)"},
    {2, 2, true, 5, 16, 0, 38, "interleave",
     "f16 matrix of 5-16 long rows, odd long side: rows interleaved in registers (H200 8 / 16 x 10000001: 92.8 / 89.2% "
     "of copy vs 62.9 / 63.7 before; 8 x 10^7 94.2 vs 91.1, 16 x 10^7 90.9 vs 97.7: not taken)"},
    {2, 2, false, 3, 3, -1, 38, "interleave",
     "f16 matrix of 3-element input rows: the dense run split into rows in registers (H200 10^7 x 3 / 10000001 x 3: "
     "105.7 / 108.4% of copy vs 90.7 / 88.0 before)"},
    {2, 2, false, 4, 16, 0, 38, "interleave",
     "f16 matrix of 4-16-element input rows, odd long side: the dense run split into rows in registers (H200 10000001 "
     "x 4 / 8 / 16: 91.5 / 91.9 / 86.3% of copy vs 84.6 / 83.3 / 78.9 before; 10000001 x 2 91.4 vs 87.7, and with "
     "whole long sides 2-16 within +1.3 to -5.0: not taken)"},
    {4, 4, true, 2, 4, -1, 76, "interleave",
     "f32 matrix of 2-4 long rows: rows interleaved in registers (H200 2 / 3 / 4 x 10^7: 104.6 / 100.6 / 98.9% of "
     "copy vs 90.4 / 90.4 / 88.8 before; x 10000001: 104.8 / 99.5 / 97.7 vs 84.1 / 83.7 / 82.5)"},
    {4, 4, true, 5, 16, 0, 76, "interleave",
     "f32 matrix of 5-16 long rows, odd long side: rows interleaved in registers (H200 8 / 16 x 10000001: 92.4 / 90.8% "
     "of copy vs 79.6 / 79.1 before; 8 / 16 x 10^7 not: 94.5 / 92.8 vs 100.1 / 97.2)"},
    {4, 4, false, 3, 3, -1, 76, "interleave",
     "f32 matrix of 3-element input rows: the dense run split into rows in registers (H200 10^7 x 3 / 10000001 x 3: "
     "99.9 / 100.5% of copy vs 88.1 / 92.8 before)"},
    {4, 4, false, 8, 16, 0, 76, "interleave",
     "f32 matrix of 8-16-element input rows, odd long side: the dense run split into rows in registers (H200 "
     "10000001 x 8 / 16: 93.3 / 90.6% of copy vs 86.7 / 83.5 before; 10000001 x 2 / 4 89.3 / 91.4 vs 94.3 / 90.7: "
     "not taken)"},
    // 8-byte elements (same session, one call, --reps 10, results/interleave-f64-2026-12-01.json).
    {8, 8, true, 2, 3, -1, 152, "interleave",
     "f64 matrix of 2-3 long rows: rows interleaved in registers (H200 2 / 3 x 10^7: 101.7 / 99.2% of copy vs 86.9 / "
     "88.6 before; x 10000001: 101.1 / 98.5 vs 84.1 / 90.4)"},
    {8, 8, true, 4, 16, 0, 152, "interleave",
     "f64 matrix of 4-16 long rows, odd long side: rows interleaved in registers (H200 4 / 8 / 16 x 10000001: 97.2 / "
     "93.2 / 92.2% of copy vs 83.9 / 83.2 / 81.2 before; with 10^7 columns 98.5 / 95.1 / 94.5 vs 99.7 / 98.8 / 91.0: "
     "not taken)"},
    {8, 8, false, 3, 3, -1, 152, "interleave",
     "f64 matrix of 3-element input rows: the dense run split into rows in registers (H200 10^7 x 3 / 10000001 x 3: "
     "99.3 / 97.7% of copy vs 86.8 / 88.2 before; 2 and 4 lost: 10^7 x 2 87.6 vs 101.9, 10^7 x 4 91.4 vs 99.8)"},
    {8, 8, false, 8, 8, 0, 152, "interleave",
     "f64 matrix of 8-element input rows, odd long side: the dense run split into rows in registers (H200 10000001 x "
     "8: 92.9% of copy vs 84.3 before; 10000001 x 4 / 16 89.7 / 91.4 vs 86.7 / 92.8: not taken)"},
    // ... and from a few MiB (same session, one call, 20 repetitions, results/interleave-small-*-2026-12-01.json):
    // sides of 3 and 8 at 10^6 and 10^6 + 1 both ways, i8 / f16 (f32: side 3 only; 8 and 16 were mixed,
    // 16 lost for every element size, and at 10^5 elements every kernel is launch-bound).
    {1, 1, true, 3, 8, -1, 2, "interleave",
     "i8 matrix of 3-8 long rows, a few MiB: rows interleaved in registers (H200 3 x 10^6 / 3 x 1000001 / 8 x 10^6 / "
     "8 x 1000001: 148.9 / 155.7 / 89.6 / 93.5% of copy vs 94.7 / 77.4 / 76.2 / 51.6 before)"},
    {1, 1, false, 3, 8, -1, 2, "interleave",
     "i8 matrix of 3-8-element input rows, a few MiB: the dense run split into rows in registers (H200 10^6 x 3 / "
     "1000001 x 3 / 10^6 x 8 / 1000001 x 8: 166.8 / 173.9 / 86.1 / 85.2% of copy vs 98.7 / 123.1 / 71.1 / 73.1 before)"},
    {2, 2, true, 3, 8, -1, 5, "interleave",
     "f16 matrix of 3-8 long rows, a few MiB: rows interleaved in registers (H200 3 x 10^6 / 3 x 1000001 / 8 x 10^6 / "
     "8 x 1000001: 113.0 / 157.4 / 97.4 / 91.2% of copy vs 105.5 / 90.2 / 86.7 / 53.9 before)"},
    {2, 2, false, 3, 8, -1, 5, "interleave",
     "f16 matrix of 3-8-element input rows, a few MiB: the dense run split into rows in registers (H200 10^6 x 3 / "
     "1000001 x 3 / 10^6 x 8 / 1000001 x 8: 151.5 / 171.6 / 92.4 / 81.9% of copy vs 98.8 / 132.9 / 65.6 / 70.2 "
     "before; not from 38 MiB, where 10^7 x 4 / 8 tied or lost)",
     37},
    {4, 4, true, 3, 3, -1, 11, "interleave",
     "f32 matrix of 3 long rows, a few MiB: rows interleaved in registers (H200 3 x 10^6 / 3 x 1000001: 126.4 / 122.8% "
     "of copy vs 82.4 / 90.6 before)"},
    {4, 4, false, 3, 3, -1, 11, "interleave",
     "f32 matrix of 3-element input rows, a few MiB: the dense run split into rows in registers (H200 10^6 x 3 / "
     "1000001 x 3: 127.9 / 128.7% of copy vs 82.0 / 104.5 before)"},
    // interleave in row groups (twenty-sixth session, H200 2026-12-02, one call, --reps 10, by name
    // against auto; docs/performance.md "Twenty-sixth session", results/wide-*-2026-12-02a.json, and
    // 10^6 / 1000001 in results/widesmall-*-2026-12-02b.json and -02f.json): short sides of 32, 48 and 64
    // (narrow_rule_for skips the sides between, which interleave does not take), gains of 4 points
    // or more. f32 48 / 64 with an odd long side gained 5.6-6.6 points at 10^6 but 3.1 to -13.4 at
    // 10^7 (either way round): not taken.
    {1, 1, true, 32, 48, 0, 30, "interleave",
     "i8 matrix of 32 or 48 long rows, odd long side, from 32 x 1000001: rows interleaved in registers (H200 32 / 48 x "
     "1000001: 60.3 / 63.7% of copy vs 39.1 / 42.9 before; 64 x 1000001 67.1 vs 68.8: from 305 MiB only)"},
    {1, 1, true, 32, 64, 0, 305, "interleave",
     "i8 matrix of 32, 48 or 64 long rows, odd long side: rows interleaved in registers, 16 rows a lane (H200 32 / 48 "
     "/ 64 x 10000001: 85.4 / 84.1 / 83.4% of copy vs 52.6 / 47.0 / 67.2 before)"},
    {1, 1, false, 48, 64, 0, 45, "interleave",
     "i8 matrix of 48- or 64-element input rows, odd long side, from 1000001 x 48: the dense run split into rows in "
     "registers (H200 1000001 x 48 / 64: 64.4 / 64.9% of copy vs 52.8 / 50.3 before; x 32 57.2 vs 55.8)"},
    {1, 1, false, 32, 64, 0, 305, "interleave",
     "i8 matrix of 32-, 48- or 64-element input rows, odd long side: the dense run split into rows in registers "
     "(H200 10000001 x 32 / 48 / 64: 81.4 / 79.0 / 75.1% of copy vs 51.3 / 52.5 / 46.6 before)"},
    {2, 2, true, 32, 64, 0, 61, "interleave",
     "f16 matrix of 32, 48 or 64 long rows, odd long side: rows interleaved in registers, 16 rows a lane (H200 32 / 48 "
     "/ 64 x 10000001: 88.7 / 87.0 / 85.9% of copy vs 66.6 / 67.3 / 71.6 before; x 1000001: 76.6 / 74.2 / 79.0 vs 51.5 "
     "/ 49.0 / 46.8)"},
    {2, 2, false, 48, 64, 0, 91, "interleave",
     "f16 matrix of 48- or 64-element input rows, odd long side, from 1000001 x 48: the dense run split into rows in "
     "registers, a tile per block (H200 1000001 x 48: 80.2% of copy vs 72.6 before, twenty-seventh session; 1000001 x "
     "64: 78.2 vs 60.7 before the twenty-sixth session's row)"},
    {2, 2, false, 32, 64, 0, 610, "interleave",
     "f16 matrix of 32-, 48- or 64-element input rows, odd long side: the dense run split into rows in registers "
     "(H200 10000001 x 32 / 48 / 64: 85.1 / 81.2 / 76.9% of copy vs 73.8 / 71.0 / 60.6 before)"},
    {2, 2, false, 32, 32, 1, 610, "interleave",
     "f16 matrix of 32-element input rows, whole long side: the dense run split into rows in registers (H200 10^7 x "
     "32: 94.3% of copy vs 90.0 before; x 48 / 64 within 2.2 points: not taken)"},
    // The grouped unzip's tile-per-block form (twenty-seventh session, H200 2026-12-02, two alternating
    // rounds, by name against auto, results/handoff-ab-2026-12-02g.json): f32 48 / 64 with an odd long
    // side now gain 9-10 points at 10^6; at 10^7 still not (tiled_skew's row below).
    {4, 4, false, 48, 64, 0, 183, "interleave",
     "f32 matrix of 48- or 64-element input rows, odd long side, 183 MiB to 1.2 GiB: the dense run split into rows "
     "in registers, a tile per block (H200 1000001 x 48 / 64: 82.4 / 79.1% of copy vs 73.0 / 69.2 before; 10000001 x "
     "48 / 64 84.8 / 82.1 vs tiled_skew 82.8 / 88.1: not taken there)",
     1219},
    {4, 4, false, 32, 32, 1, 122, "interleave",
     "f32 matrix of 32-element input rows, whole long side: the dense run split into rows in registers (H200 10^7 x "
     "32: 94.4 / 94.4% of copy vs 89.6 / 89.3 before, two calls; 10^6 x 32: 92.7 vs 82.2)"},
    {4, 4, true, 32, 32, 0, 1220, "interleave",
     "f32 matrix of 32 long rows, odd long side: rows interleaved in registers (H200 32 x 10000001: 89.3% of copy vs "
     "permute_runs 84.4; 48 / 64 x 10000001 +3.1 / +1.7: not taken)"},
    {8, 8, true, 64, 64, 1, 4882, "interleave",
     "f64 matrix of 64 long rows, whole long side: rows interleaved in registers (H200 64 x 10^7: 91.9% of copy vs "
     "82.7 before; 32 / 48 x 10^7 +0.4 / -3.9: not taken)"},
    {8, 8, false, 64, 64, -1, 4882, "tiled_skew",
     "narrow f64 matrix, input rows of 64 elements: the classic tile, output rows staggered to sectors (H200 "
     "10000001 x 64 / 10000000 x 64: 90.5 / 95.1% of copy vs tiled 76.5 / reg_batch 86.5 before; twenty-seventh "
     "and twenty-eighth sessions, by name, results/side64-f64-byname-2026-12-02j.json, "
     "results/side48-64-byname-2026-12-02.json)"},
    {16, 16, false, 64, 64, -1, 9765, "tiled_skew",
     "narrow c128 matrix, input rows of 64 elements: the classic tile, output rows staggered to sectors (H200 "
     "10000001 x 64 / 10000000 x 64: 90.4 / 93.8% of copy vs narrow 86.7 / 83.7 before; twenty-eighth session, by "
     "name, results/c128-side48-64-byname-2026-12-02.json, results/side48-64-byname-2026-12-02.json)"},
    {16, 16, true, 64, 64, -1, 9765, "tiled_skew",
     "c128 matrix of 64 long rows: the classic tile, output rows staggered to sectors (H200 64 x 10000001 / 64 x "
     "10000000: 92.6 / 95.1% of copy vs narrow 88.1 / 86.0 before; twenty-eighth session, by name, "
     "results/c128-side48-64-byname-2026-12-02.json, results/side48-64-byname-2026-12-02.json)"},
    {16, 16, true, 48, 48, 0, 7324, "tiled_skew",
     "c128 matrix of 48 long rows, odd long side: the classic tile, output rows staggered to sectors (H200 48 x "
     "10000001: 92.6% of copy vs narrow 89.2 before; 48 x 10000000 not: narrow 96.2 vs 95.2; twenty-eighth "
     "session, by name, results/c128-side48-64-byname-2026-12-02.json)"},
    // Below that size, f64 input rows of 16-32 elements (forty-sixth session, H200 2026-12-04, two
    // rounds within 0.9 points, by name, tiled_skew / auto's kernel; scripts/cases/narrow_f64_rows_cases.txt,
    // docs/results/narrow-f64-rows-ab-2026-12-04.json): 2000000 x 17 (259 MiB) 96.6 / narrow 82.7,
    // 3944325 x 17 (the suite's [683,11,25,21,17] perm 4,0,1,2,3) 93.3 / permute_box 86.4, 4000001 x 16
    // 92.9 / box 87.1, 5000000 x 24 95.8 / reg_batch 89.2, 3000000 x 48 90.2 / fast_tile 87.5 (1098 MiB,
    // not taken: a single case); but 1000000 x 33 and 2000000 x 33 lost, 78.7 / 77.8 against narrow
    // 88.9 / 88.1 (the box ran 91.6 / 92.0 there).
    {8, 8, false, 16, 32, -1, 259, "tiled_skew",
     "narrow f64 matrix, input rows of 16-32 elements, from 259 MiB: the classic tile, output rows staggered to "
     "sectors (H200 2000000 x 17: 96.6% of copy vs narrow 82.7; 5000000 x 24: 95.8 vs reg_batch 89.2)"},
    {8, 16, false, 16, 48, -1, 1220, "tiled_skew",
     "narrow 8- or 16-byte matrix, input rows of 16-48 elements: the classic tile, output rows staggered to sectors "
     "(H200 10000001 x 16 / 10000001 x 48 f64: 92.9 / 89.4% of copy vs 80.1 / 78.2 before; 1e7 x 16 c128 97.6 vs 90.2)"},
    {4, 4, false, 32, 64, 0, 1220, "tiled_skew",
     "narrow f32 matrix, input rows of 32-64 elements, odd long side: the classic tile, output rows staggered to "
     "sectors (H200 10000001 x 32 / 48 / 64: 90.2 / 82.7 / 88.0% of copy vs 80.6 / 69.2 / 67.2 before)"},
    {16, 16, false, 8, 8, 1, 1220, "tiled",
     "c128 matrix of 8-element input rows: the classic tile (H200 1e7 x 8: 96.3% of copy vs 90.2 before)"},
    {16, 16, false, 2, 4, 1, 305, "reg_batch",
     "c128 matrix of 2-4-element input rows: one element per thread, warps over whole rows (H200 1e7 x 2 / 3 / 4: "
     "100.9 / 99.8 / 98.1% of copy vs 87.6 / 88.6 / 90.1 before; not with an odd long side: 10000001 x 3 15.1)"},
    {16, 16, true, 3, 4, 1, 457, "reg_batch",
     "c128 matrix of 3-4 long rows: one element per thread (H200 3 x 1e7 / 4 x 1e7: 99.1 / 98.7% of copy vs 89.2 / "
     "91.1 before; 2 x 1e7 not: narrow 90.5; not with an odd long side: 3 x 10000001 39.1)"},
    {16, 16, true, 16, 32, -1, 2441, "tiled",
     "c128 matrix of 16-32 long rows: the classic tile (H200 16 x 1e7 / 32 x 1e7 / 32 x 10000001: 96.2 / 95.4 / 92.1% "
     "of copy vs 89.2 / 86.7 / 84.3 before)"},
    {8, 8, true, 16, 16, -1, 1220, "permute_packed",
     "f64 matrix of 16 long rows: packed boxes (H200 16 x 1e7 / 16 x 10000001: 91.2 / 81.2% of copy vs 83.8 / 75.2 "
     "before)"},
    {8, 8, false, 2, 2, 1, 152, "reg_batch",
     "f64 matrix of 2-element input rows: one 2 x 2 block per thread (H200 1e7 x 2: 102.6% of copy vs 87.1 before)"},
    {4, 4, true, 8, 16, 1, 305, "reg_batch",
     "f32 matrix of 8-16 long rows of whole vectors: one 4 x 4 block per thread (H200 8 x 1e7 / 16 x 1e7: 100.1 / "
     "96.5% of copy vs 91.5 / 89.4 before)"},
    {4, 4, false, 4, 16, 1, 152, "reg_batch",
     "f32 matrix of 4-16-element input rows: one 4 x 4 block per thread (H200 1e7 x 4 / 8 / 16: 100.9 / 95.8 / 92.1% "
     "of copy vs 88.0 / 88.4 / 88.7 before)"},
    {4, 4, true, 32, 64, 0, 1220, "permute_runs",
     "f32 matrix of 32-64 long rows, odd long side: aligned 16-byte chunks both ways (H200 32 / 48 / 64 x 10000001: "
     "84.4 / 83.1 / 83.3% of copy vs 77.9 / 71.4 / 73.2 before)"},
    {2, 8, true, 48, 48, 0, 915, "permute_runs",
     "matrix of 48 long rows, odd long side: aligned 16-byte chunks both ways (H200 48 x 10000001 f16 / f32 / f64: "
     "67.0 / 83.1 / 84.3% of copy vs 48.8 / 71.4 / 80.3 before)"},
    {2, 2, true, 16, 64, 0, 305, "permute_runs",
     "f16 matrix of 16-64 long rows, odd long side: aligned 16-byte chunks both ways (H200 16 / 32 / 64 x 10000001: "
     "63.5 / 66.7 / 71.8% of copy vs 50.0 / 48.8 / 47.2 before)"},
    {2, 2, false, 2, 4, 1, 38, "narrow",
     "f16 matrix of 2-4-element input rows: the narrow kernel (H200 1e7 x 2 / 4: 96.3 / 94.7% of copy vs 85.5 / 90.0 "
     "before; 1e7 x 3 89.7 vs 88.9)"},
    {2, 2, false, 8, 8, 1, 152, "reg_batch",
     "f16 matrix of 8-element input rows: one 8 x 8 block per thread (H200 1e7 x 8: 94.6% of copy vs 90.1 before)"},
    // 1-byte elements.
    {1, 1, false, 16, 16, 1, 152, "reg_batch",
     "i8 matrix of 16-element input rows, whole vectors: one 16 x 16 block per thread (H200 1e7 x 16: 89.9% of copy "
     "vs permute_packed 69.0)"},
    {1, 1, true, 2, 64, 0, 19, "permute_box",
     "i8 matrix of 2-64 long rows, odd long side: boxes with long runs both ways (H200 16 / 48 / 64 x 10000001: 55.2 / "
     "47.3 / 66.8% of copy vs 32.7 / 32.4 / 30.8 before; 2 / 4 / 8 x 10000001 within 2 points)"},
    {1, 1, false, 16, 48, 0, 152, "permute_box",
     "i8 matrix of 16-48-element input rows, odd long side: boxes with long runs both ways (H200 10000001 x 16 / "
     "10000001 x 48: 58.9 / 52.6% of copy vs narrow 54.2 / 47.0)"},
};

}  // namespace

std::span<const narrow_rule> narrow_rules() { return kNarrowRules; }

const narrow_rule* narrow_rule_for(const plan_data& pd) {
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (!pd.has_matrix || m.batch != 1) return nullptr;
  const std::int64_t mib = pd.prob.count() * s >> 20;
  const bool short_rows = m.rows < m.cols;
  const std::int64_t side = std::min(m.rows, m.cols), len = std::max(m.rows, m.cols);
  // 1: whole (a multiple of 16 elements), 0: odd, 2: neither (whole vectors, not a multiple of 16:
  // not measured, only the rules for either match).
  const int whole = len % 16 == 0 ? 1 : s < 16 && len * s % 16 == 0 ? 2 : 0;
  // A row's side range may hold sides its kernel does not take (interleave: 2-16, 32, 48, 64); those
  // go on to the rows below, as if the row were not there.
  auto kernel_takes = [&](const narrow_rule& r) {
    return std::string_view(r.variant) != "interleave" || gpu::interleave_short_side(side);
  };
  for (const narrow_rule& r : kNarrowRules)
    if (s >= r.elem_lo && s <= r.elem_hi && short_rows == r.short_rows && side >= r.side_lo && side <= r.side_hi &&
        (r.whole < 0 || r.whole == whole) && mib >= r.min_mib && mib <= r.max_mib && kernel_takes(r))
      return &r;
  return nullptr;
}

}  // namespace xpose::detail
