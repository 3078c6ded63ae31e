// The counting over warps and tiles of the bank model. The hardware half (count_wavefronts) is in
// wavefronts.cpp, built into the library (the planner uses it); the kernels' descriptions live in
// kernels.cpp.
#include "model/bank_model.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

namespace xpose::model {
namespace {

status fail(status s, std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return s;
}

}  // namespace


// ---- arrays and tiles ----

std::int64_t smem_array::byte_offset(int row, int col) const {
  if (swizzle) return swizzle(row, col);
  return (static_cast<std::int64_t>(row) * cols + col) * elem_bytes;
}

std::string smem_array::declaration() const {
  if (one_dimensional) return fmt::format("{}[{}]", name, cols);
  return fmt::format("{}[{}][{}]", name, rows, cols);
}

const smem_array& kernel_model::array_of(const smem_instruction& ins) const {
  return ins.array == 0 ? array : tables.at(static_cast<std::size_t>(ins.array - 1));
}

std::int64_t tiles_x(const kernel_model& k, const problem_2d& p) { return (p.cols + k.tile_cols - 1) / k.tile_cols; }
std::int64_t tiles_y(const kernel_model& k, const problem_2d& p) { return (p.rows + k.tile_rows - 1) / k.tile_rows; }

int warps_per_block(const kernel_model& k) { return (k.block_x * k.block_y + kWarpSize - 1) / kWarpSize; }

tile_extent extent_of_tile(const kernel_model& k, const problem_2d& p, std::int64_t bx, std::int64_t by) {
  const std::int64_t r = p.rows - by * k.tile_rows, c = p.cols - bx * k.tile_cols;
  return {static_cast<int>(std::clamp<std::int64_t>(r, 0, k.tile_rows)),
          static_cast<int>(std::clamp<std::int64_t>(c, 0, k.tile_cols))};
}

warp_trace trace_warp(const kernel_model& k, int instruction, int warp, int trip, tile_extent valid) {
  const smem_instruction& ins = k.instructions.at(static_cast<std::size_t>(instruction));
  const smem_array& arr = k.array_of(ins);
  const int width = ins.access_bytes > 0 ? ins.access_bytes : arr.elem_bytes;
  warp_trace t;
  t.instruction = instruction;
  t.warp = warp;
  t.trip = trip;
  t.lanes.resize(kWarpSize);
  const int threads = k.block_x * k.block_y;
  for (int l = 0; l < kWarpSize; ++l) {
    lane_access& a = t.lanes[l];
    a.lane = l;
    a.width = width;
    const int tid = warp * kWarpSize + l;  // threads are numbered x fastest: tid = tx + ty * blockDim.x
    a.tx = tid % k.block_x;
    a.ty = tid / k.block_x;
    a.exists = tid < threads;
    if (!a.exists) continue;
    const std::optional<smem_coord> at = ins.lane(lane_ctx{a.tx, a.ty, k.block_x, k.block_y, valid, trip});
    if (!at) continue;
    a.at = *at;
    place(a, arr.byte_offset(at->row, at->col), width);
  }
  t.count = count_wavefronts(ins.op, width, t.lanes);
  return t;
}

// ---- the launch ----

status count_launch(const kernel_model& k, const problem_2d& p, launch_totals* out, std::string* why) {
  if (p.rows < 1 || p.cols < 1 || p.batch < 1)
    return fail(status::kInvalidExtent, why,
                fmt::format("shape {}x{} batch {}: every extent must be at least 1", p.rows, p.cols, p.batch));
  // Wavefronts are at most 32 per lane-access; keep every product far inside 64 bits.
  constexpr std::int64_t kLimit = std::numeric_limits<std::int64_t>::max() / 4096;
  if (p.rows > kLimit / p.cols || p.rows * p.cols > kLimit / p.batch)
    return fail(status::kOverflow, why,
                fmt::format("shape {}x{} batch {} has too many elements to count", p.rows, p.cols, p.batch));
  if (k.made_for && (k.made_for->rows != p.rows || k.made_for->cols != p.cols))
    return fail(status::kInvalidExtent, why,
                fmt::format("this {} model was made for a {}x{} matrix (its shared layout follows the shape), not {}x{}",
                            k.variant, k.made_for->rows, k.made_for->cols, p.rows, p.cols));

  launch_totals t;
  t.warps_per_block = warps_per_block(k);
  const std::int64_t nx = tiles_x(k, p), ny = tiles_y(k, p);
  t.tiles = nx * ny * p.batch;
  t.compiled_away = k.compiled_away;
  for (const auto& ins : k.instructions) t.instructions.push_back({ins.source, ins.op, 0, 0, 0});

  // The four tile classes and how many tiles of each the launch has.
  const std::int64_t full_x = p.cols / k.tile_cols, full_y = p.rows / k.tile_rows;
  const int rem_c = static_cast<int>(p.cols % k.tile_cols), rem_r = static_cast<int>(p.rows % k.tile_rows);
  struct tile_class {
    tile_extent valid;
    std::int64_t count;
  };
  const tile_class classes[] = {
      {{k.tile_rows, k.tile_cols}, full_y * full_x},
      {{k.tile_rows, rem_c}, rem_c ? full_y : 0},
      {{rem_r, k.tile_cols}, rem_r ? full_x : 0},
      {{rem_r, rem_c}, rem_r && rem_c ? 1 : 0},
  };
  for (const tile_class& tc : classes) {
    if (tc.count == 0) continue;
    const std::int64_t n = tc.count * p.batch;
    for (int w = 0; w < t.warps_per_block; ++w)
      for (std::size_t i = 0; i < k.instructions.size(); ++i)
        for (int trip = 0; trip < k.instructions[i].trips; ++trip) {
          const warp_trace wt = trace_warp(k, static_cast<int>(i), w, trip, tc.valid);
          if (wt.count.wavefronts == 0) continue;  // no active lane: the warp skips the access
          instruction_totals& it = t.instructions[i];
          it.executions += n;
          it.wavefronts += n * wt.count.wavefronts;
          it.ideal += n * wt.count.ideal;
        }
  }
  for (const auto& it : t.instructions) {
    if (it.op == smem_op::kLoad) {
      t.source.ld_wavefronts += it.wavefronts;
      t.source.ld_conflicts += it.conflicts();
    } else {
      t.source.st_wavefronts += it.wavefronts;
      t.source.st_conflicts += it.conflicts();
    }
  }
  t.compiled = k.compiled_away ? smem_counters{} : t.source;
  *out = std::move(t);
  return status::kSuccess;
}

}  // namespace xpose::model
