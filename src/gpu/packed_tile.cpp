// Host side of the packed tile (see packed_tile.hpp): box choice, padding choice, launch limits.
#include "gpu/packed_tile.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "model/bank_model.hpp"

namespace xpose::detail::gpu {

namespace {

// Grows the box along `order` (dims fastest first on one side) until it covers `target` elements
// contiguously on that side. A dim already in the box counts with its tile extent; the first dim
// that would overshoot is cut.
void grow_side(const problem& pr, const std::vector<int>& order, std::int64_t target, int elem_bytes,
                       std::vector<std::int64_t>& t) {
  std::int64_t run = 1;
  const std::int64_t sector = std::max(1, 32 / elem_bytes);  // elements of a 32-byte sector
  for (int d : order) {
    if (run >= target) break;
    const std::int64_t ext = pr.dims[d].extent;
    if (t[d] == ext) {
      run *= ext;
      continue;
    }
    const std::int64_t need = (target + run - 1) / run;
    if (ext <= need) {
      t[d] = ext;
      run *= ext;
      continue;
    }
    const std::int64_t pieces = (ext + need - 1) / need;  // balanced pieces: less waste at the edge
    std::int64_t cut = (ext + pieces - 1) / pieces;
    if (run == 1) cut = std::min(ext, (cut + sector - 1) / sector * sector);  // whole 32-byte sectors
    t[d] = std::max(t[d], cut);
    break;
  }
}

// Elements a full box covers contiguously on one side: box dims in that side's stride order while
// each starts where the previous ends, up to the first cut one.
std::int64_t side_run(const problem& pr, const std::vector<int>& order, const std::vector<std::int64_t>& t,
                      bool in_side) {
  std::int64_t run = 1;
  for (int d : order) {
    if (t[d] == 1) continue;
    if ((in_side ? pr.dims[d].in_stride : pr.dims[d].out_stride) != run) break;
    run *= t[d];
    if (t[d] != pr.dims[d].extent) break;
  }
  return run;
}

// Estimated efficiency of a box, from 0 to 1, the product of:
//   sectors: each side moves runs of `run` elements, each costing its 32-byte sectors plus, on
//     average, half a sector more for a start that is not sector aligned;
//   fill: the share of the launched tiles' slots that hold elements (cut dims leave part-empty
//     tiles at the edge);
//   slots: the share of the 256 * E slots (E a power of two) that the box uses;
//   amortisation: volume / (volume + 256), the per-tile cost (origin, two barriers) spread over
//     the box.
double box_score(const problem& pr, const std::vector<std::int64_t>& t, std::int64_t volume, std::int64_t run_in,
                 std::int64_t run_out) {
  const int s = pr.elem_bytes;
  auto sectors = [s](std::int64_t run) {
    const std::int64_t bytes = run * s;
    return static_cast<double>(bytes) / static_cast<double>((bytes + 31) / 32 * 32 + 16);
  };
  double fill = 1;
  for (int k = 0; k < pr.rank; ++k) {
    const std::int64_t ext = pr.dims[k].extent, tiles = (ext + t[k] - 1) / t[k];
    fill *= static_cast<double>(ext) / static_cast<double>(tiles * t[k]);
  }
  std::int64_t slots = kPackedThreads;
  while (slots < volume) slots *= 2;
  return sectors(run_in) * sectors(run_out) * fill * static_cast<double>(volume) / static_cast<double>(slots) *
         static_cast<double>(volume) / static_cast<double>(volume + kPackedThreads);
}

std::vector<int> sorted_dims(const problem& pr, bool by_input) {
  std::vector<int> order(pr.rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const std::int64_t sa = by_input ? std::llabs(pr.dims[a].in_stride) : pr.dims[a].out_stride;
    const std::int64_t sb = by_input ? std::llabs(pr.dims[b].in_stride) : pr.dims[b].out_stride;
    return sa < sb;
  });
  return order;
}

}  // namespace

std::int64_t packed_wavefronts(const packed_params& p, int elem_bytes) {
  // The bank model's hardware rule (model::count_wavefronts, checked against Nsight Compute) over
  // both phases of one full tile: the stores (slot q at q + q / pad_pitch: a warp straddling a
  // padding element pays for it) and the output-order loads.
  std::int64_t total = 0;
  std::array<model::lane_access, model::kWarpSize> lanes;
  for (const auto op : {model::smem_op::kStore, model::smem_op::kLoad})
    for (int w0 = 0; w0 < p.volume; w0 += model::kWarpSize) {
      for (int l = 0; l < model::kWarpSize; ++l) {
        const int q = w0 + l;
        model::lane_access& a = lanes[l];
        a = {};
        a.lane = l;
        a.active = q < p.volume;
        if (!a.active) continue;
        const int index = op == model::smem_op::kStore ? packed_smem_index(p, q) : packed_slot_of(p, q).s_out;
        a.byte = static_cast<std::int64_t>(index) * elem_bytes;
        a.width = elem_bytes;
        a.first_word = a.byte / model::kBankBytes;
        a.words = std::max(1, elem_bytes / model::kBankBytes);
        a.bank = static_cast<int>(a.first_word % model::kBanks);
      }
      total += model::count_wavefronts(op, elem_bytes, lanes).wavefronts;
    }
  return total;
}

