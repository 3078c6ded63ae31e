// unzip_stream: the narrow transpose of 1-, 2-, 4- and 8-byte elements whose input rows are a few
// packed elements (40,000,000 x 3 f32 -> 3 x 40,000,000: N = 2..7 channels interleaved in, one
// output row per channel), straight from the input to the output with streaming stores, no staging
// buffer; and zip_stream, its reverse (below). (Channels: kUnzipMinChannels .. kUnzipMaxChannels,
// microkernels.hpp says why not more.)
// Compiled with AVX-512 F, BW and VBMI (src/CMakeLists.txt) and reached only through vbmi_kernels(),
// which is chosen after a run-time check of the CPU.
//
// A group is W = 64 / E input rows: N registers loaded, each channel's W elements gathered into one
// register by ceil(N / 2) two-source permutes (vpermt2b / w / d / q) merged under masks, and N whole
// output lines stored with non-temporal stores. Output rows at differing line offsets (40,000,001 x
// 3) take each row's groups from its own first line boundary, the input loaded once per row (N^2
// loads a group instead of N, from L1); the few elements at each row's ends go by masked stores.
//
// Why two input streams (kUnzipPieces): with one, the thread reads its part of the input as one
// sequential stream, and on the Intel Xeon development host (2 vCPUs) a sequential stream per core
// did not keep enough reads in flight: the same kernel walking one stream ran at 35-37 GB/s (read +
// write) where memcpy ran 41-45; walking two pieces of kUnzipPieceBytes of output per channel (12
// KiB of f32 input each, pages apart) side by side, one group of each in turn, 40-42.5; four pieces
// the same, eight 38-41, pieces of 1 KiB 36-38 (glibc's memcpy itself copies four pages side by side
// above its non-temporal threshold). The staged tiles it replaces ran 31 GB/s, 67% of the copy
// (docs/cpu.md, "Thirty-first session"); for bytes and halves (VBMI narrow tiles) 22-24 GB/s where
// this runs 37-41.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

#include "cpu/microkernels.hpp"
#include "cpu/narrow_dispatch.hpp"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

template <int E, int N>
struct unzip512 {
  static_assert(E == 1 || E == 2 || E == 4 || E == 8);
  static constexpr int W = 64 / E, NP = (N + 1) / 2;  // elements per register, register pairs
  using lane = std::conditional_t<E == 1, std::uint8_t,
                                  std::conditional_t<E == 2, std::uint16_t,
                                                     std::conditional_t<E == 4, std::uint32_t, std::uint64_t>>>;
  struct tables {
    // [channel][pair]: the permute's indices (bit log2(W) picks the pair's second register) and the
    // channel's lanes that pair supplies.
    std::array<std::array<std::array<lane, W>, NP>, N> idx{};
    std::array<std::array<std::uint64_t, NP>, N> mask{};
  };
  static constexpr tables kT = [] {
    tables t{};
    for (int c = 0; c < N; ++c)
      for (int i = 0; i < W; ++i) {
        const int p = N * i + c, reg = p / W, pair = reg / 2;  // element i of channel c: position p
        t.idx[c][pair][i] = static_cast<lane>((reg % 2) * W + p % W);
        t.mask[c][pair] |= std::uint64_t{1} << i;
      }
    return t;
  }();

  static __m512i pair(const __m512i* a, int q, int c) {
    const __m512i ix = _mm512_loadu_si512(kT.idx[c][q].data());
    const __m512i hi = 2 * q + 1 < N ? a[2 * q + 1] : a[2 * q];
    if constexpr (E == 1) return _mm512_permutex2var_epi8(a[2 * q], ix, hi);
    else if constexpr (E == 2) return _mm512_permutex2var_epi16(a[2 * q], ix, hi);
    else if constexpr (E == 4) return _mm512_permutex2var_epi32(a[2 * q], ix, hi);
    else return _mm512_permutex2var_epi64(a[2 * q], ix, hi);
  }
  // v where mask m (one bit per element) is set, else acc.
  static __m512i merge(__m512i acc, std::uint64_t m, __m512i v) {
    if constexpr (E == 1) return _mm512_mask_mov_epi8(acc, static_cast<__mmask64>(m), v);
    else if constexpr (E == 2) return _mm512_mask_mov_epi16(acc, static_cast<__mmask32>(m), v);
    else if constexpr (E == 4) return _mm512_mask_mov_epi32(acc, static_cast<__mmask16>(m), v);
    else return _mm512_mask_mov_epi64(acc, static_cast<__mmask8>(m), v);
  }
  static __m512i channel(const __m512i* a, int c) {
    __m512i acc = pair(a, 0, c);
    for (int q = 1; q < NP; ++q) acc = merge(acc, kT.mask[c][q], pair(a, q, c));
    return acc;
  }

