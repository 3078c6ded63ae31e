// AVX2 tile kernels. This translation unit alone is compiled with -mavx2 (src/CMakeLists.txt); its
// only entry point, avx2_kernels(), is called after __builtin_cpu_supports("avx2") says yes, so
// the rest of the library stays runnable on any x86-64.
//
// Every micro-kernel is "load a square of input rows into registers, permute in registers, store
// the square's columns as output rows". Shapes, by element size:
//   4 B  8x8   unpack_ps / shuffle_ps within 128-bit lanes; the two lanes are filled from rows i
//              and i+4 by the loads (insertf128), so no cross-lane shuffle is needed
//   8 B  4x4   unpack_pd, lanes filled from rows i and i+2 by the loads
//   2 B  16x16 two 8(col)x16(row) halves: lanes hold rows i and i+8, three in-lane epi16 unpack rounds;
//        8x16 (lanes hold two 8x8 blocks) for tiles walked along their rows (rows_first)
//   1 B  16x32 two 16x16 blocks, one per lane, four in-lane epi8 unpack rounds (16x16 SSE for a rest)
//   16 B 1x1   one 128-bit move per element
// Each round pairs register k with k + n/2 (lo -> 2k, hi -> 2k+1): on the bit string (register
// index, element index) that is a rotation by one bit, so log2(n) rounds swap the two halves,
// which is the transpose. Tiles whose sides are not multiples of the square: 4-byte tiles of at
// least 8 x 8 overlap their last blocks (`overlapped`), 1- and 2-byte tiles with a whole block on a
// side too (`overlapped_edges`); 4- and 8-byte edges narrower than the square use 4- and 2-row
// (column) pieces, overlapping (block_4b_rows and its kin); no masked moves are left. Scalar moves
// otherwise.
// Narrow 4-byte tiles (fewer than 8 rows or columns, packed on the short side: 3 x 40,000,000 f32
// and its reverse) have their own permute-and-blend kernels (narrow_shuffle),
// narrow 1-, 2- and 8-byte tiles pshufb kernels (narrow_bytes), but bytes and halves with a narrow
// side of 5 or 6 to 15 (kUnpackMinN) the full blocks' unpack rounds (narrow_unpack_*: 2-D 9 x 3e7
// i8 31.6% -> 70.3% of memcpy, f16 38.4% -> 96.4%, 12 x 2e7 i8 27.8% -> 54.9%, interleaved runs, docs/cpu.md
// "Twentieth session"). Folded elements of odd sizes can be
// padded to the next power of two and back (slot_rows: kernel_table::pad_rows / unpad_rows; blocked.cpp
// says which sizes do).
//
// Everything here is internal (anonymous namespace) on purpose: an inline function shared with
// other translation units could be emitted from this one, with AVX2 instructions, and picked by
// the linker for callers on any CPU.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "cpu/microkernels.hpp"
#include "cpu/narrow_dispatch.hpp"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

template <int E>
void scalar_edge(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i) std::memcpy(out + j * ldo + i * E, in + i * ldi + j * E, E);
}

// The edges of a tile of rows x cols whose blocks of br x bc elements covered [0, r0) x [0, c0)
// (r0, c0 the sides rounded down to whole blocks): where the tile has a whole block on a side, the
// edge is more blocks, the last row (column) of them ending at the tile's last row (column) and
// overlapping the one before it, which rewrites a few elements with the same values, all inside
// the tile; scalar moves otherwise (scalar(r0, c0, rows, cols) covers a rectangle). `overlapped`
// below does this for a whole 4-byte tile; here only the edges, so the body keeps its own block
// order, 32-column blocks and L1 staging. For 1- and 2-byte tiles, whose edges were all scalar
// before (eighteenth session; 2-core machine, `auto`, GB/s, the mean of three interleaved runs,
// before -> after): i8 [84,25,14,19,19,25] perm 5,4,3,0,1,2
// (256 x 25 tiles) 7.7 -> 8.5, [92,201,168,85] reversal (92 x 85) 7.7 -> 8.9; f16 [274,108,82,55] perm
// 3,2,0,1 (576 x 55) 11.3 -> 13.3, [46,201,168,85] reversal 11.2 -> 12.5; tiles of 21 x 3 with long
// chains ([776,12,21,3,8,19,3] perm 6,5,4,1,3,0,2) level.
template <class Block, class Scalar>
void overlapped_edges(i64 rows, i64 cols, i64 r0, i64 c0, i64 br, i64 bc, Block block, Scalar scalar) {
  if (rows > r0 && r0 > 0)
    for (i64 j = 0; j < c0; j += bc) block(rows - br, j);
  else
    scalar(r0, 0, rows - r0, c0);
  if (cols > c0 && c0 > 0 && r0 > 0) {
    for (i64 i = 0; i < r0; i += br) block(i, cols - bc);
    if (rows > r0) block(rows - br, cols - bc);
  } else {
    scalar(0, c0, rows, cols - c0);
  }
}

// The order of a tile's register blocks. Along each group of input rows first (i outer) when the
// tile's input rows are long: the input is then read as 4-16 streams at a time, each line used up
// at once, which the prefetchers follow (16384^2 f32 at 81% of memcpy vs 42%, 8192^2 f64 73-79%
// vs 48%, with the longer tiles of blocked.cpp). Down each column of blocks first (j outer) when
// they are short: the staging buffer's rows are then written in order, and a short-row input is
// one contiguous run either way (NCHW-like [64,128,128,64] perm (0,3,1,2) ran at 56% vs 79% i
// outer). kRowsFirstBytes (microkernels.hpp): the large tiles' rows are 2-4 KiB, the short-side
// ones at most 512 B.
inline bool rows_first(i64 row_bytes) { return row_bytes >= kRowsFirstBytes; }

// ---------------------------------------------------------------------------------- 4-byte, 8x8
inline __m128 load4(const std::byte* p) { return _mm_loadu_ps(reinterpret_cast<const float*>(p)); }
inline __m256 load_pair(const std::byte* lo, const std::byte* hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(load4(lo)), load4(hi), 1);
}

