// permute_box's segment gather: the store phase of a byte row copy whose rows are 3 or 5 bytes
// long (box_params::segs), shared by the kernel and the host tests (everything here is __host__
// __device__).
//
// Why. In a row copy (the output's fastest dim is the input's) each output run is a string of
// segments, one row of L bytes each, and each segment's bytes lie together in shared memory (the
// input run's fastest dim has a shared pitch of one byte). Where L is a multiple of 2 or 4 the
// planner moves the rows as wider elements (planner.cpp kWidenBoxMaxElem); an odd L stays bytes, and
// the element gather loads every byte of a 16-byte output chunk on its own, with its table entry:
// 16 byte loads and 8 table words a chunk, the shared pipe's work that holds the H200's byte boxes
// (docs/performance.md, eighty-first session, item 4). These row copies ran at 60-77% of copy on the
// H200 at 7e93b1c ([4,24,19,23,24,25,16,5] 61.0, [721600,124,3,1] 71.2, [1851276,29,5] 75.2).
//
// How. A chunk of elements from .. from + 15 of a run starts r = from mod L bytes into a segment and
// touches J = ceil((L + 15) / L) segments at most. Each segment's first byte comes from its table
// entry, its bytes from the two aligned shared words that hold them, funnel-shifted down to the
// segment's start. The segments' bytes, laid end to end, form a stream whose layout depends on L
// alone, so it is assembled by byte permutes with selectors fixed at compile time
// (box_seg_stream_word); the chunk is the stream's bytes r .. r + 15, one funnel shift per word.
// Shared loads per chunk, table and data: L = 3: 6 + 12, L = 5: 4 + 8, against 8 + 16.
//
// Measured (H100, eighty-third session, docs/performance.md; auto against main's element gather on
// the ten i8 suite plans of seeds 1-6 it then took, scripts/cases/segments_83_cases.txt): shared
// wavefronts 35-45% fewer and the L1 pipe 71-97% -> 45-74% busy, but 4-15% more instructions in
// all (Nsight Compute), and these boxes issue-bound on the H100 (issue slots 69-80% busy). Rows of
// 3 and 5 bytes (the merged build, % of copy): [4,24,19,23,24,25,16,5] 89.9 -> 94.2 and
// [913044,98,3] 74.6 -> 78.7 (the two whose L1 pipe was 90-97% busy), [164180,5,109,3] +0.8, four
// within a point (mean +1.0). Rows of 7 bytes (three words a row, 16 loads a chunk; first build):
// [44,23,13,22,6,22,7] 86.3 -> 84.3, [1192,14,9,17,15,7] -0.4, [1278264,30,7] +0.3, so 7 takes the
// element gather. Placing the rows from two table entries (a
// fixed pitch along the output run's second dim, like the wide gather) cost 2-7 points more on the
// rows of 7 (its extra division and selects), and was dropped.
#pragma once

#include <cstdint>
#include <utility>

#include "gpu/box_tile.hpp"

// Loops unrolled in the device pass (the host compiler knows no such pragma).
#if defined(__CUDA_ARCH__)
#define XPOSE_SEG_UNROLL _Pragma("unroll")
#else
#define XPOSE_SEG_UNROLL
#endif

namespace xpose::detail::gpu {

// The row lengths (bytes) with a segment gather kernel; box_tile.cpp plans it for these only.
XPOSE_HD constexpr bool box_segment_length(int bytes) { return bytes == 3 || bytes == 5; }
// The rows a chunk of 16 bytes touches at most, starting anywhere in a row of L bytes.
XPOSE_HD constexpr int box_seg_rows(int L) { return (L + 15 + L - 1) / L; }

// The low word of hi:lo shifted right by `bits` (0-31): __funnelshift_r on the device.
XPOSE_HD inline std::uint32_t seg_funnel(std::uint32_t lo, std::uint32_t hi, int bits) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, static_cast<unsigned>(bits));
#else
  return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> (bits & 31));
#endif
}

