// cpu_blocked: cache-blocked, vectorised, multi-threaded transpose and permutation on the host.
//
// Layers, as in the GPU path: make_nest (pure: which axes form the tile, which row is folded into
// the element, the loop order) -> configure_blocked (the planner's step: tile shape, streaming
// stores or not, recorded in the plan) -> run_blocked (splits the tasks over OpenMP threads) ->
// the tile kernels of src/cpu/microkernels*.cpp. docs/cpu.md has the measurements behind every
// constant below.
#include "cpu/blocked.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "cpu/cpu_variants.hpp"
#include "cpu/microkernels.hpp"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

// ---- tuning constants (docs/cpu.md, "constants") ----
// Bytes of one output row segment of a tile (the tile's extent along i). 256 B = 4 cache lines:
// long enough for each streamed output row to fill whole write-combining buffers, short enough
// that a tile's input rows (one per i) stay few.
constexpr i64 kTileRowBytes = 256;
// Bytes of one tile (input side): 64 x 128 f32. The tile, its staging buffer and the next tile's
// lines fit the 32 KiB L1 data cache of the development machine's Zen 4 cores.
constexpr i64 kTileBytes = 32 << 10;
// Staging buffer for streaming tiles, per thread: a tile plus its row padding to whole lines.
constexpr i64 kBufBytes = 2 * kTileBytes;
// Outputs at least this large are written with streaming (non-temporal) stores: they do not fit
// in the 32 MiB L3 alongside the input, so caching them only costs the read-for-ownership.
constexpr i64 kStreamMinBytes = 16 << 20;
// Rows longer than this are split into chunks so that a few long rows (or one: a plain copy)
// still spread over every thread.
constexpr i64 kChunkBytes = 1 << 20;
// With cpu_threads = 0 (all), one thread per this many bytes moved: starting a team costs a few
// microseconds, which a smaller share of the work does not repay.
constexpr i64 kMinBytesPerThread = 256 << 10;

i64 round_up(i64 x, i64 m) { return (x + m - 1) / m * m; }
i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

// Offsets of the outer dims, walked in order: seek() once per thread, next() per step.
struct odometer {
  const blocked_nest& n;
  std::array<i64, kMaxRank> idx{};
  i64 in = 0, out = 0;

  explicit odometer(const blocked_nest& nest) : n(nest) {}
  void seek(i64 o) {
    in = out = 0;
    for (int k = n.outer_rank - 1; k >= 0; --k) {
      idx[k] = o % n.outer[k].extent;
      o /= n.outer[k].extent;
      in += idx[k] * n.outer[k].in_stride;
      out += idx[k] * n.outer[k].out_stride;
    }
  }
  void next() {
    for (int k = n.outer_rank - 1; k >= 0; --k) {
      const loop_dim& d = n.outer[k];
      in += d.in_stride;
      out += d.out_stride;
      if (++idx[k] < d.extent) return;
      in -= d.in_stride * d.extent;
      out -= d.out_stride * d.extent;
      idx[k] = 0;
    }
  }
};

// Thread t's share [begin, end) of n tasks: contiguous, so each thread walks its part of the
// output in order.
void share(i64 n, int t, int nt, i64* begin, i64* end) {
  const i64 q = n / nt, r = n % nt;
  *begin = t * q + std::min<i64>(t, r);
  *end = *begin + q + (t < r ? 1 : 0);
}

int team_size(const plan_data& pd, i64 bytes, i64 tasks) {
  i64 t = pd.cpu_threads > 0 ? pd.cpu_threads : omp_get_max_threads();
  if (pd.cpu_threads <= 0) t = std::min(t, std::max<i64>(1, bytes / kMinBytesPerThread));
  return static_cast<int>(std::max<i64>(1, std::min(t, tasks)));
}

// ---- the tile shape: the planner's choice (configure_blocked reports it) ----
struct tile_shape {
  i64 ti = 1, tj = 1;  // elements along i (output-contiguous) and j (input-contiguous)
  bool stream = false;
};

