// Tile shapes of fast_tile and reg_tile per element size: the one place to tune them. Shared by the kernel and
// the host-side launch configuration. The tile's column count must be at least 8 vectors (the
// 8-lane row segment), so 1-byte tiles are 128 wide. Every thread holds 4 independent 16-byte
// loads (kThreads = tile vectors / 4). First H200 run (2026-11-29, 16384^2, 256-thread 64x64 tiles
// for 4-byte elements): 69% of copy with 3 resident blocks per SM (76 registers); smaller blocks
// (64 threads, 32x32) let ~13 blocks per SM overlap their load and store phases.
// Pads: see fast_tile.cuh (bank arithmetic); 1-byte tiles ignore theirs (they are stored as swizzled
// words, fast_tile_bytes), and their 128 x 128 shape and 256 threads are what its lane map needs.
#pragma once

#include <cstdint>

namespace xpose::detail::gpu {

template <int S> struct fast_tile_shape;
template <> struct fast_tile_shape<1> { static constexpr int kRows = 128, kCols = 128, kPad = 4, kThreads = 256; };
template <> struct fast_tile_shape<2> { static constexpr int kRows = 64, kCols = 64, kPad = 2, kThreads = 128; };
template <> struct fast_tile_shape<4> { static constexpr int kRows = 32, kCols = 32, kPad = 1, kThreads = 64; };
template <> struct fast_tile_shape<8> { static constexpr int kRows = 32, kCols = 32, kPad = 1, kThreads = 128; };
template <> struct fast_tile_shape<16> { static constexpr int kRows = 32, kCols = 32, kPad = 1, kThreads = 256; };

// reg_tile (kernels/reg_tile.cuh): a thread moves U blocks of V x V elements (V = 16 / S); U = 4 / V
// for 8- and 16-byte elements so each thread still has 4 independent 16-byte loads in flight.
inline constexpr int kRegTileThreads = 256;
// Tiles are visited in bands of kRegTileBandRows tile rows, column by column (raster_tile in
// gpu/geometry.hpp), not row by row. H200 2026-11-30 (binaries of 57c32da, XPOSE_RASTER=0 / 64, one
// run each, % of copy): i8 16384^2 85.8-86.2 / 88.8-88.9, 16000^2 78.9 / 87.0, 12288^2 84.6 / 86.9;
// f16 16384^2 50.7 / 51.5 (reg_tile is not auto's kernel there). Bands of 8, 16 and 32 measured
// 84.8, 85.6 and 88.8 at 16384^2 i8. (fast_tile with the same bands: f64 16384 x 8192 89.3 / 93.7
// but 8192 x 16384 93.6 / 90.2, f32 16384^2 87.2 / 85.6: mixed, so fast_tile kept row order until
// the tenth session, which found whole columns of tiles (its Down order, fast_tile.cuh) better.)
inline constexpr int kRegTileBandRows = 64;
// (The band height reaches the kernel as an argument: as a compile-time constant nvcc 13.0 gave the
// 1-byte kernel 158 registers, one block per SM, and 16384^2 i8 ran at 76.2% of copy (H200
// 2026-11-30, binaries of 6bb80d0); as an argument it has 128, as in the measured 57c32da, and 124
// before bands. Capping a constant-band build at 128 (two blocks per SM) spilled 24 bytes.)
//
// The block's 8 warps are stacked WY high and 8 / WY wide; a warp's 32 lanes are LA rows of
// 32 / LA lanes (LA = 4: 64 rows x 128 cols of bytes per warp; LA = 8: 128 rows x 64 cols). WY = 8,
// LA = 4 is the block of the measurements above. 1-byte matrices of 256 rows or fewer get the
// smallest WY whose block covers them (reg_tile_stack), so a 64 x 16384 matrix (NCHW -> NHWC with
// 64 channels) runs whole 64-row blocks instead of blocks that are 7/8 empty; 1-byte matrices of
// 64 columns get LA = 8 (reg_tile_lanes), so a warp spans the 64-byte rows whole and writes
// 128-byte pieces of output rows (NHWC -> NCHW with 64 channels).
template <int S, int WY = 8, int LA = 4> struct reg_tile_shape {
  static_assert((WY == 1 || WY == 2 || WY == 4 || WY == 8) && (LA == 4 || LA == 8));
  static constexpr int kV = 16 / S;                // elements per vector = block edge
  static constexpr int kU = kV >= 4 ? 1 : 4 / kV;  // blocks per thread, down the rows
  static constexpr int kWarpsHigh = WY, kWarpsWide = 8 / WY, kLanesHigh = LA, kLanesWide = 32 / LA;
  static constexpr int kRows = WY * LA * kU * kV;          // rows per thread block
  static constexpr int kCols = kWarpsWide * kLanesWide * kV;  // cols per thread block
};
// The warps' stacking for `rows` rows of S-byte elements: see reg_tile_shape. (Only 1-byte elements
// take other shapes; reg_tile is auto's kernel for them alone.)
constexpr int reg_tile_stack(int S, long long rows) {
  if (S != 1) return 8;
  for (int wy = 1; wy < 8; wy *= 2)
    if (rows <= wy * 4LL * 16) return wy;
  return 8;
}
constexpr int reg_tile_lanes(int S, long long rows, long long cols) {
  return S == 1 && cols == 64 && rows > 256 ? 8 : 4;
}

// reg_batch (kernels/reg_batch.cuh): threads per block (one V x V block each), and the block rows a
// warp takes when it holds W blocks of each (for matrices of nbr block rows): as many whole matrices
// as fit; else the largest even divisor of nbr that fits (the warp's pieces of an output row then
// fill 32-byte sectors and no warp straddles two matrices), else the largest divisor, else 1.
inline constexpr int kRegBatchThreads = 128;
constexpr int reg_batch_warp_rows(long long nbr, long long nbc) {
  const long long fit = nbc > 0 && nbc <= 32 ? 32 / nbc : 1;
  if (fit >= nbr) return static_cast<int>(fit / nbr * nbr);
  for (long long g = fit - fit % 2; g >= 2; g -= 2)
    if (nbr % g == 0) return static_cast<int>(g);
  for (long long g = fit; g >= 2; --g)
    if (nbr % g == 0) return static_cast<int>(g);
  return 1;
}
// The warp's shape for rows of nbc blocks: W blocks of each of G block rows. Rows of up to 16 blocks
// are taken whole (W = nbc: G >= 2). Longer ones go in segments of W blocks: the divisor of nbc in
// 4..16 that keeps the most lanes busy, nearest 8 on a tie (4 x 8 lanes is reg_tile's byte layout:
// 128-byte input pieces, 64-byte output pieces), if it keeps 24 or more; else even segments of at
// most 16. 4096 x 256x384 bytes (24 blocks a row): W 8, G 4.
struct reg_batch_lanes {
  int w = 1, g = 1;
};
constexpr reg_batch_lanes reg_batch_lanes_of(long long nbr, long long nbc) {
  if (nbc <= 16) return {static_cast<int>(nbc < 1 ? 1 : nbc), reg_batch_warp_rows(nbr, nbc < 1 ? 1 : nbc)};
  reg_batch_lanes best;
  int best_lanes = 0;
  for (int w = 16; w >= 4; --w) {
    if (nbc % w) continue;
    const int g = reg_batch_warp_rows(nbr, w), lanes = w * g;
    const int off = w > 8 ? w - 8 : 8 - w, best_off = best.w > 8 ? best.w - 8 : 8 - best.w;
    if (lanes > best_lanes || (lanes == best_lanes && off < best_off)) best = {w, g}, best_lanes = lanes;
  }
  if (best_lanes >= 24) return best;
  const long long segs = (nbc + 15) / 16;
  const int w = static_cast<int>((nbc + segs - 1) / segs);
  return {w, reg_batch_warp_rows(nbr, w)};
}

// skew_tile (kernels/skew_tile.cuh): any leading dimension and any element-aligned pointer, still
// 16-byte aligned vectors on both sides. TR (kRows) x TC (kCols) output rows x columns as above,
// read as TR + 32 / S - 1 input rows of TC / V + 1 aligned chunks into a shared tile of that many
// rows at a pitch of kPitch elements (at least TC + 2V: a row's chunks start up to V - 1 elements
// left of the tile and the row is stored from column V). kMinBlocks is __launch_bounds__'s
// blocks-per-SM floor, which caps the registers.
//
// kPitch: the pitch with the fewest shared wavefronts of both phases, averaged over every leading
// dimension mod V (input) and mod 32 / S (output) with both pointers aligned, by the hardware rule
// of the bank model (scripts/skew_pitch.py prints the table): 2 per element on average where 1 is
// ideal for 1- to 4-byte elements (1 for even leading dimensions of 4-byte elements), 3 where 2 is
// ideal for 8-byte ones.
//
// Shapes and register caps, H200 2026-11-29, % of copy at 10007x9973 / 16384^2 (xpose bench
// --variants skew_tile, one run each; alternatives compiled side by side in one binary):
//   1 B  128x128, 256 thr: 62.8 / 64.9 (80 registers); capped at 64 (4 blocks/SM): 67.8 / 73.8;
//        at 48 (5 blocks, spills): 48.3 / 51.7
//   2 B  64x64, 128 thr:   67.6 / 74.8 (76 registers); capped at 63 (8 blocks): 69.7 / 80.7;
//        at 48 (10 blocks, spills): 64.9 / 68.7
//   4 B  32x32, 64 thr:    67.8-70.7 / 83.0-85.2 (70-78 registers, two builds); capped at 61:
//        64.3 / 84.4; at 48: 58.4 / 78.0; 64x32 with 128 threads: 66.5 / 77.7; 32x64: 62.9 / 76.9
//   8 B  32x32, 64 thr:    86.1 / 85.5 (128 registers); with 128 threads: 79.2 / 81.3; capped at
//        96: 85.2 / 85.1; 64x32 with 256 threads: 68.2 / 69.4
// Before the output was staggered by 32-byte sectors (16-byte vectors only) and the load phase
// used 4 x 8 warps, 10007x9973 ran 62.0 / 52.5 / 45.6 / 71.5 (1/2/4/8 B).
//
// kDown: the grid walks down the input's tile rows first (blockIdx.x = tile row), as fast_tile;
// else across its tile columns. H200 2026-11-30 (tools/tune/tma_sweep.cu --tiled 1, one run each,
// 12 shapes from 5000x5003 to 24001x23999 with odd or even sides, % of copy across -> down,
// docs/results/orders-*-2026-11-30s*.csv): 8 B better on all 12, by 0.6-6.5 (10007x9973 86.3 ->
// 89.9, 16383x16385 84.3 -> 88.9); 4 B better on 10 by 0.7-3.0, worse at 16383x16384 (82.7 -> 78.1)
// and 16384x16383 (-0.1); 2 B better on 8 (up to +3.2), worse on 4 (up to -2.4); 1 B worse on 9
// (up to -2.1), better on 2 (up to +2.1), one tie: across kept.
template <int TR, int TC, int NT, int Pitch, int MinBlocks = 1, bool Down = true>
struct skew_shape {
  static constexpr int kRows = TR, kCols = TC, kThreads = NT, kPitch = Pitch, kMinBlocks = MinBlocks;
  static constexpr bool kDown = Down;
};
//
// kRawMask: the raw load phase (skew_tile.cuh skew_load_raw), rows stored as they stand at a pitch
// Pe = Pr + L elements, L = the input leading dimension mod V: bit L says whether it is taken for that
// L. Pr (kCols + V + V * steps, steps 0-3) is chosen per problem by the bank model
// (configure.cpp skew_raw_pitch_for). The masks are measurements (H200 2026-11-30, by name, two
// rounds, % of copy scatter -> raw with a pitch chosen for every output leading dimension at once,
// results/skew-raw-2026-11-30t*.json): 1 B L = 1 (16383x16385, 8191x8193) level, 5, 7, 11 +6 to +20,
// 2, 6, 10, 12 +2 to +4, 4 -10 and 14 -7 (scatter kept, with 0 and 8; the model gives 4 and 6 wavefronts
// per gather there at 10007 output columns), 3, 9, 13, 15 not measured (taken, as the odd L
// measured); 2 B L = 1 +10-15, 5 +0-2, 3 and 7 -1 to -3, 2, 4, 6 -3 to -8 (scatter kept); 4 B none
// (the raw layout lost 2-25 points to the scatter's 4 stores a chunk); 8 B not tried. L = 0 is never
// taken: Pe = L mod V puts a gather's 8 lanes, V rows apart, on one bank.
template <int S> struct skew_tile_shape;
template <> struct skew_tile_shape<1> : skew_shape<128, 128, 256, 173, 4, false> {
  static constexpr unsigned kRawMask = 0xbeee;
};
template <> struct skew_tile_shape<2> : skew_shape<64, 64, 128, 81, 8> {
  static constexpr unsigned kRawMask = 0x22;
};
template <> struct skew_tile_shape<4> : skew_shape<32, 32, 64, 41> {
  static constexpr unsigned kRawMask = 0;
};
template <> struct skew_tile_shape<8> : skew_shape<32, 32, 64, 37> {
  static constexpr unsigned kRawMask = 0;
};

// tma_tile (kernels/tma_tile.cuh): a tile of NPO x NPI 128-byte panels (TR = NPO * 128 / S input rows,
// TC = NPI * 128 / S input cols), kThreads threads, kOutBufs output buffers, kStages input stages,
// kBlocksPerSm resident blocks (the grid is that many per SM, persistent; tiles claimed through a
// ticket, tma_variants.cu), tiles visited in bands of kGroup tile rows. Shared memory per block:
// (kStages + kOutBufs) x tile bytes + 1 KiB.
//
// H200 2026-11-30 (tools/tune/tma_sweep.cu, `--shape 16384x16384 --groups 32,64,128,256,4096 --scheds 0,1`
// and `--shape 10000x10000 --groups 16,64,256 --scheds 1`, docs/results/tma-sweep-*-2026-11-30m.csv), each
// entry the configuration with the best lower of its two ratios to copy (16384^2 / 10000^2):
//   1 B  128 x 256 tile (1 x 2 panels), 128 threads, 4 stages, 1 block/SM:  95.8 / 92.1
//   2 B  128 x 128 (2 x 2), 256 threads, 3 stages, 1 block/SM:              95.8 / 94.8
//   4 B  64 x 64 (2 x 2), 256 threads, 2 stages, 3 blocks/SM:               97.2 / 96.1
//   8 B  64 x 32 (4 x 2), 128 threads, 2 stages, 3 blocks/SM:               93.6 / 98.4
//   16 B 32 x 32 (4 x 4), 256 threads, 2 stages, 3 blocks/SM:               89.5 / 94.5
// Bands: 256 tile rows (near column order: the tiles in flight go down the input's columns, so each
// output row is written in long runs) beat 1-64 everywhere (e.g. f32 16384^2 97.2 vs 92.7 at 64
// and 90.5 at 1, ticket schedule both). More stages or blocks did not help: two to four tiles in
// flight per SM are enough.
template <int S> struct tma_tile_shape;
template <> struct tma_tile_shape<1> { static constexpr int kNpo = 1, kNpi = 2, kThreads = 128, kOutBufs = 2, kStages = 4, kBlocksPerSm = 1, kGroup = 256; };
template <> struct tma_tile_shape<2> { static constexpr int kNpo = 2, kNpi = 2, kThreads = 256, kOutBufs = 2, kStages = 3, kBlocksPerSm = 1, kGroup = 256; };
template <> struct tma_tile_shape<4> { static constexpr int kNpo = 2, kNpi = 2, kThreads = 256, kOutBufs = 2, kStages = 2, kBlocksPerSm = 3, kGroup = 256; };
template <> struct tma_tile_shape<8> { static constexpr int kNpo = 4, kNpi = 2, kThreads = 128, kOutBufs = 2, kStages = 2, kBlocksPerSm = 3, kGroup = 256; };
template <> struct tma_tile_shape<16> { static constexpr int kNpo = 4, kNpi = 4, kThreads = 256, kOutBufs = 2, kStages = 2, kBlocksPerSm = 3, kGroup = 256; };
// tma_tile's tile, TR x TC elements, for S-byte elements (the planner's view of the table above).
constexpr void tma_tile_dims(int S, int* tr, int* tc) {
  switch (S) {
    case 1: *tr = tma_tile_shape<1>::kNpo * 128, *tc = tma_tile_shape<1>::kNpi * 128; break;
    case 2: *tr = tma_tile_shape<2>::kNpo * 64, *tc = tma_tile_shape<2>::kNpi * 64; break;
    case 4: *tr = tma_tile_shape<4>::kNpo * 32, *tc = tma_tile_shape<4>::kNpi * 32; break;
    case 8: *tr = tma_tile_shape<8>::kNpo * 16, *tc = tma_tile_shape<8>::kNpi * 16; break;
    default: *tr = tma_tile_shape<16>::kNpo * 8, *tc = tma_tile_shape<16>::kNpi * 8; break;
  }
}
template <int S> constexpr int tma_tile_bytes() { return tma_tile_shape<S>::kNpo * tma_tile_shape<S>::kNpi * 128 * 128 / S; }

// interleave (kernels/interleave.cuh): four warps a block, one tile per warp. A lane holds a block
// of V = 16 / S long-side elements of up to kInterleaveGroupRows rows in registers (4 words a row:
// 64 words at 16 rows, 80-122 registers a thread measured). Short sides of 2-16 are one group; 32,
// 48 and 64 are 2, 3 and 4 groups of 16 rows, each group on 32 / groups lanes (48: 10 lanes a group,
// lanes 30 and 31 idle), so a tile is 32 / groups blocks and shared memory stays at about 9 KiB a warp
// (the tile's dense side is blocks x R vectors). Other sides above 16 are not taken: a group of 16
// rows of S-byte elements is whole 16-byte vectors of the dense side, any other split is not.
inline constexpr int kInterleaveThreads = 128;
inline constexpr int kInterleaveGroupRows = 16;
constexpr bool interleave_short_side(std::int64_t r) { return (r >= 2 && r <= 16) || r == 32 || r == 48 || r == 64; }
constexpr int interleave_groups(int r) { return r <= kInterleaveGroupRows ? 1 : r / kInterleaveGroupRows; }
constexpr int interleave_tile_blocks(int r) { return 32 / interleave_groups(r); }  // blocks (lanes) a group has
// Grouped unzip (R of 32-64) into output rows that are not all aligned: a tile of 4 P blocks per
// block, its warps handing the boundary vectors over through shared memory
// (interleave_unzip_handoff_kernel: one block in 4 P lent instead of one in P), where that measured
// ahead of a tile of P blocks per warp (H200 2026-12-02, two alternating rounds, % of copy, by name,
// docs/performance.md "Twenty-seventh session"): 2- to 8-byte elements at every side and length
// measured (10000001 x 32 / 48 / 64 and 1000001 x 48 / 64: +0.4 to +7.4 points); bytes only for 48
// and 64 rows with a long side of kInterleaveBlockTilesMinLong1B or more (10000001 x 48 / 64 +2.2 /
// +5.6, but 10000001 x 32 -2.3 and 1000001 x 48 -6.4, 1000001 x 64 +1.8).
inline constexpr std::int64_t kInterleaveBlockTilesMinLong1B = 4'000'000;
constexpr bool interleave_block_tiles(int s, int r, std::int64_t long_side, std::int64_t ld_out) {
  if (interleave_groups(r) == 1 || ld_out % (16 / s) == 0) return false;
  return s > 1 || (r > 32 && long_side >= kInterleaveBlockTilesMinLong1B);
}
// Where vector v of lane (g, b)'s block goes in the tile's dense run of 16-byte vectors (host and
// device: the kernel's index math, checked on the CPU by tests/model). One group (R <= 16): block b's
// V x R elements are the run's vectors b R .. b R + R - 1 in order. G groups of 16 rows: the block's
// vectors are laid out as if the short side were 16 (the byte map's order), k = 16 S / 16 = S of
// them per long-side element, and the element's R values take K = R S / 16 vectors of the run,
// group g's at k g.
template <int S, int R>
constexpr int interleave_dense_index(int b, int g, int v) {
  if constexpr (R <= kInterleaveGroupRows) {
    return b * R + v;
  } else {
    constexpr int G = interleave_groups(R), k = R / G * S / 16, K = R * S / 16;
    static_assert(R / G * S % 16 == 0, "a group's rows must be whole vectors of the dense side");
    return b * R + (v / k) * K + g * k + v % k;
  }
}
// The shared-memory slot of the dense run's vector q: R slots a block, padded to an odd count so a
// lane-indexed 16-byte access by 8 lanes meets 8 different bank groups.
template <int R>
constexpr int interleave_slot(int q) { return (q / R) * (R | 1) + q % R; }

}  // namespace xpose::detail::gpu
