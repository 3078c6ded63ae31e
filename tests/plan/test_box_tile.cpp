// permute_box's host-side arithmetic, run on the CPU exactly as the kernel runs it: the box choice,
// the run tables, the realigned and swizzled shared rows, the chunk loops of both phases, byte
// addresses included (gpu/box_tile.hpp, gpu/kernels/permute_box.cuh). The emulation moves real
// bytes from a random input at a chosen misalignment through a simulated shared array into a
// poisoned output, and checks every access: loads aligned and inside the input (or zero-filled past
// its span, as load_chunk does), 16-byte vectors aligned on both sides and in shared memory, no
// shared byte stored twice in a tile or read when it holds no run byte, and the output equal to the
// reference with every element written once and nothing else.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"
#include "cpu/reference.hpp"
#include "gpu/box_segments.hpp"
#include "gpu/box_tile.hpp"
#include "plan/problem.hpp"

namespace {

using xpose::detail::problem;
using namespace xpose::detail::gpu;

// Word-gather store items emulated in each of box_store_words' two forms, over all calls.
long whole_chunk_items = 0, converged_items = 0;
// The same for the element gather's store.
long element_whole_items = 0, element_converged_items = 0, segment_items = 0;

// Entry b0 + i of gtab as the kernel's chunk gather reads it (box_gtab_span, V = 16 / s).
std::int32_t span_entry(const box_params& p, const std::vector<std::uint32_t>& gtab, int s, int b0, int i) {
  switch (16 / s) {
    case 16: return box_gtab_span_of<16>(p, gtab.data(), b0)[i];
    case 8: return box_gtab_span_of<8>(p, gtab.data(), b0)[i];
    case 4: return box_gtab_span_of<4>(p, gtab.data(), b0)[i];
    case 2: return box_gtab_span_of<2>(p, gtab.data(), b0)[i];
    default: return box_gtab_span_of<1>(p, gtab.data(), b0)[i];
  }
}

// in_mis / out_mis: misalignment of the pointers, in elements past a 16-byte boundary.
std::string emulate(const xpose::permute_desc& d, const box_params& p, int in_mis_e, int out_mis_e,
                    std::uint64_t seed) {
  const int s = d.elem_bytes, V = 16 / s;
  auto io = xpose::test::make_emulation(d, seed);
  const std::int64_t in_bytes = io.in_bytes, out_bytes = io.out_bytes;
  if (p.in_span_bytes != in_bytes) return "the plan's input span disagrees";
  const int in_mis = in_mis_e * s, out_mis = out_mis_e * s;  // bytes past a 16-byte boundary

  // The tables, as the kernel builds them.
  const box_tables tb = box_tables_of(p);
  if (p.smem_bytes != p.tile_bytes + 4 * tb.end || tb.end != tb.gtab + p.gtab_len + (p.raw ? p.runs_in : 0) ||
      p.smem_bytes > box_budget(p))
    return "shared memory size";
  if (p.words_shift != (p.words && p.raw)) return "the word gather is shifted exactly where rows are raw";
  if (p.raw ? (p.swizzle == kBoxWords || !p.vec_rows || p.tile_bytes % 128)
            : (p.tile_bytes < (p.runs_in - 1) * p.row_bytes + p.run_in * s || p.row_bytes % std::max(4, s) ||
               p.row_bytes < p.run_in * s || (p.vec_rows && p.row_bytes % 16) || (p.swizzle == kBoxWords && s > 4) ||
               p.tile_bytes % 128))
    return "the rows do not fit the tile";
  if (box_gtab_index(p, p.gather_run - 1) >= p.gtab_len) return "gtab too short";
  // Owned ends (box_tile.hpp): the halo's slices along the output run's last dim, outside the input run.
  if (p.halo) {
    const int d = p.out_order[p.out_run_dims - 1];
    if (p.halo_dim != d || p.cut_b != d || p.halo * p.out_unit < V - 1 || (p.halo - 1) * p.out_unit >= V - 1)
      return "the halo's parameters";
    if (p.halo_f == kPackedNoDim ? p.gather_run != p.run_out + p.halo * p.out_unit ||
                                       p.runs_in * p.t[d] != p.volume / p.run_in * box_t(p, d)
                                 : p.halo != 1 || !p.raw || p.halo_rows != V - 1 || p.out_run_dims != 2 ||
                                       p.halo_f != p.out_order[0] || p.gather_run != p.run_out + p.halo_rows ||
                                       p.own_rows != p.volume / p.run_in || p.runs_in != p.own_rows + p.halo_rows)
      return "the halo's parameters";
    for (int i = 0; i < p.in_run_dims; ++i)
      if (p.in_order[i] == d) return "a halo along an input run dim";
    if (!box_store_converged(p, s, 0)) return "owned ends where the store is not converged";
  } else if (p.halo_dim != kPackedNoDim || p.gather_run != p.run_out) {
    return "the halo's parameters";
  }
  std::vector<std::int32_t> in_off(p.runs_in), in_base(p.runs_in), out_off(p.runs_out), out_base(p.runs_out);
  std::vector<std::uint32_t> gtab(p.gtab_len, 0xffffffffu);
  std::vector<std::uint32_t> in_cut(p.runs_in), out_cut(p.runs_out);
  for (int r = 0; r < p.runs_in; ++r) {
    const box_run run = box_run_of(p, true, r);
    in_off[r] = run.off * s, in_cut[r] = run.cut, in_base[r] = run.base;
    // Raw rows: linear bytes congruent to the input's mod 16 (box_tile.hpp).
    if (p.raw && (in_base[r] - in_off[r]) % 16) return "a raw row's pitch is not congruent to its input stride";
  }
  for (int o = 0; o < p.runs_out; ++o) {
    const box_run run = box_run_of(p, false, o);
    out_off[o] = run.off, out_cut[o] = run.cut, out_base[o] = run.base;
  }
  // As the kernel builds it: each word's entry, then (after its barrier) the next entry's in the
  // high half (box_gtab_word).
  for (int j = 0; j < p.gather_run; ++j) {
    if (gtab[box_gtab_index(p, j)] != 0xffffffffu) return "two gtab entries share a word";
    const std::int32_t entry = box_gtab_of(p, j);
    if (entry < 0 || entry >= 65536) return "a gtab entry does not fit 16 bits";
    gtab[box_gtab_index(p, j)] = box_gtab_word(entry, 0);
  }
  for (int j = 0; j + 1 < p.gather_run; ++j)
    gtab[box_gtab_index(p, j)] |= (gtab[box_gtab_index(p, j + 1)] & 0xffffu) << 16;
  // The tables make_plan builds for the device (box_tables_build), which the kernel copies instead
  // of building them: these, word for word (the wide gather's words have no high half there; the
  // words no entry lands in are zero).
  {
    const std::vector<std::int32_t> built = box_tables_build(p, s);
    if (built.size() != static_cast<std::size_t>(tb.end)) return "box_tables_build: table size";
    auto at = [&](int i) { return static_cast<std::uint32_t>(built[static_cast<std::size_t>(i)]); };
    for (int r = 0; r < p.runs_in; ++r)
      if (built[tb.in_off + r] != in_off[r] || at(tb.in_cut + r) != in_cut[r] ||
          (p.raw && built[tb.in_base + r] != in_base[r]))
        return "box_tables_build: an input run's entry";
    for (int o = 0; o < p.runs_out; ++o)
      if (built[tb.out_off + o] != out_off[o] || at(tb.out_cut + o) != out_cut[o] || built[tb.out_base + o] != out_base[o])
        return "box_tables_build: an output run's entry";
    for (int w = 0; w < p.gtab_len; ++w) {
      const std::uint32_t want = gtab[w] == 0xffffffffu ? 0u : p.wide ? gtab[w] & 0xffffu : gtab[w];
      if (at(tb.gtab + w) != want) return "box_tables_build: a gtab word";
    }
  }

  std::vector<int> smem(p.tile_bytes);
  const box_chunks nc = box_out_chunks(p, out_mis);
  if (nc.n != (out_mis == 0 && p.out_aligned ? (p.run_out * s + 15) / 16 : p.nc_out)) return "output chunk count";
  const int load_items = p.runs_in * p.nc_in, store_items = p.runs_out * nc.n;
  // Byte at offset `at` from the input pointer as load_chunk sees it: -1 outside the span (it loads
  // 0 there, which no run byte may come from).
  auto in_byte = [&](std::int64_t at) { return at >= 0 && at < in_bytes ? static_cast<int>(io.in[at]) : -1; };
  for (std::int64_t t = 0; t < p.tiles; ++t) {
    int start = 0;  // the tile's coordinate along halo_dim (owned ends)
    const packed_origin o = p.halo ? packed_origin_of<true>(p, static_cast<std::uint32_t>(t), p.halo_dim, &start)
                                   : packed_origin_of(p, static_cast<std::uint32_t>(t));
    const packed_origin ol = box_load_origin(p, o, start);
    const int run_bytes = s * box_run_length(o, p.run_in, p.in_unit, p.in_lim);
    const int out_run_bytes = s * box_run_length(o, p.run_out, p.out_unit, p.out_lim);
    if (run_bytes < s || run_bytes > p.run_in * s || out_run_bytes < s || out_run_bytes > p.run_out * s)
      return "edge lengths out of range";
    // The elements an output run's gather may read (its own and the live halo's), and whether a
    // chunk that is not whole may be stored: at the longer run's own ends only, where ends are owned.
    const int glen = out_run_bytes / s + (p.halo ? box_halo_elems(p, start) : 0);
    const bool long_end = !p.halo || glen == (p.ext[p.halo_dim] - start) * p.out_unit;
    auto piece_ok = [&](int first) { return first < 0 ? start == 0 : long_end; };
    const std::int64_t tin = o.in * s, tout = o.out * s;
    std::fill(smem.begin(), smem.end(), -2);  // -2: not stored this tile; -1: stored, no run byte
    // Raw rows: the tile's shift, added to every shared address of the gather.
    const int sh = p.raw ? static_cast<int>((in_mis + tin) & 15) : 0;
    const bool inside = box_tile_inside(p, tin, p.halo ? box_halo_live(p, start) : 0);
    for (int u = 0; p.raw && u < load_items; ++u) {  // as the kernel's raw load: aligned chunks as they stand
      const int r = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
      const int k = u - r * p.nc_in;
      if (r != u / p.nc_in) return "nc_in division";
      if (!(ol.full || packed_in_bounds(ol, in_cut[r]))) continue;
      const std::int64_t s0 = tin + in_off[r];
      const int m = static_cast<int>((in_mis + s0) & 15);
      if (16 * k >= m + run_bytes) continue;
      const std::int64_t a = s0 - m + 16 * k;
      if ((in_mis + a) % 16) return "an input chunk is not aligned";
      if (inside && (a < 0 || a + 16 > in_bytes)) return "an unchecked load outside the input";
      const int lin = in_base[r] + sh - m + 16 * k;
      if (lin % 16 || (p.vec_rows && box_phys(p, lin) % 16)) return "a raw chunk unaligned";
      for (int b = 0; b < 16; ++b) {  // word b / 4 of the chunk (its own copy under the word swizzle)
        const int dst = box_phys(p, lin + b / 4 * 4) + b % 4;
        if (dst < 0 || dst >= p.tile_bytes) return "a raw chunk outside the tile";
        if (smem[dst] != -2) return fmt::format("tile {}: two raw chunks stored to shared byte {}", t, dst);
        const std::int64_t at = a + b;
        smem[dst] = at >= s0 && at < s0 + run_bytes ? in_byte(at) : -1;
      }
    }
    for (int u = 0; !p.raw && u < load_items; ++u) {
      const int r = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
      const int k = u - r * p.nc_in;
      if (r != u / p.nc_in) return "nc_in division";
      const int left = run_bytes - 16 * k;
      if (left <= 0 || !(ol.full || packed_in_bounds(ol, in_cut[r]))) continue;
      const std::int64_t s0 = tin + in_off[r] + 16 * k;
      const int m = static_cast<int>((in_mis + s0) & 15);
      const std::int64_t a = s0 - m;  // from the pointer; in_mis + a is 16-byte aligned
      if ((in_mis + a) % 16) return "an input chunk is not aligned";
      const bool two = m + std::min(left, 16) > 16;
      // The kernel's unchecked loads (a tile inside the input) must stay inside it.
      if (inside && (a < 0 || a + (two ? 32 : 16) > in_bytes))
        return "an unchecked load outside the input";
      const int lin = r * p.row_bytes + 16 * k;
      for (int q = 0; q < 4; ++q) {  // one 16-byte store, or the words inside the row
        if (!p.vec_rows && lin + 4 * q >= (r + 1) * p.row_bytes) continue;
        const int dst = box_phys(p, lin + 4 * q);
        if (dst < 0 || dst + 4 > p.tile_bytes || dst % 4 || (p.vec_rows && q == 0 && dst % 16))
          return "a shared store outside the tile or unaligned";
        for (int b = 4 * q; b < 4 * q + 4; ++b) {
          const int at = p.vec_rows ? box_phys(p, lin) + b : dst + b - 4 * q;
          if (smem[at] != -2) return "two chunks stored to one shared byte";
          const int from = m + b;  // byte of lo:hi
          int v = from < 16 || two ? in_byte(a + from) : -1;
          if (b >= left) v = -1;  // past the run: garbage the gather must not read
          smem[at] = v;
        }
      }
    }
    // The word gather's shared byte for member m of the word at linear byte lin (box_store_words'
    // word_at: aligned words, two and a funnel where shifted), "" if its loads stay in shared memory.
    auto word_byte = [&](int lin, int m) { return box_phys(p, (lin + m) / 4 * 4) + (lin + m) % 4; };
    auto word_loads = [&](int lin) -> std::string {
      if (lin < 0) return "a shared word before the tile";
      if (!p.words_shift && lin % 4) return "a shared word unaligned";
      for (int k = 0; k < (lin % 4 ? 2 : 1); ++k) {
        const int at = box_phys(p, lin / 4 * 4 + 4 * k);
        if (at % 4 || at < 0 || at + 4 > p.smem_bytes) return "a shared word load outside shared memory";
      }
      return "";
    };
    if (p.words) {  // the word gather: chunk j of group g's runs, one word per element
      if (p.wg_n != 4 / s || p.groups * p.wg_t0 != p.runs_out / p.wg_t0 * p.wg_t0 * p.wg_cg) return "word gather sizes";
      for (int u = 0; u < p.groups * nc.n; ++u) {
        const int gi = static_cast<int>(nc.div.div(static_cast<std::uint32_t>(u)));
        const int j = u - gi * nc.n;
        if (gi != u / nc.n) return "chunk count division";
        const box_group g = box_group_of(p, gi);
        if (g.members < 1 || g.members > p.wg_n || g.run0 + (g.members - 1) * p.wg_lo >= p.runs_out)
          return "a group outside the runs";
        const bool live0 = o.full || packed_in_bounds(o, out_cut[g.run0]);
        const std::int64_t rs0 = tout + static_cast<std::int64_t>(out_off[g.run0]) * s;
        const int first = 16 * j - static_cast<int>((out_mis + rs0) & 15);
        const int base = out_base[g.run0] + sh;
        if (!p.words_shift && base % 4) return "a group's words are not aligned";
        for (int m = 0; m < g.members; ++m) {
          const int r = g.run0 + m * p.wg_lo;
          const bool live = o.full || packed_in_bounds(o, out_cut[r]);
          if (live && !live0) return "a group's first run is outside but another is not";
          if (out_base[r] + sh != base + m * s) return "a group's runs do not share words";
          if ((tout + std::int64_t{out_off[r]} * s - rs0) % 16) return "a group's runs differ in alignment";
        }
        if (!live0 || first >= out_run_bytes) continue;
        if (first % s) return "an output chunk splits an element";
        if (!box_store_converged(p, s, out_mis)) {
          // As box_store_words' whole-chunk form: a vector gathered from element first / s where the
          // chunk is whole, else the run's own elements of the chunk one by one.
          const int b0 = first / s;
          const bool vector = first >= 0 && first + 16 <= out_run_bytes;
          box_wide gw;
          if (vector && p.wide) gw = box_wide_of(p, gtab.data(), base, b0, V);
          for (int i = 0; i < V; ++i) {
            const int b = b0 + i;
            if (b < 0 || b * s >= out_run_bytes) {
              if (vector) return "a vector reads outside its run";
              continue;
            }
            const int lin = !vector ? base + box_gtab_at(p, gtab.data(), b)
                            : p.wide  ? (i < gw.w ? gw.pre : gw.post) + i * p.out_fast_pitch
                                      : base + span_entry(p, gtab, s, b0, i);
            if (lin != base + box_gtab_of(p, b)) return "the word gather's address differs from the table's";
            if ((lin - base) & 3) return "a word's byte phase is not its group's (box_store_words takes it per chunk)";
            if (const std::string e = word_loads(lin); !e.empty()) return e;
            for (int m = 0; m < g.members; ++m) {
              const int r = g.run0 + m * p.wg_lo;
              if (!(o.full || packed_in_bounds(o, out_cut[r]))) continue;
              const std::int64_t rs = tout + static_cast<std::int64_t>(out_off[r]) * s;
              if (vector && (out_mis + rs + first) % 16) return "an output vector is not aligned";
              for (int e = 0; e < s; ++e) {
                const int at = word_byte(lin, m * s + e);
                if (at >= p.tile_bytes || smem[at] < 0) return fmt::format("tile {}: shared byte {} read holding no run byte", t, at);
                if (!io.put(rs + first + std::int64_t{i} * s + e, static_cast<unsigned char>(smem[at])))
                  return "a store outside the output";
              }
            }
          }
          ++whole_chunk_items;
          continue;
        }
        if (first < 0 && start > 0) continue;  // owned ends: the previous tile's chunk
        ++converged_items;
        // As box_store_words' converged form: V words gathered from element `from` of the run (indices clamped in
        // runs shorter than a chunk), then each live run's chunk stored by store_run_chunk: one
        // vector where the chunk is whole, else its own elements.
        const int len = glen;
        const int from = len >= V ? std::min(first > 0 ? first / s : 0, len - V) : 0;
        const box_wide gw = box_wide_of(p, gtab.data(), base, from, len < V ? len : V);
        std::vector<int> word_at(V);
        for (int i = 0; i < V; ++i) {
          const int k = len < V ? std::min(i, len - 1) : i;
          const int b = from + k;
          if (b < 0 || b >= len) return "a gather reads outside its run";
          const int lin = p.wide   ? (k < gw.w ? gw.pre : gw.post) + k * p.out_fast_pitch
                          : len < V ? base + box_gtab_at(p, gtab.data(), b)
                                    : base + span_entry(p, gtab, s, from, i);
          if (lin != base + box_gtab_of(p, b)) return "the word gather's address differs from the table's";
          if ((lin - base) & 3) return "a word's byte phase is not its group's (box_store_words takes it per chunk)";
          if (const std::string e = word_loads(lin); !e.empty()) return e;
          word_at[i] = lin;
        }
        const bool vector = first >= 0 && first + 16 <= len * s;
        if (!vector && !piece_ok(first)) return "a partial chunk where the next slice goes on";
        for (int m = 0; m < g.members; ++m) {
          const int r = g.run0 + m * p.wg_lo;
          if (!(o.full || packed_in_bounds(o, out_cut[r]))) continue;
          const std::int64_t rs = tout + static_cast<std::int64_t>(out_off[r]) * s;
          if (vector && (out_mis + rs + first) % 16) return "an output vector is not aligned";
          // store_run_chunk: elements from + i for i in [lo, hi), every one of a whole chunk.
          const int lo = vector ? first / s - from : std::max(0, first / s - from);
          const int hi = vector ? lo + V : std::min(first / s - from + V, len - from);
          if (vector && lo != first / s - from) return "a vector's elements are not the chunk's";
          for (int i = lo; i < hi; ++i) {
            if (i < 0 || i >= V) return "a store outside the gathered elements";
            for (int e = 0; e < s; ++e) {
              const int at = word_byte(word_at[i], m * s + e);
              if (at >= p.tile_bytes || smem[at] < 0) return fmt::format("tile {}: shared byte {} read holding no run byte", t, at);
              if (!io.put(rs + std::int64_t{from + i} * s + e, static_cast<unsigned char>(smem[at])))
                return "a store outside the output";
            }
          }
        }
      }
      continue;
    }
    for (int u = 0; u < store_items; ++u) {
      const int r = static_cast<int>(nc.div.div(static_cast<std::uint32_t>(u)));
      const int j = u - r * nc.n;
      if (r != u / nc.n) return "nc_out division";
      if (!o.full && !packed_in_bounds(o, out_cut[r])) continue;
      const std::int64_t rs = tout + static_cast<std::int64_t>(out_off[r]) * s;
      const int first = 16 * j - static_cast<int>((out_mis + rs) & 15);
      if (first >= out_run_bytes) continue;
      if (first % s) return "an output chunk splits an element";
      if (box_store_converged(p, s, out_mis)) {
        if (first < 0 && start > 0) continue;  // owned ends: the previous tile's chunk
        // The converged form: V elements gathered from element `from` of the run (indices clamped
        // in runs shorter than a chunk), then store_run_chunk: the whole vector, or the chunk's own
        // elements.
        ++element_converged_items;
        const int len = glen;
        const bool vector = first >= 0 && first + 16 <= len * s;
        if (vector && (out_mis + rs + first) % 16) return "an output vector is not aligned";
        if (!vector && !piece_ok(first)) return "a partial chunk where the next slice goes on";
        const int from = len >= V ? std::min(first > 0 ? first / s : 0, len - V) : 0;
        const int base = out_base[r] + sh;
        const box_wide gw = box_wide_of(p, gtab.data(), base, from, len < V ? len : V);
        const int lo = vector ? first / s - from : std::max(0, first / s - from);
        const int hi = vector ? lo + V : std::min(first / s - from + V, len - from);
        if (lo < 0 || hi > V) return "a store outside the gathered elements";
        if (p.segs && len >= V) {  // the segment gather (box_segments.hpp): its words, then its bytes
          ++segment_items;
          std::string bad;
          auto word = [&](int a) -> std::uint32_t {
            const int at = box_phys(p, a);
            if (a % 4 || at < 0 || at + 4 > p.tile_bytes) bad = "a segment word outside the tile or unaligned";
            std::uint32_t w = 0;
            for (int e = 0; e < 4 && bad.empty(); ++e) w |= static_cast<std::uint32_t>(smem[at + e] & 0xff) << (8 * e);
            return w;
          };
          std::uint32_t w[4] = {};
          switch (p.segs) {
            case 3: box_seg_gather<3>(p, gtab.data(), base, from, word, w); break;
            case 5: box_seg_gather<5>(p, gtab.data(), base, from, word, w); break;
            default: return "a segment length without a kernel";
          }
          if (!bad.empty()) return bad;
          if (s != 1 || p.out_fast_pitch != 1 || p.out_fast_t != p.segs) return "segments planned off a byte row copy";
          for (int i = lo; i < hi; ++i) {
            const int at = box_phys(p, base + box_gtab_of(p, from + i));
            if (smem[at] < 0) return fmt::format("tile {}: shared byte {} read holding no run byte", t, at);
            const auto got = static_cast<unsigned char>(w[i / 4] >> (8 * (i % 4)));
            if (got != static_cast<unsigned char>(smem[at]))
              return fmt::format("segment gather, element {} of the chunk from {}: {} where the table says {}", i, from,
                                 int{got}, smem[at] & 0xff);
            if (!io.put(rs + std::int64_t{from + i}, got)) return "a store outside the output";
          }
          continue;
        }
        for (int i = 0; i < V; ++i) {
          const int k = len < V ? std::min(i, len - 1) : i;
          const int b = from + k;
          if (b < 0 || b >= len) return "a gather reads outside its run";
          const int lin = p.wide   ? (k < gw.w ? gw.pre : gw.post) + k * p.out_fast_pitch
                          : len < V ? base + box_gtab_at(p, gtab.data(), b)
                                    : base + span_entry(p, gtab, s, from, i);
          if (lin != base + box_gtab_of(p, b)) return "the gather's address differs from the table's";
          const int at = box_phys(p, lin);
          if (at % s || at < 0 || at + s > p.tile_bytes) return "a shared read outside the tile or unaligned";
          if (i < lo || i >= hi) continue;
          const std::int64_t dst = rs + std::int64_t{from + i} * s;
          for (int e = 0; e < s; ++e) {
            if (smem[at + e] < 0) return fmt::format("tile {}: shared byte {} read holding no run byte", t, at + e);
            if (!io.put(dst + e, static_cast<unsigned char>(smem[at + e]))) return "a store outside the output";
          }
        }
        continue;
      }
      ++element_whole_items;
      const bool vector = first >= 0 && first + 16 <= out_run_bytes;
      if (vector && (out_mis + rs + first) % 16) return "an output vector is not aligned";
      const int b0 = first / s;
      const int base = out_base[r] + sh;
      box_wide g;
      if (vector && p.wide) {
        g = box_wide_of(p, gtab.data(), base, b0, V);
        if (g.w < 1 || g.w > p.out_fast_t) return "wide gather: wrap out of range";
      }
      for (int i = 0; i < V; ++i) {
        const int b = b0 + i;
        if (b < 0 || b * s >= out_run_bytes) {
          if (vector) return "a vector reads outside its run";
          continue;
        }
        const int lin = !vector ? base + box_gtab_at(p, gtab.data(), b)
                        : p.wide  ? (i < g.w ? g.pre : g.post) + i * p.out_fast_pitch
                                  : base + span_entry(p, gtab, s, b0, i);
        if (lin != base + box_gtab_of(p, b)) return "the gather's address differs from the table's";
        const int at = box_phys(p, lin);
        if (at % s || at < 0 || at + s > p.tile_bytes) return "a shared read outside the tile or unaligned";
        const std::int64_t dst = rs + first + static_cast<std::int64_t>(i) * s;
        for (int e = 0; e < s; ++e) {
          if (smem[at + e] < 0) return fmt::format("tile {}: shared byte {} read holding no run byte", t, at + e);
          if (!io.put(dst + e, static_cast<unsigned char>(smem[at + e]))) return "a store outside the output";
        }
      }
    }
  }
  return io.verdict();
}

xpose::permute_desc random_desc(std::mt19937_64& rng, int c, bool* strided) {
  const int rank = 2 + static_cast<int>(rng() % 7);
  xpose::permute_desc d;
  d.elem_bytes = 1 << (rng() % 5);
  for (int k = 0; k < rank; ++k)
    d.extents.push_back(1 + static_cast<std::int64_t>(rng() % (rank <= 2 ? 700 : rank <= 3 ? 90 : rank <= 5 ? 14 : 6)));
  d.perm.resize(rank);
  for (int k = 0; k < rank; ++k) d.perm[k] = k;
  std::shuffle(d.perm.begin(), d.perm.end(), rng);
  if (c % 5 == 0) std::swap(d.perm.back(), *std::find(d.perm.begin(), d.perm.end(), rank - 1));  // a row copy
  *strided = c % 4 == 0;
  if (*strided) {  // padded input strides
    d.in_strides.resize(rank);
    std::int64_t st = 1;
    for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + static_cast<std::int64_t>(rng() % 3);
  }
  return d;
}

TEST(BoxTile, RandomPermutationsMoveEveryElementOnce) {
  std::mt19937_64 rng(20261201);
  int planned = 0, cut_both = 0, strided = 0, row_copies = 0, swizzled = 0, words = 0, wide = 0, narrow = 0;
  int word_gather = 0, exact_chunks = 0, whole_form = 0, raw = 0, raw_shifted = 0, first = 0, paneled = 0;
  int owned = 0, owned_wide = 0, owned_small = 0;  // owned ends, with a one-dim output run, by slices of under 16 B
  const long whole_before = element_whole_items, converged_before = element_converged_items;
  for (int c = 0; c < 900; ++c) {
    bool padded = false;
    const xpose::permute_desc d = random_desc(rng, c, &padded);
    std::int64_t count = 1;
    for (auto e : d.extents) count *= e;
    if (count > 200000) continue;
    const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    if (xpose::detail::classify(pr) == xpose::detail::problem_class::kCopy) continue;
    box_params p;
    const char* reason = "";
    if (!box_plan(pr, &p, &reason)) {
      // Only a side without a unit-stride dim (padded strides over a short fastest dim) or a
      // rank-1 problem may be refused.
      EXPECT_TRUE(pr.rank < 2 || std::string(reason).find("unit-stride") != std::string::npos) << reason;
      continue;
    }
    const int eb = d.elem_bytes;
    const int in_mis = static_cast<int>(rng() % (16 / eb));
    const int out_mis = c % 3 == 1 ? 0 : static_cast<int>(rng() % (16 / eb));  // 0: box_out_chunks may walk fewer
    SCOPED_TRACE(fmt::format("case {}: {} elem {} misaligned {}/{}: box volume {}, runs {}/{} elements, row {} B{}",
                             c, pr.describe(), eb, in_mis, out_mis, p.volume, p.run_in, p.run_out, p.row_bytes,
                             p.swizzle == kBoxWords ? " words" : p.swizzle ? " granules" : ""));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 77 + c), "");
    if (const int k = input_seam_dim(p); k != kPackedNoDim && p.tiles / p.ntiles[k] > 2) {
      auto q = p;
      number_in_panels(q, k, 2 + c % 3);  // panels of 2-4 (set_tile_order picks them for large tensors only)
      paneled += q.panel.full_r * q.panel.nk < q.tiles;
      ASSERT_EQ(emulate(d, q, in_mis, out_mis, 77 + c), "") << "in panels of " << q.panel.w;
    }
    ++planned;
    cut_both += p.cut_a != kPackedNoDim && p.cut_b != kPackedNoDim;
    strided += padded;
    row_copies += xpose::detail::classify(pr) == xpose::detail::problem_class::kRowCopy;
    swizzled += p.swizzle == kBoxGranules;
    words += p.swizzle == kBoxWords && !p.vec_rows;
    wide += p.wide;
    narrow += !p.wide;
    word_gather += p.words;
    if (eb > 1) EXPECT_FALSE(p.words) << "the word gather runs bytes only (kWordGatherMaxElem)";
    exact_chunks += p.out_aligned && out_mis == 0;
    whole_form += !p.words && !box_store_converged(p, eb, out_mis * eb);
    raw += p.raw;
    raw_shifted += p.raw && in_mis != 0;
    first += p.tile_first != kPackedNoDim;
    owned += p.halo > 0;
    owned_wide += p.halo > 0 && p.out_run_dims == 1;
    owned_small += p.halo > 1;
  }
  EXPECT_GT(planned, 500);
  EXPECT_GT(first, 15);  // tiles numbered along an input dim first (tile_first_dim)
  EXPECT_GT(paneled, 30);  // and in panels with a partial last one
  // Each kind the kernel treats apart must be common enough to be tested here.
  EXPECT_GT(cut_both, 8);
  EXPECT_GT(strided, 50);
  EXPECT_GT(row_copies, 50);
  EXPECT_GT(swizzled, 15);
  // The word swizzle: word-gather boxes (WordGatherRandomPermutations has many more) and the
  // element gather's boxes that no raw layout fits, even shrunk (shrink_for_raw).
  EXPECT_GT(words, 1);
  EXPECT_GT(wide, 50);
  EXPECT_GT(narrow, 50);
  EXPECT_GT(word_gather, 2);  // most of its cases are in WordGatherRandomPermutations
  EXPECT_GT(raw, 200);  // raw rows (box_tile.hpp), at shifted pointers too
  EXPECT_GT(raw_shifted, 100);
  EXPECT_GT(exact_chunks, 20);
  // Both forms of the element store (box_store_converged), each over many chunks.
  EXPECT_GT(whole_form, 20);
  // Owned output ends (box_tile.hpp), with a one-dim output run and with halos of several slices:
  // 27, 18 and 15 of 748 when written. OwnedEndsOnSuiteShapes has the word gather's.
  EXPECT_GT(owned, 15);
  EXPECT_GT(owned_wide, 8);
  EXPECT_GT(owned_small, 8);
  EXPECT_GT(element_whole_items - whole_before, 10000);
  EXPECT_GT(element_converged_items - converged_before, 10000);
}

