// Host side of the runs tile (see runs_tile.hpp): which dims make the input and output runs, how
// long each run is, the shared-memory row, launch limits.
#include "gpu/runs_tile.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace xpose::detail::gpu {

namespace {

// One side's run: whole dims from the side's stride-1 dim, then a tile extent of the next.
struct side_choice {
  std::vector<int> dims;  // fastest first; the last may be cut
  int t_last = 1;         // tile extent of the last dim
  std::int64_t length = 1;
};

// Every run a side can form, fastest dim first: whole dims while they stay contiguous on that side
// and are not `banned` (the other side's dims), and for the last dim tile extents that split it
// into balanced pieces, the run at most max_len elements.
std::vector<side_choice> side_choices(const problem& pr, bool in_side, const std::vector<char>& banned,
                                      std::int64_t max_len) {
  std::vector<side_choice> out;
  auto stride = [&](int d) { return in_side ? pr.dims[d].in_stride : pr.dims[d].out_stride; };
  side_choice cur;
  std::int64_t next_stride = 1;
  while (true) {
    int d = -1;
    for (int k = 0; k < pr.rank; ++k)
      if (stride(k) == next_stride && !banned[k] &&
          std::find(cur.dims.begin(), cur.dims.end(), k) == cur.dims.end())
        d = k;
    if (d < 0) break;
    const std::int64_t e = pr.dims[d].extent;
    // Tile extents of d: ceil(e / pieces) for every piece count that fits the length limit.
    std::int64_t last = -1;
    // At most ~64 candidates per dim (a long dim's tile extents differ by little in fill).
    const std::int64_t t_max = std::min(e, max_len / cur.length), step = std::max<std::int64_t>(1, t_max / 64);
    for (std::int64_t t = t_max; t >= 1; t -= step) {
      const std::int64_t bal = (e + (e + t - 1) / t - 1) / ((e + t - 1) / t);
      if (bal == last) continue;
      side_choice c = cur;
      c.dims.push_back(d);
      c.t_last = static_cast<int>(bal);
      c.length = cur.length * bal;
      out.push_back(c);
      last = bal;
    }
    if (e * cur.length > max_len) break;  // d cannot be whole: nothing beyond it
    cur.dims.push_back(d);
    cur.t_last = static_cast<int>(e);
    cur.length *= e;
    next_stride = stride(d) * e;
  }
  return out;
}

int chunks_of(std::int64_t len, int s) { return static_cast<int>((len * s + 16 - s + 15) / 16); }

int row_pitch(int nc_in) { return nc_in * 16 + 128; }  // the chunks and the largest shift r(b)

// Whether every run of a side starts on a 32-byte sector (relative to the pointer): the side's
// strides of every dim outside the run, and the span of a cut last dim's tile, are whole sectors.
bool sector_aligned(const problem& pr, const side_choice& c, bool in_side) {
  const std::int64_t s = pr.elem_bytes;
  auto stride = [&](int d) { return in_side ? pr.dims[d].in_stride : pr.dims[d].out_stride; };
  for (int k = 0; k < pr.rank; ++k)
    if (std::find(c.dims.begin(), c.dims.end(), k) == c.dims.end() && stride(k) * s % 32 != 0) return false;
  return c.t_last * stride(c.dims.back()) * s % 32 == 0;
}

// Estimated efficiency of a tile (0 to 1): DRAM sectors of runs of A and B elements (a run costs its
// whole sectors when every run starts on one, else its bytes plus, on average, a sector less one
// element at its ends), the share of launched tiles' elements inside the tensor on each cut dim, the
// 16-byte chunks each input run loads for its bytes (an over-read the L2 serves), and the per-tile
// cost (origin, two barriers, the edge chunks of every output run) spread over the tile.
double tile_score(const problem& pr, const side_choice& a, const side_choice& b, int nc_in) {
  const double s = pr.elem_bytes;
  const double ab = static_cast<double>(a.length) * s, bb = static_cast<double>(b.length) * s;
  auto sectors = [&](const side_choice& c, double bytes, bool in_side) {
    return sector_aligned(pr, c, in_side) ? bytes / (std::ceil(bytes / 32) * 32) : bytes / (bytes + 32 - s);
  };
  auto fill = [&](const side_choice& c) {
    const double e = static_cast<double>(pr.dims[c.dims.back()].extent);
    const double t = c.t_last;
    return e / (std::ceil(e / t) * t);
  };
  const double over_read = std::sqrt(ab / (16.0 * nc_in));
  const double vol = ab * static_cast<double>(b.length);
  const double per_tile = vol / (vol + 2048 + 64 * static_cast<double>(a.length));
  return sectors(a, ab, true) * sectors(b, bb, false) * fill(a) * fill(b) * over_read * per_tile;
}

}  // namespace