// r[k] = [row k | row k+4] (4 columns each); returns the 8 output rows in r.
inline void transpose_lanes_ps(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  r[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  r[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  r[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  r[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  r[4] = _mm256_shuffle_ps(t4, t6, 0x44);
  r[5] = _mm256_shuffle_ps(t4, t6, 0xEE);
  r[6] = _mm256_shuffle_ps(t5, t7, 0x44);
  r[7] = _mm256_shuffle_ps(t5, t7, 0xEE);
}

inline void block_4b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m256 r[8];
  for (int k = 0; k < 4; ++k) {
    r[k] = load_pair(in + k * ldi, in + (k + 4) * ldi);
    r[k + 4] = load_pair(in + k * ldi + 16, in + (k + 4) * ldi + 16);
  }
  transpose_lanes_ps(r);
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(out + k * ldo), r[k]);
}

// Edges of fewer than 8 rows or columns, without masks. Masked stores (vmaskmovps) are slow on
// this CPU (Zen 4; docs/cpu.md "Fifth round"): the 4 x 64 tiles of the [4,8,8,8,8,8,16,32] f32
// reversal ran at 8.9-9.4 GB/s with them, 12.6-13.6 without ("Sixth round"). An edge of n rows
// is instead covered by full 4- or 2-row pieces, the last one starting n - 4 (n - 2) rows in
// and overlapping the one before it (rewriting a few elements with the same values, all inside
// the edge); columns the same way. Every load and store stays inside the edge, so nothing
// outside the tile is touched.

// 4 input rows x 8 columns -> 8 output rows of 4 (16-byte stores): lane h holds columns 4h..4h+3.
inline void piece_4b_4rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m256 r[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + k * ldi));
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 o[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                       _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE)};
  for (int c = 0; c < 4; ++c) {
    _mm_storeu_ps(reinterpret_cast<float*>(out + c * ldo), _mm256_castps256_ps128(o[c]));
    _mm_storeu_ps(reinterpret_cast<float*>(out + (c + 4) * ldo), _mm256_extractf128_ps(o[c], 1));
  }
}

// 2 input rows x 8 columns -> 8 output rows of 2 (8-byte stores).
inline void piece_4b_2rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  const __m256 r0 = _mm256_loadu_ps(reinterpret_cast<const float*>(in));
  const __m256 r1 = _mm256_loadu_ps(reinterpret_cast<const float*>(in + ldi));
  const __m256 t[2] = {_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1)};  // columns 0,1|4,5 and 2,3|6,7
  for (int h = 0; h < 2; ++h) {
    const __m128 lo = _mm256_castps256_ps128(t[h]), hi = _mm256_extractf128_ps(t[h], 1);
    _mm_storel_pi(reinterpret_cast<__m64*>(out + (2 * h) * ldo), lo);
    _mm_storeh_pi(reinterpret_cast<__m64*>(out + (2 * h + 1) * ldo), lo);
    _mm_storel_pi(reinterpret_cast<__m64*>(out + (2 * h + 4) * ldo), hi);
    _mm_storeh_pi(reinterpret_cast<__m64*>(out + (2 * h + 5) * ldo), hi);
  }
}

// 8 input rows x 4 columns -> 4 output rows of 8: the first half of block_4b.
inline void piece_4b_4cols(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m256 r[4];
  for (int k = 0; k < 4; ++k) r[k] = load_pair(in + k * ldi, in + (k + 4) * ldi);
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  _mm256_storeu_ps(reinterpret_cast<float*>(out), _mm256_shuffle_ps(t0, t2, 0x44));
  _mm256_storeu_ps(reinterpret_cast<float*>(out + ldo), _mm256_shuffle_ps(t0, t2, 0xEE));
  _mm256_storeu_ps(reinterpret_cast<float*>(out + 2 * ldo), _mm256_shuffle_ps(t1, t3, 0x44));
  _mm256_storeu_ps(reinterpret_cast<float*>(out + 3 * ldo), _mm256_shuffle_ps(t1, t3, 0xEE));
}

// 8 input rows x 2 columns (8-byte loads) -> 2 output rows of 8.
inline void piece_4b_2cols(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  auto two = [&](int k) {  // [row k | row k+1], 2 columns each
    const __m128 z = _mm_setzero_ps();
    return _mm_loadh_pi(_mm_loadl_pi(z, reinterpret_cast<const __m64*>(in + k * ldi)),
                        reinterpret_cast<const __m64*>(in + (k + 1) * ldi));
  };
  const __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(two(0)), two(4), 1);  // rows 0,1 | 4,5
  const __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(two(2)), two(6), 1);  // rows 2,3 | 6,7
  _mm256_storeu_ps(reinterpret_cast<float*>(out), _mm256_shuffle_ps(a, b, 0x88));
  _mm256_storeu_ps(reinterpret_cast<float*>(out + ldo), _mm256_shuffle_ps(a, b, 0xDD));
}

// n < 8 input rows, 8 columns: the output rows are n elements long.
inline void block_4b_rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 n) {
  if (n >= 4) {
    piece_4b_4rows(in, ldi, out, ldo);
    if (n > 4) piece_4b_4rows(in + (n - 4) * ldi, ldi, out + (n - 4) * 4, ldo);
  } else if (n >= 2) {
    piece_4b_2rows(in, ldi, out, ldo);
    if (n > 2) piece_4b_2rows(in + ldi, ldi, out + 4, ldo);
  } else {
    scalar_edge<4>(in, ldi, out, ldo, n, 8);
  }
}

// 8 input rows, n < 8 columns: n output rows.
inline void block_4b_cols(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 n) {
  if (n >= 4) {
    piece_4b_4cols(in, ldi, out, ldo);
    if (n > 4) piece_4b_4cols(in + (n - 4) * 4, ldi, out + (n - 4) * ldo, ldo);
  } else if (n >= 2) {
    piece_4b_2cols(in, ldi, out, ldo);
    if (n > 2) piece_4b_2cols(in + 4, ldi, out + ldo, ldo);
  } else {
    scalar_edge<4>(in, ldi, out, ldo, 8, n);
  }
}

// Narrow tiles (fewer than 8 rows or columns) whose short side is packed: an N x 8 block is 8N
// contiguous elements on that side, i.e. N whole vectors, and the transpose is a fixed shuffle of
// N vectors into N vectors. Each output vector is gathered from its (at most N) source vectors by
// one permutevar8x32 and one immediate blend per source; the tables are compile-time constants
// for each N. This replaced masked stores (8 per 8 columns) on 3 x 40,000,000 f32 (docs/cpu.md).
//   interleave (N rows of 8 -> 8 rows of N): output lane g = 8t + l is row g % N, column g / N.
//   deinterleave (8 rows of N -> N rows of 8): output t, lane l (input row l) is input element
//   l * N + t of the block, i.e. vector (l * N + t) / 8, lane (l * N + t) % 8.
template <int N, bool Interleave>
struct narrow_shuffle {
  struct tables {
    int idx[8][8];  // [t][l]: lane of the source vector
    int mask[8][8];  // [t][v]: blend mask of the lanes taken from source vector v
  };
  static constexpr tables kT = [] {
    tables t{};
    for (int o = 0; o < N; ++o)
      for (int l = 0; l < 8; ++l) {
        const int flat = Interleave ? 8 * o + l : l * N + o;
        const int src = Interleave ? flat % N : flat / 8;
        t.idx[o][l] = Interleave ? flat / N : flat % 8;
        t.mask[o][src] |= 1 << l;
      }
    return t;
  }();