// The word gather's domain (box_tile.hpp): 1-byte elements whose input-fastest dim is not
// the output's fastest and whose output dims past it make whole 16-byte strides (the output's
// fastest extent a multiple of 16 / s). The input's fastest extent is any (groups of fewer runs at
// its end where it is odd).
TEST(BoxTile, WordGatherRandomPermutations) {
  std::mt19937_64 rng(20261130);
  int planned = 0, gathered = 0, partial = 0, wide = 0, narrow = 0, swizzled = 0, cut = 0, exact = 0, whole_form = 0;
  int shifted = 0, shifted_phase = 0;  // raw rows' word gather, and at a tile shift off whole words
  const long whole_before = whole_chunk_items, converged_before = converged_items;
  for (int c = 0; c < 600; ++c) {
    const int rank = 2 + static_cast<int>(rng() % 4);
    xpose::permute_desc d;
    d.elem_bytes = 1;
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    do std::shuffle(d.perm.begin(), d.perm.end(), rng);
    while (d.perm.back() == rank - 1);
    for (int k = 0; k < rank; ++k) d.extents.push_back(2 + static_cast<std::int64_t>(rng() % (rank <= 3 ? 20 : 6)));
    d.extents[d.perm.back()] = 16 / d.elem_bytes * (1 + static_cast<std::int64_t>(rng() % 4));
    if (c % 4 == 1 && d.perm[rank - 2] != rank - 1) {  // an output-fastest dim under a chunk (not "wide")
      d.extents[d.perm[rank - 2]] = d.extents[d.perm.back()];
      d.extents[d.perm.back()] = 2 + static_cast<std::int64_t>(rng() % (16 / d.elem_bytes - 2));
    }
    d.extents[rank - 1] = 2 + static_cast<std::int64_t>(rng() % (rank > 3 ? 24 : rank == 3 ? 150 : 1200));
    if (c % 3 == 0) {  // padded input strides
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + (k == rank - 1 ? 0 : static_cast<std::int64_t>(rng() % 3));
    }
    std::int64_t count = 1;
    for (auto e : d.extents) count *= e;
    if (count > 300000) continue;
    const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(pr, &p, &reason)) << reason;
    const int eb = d.elem_bytes;
    const int in_mis = static_cast<int>(rng() % (16 / eb));
    const int out_mis = c % 3 == 1 ? 0 : static_cast<int>(rng() % (16 / eb));  // 0: box_out_chunks may walk fewer
    SCOPED_TRACE(fmt::format("case {}: {} elem {} misaligned {}/{}: box volume {}, runs {}/{}, groups of {} x {} runs",
                             c, pr.describe(), eb, in_mis, out_mis, p.volume, p.run_in, p.run_out, p.wg_n, p.groups));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 900 + c), "");
    ++planned;
    gathered += p.words;
    partial += p.words && p.wg_t0 % p.wg_n != 0;
    wide += p.words && p.wide;
    narrow += p.words && !p.wide;
    swizzled += p.words && p.swizzle != kBoxPlain;
    cut += p.words && (p.cut_a != kPackedNoDim || p.cut_b != kPackedNoDim);
    exact += p.words && p.out_aligned && out_mis == 0;
    whole_form += p.words && !box_store_converged(p, eb, out_mis * eb);
    shifted += p.words_shift;
    shifted_phase += p.words_shift && in_mis % 4 != 0;
  }
  EXPECT_GT(planned, 150);
  // The planner takes the word gather's box in about a sixth of these (it depends on
  // kWordGatherGain): elsewhere a box whose output run includes d0 scored higher.
  EXPECT_GT(planned, 590);  // a few exceed the element count
  EXPECT_GT(gathered, 80);
  EXPECT_GT(partial, 5);
  EXPECT_GT(wide, 60);
  EXPECT_GT(narrow, 8);
  EXPECT_GT(swizzled, 40);
  EXPECT_GT(cut, 8);
  EXPECT_GT(exact, 10);
  // Both forms of the word store (box_store_converged), each over many chunks.
  EXPECT_GT(whole_form, 10);
  EXPECT_LT(whole_form, gathered - 10);
  EXPECT_GT(whole_chunk_items - whole_before, 1000);
  EXPECT_GT(converged_items - converged_before, 1000);
}

