// permute_box: any permutation with a unit-stride dim on both sides, through boxes whose runs are
// long on both sides (gpu/box_tile.hpp), with aligned 16-byte vectors on both sides for any
// extents, strides and pointer alignment.
//
// Per block, once: the run tables (in_off, in bytes, and in_cut; out_off, out_cut, out_base) and
// the output run's table gtab, in shared memory after the tile: copied from the plan's device copy
// (box_params::tables, built at make_plan by box_tables.cpp), or built by the block.
// Per tile (the block loops over tiles):
//   1. Load: item u = (r, k), r = u / nc_in, is the k-th 16-byte chunk of shared row r, bytes
//      16k .. 16k + 15 of input run r. It comes from the aligned input chunk holding the run's byte
//      16k and, when the run's bytes go past it, the next one, shifted down by the byte's
//      misalignment (funnel_down), and is stored as one 16-byte vector. Consecutive threads take
//      consecutive chunks of a run; each thread issues kBoxLoads items' loads before storing any.
//      A chunk already aligned (in a tile inside the input, rows of whole chunks) goes straight to
//      its row by cp.async instead (copy_chunk_async): no register holds it, so all of a thread's
//      aligned chunks are in flight at once (H200 2026-11-30, the suites by name: mean +0.1 / +0.35
//      points for i8 / f16, +8 on i8 [721600,124,3,1] and [88,12,5,21,6,20,20], +13 on f16
//      [44,12,5,21,6,20,20], two f16 cases 2.5 and 4.3 down; results/box-async-*).
//      Chunks at or past the run's end (la elements at the tensor's edge) and runs outside an edge
//      tile are skipped; loads never leave the input's span (load_chunk).
//      A tile wholly inside the input (all but the first and last few) loads without bounds checks.
//      Raw rows (p.raw, box_tile.hpp; the element gather of 1- to 8-byte elements): item u = (r, k)
//      is the k-th *aligned* input chunk that run r touches, copied as it stands by cp.async to the
//      shared chunk congruent to it; no funnel, no register, every chunk of the tile in flight at
//      once. The gather adds the tile's shift sh to every shared address. The nineteenth session's
//      profile had put the realigning load at 28-42% of the i8 cases' instructions and 44-53% of
//      their stall samples; raw rows lifted the i8 / f16 suite medians by 5-8 points (thirty-fifth
//      session, docs/performance.md). Raw rows under the word swizzle (a chunk's words apart, four
//      4-byte cp.async) ran 3-12 points below plain and granule layouts on most cases: not kept.
//      Bulk rows (p.bulk: raw, unswizzled rows of 1- and 2-byte elements, box_tile.cpp
//      kBoxBulkMaxElem), in a tile inside the input: run r's aligned chunks are one piece of shared
//      memory, brought in by one bulk copy on the copy engine (bulk_ops.cuh) that run r's thread
//      issues after announcing its bytes on an mbarrier; the load phase's closing barrier, thread 0's
//      arrival and a wait on the phase replace the cp.async waits.
//   2. Store: item u = (o, j), o = u / nc (box_out_chunks), is the j-th aligned 16-byte chunk of
//      output run o; element b of the run is the shared element at out_base[o] + gtab[b] (linear;
//      the swizzle applied). Where the output run's fastest dim is at least a chunk long ("wide"),
//      a chunk that does not wrap it reads its elements one pitch apart from one table entry, a
//      chunk that does from two (box_wide_of); otherwise every element's entry is loaded, two
//      entries per table word (box_gtab_word). Chunks inside the run are one 16-byte store, the
//      (at most two) at its ends are written element by element from the same registers.
//      Converged: every chunk gathers V consecutive elements of its run by the same code, from
//      its first element or, at the run's end, from V elements before the run's last (indices are
//      clamped only in runs shorter than a chunk, which is uniform in the block); only the final
//      store differs (chunk_ops.cuh store_run_chunk). The no-wrap shortcut is taken only where the
//      whole warp can. Head and tail chunks used to gather by a path of their own, one
//      table load per element, and chunks that wrap the fastest dim by another: a warp whose 32
//      chunks span a few short runs ran all three paths one after another. Nsight Compute, H200,
//      2026-11-30, i8 [776,12,21,3,8,19,3] perm 6,5,4,1,3,0,2 (147-byte output runs at any
//      alignment): 14.2 active threads per warp, 44 warp-thread instructions per byte (issued
//      instructions x 32 / bytes), against 30.7 and 12.4 for [156,78,144,150] perm 3,1,0,2 (runs of
//      144 B, all chunks whole and wrap-free); results/box-profile-2026-11-30o.log. After it (its
//      first build, results/box-profile-2026-11-30o-converged.log): 24.3 active threads, 237 M
//      instructions instead of 373 M, 512 us instead of 725 us; the suites by
//      name, permute_box +4.3 points on average for i8 (28 of 56 cases by 5-15), +1.7 for f16, a
//      few boxes with long aligned runs 3-6 points down (docs/performance.md, eleventh session).
//      Where every run is whole aligned chunks the converged store only costs (3-6 points on such
//      boxes), so the kernel has both forms, picked per launch (template Converged,
//      box_store_converged): whole chunks take the vector path and edge tiles' head and tail
//      chunks an element path of their own.
//      With the word gather (p.words, 1-byte elements: box_store_words), item u =
//      (g, j) is chunk j of a group of 4 / s runs, gathered as words, in the same two forms. Over
//      raw rows the group's bytes may start anywhere in a word (Shift: two word loads and a funnel
//      per word; i8 suite, forty-second session: 5 boxes, +1 to +3 points where it moved them).
//      With the segment gather (p.segs, template Segs: byte row copies whose rows are 3 or 5
//      bytes, box_segments.hpp), a converged chunk loads each row it touches as the two aligned
//      words that hold it, from the row's table entry, and assembles the chunk by byte permutes and
//      funnel shifts: 12-18 shared loads per chunk instead of 24 (H100: the two suite boxes whose L1
//      pipe was busiest +4.3 and +4.1 points, box_segments.hpp). Runs shorter than a chunk take the
//      element gather.
//   Owned output ends (p.halo > 0, box_tile.hpp; kernels of their own, template Owned): step 1
//      also loads the halo's input rows (the load box; those past the tensor are skipped through
//      box_load_origin), and step 2's converged store gathers over the run and the halo's elements
//      (glen), writing whole the chunk that crosses into the next slice and skipping the one its own
//      slice starts inside of (first_min) unless the tile is the first along halo_dim.
//
// What limits it (H200, Nsight Compute, 2026-11-30, [2048,256,512] perm 2,1,0 i8 at 45-59% of
// copy), before the word gather: instructions. The gather cost about 8 per byte (address, swizzle,
// a byte load and its merge into the vector), the load phase and the items' index arithmetic as
// much again: 16 instructions per byte in all, the issue slots 61% busy with 35% of cycles lacking
// an eligible warp at 4 blocks of 256 threads per SM. Removing the gather's bank conflicts (2.4
// wavefronts per shared load with granule swizzles only, 1.0-1.2 with word swizzles) and its
// per-element table loads moved the median of the i8 suite by a point.
// With the word gather (ninth session): 10.4 instructions per byte, issue slots 50% busy, 47% of
// cycles without an eligible warp, DRAM at 48% (ncu's clocks): latency, not instructions. The
// case ran at 64% of copy before and after, as did the i8 reversals of rank 4 to 8 (62-65%) and
// f16's (72-75%); walking only a run's own chunks (box_out_chunks) and the asynchronous loads did
// not move them either. Not found yet.
//
// Launch geometry: block kBoxThreads; grid = tiles (one block per tile) where box_params::one_shot,
// else min(tiles, resident blocks), each block looping (box_tile.cpp kBoxOneShotBytesPerEntry says
// which and why), the looping blocks claiming tiles in order by a ticket where one is leased
// (tickets.hpp; else block b takes tiles b, b + grid, ...); dynamic shared memory p.smem_bytes (5
// blocks per SM; 4 for the byte word gather and the converged one, fast_variants.cu).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu/box_segments.hpp"
#include "gpu/box_tile.hpp"
#include "gpu/common.cuh"
#include "gpu/kernels/bulk_ops.cuh"
#include "gpu/kernels/chunk_ops.cuh"
#include "gpu/tickets.hpp"

