// What a plan holds. Built by the planner (src/plan/planner.cpp), read by execute and the launchers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "plan/problem.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail {

struct variant_info;

// Properties of the GPU the plan is made for. Filled from cudaGetDeviceProperties, or by hand in
// host-only tests of the planner.
struct device_info {
  int ordinal = 0;
  int cc_major = 9, cc_minor = 0;
  int sm_count = 132;
  std::int64_t l2_bytes = 50 << 20;
  int max_threads_per_sm = 2048;
  std::int64_t max_grid_y = 65535, max_grid_z = 65535;
};

struct launch_shape {
  int block_x = 1, block_y = 1, block_z = 1;
  std::int64_t grid_x = 1, grid_y = 1, grid_z = 1;
  int smem_bytes = 0;  // dynamic shared memory per block
  int chunk = 0;       // narrow: elements of the long side per block
  bool wide_in = false;  // narrow: the input is the short-and-wide side (rows <= 64)
  bool block_tiles = false;  // interleave: a tile per block (gpu::interleave_block_tiles)
  int warps_high = 8;    // reg_tile: warps stacked down the rows (reg_tile_stack)
  int lanes_high = 4;    // reg_tile: lane rows per warp (reg_tile_lanes)
  int warp_rows = 1;     // reg_batch: block rows per warp, and blocks of each (reg_batch_lanes_of)
  int warp_cols = 1;
  int skew_pitch = 0;    // skew_tile's raw layout: the row pitch Pr in elements (0: the scatter)
};

struct plan_data {
  backend where = backend::kGpu;
  const variant_info* variant = nullptr;
  problem prob;                    // normalised (named 2-D variants keep the descriptor's 2-D view)
  problem_class cls = problem_class::kGeneral;
  matrix_view mat;                 // valid when has_matrix
  bool has_matrix = false;
  launch_shape launch;
  int align_bytes = 1;             // alignment execute must find on both pointers
  int cpu_threads = 0;
  cpu_tuning tuning = cpu_tuning::kAmd;  // CPU plans: resolved at plan time (never kAuto)
  std::int64_t in_span_bytes = 0;  // bytes between the first and last element touched, + 1 element
  std::int64_t out_span_bytes = 0;
  device_info device;
  std::string reason;              // why this variant / shape
  std::string launch_note;         // variant-specific launch details for the summary (may be empty)
  // Kernel parameters computed at plan time, owned by the plan (permute_packed: gpu::packed_params).
  std::shared_ptr<const void> kernel_params;
  // An `auto` plan whose choice needs wider alignment than execute finds falls back to this one.
  std::shared_ptr<const plan_data> fallback;
};

}  // namespace xpose::detail
