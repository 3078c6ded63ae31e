// AVX-512 VBMI narrow tiles of 1- and 2-byte elements. This translation unit alone is compiled
// with -mavx512f -mavx512bw -mavx512vl -mavx512vbmi (src/CMakeLists.txt); its only entry point,
// vbmi_kernels(), is called after __builtin_cpu_supports says the CPU has all four, so the rest
// of the library stays runnable on any x86-64. (Intel since Ice Lake, AMD since Zen 4.)
//
// What it replaces. A narrow tile (fewer than 16 rows or columns, packed on the short side) of N
// rows is a byte permutation of N x 16 bytes at a time. The AVX2 table does it with pshufb: each
// of the N output vectors is the OR of one pshufb per input vector, N^2 shuffles and ORs per 16N
// bytes (narrow_bytes in microkernels_avx2.cpp), and the columns past the last whole 16 bytes go
// element by element. The permutation-suite tiles are mostly such narrow tiles of a few dozen
// bytes (i8 [52,9,25,8,13,9,4,6] perm 4,1,3,0,6,2,7,5: 9 x 24 tiles, 8% of memcpy, two thirds
// of its time in narrow_bytes<1, 9> and the scalar edges).
//
// Here the N rows' 16-byte chunks are packed four to a 512-bit register (NI = ceil(N / 4)
// registers) and each output register is built by vpermt2b, which picks any byte of two registers:
// ceil(NI / 2) permutes (plus ORs) per output register, NI output registers per 16N bytes. For N =
// 9: 6 permutes where pshufb took 81. A last group of fewer than 16 bytes per row is loaded and
// stored with byte masks, so no element goes alone.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "cpu/microkernels.hpp"
#include "cpu/narrow_dispatch.hpp"

// GCC 12's _mm512_extracti32x4_epi32 passes an _mm_undefined_si128() it then warns about.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

// The permutation of one group: N rows of 16 bytes (W = 16 / E elements) <-> W packed rows of N
// elements. Position q of the "chunk" side is row q / 16, byte q % 16 of that row's chunk; position
// p of the "packed" side is p / E's element of the packed rows. Interleave: chunks -> packed
// (rows(): out[j][i] = in[i][j] with output rows N elements long); deinterleave: packed -> chunks
// (cols(): input rows N elements long). Register r holds positions 64 r .. 64 r + 63 of its side.
template <int E, int N, bool Interleave>
struct narrow_vbmi {
  static constexpr int W = 16 / E, NI = (N + 3) / 4, NP = (NI + 1) / 2;  // registers, register pairs
  struct tables {
    // [output register][source pair]: vpermt2b indices (bit 6 picks the pair's second register)
    // and the output bytes that pair supplies.
    std::array<std::array<std::array<std::uint8_t, 64>, NP>, NI> idx{};
    std::array<std::array<std::uint64_t, NP>, NI> mask{};
  };
  // Source position (same numbering as the output's side) of output position o.
  static constexpr int source(int o) {
    if constexpr (Interleave) {  // o on the packed side: element g = j * N + i, byte b
      const int g = o / E, b = o % E, i = g % N, j = g / N;
      return i * 16 + j * E + b;
    } else {  // o on the chunk side: row c (an input column), element r of its chunk, byte b
      const int c = o / 16, r = (o % 16) / E, b = o % E;
      return (r * N + c) * E + b;
    }
  }
  static constexpr tables kT = [] {
    tables t{};
    for (int o = 0; o < 16 * N; ++o) {
      const int s = source(o), reg = s / 64, pair = reg / 2;
      t.idx[o / 64][pair][o % 64] = static_cast<std::uint8_t>((reg % 2) * 64 + s % 64);
      t.mask[o / 64][pair] |= std::uint64_t{1} << (o % 64);
    }
    return t;
  }();