tile_shape choose_tiles(const blocked_nest& n, const kernel_table& kt, i64 out_bytes) {
  tile_shape s;
  const i64 e = n.elem, ni = n.i.extent, nj = n.j.extent;
  s.ti = std::min(ni, std::max<i64>(1, kTileRowBytes / e));
  s.tj = std::min(nj, std::max<i64>(1, kTileBytes / e / s.ti));
  if (s.tj == nj) s.ti = std::min(ni, std::max(s.ti, kTileBytes / e / s.tj));  // few columns: taller tiles
  // Whole register blocks (16 covers every micro-kernel) unless the extent itself is smaller.
  if (s.tj > 16 && s.tj < nj) s.tj &= ~i64{15};
  if (s.ti > 16 && s.ti < ni) s.ti &= ~i64{15};
  // Streaming needs output rows of whole lines: tile rows of >= 64 B, or rows that are one
  // contiguous run (the tile spans the whole i extent of a dense output).
  const bool contiguous_rows = s.ti == ni && n.j.out_stride == ni * e;
  s.stream = kt.stream_copy && out_bytes >= kStreamMinBytes && n.i.out_stride == e &&
             (s.ti * e >= 64 || contiguous_rows);
  // (Room for one extra line per row: run_tiles' kExtended mode.)
  if (s.stream && !contiguous_rows) s.tj = std::max<i64>(1, std::min(s.tj, kBufBytes / round_up(s.ti * e + 64, 64)));
  if (s.stream && contiguous_rows) s.tj = std::max<i64>(1, std::min(s.tj, kBufBytes / (s.ti * e)));
  return s;
}

// ---- tiles ----
template <int E>
void generic_tile(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj) {
  for (i64 j = 0; j < tj; ++j)
    for (i64 i = 0; i < ti; ++i) std::memcpy(out + j * so_j + i * so_i, in + i * si + j * sj, E);
}

void generic_tile_any(const std::byte* in, i64 si, i64 sj, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj,
                      i64 e) {
  for (i64 j = 0; j < tj; ++j)
    for (i64 i = 0; i < ti; ++i)
      std::memcpy(out + j * so_j + i * so_i, in + i * si + j * sj, static_cast<std::size_t>(e));
}

// One tile of the nest, to `out` with strides (so_i, so_j): through the kernel table when the
// element is a supported size and both sides are contiguous, else the strided scalar loop.
struct tile_runner {
  const blocked_nest& n;
  tile_fn simd = nullptr;  // valid when in_sj == elem (the kernel also needs so_i == elem)

  void operator()(const std::byte* in, std::byte* out, i64 so_i, i64 so_j, i64 ti, i64 tj) const {
    const i64 e = n.elem, si = n.i.in_stride, sj = n.j.in_stride;
    if (simd && so_i == e) return simd(in, si, out, so_j, ti, tj);
    switch (e) {
      case 1: return generic_tile<1>(in, si, sj, out, so_i, so_j, ti, tj);
      case 2: return generic_tile<2>(in, si, sj, out, so_i, so_j, ti, tj);
      case 4: return generic_tile<4>(in, si, sj, out, so_i, so_j, ti, tj);
      case 8: return generic_tile<8>(in, si, sj, out, so_i, so_j, ti, tj);
      case 16: return generic_tile<16>(in, si, sj, out, so_i, so_j, ti, tj);
      default: return generic_tile_any(in, si, sj, out, so_i, so_j, ti, tj, e);
    }
  }
};

// How a tile reaches the output; fixed per run by the output pointer and strides.
enum class store_mode {
  kDirect,      // the kernel writes the output (small outputs, strided rows, misaligned elements)
  kContiguous,  // the tile's rows are one run of memory: one streaming copy
  kLines,       // staged, then each row streams the whole cache lines it owns (see run_tiles)
};