namespace xpose::detail::gpu {

template <int Mode>
__device__ __forceinline__ int box_phys_as(int L) {
  if constexpr (Mode == kBoxGranules) return L ^ ((L >> 3) & 0x70);
  if constexpr (Mode == kBoxWords) return L ^ ((L >> 5) & 0x7c);
  return L;
}

// The word gather's register transpose: w[i] holds element i of the group's G = 4 / S runs (run t's
// in bytes S t .. S t + S - 1); r[t] becomes run t's 16 bytes. Bytes only: box_tile.cpp's
// kWordGatherMaxElem says why halves take the element gather.
template <int S>
__device__ __forceinline__ void box_words_to_runs(const std::uint32_t (&w)[16 / S], uint4 (&r)[4 / S]) {
  static_assert(S == 1, "the word gather runs 1-byte elements (box_tile.cpp, kWordGatherMaxElem)");
  std::uint32_t q[4][4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {  // a 4 x 4 byte transpose of w[4k .. 4k + 3]
    const std::uint32_t a = __byte_perm(w[4 * k], w[4 * k + 1], 0x5140), b = __byte_perm(w[4 * k], w[4 * k + 1], 0x7362);
    const std::uint32_t c = __byte_perm(w[4 * k + 2], w[4 * k + 3], 0x5140),
                        d = __byte_perm(w[4 * k + 2], w[4 * k + 3], 0x7362);
    q[0][k] = __byte_perm(a, c, 0x5410), q[1][k] = __byte_perm(a, c, 0x7632);
    q[2][k] = __byte_perm(b, d, 0x5410), q[3][k] = __byte_perm(b, d, 0x7632);
  }
#pragma unroll
  for (int t = 0; t < 4; ++t) r[t] = make_uint4(q[t][0], q[t][1], q[t][2], q[t][3]);
}

// The store phase with the word gather (box_tile.hpp): item u = (g, j) is chunk j of group g's
// runs, whose chunks start at the same alignment; V words gathered, transposed in registers, and a
// 16-byte store per run (element by element at a run's ends). Two forms (box_store_converged says
// which one a launch takes): Converged, every chunk gathered by one path; else whole chunks by the
// vector path and the few head and tail chunks of edge tiles by an element path of their own.
// Shift (p.words_shift, raw rows): the group's bytes start at any byte phase f of a shared word,
// the same for all V of a chunk (every pitch of an output run's dims is whole words, so each word
// sits at base + a multiple of 4: f = base & 3); each word is two aligned loads (the second only
// where f > 0) and a funnel. f is taken once per chunk and the gather walks aligned addresses: with
// f and the aligned address derived per word (lin & 3, lin & ~3) the shifted granule-swizzled
// chunk cost 262-321 SASS instructions for 64 bytes, against 165-225 unshifted (forty-seventh
// session). sh: the raw tile's shift (box_tile.hpp), 0 for realigned rows.
template <class T, int Mode, bool Converged, bool Shift, bool Owned>
__device__ __forceinline__ void box_store_words(const box_params& p, const unsigned char* tile, const std::uint32_t* gtab,
                                                const std::int32_t* out_off, const std::uint32_t* out_cut,
                                                const std::int32_t* out_base, const packed_origin& o,
                                                unsigned char* outb, std::int64_t tout, int out_mis, int out_run_bytes,
                                                int sh, int glen, int first_min) {
  constexpr int S = sizeof(T), V = 16 / S, G = 4 / S;
  // The word of the group's G runs whose bytes start f bytes past the aligned linear byte `a` (f is
  // 0 unless Shift).
  auto word_at = [&](int a, int f) -> std::uint32_t {
    const std::uint32_t lo = *reinterpret_cast<const std::uint32_t*>(tile + box_phys_as<Mode>(a));
    if constexpr (!Shift) {
      return lo;
    } else {
      const std::uint32_t hi = f ? *reinterpret_cast<const std::uint32_t*>(tile + box_phys_as<Mode>(a + 4)) : lo;
      return __funnelshift_r(lo, hi, 8 * f);
    }
  };
  // box_out_chunks, its divisor read from the parameters at each use, to spare registers (when the
  // word gather also ran halves, their kernel spilled one word at 48: a store and a load per tile).
  const bool exact = box_out_exact(p, out_mis);
  const int nc = exact ? p.nc_out_aligned : p.nc_out;
  const int items = p.groups * nc;
  for (int u = static_cast<int>(threadIdx.x); u < items; u += kBoxThreads) {
    const auto uu = static_cast<std::uint32_t>(u);
    const int gi = static_cast<int>(exact ? p.nc_out_aligned_div.div(uu) : p.nc_out_div.div(uu));
    const int j = u - gi * nc;
    const box_group g = box_group_of(p, gi);
    // Runs past the tensor's edge: those of a group lie along d0, so if its first is outside, all are.
    if (!o.full && !packed_in_bounds(o, out_cut[g.run0])) continue;
    const std::int64_t rs0 = tout + static_cast<std::int64_t>(out_off[g.run0]) * S;
    const int first = 16 * j - static_cast<int>((out_mis + rs0) & 15);
    if (first >= out_run_bytes) continue;
    if (Owned && first < first_min) continue;  // owned ends: the previous tile's chunk
    // The chunk's byte phase f (Shift only) and its words' aligned base: every address below is
    // base plus whole words (gtab entries, out_fast_pitch), so each is aligned and keeps f.
    const int f = Shift ? (out_base[g.run0] + sh) & 3 : 0;
    const int base = out_base[g.run0] + sh - f;
    if constexpr (Converged) {
      // Every chunk gathers V words from `from` by the same code, head and tail chunks too (as the
      // element gather, "Converged" above; indices clamped only in runs shorter than a chunk,
      // uniform in the block); only the G stores differ (store_run_chunk). With a path of their
      // own (a table load and G element stores per element), a warp with chunks of a few runs ran
      // at 14.7 active threads of 32 (i8 [92,201,168,85] perm 3,2,1,0, Nsight Compute, H200,
      // 2026-11-30, results/box-stalls-2026-11-30t.log).
      const int len = glen;  // the run's elements, and its halo's (owned ends)
      const int from = run_chunk_from<S>(first, len);
      std::uint32_t w[V];
      auto gather = [&](auto clamp) {
        constexpr bool kClamp = decltype(clamp)::value;
        auto at = [&](int i) { return kClamp ? min(i, len - 1) : i; };
        if (p.wide) {
          const box_wide gw = box_wide_of(p, gtab, base, from, kClamp ? len : V);
#pragma unroll
          for (int i = 0; i < V; ++i) w[i] = word_at((at(i) < gw.w ? gw.pre : gw.post) + at(i) * p.out_fast_pitch, f);
        } else if constexpr (!kClamp) {
          const box_gtab_span gs = box_gtab_span_of<V>(p, gtab, from);
#pragma unroll
          for (int i = 0; i < V; ++i) w[i] = word_at(base + gs[i], f);
        } else {
#pragma unroll
          for (int i = 0; i < V; ++i) w[i] = word_at(base + box_gtab_at(p, gtab, from + at(i)), f);
        }
      };
      if (len >= V) gather(std::false_type{});  // uniform in the block
      else gather(std::true_type{});
      uint4 r[G];
      box_words_to_runs<S>(w, r);
      // Run t's stores (its bounds read again here, as registers are what this loop runs short of).
#pragma unroll
      for (int t = 0; t < G; ++t) {
        const int run = g.run0 + t * p.wg_lo;
        if (t < g.members && (o.full || packed_in_bounds(o, out_cut[run])))
          store_run_chunk<T>(outb + tout + static_cast<std::int64_t>(out_off[run]) * S, first, len, r[t]);
      }
    } else {
      const int b0 = first / S;
      // Run t's chunk (null: the run is outside; the chunk itself may start before out); read
      // again where it is stored, as registers are what this loop runs short of.
      auto dst = [&](int t) -> unsigned char* {
        const int r = g.run0 + t * p.wg_lo;
        const bool live = t < g.members && (o.full || packed_in_bounds(o, out_cut[r]));
        return live ? outb + (tout + static_cast<std::int64_t>(out_off[r]) * S + first) : nullptr;
      };
      if (first >= 0 && first + 16 <= out_run_bytes) {
        std::uint32_t w[V];
        if (p.wide) {
          const box_wide gw = box_wide_of(p, gtab, base, b0, V);
#pragma unroll
          for (int i = 0; i < V; ++i) w[i] = word_at((i < gw.w ? gw.pre : gw.post) + i * p.out_fast_pitch, f);
        } else {
          const box_gtab_span gs = box_gtab_span_of<V>(p, gtab, b0);
#pragma unroll
          for (int i = 0; i < V; ++i) w[i] = word_at(base + gs[i], f);
        }
        uint4 r[G];
        box_words_to_runs<S>(w, r);
#pragma unroll
        for (int t = 0; t < G; ++t)
          if (unsigned char* d = dst(t)) *reinterpret_cast<uint4*>(d) = r[t];
      } else {  // a head or tail chunk: element by element
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const int b = b0 + i;
          if (b < 0 || b * S >= out_run_bytes) continue;
          const std::uint32_t wd = word_at(base + box_gtab_at(p, gtab, b), f);
#pragma unroll
          for (int t = 0; t < G; ++t)
            if (unsigned char* d = dst(t)) reinterpret_cast<T*>(d)[i] = static_cast<T>(wd >> (8 * S * t));
        }
      }
    }
  }
}

// Claims: false compiles the kernel without the claim's code, for grids that never claim (one block
// per tile, or no lease): the static loop b, b + grid, ... Launched for 16-byte elements only
// (fast_variants.cu kBoxPlainWide says why and what it measured).
// Segs: rows of that many bytes by the segment gather (p.segs, box_segments.hpp), 0 for none.
template <class T, int Mode, int MinBlocks, bool Words = false, bool Converged = false, bool Shift = false,
          bool Owned = false, bool Claims = true, int Segs = 0>
__global__ void __launch_bounds__(kBoxThreads, MinBlocks)
    permute_box_kernel(const T* __restrict__ in, T* __restrict__ out, box_params p, unsigned long long* ticket) {
  static_assert(!Owned || Converged, "owned ends are planned only where the converged store runs (box_tile.cpp)");
  static_assert(Segs == 0 || (sizeof(T) == 1 && Converged && !Words && !Owned),
                "the segment gather stores bytes in the converged form, without owned ends (box_tile.cpp segment_rows)");
  constexpr int S = sizeof(T), V = 16 / S;
  // Bulk rows (p.bulk) are planned only for elements of at most kBoxBulkMaxElem bytes in plain rows,
  // so every other kernel carries their path (bulk copies, mbarrier, run-table loads, fence) as
  // dead code; the 16-byte kernels compile without it. With it the 16-byte kernel had 2792 SASS
  // instructions and 56 shared loads, without it 2376 and 30 (scripts/sass.sh), and the eight c128
  // boxes that had lost 4-9 points since b059483 gained 4.0-10.4 (H100, 2026-12-05,
  // results/box-nobulk-ab-2026-12-05-h100.json: [23,201,168,85] 76.2 -> 80.2, [403,7,6,9,22,10,2]
  // 87.9 -> 98.3). Compiling it out of the other kernels too measured mixed, so they keep it: f64
  // -1.7 to +4.1, f32 -0.2 to -3.0, granule-swizzled i8 and f16 -4.7 to +0.3 (the same run, and a
  // second one for the three largest losses). kMayBulk stands last in each condition: so placed,
  // the other kernels' SASS is the same as without it (scripts/sass.sh); in front, as in the
  // measured candidate, the compiler schedules them differently. The 16-byte kernels here have the
  // candidate's instruction counts and another schedule (docs/performance.md, fifty-sixth session).
  constexpr bool kMayBulk = S < 16;
  // Tables copied from make_plan's (p.tables, box_tables.cpp): 1-byte elements only
  // (kBoxTablesElemBytes). There a table entry serves the fewest bytes, so building the tables is
  // the largest share of a block's work: copied, i8 [44,13,14,4,18,20,23] ran at 90.3% of copy
  // instead of 81.0, [1472,6,22,6,10,23] 80.8 instead of 71.4, the 19 byte plans +1.2 on average
  // (H100); on the H200, where the byte boxes are held by the SMs' work per byte, eight of them +5.1
  // on average and the i8 suite's median 71.6 -> 73.0 (eighty-eighth session). The same copy lost
  // 0.5 on average on 12 plans of 2- to 8-byte elements (none gained more than 0.3; H100,
  // docs/performance.md, eighty-seventh session; not measured on the H200 yet), and with it two
  // 16-byte kernels spilled 16 bytes instead of 8 (scripts/ptxas_spills.sh); so their kernels
  // compile without it.
  constexpr bool kMayCopyTables = S == kBoxTablesElemBytes;
  static_assert(kBoxBulkMaxElem < 16, "the 16-byte kernels compile without the bulk rows' path");
  extern __shared__ uint4 box_smem_raw[];  // uint4: 16-byte aligned rows
  unsigned char* tile = reinterpret_cast<unsigned char*>(box_smem_raw);
  std::int32_t* tab = reinterpret_cast<std::int32_t*>(tile + p.tile_bytes);
  const box_tables tb = box_tables_of(p);
  std::int32_t* in_off = tab + tb.in_off;
  std::uint32_t* in_cut = reinterpret_cast<std::uint32_t*>(tab + tb.in_cut);
  std::int32_t* out_off = tab + tb.out_off;
  std::uint32_t* out_cut = reinterpret_cast<std::uint32_t*>(tab + tb.out_cut);
  std::int32_t* out_base = tab + tb.out_base;
  std::uint32_t* gtab = reinterpret_cast<std::uint32_t*>(tab + tb.gtab);
  std::int32_t* in_base = tab + tb.in_base;  // raw rows only
  const int tid = static_cast<int>(threadIdx.x);
  // Tables built at make_plan (p.tables, box_tables.cpp): every one copied by cp.async and waited
  // for before the first tile's loads. Copying only the output side's, overlapped with the first
  // tile's loads, was slower (mean -3.2 against -1.3; eighty-sixth session, docs/performance.md).
  const bool copied = p.tables && kMayCopyTables;
  if (copied) {
    copy_words_async(tab, p.tables + (blockIdx.x & p.tables_mask) * p.tables_stride, tb.end, tid, kBoxThreads);
  } else {
    for (int r = tid; r < p.runs_in; r += kBoxThreads) {
      const box_run run = box_run_of<Owned>(p, true, r);
      in_off[r] = run.off * S;  // bytes
      in_cut[r] = run.cut;
      if (p.raw) in_base[r] = run.base;
    }
  }
  // The output side's tables (only the store phase reads them): built while the block's first
  // tile loads, between the load phase's issue and its wait (unless copied, above). Each gtab word
  // holds its entry and the next one (box_gtab_word), computed by the same thread; the wide gather
  // reads low halves only.
  // Built before the first load instead (with a barrier between the two halves of gtab), f64
  // one-block-per-tile boxes ran 4-5 points of copy slower, c128 0-0.8 (H200, docs/performance.md,
  // fifty-fifth session).
  auto out_tables = [&] {
    for (int o = tid; o < p.runs_out; o += kBoxThreads) {
      const box_run run = box_run_of<Owned>(p, false, o);
      out_off[o] = run.off;
      out_cut[o] = run.cut;
      out_base[o] = run.base;
    }
    const int gather_run = Owned ? p.gather_run : p.run_out;
    for (int j = tid; j < gather_run; j += kBoxThreads)
      gtab[box_gtab_index(p, j)] =
          box_gtab_word(box_gtab_of<Owned>(p, j), !p.wide && j + 1 < gather_run ? box_gtab_of<Owned>(p, j + 1) : 0);
  };
  // The tile's origin: one thread computes the next one during this tile's stores and publishes it
  // at the closing barrier (a division chain over every dim, as in permute_runs).
  // With owned ends (p.halo) also the tile's first coordinate along halo_dim.
  __shared__ packed_origin next_origin;
  __shared__ int next_start;
  __shared__ std::uint32_t next_id;  // the block's next tile: gridDim.x further on, or by ticket
  auto origin_of = [&](std::uint32_t t) {
    if constexpr (Owned) next_origin = packed_origin_of<true>(p, t, p.halo_dim, &next_start);
    else next_origin = packed_origin_of(p, t);
  };
  // Bulk rows (p.bulk): the barrier their copies complete on, and the parity of its current phase.
  __shared__ std::uint64_t rows_bar;
  unsigned rows_phase = 0;
  const auto tiles = static_cast<std::uint32_t>(p.tiles);
  if (tid == 0 && blockIdx.x < tiles) origin_of(blockIdx.x);
  // Thread 0's claims read the ticket and the current tile from shared memory, not from the kernel
  // parameter and the loop variable. Holding those in registers across the loop made the
  // 48-register converged kernels of 1-, 2-, 4- and 8-byte elements spill 16-28 bytes (ptxas -v),
  // and the suite plans that run them one block per tile (never claiming) lost up to 17 points of
  // copy (H100, seventy-sixth session: i8 [44,21,10,4,12,13,23,2] 86.3 -> 68.9). Read from shared,
  // they spill as before tickets came, but for the 8-byte one with owned ends: 4 bytes.
  // Here and at the end the test reads `tid == 0 && Claims`: written `Claims && tid == 0` (the same
  // meaning) it changed the claiming kernels' SASS, which the suites measured as they are, and
  // `if constexpr` changed it too (cuobjdump -sass of each form, eightieth session). Keep the forms
  // that leave those kernels and the measured claim-free 16-byte kernels instruction for instruction.
  __shared__ unsigned long long* claim_ticket;
  if (tid == 0 && Claims) {
    claim_ticket = ticket;
    next_id = blockIdx.x;
  }
  if (tid == 0 && p.bulk && kMayBulk) {
    tma::mbar_init(&rows_bar, 1);
    tma::fence_mbar_init();
  }
  if (copied) wait_chunks_async();
  __syncthreads();

  const auto* inb = reinterpret_cast<const unsigned char*>(in);
  auto* outb = reinterpret_cast<unsigned char*>(out);
  const int in_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(in) & 15);
  const int out_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
  const box_chunks nc_out = box_out_chunks(p, out_mis);
  const int load_items = p.runs_in * p.nc_in, store_items = p.runs_out * nc_out.n;
  for (std::uint32_t tile_id = blockIdx.x; tile_id < tiles;) {
    const packed_origin o = next_origin;
    const int run_bytes = S * box_run_length(o, p.run_in, p.in_unit, p.in_lim);
    const int out_run_bytes = S * box_run_length(o, p.run_out, p.out_unit, p.out_lim);
    // Owned ends (box_tile.hpp): the tile's coordinate along halo_dim, the input rows it loads (its
    // own and its live halo's: ol), and the elements of an output run its gather may read (glen).
    // Kernels of their own (Owned): with these values decided at run time in every converged
    // kernel, the 1-byte element kernel spilled 32-40 bytes at its 48 registers; as a template
    // parameter no kernel spills more than before (ptxas -v, sixty-ninth session).
    const int start = Owned ? next_start : 0;
    const packed_origin ol = Owned ? box_load_origin(p, o, start) : o;
    const int glen = out_run_bytes / S + (Owned ? box_halo_elems(p, start) : 0);
    // The converged store's first chunk of a run: from its head chunk (first < 0) on, or, where the
    // previous tile along halo_dim owns that chunk, from the first one starting in the run.
    const int first_min = Owned && start > 0 ? 0 : -16;
    // The tile's input window starts at the aligned chunk holding its origin, 64 bits from `in`
    // (the input may span more than 2 GiB); offsets inside the window are 32-bit, the tile's reach
    // below 2 GiB (box_plan). tin, the origin inside the window, is 0-15: the window keeps the
    // pointer's alignment, so every chunk's misalignment m is what it was from `in`.
    const std::int64_t tin_abs = o.in * S;
    const std::int64_t wbase = tin_abs & ~std::int64_t{15};
    const unsigned char* inw = inb + wbase;
    const auto tin = static_cast<std::int32_t>(tin_abs - wbase);
    const std::int64_t tout = o.out * S;

    // Every chunk of a tile inside the input (the first tiles and the last may not be): loads
    // without bounds checks. Outside it, load_chunk checks against the window's span (bytes before
    // the window load as 0: no run byte lies there, since every run starts at or after tin).
    const bool inside = box_tile_inside(p, tin_abs, Owned ? box_halo_live(p, start) : 0);
    const auto win_span = static_cast<std::int32_t>(min(p.in_span_bytes - wbase, std::int64_t{kBoxMaxWindow}));
    auto load = [&](std::int32_t a) {
      return inside ? __ldg(reinterpret_cast<const uint4*>(inw + a)) : load_chunk(inw, a, win_span);
    };
    // Raw rows (box_tile.hpp): the tile's elements sit sh bytes past their linear bytes.
    const int sh = p.raw ? (in_mis + tin) & 15 : 0;
    // Bulk rows (p.bulk: raw rows, no swizzle) inside the input: the copy engine brings each run's
    // aligned chunks in with one bulk copy, counted off rows_bar; no thread moves or waits for a chunk
    // on its own.
    const bool bulk = p.bulk && inside && kMayBulk;
    if (bulk) {
      for (int r = tid; r < p.runs_in; r += kBoxThreads) {
        if (!(ol.full || packed_in_bounds(ol, in_cut[r]))) continue;
        const std::int32_t s0 = tin + in_off[r];  // the run's first byte, from the window
        const int m = (in_mis + s0) & 15;
        const auto bytes = static_cast<unsigned>((m + run_bytes + 15) & ~15);
        tma::mbar_add_tx(&rows_bar, bytes);
        tma::bulk_load(tile + in_base[r] + sh - m, inw + (s0 - m), bytes, &rows_bar);
      }
    } else if (p.raw) {
      // Item u = (r, k): the k-th aligned input chunk of run r, as it stands, to the shared chunk
      // congruent to it (cp.async inside the input; load_chunk, zeros past its span, at its edges).
      for (int u = tid; u < load_items; u += kBoxThreads) {
        const int r = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
        const int k = u - r * p.nc_in;
        if (!(ol.full || packed_in_bounds(ol, in_cut[r]))) continue;
        const std::int32_t s0 = tin + in_off[r];  // the run's first byte, from the window
        const int m = (in_mis + s0) & 15;
        if (16 * k >= m + run_bytes) continue;  // past the run's chunks
        const std::int32_t a = s0 - m + 16 * k;
        unsigned char* dst = tile + box_phys_as<Mode>(in_base[r] + sh - m + 16 * k);
        if (inside) copy_chunk_async(dst, inw + a);
        else *reinterpret_cast<uint4*>(dst) = load_chunk(inw, a, win_span);
      }
    } else {  // realigned rows: each chunk shifted into place in registers
    for (int first_u = tid; first_u < load_items; first_u += kBoxThreads * kBoxLoads) {
      uint4 lo[kBoxLoads], hi[kBoxLoads];
      int dst[kBoxLoads], mis[kBoxLoads], room[kBoxLoads];
#pragma unroll
      for (int i = 0; i < kBoxLoads; ++i) {
        dst[i] = -1;
        const int u = first_u + i * kBoxThreads;
        if (u >= load_items) continue;
        const int r = static_cast<int>(p.nc_in_div.div(static_cast<std::uint32_t>(u)));
        const int k = u - r * p.nc_in;
        const int left = run_bytes - 16 * k;  // the run's bytes from this chunk on
        if (left <= 0 || !(ol.full || packed_in_bounds(ol, in_cut[r]))) continue;
        const std::int32_t s0 = tin + in_off[r] + 16 * k;  // the run's byte 16k, from the window
        const int m = (in_mis + s0) & 15;
        const std::int32_t a = s0 - m;
        if (m == 0 && inside && p.vec_rows) {  // an aligned chunk as it stands: straight to its row
          copy_chunk_async(tile + box_phys_as<Mode>(r * p.row_bytes + 16 * k), inw + a);
          continue;
        }
        lo[i] = load(a);
        hi[i] = m + (left < 16 ? left : 16) > 16 ? load(a + 16) : lo[i];
        mis[i] = m;
        dst[i] = r * p.row_bytes + 16 * k;  // linear
        room[i] = p.row_bytes - 16 * k;     // the row's bytes from this chunk on (>= 4)
      }
#pragma unroll
      for (int i = 0; i < kBoxLoads; ++i) {
        if (dst[i] < 0) continue;
        const uint4 v = mis[i] ? funnel_down(lo[i], hi[i], mis[i]) : lo[i];
        if (p.vec_rows) {
          *reinterpret_cast<uint4*>(tile + box_phys_as<Mode>(dst[i])) = v;
        } else {  // words of this row only (rows are not whole chunks)
          const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (4 * q < room[i]) *reinterpret_cast<std::uint32_t*>(tile + box_phys_as<Mode>(dst[i] + 4 * q)) = w[q];
        }
      }
    }
    }
    if (tile_id == blockIdx.x) {  // the block's first tile (uniform)
      if (!copied) out_tables();
    }
    wait_chunks_async();
    __syncthreads();  // every thread has read next_origin (and has announced its bulk rows' bytes)
    if (bulk) {  // the phase ends when thread 0 has arrived and every announced byte has landed
      if (tid == 0) tma::mbar_arrive(&rows_bar);
      tma::mbar_wait(&rows_bar, rows_phase);
      rows_phase ^= 1;
    }
    if constexpr (Claims) {
      if (tid == 0) {  // claimed after every thread read this tile's origin (the barrier above)
        const std::uint32_t n = claim_ticket ? gridDim.x + static_cast<std::uint32_t>(atomicAdd(claim_ticket, 1ull))
                                             : next_id + gridDim.x;
        next_id = n;
        if (n < tiles) origin_of(n);
      }
    } else if (tid == 0 && tile_id + gridDim.x < tiles) {
      origin_of(tile_id + gridDim.x);
    }

    if constexpr (Words) {
      box_store_words<T, Mode, Converged, Shift, Owned>(p, tile, gtab, out_off, out_cut, out_base, o, outb, tout, out_mis,
                                                 out_run_bytes, sh, glen, first_min);
    } else {
    for (int u = tid; u < store_items; u += kBoxThreads) {
      const int r = static_cast<int>(nc_out.div.div(static_cast<std::uint32_t>(u)));
      const int j = u - r * nc_out.n;
      if (!o.full && !packed_in_bounds(o, out_cut[r])) continue;
      const std::int64_t rs = tout + static_cast<std::int64_t>(out_off[r]) * S;
      const int first = 16 * j - static_cast<int>((out_mis + rs) & 15);  // the chunk's first byte, from the run's
      if (first >= out_run_bytes) continue;
      if constexpr (Converged) {
        // Owned ends: the chunk this slice starts inside of is the previous tile's.
        if (Owned && first < first_min) continue;
        // Every chunk gathers V elements from `from` the same way, so head, tail and inner chunks
        // run one path (step 2 above: "Converged"); runs shorter than a chunk (edge tiles) clamp.
        // len: the run's elements, and its halo's (owned ends).
        const int len = glen;
        const int from = run_chunk_from<S>(first, len);
        const int base = out_base[r] + sh;
        if constexpr (Segs > 0) {
          if (len >= V) {  // uniform in the block; shorter runs take the clamped element gather below
            std::uint32_t w[4];
            box_seg_gather<Segs>(
                p, gtab, base, from,
                [&](int a) { return *reinterpret_cast<const std::uint32_t*>(tile + box_phys_as<Mode>(a)); }, w);
            store_run_chunk<T>(outb + rs, first, len, make_uint4(w[0], w[1], w[2], w[3]));
            continue;
          }
        }
        T e[V];
        // Element i of the gather; Clamp (runs shorter than a chunk) keeps it inside the run.
        auto gather = [&](auto clamp) {
          constexpr bool kClamp = decltype(clamp)::value;
          auto at = [&](int i) { return kClamp ? min(i, len - 1) : i; };
          if (p.wide) {  // two table loads (box_tile.hpp "The gather")
            const box_wide g = box_wide_of(p, gtab, base, from, kClamp ? len : V);
            if (__all_sync(__activemask(), g.w >= (kClamp ? len : V))) {  // no wrap in the warp: one pitch apart
#pragma unroll
              for (int i = 0; i < V; ++i)
                e[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(g.pre + at(i) * p.out_fast_pitch));
            } else {
#pragma unroll
              for (int i = 0; i < V; ++i)
                e[i] = *reinterpret_cast<const T*>(
                    tile + box_phys_as<Mode>((at(i) < g.w ? g.pre : g.post) + at(i) * p.out_fast_pitch));
            }
          } else if constexpr (!kClamp) {
            const box_gtab_span gs = box_gtab_span_of<V>(p, gtab, from);
#pragma unroll
            for (int i = 0; i < V; ++i) e[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(base + gs[i]));
          } else {
#pragma unroll
            for (int i = 0; i < V; ++i)
              e[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(base + box_gtab_at(p, gtab, from + at(i))));
          }
        };
        if (len >= V) gather(std::false_type{});  // uniform in the block
        else gather(std::true_type{});
        uint4 v;
        memcpy(&v, e, sizeof v);
        store_run_chunk<T>(outb + rs, first, len, v);
      } else {
        // Whole chunks (box_store_converged): the vector path, one gather per chunk, and the head
        // and tail chunks of edge tiles element by element (the store of before the eleventh
        // session, which the converged one cost 3-6 points on boxes of long aligned runs).
        const int b0 = first / S;  // exact: pointers are aligned to the element
        const int base = out_base[r] + sh;
        T* c = reinterpret_cast<T*>(outb + rs + first);
        if (first >= 0 && first + 16 <= out_run_bytes) {
          T e[V];
          if (p.wide) {  // two table loads (box_tile.hpp "The gather")
            const box_wide g = box_wide_of(p, gtab, base, b0, V);
            if (__all_sync(__activemask(), g.w >= V)) {  // no wrap in the warp: one pitch apart
#pragma unroll
              for (int i = 0; i < V; ++i)
                e[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(g.pre + i * p.out_fast_pitch));
            } else {
#pragma unroll
              for (int i = 0; i < V; ++i)
                e[i] = *reinterpret_cast<const T*>(
                    tile + box_phys_as<Mode>((i < g.w ? g.pre : g.post) + i * p.out_fast_pitch));
            }
          } else {
            const box_gtab_span gs = box_gtab_span_of<V>(p, gtab, b0);
#pragma unroll
            for (int i = 0; i < V; ++i) e[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(base + gs[i]));
          }
          uint4 w;
          memcpy(&w, e, sizeof w);
          *reinterpret_cast<uint4*>(c) = w;
        } else {
#pragma unroll
          for (int i = 0; i < V; ++i) {
            const int b = b0 + i;
            if (b >= 0 && b * S < out_run_bytes)
              c[i] = *reinterpret_cast<const T*>(tile + box_phys_as<Mode>(base + box_gtab_at(p, gtab, b)));
          }
        }
      }
    }
    }
    // The next tile reuses the rows; publishes next_origin. The copy engine's writes of the next
    // tile's rows come after this tile's ordinary accesses to them (the fence).
    if (p.bulk && kMayBulk) tma::fence_async_shared();
    __syncthreads();  // also publishes next_id
    if constexpr (Claims) tile_id = next_id;
    else tile_id += gridDim.x;
  }
  if (tid == 0 && Claims) ticket_done(ticket);
}

}  // namespace xpose::detail::gpu
