// Launch shapes of the GPU variants: host-only arithmetic, run at plan time. Each function checks
// the block the caller asked for (or the variant's default) and fills the grid.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "gpu/box_tile.hpp"
#include "gpu/geometry.hpp"
#include "gpu/kernels/tile_shapes.hpp"
#include "gpu/packed_tile.hpp"
#include "gpu/rows_copy.hpp"
#include "gpu/runs_tile.hpp"
#include "gpu/variants.hpp"
#include "model/bank_model.hpp"
#include "plan/validate.hpp"

namespace xpose::detail::gpu {
namespace {

// The seeds' kernels (and narrow) address matrix b at b * batch stride: one batch dim at most.
status check_single_batch_dim(const matrix_view& m, const char* variant, std::string* why) {
  if (m.batch_rank > 1)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("{} handles one batch dimension; this problem has {} (name reg_tile, fast_tile or tiled)",
                            variant, m.batch_rank));
  return status::kSuccess;
}
status check_single_batch_dim(const plan_data& pd, const char* variant, std::string* why) {
  return check_single_batch_dim(pd.mat, variant, why);
}

status check_block_threads(const launch_shape& l, std::string* why) {
  if (l.block_x < 1 || l.block_y < 1 || static_cast<long>(l.block_x) * l.block_y > 1024)
    return fail(status::kInvalidBlock, why,
                fmt::format("block {}x{} is invalid: each side at least 1, at most 1024 threads in all",
                            l.block_x, l.block_y));
  return status::kSuccess;
}

status check_square_block(const launch_shape& l, const char* variant, std::string* why) {
  if (l.block_x != l.block_y || (l.block_x != 8 && l.block_x != 16 && l.block_x != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("{} needs a square block of 8x8, 16x16 or 32x32 (got {}x{}): the seed's tile is "
                            "BLOCKDIM x BLOCKDIM, indexed transposed",
                            variant, l.block_x, l.block_y));
  return status::kSuccess;
}

// Grid over (fast, slow, batch) in blocks of (block_x, block_y).
void grid_2d(plan_data& pd, std::int64_t fast, std::int64_t slow) {
  pd.launch.grid_x = ceil_div(fast, pd.launch.block_x);
  pd.launch.grid_y = ceil_div(slow, pd.launch.block_y);
  pd.launch.grid_z = pd.mat.batch;
}

}  // namespace

status configure_naive_row_read(plan_data& pd, std::string* why) {
  if (status s = check_single_batch_dim(pd, "naive_row_read", why); s != status::kSuccess) return s;
  if (status s = check_block_threads(pd.launch, why); s != status::kSuccess) return s;
  grid_2d(pd, pd.mat.cols, pd.mat.rows);  // threadIdx.x walks input columns
  return status::kSuccess;
}

status configure_naive_col_read(plan_data& pd, std::string* why) {
  if (status s = check_single_batch_dim(pd, "naive_col_read", why); s != status::kSuccess) return s;
  if (status s = check_block_threads(pd.launch, why); s != status::kSuccess) return s;
  grid_2d(pd, pd.mat.rows, pd.mat.cols);  // threadIdx.x walks input rows
  return status::kSuccess;
}

#define XPOSE_SMEM_SEED_CONFIGURE(NAME)                                                        \
  status configure_##NAME(plan_data& pd, std::string* why) {                                   \
    if (status s = check_single_batch_dim(pd, #NAME, why); s != status::kSuccess) return s;    \
    if (status s = check_square_block(pd.launch, #NAME, why); s != status::kSuccess) return s; \
    grid_2d(pd, pd.mat.cols, pd.mat.rows);                                                     \
    return status::kSuccess;                                                                   \
  }
XPOSE_SMEM_SEED_CONFIGURE(smem_v1)
XPOSE_SMEM_SEED_CONFIGURE(smem_v2)
XPOSE_SMEM_SEED_CONFIGURE(smem_v3)
#undef XPOSE_SMEM_SEED_CONFIGURE

status configure_tiled(plan_data& pd, std::string* why) {
  constexpr int kTile = 32;  // kTiledTile in kernels/tiled.cuh
  const int h = pd.launch.block_y;
  if (pd.launch.block_x != kTile || (h != 1 && h != 2 && h != 4 && h != 8 && h != 16 && h != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("tiled needs a block of 32xH with H in 1, 2, 4, 8, 16, 32 (got {}x{})",
                            pd.launch.block_x, h));
  // Single matrices down the tile rows first, batches across (kernels/tiled.cuh).
  const bool down = pd.mat.batch == 1;
  pd.launch.grid_x = ceil_div(down ? pd.mat.rows : pd.mat.cols, kTile);
  pd.launch.grid_y = ceil_div(down ? pd.mat.cols : pd.mat.rows, kTile);
  pd.launch.grid_z = pd.mat.batch;
  return status::kSuccess;
}

// tiled_skew: the classic tile's 32 x H block, output rows staggered to 32-byte sectors (kernels/
// tiled_skew.cuh): one tile row more than the classic tile, 2- to 16-byte elements.
status configure_tiled_skew(plan_data& pd, std::string* why) {
  constexpr int kTile = 32;  // kTiledSkewTile in kernels/tiled_skew.cuh
  const int s = pd.prob.elem_bytes, h = pd.launch.block_y;
  if (s == 1)
    return fail(status::kVariantNotApplicable, why,
                "tiled_skew staggers its rows by up to 31 one-byte elements, a tile of 63 input rows for 32 "
                "(name skew_tile or tiled for 1-byte elements)");
  if (pd.launch.block_x != kTile || (h != 4 && h != 8 && h != 16))
    return fail(status::kInvalidBlock, why,
                fmt::format("tiled_skew needs a block of 32xH with H in 4, 8, 16 (got {}x{})", pd.launch.block_x, h));
  const int u = 32 / s;  // elements per 32-byte sector: the most a row is staggered by, plus one
  pd.launch.grid_x = ceil_div(pd.mat.rows + u - 1, kTile);  // down the tile rows first, one band more
  pd.launch.grid_y = ceil_div(pd.mat.cols, kTile);
  pd.launch.grid_z = pd.mat.batch;
  return status::kSuccess;
}

// tiled_words (kernels/tiled_words.cuh): the classic tile over K x K blocks of 1- or 2-byte elements
// held in 4-byte words (K = 4 / element size), so every side, leading dimension and batch stride is
// whole blocks, and both pointers are 4-byte aligned.
status configure_tiled_words(plan_data& pd, std::string* why) {
  constexpr int kTile = 32;  // kTiledWordsTile in kernels/tiled_words.cuh (blocks)
  const int s = pd.prob.elem_bytes, h = pd.launch.block_y;
  if (s > 2)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("tiled_words packs 1- and 2-byte elements into 4-byte words; {}-byte elements are words "
                            "already (name tiled)",
                            s));
  if (pd.launch.block_x != kTile || (h != 4 && h != 8 && h != 16 && h != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("tiled_words needs a block of 32xH with H in 4, 8, 16, 32 (got {}x{})", pd.launch.block_x, h));
  const auto& m = pd.mat;
  const int k = 4 / s;
  bool whole = m.rows % k == 0 && m.cols % k == 0 && m.ld_in % k == 0 && m.ld_out % k == 0;
  if (m.batch_rank <= 1)
    whole = whole && (m.batch == 1 || (m.bs_in % k == 0 && m.bs_out % k == 0));
  else
    for (int d = 0; d < m.batch_rank; ++d) whole = whole && m.batch_in[d] % k == 0 && m.batch_out[d] % k == 0;
  if (!whole)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("tiled_words moves {0} x {0} blocks of {1}-byte elements as words: rows, columns, leading "
                            "dimensions and batch strides must be multiples of {0} (got {2} x {3}, ld {4}/{5})",
                            k, s, m.rows, m.cols, m.ld_in, m.ld_out));
  const bool down = m.batch == 1;  // as tiled: single matrices down the tile rows first
  const std::int64_t tr = ceil_div(m.rows / k, kTile), tc = ceil_div(m.cols / k, kTile);
  pd.launch.grid_x = down ? tr : tc;
  pd.launch.grid_y = down ? tc : tr;
  pd.launch.grid_z = m.batch;
  pd.align_bytes = 4;
  return status::kSuccess;
}

namespace {

// 16-byte vectors need every row (and matrix) start of the strided sides on a 16-byte boundary.
status check_vector_strides(const plan_data& pd, const char* variant, bool in_side, bool out_side, std::string* why) {
  const int v = 16 / pd.prob.elem_bytes;
  const auto& m = pd.mat;
  const bool batched = m.batch > 1;
  bool nd_ok = true;  // every stride of a multi-dim batch
  for (int k = 0; k < m.batch_rank && m.batch_rank > 1; ++k)
    nd_ok = nd_ok && (!in_side || m.batch_in[k] % v == 0) && (!out_side || m.batch_out[k] % v == 0);
  if (!nd_ok || (in_side && (m.ld_in % v || (batched && m.batch_rank <= 1 && m.bs_in % v))) ||
      (out_side && (m.ld_out % v || (batched && m.batch_rank <= 1 && m.bs_out % v))))
    return fail(status::kMisaligned, why,
                fmt::format("{} moves 16-byte vectors: leading dimensions and batch strides must be multiples of {} "
                            "elements (ld_in {}, ld_out {}, batch strides {}/{})",
                            variant, v, m.ld_in, m.ld_out, m.bs_in, m.bs_out));
  return status::kSuccess;
}

template <int S>
void fast_tile_grid(plan_data& pd) {
  // Down the tile rows first (fast_tile_kernel's Down order).
  pd.launch.grid_x = ceil_div(pd.mat.rows, fast_tile_shape<S>::kRows);
  pd.launch.grid_y = ceil_div(pd.mat.cols, fast_tile_shape<S>::kCols);
  pd.launch.block_x = fast_tile_shape<S>::kThreads;
}

}  // namespace

status configure_fast_tile(plan_data& pd, std::string* why) {
  if (status s = check_vector_strides(pd, "fast_tile", true, true, why); s != status::kSuccess) return s;
  switch (pd.prob.elem_bytes) {
    case 1: fast_tile_grid<1>(pd); break;
    case 2: fast_tile_grid<2>(pd); break;
    case 4: fast_tile_grid<4>(pd); break;
    case 8: fast_tile_grid<8>(pd); break;
    default: fast_tile_grid<16>(pd); break;
  }
  pd.launch.block_y = 1;
  pd.launch.grid_z = pd.mat.batch;
  pd.align_bytes = 16;
  return status::kSuccess;
}

template <int S, int WY = 8, int LA = 4>
void reg_tile_grid(plan_data& pd) {
  if constexpr (WY == 8 && LA == 4) {
    if (reg_tile_lanes(S, pd.mat.rows, pd.mat.cols) == 8) return reg_tile_grid<S, 8, 8>(pd);
    const int wy = reg_tile_stack(S, pd.mat.rows);
    if (wy == 1) return reg_tile_grid<S, 1, 4>(pd);
    if (wy == 2) return reg_tile_grid<S, 2, 4>(pd);
    if (wy == 4) return reg_tile_grid<S, 4, 4>(pd);
  }
  using shape = reg_tile_shape<S, WY, LA>;
  pd.launch.warps_high = WY;  // run_reg_tile instantiates the kernel for these
  pd.launch.lanes_high = LA;
  pd.launch.grid_x = ceil_div(pd.mat.cols, shape::kCols);
  pd.launch.grid_y = ceil_div(pd.mat.rows, shape::kRows);
  if (WY < 8 || LA != 4) pd.launch_note = fmt::format("blocks of {} x {} elements", shape::kRows, shape::kCols);
}

status configure_reg_tile(plan_data& pd, std::string* why) {
  if (status s = check_vector_strides(pd, "reg_tile", true, true, why); s != status::kSuccess) return s;
  switch (pd.prob.elem_bytes) {
    case 1: reg_tile_grid<1>(pd); break;
    case 2: reg_tile_grid<2>(pd); break;
    case 4: reg_tile_grid<4>(pd); break;
    case 8: reg_tile_grid<8>(pd); break;
    default: reg_tile_grid<16>(pd); break;
  }
  pd.launch.block_x = kRegTileThreads;
  pd.launch.block_y = 1;
  pd.launch.grid_z = pd.mat.batch;
  pd.align_bytes = 16;
  return status::kSuccess;
}

// reg_batch (kernels/reg_batch.cuh): one thread per V x V block, warps of G block rows x W blocks
// (reg_batch_lanes_of), one warp tile per G block rows and segment of W blocks.
status configure_reg_batch(plan_data& pd, std::string* why) {
  const auto& m = pd.mat;
  const std::int64_t v = 16 / pd.prob.elem_bytes;
  if (m.rows % v || m.cols % v)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("reg_batch moves whole {0} x {0} blocks of {1}-byte elements: rows and columns must be "
                            "multiples of {0} (got {2} x {3})",
                            v, pd.prob.elem_bytes, m.rows, m.cols));
  if (status s = check_vector_strides(pd, "reg_batch", true, true, why); s != status::kSuccess) return s;
  const std::int64_t nbr = m.rows / v, nbc = m.cols / v, rows = m.batch * nbr;
  const reg_batch_lanes lanes = reg_batch_lanes_of(nbr, nbc);
  const std::int64_t tiles = ceil_div(rows, lanes.g) * ceil_div(nbc, lanes.w);
  if (rows >= (std::int64_t{1} << 31) || tiles >= (std::int64_t{1} << 31))
    return fail(status::kVariantNotApplicable, why,
                fmt::format("reg_batch numbers block rows and warp tiles in 32 bits: {} block rows of {} x {} blocks, {} "
                            "warp tiles, is too many",
                            rows, v, v, tiles));
  pd.launch.warp_rows = lanes.g;
  pd.launch.warp_cols = lanes.w;
  pd.launch.block_x = kRegBatchThreads;
  pd.launch.block_y = 1;
  pd.launch.grid_x = ceil_div(tiles * 32, kRegBatchThreads);
  pd.launch.grid_y = pd.launch.grid_z = 1;
  pd.launch_note = fmt::format("warps of {} x {} blocks", lanes.g, lanes.w);
  pd.align_bytes = 16;
  return status::kSuccess;
}

template <int S>
void skew_tile_grid(plan_data& pd) {
  constexpr int u = 32 / S;  // elements per 32-byte sector: the output's stagger
  const std::int64_t across = ceil_div(pd.mat.cols, skew_tile_shape<S>::kCols);
  const std::int64_t down = ceil_div(pd.mat.rows + u - 1, skew_tile_shape<S>::kRows);  // staggered: one band more
  pd.launch.grid_x = skew_tile_shape<S>::kDown ? down : across;  // the kernel's order (kDown)
  pd.launch.grid_y = skew_tile_shape<S>::kDown ? across : down;
  pd.launch.block_x = skew_tile_shape<S>::kThreads;
}

// skew_tile's raw layout (kernels/skew_tile.cuh skew_load_raw), where kRawMask takes it for this
// input leading dimension: the row pitch Pr = kCols + V + V * steps, steps 0-3, whose gather needs
// the fewest shared wavefronts by the bank model for this output leading dimension (the output rows'
// stagger m_c = m_0 + c * ld_out mod U), averaged over m_0 and two row offsets. The pitch modulo 16
// bytes is fixed by L, so only the larger strides move; e.g. 10007 output columns, 1 byte, L = 12:
// 7.0 wavefronts per gather instruction at steps 0, 4.0 at 1-3; L = 2: 3.5 at 0 and 2, 2.0 at 1 and
// 3 (scripts/skew_pitch.py replays the same accesses). 0: the scatter.
template <int S>
int skew_raw_pitch_for(std::int64_t ld_in, std::int64_t ld_out) {
  using sh = skew_tile_shape<S>;
  constexpr int V = 16 / S, U = 32 / S;
  const int L = static_cast<int>(ld_in & (V - 1));
  if (!((sh::kRawMask >> L) & 1u)) return 0;
  std::array<model::lane_access, model::kWarpSize> lanes;
  int best = 0;
  std::int64_t fewest = -1;
  for (int steps = 0; steps < 4; ++steps) {
    const std::int64_t pe = sh::kCols + V + V * steps + L;
    std::int64_t total = 0;
    for (int m0 = 0; m0 < U; m0 += 3)
      for (const int a0 : {0, 5 % V})
        for (int i = 0; i < V; ++i) {  // one gather instruction: 8 vectors k of 4 output rows c
          for (int l = 0; l < model::kWarpSize; ++l) {
            const int k = l % 8, c = l / 8;
            const int mc = static_cast<int>((m0 + c * ld_out) % U);
            lanes[l] = {};
            lanes[l].lane = l;
            lanes[l].active = true;
            model::place(lanes[l], ((U - 1 - mc + k * V + i) * pe + c + a0) * S, S);
          }
          total += model::count_wavefronts_total(model::smem_op::kLoad, S, lanes);
        }
    if (fewest < 0 || total < fewest) fewest = total, best = steps;
  }
  return sh::kCols + V + V * best;
}

// skew_tile takes any leading dimension, batch stride and element-aligned pointer (it aligns its
// vectors itself); a 16-byte element is a whole vector, which fast_tile already moves at any
// leading dimension.
status configure_skew_tile(plan_data& pd, std::string* why) {
  switch (pd.prob.elem_bytes) {
    case 1:
      skew_tile_grid<1>(pd);
      pd.launch.skew_pitch = skew_raw_pitch_for<1>(pd.mat.ld_in, pd.mat.ld_out);
      break;
    case 2:
      skew_tile_grid<2>(pd);
      pd.launch.skew_pitch = skew_raw_pitch_for<2>(pd.mat.ld_in, pd.mat.ld_out);
      break;
    case 4: skew_tile_grid<4>(pd); break;
    case 8: skew_tile_grid<8>(pd); break;
    default:
      return fail(status::kVariantNotApplicable, why,
                  "skew_tile staggers tiles to align vectors of several elements; a 16-byte element is one vector "
                  "(fast_tile moves it at any leading dimension)");
  }
  pd.launch.block_y = 1;
  pd.launch.grid_z = pd.mat.batch;
  pd.launch_note = pd.launch.skew_pitch > 0
                       ? fmt::format("input rows stored as they stand at a pitch of {} elements",
                                     pd.launch.skew_pitch + pd.mat.ld_in % (16 / pd.prob.elem_bytes))
                       : "input chunks scattered element by element";
  return status::kSuccess;
}

namespace {

template <int S>
void tma_tile_grid(plan_data& pd) {
  using sh = tma_tile_shape<S>;
  const std::int64_t tiles =
      ceil_div(pd.mat.rows, sh::kNpo * 128 / S) * ceil_div(pd.mat.cols, sh::kNpi * 128 / S) * pd.mat.batch;
  // Persistent: kBlocksPerSm blocks per SM, or one per tile when there are fewer tiles.
  pd.launch.grid_x = std::min<std::int64_t>(tiles, std::int64_t{sh::kBlocksPerSm} * pd.device.sm_count);
  pd.launch.grid_y = pd.launch.grid_z = 1;
  pd.launch.block_x = sh::kThreads;
  pd.launch.block_y = 1;
  pd.launch.smem_bytes = (sh::kStages + sh::kOutBufs) * tma_tile_bytes<S>() + 1024;
  pd.launch_note = fmt::format("tiles of {}x{} elements, {} stages, {} blocks per SM, bands of {} tile rows",
                               sh::kNpo * 128 / S, sh::kNpi * 128 / S, sh::kStages, sh::kBlocksPerSm, sh::kGroup);
}

}  // namespace

// The bulk tensor copy engine: compute capability 9.0 and up, 16-byte units everywhere, one batch
// dim (a 3-D tensor map), 32-bit coordinates.
status check_tma_view(const matrix_view& m, int S, std::string* why) {
  if (status s = check_single_batch_dim(m, "tma_tile", why); s != status::kSuccess) return s;
  if ((m.ld_in * S) % 16 || (m.ld_out * S) % 16 || (m.batch > 1 && ((m.bs_in * S) % 16 || (m.bs_out * S) % 16)))
    return fail(status::kMisaligned, why,
                fmt::format("tma_tile's tensor maps need leading dimensions and batch strides in whole 16-byte "
                            "units (ld_in {}, ld_out {}, batch strides {}/{}, {}-byte elements)",
                            m.ld_in, m.ld_out, m.bs_in, m.bs_out, S));
  // The engine clips a store's out-of-range part at 16-byte granularity along the contiguous dim:
  // with output rows of a length that is not whole 16-byte units it would write up to 15 bytes of
  // a padded output's padding (seen on the H200: GpuRandom.TmaTileAligned).
  if ((m.rows * S) % 16)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("tma_tile writes whole 16-byte units of each output row: {} rows of {}-byte elements "
                            "are not",
                            m.rows, S));
  const std::int64_t units = S < 8 ? 1 : S / 8, lim = std::int64_t{1} << 31;
  if (m.cols * units >= lim || m.rows * units >= lim || m.batch >= lim)
    return fail(status::kVariantNotApplicable, why,
                "tma_tile's coordinates are 32-bit: rows, columns (in 8-byte units for 16-byte elements) and the "
                "batch must be under 2^31");
  return status::kSuccess;
}

status configure_tma_tile(plan_data& pd, std::string* why) {
  if (pd.device.cc_major < 9)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("tma_tile needs the bulk tensor copy engine of compute capability 9.0 or newer (this "
                            "device: {}.{})",
                            pd.device.cc_major, pd.device.cc_minor));
  const int S = pd.prob.elem_bytes;
  if (status s = check_tma_view(pd.mat, S, why); s != status::kSuccess) return s;
  switch (S) {
    case 1: tma_tile_grid<1>(pd); break;
    case 2: tma_tile_grid<2>(pd); break;
    case 4: tma_tile_grid<4>(pd); break;
    case 8: tma_tile_grid<8>(pd); break;
    default: tma_tile_grid<16>(pd); break;
  }
  pd.align_bytes = 16;
  return status::kSuccess;
}

// Tuning: the short side is kept whole when it is at most kNarrowMax elements; each block then
// holds about kNarrowTileBytes of it (a multiple of 32 elements of the long side).
inline constexpr int kNarrowMax = 64;
inline constexpr int kNarrowTileBytes = 16 * 1024;

status configure_narrow(plan_data& pd, std::string* why) {
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (status st = check_single_batch_dim(pd, "narrow", why); st != status::kSuccess) return st;
  bool wide_in;
  if (m.rows <= kNarrowMax && m.ld_out == m.rows) {
    wide_in = true;  // few input rows; the output is one dense run
  } else if (m.cols <= kNarrowMax && m.ld_in == m.cols) {
    wide_in = false;  // few input columns; the input is one dense run
  } else {
    return fail(status::kVariantNotApplicable, why,
                fmt::format("narrow needs a short side of at most {} elements whose matrix is dense "
                            "(rows {} with ld_out {}, or cols {} with ld_in {})",
                            kNarrowMax, m.rows, m.ld_out, m.cols, m.ld_in));
  }
  // The strided side's leading dimension may be anything for 1- to 4-byte elements: its rows are
  // moved as the aligned vectors that cover them (kernels/narrow.cuh). 8-byte elements keep whole
  // vectors: shifted, they lost to the kernels auto ran before (H200 2026-11-29, % of copy:
  // 3x40000001 f64 81.6 vs permute_packed 91.3; 48x10000001 75.2 vs tiled 87.5; batches of 107x52
  // ([197,61,107,52] perm 0,1,3,2) 73.7 vs 87.7). The dense side and the batch stride keep whole
  // vectors, and both pointers must be 16-byte aligned (align_bytes below).
  if (s == 8 && (wide_in ? m.ld_in : m.ld_out) % 2)
    return fail(status::kMisaligned, why,
                fmt::format("narrow moves 8-byte elements only with a leading dimension that is a multiple of 2 "
                            "(ld_in {}, ld_out {})",
                            m.ld_in, m.ld_out));
  if (m.batch > 1 && ((m.bs_in * s) % 16 || (m.bs_out * s) % 16))
    return fail(status::kMisaligned, why, "narrow needs batch strides that are multiples of 16 bytes");
  const std::int64_t shrt = wide_in ? m.rows : m.cols, lng = wide_in ? m.cols : m.rows;
  std::int64_t chunk = kNarrowTileBytes / (shrt * s) / 32 * 32;
  if (chunk < 32) chunk = 32;
  pd.launch.block_x = 256;  // kNarrowThreads in kernels/narrow.cuh
  pd.launch.block_y = 1;
  pd.launch.chunk = static_cast<int>(chunk);
  pd.launch.wide_in = wide_in;
  pd.launch.smem_bytes = static_cast<int>(shrt * (chunk + 16 / s) * s);  // rows padded by one vector
  pd.launch.grid_x = ceil_div(lng, chunk);
  pd.launch.grid_y = 1;
  pd.launch.grid_z = m.batch;
  pd.align_bytes = 16;
  return status::kSuccess;
}

// interleave (kernels/interleave.cuh): a short side of 2..16, 32, 48 or 64 elements of 1 to 8 bytes,
// kept dense (the other side's rows may have any leading dimension), one matrix, 16-byte aligned
// pointers. One warp per tile of P blocks of 16 / S elements of the long side (P = 32 / row groups,
// kernels/tile_shapes.hpp; unzip into unaligned rows: tiles P - 1 blocks apart), four warps a block.
status configure_interleave(plan_data& pd, std::string* why) {
  const auto& m = pd.mat;
  const int s = pd.prob.elem_bytes;
  if (s != 1 && s != 2 && s != 4 && s != 8)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("interleave moves 1- to 8-byte elements (got {}-byte ones; name narrow)", s));
  if (m.batch != 1)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("interleave moves one matrix (this problem is a batch of {}; name narrow or reg_batch)",
                            m.batch));
  bool wide_in;
  if (interleave_short_side(m.rows) && m.ld_out == m.rows) {
    wide_in = true;  // a few long input rows; the output is one dense run
  } else if (interleave_short_side(m.cols) && m.ld_in == m.cols) {
    wide_in = false;  // the input is one dense run of short rows
  } else {
    return fail(status::kVariantNotApplicable, why,
                fmt::format("interleave needs a side of 2 to 16, 32, 48 or 64 elements whose matrix is dense (rows {} "
                            "with ld_out {}, or cols {} with ld_in {})",
                            m.rows, m.ld_out, m.cols, m.ld_in));
  }
  const std::int64_t lng = wide_in ? m.cols : m.rows;
  const int p = interleave_tile_blocks(static_cast<int>(wide_in ? m.rows : m.cols));
  const bool lend = !wide_in && m.ld_out % (16 / s) != 0;  // the kernel's step: P - 1 blocks for unaligned rows
  const std::int64_t step = (lend ? p - 1 : p) * (16 / s);
  // A tile of 4 P blocks per block, 4 P - 1 apart, where interleave_block_tiles says so (grouped
  // unzip into unaligned rows, interleave_unzip_handoff_kernel); else one tile of P blocks per warp.
  const int warps = kInterleaveThreads / 32;
  const bool block_tiles = !wide_in && interleave_block_tiles(s, static_cast<int>(m.cols), lng, m.ld_out);
  const std::int64_t blocks =
      block_tiles ? ceil_div(lng, (warps * p - 1) * (16 / s)) : ceil_div(ceil_div(lng, step), warps);
  if (blocks > kMaxGridX)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("interleave launches one warp per {} elements; {} is too long a side", step, lng));
  pd.launch = {};
  pd.launch.block_x = kInterleaveThreads;
  pd.launch.grid_x = blocks;
  pd.launch.wide_in = wide_in;
  pd.launch.block_tiles = block_tiles;
  pd.align_bytes = 16;
  pd.launch_note = block_tiles ? fmt::format("unzip {} rows, tiles of {} x {} elements, one per block (boundary "
                                             "vectors handed between its warps)",
                                             m.cols, warps * p, 16 / s)
                               : fmt::format("{} {} rows, tiles of {} x {} elements, one per warp",
                                             wide_in ? "zip" : "unzip", wide_in ? m.rows : m.cols, p, 16 / s);
  return status::kSuccess;
}