  template <int O, int V>
  static __m256i take(__m256i acc, const __m256i* src, __m256i idx) {
    if constexpr (kT.mask[O][V] == 0) return acc;
    else return _mm256_blend_epi32(acc, _mm256_permutevar8x32_epi32(src[V], idx), kT.mask[O][V]);
  }
  template <int O, int... V>
  static __m256i one(const __m256i* src, std::integer_sequence<int, V...>) {
    const __m256i idx = _mm256_setr_epi32(kT.idx[O][0], kT.idx[O][1], kT.idx[O][2], kT.idx[O][3], kT.idx[O][4],
                                          kT.idx[O][5], kT.idx[O][6], kT.idx[O][7]);
    __m256i acc = _mm256_setzero_si256();
    ((acc = take<O, V>(acc, src, idx)), ...);
    return acc;
  }
  template <int... O>
  static void all(const __m256i* src, __m256i* dst, std::integer_sequence<int, O...>) {
    ((dst[O] = one<O>(src, std::make_integer_sequence<int, N>{})), ...);
  }
  static void run(const __m256i* src, __m256i* dst) { all(src, dst, std::make_integer_sequence<int, N>{}); }
};

// rows (N) < 8 input rows, packed output rows (ldo == N * 4): columns in blocks of 8.
template <int N>
void narrow_rows_4b(const std::byte* in, i64 ldi, std::byte* out, i64 c8) {
  __m256i a[N], o[N];
  for (i64 j = 0; j < c8; j += 8) {
    for (int k = 0; k < N; ++k) a[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * ldi + j * 4));
    narrow_shuffle<N, true>::run(a, o);
    for (int k = 0; k < N; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j * N * 4 + 32 * k), o[k]);
  }
}

// cols (N) < 8 input columns, packed input rows (ldi == N * 4): rows in blocks of 8.
template <int N>
void narrow_cols_4b(const std::byte* in, std::byte* out, i64 ldo, i64 r8) {
  __m256i a[N], o[N];
  for (i64 i = 0; i < r8; i += 8) {
    for (int k = 0; k < N; ++k) a[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i * N * 4 + 32 * k));
    narrow_shuffle<N, false>::run(a, o);
    for (int k = 0; k < N; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k * ldo + i * 4), o[k]);
  }
}

// Calls f.template operator()<N>() for 1 <= n <= 7.
template <class F>
void with_narrow(i64 n, F&& f) {
  switch (n) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 3: return f.template operator()<3>();
    case 4: return f.template operator()<4>();
    case 5: return f.template operator()<5>();
    case 6: return f.template operator()<6>();
    case 7: return f.template operator()<7>();
  }
}

// A tile of at least B x B whose sides are not multiples of B: the last block of each side starts
// B before the end, overlapping the one before it, so every block is a full one (rewriting a few
// elements with the same values) instead of masked loads and stores (vmaskmovps) at the edges,
// which this CPU (Zen 4) runs slowly: the 14 x 24 chained tiles of [6,18,22,13,3,14,2,24] perm
// 7,1,4,6,3,2,0,5 f32 went from 7.6-8.6 to 14.2-14.6 GB/s (interleaved runs, docs/cpu.md "Fifth
// round"). For 8-byte tiles (4x4 blocks) the same measured no change; their edges use the 2-row
// and 2-column pieces of block_8b_rows / _cols.
template <int E, int B, class Block>
void overlapped(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols, Block block) {
  const i64 il = rows - B, jl = cols - B;  // the last blocks' starts
  auto at = [&](i64 i, i64 j) { block(in + i * ldi + j * E, ldi, out + j * ldo + i * E, ldo); };
  if (rows_first(cols * E)) {
    for (i64 i = 0;; i += B) {
      i = std::min(i, il);
      for (i64 j = 0;; j += B) {
        j = std::min(j, jl);
        at(i, j);
        if (j == jl) break;
      }
      if (i == il) break;
    }
  } else {
    for (i64 j = 0;; j += B) {
      j = std::min(j, jl);
      for (i64 i = 0;; i += B) {
        i = std::min(i, il);
        at(i, j);
        if (i == il) break;
      }
      if (j == jl) break;
    }
  }
}

void tile_4b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  const i64 r8 = rows & ~i64{7}, c8 = cols & ~i64{7};
  if (rows < 8 && ldo == rows * 4 && c8 > 0) {
    with_narrow(rows, [&]<int N>() { narrow_rows_4b<N>(in, ldi, out, c8); });
    scalar_edge<4>(in + c8 * 4, ldi, out + c8 * ldo, ldo, rows, cols - c8);
    return;
  }
  if (cols < 8 && ldi == cols * 4 && r8 > 0) {
    with_narrow(cols, [&]<int N>() { narrow_cols_4b<N>(in, out, ldo, r8); });
    scalar_edge<4>(in + r8 * ldi, ldi, out + r8 * 4, ldo, rows - r8, cols);
    return;
  }
  if (rows >= 8 && cols >= 8 && (r8 < rows || c8 < cols)) {
    overlapped<4, 8>(in, ldi, out, ldo, rows, cols, block_4b);
    return;
  }
  // One side under 8 (and not packed): 8-wide blocks along the other side, the last one
  // overlapped as in `overlapped`, so no scalar corner is left (the 6 x 23 tiles of
  // [368,6,22,6,10,23] perm 0,2,5,1,4,3 f32: 13.7-13.9 -> 19.6-20.3 GB/s with the pieces above).
  if (rows < 8 && cols >= 8) {
    for (i64 j = 0;; j += 8) {
      j = std::min(j, cols - 8);
      block_4b_rows(in + j * 4, ldi, out + j * ldo, ldo, rows);
      if (j == cols - 8) return;
    }
  }
  if (cols < 8 && rows >= 8) {
    for (i64 i = 0;; i += 8) {
      i = std::min(i, rows - 8);
      block_4b_cols(in + i * ldi, ldi, out + i * 4, ldo, cols);
      if (i == rows - 8) return;
    }
  }
  if (rows < 8 && cols < 8) {
    scalar_edge<4>(in, ldi, out, ldo, rows, cols);
    return;
  }
  // Both sides multiples of 8.
  if (rows_first(cols * 4)) {
    for (i64 i = 0; i < rows; i += 8)
      for (i64 j = 0; j < cols; j += 8) block_4b(in + i * ldi + j * 4, ldi, out + j * ldo + i * 4, ldo);
  } else {
    for (i64 j = 0; j < cols; j += 8)
      for (i64 i = 0; i < rows; i += 8) block_4b(in + i * ldi + j * 4, ldi, out + j * ldo + i * 4, ldo);
  }
}