  [[gnu::always_inline]] static void permute(const __m512i* a, __m512i* o) {
#pragma GCC unroll 8
    for (int r = 0; r < NI; ++r) {
      __m512i acc = _mm512_setzero_si512();
#pragma GCC unroll 4
      for (int q = 0; q < NP; ++q) {
        if (!kT.mask[r][q]) continue;
        const __m512i ix = _mm512_loadu_si512(kT.idx[r][q].data());
        const __m512i hi = 2 * q + 1 < NI ? a[2 * q + 1] : a[2 * q];
        acc = _mm512_or_si512(acc, _mm512_maskz_permutex2var_epi8(kT.mask[r][q], a[2 * q], ix, hi));
      }
      o[r] = acc;
    }
  }

  // Bytes [0, n) of a 64-byte register as a mask.
  [[gnu::always_inline]] static __mmask64 first(i64 n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

  // Lane c % 4 of register c / 4: the 16-byte chunk of row c.
  [[gnu::always_inline]] static __m128i lane(const __m512i* o, int c) {
    switch (c % 4) {  // (c is a constant once the loops are unrolled)
      case 0: return _mm512_castsi512_si128(o[c / 4]);
      case 1: return _mm512_extracti32x4_epi32(o[c / 4], 1);
      case 2: return _mm512_extracti32x4_epi32(o[c / 4], 2);
      default: return _mm512_extracti32x4_epi32(o[c / 4], 3);
    }
  }

  // One group of w <= W columns. Full groups (w == W) are compiled apart, every load, permute and
  // store unrolled with constant masks: in one loop with the partial group's run-time checks, the
  // samples sat on those checks and masked loads, and 31-wide input-packed tiles ran 20.4 GB/s
  // (22.4 unrolled; the AVX2 kernels 24.9, so that side stops at kMediumPackedMax1).
  template <bool Full>
  [[gnu::always_inline]] static void rows_group(const std::byte* in, i64 ldi, std::byte* d, i64 w) {
    __m512i a[NI], o[NI];
    const __mmask16 lm = static_cast<__mmask16>((1u << (w * E)) - 1);
    auto row = [&](int k) __attribute__((always_inline)) {
      if (k >= N) return _mm_setzero_si128();
      const std::byte* p = in + k * ldi;
      return Full || w == W ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)) : _mm_maskz_loadu_epi8(lm, p);
    };
#pragma GCC unroll 8
    for (int r = 0; r < NI; ++r) {
      a[r] = _mm512_zextsi128_si512(row(4 * r));
      if (4 * r + 1 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 1), 1);
      if (4 * r + 2 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 2), 2);
      if (4 * r + 3 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 3), 3);
    }
    permute(a, o);
    const i64 bytes = Full ? 16 * N : w * N * E;