status configure_permute_general(plan_data& pd, std::string*) {
  pd.launch = {};
  pd.launch.block_x = 256;
  pd.launch.chunk = rows_word_bytes(pd.prob);
  const std::int64_t blocks = ceil_div(pd.prob.count() * pd.prob.elem_bytes / pd.launch.chunk, 256);
  const std::int64_t cap = 32LL * pd.device.sm_count;  // a full wave of 8 blocks x 4 per SM, looped
  pd.launch.grid_x = blocks < cap ? blocks : cap;
  return status::kSuccess;
}

// The launch note's words for a tile order that numbers one dim first (tile_first_dim).
template <class Params>
std::string tile_first_note(const Params& p) {
  const int k = p.tile_first;
  return fmt::format("; tiles numbered along the input's first cut dim first (that dim: {} tiles of {} elements, input stride {}; {} tiles in all, {} along the output's fastest dim)",
                     p.ntiles[k], p.t[k], p.in_stride[k], p.tiles, p.ntiles[p.rank - 1]) +
         (p.panel.w > 1 ? fmt::format(", in panels of {} x {} tiles", p.panel.w, p.panel.nk) : std::string());
}

status configure_permute_packed(plan_data& pd, std::string* why) {
  if (pd.cls == problem_class::kCopy)
    return fail(status::kVariantNotApplicable, why, "permute_packed does not run plain copies (use copy)");
  // A row copy moves whole rows: widen the element to the largest word that divides the row and
  // every stride (as permute_general does), so its boxes hold 16-byte words where possible.
  const problem pr = as_row_words(pd.prob);
  const int w = pr.elem_bytes;
  auto plans = std::make_shared<packed_plans>();
  const char* reason = "";
  if (!packed_plan(pr, true, &plans->vec, &reason) || !packed_plan(pr, false, &plans->scalar, &reason))
    return fail(status::kVariantNotApplicable, why, reason);
  const packed_params& p = plans->vec;
  pd.launch = {};
  pd.launch.block_x = kPackedThreads;
  pd.launch.grid_x = p.tiles;  // a persistent grid: capped at launch to the blocks resident at once
  pd.launch.smem_bytes = p.smem_elems * w;
  pd.launch.chunk = w;
  pd.align_bytes = std::max(pd.align_bytes, w);
  auto describe = [](const packed_params& q) {
    std::string box;
    for (int i = 0; i < q.n_box; ++i) box += fmt::format("{}{}", i ? "x" : "", q.t[q.in_order[i]]);
    const std::string layout = q.pad_pitch   ? fmt::format("pad {} per {}", q.pad_unit, q.pad_pitch)
                               : q.swz_shift ? fmt::format("swizzle {}-element chunks by bits {}+", q.vin, q.swz_shift)
                                             : std::string("plain");
    return fmt::format("box {} ({} elements, runs {}/{} in/out, vectors {}/{}{}, {})", box.empty() ? "1" : box,
                       q.volume, q.run_in, q.run_out, q.vin, q.vout, q.gather_levels ? " across 2 output dims" : "",
                       layout);
  };
  pd.launch_note = fmt::format("{} B words: {}", w, describe(p));
  if (p.vin > 1 || p.vout > 1)
    pd.launch_note += fmt::format("; pointers not aligned to the vectors: {}", describe(plans->scalar));
  if (p.tile_first != kPackedNoDim) pd.launch_note += tile_first_note(p);
  pd.launch_note += "; persistent grid (the slot tables built once per block)";
  pd.kernel_params = std::move(plans);
  return status::kSuccess;
}