// The shifted word gather (box_tile.hpp, raw rows of bytes): the input's fastest dim short and
// odd beside another input-run dim, so a group's bytes start anywhere in a shared word, the output
// run along slower dims whose input strides are whole words. Every box emulated at every pointer
// misalignment; the shifted gather is taken in about one in eight, at every byte phase.
TEST(BoxTile, ShiftedWordGatherRandomPermutations) {
  std::mt19937_64 rng(20261203);
  int planned = 0, shifted = 0, partial = 0, wide = 0, narrow = 0, converged = 0, whole = 0;
  std::array<int, 4> phases{};  // groups' byte phases seen at tile 0
  for (int c = 0; c < 600; ++c) {
    const int rank = 3 + static_cast<int>(rng() % 4);
    xpose::permute_desc d;
    d.elem_bytes = 1;
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    // The output's fastest dim is an outer input dim; the input's two fastest are not the output's.
    // So are the output's next fastest, mostly.
    do std::shuffle(d.perm.begin(), d.perm.end(), rng);
    while (d.perm.back() >= rank - 2 || (rank > 3 && c % 5 != 0 && d.perm[rank - 2] >= rank - 2));
    for (int k = 0; k < rank; ++k) d.extents.push_back(2 + static_cast<std::int64_t>(rng() % (rank <= 4 ? 8 : 4)));
    d.extents[rank - 1] = 3 + 2 * static_cast<std::int64_t>(rng() % 10);       // odd: 3 .. 21
    d.extents[d.perm.back()] = 16 * (4 + static_cast<std::int64_t>(rng() % 12));  // whole output chunks
    if (c % 4 == 1) d.extents[d.perm.back()] = 40 + static_cast<std::int64_t>(rng() % 160);  // any
    if (c % 4 == 2) {  // an output-fastest dim under a chunk (the gather not "wide")
      d.extents[d.perm.back()] = 4 + static_cast<std::int64_t>(rng() % 11);
      d.extents[d.perm[rank - 2]] = 16 + static_cast<std::int64_t>(rng() % 48);
    }
    // Input strides: whole words past the two fastest dims (padded or not), so the output run's
    // dims have whole-word pitches in the raw layout.
    d.in_strides.resize(rank);
    std::int64_t st = 1;
    for (int k = rank - 1; k >= 0; --k) {
      if (k == rank - 3) st = (st + 3) / 4 * 4 + 4 * static_cast<std::int64_t>(rng() % 2);
      d.in_strides[k] = st, st *= d.extents[k];
    }
    std::int64_t count = 1;
    for (auto e : d.extents) count *= e;
    if (count > 200000) continue;
    const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(pr, &p, &reason)) << reason;
    const int in_mis = static_cast<int>(rng() % 16);
    const int out_mis = c % 3 == 1 ? 0 : static_cast<int>(rng() % 16);
    SCOPED_TRACE(fmt::format("case {}: {} misaligned {}/{}: box volume {}, runs {}/{}, groups of {} x {} runs{}", c,
                             pr.describe(), in_mis, out_mis, p.volume, p.run_in, p.run_out, p.wg_n, p.groups,
                             p.words_shift ? " shifted" : ""));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 5000 + c), "");
    ++planned;
    if (!p.words_shift) continue;
    ++shifted;
    partial += p.wg_t0 % p.wg_n != 0;
    wide += p.wide;
    narrow += !p.wide;
    converged += box_store_converged(p, 1, out_mis);
    whole += !box_store_converged(p, 1, out_mis);
    for (int gi = 0; gi < p.groups; ++gi) ++phases[(box_run_of(p, false, box_group_of(p, gi).run0).base + in_mis) % 4];
  }
  EXPECT_GT(planned, 500);
  EXPECT_GT(shifted, 60);  // elsewhere the output run takes an input-run dim, or d0
  EXPECT_GT(partial, 50);
  EXPECT_GT(wide, 50);
  EXPECT_GT(narrow, 2);
  EXPECT_GT(converged, 30);
  EXPECT_GT(whole, 15);
  for (int f = 0; f < 4; ++f) EXPECT_GT(phases[f], 200) << "byte phase " << f;
}