// ------------------------------------------------------------ 1-, 2- and 8-byte narrow tiles
// Narrow tiles of 1- and 2-byte elements (fewer than 16 rows or columns, packed on the short side:
// 3 x 40,000,000 i8 and its reverse) never fill a 16x16 block, and element-by-element moves ran
// them at 20-25% of memcpy. As for narrow_shuffle: N vectors of W = 16 / E elements in, N out; each
// output vector is the OR of one pshufb per source vector that contributes to it (index 0x80
// writes zero), with compile-time tables per (E, N, direction).
//   interleave (N rows of W -> W rows of N): output element g = W*t + l is row g % N, column g / N.
//   deinterleave (W rows of N -> N rows of W): output t, element l is input element l * N + t.
template <int E, int N, bool Interleave>
struct narrow_bytes {
  static constexpr int W = 16 / E;
  struct tables {
    signed char idx[N][N][16];  // [output vector][source vector]: pshufb indices
    bool used[N][N];
  };
  static constexpr tables kT = [] {
    tables t{};
    for (int o = 0; o < N; ++o)
      for (int v = 0; v < N; ++v)
        for (int b = 0; b < 16; ++b) t.idx[o][v][b] = -128;
    for (int o = 0; o < N; ++o)
      for (int l = 0; l < W; ++l) {
        const int g = Interleave ? W * o + l : l * N + o;
        const int src = Interleave ? g % N : g / W, lane = Interleave ? g / N : g % W;
        for (int b = 0; b < E; ++b) t.idx[o][src][l * E + b] = static_cast<signed char>(lane * E + b);
        t.used[o][src] = true;
      }
    return t;
  }();

  template <int O, int V>
  static __m128i take(__m128i acc, const __m128i* src) {
    if constexpr (!kT.used[O][V]) return acc;
    else return _mm_or_si128(acc, _mm_shuffle_epi8(src[V], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kT.idx[O][V]))));
  }
  template <int O, int... V>
  static __m128i one(const __m128i* src, std::integer_sequence<int, V...>) {
    __m128i acc = _mm_setzero_si128();
    ((acc = take<O, V>(acc, src)), ...);
    return acc;
  }
  template <int... O>
  static void all(const __m128i* src, __m128i* dst, std::integer_sequence<int, O...>) {
    ((dst[O] = one<O>(src, std::make_integer_sequence<int, N>{})), ...);
  }

  // N input rows (ldi apart), packed output rows (ldo == N * E): columns in blocks of W.
  static void rows(const std::byte* in, i64 ldi, std::byte* out, i64 cw) {
    __m128i a[N], o[N];
    for (i64 j = 0; j < cw; j += W) {
      for (int k = 0; k < N; ++k) a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k * ldi + j * E));
      all(a, o, std::make_integer_sequence<int, N>{});
      for (int k = 0; k < N; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j * N * E + 16 * k), o[k]);
    }
  }
  // N input columns, packed input rows (ldi == N * E): rows in blocks of W.
  static void cols(const std::byte* in, std::byte* out, i64 ldo, i64 rw) {
    __m128i a[N], o[N];
    for (i64 i = 0; i < rw; i += W) {
      for (int k = 0; k < N; ++k) a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i * N * E + 16 * k));
      all(a, o, std::make_integer_sequence<int, N>{});
      for (int k = 0; k < N; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * ldo + i * E), o[k]);
    }
  }
};

// The in-lane unpack rounds of every 1- and 2-byte block: each round pairs register k with k + n/2
// (lo -> 2k, hi -> 2k+1), log2(n) rounds transpose the n x n square in each 128-bit lane (see the
// top of this file). One place for the four byte rounds (16 registers) and the three half rounds
// (8 registers), used by the full blocks and the narrow_unpack_* kernels alike.
inline void unpack_rounds_1b(__m256i x[16]) {
  __m256i y[16];
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 8; ++k) {
      y[2 * k] = _mm256_unpacklo_epi8(x[k], x[k + 8]);
      y[2 * k + 1] = _mm256_unpackhi_epi8(x[k], x[k + 8]);
    }
    for (int k = 0; k < 16; ++k) x[k] = y[k];
  }
}
inline void unpack_rounds_1b(__m128i x[16]) {
  __m128i y[16];
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 8; ++k) {
      y[2 * k] = _mm_unpacklo_epi8(x[k], x[k + 8]);
      y[2 * k + 1] = _mm_unpackhi_epi8(x[k], x[k + 8]);
    }
    for (int k = 0; k < 16; ++k) x[k] = y[k];
  }
}
inline void unpack_rounds_2b(__m256i x[8]) {
  __m256i y[8];
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 4; ++k) {
      y[2 * k] = _mm256_unpacklo_epi16(x[k], x[k + 4]);
      y[2 * k + 1] = _mm256_unpackhi_epi16(x[k], x[k + 4]);
    }
    for (int k = 0; k < 8; ++k) x[k] = y[k];
  }
}

// Narrow byte tiles of 6-15 rows with packed output rows (N bytes each), 32 columns at a time: the
// rows go into block_1b_x2's unpack rounds as a 16 x 32 block whose rows N..15 are zero, and each
// output row's N bytes leave in a 16-byte store that the next row's store partly overwrites. 64
// unpacks per 32 columns where narrow_bytes takes N^2 pshufb and por per 16 columns (288 of each
// per 32 columns for N = 12). The last row of a call spills 16 - N bytes into the rows of column
// c32 on, so the caller leaves the columns they reach to the paths after it (which rewrite them).
template <int N>
void narrow_unpack_1b(const std::byte* in, i64 ldi, std::byte* out, i64 c32) {
  for (i64 j = 0; j < c32; j += 32) {
    __m256i x[16];
    for (int k = 0; k < 16; ++k)
      x[k] = k < N ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * ldi + j)) : _mm256_setzero_si256();
    unpack_rounds_1b(x);
    std::byte* o = out + j * N;
    for (int k = 0; k < 16; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(o + k * N), _mm256_castsi256_si128(x[k]));
    for (int k = 0; k < 16; ++k)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + (16 + k) * N), _mm256_extracti128_si256(x[k], 1));
  }
}

// The same for halves, 16 columns at a time as block_2b does them (rows N..15 zero): each output
// row of N halves leaves in a 32-byte store, spilling 32 - 2N bytes into the next row.
template <int N>
void narrow_unpack_2b(const std::byte* in, i64 ldi, std::byte* out, i64 c16) {
  for (i64 j = 0; j < c16; j += 16)
    for (int h = 0; h < 2; ++h) {  // columns j + 8h .. j + 8h + 7
      __m256i x[8];
      const std::byte* c = in + (j + 8 * h) * 2;
      for (int k = 0; k < 8; ++k) {
        const __m128i lo = k < N ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + k * ldi)) : _mm_setzero_si128();
        const __m128i hi =
            k + 8 < N ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + (k + 8) * ldi)) : _mm_setzero_si128();
        x[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
      }
      unpack_rounds_2b(x);
      for (int k = 0; k < 8; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (j + 8 * h + k) * 2 * N), x[k]);
    }
}

// The other way round: N (5-15) input columns of bytes, packed input rows (N bytes apart), N output
// rows, 32 rows at a time. Each 16-byte load takes a row's N bytes and the next rows' first
// 16 - N (which land in unstored output rows N..15), so the caller stops short of the tile's end
// by the rows those loads would reach past it.
template <int N>
void narrow_unpack_cols_1b(const std::byte* in, std::byte* out, i64 ldo, i64 r32) {
  for (i64 i = 0; i < r32; i += 32) {
    __m256i x[16];
    const std::byte* r = in + i * N;
    for (int k = 0; k < 16; ++k)
      x[k] = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + k * N))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + (16 + k) * N)), 1);
    unpack_rounds_1b(x);
    for (int k = 0; k < N; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k * ldo + i), x[k]);
  }
}

