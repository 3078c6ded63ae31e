// Launch shapes of the GPU variants: host-only arithmetic, run at plan time. Each function checks
// the block the caller asked for (or the variant's default) and fills the grid.
#include <fmt/format.h>

#include "gpu/geometry.hpp"
#include "gpu/variants.hpp"
#include "plan/validate.hpp"

namespace xpose::detail::gpu {
namespace {

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
  if (status s = check_block_threads(pd.launch, why); s != status::kSuccess) return s;
  grid_2d(pd, pd.mat.cols, pd.mat.rows);  // threadIdx.x walks input columns
  return status::kSuccess;
}

status configure_naive_col_read(plan_data& pd, std::string* why) {
  if (status s = check_block_threads(pd.launch, why); s != status::kSuccess) return s;
  grid_2d(pd, pd.mat.rows, pd.mat.cols);  // threadIdx.x walks input rows
  return status::kSuccess;
}

#define XPOSE_SMEM_SEED_CONFIGURE(NAME)                                                        \
  status configure_##NAME(plan_data& pd, std::string* why) {                                   \
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
  pd.launch.grid_x = ceil_div(pd.mat.cols, kTile);
  pd.launch.grid_y = ceil_div(pd.mat.rows, kTile);
  pd.launch.grid_z = pd.mat.batch;
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