void run_tiles(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, const tile_shape& s,
               const std::byte* in, std::byte* out) {
  const i64 e = n.elem, ni = n.i.extent, nj = n.j.extent;
  const int ke = elem_index(e);
  const tile_runner tile{n, ke >= 0 && n.j.in_stride == e ? kt.tile[ke] : nullptr};

  // Streaming stores must cover whole cache lines (microkernels_avx2.cpp says why). A line split
  // between two i tiles would need ordinary stores, each a read-for-ownership from memory at full
  // latency (15% of memcpy at 8193 x 8192 f32). So each output row owns the lines that *start* in
  // its part [i0, i1) of the tile: when all rows share the base's line offset, the i tiles are
  // shifted to start on line boundaries; otherwise each tile also transposes the next line's worth
  // of elements (`ext`), so every row can finish its last line. The row's first and last partial
  // lines (at i = 0 and i = ni) take ordinary stores.
  const auto mis = static_cast<i64>(reinterpret_cast<std::uintptr_t>(out) % 64);
  bool rows_aligned = n.j.out_stride % 64 == 0;
  for (int k = 0; k < n.outer_rank; ++k) rows_aligned = rows_aligned && n.outer[k].out_stride % 64 == 0;
  store_mode mode = store_mode::kDirect;
  if (s.stream && s.ti == ni && n.j.out_stride == ni * e)
    mode = store_mode::kContiguous;
  else if (s.stream && 64 % e == 0 && mis % e == 0)  // line boundaries fall between elements
    mode = store_mode::kLines;
  const bool lines = mode == store_mode::kLines;
  const i64 shift = lines && rows_aligned ? (s.ti - ((64 - mis) % 64) / e % s.ti) % s.ti : 0;
  const i64 ext = lines && !rows_aligned ? 64 / e : 0;
  const i64 nti = ceil_div(ni + shift, s.ti), ntj = ceil_div(nj, s.tj);
  const i64 ldb = mode == store_mode::kContiguous ? ni * e : round_up((s.ti + ext) * e, 64);

  const i64 tasks = n.outer_count() * nti * ntj;
  const int threads = team_size(pd, n.outer_count() * ni * nj * e, tasks);
#pragma omp parallel num_threads(threads)
  {
    alignas(64) std::byte buf[kBufBytes];  // staging for streaming tiles; 64 KiB of stack
    i64 begin, end;
    share(tasks, omp_get_thread_num(), omp_get_num_threads(), &begin, &end);
    if (begin < end) {
      odometer cur(n);
      cur.seek(begin / (nti * ntj));
      i64 bi = begin / ntj % nti, bj = begin % ntj;
      for (i64 task = begin; task < end; ++task) {
        const i64 i0 = std::max<i64>(0, bi * s.ti - shift), i1 = std::min(ni, (bi + 1) * s.ti - shift);
        const i64 j0 = bj * s.tj, j1 = std::min(nj, j0 + s.tj);
        const std::byte* src = in + cur.in + i0 * n.i.in_stride + j0 * n.j.in_stride;
        std::byte* dst = out + cur.out + i0 * n.i.out_stride + j0 * n.j.out_stride;
        if (mode == store_mode::kDirect) {
          tile(src, dst, n.i.out_stride, n.j.out_stride, i1 - i0, j1 - j0);
        } else if (mode == store_mode::kContiguous) {
          tile(src, buf, e, ldb, i1 - i0, j1 - j0);
          kt.stream_copy(dst, buf, static_cast<std::size_t>((j1 - j0) * ldb));
        } else {
          const i64 i1x = std::min(ni, i1 + ext);
          tile(src, buf, e, ldb, i1x - i0, j1 - j0);
          if (i0 > 0 && i1 + std::max<i64>(ext, 1) <= ni) {
            kt.stream_lines(dst, n.j.out_stride, buf, ldb, j1 - j0, (i1 - i0) * e);
          } else {  // a tile at either end of the rows: clip the owned lines to the row
            for (i64 j = 0; j < j1 - j0; ++j) {
              std::byte* row = dst + j * n.j.out_stride;
              const auto a = static_cast<i64>(reinterpret_cast<std::uintptr_t>(row) % 64);
              const i64 first = std::min(i0 == 0 ? 0 : ((64 - a) % 64) / e, ni - i0);
              const i64 last = std::min(ni - i0, (i1 - i0) + ((64 - (a + (i1 - i0) * e) % 64) % 64) / e);
              if (last > first)
                kt.stream_copy(row + first * e, buf + j * ldb + first * e, static_cast<std::size_t>((last - first) * e));
            }
          }
        }
        if (++bj == ntj) {
          bj = 0;
          if (++bi == nti) {
            bi = 0;
            cur.next();
          }
        }
      }
      if (s.stream) kt.stream_fence();
    }
  }
}

// ---- rows ----
bool stream_row_copies(const blocked_nest& n, const kernel_table& kt, i64 out_bytes) {
  return kt.stream_copy && out_bytes >= kStreamMinBytes && n.elem >= 64;
}

void run_rows(const plan_data& pd, const blocked_nest& n, const kernel_table& kt, bool stream, const std::byte* in,
              std::byte* out) {
  const i64 chunks = ceil_div(n.elem, kChunkBytes), rows = n.outer_count();
  const i64 tasks = rows * chunks;
  const int threads = team_size(pd, rows * n.elem, tasks);
#pragma omp parallel num_threads(threads)
  {
    i64 begin, end;
    share(tasks, omp_get_thread_num(), omp_get_num_threads(), &begin, &end);
    if (begin < end) {
      odometer cur(n);
      cur.seek(begin / chunks);
      i64 c = begin % chunks;
      for (i64 task = begin; task < end; ++task) {
        const i64 off = c * kChunkBytes, len = std::min(kChunkBytes, n.elem - off);
        if (stream)
          kt.stream_copy(out + cur.out + off, in + cur.in + off, static_cast<std::size_t>(len));
        else
          std::memcpy(out + cur.out + off, in + cur.in + off, static_cast<std::size_t>(len));
        if (++c == chunks) {
          c = 0;
          cur.next();
        }
      }
      if (stream) kt.stream_fence();
    }
  }
}

}  // namespace