#pragma GCC unroll 8
    for (int r = 0; r < NI; ++r) {
      if (64 * r >= bytes) break;
      if (bytes - 64 * r >= 64) _mm512_storeu_si512(d + 64 * r, o[r]);
      else _mm512_mask_storeu_epi8(d + 64 * r, first(bytes - 64 * r), o[r]);
    }
  }

  // N input rows (ldi apart) -> packed output rows (ldo == N * E), `cols` columns. The narrow
  // tiles (N < 16), often one or two groups long, take one loop that checks each group: with the
  // full groups compiled apart as well, tile() grew and the 9 x 24 tiles of the suite's i8 [52,9,
  // 25,8,13,9,4,6] ran 8% slower.
  [[gnu::always_inline]] static void rows(const std::byte* in, i64 ldi, std::byte* out, i64 cols) {
    if constexpr (N < 16) {
      for (i64 j = 0; j < cols; j += W) rows_group<false>(in + j * E, ldi, out + j * N * E, std::min<i64>(W, cols - j));
      return;
    }
    const i64 full = cols / W * W;
    for (i64 j = 0; j < full; j += W) rows_group<true>(in + j * E, ldi, out + j * N * E, W);
    if (full < cols) rows_group<false>(in + full * E, ldi, out + full * N * E, cols - full);
  }

  // One group of w <= W packed input rows; Full as in rows_group.
  template <bool Full>
  [[gnu::always_inline]] static void cols_group(const std::byte* s, std::byte* out, i64 ldo, i64 w) {
    __m512i a[NI], o[NI];
    const i64 bytes = Full ? 16 * N : w * N * E;
#pragma GCC unroll 8
    for (int r = 0; r < NI; ++r)
      a[r] = bytes - 64 * r >= 64 ? _mm512_loadu_si512(s + 64 * r)
                                  : _mm512_maskz_loadu_epi8(first(bytes > 64 * r ? bytes - 64 * r : 0), s + 64 * r);
    permute(a, o);
    const __mmask16 sm = static_cast<__mmask16>((1u << (w * E)) - 1);
#pragma GCC unroll 32
    for (int c = 0; c < N; ++c) {
      std::byte* d = out + c * ldo;
      if (Full || w == W) _mm_storeu_si128(reinterpret_cast<__m128i*>(d), lane(o, c));
      else _mm_mask_storeu_epi8(d, sm, lane(o, c));
    }
  }

  // Packed input rows (ldi == N * E), `rows` of them -> N output rows (ldo apart).
  [[gnu::always_inline]] static void cols(const std::byte* in, std::byte* out, i64 ldo, i64 rows) {
    if constexpr (N < 16) {  // as in rows()
      for (i64 i = 0; i < rows; i += W) cols_group<false>(in + i * N * E, out + i * E, ldo, std::min<i64>(W, rows - i));
      return;
    }
    const i64 full = rows / W * W;
    for (i64 i = 0; i < full; i += W) cols_group<true>(in + i * N * E, out + i * E, ldo, W);
    if (full < rows) cols_group<false>(in + full * N * E, out + full * E, ldo, rows - full);
  }
};

const kernel_table* base() { return avx2_kernels(); }

// The narrow tiles (a side of 2-15, packed on that side) that this file runs faster than the AVX2
// kernels, which take every other tile: short ones (a long side under kShortSide elements, where
// the AVX2 kernels move the columns past the last 16 bytes one element at a time) and 1-byte tiles
// of 5 rows and more. Interleaved runs in alternating order on the 2-core machine (an Intel Xeon),
// % of memcpy, AVX2 / this (docs/cpu.md "Twenty-second session"): i8 5 x 4e7 70.4 / 87.6, 75.5 /
// 91.8; 12 x 2e7 69.1 / 113.4, 75.5 / 114.7; i8 [52,9,25,8,13,9,4,6] perm 4,1,3,0,6,2,7,5 (9 x 24
// tiles) 8.8 / 14.3, 8.4 / 14.8. Long tiles otherwise lost or tied (f16 3 x 4e7 81.5-83.8 / 76.0-80.9
// in four rounds; f16 9 x 3e7 81-94 / 77-86; i8 4e7 x 3 67-72 / 64-67; i8 3 x 4e7 and 3e7 x 9 tied):
// a group of N 16-byte rows ends in a masked store unless N is a multiple of 4.
// Plans of the `amd` tuning take narrow tiles of any length here (tile<E, Long = true>, the table's
// tile_amd). Zen 4 host, 2 threads, two alternating rounds, GB/s, AVX2 -> this (docs/cpu.md
// "Fifty-first session"): batches of small matrices, i8 [514244,174,3] perm 0,2,1 20.9 -> 28.6,
// [243148,184,6] 26.1 -> 32.0, f16 [257122,174,3] 28.6 -> 30.7, [257122,3,174] 24.9 -> 30.1,
// [20000,12,700] 31.4 -> 40.2; long ones, i8 2.2e7 x 12 37.2 -> 50.4, f16 1.5e7 x 9 47.8 -> 55.0,
// f16 3 x 4.5e7 56.1 -> 72.7; i8 3e7 x 9 level. (The Intel host was not measured again.)
constexpr i64 kShortSide = 64, kLongRowsMin1 = 5;
// Medium tiles: a packed side of 17-31 elements (kMediumMax), which the AVX2 kernels do as a 16x16
// block and a second, overlapping one (every byte shuffled twice). Here the same group permute,
// up to 8 registers. Interleaved rounds on the Zen 4 host, 2 threads, GB/s of the 2-D transpose
// of 256 MiB, AVX2 -> this (docs/cpu.md "Fifty-first session"):
// - rows packed on the output (N x 2^28/N): i8 N = 17 26.7 -> 42.9, 19 27.4 -> 35.2, 22 25.7 ->
//   30.9, 26 24.3 -> 33.1, 31 25.4 -> 29.6; f16 17 23.6 -> 32.6, 22 27.2 -> 36.5, 31 22.4 -> 30.6.
// - rows packed on the input (2^28/N x N): i8 17 20.6 -> 26.2, 19 21.2 -> 25.1, 20 20.6 -> 26.4,
//   21 21.7 -> 23.8, 23 22.4 -> 24.9, 24 24.9 -> 28.0, but 26 23.9 -> 22.8, 31 24.6 -> 22.0
//   (stalled on the loads; prefetches only brought it back to level); f16 19-21 level. So that
//   side only for bytes, N <= kMediumPackedMax1 (microkernels.hpp). Staged chain links of such
//   rows are packed for it (blocked.cpp, links_stage_stride): i8 [1472,6,22,6,10,23] perm
//   0,2,5,1,4,3 (23 B links) 17.3-18.1 -> 19.3-20.1.
// Both for every tuning (the Intel host was not measured).
constexpr i64 kMediumMax = 31;
template <int E>
bool medium(i64 rows, i64 cols, i64 ldi, i64 ldo, bool& out_packed) {
  out_packed = rows > 16 && rows <= kMediumMax && ldo == rows * E && cols >= 16 / E;
  return out_packed || (E == 1 && cols > 16 && cols <= kMediumPackedMax1 && ldi == cols && rows >= 16);
}

