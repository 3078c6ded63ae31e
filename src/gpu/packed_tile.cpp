// Host side of the packed tile (see packed_tile.hpp): box choice, padding choice, launch limits.
#include "gpu/packed_tile.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace xpose::detail::gpu {

namespace {

// Grows the box along `order` (dims fastest first on one side) until it covers `target` elements
// contiguously on that side. A dim already in the box counts with its tile extent; the first dim
// that would overshoot is cut. Returns the run covered.
std::int64_t grow_side(const problem& pr, const std::vector<int>& order, std::int64_t target, int elem_bytes,
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
    run *= t[d];
    break;
  }
  return run;
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

std::int64_t packed_read_wavefronts(const packed_params& p, int elem_bytes) {
  // Bank model of one shared-memory access per warp: 32 banks of 4 bytes; lanes touching the same
  // word share it; 8- and 16-byte accesses are split into half- and quarter-warp phases (the
  // Hopper behaviour modelled in src/model/). Summed over the warps of one full tile.
  const int phase = elem_bytes == 16 ? 8 : elem_bytes == 8 ? 16 : 32;
  const int words = std::max(1, elem_bytes / 4);
  std::int64_t total = 0;
  for (int w0 = 0; w0 < p.volume; w0 += 32)
    for (int l0 = w0; l0 < std::min(w0 + 32, p.volume); l0 += phase) {
      std::vector<std::vector<std::int64_t>> bank(32);
      for (int q = l0; q < std::min(l0 + phase, p.volume); ++q) {
        const std::int64_t byte = static_cast<std::int64_t>(packed_slot_of(p, q).s_out) * elem_bytes;
        for (int w = 0; w < words; ++w) {
          const std::int64_t word = byte / 4 + w;
          auto& b = bank[word % 32];
          if (std::find(b.begin(), b.end(), word) == b.end()) b.push_back(word);
        }
      }
      std::size_t worst = 1;
      for (const auto& b : bank) worst = std::max(worst, b.size());
      total += static_cast<std::int64_t>(worst);
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

  // The largest run target whose box fits max_volume: the box grows with the target, so scan up.
  std::vector<std::int64_t> best_t;
  std::int64_t best_volume = 0;
  for (std::int64_t target = 1; target <= max_volume; target = target < 8 ? target + 1 : target * 9 / 8) {
    std::vector<std::int64_t> t(pr.rank, 1);
    grow_side(pr, in_order, target, s, t);
    grow_side(pr, out_order, target, s, t);
    std::int64_t volume = 1;
    for (auto v : t) volume *= v;
    if (volume > max_volume) break;
    if (volume >= best_volume) best_volume = volume, best_t = t;
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
  // Contiguous runs of a full tile, for the plan's summary.
  auto run_of = [&](const int* order, auto stride) {
    std::int64_t run = 1;
    for (int i = 0; i < p.n_box; ++i) {
      const int d = order[i];
      if (stride(d) != run) break;
      run *= p.t[d];
      if (p.t[d] != p.ext[d]) break;
    }
    return static_cast<int>(run);
  };
  p.run_in = run_of(p.in_order, [&](int d) { return p.in_stride[d]; });
  p.run_out = run_of(p.out_order, [&](int d) { return p.out_stride[d]; });

  // Padding: one element after every pad_pitch, pad_pitch one of the box's input-order pitches
  // (the classic tile's 32 x 33 is pad_pitch = 32 on a 32 x 32 box). Pick the candidate with the
  // fewest read wavefronts; none when padding does not help.
  std::vector<int> candidates = {0};
  for (int i = 1; i < p.n_box; ++i) candidates.push_back(p.pitch[p.in_order[i]]);
  candidates.push_back(32);
  std::int64_t best_wavefronts = -1;
  int best_pad = 0;
  for (int c : candidates) {
    if (c >= p.volume) continue;
    p.pad_pitch = c;
    p.pad_div = fast_div(static_cast<std::uint32_t>(c ? c : 1));
    const std::int64_t w = packed_read_wavefronts(p, s);
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