std::int64_t blocked_nest::outer_count() const {
  i64 c = 1;
  for (int k = 0; k < outer_rank; ++k) c *= outer[k].extent;
  return c;
}

blocked_nest make_nest(const problem& p) {
  blocked_nest n;
  const i64 b = p.elem_bytes;
  std::array<loop_dim, kMaxRank> d{};
  int r = 0;
  for (int k = 0; k < p.rank; ++k) d[r++] = {p.dims[k].extent, p.dims[k].in_stride * b, p.dims[k].out_stride * b};
  auto take = [&](int k) {
    const loop_dim x = d[k];
    std::copy(d.begin() + k + 1, d.begin() + r, d.begin() + k);
    --r;
    return x;
  };
  auto argmin = [&](i64 loop_dim::*stride) {
    int best = 0;
    for (int k = 1; k < r; ++k)
      if (d[k].*stride < d[best].*stride) best = k;
    return best;
  };
  auto finish_outer = [&](auto order) {
    std::stable_sort(d.begin(), d.begin() + r, order);
    n.outer_rank = r;
    std::copy(d.begin(), d.begin() + r, n.outer.begin());
  };

  n.elem = b;
  if (r > 0) {
    const int f = argmin(&loop_dim::out_stride);
    if (d[f].in_stride == b && d[f].out_stride == b) {  // a contiguous row on both sides
      n.elem = d[f].extent * b;
      take(f);
      if (n.elem >= kMinRowBytes || r == 0) {
        // Row copies: walk the rows in output order, so the writes stream.
        n.k = blocked_nest::kind::kRows;
        finish_outer([](const loop_dim& x, const loop_dim& y) { return x.out_stride > y.out_stride; });
        return n;
      }
    }
  }
  if (r == 0) {  // a single element
    n.k = blocked_nest::kind::kRows;
    return n;
  }
  n.k = blocked_nest::kind::kTiles;
  n.i = take(argmin(&loop_dim::out_stride));
  if (r > 0) n.j = take(argmin(&loop_dim::in_stride));
  // Innermost outer loop = smallest input stride: consecutive tiles read neighbouring lines (and
  // pages) of the input, which the hardware prefetchers follow; the output side is streamed.
  finish_outer([](const loop_dim& x, const loop_dim& y) { return x.in_stride > y.in_stride; });
  return n;
}

// The planner's step: the nest and tile shape are pure functions of the normalised problem and the
// kernel table, so run_blocked derives the same ones again instead of carrying them in the plan;
// configure records them in the plan's summary (and the tile in block_x/block_y, for display).
status configure_blocked(plan_data& pd, std::string*) {
  const blocked_nest n = make_nest(pd.prob);
  const kernel_table& kt = active_kernels();
  const i64 out_bytes = pd.prob.count() * pd.prob.elem_bytes;
  pd.launch.block_x = pd.launch.block_y = 0;
  if (n.k == blocked_nest::kind::kRows) {
    pd.reason += fmt::format("; rows of {} B x {}{}", n.elem, n.outer_count(),
                             stream_row_copies(n, kt, out_bytes) ? ", streaming stores" : "");
  } else {
    const tile_shape s = choose_tiles(n, kt, out_bytes);
    pd.launch.block_y = static_cast<int>(s.ti);
    pd.launch.block_x = static_cast<int>(s.tj);
    const bool simd = elem_index(n.elem) >= 0 && n.j.in_stride == n.elem && n.i.out_stride == n.elem;
    pd.reason += fmt::format("; {}x{} tiles of {} B elements ({} kernels) x {}{}", s.ti, s.tj, n.elem,
                             simd ? kt.isa : "strided scalar", n.outer_count(), s.stream ? ", streaming stores" : "");
  }
  return status::kSuccess;
}

status run_blocked(const plan_data& pd, const void* in, void* out, CUstream_st*, std::string*) {
  const blocked_nest n = make_nest(pd.prob);
  const kernel_table& kt = active_kernels();
  const i64 out_bytes = pd.prob.count() * pd.prob.elem_bytes;
  const auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  if (n.k == blocked_nest::kind::kRows)
    run_rows(pd, n, kt, stream_row_copies(n, kt, out_bytes), src, dst);
  else
    run_tiles(pd, n, kt, choose_tiles(n, kt, out_bytes), src, dst);
  return status::kSuccess;
}

}  // namespace xpose::detail::cpu