// And for halves: 16 rows at a time, block_2b's lanes (rows i and i + 8), N output rows of 16 halves.
template <int N>
void narrow_unpack_cols_2b(const std::byte* in, std::byte* out, i64 ldo, i64 r16) {
  for (i64 i = 0; i < r16; i += 16)
    for (int h = 0; h < 2; ++h) {  // input columns 8h .. 8h + 7 (those past N are not stored)
      if (8 * h >= N) break;
      __m256i x[8];
      const std::byte* r = in + i * 2 * N + 16 * h;
      for (int k = 0; k < 8; ++k)
        x[k] = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + k * 2 * N))),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + (k + 8) * 2 * N)), 1);
      unpack_rounds_2b(x);
      for (int k = 0; k < 8 && 8 * h + k < N; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (8 * h + k) * ldo + i * 2), x[k]);
    }
}

// The narrow cases of tile_1b, tile_2b (short side < 16, below the 16x16 block) and tile_8b (short
// side < 4, below the 4x4 block: 40,000,000 x 3 f64 ran at 60% of memcpy with masked 4x4 blocks);
// false when the tile is not narrow and packed.
// The narrowest sides that take the unpack rounds (narrow_unpack_*) rather than narrow_bytes, whose
// N^2 shuffles are few there. % of memcpy, 2-core machine (an Intel Xeon), narrow_bytes -> unpack,
// pairs of runs (docs/cpu.md "Twentieth session"): 5 x 4e7 i8 64.9, 79.0 -> 57.2, 53.6 (so bytes'
// rows from 6), 4e7 x 5 i8 61.2 -> 69.3, f16 5 x 4e7 56.7, 71.5 -> 65.8, 81.4, 4e7 x 5 f16 61.5 -> 73.7;
// 6 x 3e7 i8 53.8, 53.8 -> 68.1, 70.9, f16 58.1, 46.4 -> 72.6, 79.0; 3e7 x 6 i8 46.6 -> 70.2, f16 53.8
// -> 74.7; 7 x 3e7 i8 46.0 -> 66.1, f16 46.0 -> 76.5. (8-15 since d61892c, by the first measurements.)
constexpr int kUnpackMinRows1 = 6, kUnpackMinN = 5;
template <int E, int MaxN = 15>
bool narrow_tile_small(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  constexpr i64 W = 16 / E;
  if (rows <= MaxN && ldo == rows * E && cols >= W) {
    i64 c0 = 0;  // columns done by narrow_unpack_1b (at least one left after them)
    if constexpr (E == 1) {
      const i64 spill = 15 / rows;  // output rows the last 16-byte store reaches past its own
      if (rows >= kUnpackMinRows1 && cols >= 32 + spill) {
        c0 = (cols - spill) & ~i64{31};
        with_narrow15(rows, [&]<int N>() {
          if constexpr (N >= kUnpackMinRows1) narrow_unpack_1b<N>(in, ldi, out, c0);
        });
      }
    } else if constexpr (E == 2) {
      const i64 spill = 31 / (2 * rows);  // as above, for the 32-byte stores
      if (rows >= kUnpackMinN && cols >= 16 + spill) {
        c0 = (cols - spill) & ~i64{15};
        with_narrow15(rows, [&]<int N>() {
          if constexpr (N >= kUnpackMinN) narrow_unpack_2b<N>(in, ldi, out, c0);
        });
      }
    }
    const i64 cw = c0 + (cols - c0) / W * W;
    with_narrow15(rows, [&]<int N>() {
      if constexpr (N <= MaxN) narrow_bytes<E, N, true>::rows(in + c0 * E, ldi, out + c0 * ldo, cw - c0);
    });
    scalar_edge<E>(in + cw * E, ldi, out + cw * ldo, ldo, rows, cols - cw);
    return true;
  }
  if (cols <= MaxN && ldi == cols * E && rows >= W) {
    i64 r0 = 0;  // rows done by narrow_unpack_cols_* (whose loads stop two rows short of the end)
    if constexpr (E == 1) {
      const i64 past = (16 + cols - 1) / cols;  // rows the last 16-byte loads read into, plus one
      if (cols >= kUnpackMinN && rows >= 32 + past) {
        r0 = (rows - past) & ~i64{31};
        with_narrow15(cols, [&]<int N>() {
          if constexpr (N >= kUnpackMinN) narrow_unpack_cols_1b<N>(in, out, ldo, r0);
        });
      }
    } else if constexpr (E == 2) {
      const i64 past = (16 + cols - 1) / cols;
      if (cols >= kUnpackMinN && rows >= 16 + past) {
        r0 = (rows - past) & ~i64{15};
        with_narrow15(cols, [&]<int N>() {
          if constexpr (N >= kUnpackMinN) narrow_unpack_cols_2b<N>(in, out, ldo, r0);
        });
      }
    }
    const i64 rw = r0 + (rows - r0) / W * W;
    with_narrow15(cols, [&]<int N>() {
      if constexpr (N <= MaxN) narrow_bytes<E, N, false>::cols(in + r0 * ldi, out + r0 * E, ldo, rw - r0);
    });
    scalar_edge<E>(in + rw * ldi, ldi, out + rw * E, ldo, rows - rw, cols);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------- 8-byte, 4x4
inline __m128d load2(const std::byte* p) { return _mm_loadu_pd(reinterpret_cast<const double*>(p)); }

inline void block_8b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  // a0 = [row0 c0 c1 | row2 c0 c1], a1 = [row1 .. | row3 ..], a2/a3 the same for columns 2, 3.
  const __m256d a0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in)), load2(in + 2 * ldi), 1);
  const __m256d a1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in + ldi)), load2(in + 3 * ldi), 1);
  const __m256d a2 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in + 16)), load2(in + 2 * ldi + 16), 1);
  const __m256d a3 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in + ldi + 16)), load2(in + 3 * ldi + 16), 1);
  _mm256_storeu_pd(reinterpret_cast<double*>(out), _mm256_unpacklo_pd(a0, a1));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + ldo), _mm256_unpackhi_pd(a0, a1));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + 2 * ldo), _mm256_unpacklo_pd(a2, a3));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + 3 * ldo), _mm256_unpackhi_pd(a2, a3));
}