// The i8 suite's shapes that take the shifted word gather, cut down as GpuRandom.
// PermuteBoxShiftedWords runs them on the GPU (test_util.hpp): they still plan it.
TEST(BoxTile, ShiftedWordGatherOnSuiteShapes) {
  for (const auto& d : xpose::test::shifted_word_suite_shapes()) {
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    EXPECT_TRUE(p.raw && p.words && p.words_shift) << fmt::format("{}", fmt::join(d.extents, ","));
  }
}

// The segment gather (box_segments.hpp) on byte row copies whose rows are 3 or 5 bytes: random
// shapes, padded inputs and every layout box_plan gives them (plain and granule-swizzled, raw rows
// at any shift), and three suite shapes cut down; rows of 7 bytes keep the element gather. The emulation gathers each chunk's words through
// box_seg_gather and checks every byte against the table's, every word inside the tile.
TEST(BoxTile, SegmentGatherOnByteRowCopies) {
  std::mt19937_64 rng(20261207);
  int planned = 0, segs = 0, granules = 0, plain = 0, raw = 0, by_len[8] = {};
  const long items_before = segment_items;
  auto run = [&](const xpose::permute_desc& d, int c) {
    const problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(pr, &p, &reason)) << reason;
    const int in_mis = static_cast<int>(rng() % 16), out_mis = c % 4 == 1 ? 0 : static_cast<int>(rng() % 16);
    SCOPED_TRACE(fmt::format("case {}: {} misaligned {}/{}: box volume {}, runs {}/{}, rows of {} B{}{}", c,
                             pr.describe(), in_mis, out_mis, p.volume, p.run_in, p.run_out, p.segs,
                             p.swizzle == kBoxGranules ? ", granules" : "", p.raw ? ", raw" : ""));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 500 + c), "");
    ++planned;
    segs += p.segs > 0;
    granules += p.segs && p.swizzle == kBoxGranules;
    plain += p.segs && p.swizzle == kBoxPlain;
    raw += p.segs && p.raw;
    if (p.segs) ++by_len[p.segs];
  };
  for (int c = 0; c < 450; ++c) {
    const int rank = 3 + static_cast<int>(rng() % 4);
    xpose::permute_desc d;
    d.elem_bytes = 1;
    d.perm.resize(rank);
    for (int k = 0; k < rank; ++k) d.perm[k] = k;
    do std::shuffle(d.perm.begin(), d.perm.end() - 1, rng);
    while (std::is_sorted(d.perm.begin(), d.perm.end()));
    for (int k = 0; k < rank; ++k) d.extents.push_back(2 + static_cast<std::int64_t>(rng() % (rank <= 3 ? 300 : rank == 4 ? 40 : 12)));
    d.extents[rank - 1] = 3 + static_cast<std::int64_t>(rng() % 5);  // rows of 3 to 7 bytes (4 and 6 widen)
    if (c % 3 == 0) {  // padded input strides
      d.in_strides.resize(rank);
      std::int64_t st = 1;
      for (int k = rank - 1; k >= 0; --k) d.in_strides[k] = st, st *= d.extents[k] + static_cast<std::int64_t>(rng() % 3);
    }
    std::int64_t count = 1;
    for (auto e : d.extents) count *= e;
    if (count > 300000) continue;
    run(d, c);
  }
  // i8 [913044,98,3], [721600,124,3,1] and [4,24,19,23,24,25,16,5] of the suite, smaller; and
  // [1192,14,9,17,15,7], whose rows of 7 bytes keep the element gather (box_segments.hpp).
  const std::vector<xpose::permute_desc> suite = {
      {{3000, 98, 3}, {1, 0, 2}, 1, {}},
      {{3000, 124, 3, 1}, {1, 0, 2, 3}, 1, {}},
      {{2, 6, 19, 23, 4, 25, 4, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 1, {}},
      {{28, 14, 9, 17, 15, 7}, {1, 4, 3, 0, 2, 5}, 1, {}},
  };
  const int rows[] = {3, 3, 5, 0};
  for (std::size_t i = 0; i < suite.size(); ++i) {
    for (int k = 0; k < 4; ++k) run(suite[i], 1000 + 4 * static_cast<int>(i) + k);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(suite[i])), &p, &reason)) << reason;
    EXPECT_EQ(p.segs, rows[i]) << fmt::format("{}", fmt::join(suite[i].extents, ","));
  }
  EXPECT_GT(planned, 200);
  // Many of these boxes take it (not rows of 4, 6 or 7 bytes, nor wide boxes or owned ends), in both
  // layouts, at each length.
  EXPECT_GT(segs, planned / 4);
  EXPECT_GT(granules, 10);
  EXPECT_GT(plain, 10);
  EXPECT_GT(raw, 40);
  for (int L : {3, 5}) EXPECT_GT(by_len[L], 20) << "rows of " << L;
  for (int L : {4, 6, 7}) EXPECT_EQ(by_len[L], 0) << "rows of " << L;
  EXPECT_GT(segment_items - items_before, 10000);
}