// Out of line: the narrow tiles' kernels above are inlined into tile(), and short tiles lost 10%
// when these long tiles' 30 kernels were too (GCC then stopped inlining the narrow ones).
template <int E>
[[gnu::noinline]] void medium_tile(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols,
                                   bool out_packed) {
  if (out_packed)
    with_count<17, kMediumMax>(rows, [&]<int N>() { narrow_vbmi<E, N, true>::rows(in, ldi, out, cols); });
  else
    with_count<17, kMediumPackedMax1>(cols, [&]<int N>() { narrow_vbmi<E, N, false>::cols(in, out, ldo, rows); });
}

template <int E, bool Long>
[[gnu::always_inline]] inline bool narrow(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (rows >= 2 && rows <= 15 && ldo == rows * E && (Long || cols < kShortSide || (E == 1 && rows >= kLongRowsMin1))) {
    with_count<2, 15>(rows, [&]<int N>() __attribute__((always_inline)) {
      narrow_vbmi<E, N, true>::rows(in, ldi, out, cols);
    });
    return true;
  }
  if (cols >= 2 && cols <= 15 && ldi == cols * E && (Long || rows < kShortSide)) {
    with_count<2, 15>(cols, [&]<int N>() __attribute__((always_inline)) {
      narrow_vbmi<E, N, false>::cols(in, out, ldo, rows);
    });
    return true;
  }
  if (bool out_packed; medium<E>(rows, cols, ldi, ldo, out_packed)) {
    medium_tile<E>(in, ldi, out, ldo, rows, cols, out_packed);
    return true;
  }
  return false;
}

template <int E, bool Long>
void tile(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (narrow<E, Long>(in, ldi, out, ldo, rows, cols)) return;
  base()->tile[E == 1 ? 0 : 1](in, ldi, out, ldo, rows, cols);
}