// Byte i of the result is byte (sel >> 4i) & 7 of b:a: __byte_perm on the device.
XPOSE_HD inline std::uint32_t seg_byte_perm(std::uint32_t a, std::uint32_t b, unsigned sel) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, sel);
#else
  const std::uint64_t x = (static_cast<std::uint64_t>(b) << 32) | a;
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<std::uint32_t>((x >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
#endif
}

// The shape of the gather for rows of L bytes.
template <int L>
struct box_seg_shape {
  static_assert(box_segment_length(L), "rows of 3 or 5 bytes (box_segment_length)");
  static constexpr int J = box_seg_rows(L);       // segments a chunk touches at most (r = L - 1)
  static constexpr int NL = (3 + L + 3) / 4;      // aligned words that hold a segment (byte phase 0-3): 2
  static constexpr int NS = (L + 3) / 4;          // words of a segment's own bytes, from its first
  static constexpr int QMAX = (L - 1) / 4;        // the chunk's first stream word is r / 4 <= QMAX
  static constexpr int SW = 5 + QMAX;             // stream words the chunk's four words read
  // Stream byte b is byte b % L of segment b / L: word (b / L) * NS + (b % L) / 4 of the segments'
  // words, its byte (b % L) % 4; -1 past the J segments.
  static constexpr int src(int b) { return b < J * L ? (b / L) * NS + (b % L) / 4 : -1; }
  static constexpr int byte(int b) { return (b % L) % 4; }
};

// How stream word M is assembled: from up to three of the segments' words (a, b, c in the order
// their bytes come; -1 for none), a permute of a and b (sel_ab) and one of that with c (sel_c).
struct box_seg_word_plan {
  int a = -1, b = -1, c = -1;
  unsigned sel_ab = 0, sel_c = 0;
};
template <int L>
XPOSE_HD constexpr box_seg_word_plan box_seg_plan_of(int m) {
  using G = box_seg_shape<L>;
  box_seg_word_plan w;
  for (int i = 0; i < 4; ++i) {
    const int s = G::src(4 * m + i);
    if (s < 0 || s == w.a || s == w.b || s == w.c) continue;
    (w.a < 0 ? w.a : w.b < 0 ? w.b : w.c) = s;
  }
  for (int i = 0; i < 4; ++i) {
    const int s = G::src(4 * m + i);
    const unsigned k = static_cast<unsigned>(G::byte(4 * m + i));
    const unsigned ab = s >= 0 && s == w.a ? k : s >= 0 && s == w.b ? 4 + k : static_cast<unsigned>(i);
    const unsigned c = s >= 0 && s == w.c ? 4 + k : static_cast<unsigned>(i);
    w.sel_ab |= ab << (4 * i);
    w.sel_c |= c << (4 * i);
  }
  return w;
}

// Stream word M from the segments' words n.
template <int L, int M>
XPOSE_HD inline std::uint32_t box_seg_stream_word(const std::uint32_t* n) {
  constexpr box_seg_word_plan w = box_seg_plan_of<L>(M);
  if constexpr (w.a < 0) {
    return 0;
  } else if constexpr (w.b < 0 && w.sel_ab == 0x3210u) {
    return n[w.a];
  } else {
    const std::uint32_t x = seg_byte_perm(n[w.a], w.b < 0 ? 0u : n[w.b < 0 ? 0 : w.b], w.sel_ab);
    if constexpr (w.c < 0) return x;
    else return seg_byte_perm(x, n[w.c], w.sel_c);
  }
}

// The four words of output elements from .. from + 15 of a run (from >= 0, from + 16 <= the run's
// length) whose rows are L bytes: element e's linear shared byte is base + gtab(e), consecutive
// within a row. word(a) loads the shared word at aligned linear byte a (the caller swizzles it); only
// words that hold some byte of a segment the chunk touches are loaded.
template <int L, class Word>
XPOSE_HD inline void box_seg_gather(const box_params& p, const std::uint32_t* gtab, int base, int from, Word&& word,
                                    std::uint32_t (&out)[4]) {
  using G = box_seg_shape<L>;
  const int r = from % L;  // a constant divisor: a multiply and a shift
  const int s0 = from - r;
  const int last = (r + 15) / L;  // the chunk's last segment
  std::uint32_t n[G::J * G::NS];
XPOSE_SEG_UNROLL
  for (int j = 0; j < G::J; ++j) {
    const int jj = j < last ? j : last;  // past the chunk's end: its last segment again (unused)
    const int a = base + box_gtab_at(p, gtab, s0 + jj * L);
    const int f = a & 3, a0 = a - f;
    std::uint32_t w[G::NL];
XPOSE_SEG_UNROLL
    for (int q = 0; q < G::NL; ++q) w[q] = 4 * q < f + L ? word(a0 + 4 * q) : 0u;
XPOSE_SEG_UNROLL
    for (int q = 0; q < G::NS; ++q) n[j * G::NS + q] = seg_funnel(w[q], w[q + 1 < G::NL ? q + 1 : q], 8 * f);
  }
  std::uint32_t st[G::SW];
  [&]<int... M>(std::integer_sequence<int, M...>) {
    ((st[M] = box_seg_stream_word<L, M>(n)), ...);
  }(std::make_integer_sequence<int, G::SW>{});
  const int q = r >> 2, bits = 8 * (r & 3);
XPOSE_SEG_UNROLL
  for (int k = 0; k < 4; ++k) {
    std::uint32_t lo = st[k], hi = st[k + 1];
XPOSE_SEG_UNROLL
    for (int d = 1; d <= G::QMAX; ++d)
      if (q == d) lo = st[k + d], hi = st[k + d + 1];
    out[k] = seg_funnel(lo, hi, bits);
  }
}

}  // namespace xpose::detail::gpu