// Owned output ends (box_tile.hpp) on the suite's slowest i8 / f16 shapes with a smaller slowest
// dim: the word gather with a halo of one slice (i8 [776,12,21,3,8,19,3]) and of three (the i8
// reversal [92,201,168,85], 85-byte slices), the element gather with one of two (f16). Each is
// emulated at several pointer misalignments: every output byte once, pieces only at the longer
// runs' own ends.
TEST(BoxTile, OwnedEndsOnSuiteShapes) {
  struct owned_case {
    std::vector<std::int64_t> extents;
    std::vector<int> perm;
    int elem_bytes, halo;
    bool words;
    int compact;  // the compact halo's rows (0: whole slices)
  };
  const owned_case cases[] = {
      {{16, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 1, 1, true, 0},
      {{6, 50, 168, 85}, {3, 2, 1, 0}, 1, 3, true, 0},
      {{4, 50, 168, 85}, {3, 2, 1, 0}, 2, 2, false, 0},
      // Compact halos (slices half the box): the i8 and f16 reversals.
      {{92, 6, 20, 85}, {3, 2, 1, 0}, 1, 1, true, 15},
      {{46, 10, 100, 85}, {3, 2, 1, 0}, 2, 1, false, 7},
      // The box planned again within less room for its halo (kBoxHaloRoomKiB), as f16
      // [388,12,21,3,8,19,3]: 3x19x2x21x6 and a slice of halo where 3x19x4x21x4 did not fit one.
      {{28, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 2, 1, false, 0},
  };
  for (const auto& k : cases) {
    xpose::permute_desc d;
    d.extents = k.extents, d.perm = k.perm, d.elem_bytes = k.elem_bytes;
    const std::string box = fmt::format("{} elem {}", fmt::join(d.extents, ","), d.elem_bytes);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    EXPECT_EQ(p.halo, k.halo) << box;
    EXPECT_EQ(p.words, k.words) << box;
    EXPECT_EQ(p.halo_f != kPackedNoDim ? p.halo_rows : 0, k.compact) << box;
    const int V = 16 / k.elem_bytes;
    for (int mis = 0; mis < V; mis += 5) EXPECT_EQ(emulate(d, p, mis, (mis * 7 + 3) % V, 31 + mis), "") << box;
  }
}

// The suite's worst cases for permute_packed and permute_runs (i8 at 7-17% of copy, runs of 24-80 B
// or boxes of 1-2 KB): boxes of 6 KiB and more with runs of 64 B and more on both sides (most get
// 128 B and more; the score trades a run's length against its tile's edge waste).
TEST(BoxTile, OddSuiteCasesGetLongRunsBothWays) {
  struct c { std::vector<std::int64_t> ext; std::vector<int> perm; };
  const std::vector<c> cases = {
      {{4, 24, 19, 23, 24, 25, 16, 5}, {2, 1, 4, 0, 6, 5, 3, 7}},
      {{52, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}},
      {{1851276, 29, 5}, {1, 0, 2}},
      {{29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}},
      {{24, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}},
  };
  for (const auto& k : cases)
    for (const int eb : {1, 2}) {  // the i8 suite's extents; f16 halves the slowest dim, as the suite
      std::vector<std::int64_t> ext = k.ext;
      ext[0] /= eb;
      const xpose::permute_desc d = xpose::test::pdesc(ext, k.perm, eb);
      box_params p;
      const char* reason = "";
      ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
      const std::string box = fmt::format("i{}: {} box {} runs {}/{}", 8 * eb, fmt::join(ext, ","),
                                          fmt::join(p.t, p.t + p.rank, "x"), p.run_in, p.run_out);
      EXPECT_GE(p.run_in * eb, 64) << box;
      EXPECT_GE(p.run_out * eb, 64) << box;
      EXPECT_GE(p.volume * eb, 6144) << box;
      EXPECT_LE(p.smem_bytes, box_budget(p));
    }
}

// Batches of byte matrices of 4-8 KiB: the box grows over several matrices (kMinBoxBytes) with
// one output run per matrix (its table of up to 2 * kMaxGatherEntries entries), where a 4096-entry
// cap had kept one matrix a box, and by a smaller factor where the one the volume lacks does not fit;
// every element moved once at any alignment.
TEST(BoxTile, SmallMatricesGrowWithARunPerMatrix) {
  struct c { std::vector<std::int64_t> ext; std::vector<int> perm; int matrices; };
  const std::vector<c> cases = {
      {{4, 6, 107, 52}, {0, 1, 3, 2}, 3},  // the i8 suite's [788,61,107,52]: 5564-byte matrices
      {{20, 75, 70}, {0, 2, 1}, 4},
      {{17, 61, 83}, {0, 2, 1}, 4},
      {{9, 83, 85}, {0, 2, 1}, 2},  // 7055 B: pairs (triples would not fit the budget)
  };
  for (const auto& k : cases) {
    const xpose::permute_desc d = xpose::test::pdesc(k.ext, k.perm, 1);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    const std::int64_t matrix = k.ext[k.ext.size() - 1] * k.ext[k.ext.size() - 2];
    const std::string box = fmt::format("{} box {} runs {}/{}", fmt::join(k.ext, ","), fmt::join(p.t, p.t + p.rank, "x"),
                                        p.run_in, p.run_out);
    EXPECT_EQ(p.volume, k.matrices * matrix) << box;
    EXPECT_EQ(p.run_out, matrix) << box;
    EXPECT_LE(p.smem_bytes, box_budget(p)) << box;
    for (int mis = 0; mis < 16; mis += 5) EXPECT_EQ(emulate(d, p, mis, (mis * 7) % 16, 11 + mis), "") << box;
  }
}

// Boxes under 24 KiB (kSmallBoxBytes) are planned again aiming at twice kMinBoxBytes, and take
// that box where it is at least 1.5 times as large with the same swizzle and elements of at most 8
// bytes (suite cases, as measured on the H200); the others keep the first box. Every element of the
// grown boxes moves once (extents cut down, the box the same).
TEST(BoxTile, SmallBoxesPlannedAgainWithTwiceTheTarget) {
  struct c { std::vector<std::int64_t> ext; std::vector<int> perm; int eb; int bytes; std::int64_t small0; };
  const std::vector<c> cases = {
      {{12, 15, 17, 4, 9, 6, 13, 14}, {3, 0, 1, 2, 7, 4, 6, 5}, 2, 39312, 2},   // 19656 B before
      {{6, 15, 17, 4, 9, 6, 13, 14}, {3, 0, 1, 2, 7, 4, 6, 5}, 4, 13104, 2},    // 39312 B raw: kRawWideBudget
      {{22, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 2, 35880, 0},  // 17940 B before
      {{6, 15, 17, 4, 9, 6, 13, 14}, {3, 0, 1, 2, 7, 4, 6, 5}, 16, 17472, 0},   // 16-byte elements
      {{2, 24, 19, 23, 24, 25, 16, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 2, 18400, 0},  // the swizzle would change
      {{1393, 15, 13, 13, 19}, {3, 0, 1, 2, 4}, 8, 17784, 0},                   // 27664 B raw: kRawWideBudget
  };
  for (const auto& k : cases) {
    box_params p;
    const char* reason = "";
    const xpose::permute_desc d = xpose::test::pdesc(k.ext, k.perm, k.eb);
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    const std::string box = fmt::format("{} x{} B: box {}", fmt::join(k.ext, ","), k.eb, fmt::join(p.t, p.t + p.rank, "x"));
    EXPECT_EQ(p.volume * k.eb, k.bytes) << box;
    if (k.small0 > 0) {  // the same box on a tensor of a few boxes: every element moved once
      std::vector<std::int64_t> ext = k.ext;
      ext[0] = k.small0;
      const xpose::permute_desc ds = xpose::test::pdesc(ext, k.perm, k.eb);
      box_params q;
      ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(ds)), &q, &reason)) << reason;
      EXPECT_EQ(q.volume, p.volume) << box;
      for (int mis = 0; mis < 16; mis += 7) EXPECT_EQ(emulate(ds, q, mis, (mis * 5) % 16, 3 + mis), "") << box;
    }
  }
}

// Raw boxes of 4- to 8-byte elements over kRawWideBudget bytes are planned again within it (box_plan):
// the suite's f64 [462819,29,5] perm 1,0,2 goes from a 30160-byte box to an 18560-byte one; a raw box
// already under the budget (f64 [22,12,5,21,6,20,20]) and halves keep theirs. The smaller tensors'
// boxes move every element once, at shifted pointers too.
TEST(BoxTile, RawBoxesOfWideElementsKeepWithinTheirBudget) {
  struct c { std::vector<std::int64_t> ext; std::vector<int> perm; int eb; int bytes; };  // bytes: 0, within
  const std::vector<c> cases = {
      {{462819, 29, 5}, {1, 0, 2}, 8, 0},
      {{2000, 29, 5}, {1, 0, 2}, 4, 0},
      {{97, 127, 23}, {1, 0, 2}, 8, 0},
      {{22, 12, 5, 21, 6, 20, 20}, {5, 2, 4, 0, 3, 6, 1}, 8, 19200},
      {{1384, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 2, 29410},  // 33660 B without room for a halo (kBoxHaloRoomKiB)
  };
  for (const auto& k : cases) {
    const xpose::permute_desc d = xpose::test::pdesc(k.ext, k.perm, k.eb);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    const std::string box = fmt::format("{} x{} B: box {} ({} B)", fmt::join(k.ext, ","), k.eb,
                                        fmt::join(p.t, p.t + p.rank, "x"), p.volume * k.eb);
    EXPECT_TRUE(p.raw) << box;
    if (k.bytes == 0) EXPECT_LE(p.smem_bytes, 20 * 1024) << box;
    else EXPECT_EQ(p.volume * k.eb, k.bytes) << box;
    std::int64_t count = 1;
    for (auto e : k.ext) count *= e;
    if (count > 400000) continue;  // the suite's own size: its box alone is checked
    for (int mis = 0; mis < 16 / k.eb; mis += 1 + 3 / k.eb)
      EXPECT_EQ(emulate(d, p, mis, (mis * 3) % (16 / k.eb), 11 + mis), "") << box;
  }
}

// Bulk rows (box_tile.cpp kBoxBulkMaxElem, kRawAsyncWeight): raw, unswizzled rows of 1- and 2-byte
// elements, and only those, are brought in by one bulk copy per row. The bank model weighs raw
// rows' cp.async stores where bulk rows are the alternative, which moves boxes measured faster with
// plain bulk rows off the granule swizzle and keeps it on those whose unswizzled column walks
// conflict (H200, docs/performance.md, forty-ninth session). Every box is emulated too.
TEST(BoxTile, BulkRowsForRawUnswizzledBytesAndHalves) {
  struct c {
    std::vector<std::int64_t> ext;
    std::vector<int> perm;
    int eb;
    int bulk;  // 1 / 0: what the plan must say; -1: whatever the rule gives
  };
  const std::vector<c> cases = {
      {{3268, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1, 1},          // plain bulk rows: +9 points
      {{1242, 25, 18, 6, 10, 4}, {4, 2, 0, 3, 5, 1}, 2, 1},         // +10
      {{14524, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 2, 0},          // unswizzled: -31; keeps granules
      {{29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1, 0},          // -15
      {{1851276, 29, 5}, {1, 0, 2}, 1, 1},
      {{462819, 29, 5}, {1, 0, 2}, 4, 0},                           // 4-byte elements: cp.async
      {{24, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, 2, -1},
      // Small enough to emulate at several pointer misalignments.
      {{4, 8, 6, 18, 19, 5}, {2, 5, 0, 4, 3, 1}, 1, 1},
      {{12, 25, 18, 6, 10, 4}, {4, 2, 0, 3, 5, 1}, 2, 1},
      {{2000, 29, 5}, {1, 0, 2}, 1, 1},
      {{2000, 29, 5}, {1, 0, 2}, 2, 1},
  };
  for (const auto& k : cases) {
    const xpose::permute_desc d = xpose::test::pdesc(k.ext, k.perm, k.eb);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    const std::string box = fmt::format("{} x{} B: raw {} swizzle {} bulk {}", fmt::join(k.ext, ","), k.eb, p.raw,
                                        p.swizzle, p.bulk);
    EXPECT_EQ(p.bulk != 0, p.raw && p.swizzle == kBoxPlain && k.eb <= 2) << box;
    if (k.bulk >= 0) EXPECT_EQ(p.bulk, k.bulk) << box;
    std::int64_t count = 1;
    for (auto e : k.ext) count *= e;
    if (count > 400000) continue;  // a suite size: its plan alone is checked
    for (int mis = 0; mis < 16 / k.eb; mis += 1 + 3 / k.eb)
      EXPECT_EQ(emulate(d, p, mis, (mis * 5) % (16 / k.eb), 7 + mis), "") << box;
  }
}

TEST(BoxTile, TwoDimTransposeAtEveryMisalignment) {
  xpose::permute_desc d = xpose::test::pdesc({301, 173}, {1, 0});
  for (const int eb : {1, 2, 4, 8, 16}) {
    d.elem_bytes = eb;
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    for (int mis = 0; mis < 16 / eb; ++mis) EXPECT_EQ(emulate(d, p, mis, (mis * 3) % (16 / eb), 5 + mis), "") << eb;
  }
}

// Which boxes take raw rows (box_tile.hpp): the element gather of 1- to 8-byte elements where a raw
// layout fits; not the word gather, not 16-byte elements. Suite cases of the thirty-fifth session
// (docs/performance.md), with each side's layout rules checked.
TEST(BoxTile, RawRowsWhereTheElementGatherRuns) {
  struct want {
    xpose::permute_desc d;
    bool raw;
  };
  const want cases[] = {
      {xpose::test::pdesc({1472, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 1), true},  // 33.8 -> 45.0% of copy
      {xpose::test::pdesc({736, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 2), true},   // 58.0 -> 84.7
      {xpose::test::pdesc({128561, 174, 3}, {0, 2, 1}, 4), true},                   // 71.9 -> 87.0
      {xpose::test::pdesc({298, 14, 9, 17, 15, 7}, {1, 4, 3, 0, 2, 5}, 8), true},   // 65.7 -> 77.7
      {xpose::test::pdesc({92, 201, 168, 85}, {3, 2, 1, 0}, 1), true},              // the word gather, shifted (kBoxWordsMaxSmem)
      {xpose::test::pdesc({29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1), true},   // shrunk: 34.9 -> 41.6; shifted words
      {xpose::test::pdesc({32, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, 2), true},  // was the word gather
      {xpose::test::pdesc({683, 11, 25, 21, 17}, {4, 0, 1, 2, 3}, 16), false},      // 16-byte elements
  };
  for (const want& w : cases) {
    SCOPED_TRACE(fmt::format("{} x{} B", fmt::join(w.d.extents, ","), w.d.elem_bytes));
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(w.d)), &p, &reason)) << reason;
    EXPECT_EQ(p.raw != 0, w.raw);
    if (!p.raw) continue;
    if (p.words) EXPECT_TRUE(p.words_shift) << "raw rows take the word gather shifted only";
    EXPECT_NE(p.swizzle, kBoxWords);
    EXPECT_EQ(p.nc_in, (p.run_in * w.d.elem_bytes + 30) / 16);  // up to 15 more bytes at each end
    for (int r = 0; r < p.runs_in; ++r) {  // congruent to the input mod 16, and no chunk shared
      const box_run run = box_run_of(p, true, r);
      EXPECT_EQ((run.base - run.off * w.d.elem_bytes) % 16, 0) << "row " << r;
      if (r + 1 < p.runs_in)
        EXPECT_GE(box_run_of(p, true, r + 1).base - run.base, p.run_in * w.d.elem_bytes + 15) << "row " << r;
    }
  }
}

// Boxes of many short input rows whose raw layout overflows the budget take fewer rows
// (shrink_for_raw): the suite's five such boxes (thirty-sixth session) take raw rows with their
// input runs whole, a box of at least 16 KiB. (RandomPermutationsMoveEveryElementOnce emulates
// raw boxes; these tensors are too large to emulate here.)
TEST(BoxTile, ShrinksBoxesWhoseRawRowsDoNotFit) {
  struct want {
    xpose::permute_desc d;
    int run_in_bytes;
  };
  const want cases[] = {
      {xpose::test::pdesc({29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1), 252},  // words: kBoxWordsMaxSmem
      {xpose::test::pdesc({2172, 20, 11, 11, 17, 3}, {2, 4, 3, 1, 5, 0}, 1), 153},  // 204 without room for a halo
      {xpose::test::pdesc({24, 7, 19, 17, 3, 14, 21, 5}, {7, 6, 0, 4, 3, 2, 5, 1}, 1), 1470},
      {xpose::test::pdesc({372, 25, 19, 14, 18, 6}, {2, 3, 4, 0, 5, 1}, 1), 384},
      {xpose::test::pdesc({1384, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 2), 170},
  };
  for (const want& w : cases) {
    SCOPED_TRACE(fmt::format("{} x{} B", fmt::join(w.d.extents, ","), w.d.elem_bytes));
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(w.d)), &p, &reason)) << reason;
    EXPECT_TRUE(p.raw);
    EXPECT_EQ(p.run_in * w.d.elem_bytes, w.run_in_bytes);
    EXPECT_GE(p.volume * w.d.elem_bytes, 16 * 1024);
    EXPECT_LE(p.smem_bytes, box_budget(p));
  }
}

TEST(BoxTile, RefusesWhatItCannotRun) {
  const char* reason = "";
  box_params p;
  xpose::permute_desc d = xpose::test::pdesc({40, 30, 8}, {1, 0, 2}, 4);
  d.in_strides = {30 * 16, 16, 2};  // no unit-stride input dim
  EXPECT_FALSE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason));
  EXPECT_NE(std::string(reason).find("unit-stride"), std::string::npos) << reason;
  // A tile reaching 2 GiB of input (its offsets are 32-bit): a transpose whose output rows gather
  // input rows 2 GiB apart.
  const xpose::permute_desc tall = xpose::test::pdesc({64, std::int64_t{1} << 28}, {1, 0}, 8);
  EXPECT_FALSE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(tall)), &p, &reason));
  EXPECT_NE(std::string(reason).find("32 bits"), std::string::npos) << reason;
}

// The grid (box_tile.cpp kBoxOneShotBytesPerEntry): one block per tile where the box holds at least
// 16 bytes per table entry its block builds (input rows, output runs, the gather table's run),
// 48 for the word gather on rows laid out by pitch, 8 for 16-byte elements beyond single matrices
// and for raw boxes of 8 KiB and more with the wide gather and runs over at most two dims
// (kBoxOneShotRawWideMinBytes, kBoxOneShotRawWideMaxRunDims);
// suite cases of the forty-third, seventy-first and seventy-second sessions (docs/performance.md),
// with the entries counted here.
TEST(BoxTile, OneBlockPerTileWhereTheBoxPaysForItsTables) {
  struct c { std::vector<std::int64_t> ext; std::vector<int> perm; int eb; bool one_shot; };
  const std::vector<c> cases = {
      {{548, 108, 82, 55}, {3, 2, 0, 1}, 1, true},                      // 58 B per entry
      {{2768, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 1, true},         // the word gather, raw rows
      {{46, 201, 168, 85}, {3, 2, 1, 0}, 2, true},
      {{1393, 15, 13, 13, 19}, {3, 0, 1, 2, 4}, 8, true},
      {{543, 20, 11, 11, 17, 3}, {2, 4, 3, 1, 5, 0}, 16, true},
      {{84, 25, 14, 19, 19, 25}, {5, 4, 3, 0, 1, 2}, 1, true},          // with its halo, 40-48 B per entry
      {{1851276, 29, 5}, {1, 0, 2}, 1, true},                           // 16-32 B per entry
      {{5572, 15, 13, 13, 19}, {3, 0, 1, 2, 4}, 1, false},              // 8-16 B per entry
      {{3480, 3, 17, 21, 18, 4}, {2, 0, 4, 3, 1, 5}, 1, false},         // under 8 B per entry
      {{1472, 6, 22, 6, 10, 23}, {0, 2, 5, 1, 4, 3}, 1, false},         // one 8280-entry output run
      {{24, 18, 22, 13, 3, 14, 2, 24}, {7, 1, 4, 6, 3, 2, 0, 5}, 1, false},  // word gather, pitched rows: 42 B
      {{3623, 7, 2, 21, 21, 3}, {2, 0, 4, 1, 5, 3}, 4, true},           // 4-byte elements too
      {{13, 9, 25, 8, 13, 9, 4, 6}, {4, 1, 3, 0, 6, 2, 7, 5}, 4, true},
      {{7262, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 4, true},            // (auto runs permute_runs)
      {{1742, 3, 17, 21, 18, 4}, {2, 0, 4, 3, 1, 5}, 2, false},         // under 16 B per entry
      {{56775, 197, 6}, {0, 2, 1}, 16, true},                           // 16-byte elements: 8-16 B per entry
      {{9078, 7, 22, 24, 2}, {0, 1, 4, 3, 2}, 16, true},
      {{1978, 17, 3, 7, 19, 2, 5}, {2, 0, 5, 1, 4, 3, 6}, 2, false},     // 2-byte elements at 8-16 B per entry
      {{3342, 122, 47, 7}, {3, 0, 2, 1}, 2, true},                      // but raw rows, the wide gather, 8 KiB+,
      {{7239, 45, 103, 2}, {3, 0, 1, 2}, 8, true},                      // runs over at most two dims
      {{8778, 7, 13, 14, 2, 6}, {0, 5, 2, 4, 1, 3}, 2, false},          // the same with runs over four dims
      {{584, 24, 7, 6, 6, 19}, {2, 0, 1, 4, 3, 5}, 8, false},
      {{2, 10000000}, {1, 0}, 16, false},                               // a single matrix: 16 B per entry
  };
  for (const auto& k : cases) {
    const xpose::permute_desc d = xpose::test::pdesc(k.ext, k.perm, k.eb);
    box_params p;
    const char* reason = "";
    ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
    const std::int64_t entries = std::int64_t{p.runs_in} + p.runs_out + p.gather_run;
    const std::string box = fmt::format("{} x{} B: box {} ({} B, {} table entries)", fmt::join(k.ext, ","), k.eb,
                                        fmt::join(p.t, p.t + p.rank, "x"), p.volume * k.eb, entries);
    EXPECT_EQ(p.one_shot != 0, k.one_shot) << box;
    const bool raw_wide = k.eb >= 2 && p.raw && p.wide && std::int64_t{p.volume} * k.eb >= 8192 &&
                          p.in_run_dims <= 2 && p.out_run_dims <= 2;
    const std::int64_t per_entry = p.words && !p.raw ? 48 : (k.eb == 16 && k.ext.size() > 2) || raw_wide ? 8 : 16;
    EXPECT_EQ(std::int64_t{p.volume} * k.eb >= per_entry * entries, k.one_shot) << box;
  }
}

// The input may span more than 2 GiB (the tile's window is reached through a 64-bit offset, the
// kernel's offsets inside it stay 32-bit): f64's rank-8 suite case, 4 GB, and one strided past 2 GiB.
TEST(BoxTile, PlansInputsOver2GiB) {
  const char* reason = "";
  box_params p;
  const xpose::permute_desc big = xpose::test::pdesc({1, 24, 19, 23, 24, 25, 16, 5}, {2, 1, 4, 0, 6, 5, 3, 7}, 8);
  ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(big)), &p, &reason)) << reason;
  EXPECT_EQ(p.in_span_bytes, std::int64_t{24} * 19 * 23 * 24 * 25 * 16 * 5 * 8);
  EXPECT_LT(16 + p.in_reach_bytes, kBoxMaxWindow);
  xpose::permute_desc strided = xpose::test::pdesc({3, 37, 29, 11}, {0, 2, 3, 1}, 1);
  strided.in_strides = {(std::int64_t{1} << 30) + 4099, 29 * 11, 11, 1};
  ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(strided)), &p, &reason)) << reason;
  EXPECT_GT(p.in_span_bytes, std::int64_t{1} << 31);
}

