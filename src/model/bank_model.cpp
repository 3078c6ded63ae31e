// The hardware half of the bank model (count_wavefronts) and the counting over warps and tiles. The
// kernels' descriptions live in kernels.cpp.
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

// Serves `lanes` (active ones only) as one group: each bank delivers one word per wavefront, lanes
// reading the same word share it (a broadcast for loads; for stores the byte masks of the lanes are
// merged, which is why 1- and 2-byte stores to neighbouring bytes of a word cost one wavefront: a
// warp storing 32 consecutive bytes takes 1 wavefront on the H200, not 4).
lane_group serve_group(std::span<const lane_access> lanes, int lane_begin, int lane_end) {
  // Distinct words per bank. At most 32 lanes x 4 words, so a flat scan beats a map.
  std::array<std::vector<std::int64_t>, kBanks> words;
  for (int l = lane_begin; l < lane_end; ++l) {
    const lane_access& a = lanes[l];
    if (!a.active) continue;
    for (int w = 0; w < a.words; ++w) {
      const std::int64_t word = a.first_word + w;
      auto& in_bank = words[static_cast<std::size_t>(word % kBanks)];
      if (std::find(in_bank.begin(), in_bank.end(), word) == in_bank.end()) in_bank.push_back(word);
    }
  }
  lane_group g{lane_begin, lane_end, 0, -1, {}};
  for (int b = 0; b < kBanks; ++b) {
    const auto n = static_cast<int>(words[b].size());
    if (n > g.wavefronts) {
      g.wavefronts = n;
      g.worst_bank = b;
      g.worst_words = words[b];
    }
  }
  std::sort(g.worst_words.begin(), g.worst_words.end());
  return g;
}

bool any_active(std::span<const lane_access> lanes, int begin, int end) {
  for (int l = begin; l < end; ++l)
    if (lanes[l].active) return true;
  return false;
}

// True when every aligned group of 4 lanes in [begin, end) has at most 2 active lanes.
bool at_most_two_per_quad(std::span<const lane_access> lanes, int begin, int end) {
  for (int q = begin; q < end; q += 4) {
    int n = 0;
    for (int l = q; l < q + 4 && l < end; ++l) n += lanes[l].active ? 1 : 0;
    if (n > 2) return false;
  }
  return true;
}

}  // namespace

const char* op_name(smem_op op) { return op == smem_op::kLoad ? "ld" : "st"; }

// How sm_90 serves one warp's request, as measured with Nsight Compute 2025.3 on the H200 (2,256
// single-warp probes of every width, load and store, lane mask and address pattern, plus about 1,500
// launches of the seed and tiled kernels; docs/banks.md):
//
//   * 1-, 2- and 4-byte accesses: the whole warp is one group. Ideal: 1 wavefront.
//   * Stores of 8 and 16 bytes: fixed groups of 128 bytes' worth of lanes, half-warps (8 bytes) or
//     quarter-warps (16 bytes); a group with no active lane costs nothing. Ideal: one wavefront per
//     group with an active lane, so a full warp's conflict-free STS.64 is 2 wavefronts, 0 conflicts.
//   * Loads of 8 bytes (the whole warp) and 16 bytes (each half-warp): when every aligned quad of
//     lanes has at most two active lanes, the lanes fit one 128-byte wavefront's slots and are served
//     as ONE group (ideal 1), even if they then conflict; otherwise they are split into the same
//     groups as stores. So four lanes 0, 8, 16, 24 reading 8 bytes 64 bytes apart cost 2 wavefronts
//     of which ncu counts 1 as a conflict, while lanes 0-3, 8-11, 16-19, 24-27 reading the same rows
//     cost 2 wavefronts and 0 conflicts.
//
// Conflicts = wavefronts - ideal, which is how Nsight Compute's data_bank_conflicts counter came out
// on every probe. (On busy launches ncu adds wavefronts from collisions with concurrent global
// traffic in the same L1 data banks; no access pattern explains those, see docs/banks.md.)
wavefront_count count_wavefronts(smem_op op, int width, std::span<const lane_access> lanes) {
  wavefront_count c;
  auto add = [&](int begin, int end) {
    if (!any_active(lanes, begin, end)) return;
    lane_group g = serve_group(lanes, begin, end);
    c.wavefronts += g.wavefronts;
    c.ideal += 1;
    c.groups.push_back(std::move(g));
  };
  const int n = static_cast<int>(lanes.size());
  if (width <= kBankBytes) {
    add(0, n);
    return c;
  }
  // 128 bytes of lanes: 16 lanes of 8 bytes, 8 lanes of 16 bytes.
  const int group = std::max(1, kWavefrontBytes / width);
  // Loads are first tried whole: the warp for 8 bytes, each half-warp for 16 bytes.
  const int unit = op == smem_op::kLoad ? std::min(n, 2 * group) : group;
  for (int u = 0; u < n; u += unit) {
    const int u_end = std::min(n, u + unit);
    if (op == smem_op::kLoad && at_most_two_per_quad(lanes, u, u_end)) {
      add(u, u_end);
      continue;
    }
    for (int g = u; g < u_end; g += group) add(g, std::min(u_end, g + group));
  }
  return c;
}

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
    a.active = true;
    a.at = *at;
    a.byte = arr.byte_offset(at->row, at->col);
    a.first_word = a.byte / kBankBytes;
    a.words = static_cast<int>((a.byte + width - 1) / kBankBytes - a.first_word + 1);
    a.bank = static_cast<int>(a.first_word % kBanks);
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
