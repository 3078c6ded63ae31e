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

  static void permute(const __m512i* a, __m512i* o) {
    for (int r = 0; r < NI; ++r) {
      __m512i acc = _mm512_setzero_si512();
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
  static __mmask64 first(i64 n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

  // N input rows (ldi apart) -> packed output rows (ldo == N * E), `cols` columns.
  static void rows(const std::byte* in, i64 ldi, std::byte* out, i64 cols) {
    __m512i a[NI], o[NI];
    for (i64 j = 0; j < cols; j += W) {
      const i64 w = cols - j < W ? cols - j : W;  // columns in this group
      const __mmask16 lm = static_cast<__mmask16>((1u << (w * E)) - 1);
      auto row = [&](int k) {
        if (k >= N) return _mm_setzero_si128();
        const std::byte* p = in + k * ldi + j * E;
        return w == W ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)) : _mm_maskz_loadu_epi8(lm, p);
      };
      for (int r = 0; r < NI; ++r) {
        a[r] = _mm512_zextsi128_si512(row(4 * r));
        if (4 * r + 1 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 1), 1);
        if (4 * r + 2 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 2), 2);
        if (4 * r + 3 < N) a[r] = _mm512_inserti32x4(a[r], row(4 * r + 3), 3);
      }
      permute(a, o);
      std::byte* d = out + j * N * E;
      const i64 bytes = w * N * E;
      for (int r = 0; r < NI && 64 * r < bytes; ++r) {
        if (bytes - 64 * r >= 64) _mm512_storeu_si512(d + 64 * r, o[r]);
        else _mm512_mask_storeu_epi8(d + 64 * r, first(bytes - 64 * r), o[r]);
      }
    }
  }

  // Packed input rows (ldi == N * E), `rows` of them -> N output rows (ldo apart).
  static void cols(const std::byte* in, std::byte* out, i64 ldo, i64 rows) {
    __m512i a[NI], o[NI];
    for (i64 i = 0; i < rows; i += W) {
      const i64 w = rows - i < W ? rows - i : W;  // input rows in this group
      const std::byte* s = in + i * N * E;
      const i64 bytes = w * N * E;
      for (int r = 0; r < NI; ++r)
        a[r] = bytes - 64 * r >= 64 ? _mm512_loadu_si512(s + 64 * r)
                                    : _mm512_maskz_loadu_epi8(first(bytes > 64 * r ? bytes - 64 * r : 0), s + 64 * r);
      permute(a, o);
      const __mmask16 sm = static_cast<__mmask16>((1u << (w * E)) - 1);
      for (int c = 0; c < N; ++c) {
        __m128i y;
        switch (c % 4) {  // (c is a constant once the loop is unrolled)
          case 0: y = _mm512_castsi512_si128(o[c / 4]); break;
          case 1: y = _mm512_extracti32x4_epi32(o[c / 4], 1); break;
          case 2: y = _mm512_extracti32x4_epi32(o[c / 4], 2); break;
          default: y = _mm512_extracti32x4_epi32(o[c / 4], 3); break;
        }
        std::byte* d = out + c * ldo + i * E;
        if (w == W) _mm_storeu_si128(reinterpret_cast<__m128i*>(d), y);
        else _mm_mask_storeu_epi8(d, sm, y);
      }
    }
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
constexpr i64 kShortSide = 64, kLongRowsMin1 = 5;
template <int E>
bool narrow(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (rows >= 2 && rows <= 15 && ldo == rows * E && (cols < kShortSide || (E == 1 && rows >= kLongRowsMin1))) {
    with_narrow15(rows, [&]<int N>() {
      if constexpr (N >= 2) narrow_vbmi<E, N, true>::rows(in, ldi, out, cols);
    });
    return true;
  }
  if (cols >= 2 && cols <= 15 && ldi == cols * E && rows < kShortSide) {
    with_narrow15(cols, [&]<int N>() {
      if constexpr (N >= 2) narrow_vbmi<E, N, false>::cols(in, out, ldo, rows);
    });
    return true;
  }
  return false;
}

template <int E>
void tile(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (narrow<E>(in, ldi, out, ldo, rows, cols)) return;
  base()->tile[E == 1 ? 0 : 1](in, ldi, out, ldo, rows, cols);
}

}  // namespace

const kernel_table* vbmi_kernels() {
  const kernel_table* b = base();
  if (!b) return nullptr;
  static const kernel_table t = [b] {
    kernel_table k = *b;
    k.isa = "avx512vbmi";
    k.tile[0] = tile<1>;
    k.tile[1] = tile<2>;
    k.unzip_stream = unzip_stream_avx512;
    k.zip_stream = zip_stream_avx512;
    return k;
  }();
  return &t;
}

}  // namespace xpose::detail::cpu