// A halo whose reach would take a tile's window to 2 GiB: the box is planned without owned ends
// (before the sixty-ninth session's last fix box_plan refused it). f16 [28,12,21,3,8,19,3] takes
// 3x19x2x21x6 and a slice of halo where 3x19x2x21x7 had no room for one (kBoxHaloRoomKiB); its
// halo dim strided so that 5 steps along it keep a tile under the window and 6 do not: the 6-slice
// box without its halo. (The 7-slice box reaches as far as the halo's tile, so it never fits where
// that does not.)
TEST(BoxTile, HaloPastTheWindowDropsTheHalo) {
  const xpose::permute_desc d = xpose::test::pdesc({28, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 2);
  problem pr = xpose::detail::normalize(xpose::detail::to_problem(d));
  const char* reason = "";
  box_params owned, far;
  ASSERT_TRUE(box_plan(pr, &owned, &reason)) << reason;
  ASSERT_EQ(owned.halo, 1);
  const int hd = owned.halo_dim, s = 2;
  ASSERT_EQ(owned.t[hd], 6);
  // The reach without the halo dim, then its stride: 5 steps under the window, 6 past it.
  std::int64_t rest = 16 * owned.nc_in + 32 + 16;
  for (int k = 0; k < pr.rank; ++k)
    if (k != hd) rest += (owned.t[k] - 1) * pr.dims[k].in_stride * s;
  const std::int64_t room = kBoxMaxWindow - rest;
  std::int64_t stride = room / (s * 6) + 8;
  stride += ((pr.dims[hd].in_stride - stride) % 8 + 8) % 8;  // the same 16-byte phase as before
  ASSERT_LT(5 * stride * s, room);
  ASSERT_GE(6 * stride * s, room);
  pr.dims[hd].in_stride = stride;  // the input is only read: the dims slower than hd may overlap it
  ASSERT_TRUE(box_plan(pr, &far, &reason)) << reason;
  EXPECT_EQ(far.halo, 0);
  EXPECT_EQ(far.halo_reach_bytes, 0);
  EXPECT_EQ(far.t[hd], 6);
  EXPECT_LT(16 + std::int64_t{far.in_reach_bytes}, kBoxMaxWindow);
}

// The same box with fewer slices of its halo dim (box_tile.cpp kBoxHaloShrink) where neither it
// nor the room retry has room for the halo: the i8 suite's word box [29048,22,5,2,7,6] (168 slices
// of its halo dim, 42336 B, no room for a halo of 15 slices) takes 157 slices and the halo. The
// whole shape emulated, input and output misaligned.
TEST(BoxTile, HaloShrinkOnSuiteShape) {
  const xpose::permute_desc d = xpose::test::pdesc({29048, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1);
  box_params p;
  const char* reason = "";
  ASSERT_TRUE(box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason)) << reason;
  ASSERT_EQ(p.halo, 15);
  EXPECT_TRUE(p.words);
  EXPECT_EQ(p.t[p.halo_dim], 157);
  EXPECT_LE(p.smem_bytes, box_budget(p));
  EXPECT_EQ(emulate(d, p, 5, 11, 2026), "");
}

}  // namespace