  static void load(const std::byte* in, i64 i, __m512i* a) {
    const std::byte* s = in + i * N * E;
    for (int r = 0; r < N; ++r) a[r] = _mm512_loadu_si512(s + 64 * r);
  }
  static void stream(std::byte* d, __m512i v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(d), v); }

  // Input rows i .. i + W - 1 -> W elements of every output row, streamed: for rows whose lines
  // all start at element i (every output row at the same line offset).
  static void group(const std::byte* in, std::byte* out, i64 ldo, i64 i) {
    __m512i a[N];
    load(in, i, a);
    for (int c = 0; c < N; ++c) stream(out + c * ldo + i * E, channel(a, c));
  }
  // The same for output row c alone (rows at differing line offsets: each loads its own groups).
  static void group_one(const std::byte* in, std::byte* out, i64 ldo, int c, i64 i) {
    __m512i a[N];
    load(in, i, a);
    stream(out + c * ldo + i * E, channel(a, c));
  }
  // Elements [s, t) of output row c, t - s <= W: masked loads and an ordinary masked store.
  static void part(const std::byte* in, std::byte* out, i64 ldo, int c, i64 s, i64 t) {
    if (t <= s) return;
    __m512i a[N];
    const std::byte* p = in + s * N * E;
    const i64 bytes = (t - s) * N * E;
    for (int r = 0; r < N; ++r) {
      const i64 left = bytes - 64 * r;
      const __mmask64 m = left >= 64 ? ~__mmask64{0} : left <= 0 ? 0 : (__mmask64{1} << left) - 1;
      a[r] = _mm512_maskz_loadu_epi8(m, p + 64 * r);
    }
    // The first (t - s) * E bytes of the channel's register (t - s <= W: at most all 64).
    const i64 keep = (t - s) * E;
    _mm512_mask_storeu_epi8(out + c * ldo + s * E, keep >= 64 ? ~__mmask64{0} : (__mmask64{1} << keep) - 1,
                            channel(a, c));
  }

  // Output row c's whole lines start at element h[c] (< W); the G groups every row has from its own
  // start are streamed, kUnzipPieces pieces of kUnzipPieceBytes of each row side by side, and each
  // row's ends ([0, h[c]) and past its last group: under 2W elements) go through `part`.
  static void run(const std::byte* in, std::byte* out, i64 ldo, i64 count) {
    i64 h[N], hmax = 0;
    bool uniform = true;
    for (int c = 0; c < N; ++c) {
      const auto mis = static_cast<i64>(reinterpret_cast<std::uintptr_t>(out + c * ldo) % 64);
      h[c] = std::min(count, (64 - mis) % 64 / E);
      hmax = std::max(hmax, h[c]);
      uniform = uniform && h[c] == h[0];
    }
    const i64 G = (count - hmax) / W;
    constexpr i64 QG = kUnzipPieceBytes / 64, BG = kUnzipPieces * QG;  // groups a piece, a block
    auto body = [&](auto&& one) {
      i64 g = 0;
      for (; g + BG <= G; g += BG)
        for (i64 k = 0; k < QG; ++k)
          for (int q = 0; q < kUnzipPieces; ++q) one(g + q * QG + k);
      for (; g < G; ++g) one(g);
    };
    if (uniform) body([&](i64 g) { group(in, out, ldo, h[0] + g * W); });
    else body([&](i64 g) { for (int c = 0; c < N; ++c) group_one(in, out, ldo, c, h[c] + g * W); });
    for (int c = 0; c < N; ++c) {
      part(in, out, ldo, c, 0, h[c]);
      for (i64 i = h[c] + G * W; i < count; i += W) part(in, out, ldo, c, i, std::min(count, i + W));
    }
  }
};