// The 8-byte edges (fewer than 4 rows or columns) without masks, as block_4b_rows / _cols: 2-row
// (2-column) pieces, the last one overlapping when n = 3.
// 2 input rows x 4 columns -> 4 output rows of 2 (16-byte stores).
inline void piece_8b_2rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(in));
  const __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(in + ldi));
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);  // columns 0|2, 1|3
  _mm_storeu_pd(reinterpret_cast<double*>(out), _mm256_castpd256_pd128(t0));
  _mm_storeu_pd(reinterpret_cast<double*>(out + ldo), _mm256_castpd256_pd128(t1));
  _mm_storeu_pd(reinterpret_cast<double*>(out + 2 * ldo), _mm256_extractf128_pd(t0, 1));
  _mm_storeu_pd(reinterpret_cast<double*>(out + 3 * ldo), _mm256_extractf128_pd(t1, 1));
}

// 4 input rows x 2 columns -> 2 output rows of 4: the first half of block_8b.
inline void piece_8b_2cols(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  const __m256d a0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in)), load2(in + 2 * ldi), 1);
  const __m256d a1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(load2(in + ldi)), load2(in + 3 * ldi), 1);
  _mm256_storeu_pd(reinterpret_cast<double*>(out), _mm256_unpacklo_pd(a0, a1));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + ldo), _mm256_unpackhi_pd(a0, a1));
}

inline void block_8b_rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 n) {
  if (n >= 2) {
    piece_8b_2rows(in, ldi, out, ldo);
    if (n > 2) piece_8b_2rows(in + (n - 2) * ldi, ldi, out + (n - 2) * 8, ldo);
  } else {
    scalar_edge<8>(in, ldi, out, ldo, n, 4);
  }
}

inline void block_8b_cols(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 n) {
  if (n >= 2) {
    piece_8b_2cols(in, ldi, out, ldo);
    if (n > 2) piece_8b_2cols(in + (n - 2) * 8, ldi, out + (n - 2) * ldo, ldo);
  } else {
    scalar_edge<8>(in, ldi, out, ldo, 4, n);
  }
}

void tile_8b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (narrow_tile_small<8, 3>(in, ldi, out, ldo, rows, cols)) return;
  const i64 r4 = rows & ~i64{3}, c4 = cols & ~i64{3};
  if (rows_first(cols * 8)) {
    for (i64 i = 0; i < r4; i += 4)
      for (i64 j = 0; j < c4; j += 4) block_8b(in + i * ldi + j * 8, ldi, out + j * ldo + i * 8, ldo);
    if (r4 < rows)
      for (i64 j = 0; j < c4; j += 4) block_8b_rows(in + r4 * ldi + j * 8, ldi, out + j * ldo + r4 * 8, ldo, rows - r4);
  } else {
    for (i64 j = 0; j < c4; j += 4) {
      for (i64 i = 0; i < r4; i += 4) block_8b(in + i * ldi + j * 8, ldi, out + j * ldo + i * 8, ldo);
      if (r4 < rows) block_8b_rows(in + r4 * ldi + j * 8, ldi, out + j * ldo + r4 * 8, ldo, rows - r4);
    }
  }
  if (c4 < cols) {
    for (i64 i = 0; i < r4; i += 4) block_8b_cols(in + i * ldi + c4 * 8, ldi, out + c4 * ldo + i * 8, ldo, cols - c4);
    scalar_edge<8>(in + r4 * ldi + c4 * 8, ldi, out + c4 * ldo + r4 * 8, ldo, rows - r4, cols - c4);
  }
}

// Input rows whose stride is a multiple of 1 KiB share a few L1 sets, so the 16 rows of a block
// evict each other (the kernel ran at a quarter of its speed at a 16 KiB stride). There, 16 rows x
// 64 bytes (whole lines) are first copied to a local block whose rows are consecutive lines, and
// four 16x16 blocks run from it.
inline void lines_16x64(const std::byte* in, i64 ldi, std::byte* stage) {
  for (int r = 0; r < 16; ++r) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + r * ldi));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + r * ldi + 32));
    _mm256_store_si256(reinterpret_cast<__m256i*>(stage + 64 * r), a);
    _mm256_store_si256(reinterpret_cast<__m256i*>(stage + 64 * r + 32), b);
  }
}

// -------------------------------------------------------------------------------- 2-byte, 16x16
inline __m128i load16(const std::byte* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

inline void block_2b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  for (int h = 0; h < 2; ++h) {  // columns 8h .. 8h+7
    __m256i x[8];
    for (int k = 0; k < 8; ++k)
      x[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(load16(in + k * ldi + 16 * h)),
                                     load16(in + (k + 8) * ldi + 16 * h), 1);
    unpack_rounds_2b(x);
    for (int k = 0; k < 8; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (8 * h + k) * ldo), x[k]);
  }
}

// 8 rows x 16 columns: two 8x8 blocks side by side, one per 128-bit lane (three in-lane epi16
// unpack rounds), for tiles walked along their rows: the 8 rows' lines stay within the 8 ways of
// their L1 set whatever the stride, so each line is read once, straight from the input (16-row
// blocks need the local copy of lines_16x64 at 1 KiB-multiple strides; without that copy this is
// as fast, 63-66% vs 61-64% of memcpy at 16384^2 f16). The same shuffles per byte as block_2b.
inline void block_2b_8rows(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m256i x[8];
  for (int k = 0; k < 8; ++k) x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * ldi));
  unpack_rounds_2b(x);
  for (int k = 0; k < 8; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * ldo), _mm256_castsi256_si128(x[k]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (8 + k) * ldo), _mm256_extracti128_si256(x[k], 1));
  }
}

void tile_2b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (narrow_tile_small<2>(in, ldi, out, ldo, rows, cols)) return;
  const i64 c16 = cols & ~i64{15};
  if (rows_first(cols * 2)) {
    const i64 r8 = rows & ~i64{7};
    auto block = [&](i64 i, i64 j) { block_2b_8rows(in + i * ldi + j * 2, ldi, out + j * ldo + i * 2, ldo); };
    for (i64 i = 0; i < r8; i += 8)
      for (i64 j = 0; j < c16; j += 16) block(i, j);
    overlapped_edges(rows, cols, r8, c16, 8, 16, block,
                     [&](i64 r0, i64 c0, i64 nr, i64 nc) { scalar_edge<2>(in + r0 * ldi + c0 * 2, ldi, out + c0 * ldo + r0 * 2, ldo, nr, nc); });
    return;
  }
  const i64 r16 = rows & ~i64{15};
  i64 c32 = 0;
  if (ldi % 1024 == 0) {  // as tile_1b: whole lines through a local block, two 16x16 blocks each
    c32 = cols & ~i64{31};
    alignas(64) std::byte stage[16 * 64];
    for (i64 i = 0; i < r16; i += 16)
      for (i64 j = 0; j < c32; j += 32) {
        lines_16x64(in + i * ldi + j * 2, ldi, stage);
        for (int q = 0; q < 2; ++q) block_2b(stage + 32 * q, 64, out + (j + 16 * q) * ldo + i * 2, ldo);
      }
  }
  auto block = [&](i64 i, i64 j) { block_2b(in + i * ldi + j * 2, ldi, out + j * ldo + i * 2, ldo); };
  for (i64 j = c32; j < c16; j += 16)
    for (i64 i = 0; i < r16; i += 16) block(i, j);
  overlapped_edges(rows, cols, r16, c16, 16, 16, block,
                   [&](i64 r0, i64 c0, i64 nr, i64 nc) { scalar_edge<2>(in + r0 * ldi + c0 * 2, ldi, out + c0 * ldo + r0 * 2, ldo, nr, nc); });
}

