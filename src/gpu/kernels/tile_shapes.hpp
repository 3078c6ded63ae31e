// Tile shapes of fast_tile and reg_tile per element size: the one place to tune them. Shared by the kernel and
// the host-side launch configuration. The tile's column count must be at least 8 vectors (the
// 8-lane row segment), so 1-byte tiles are 128 wide. Every thread holds 4 independent 16-byte
// loads (kThreads = tile vectors / 4). First H200 run (2026-11-29, 16384^2, 256-thread 64x64 tiles
// for 4-byte elements): 69% of copy with 3 resident blocks per SM (76 registers); smaller blocks
// (64 threads, 32x32) let ~13 blocks per SM overlap their load and store phases.
// Pads: see fast_tile.cuh (bank arithmetic).
#pragma once

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
template <int S> struct reg_tile_shape {
  static constexpr int kV = 16 / S;                // elements per vector = block edge
  static constexpr int kU = kV >= 4 ? 1 : 4 / kV;  // blocks per thread, down the rows
  static constexpr int kRows = 8 * 4 * kU * kV;    // rows per thread block (8 warps x 4 lanes)
  static constexpr int kCols = 8 * kV;             // cols per thread block (8 lanes)
};

}  // namespace xpose::detail::gpu