status configure_permute_runs(plan_data& pd, std::string* why) {
  if (pd.cls == problem_class::kCopy)
    return fail(status::kVariantNotApplicable, why, "permute_runs does not run plain copies (use copy)");
  auto p = std::make_shared<runs_params>();
  const char* reason = "";
  if (!runs_plan(pd.prob, p.get(), &reason)) return fail(status::kVariantNotApplicable, why, reason);
  pd.launch = {};
  pd.launch.block_x = kRunsThreads;
  pd.launch.grid_x = p->tiles;  // a persistent grid: capped at launch to the blocks resident at once
  pd.launch.smem_bytes = p->smem_bytes;
  pd.launch.chunk = pd.prob.elem_bytes;
  const int s = pd.prob.elem_bytes;
  pd.launch_note = fmt::format("tile {} x {}: input runs of {} B over {} dim{}, output runs of {} B over {} dim{}; "
                               "shared rows of {} B",
                               p->A, p->B, p->A * s, p->na, p->na > 1 ? "s" : "", p->B * s, p->nb,
                               p->nb > 1 ? "s" : "", p->row_bytes);
  if (p->halo)
    pd.launch_note += fmt::format("; output ends owned (each chunk whole, by the tile holding its first byte; a "
                                  "halo of {} input runs)", p->halo);
  if (p->tile_first != kPackedNoDim) pd.launch_note += tile_first_note(*p);
  pd.launch_note += p->one_shot ? "; one block per tile" : "; persistent grid (the run tables built once per block)";
  pd.kernel_params = std::move(p);
  return status::kSuccess;
}