// -------------------------------------------------------------------------------- 1-byte, 16x16
inline void block_1b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m128i x[16];
  for (int k = 0; k < 16; ++k) x[k] = load16(in + k * ldi);
  unpack_rounds_1b(x);
  for (int k = 0; k < 16; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * ldo), x[k]);
}

// 16 rows x 32 columns: two 16x16 blocks side by side, one per 128-bit lane, so that each in-lane
// unpack round does the work of two SSE rounds: 64 unpacks + 16 lane extracts per 512 bytes
// instead of 128 unpacks. (At 16384^2 i8 on the 2-core machine this changed nothing measurable,
// 19.5-19.8 vs 18.7-22 GB/s: there the input's memory latency bounds it, see docs/cpu.md; fewer
// shuffles matter where the input is in cache.)
inline void block_1b_x2(const std::byte* in, i64 ldi, std::byte* out, i64 ldo) {
  __m256i x[16];
  for (int k = 0; k < 16; ++k) x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * ldi));
  unpack_rounds_1b(x);
  for (int k = 0; k < 16; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * ldo), _mm256_castsi256_si128(x[k]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (16 + k) * ldo), _mm256_extracti128_si256(x[k], 1));
  }
}

// Long rows and 1 KiB-multiple strides are walked along each group of 16 input rows (rows_first).
void tile_1b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  if (narrow_tile_small<1>(in, ldi, out, ldo, rows, cols)) return;
  const i64 r16 = rows & ~i64{15}, c16 = cols & ~i64{15};
  // Input rows a multiple of 1 KiB apart share L1 sets: whole lines go through a local block first.
  const i64 c64 = ldi % 1024 == 0 ? cols & ~i64{63} : 0;
  alignas(64) std::byte stage[16 * 64];
  const i64 c32 = c64 + ((cols - c64) & ~i64{31});
  if (c64 > 0 || rows_first(cols)) {
    for (i64 i = 0; i < r16; i += 16) {
      for (i64 j = 0; j < c64; j += 64) {
        lines_16x64(in + i * ldi + j, ldi, stage);
        for (int q = 0; q < 2; ++q) block_1b_x2(stage + 32 * q, 64, out + (j + 32 * q) * ldo + i, ldo);
      }
      for (i64 j = c64; j < c32; j += 32) block_1b_x2(in + i * ldi + j, ldi, out + j * ldo + i, ldo);
      if (c32 < c16) block_1b(in + i * ldi + c32, ldi, out + c32 * ldo + i, ldo);
    }
  } else {
    for (i64 j = 0; j < c32; j += 32)
      for (i64 i = 0; i < r16; i += 16) block_1b_x2(in + i * ldi + j, ldi, out + j * ldo + i, ldo);
    if (c32 < c16)
      for (i64 i = 0; i < r16; i += 16) block_1b(in + i * ldi + c32, ldi, out + c32 * ldo + i, ldo);
  }
  overlapped_edges(
      rows, cols, r16, c16, 16, 16, [&](i64 i, i64 j) { block_1b(in + i * ldi + j, ldi, out + j * ldo + i, ldo); },
      [&](i64 r0, i64 c0, i64 nr, i64 nc) { scalar_edge<1>(in + r0 * ldi + c0, ldi, out + c0 * ldo + r0, ldo, nr, nc); });
}

// ------------------------------------------------------------------------------- 16-byte, moves
void tile_16b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j * ldo + i * 16), load16(in + i * ldi + j * 16));
}

// kernel_table::stream_tile_16b: output row j's elements i, i + 1 in one 32-byte streaming store.
// Against the tile staged and then streamed (tile_16b + stream_lines) on the 2-core Zen 2 host,
// alternating rounds, 2 threads: c128 16384^2 23.2 vs 19.4 GB/s, 8192^2 25.4 vs 18.1, batched and
// folded 16-byte elements +14 to +21% (docs/cpu.md, "Twenty-seventh session").
void stream_tile_16b(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  for (i64 j = 0; j < cols; ++j) {
    std::byte* d = out + j * ldo;
    const std::byte* s = in + j * 16;
    for (i64 i = 0; i < rows; i += 2) {
      const __m256i v = _mm256_set_m128i(load16(s + (i + 1) * ldi), load16(s + i * ldi));
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i * 16), v);
    }
  }
}

// ------------------------------------------------------------------------------- streaming copy
// Streaming (non-temporal) stores bypass the cache and skip the read-for-ownership of each output
// line, so a large copy costs 2 bytes of memory traffic per byte instead of 3. They only pay for
// whole cache lines: a line written partly by a streaming store and partly by ordinary stores (or
// flushed from its write-combining buffer half full) turns into a read-modify-write in memory;
// doing that twice per 256-byte row made a 8191 x 8193 transpose 5x slower (docs/cpu.md). So:
// ordinary stores up to the first 64-byte boundary, streaming stores for the whole lines, ordinary
// stores for the last partial line.

// One 64-byte line from s to the line-aligned d, with streaming stores.
inline void stream_line(std::byte* d, const std::byte* s) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
  _mm256_stream_si256(reinterpret_cast<__m256i*>(d), a);
  _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32), b);
}

// The long copies (row copies, plain copies) with streaming stores, in one of two read patterns;
// the plan's CPU tuning picks one (blocked.cpp, tuned_kernels):
// - stream_copy_pieces (the `intel` tuning) reads kCopyPieces pieces of kCopyPieceBytes side by
//   side (glibc's large copies walk four pages so): one sequential read stream per core does not
//   keep enough reads in flight on the Intel Xeon development host (docs/cpu.md "Thirty-first
//   session"). 2 threads, GB/s, alternating runs, one stream -> four pieces (docs/cpu.md
//   "Thirty-second session"): a copy of 512 MiB 40.2, 37.0 -> 47.2, 47.8 (glibc's memcpy 46);
//   256 MiB 36.6, 34.7 -> 45.4, 45.3 (glibc 26, under its non-temporal threshold); i8
//   [68,134,200,142] perm 0,1,2,3 34.8, 34.2 -> 45.3, 46.4.
// - stream_copy (the `amd` tuning) reads one sequential stream. On an AMD EPYC Zen 3 host the four
//   pieces ran a third as fast: 512 MiB in 1 MiB chunks on 2 threads, five rounds, medians, GB/s,
//   one stream 32.4, two pieces 30.1, four 10.1 (glibc's memcpy 20-21); the f64 suite's plain copies
//   ran at 39-43% of the bench's copy (docs/cpu.md "Thirty-ninth session").
constexpr std::size_t kCopyPieces = 4, kCopyPieceBytes = 4096;
template <std::size_t Pieces>
void stream_copy_in(std::byte* dst, const std::byte* src, std::size_t n) {
  const std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(dst) & 63)) & 63;
  if (n < head + 64) {
    std::memcpy(dst, src, n);
    return;
  }
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  if constexpr (Pieces > 1) {  // whole groups of Pieces pieces of kCopyPieceBytes, one line of each in turn
    constexpr std::size_t group = Pieces * kCopyPieceBytes;
    for (; n >= group; n -= group, src += group, dst += group)
      for (std::size_t k = 0; k < kCopyPieceBytes; k += 64)
        for (std::size_t p = 0; p < Pieces; ++p) stream_line(dst + p * kCopyPieceBytes + k, src + p * kCopyPieceBytes + k);
  }
  for (; n >= 64; n -= 64, src += 64, dst += 64) stream_line(dst, src);
  std::memcpy(dst, src, n);
}
void stream_copy(std::byte* dst, const std::byte* src, std::size_t n) { stream_copy_in<1>(dst, src, n); }
void stream_copy_pieces(std::byte* dst, const std::byte* src, std::size_t n) {
  stream_copy_in<kCopyPieces>(dst, src, n);
}