bool runs_plan(const problem& pr, runs_params* out, const char** reason) {
  const int s = pr.elem_bytes;
  if (pr.rank < 2 || pr.count() >= (std::int64_t{1} << 31)) {
    *reason = "permute_runs runs permutations of rank 2 and more with fewer than 2^31 elements";
    return false;
  }
  int in_fast = -1, out_fast = -1;
  for (int k = 0; k < pr.rank; ++k) {
    if (pr.dims[k].in_stride < 0) {
      *reason = "permute_runs needs non-negative input strides";
      return false;
    }
    if (pr.dims[k].in_stride == 1) in_fast = k;
    if (pr.dims[k].out_stride == 1) out_fast = k;
  }
  if (in_fast < 0 || out_fast < 0 || in_fast == out_fast) {
    *reason = "permute_runs needs a unit-stride input dim that is not the output's fastest dim";
    return false;
  }
  const std::int64_t max_a = (kRunsMaxRunBytes - 16 + s) / s;
  std::vector<char> ban_out(pr.rank, 0);
  ban_out[out_fast] = 1;
  const auto a_choices = side_choices(pr, true, ban_out, max_a);

  // Whether `rows` input runs of nc_in chunks (B and the halo's) fit one pass of loads and, with the
  // tables of `a_len` output runs, the shared-memory budget.
  auto rows_fit = [](std::int64_t rows, int nc_in, std::int64_t a_len) {
    return rows * nc_in <= std::int64_t{kRunsThreads} * kRunsLoads &&
           rows * row_pitch(nc_in) + 4 * (2 * rows + a_len) <= kRunsMaxSmem;
  };
  // The best B side for input run a with `spare` rows left over (owned ends' halo, below).
  auto best_b_for = [&](const side_choice& a, int spare, side_choice* out) {
    const int nc_in = chunks_of(a.length, s);
    const int row = row_pitch(nc_in);
    std::vector<char> ban(pr.rank, 0);
    for (int d : a.dims) ban[d] = 1;
    // B rows of `row` bytes plus the tables within the shared-memory budget, and B * nc_in chunks
    // within the loads of one pass.
    const std::int64_t max_b = std::min<std::int64_t>({(kRunsMaxSmem - 4 * a.length) / (row + 8) - spare,
                                                       std::int64_t{kRunsThreads} * kRunsLoads / nc_in - spare,
                                                       (kRunsMaxRunBytes - 16 + s) / s});
    double top = -1;
    if (max_b < 1) return top;
    for (const auto& b : side_choices(pr, false, ban, max_b)) {
      const double score = tile_score(pr, a, b, nc_in);
      if (score > top) top = score, *out = b;
    }
    return top;
  };
  side_choice best_a, best_b;
  double best = -1;
  for (const auto& a : a_choices) {
    side_choice b;
    const double score = best_b_for(a, 0, &b);
    if (score > best) best = score, best_a = a, best_b = b;
  }
  // Owned ends need 16 / s - 1 rows more where tiles cut the B side's last dim. Where the best tile
  // leaves no room for them, the same input run with a B side that does is taken if it keeps 90% of
  // the run (f32 [7262,22,5,2,7,6]: 85 -> 82; [817,8,6,18,19,5] would go 72 -> 48 and keeps 72).
  const int halo_rows = 16 / s - 1;
  if (kRunsOwnEnds && best >= 0 && halo_rows > 0 && !best_b.dims.empty() &&
      best_b.t_last < pr.dims[best_b.dims.back()].extent) {
    const bool fits = rows_fit(std::int64_t{best_b.length} + halo_rows, chunks_of(best_a.length, s), best_a.length);
    side_choice b;
    if (!fits && best_b_for(best_a, halo_rows, &b) >= 0 && b.length * 10 >= best_b.length * 9) best_b = b;
  }
  if (best < 0) {
    *reason = "permute_runs found no run on either side";
    return false;
  }

  runs_params p;
  p.rank = pr.rank;
  for (int k = 0; k < pr.rank; ++k) {
    p.ext[k] = static_cast<int>(pr.dims[k].extent);
    p.t[k] = 1;
    p.in_stride[k] = pr.dims[k].in_stride;
    p.out_stride[k] = pr.dims[k].out_stride;
  }
  auto take = [&](const side_choice& c, int* dims, int* n, int* len, int* unit, int* cut) {
    *n = 0;
    for (int d : c.dims) dims[(*n)++] = d, p.t[d] = p.ext[d];
    const int last = c.dims.back();
    p.t[last] = c.t_last;
    *len = static_cast<int>(c.length);
    *unit = static_cast<int>(c.length / c.t_last);
    if (p.ext[last] % c.t_last != 0) *cut = last;
  };
  take(best_a, p.a_dims, &p.na, &p.A, &p.a_unit, &p.cut_a);
  take(best_b, p.b_dims, &p.nb, &p.B, &p.b_unit, &p.cut_b);
  std::int64_t max_in = 0, max_out = 0, span = 1;
  for (int k = 0; k < pr.rank; ++k) {
    p.ntiles[k] = (p.ext[k] + p.t[k] - 1) / p.t[k];
    p.ntiles_div[k] = fast_div(static_cast<std::uint32_t>(p.ntiles[k]));
    p.tiles *= p.ntiles[k];
    max_in += (p.t[k] - 1) * p.in_stride[k];
    max_out += (p.t[k] - 1) * p.out_stride[k];
    span += (p.ext[k] - 1) * p.in_stride[k];
  }
  if (max_in >= (std::int64_t{1} << 31) || max_out >= (std::int64_t{1} << 31)) {
    *reason = "permute_runs keeps offsets inside a tile in 32 bits";
    return false;
  }
  p.in_span_bytes = span * s;
  p.nc_in = chunks_of(p.A, s);
  p.nc_out = chunks_of(p.B, s);
  p.nc_in_div = fast_div(static_cast<std::uint32_t>(p.nc_in));
  p.nc_out_div = fast_div(static_cast<std::uint32_t>(p.nc_out));
  p.row_bytes = row_pitch(p.nc_in);
  p.swz_shift = 0;
  while ((1 << p.swz_shift) < 16 / s) ++p.swz_shift;
  const int w = std::max(4, s);
  p.rot_log = 0;
  while ((1 << p.rot_log) < w) ++p.rot_log;
  p.rot_mask = 128 / w - 1;
  // Owned output ends (runs_tile.hpp) where tiles cut the B side's last dim, elements have partial
  // chunks (under 16 bytes) and the halo's rows fit the loads, shared memory and 32-bit offsets.
  const int last_b = p.b_dims[p.nb - 1];
  const int halo = 16 / s - 1;
  const std::int64_t halo_reach =
      max_in + static_cast<std::int64_t>((halo + p.b_unit - 1) / p.b_unit) * p.in_stride[last_b];
  if (kRunsOwnEnds && halo > 0 && p.t[last_b] < p.ext[last_b] && rows_fit(p.B + halo, p.nc_in, p.A) &&
      halo_reach < (std::int64_t{1} << 31)) {
    p.halo = halo;
    p.b_last = last_b;
  }
  p.smem_bytes = (p.B + p.halo) * p.row_bytes + 4 * (2 * (p.B + p.halo) + p.A);
  p.one_shot = pr.elem_bytes >= kRunsOneShotMinElem ? 1 : 0;
  set_tile_order(p, pr.elem_bytes);
  *out = p;
  return true;
}

}  // namespace xpose::detail::gpu