status configure_permute_box(plan_data& pd, std::string* why) {
  if (pd.cls == problem_class::kCopy)
    return fail(status::kVariantNotApplicable, why, "permute_box does not run plain copies (use copy)");
  auto p = std::make_shared<box_params>();
  const char* reason = "";
  if (!box_plan(pd.prob, p.get(), &reason)) return fail(status::kVariantNotApplicable, why, reason);
  pd.launch = {};
  pd.launch.block_x = kBoxThreads;
  pd.launch.grid_x = p->tiles;  // unless one_shot, capped at launch to the blocks resident at once
  pd.launch.smem_bytes = p->smem_bytes;
  pd.launch.chunk = pd.prob.elem_bytes;
  const int s = pd.prob.elem_bytes;
  std::string box;
  for (int i = 0; i < p->n_box; ++i) box += fmt::format("{}{}", i ? "x" : "", p->t[p->in_order[i]]);
  pd.launch_note = fmt::format("box {} ({} B): {} input runs of {} B over {} dim{}, {} output runs of {} B over {} dim{}; "
                               "shared rows of {} B{}{}",
                               box, p->volume * s, p->runs_in, p->run_in * s, p->in_run_dims,
                               p->in_run_dims > 1 ? "s" : "", p->runs_out, p->run_out * s, p->out_run_dims,
                               p->out_run_dims > 1 ? "s" : "", p->row_bytes,
                               p->swizzle == kBoxWords ? ", words swizzled" : p->swizzle == kBoxGranules ? ", 16-byte granules swizzled" : "",
                               p->bulk  ? ", raw (input chunks as they stand, one bulk copy per row)"
                               : p->raw ? ", raw (input chunks as they stand, by cp.async)"
                                        : "");
  if (p->wide) pd.launch_note += "; gather: two table loads per chunk";
  if (p->segs)
    pd.launch_note += fmt::format("; segment gather: rows of {} B as aligned words, a table load per row", p->segs);
  if (p->words)
    pd.launch_note += fmt::format("; word gather: {} runs per shared word{}", p->wg_n,
                                  p->words_shift ? ", at any byte phase (two word loads and a funnel)" : "");
  pd.launch_note += box_store_converged(*p, s, 0) ? "; stores: every chunk by one converged path"
                                                  : "; stores: whole chunks (an aligned output; converged otherwise)";
  if (p->halo && p->halo_f != kPackedNoDim)
    pd.launch_note += fmt::format("; output ends owned (each chunk whole, by the tile holding its first byte; a "
                                  "compact halo of {} input runs, the next slice's first elements)",
                                  p->halo_rows);
  else if (p->halo)
    pd.launch_note += fmt::format("; output ends owned (each chunk whole, by the tile holding its first byte; a "
                                  "halo of {} slice{}, {} input runs loaded)",
                                  p->halo, p->halo > 1 ? "s" : "", p->runs_in);
  if (p->tile_first != kPackedNoDim) pd.launch_note += tile_first_note(*p);
  pd.launch_note += p->one_shot ? "; one block per tile" : "; persistent grid (the tables built once per block)";
  pd.kernel_params = std::move(p);
  return status::kSuccess;
}

status configure_permute_rows(plan_data& pd, std::string* why) {
  if (pd.cls == problem_class::kCopy)
    return fail(status::kVariantNotApplicable, why, "permute_rows does not run plain copies (use copy)");
  auto p = std::make_shared<rows_params>();
  const char* reason = "";
  if (!rows_plan(pd.prob, p.get(), &reason)) return fail(status::kVariantNotApplicable, why, reason);
  pd.launch = {};
  pd.launch.block_x = kRowsThreads;
  pd.launch.grid_x = ceil_div(rows_chunks(*p, 0), std::int64_t{kRowsThreads} * kRowsSteps);
  pd.launch.chunk = pd.prob.elem_bytes;
  pd.launch_note = fmt::format("{} rows of {} B; 16-byte output chunks of up to {} row pieces", p->rows,
                               p->row_bytes, p->max_pieces);
  pd.kernel_params = std::move(p);
  return status::kSuccess;
}

status configure_copy(plan_data& pd, std::string* why) {
  if (pd.cls != problem_class::kCopy)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("copy runs only problems that normalise to a plain copy (this one is {})",
                            class_name(pd.cls)));
  pd.launch = {};
  return status::kSuccess;
}

}  // namespace xpose::detail::gpu
