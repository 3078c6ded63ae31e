// Launch-geometry arithmetic shared by the host-side configure functions and the kernels.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__
#else
#define XPOSE_HD
#endif

namespace xpose::detail::gpu {

XPOSE_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Grid limits of every CUDA GPU: x up to 2^31 - 1 blocks, y and z up to 65535. Kernels loop over
// the blocks a capped grid does not cover, so any shape launches.
inline constexpr std::int64_t kMaxGridX = 0x7fffffff;
inline constexpr std::int64_t kMaxGridYZ = 65535;

// One dense matrix (no batch, leading dimensions equal to the extents) whose every element index fits
// an int: the matrices the one-tile-per-block, int-indexed kernels take (seed_form.cuh,
// tiled_skew.cuh), given a grid that fits as well.
constexpr bool int_indexed_dense(std::int64_t rows, std::int64_t cols, std::int64_t ld_in, std::int64_t ld_out,
                                 std::int64_t batch) {
  return batch == 1 && ld_in == cols && ld_out == rows && rows * cols <= 0x7fffffffLL;
}

// The tile (bx, by) that the tile number `lin` (0 .. nbx * nby - 1, in launch order) moves when tiles
// are visited in bands of `band_rows` tile rows, each band column by column: the blocks resident at
// one time then cover about band_rows x (resident / band_rows) tiles rather than a few whole tile
// rows, so their stores land in band_rows * tile-height-long pieces of fewer output rows. A
// bijection of [0, nbx * nby) for any band_rows >= 1 (tested on the host: test_planner.cpp).
XPOSE_HD inline void raster_tile(std::int64_t lin, std::int64_t nbx, std::int64_t nby, std::int64_t band_rows,
                                 std::int64_t* bx, std::int64_t* by) {
  const std::int64_t band = lin / (band_rows * nbx), r = lin - band * band_rows * nbx;
  const std::int64_t left = nby - band * band_rows, h = left < band_rows ? left : band_rows;
  *bx = r / h;
  *by = band * band_rows + (r - *bx * h);
}

}  // namespace xpose::detail::gpu