// kernel_table::stream_split_lines. 64 output bytes of a row are part q of each of 64 / E words,
// 256 / E buffer bytes: for halves one vpermt2w of two loads, for bytes two vpermt2b of four
// loads (each takes 32 bytes from a pair of registers) and a blend. Output rows at one line offset
// (whole-line strides) share the loads: one loop for all 4 / E rows of a buffer row.
template <int E>
void stream_split_lines_of(std::byte* dst, i64 ldo, const std::byte* buf, i64 ldb, i64 rows, i64 len) {
  constexpr int W = 4 / E;  // output rows per buffer row
  // pick[q]: byte or half m of output part q is the buffer's element W m + q (of two registers).
  alignas(64) static constexpr auto kPick = [] {
    std::array<std::array<std::uint8_t, 64>, W> a{};
    for (int q = 0; q < W; ++q)
      for (int m = 0; m < 64; ++m)
        a[q][m] = static_cast<std::uint8_t>((W * m + q) & (E == 1 ? 127 : 63));  // (halves: the first 32)
    return a;
  }();
  __m512i pick[W];
  for (int q = 0; q < W; ++q)
    pick[q] = E == 1 ? _mm512_load_si512(kPick[q].data())
                     : _mm512_cvtepu8_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(kPick[q].data())));
  auto first_of = [](const std::byte* d) { return static_cast<i64>((64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63); };
  // The 64 bytes at row byte k of each output part come from the 256 / E buffer bytes at W * k,
  // loaded once (stores between the loads could alias them for all the compiler knows).
  auto load = [&](const std::byte* s, i64 k, __m512i (&x)[4]) {  // W registers: halves 2, bytes 4
    for (int i = 0; i < W; ++i) x[i] = _mm512_loadu_si512(s + W * k + 64 * i);
  };
  auto part = [&](const __m512i (&x)[4], int q) {
    if constexpr (E == 2) {
      return _mm512_permutex2var_epi16(x[0], pick[q], x[1]);
    } else {  // bytes 0-31 from the first 128 buffer bytes, 32-63 from the rest
      return _mm512_mask_blend_epi64(0xf0, _mm512_permutex2var_epi8(x[0], pick[q], x[1]),
                                     _mm512_permutex2var_epi8(x[2], pick[q], x[3]));
    }
  };
  __m512i x[4];
  for (i64 r = 0; r < rows; ++r) {
    const std::byte* s = buf + r * ldb;
    std::byte* d = dst + W * r * ldo;
    bool same = true;
    for (int q = 1; q < W; ++q) same = same && first_of(d + q * ldo) == first_of(d);
    if (!same) {
      for (int q = 0; q < W; ++q)
        for (i64 k = first_of(d + q * ldo); k < len; k += 64) {
          load(s, k, x);
          _mm512_stream_si512(reinterpret_cast<__m512i*>(d + q * ldo + k), part(x, q));
        }
      continue;
    }
    for (i64 k = first_of(d); k < len; k += 64) {
      load(s, k, x);
      for (int q = 0; q < W; ++q) _mm512_stream_si512(reinterpret_cast<__m512i*>(d + q * ldo + k), part(x, q));
    }
  }
}
void stream_split_lines(std::byte* dst, i64 ldo, const std::byte* buf, i64 ldb, i64 rows, i64 len, i64 e) {
  if (e == 1) stream_split_lines_of<1>(dst, ldo, buf, ldb, rows, len);
  else stream_split_lines_of<2>(dst, ldo, buf, ldb, rows, len);
}

}  // namespace

const kernel_table* vbmi_kernels() {
  const kernel_table* b = base();
  if (!b) return nullptr;
  static const kernel_table t = [b] {
    kernel_table k = *b;
    k.isa = "avx512vbmi";
    k.tile[0] = tile<1, false>;
    k.tile[1] = tile<2, false>;
    k.tile_amd = {tile<1, true>, tile<2, true>};
    k.unzip_stream = unzip_stream_avx512;
    k.zip_stream = zip_stream_avx512;
    k.stream_split_lines = stream_split_lines;
    return k;
  }();
  return &t;
}

}  // namespace xpose::detail::cpu