// The tight loop of the streaming tiles, one call per tile (a call per row cost 45% at 8193 x
// 8192 f32 single-threaded: the per-row work is not hidden behind the memory stalls).
void stream_lines(std::byte* dst, i64 ldo, const std::byte* buf, i64 ldb, i64 rows, i64 len) {
  for (i64 r = 0; r < rows; ++r) {
    std::byte* d = dst + r * ldo;
    const std::byte* s = buf + r * ldb;
    const i64 first = static_cast<i64>((64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63);
    d += first;
    s += first;
    for (i64 k = first; k < len; k += 64, d += 64, s += 64) stream_line(d, s);
  }
}

void fence() { _mm_sfence(); }

void copy_rows(std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows, i64 bytes) {
  const i64 whole = bytes & ~i64{31};
  for (i64 r = 0; r < rows; ++r) {
    std::byte* d = dst + r * ldd;
    const std::byte* s = src + r * lds;
    for (i64 k = 0; k < whole; k += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + k), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k)));
    std::memcpy(d + whole, s + whole, static_cast<std::size_t>(bytes - whole));
  }
}

// kernel_table::stage_rows: kStageGroupRows rows at a time, one whole line of each in turn (the
// loads of a group are independent, so they are in flight together), the rest of a group's rows
// (< 64 bytes) and the last rows (fewer than a group) as copy_rows does.
void stage_rows(std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows, i64 bytes) {
  constexpr i64 G = kStageGroupRows;
  const i64 whole = bytes & ~i64{63};
  i64 r0 = 0;
  for (; r0 + G <= rows; r0 += G) {
    for (i64 k = 0; k < whole; k += 64)
      for (i64 r = r0; r < r0 + G; ++r) {
        const std::byte* s = src + r * lds + k;
        std::byte* d = dst + r * ldd + k;
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), a);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), b);
      }
    if (whole < bytes)
      for (i64 r = r0; r < r0 + G; ++r)
        std::memcpy(dst + r * ldd + whole, src + r * lds + whole, static_cast<std::size_t>(bytes - whole));
  }
  if (r0 < rows) copy_rows(dst + r0 * ldd, ldd, src + r0 * lds, lds, rows - r0, bytes);
}

// ------------------------------------------------------- padded slots for odd element sizes
// kernel_table::pad_rows / unpad_rows. A 16-byte vector holds m = 16 / P slots of P bytes, i.e. m
// packed elements of e bytes (m * e <= 16 as e < P): one unaligned 16-byte load, one pshufb and
// one 16-byte store move m elements either way. Each vector op reads or writes up to 16 - m * e
// bytes past its m elements, so the loops stop where that would leave the row and finish element
// by element with exact copies (nothing outside a row is read or written; unpad's stores overlap
// the next vector's, which rewrites those bytes in order).
template <int P>
struct slot_shuffles {
  static constexpr int m = 16 / P;
  // pad[e][b]: source byte of slot byte b (-128: zero); unpad[e][b]: slot byte of packed byte b.
  signed char pad[16][16], unpad[16][16];
  constexpr slot_shuffles() : pad{}, unpad{} {
    for (int e = 0; e < 16; ++e)
      for (int b = 0; b < 16; ++b) {
        const int slot = b / P, k = b % P;
        pad[e][b] = static_cast<signed char>(k < e ? slot * e + k : -128);
        const int el = e ? b / e : 0, kb = e ? b % e : 0;
        unpad[e][b] = static_cast<signed char>(e && el < m ? el * P + kb : -128);
      }
  }
};

// Pad (packed elements -> slots) or not (slots -> packed): the same loop, source and destination
// steps swapped. Vectors while the 16-byte load (pad) or store (unpad) on the packed side stays
// inside the row, k * e + 16 <= count * e (then k + m <= count too), exact copies for the rest.
template <int P, bool Pad>
void slot_rows(std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows, i64 count, i64 e) {
  static constexpr slot_shuffles<P> kS{};
  constexpr i64 m = slot_shuffles<P>::m;
  const __m128i sh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(Pad ? kS.pad[e] : kS.unpad[e]));
  const i64 ds = Pad ? P : e, ss = Pad ? e : P;  // bytes per element: destination, source
  const i64 vec = count * e >= 16 ? (count * e - 16) / e + 1 : 0;
  for (i64 r = 0; r < rows; ++r) {
    const std::byte* s = src + r * lds;
    std::byte* d = dst + r * ldd;
    i64 k = 0;
    for (; k < vec; k += m)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * ds),
                       _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * ss)), sh));
    for (; k < count; ++k) std::memcpy(d + k * ds, s + k * ss, static_cast<std::size_t>(e));
  }
}

template <bool Pad>
void slot_rows_any(std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows, i64 count, i64 e) {
  switch (padded_size(e)) {
    case 4: return slot_rows<4, Pad>(dst, ldd, src, lds, rows, count, e);
    case 8: return slot_rows<8, Pad>(dst, ldd, src, lds, rows, count, e);
    case 16: return slot_rows<16, Pad>(dst, ldd, src, lds, rows, count, e);
  }
}

}  // namespace

const kernel_table* avx2_kernels() {
  static const kernel_table t{"avx2",     {tile_1b, tile_2b, tile_4b, tile_8b, tile_16b},
                              stream_copy, stream_lines,
                              fence,      copy_rows,
                              stage_rows, slot_rows_any<true>,
                              slot_rows_any<false>, stream_tile_16b};
  static const kernel_table with_pieces = [] {
    kernel_table k = t;
    k.stream_copy_pieces = stream_copy_pieces;
    return k;
  }();
  return &with_pieces;
}

}  // namespace xpose::detail::cpu
