// Host side of the packed tile (see packed_tile.hpp): box choice, padding choice, launch limits.
#include "gpu/packed_tile.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "model/bank_model.hpp"

namespace xpose::detail::gpu {

namespace {

// Grows the box along `order` (dims fastest first on one side) until it covers `target` elements
// contiguously on that side. A dim already in the box counts with its tile extent; the first dim
// that would overshoot is cut, to a multiple of its quantum (the vector width it carries).
void grow_side(const problem& pr, const std::vector<int>& order, std::int64_t target, int elem_bytes,
               const std::vector<std::int64_t>& quantum, std::vector<std::int64_t>& t) {
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
    cut = std::min(ext, (cut + quantum[d] - 1) / quantum[d] * quantum[d]);
    t[d] = std::max(t[d], cut);
    break;
  }
}

// The widest vector (in elements, a power of two, at most 16 bytes) one side can move: the side's
// stride-1 dim must have an extent that is a multiple of it and every other stride must be one too,
// so a vector never straddles a dim and every vector starts aligned. *fast: that stride-1 dim.
int side_vector(const problem& pr, bool in_side, int* fast) {
  *fast = kPackedNoDim;
  for (int k = 0; k < pr.rank; ++k)
    if ((in_side ? pr.dims[k].in_stride : pr.dims[k].out_stride) == 1) *fast = k;
  if (*fast == kPackedNoDim) return 1;
  int v = 16 / pr.elem_bytes;
  for (; v > 1; v /= 2) {
    bool ok = pr.dims[*fast].extent % v == 0;
    for (int k = 0; k < pr.rank && ok; ++k)
      if (k != *fast) ok = (in_side ? pr.dims[k].in_stride : pr.dims[k].out_stride) % v == 0;
    if (ok) break;
  }
  return v;
}

// A side's contiguous run in a box: box dims in that side's stride order from stride 1, each
// starting where the previous ends, whole but for the last. Returns the run's dims, fastest first.
std::vector<int> run_dims(const problem& pr, const std::vector<int>& order, const std::vector<std::int64_t>& t,
                          bool in_side) {
  std::vector<int> dims;
  std::int64_t run = 1;
  for (int d : order) {
    if (t[d] == 1) continue;
    if ((in_side ? pr.dims[d].in_stride : pr.dims[d].out_stride) != run) break;
    dims.push_back(d);
    run *= t[d];
    if (t[d] != pr.dims[d].extent) break;
  }
  return dims;
}

// Elements a full box covers contiguously on one side: the product of its run's tile extents.
std::int64_t side_run(const problem& pr, const std::vector<int>& order, const std::vector<std::int64_t>& t,
                      bool in_side) {
  std::int64_t run = 1;
  for (int d : run_dims(pr, order, t, in_side)) run *= t[d];
  return run;
}

// Whether vectors of v elements fit a side's run: they lie inside it and start aligned in every
// tile, so the run, every stride outside it and, when the run's last dim is cut, that dim's full
// span are multiples of v.
bool vectors_fit(const problem& pr, const std::vector<int>& run, const std::vector<std::int64_t>& t, bool in_side,
                 int v) {
  std::int64_t length = 1;
  for (int d : run) length *= t[d];
  bool ok = length % v == 0;
  for (int k = 0; k < pr.rank && ok; ++k)
    if (std::find(run.begin(), run.end(), k) == run.end())
      ok = (in_side ? pr.dims[k].in_stride : pr.dims[k].out_stride) % v == 0;
  const int last = run.back();
  if (ok && t[last] != pr.dims[last].extent)
    ok = pr.dims[last].extent * (in_side ? pr.dims[last].in_stride : pr.dims[last].out_stride) % v == 0;
  return ok;
}

// The widest input vector (elements, a power of two, at most 16 bytes) a box allows. The input
// side stores its vectors to the input-ordered shared array as they are, so a vector may span
// several dims of the run.
int input_width(const problem& pr, const std::vector<int>& in_order, const std::vector<std::int64_t>& t) {
  const auto run = run_dims(pr, in_order, t, true);
  if (run.empty()) return 1;
  for (int v = 16 / pr.elem_bytes; v > 1; v /= 2)
    if (vectors_fit(pr, run, t, true, v)) return v;
  return 1;
}

// The widest output vector a box allows, and how its elements are gathered (*p's gather fields,
// when p is given): the vector spans the first L dims of the output run, L the first count whose
// tile extents multiply to a multiple of v (a vector aligned to v never crosses that product);
// L = 1 is one dim (gather_levels 0); L = 2 is gathered across two (packed_gather_next); more are
// not run (a narrower vector is taken).
int output_width(const problem& pr, const std::vector<int>& out_order, const std::vector<std::int64_t>& t,
                 packed_params* p) {
  const auto run = run_dims(pr, out_order, t, false);
  if (run.empty()) return 1;
  for (int v = 16 / pr.elem_bytes; v > 1; v /= 2) {
    if (!vectors_fit(pr, run, t, false, v)) continue;
    std::int64_t product = 1;
    int levels = 0;
    bool ok = true;
    while (product % v != 0) {  // the run's length is a multiple of v, so this ends inside it
      const int d = run[levels];
      ok = ok && levels < kPackedGatherLevels;
      product *= t[d];
      ++levels;
    }
    if (!ok) continue;
    if (p) {
      p->gather_levels = levels > 1 ? levels : 0;
      if (levels > 1) p->gather_t = static_cast<int>(t[run[0]]);
    }
    return v;
  }
  return 1;
}

// Estimated efficiency of a box, from 0 to 1, the product of:
//   sectors: each side moves runs of `run` elements, each costing its 32-byte sectors plus, on
//     average, half a sector more for a start that is not sector aligned;
//   fill: the share of the launched tiles' slots that hold elements (cut dims leave part-empty
//     tiles at the edge);
//   slots: the share of the slots of the threads' slot loops that the box uses (vectors of
//     `width` elements, the narrower side's);
//   amortisation: volume / (volume + 256 * width), the per-tile cost (origin, two barriers)
//     spread over the box;
//   access width: b / (b + 4) for the b bytes of each side's accesses (1 B: 0.2, 4 B: 0.5,
//     16 B: 0.8): with one element per access the kernel was bound by the accesses in flight
//     (f32 at 53% of copy where f64, the same box, reached 90%: packed-experiment-2026-11-29.txt).
double box_score(const problem& pr, const std::vector<std::int64_t>& t, std::int64_t volume, std::int64_t run_in,
                 std::int64_t run_out, int vin, int vout) {
  const int width = std::min(vin, vout);
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
  const std::int64_t vectors = (volume + width - 1) / width;
  const std::int64_t slots = (vectors + kPackedThreads - 1) / kPackedThreads * kPackedThreads;
  auto access = [s](int v) { return static_cast<double>(v * s) / static_cast<double>(v * s + 4); };
  return sectors(run_in) * sectors(run_out) * fill * static_cast<double>(vectors) / static_cast<double>(slots) *
         static_cast<double>(volume) / static_cast<double>(volume + kPackedThreads * width) * access(vin) *
         access(vout);
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
  // both phases of one full tile: the vector stores (input slot u at the shared index of u * vin: a
  // warp straddling padding pays for it) and, for each of the vout elements of an output slot, the
  // warp's loads.
  std::int64_t total = 0;
  std::array<model::lane_access, model::kWarpSize> lanes;
  auto fill = [&](int l, bool active, int index, int width) {
    model::lane_access& a = lanes[l];
    a = {};
    a.lane = l;
    a.active = active;
    if (active) model::place(a, static_cast<std::int64_t>(index) * elem_bytes, width);
  };
  const int in_vectors = p.volume / p.vin, out_vectors = p.volume / p.vout;
  for (int w0 = 0; w0 < in_vectors; w0 += model::kWarpSize) {
    for (int l = 0; l < model::kWarpSize; ++l) {
      const int u = w0 + l;
      fill(l, u < in_vectors, u < in_vectors ? packed_smem_index(p, u * p.vin) : 0, elem_bytes * p.vin);
    }
    total += model::count_wavefronts_total(model::smem_op::kStore, elem_bytes * p.vin, lanes);
  }
  // Each lane's gather walks from its slot's position, element i after element i - 1 (what
  // packed_gather_pos computes for each i from the start).
  std::array<int, model::kWarpSize> pos{};
  std::array<std::int32_t, model::kWarpSize> gather{};
  for (int w0 = 0; w0 < out_vectors; w0 += model::kWarpSize) {
    for (int l = 0; l < model::kWarpSize; ++l)
      if (w0 + l < out_vectors) {
        const packed_slot b = packed_slot_of(p, (w0 + l) * p.vout);
        pos[l] = b.pos;
        gather[l] = b.gather;
      }
    for (int i = 0; i < p.vout; ++i) {
      for (int l = 0; l < model::kWarpSize; ++l) {
        const bool active = w0 + l < out_vectors;
        fill(l, active, active ? packed_smem_index(p, pos[l]) : 0, elem_bytes);
        if (!active || i + 1 == p.vout) continue;
        if (p.gather_levels == 0)
          pos[l] += p.out_fast_pitch;
        else
          packed_gather_next(p, &pos[l], &gather[l]);
      }
      total += model::count_wavefronts_total(model::smem_op::kLoad, elem_bytes, lanes);
    }
  }
  return total;
}

bool packed_plan(const problem& pr, bool vectors, packed_params* out, const char** reason) {
  if (pr.rank < 1 || pr.count() >= (std::int64_t{1} << 31)) {
    *reason = "permute_packed runs tensors of 1 to 2^31 - 1 elements (32-bit tile numbers)";
    return false;
  }
  const int s = pr.elem_bytes;
  const auto in_order = sorted_dims(pr, true), out_order = sorted_dims(pr, false);
  int in_fast = kPackedNoDim, out_fast = kPackedNoDim;
  const int vin_max = vectors ? side_vector(pr, true, &in_fast) : 1;
  const int vout_max = vectors ? side_vector(pr, false, &out_fast) : 1;
  std::vector<std::int64_t> quantum(pr.rank, 1);  // tile extents stay multiples of the widths
  if (vin_max > 1) quantum[in_fast] = vin_max;
  if (vout_max > 1) quantum[out_fast] = std::max<std::int64_t>(quantum[out_fast], vout_max);
  // The widths a box gets, from each side's contiguous run (input_width, output_width).
  auto widths = [&](const std::vector<std::int64_t>& t) {
    const int vi = vectors ? input_width(pr, in_order, t) : 1;
    const int vo = vectors ? output_width(pr, out_order, t, nullptr) : 1;
    return std::pair{vi, vo};
  };
  auto capacity = [&](int vi, int vo) {  // elements a box may hold with these widths
    return std::int64_t{kPackedThreads} * packed_slots(vi, vo, s) * std::min(vi, vo);
  };
  std::int64_t max_volume = 0;
  for (int vi = 1; vi <= 16 / s; vi *= 2) max_volume = std::max(max_volume, capacity(vi, vi));

  // Scan run targets (the box grows with the target, not always smoothly) and keep the box with the
  // best estimated efficiency among those whose vectors fit the slots of each thread.
  std::vector<std::int64_t> best_t;
  double best_score = -1;
  for (std::int64_t target = 1; target <= max_volume; target = target < 256 ? target + 1 : target * 33 / 32) {
    std::vector<std::int64_t> t(pr.rank, 1);
    grow_side(pr, in_order, target, s, quantum, t);
    grow_side(pr, out_order, target, s, quantum, t);
    std::int64_t volume = 1;
    for (auto v : t) volume *= v;
    const auto [vi, vo] = widths(t);
    if (volume > capacity(vi, vo)) continue;
    const double score = box_score(pr, t, volume, side_run(pr, in_order, t, true), side_run(pr, out_order, t, false),
                                   vi, vo);
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
  std::tie(p.vin, p.vout) = widths(best_t);
  p.slots = packed_slots(p.vin, p.vout, s);
  p.pad_unit = p.vin;
  if (p.vout > 1) {
    output_width(pr, out_order, best_t, &p);
    p.out_fast_pitch = p.pitch[p.out_order[0]];
    if (p.gather_levels) p.gather_carry = p.pitch[p.out_order[1]] - p.gather_t * p.pitch[p.out_order[0]];
  }
  p.run_in = static_cast<int>(side_run(pr, in_order, best_t, true));  // for the plan's summary
  p.run_out = static_cast<int>(side_run(pr, out_order, best_t, false));

  // Shared layout: padding, pad_unit = vin elements after every pad_pitch, pad_pitch one of the
  // box's input-order pitches that is a multiple of vin (so vectors stay whole and aligned; the
  // classic tile's 32 x 33 is pad_pitch = 32 on a 32 x 32 box) or 32; or a swizzle of vin-element
  // chunks by bits swz_shift and up of their index. Padding shifts every row by vin elements, so
  // with 16-byte input vectors the rows a gathering warp reads (vout rows apart) fall on at most
  // 8 bank groups (an 8-way conflict for bytes); the swizzle at the right shift spreads them over
  // all 32 banks. Pick the layout with the fewest shared-memory wavefronts per tile.
  std::int64_t best_wavefronts = -1;
  packed_params best = p;
  auto consider = [&](const packed_params& c) {
    const std::int64_t w = packed_wavefronts(c, s);
    if (best_wavefronts < 0 || w < best_wavefronts) best_wavefronts = w, best = c;
  };
  while ((1 << p.vin_log) < p.vin) ++p.vin_log;
  p.smem_elems = p.volume + p.pad_unit;
  consider(p);  // unpadded, unswizzled
  std::vector<int> pads;
  for (int i = 1; i < p.n_box; ++i)
    if (p.pitch[p.in_order[i]] % p.vin == 0) pads.push_back(p.pitch[p.in_order[i]]);
  pads.push_back(32);
  for (int c : pads) {
    if (c >= p.volume) continue;
    packed_params q = p;
    q.pad_pitch = c;
    q.pad_div = fast_div(static_cast<std::uint32_t>(c));
    q.smem_elems = p.volume + p.volume / c * p.pad_unit + p.pad_unit;
    consider(q);
  }
  const int chunk_bytes = p.vin * s, group = std::max(1, 128 / chunk_bytes);  // chunks over the 32 banks
  const int chunks = p.volume / p.vin;
  if (group > 1)
    for (int shift = 0; (1 << shift) < chunks; ++shift) {
      if ((1 << shift) < group) continue;
      packed_params q = p;
      q.swz_shift = shift;
      q.swz_mask = group - 1;
      q.smem_elems = (chunks + group - 1) / group * group * p.vin;
      consider(q);
    }
  p = best;
  set_tile_order(p, pr.elem_bytes);
  *out = p;
  return true;
}

}  // namespace xpose::detail::gpu