bool packed_plan(const problem& pr, int max_volume, packed_params* out, const char** reason) {
  if (pr.rank < 1 || pr.count() >= (std::int64_t{1} << 31)) {
    *reason = "permute_packed runs tensors of 1 to 2^31 - 1 elements (32-bit tile numbers)";
    return false;
  }
  const int s = pr.elem_bytes;
  const auto in_order = sorted_dims(pr, true), out_order = sorted_dims(pr, false);

  // Scan run targets (the box grows with the target, not always smoothly) and keep the box with the
  // best estimated efficiency among those that fit max_volume.
  std::vector<std::int64_t> best_t;
  double best_score = -1;
  for (std::int64_t target = 1; target <= max_volume; target = target < 256 ? target + 1 : target * 33 / 32) {
    std::vector<std::int64_t> t(pr.rank, 1);
    grow_side(pr, in_order, target, s, t);
    grow_side(pr, out_order, target, s, t);
    std::int64_t volume = 1;
    for (auto v : t) volume *= v;
    if (volume > max_volume) continue;
    const double score =
        box_score(pr, t, volume, side_run(pr, in_order, t, true), side_run(pr, out_order, t, false));
    if (score > best_score) best_score = score, best_t = t;
  }
  if (best_t.empty()) best_t.assign(pr.rank, 1);

  packed_params p;
  p.rank = pr.rank;
  std::int64_t max_in = 0, max_out = 0;
  for (int k = 0; k < pr.rank; ++k) {
    p.ext[k] = static_cast<int>(pr.dims[k].extent);
    p.t[k] = static_cast<int>(best_t[k]);
    p.in_stride[k] = pr.dims[k].in_stride;
    p.out_stride[k] = pr.dims[k].out_stride;
    p.ntiles[k] = (p.ext[k] + p.t[k] - 1) / p.t[k];
    p.ntiles_div[k] = fast_div(static_cast<std::uint32_t>(p.ntiles[k]));
    p.tiles *= p.ntiles[k];
    max_in += (p.t[k] - 1) * std::llabs(p.in_stride[k]);
    max_out += (p.t[k] - 1) * p.out_stride[k];
  }
  if (max_in >= (std::int64_t{1} << 31) || max_out >= (std::int64_t{1} << 31) ||
      std::any_of(pr.dims.begin(), pr.dims.begin() + pr.rank, [](const dim& d) { return d.in_stride < 0; })) {
    *reason = "permute_packed keeps offsets inside a tile in 32 bits and needs non-negative strides";
    return false;
  }
  int position = 1;
  for (int d : in_order)
    if (p.t[d] > 1) {
      p.pitch[d] = position;
      position *= p.t[d];
      p.in_order[p.n_box++] = d;
    }
  int n = 0;
  for (int d : out_order)
    if (p.t[d] > 1) p.out_order[n++] = d;
  p.volume = position;
  for (int k = 0; k < pr.rank; ++k)
    if (p.t[k] < p.ext[k] && p.ext[k] % p.t[k] != 0) {
      if (p.cut_a == kPackedNoDim) p.cut_a = k;
      else p.cut_b = k;  // grow_side cuts at most one dim per side
    }
  {
    int out_pos = 1;  // slot stride of each box dim in output order
    int out_pitch[kMaxRank] = {};
    for (int i = 0; i < p.n_box; ++i) out_pitch[p.out_order[i]] = out_pos, out_pos *= p.t[p.out_order[i]];
    for (int i = 0; i < 2; ++i) {
      const int d = i == 0 ? p.cut_a : p.cut_b;
      if (d == kPackedNoDim) continue;
      p.cut_in_stride[i] = fast_div(static_cast<std::uint32_t>(p.pitch[d]));
      p.cut_out_stride[i] = fast_div(static_cast<std::uint32_t>(out_pitch[d]));
      p.cut_t[i] = fast_div(static_cast<std::uint32_t>(p.t[d]));
    }
  }
  p.run_in = static_cast<int>(side_run(pr, in_order, best_t, true));  // for the plan's summary
  p.run_out = static_cast<int>(side_run(pr, out_order, best_t, false));

  // Padding: one element after every pad_pitch, pad_pitch one of the box's input-order pitches
  // (the classic tile's 32 x 33 is pad_pitch = 32 on a 32 x 32 box). Pick the candidate with the
  // fewest shared-memory wavefronts per tile; none when padding does not help.
  std::vector<int> candidates = {0};
  for (int i = 1; i < p.n_box; ++i) candidates.push_back(p.pitch[p.in_order[i]]);
  candidates.push_back(32);
  std::int64_t best_wavefronts = -1;
  int best_pad = 0;
  for (int c : candidates) {
    if (c >= p.volume) continue;
    p.pad_pitch = c;
    p.pad_div = fast_div(static_cast<std::uint32_t>(c ? c : 1));
    const std::int64_t w = packed_wavefronts(p, s);
    if (best_wavefronts < 0 || w < best_wavefronts) best_wavefronts = w, best_pad = c;
  }
  p.pad_pitch = best_pad;
  p.pad_div = fast_div(static_cast<std::uint32_t>(best_pad ? best_pad : 1));
  p.smem_elems = p.volume + (best_pad ? p.volume / best_pad : 0) + 1;
  p.slots_per_thread = 1;  // a kernel template: powers of two keep the instantiations few
  while (p.slots_per_thread * kPackedThreads < p.volume) p.slots_per_thread *= 2;
  *out = p;
  return true;
}

}  // namespace xpose::detail::gpu