// The reverse (zip_stream): N input rows (channels, ldi apart) -> packed output rows of N elements.
// A group is W elements of each channel (N registers, one per channel) -> N * W packed elements
// (N registers), each output register built by ceil(N / 2) two-source permutes over channel pairs,
// and streamed. The output's first line boundary a group can start on is found once. Its reads are
// N streams already, so it walks one piece: 3 x 4e7 f32 37-39 -> 47-48 GB/s against the tiles, i8
// 28-29 -> 43-44 (docs/cpu.md "Thirty-first session").
template <int E, int N>
struct zip512 {
  static constexpr int W = 64 / E, NP = (N + 1) / 2;
  using lane = typename unzip512<E, N>::lane;
  struct tables {
    std::array<std::array<std::array<lane, W>, NP>, N> idx{};  // [output register][channel pair]
    std::array<std::array<std::uint64_t, NP>, N> mask{};
  };
  static constexpr tables kT = [] {
    tables t{};
    for (int r = 0; r < N; ++r)
      for (int l = 0; l < W; ++l) {
        const int p = r * W + l, c = p % N, i = p / N, pair = c / 2;  // packed position p: channel c, element i
        t.idx[r][pair][l] = static_cast<lane>((c % 2) * W + i);
        t.mask[r][pair] |= std::uint64_t{1} << l;
      }
    return t;
  }();
  static __m512i out_register(const __m512i* a, int r) {
    __m512i acc = _mm512_setzero_si512();
    for (int q = 0; q < NP; ++q) {
      const __m512i ix = _mm512_loadu_si512(kT.idx[r][q].data());
      const __m512i hi = 2 * q + 1 < N ? a[2 * q + 1] : a[2 * q];
      __m512i v;
      if constexpr (E == 1) v = _mm512_permutex2var_epi8(a[2 * q], ix, hi);
      else if constexpr (E == 2) v = _mm512_permutex2var_epi16(a[2 * q], ix, hi);
      else if constexpr (E == 4) v = _mm512_permutex2var_epi32(a[2 * q], ix, hi);
      else v = _mm512_permutex2var_epi64(a[2 * q], ix, hi);
      acc = q == 0 ? v : unzip512<E, N>::merge(acc, kT.mask[r][q], v);
    }
    return acc;
  }
  // Elements j .. j + w - 1 of every channel -> output elements j * N .. (j + w) * N - 1: streamed
  // (a whole group starting on a line), else masked loads and ordinary masked stores.
  template <bool Stream>
  static void group(const std::byte* in, i64 ldi, std::byte* out, i64 j, i64 w) {
    __m512i a[N];
    const __mmask64 lm = w * E >= 64 ? ~__mmask64{0} : (__mmask64{1} << (w * E)) - 1;
    for (int c = 0; c < N; ++c) a[c] = _mm512_maskz_loadu_epi8(lm, in + c * ldi + j * E);
    std::byte* d = out + j * N * E;
    for (int r = 0; r < N; ++r) {
      const __m512i v = out_register(a, r);
      const i64 left = w * N * E - 64 * r;
      if (Stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(d + 64 * r), v);
      else if (left > 0)
        _mm512_mask_storeu_epi8(d + 64 * r, left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1, v);
    }
  }
  static void run(const std::byte* in, i64 ldi, std::byte* out, i64 count) {
    // The first element whose output starts a line (N * E * h + mis a multiple of 64), else none.
    const auto mis = static_cast<i64>(reinterpret_cast<std::uintptr_t>(out) % 64);
    i64 h = 0;
    while (h < 64 && (mis + h * N * E) % 64 != 0) ++h;
    if (h == 64) h = count;  // no group lines up: every element by the masked path
    h = std::min(h, count);
    for (i64 j = 0; j < h; j += W) group<false>(in, ldi, out, j, std::min<i64>(W, h - j));
    i64 j = h;
    for (; j + W <= count; j += W) group<true>(in, ldi, out, j, W);
    for (; j < count; j += W) group<false>(in, ldi, out, j, std::min<i64>(W, count - j));
  }
};

// Calls K<E, N>::run(args...) for e = E and n = N (the channels and element sizes the kernels take).
template <template <int, int> class K, class... A>
void dispatch(std::int64_t n, std::int64_t e, A... args) {
  with_narrow15(n, [&]<int N>() {
    if constexpr (N >= kUnzipMinChannels && N <= kUnzipMaxChannels) {
      if (e == 1) K<1, N>::run(args...);
      else if (e == 2) K<2, N>::run(args...);
      else if (e == 4) K<4, N>::run(args...);
      else if (e == 8) K<8, N>::run(args...);
    }
  });
}

}  // namespace

void zip_stream_avx512(const std::byte* in, std::int64_t ldi, std::byte* out, std::int64_t n, std::int64_t e,
                       std::int64_t count) {
  dispatch<zip512>(n, e, in, ldi, out, count);
}

void unzip_stream_avx512(const std::byte* in, std::byte* out, std::int64_t ldo, std::int64_t n, std::int64_t e,
                         std::int64_t count) {
  dispatch<unzip512>(n, e, in, out, ldo, count);
}

}  // namespace xpose::detail::cpu