// The compact halo (box_tile.hpp) over random reversals and transposes whose boxes take it: the
// output run is two dims (the input's slowest, whole, and a cut one), and whole slices of the cut
// one would be half the box. Every plan emulated at a random pointer phase.
TEST(BoxTile, CompactHaloRandomShapes) {
  int compact = 0, tried = 0, by_size[4] = {};
  for (int c = 0; c < 4000 && compact < 40; ++c) {
    const xpose::permute_desc d = xpose::test::compact_halo_shape(20261208, c);
    std::int64_t count = 1;
    for (auto e : d.extents) count *= e;
    if (count > 300000) continue;
    ++tried;
    box_params p;
    const char* reason = "";
    if (!box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), &p, &reason) || p.halo_f == kPackedNoDim)
      continue;
    const int V = 16 / d.elem_bytes;
    const int in_mis = c % V, out_mis = (c * 7 + 3) % V;
    SCOPED_TRACE(fmt::format("case {}: {} perm {} elem {} misaligned {}/{}", c, fmt::join(d.extents, ","),
                             fmt::join(d.perm, ","), d.elem_bytes, in_mis, out_mis));
    ASSERT_EQ(emulate(d, p, in_mis, out_mis, 600 + c), "");
    ++compact;
    ++by_size[d.elem_bytes == 1 ? 0 : d.elem_bytes == 2 ? 1 : d.elem_bytes == 4 ? 2 : 3];
  }
  // 40 of 1347 drawn when written: 2, 2, 27 and 9 of 1, 2, 4 and 8 bytes.
  EXPECT_EQ(compact, 40) << tried;
  for (int k = 0; k < 4; ++k) EXPECT_GE(by_size[k], 2) << (1 << k) << "-byte elements";
}
