// The memory pattern of cpu_blocked's staged tiles without the transposition: what the pattern
// alone costs against memcpy on this machine (docs/cpu.md, "Eleventh session").
//
// An N x N matrix of S-byte elements is cut into ti x tj tiles, walked row of tiles by row of
// tiles and split over the threads as cpu_blocked does. Per tile, one thread
//   staged:    copies the tile's ti input rows of tj * S bytes into a buffer (ordinary loads and
//              stores, 8 rows side by side a line at a time, as stage_rows), then streams tj output
//              rows of ti * S bytes from it with 32-byte non-temporal stores (as stream_lines), each
//              to its place in the transposed output: the bytes are not transposed, the addresses are;
//   seq:       the same two phases on contiguous input and output (the tile's bytes back to back);
//   overlap:   staged, but the next tile's staging is interleaved with the current tile's
//              streaming, one output row's worth at a time (two buffers);
//   nt512:     staged with 64-byte non-temporal stores;
//   direct:    no buffer: blocks of 64 / S input rows x 32 bytes loaded into registers, and 32 / S
//              output rows x 64 bytes (whole lines) streamed from them, walking each tile's blocks
//              down its rows first (the registers hold the data, not its transposition: the
//              pattern's cost only);
//   d64down / d64across: no buffer, blocks of 64 / S whole input lines into zmm registers and as
//              many whole output lines streamed (AVX-512, 2- and 4-byte elements), walked down the
//              tile's rows first or across them (a block row of 64 / S input rows left to right);
//   overlap8:  staged, with the next tile staged in stage()'s own order (8 rows side by side) in
//              slices between the current tile's output rows, --chunk rows at a time (lost at
//              every grain on the Intel host, docs/cpu.md "Thirty-fifth session");
//   t32across: d64across with the real transposition (2-byte elements only: a 32 x 32 transpose in
//              zmm registers, transpose32_block; built into cpu_blocked it lost, docs/cpu.md);
// and `memcpy` copies the same bytes in one piece per thread. Modes alternate rep by rep; GB/s
// counts bytes read plus bytes written, as xpose bench does.
//
// AVX-512 modes (nt512, d64down, d64across, t32across) need a CPU with AVX-512 F and BW; elsewhere
// they are skipped and reported n/a.
//
//   xpose_tune_cpu_stage [--n 16384] [--elem 2] [--ti 128] [--tj 1024] [--pad 0] [--chunk 8] [--reps 5] [--threads 2]
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace {

using i64 = std::int64_t;

__attribute__((target("avx2"))) void stream32(char* dst, i64 ldo, const char* buf, i64 ldb, i64 rows, i64 len) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 k = 0; k < len; k += 64) {
      const char* s = buf + r * ldb + k;
      char* d = dst + r * ldo + k;
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)));
    }
}

__attribute__((target("avx512f"))) void stream64(char* dst, i64 ldo, const char* buf, i64 ldb, i64 rows, i64 len) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 k = 0; k < len; k += 64)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + r * ldo + k), _mm512_loadu_si512(buf + r * ldb + k));
}

// One direct block: R = 64 / S input rows of 32 bytes at src (row pitch lds) into registers, then
// 32 / S output lines of 64 bytes at dst (row pitch ldo) from them.
template <int R>
__attribute__((target("avx2"))) void direct_block(char* dst, i64 ldo, const char* src, i64 lds) {
  __m256i v[R];
#pragma GCC unroll 64
  for (int r = 0; r < R; ++r) v[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + r * lds));
#pragma GCC unroll 64
  for (int o = 0; o < R / 2; ++o) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + o * ldo), v[2 * o]);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + o * ldo + 32), v[2 * o + 1]);
  }
}

// A real 32 x 32 transpose of 2-byte elements in zmm registers: 32 input lines in, 32 output lines
// out (column k % 4 * 8 + k / 4 ends in register k after the unpacks and lane shuffles).
__attribute__((target("avx512f,avx512bw"))) void transpose32_block(char* dst, i64 ldo, const char* src, i64 lds) {
  __m512i v[32], a[32], b[32];
#pragma GCC unroll 32
  for (int r = 0; r < 32; ++r) v[r] = _mm512_loadu_si512(src + r * lds);
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    __m512i* x = v + 8 * g;
    for (int k = 0; k < 4; ++k) {
      a[8 * g + 2 * k] = _mm512_unpacklo_epi16(x[2 * k], x[2 * k + 1]);
      a[8 * g + 2 * k + 1] = _mm512_unpackhi_epi16(x[2 * k], x[2 * k + 1]);
    }
    __m512i* y = a + 8 * g;
    for (int k = 0; k < 2; ++k)
      for (int h = 0; h < 2; ++h) {
        b[8 * g + 4 * k + 2 * h] = _mm512_unpacklo_epi32(y[4 * k + h], y[4 * k + h + 2]);
        b[8 * g + 4 * k + 2 * h + 1] = _mm512_unpackhi_epi32(y[4 * k + h], y[4 * k + h + 2]);
      }
    __m512i* z = b + 8 * g;
    for (int h = 0; h < 4; ++h) {
      a[8 * g + 2 * h] = _mm512_unpacklo_epi64(z[h], z[h + 4]);
      a[8 * g + 2 * h + 1] = _mm512_unpackhi_epi64(z[h], z[h + 4]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    const __m512i p = _mm512_shuffle_i32x4(a[j], a[8 + j], 0x44), q = _mm512_shuffle_i32x4(a[j], a[8 + j], 0xEE);
    const __m512i r = _mm512_shuffle_i32x4(a[16 + j], a[24 + j], 0x44), s = _mm512_shuffle_i32x4(a[16 + j], a[24 + j], 0xEE);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + (j) * ldo), _mm512_shuffle_i32x4(p, r, 0x88));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + (8 + j) * ldo), _mm512_shuffle_i32x4(p, r, 0xDD));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + (16 + j) * ldo), _mm512_shuffle_i32x4(q, s, 0x88));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + (24 + j) * ldo), _mm512_shuffle_i32x4(q, s, 0xDD));
  }
}

template <int R>
__attribute__((target("avx512f"))) void direct64_block(char* dst, i64 ldo, const char* src, i64 lds) {
  __m512i v[R];
#pragma GCC unroll 64
  for (int r = 0; r < R; ++r) v[r] = _mm512_loadu_si512(src + r * lds);
#pragma GCC unroll 64
  for (int o = 0; o < R; ++o) _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + o * ldo), v[o]);
}
// A plain row-by-row copy (the overlap mode's slices of a row).
__attribute__((target("avx2"))) void copy_slice(char* dst, const char* src, i64 bytes) {
  for (i64 k = 0; k < bytes; k += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
}

// The input staging as cpu_blocked's kernel_table::stage_rows does it: groups of 8 rows side by
// side, one 64-byte line of each in turn (8 sequential streams for the prefetchers; rows % 8 == 0).
__attribute__((target("avx2"))) void stage(char* dst, const char* src, i64 lds, i64 rows, i64 bytes) {
  for (i64 r0 = 0; r0 < rows; r0 += 8)
    for (i64 k = 0; k < bytes; k += 64)
      for (i64 r = r0; r < r0 + 8; ++r) {
        const char* s = src + r * lds + k;
        char* d = dst + r * bytes + k;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)));
      }
}

// Lines [l0, l1) of stage()'s sequence (group of 8 rows, line k, row in the group).
__attribute__((target("avx2"))) void stage_part(char* dst, const char* src, i64 lds, i64 bytes, i64 l0, i64 l1) {
  const i64 per_group = 8 * (bytes / 64);
  for (i64 l = l0; l < l1; ++l) {
    const i64 g = l / per_group, rem = l - g * per_group, k = rem / 8, r = 8 * g + rem % 8;
    const char* s = src + r * lds + 64 * k;
    char* d = dst + r * bytes + 64 * k;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)));
  }
}

struct aligned_buffer {
  std::unique_ptr<char, decltype(&std::free)> p{nullptr, &std::free};
  explicit aligned_buffer(i64 bytes) : p(static_cast<char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096)), &std::free) {}
  char* get() const { return p.get(); }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cpu_blocked's staged-tile memory pattern against memcpy"};
  i64 n = 16384, elem = 2, ti = 128, tj = 1024, pad = 0;
  int reps = 5, threads = 2;
  i64 chunk = 8;
  app.add_option("--n", n, "matrix side");
  app.add_option("--elem", elem, "element bytes");
  app.add_option("--ti", ti, "tile rows (input rows per tile; ti * elem a multiple of 64)");
  app.add_option("--tj", tj, "tile columns (tj * elem a multiple of 64)");
  app.add_option("--pad", pad, "row pitch = n + pad elements on both sides (a multiple of 64 / elem; 0: dense)");
  app.add_option("--chunk", chunk, "overlap8: output rows streamed between slices of the next tile's staging");
  app.add_option("--reps", reps, "rounds (every mode once per round)");
  app.add_option("--threads", threads, "threads");
  CLI11_PARSE(app, argc, argv);
  if (n % ti || n % tj || ti % 8 || (ti * elem) % 64 || (tj * elem) % 64 || (pad * elem) % 64 ||
      (elem != 1 && elem != 2 && elem != 4)) {
    fmt::print(stderr, "tiles must divide the matrix and be whole 64-byte lines on both sides; elements of 1, 2 or 4 bytes\n");
    return 2;
  }
  const i64 row = (n + pad) * elem, bytes = n * row, data = n * n * elem, tile = ti * tj * elem, nti = n / ti,
            ntj = n / tj;
  aligned_buffer in(bytes), out(bytes);
  std::memset(in.get(), 1, bytes);
  std::memset(out.get(), 2, bytes);
  const char* src = in.get();
  char* dst = out.get();
  auto in_of = [&](i64 t) { return src + (t / ntj) * ti * row + (t % ntj) * tj * elem; };
  auto out_of = [&](i64 t) { return dst + (t % ntj) * tj * row + (t / ntj) * ti * elem; };
  const char* names[] = {"staged", "seq", "overlap", "nt512", "memcpy", "direct", "d64down", "d64across", "t32across", "overlap8"};
  constexpr int kModes = 10;
  std::vector<std::vector<double>> gbps(kModes);
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  for (int rep = 0; rep < reps; ++rep)
    for (int mode = 0; mode < kModes; ++mode) {
      if ((mode == 8 && elem != 2) || ((mode == 6 || mode == 7) && elem != 2 && elem != 4)) continue;  // n/a
      if ((mode == 3 || mode >= 6) && !avx512) continue;  // (n/a: would stop on an illegal instruction)
      const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
      {
        const i64 me = omp_get_thread_num(), nt = nti * ntj, lo = me * nt / threads, hi = (me + 1) * nt / threads;
        aligned_buffer a(tile), b(tile);
        char* cur = a.get();
        char* next = b.get();
        if (mode == 9) {  // overlap, the next tile staged in stage()'s order, `chunk` output rows at a time
          const i64 lines = ti * (tj * elem / 64);
          if (lo < hi) stage(cur, in_of(lo), row, ti, tj * elem);
          for (i64 t = lo; t < hi; ++t) {
            for (i64 r = 0; r < tj; r += chunk) {
              stream32(out_of(t) + r * row, row, cur + r * ti * elem, ti * elem, chunk, ti * elem);
              if (t + 1 < hi) stage_part(next, in_of(t + 1), row, tj * elem, r * lines / tj, (r + chunk) * lines / tj);
            }
            std::swap(cur, next);
          }
        } else if (mode == 8) {  // the real transpose (2-byte elements), blocks walked across the tile's rows
          for (i64 t = lo; t < hi; ++t)
            for (i64 r = 0; r < ti; r += 32)
              for (i64 c = 0; c < tj * elem; c += 64)
                transpose32_block(out_of(t) + (c / elem) * row + r * elem, row, in_of(t) + r * row + c, row);
        } else if (mode == 6 || mode == 7) {
          const i64 br = 64 / elem;  // rows per block: a block is br input lines -> br output lines
          for (i64 t = lo; t < hi; ++t) {
            auto blk = [&](i64 r, i64 c) {
              char* o = out_of(t) + (c / elem) * row + r * elem;
              const char* i = in_of(t) + r * row + c;
              if (elem == 2) direct64_block<32>(o, row, i, row);
              else direct64_block<16>(o, row, i, row);
            };
            if (mode == 6)
              for (i64 c = 0; c < tj * elem; c += 64) for (i64 r = 0; r < ti; r += br) blk(r, c);
            else
              for (i64 r = 0; r < ti; r += br) for (i64 c = 0; c < tj * elem; c += 64) blk(r, c);
          }
        } else if (mode == 5) {
          const i64 br = 64 / elem;  // input rows per block = output elements per 64-byte line
          for (i64 t = lo; t < hi; ++t)
            for (i64 c = 0; c < tj * elem; c += 32)      // 32 input bytes = 32 / S output rows
              for (i64 r = 0; r < ti; r += br) {        // down the tile's rows first
                char* o = out_of(t) + (c / elem) * row + r * elem;
                const char* i = in_of(t) + r * row + c;
                if (elem == 1) direct_block<64>(o, row, i, row);
                else if (elem == 2) direct_block<32>(o, row, i, row);
                else direct_block<16>(o, row, i, row);
              }
        } else if (mode == 4) {
          const i64 c0 = me * data / threads, c1 = (me + 1) * data / threads;
          std::memcpy(dst + c0, src + c0, static_cast<std::size_t>(c1 - c0));
        } else if (mode == 2) {
          const i64 piece = tile / tj;  // staging bytes per output row streamed
          if (lo < hi) stage(cur, in_of(lo), row, ti, tj * elem);
          for (i64 t = lo; t < hi; ++t) {
            for (i64 r = 0; r < tj; ++r) {
              stream32(out_of(t) + r * row, row, cur + r * ti * elem, ti * elem, 1, ti * elem);
              if (t + 1 < hi) {
                const i64 off = r * piece, sr = off / (tj * elem), sc = off % (tj * elem);
                copy_slice(next + sr * tj * elem + sc, in_of(t + 1) + sr * row + sc, piece);
              }
            }
            std::swap(cur, next);
          }
        } else {
          for (i64 t = lo; t < hi; ++t) {
            if (mode == 1) {
              stage(cur, src + t * tile, tj * elem, ti, tj * elem);
              stream32(dst + t * tile, ti * elem, cur, ti * elem, tj, ti * elem);
            } else {
              stage(cur, in_of(t), row, ti, tj * elem);
              (mode == 3 ? stream64 : stream32)(out_of(t), row, cur, ti * elem, tj, ti * elem);
            }
          }
        }
        _mm_sfence();
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      gbps[mode].push_back(2.0 * data / ms / 1e6);
    }
  fmt::print("{}^2 x {} B (row pitch {} B), tiles {} x {}, {} threads, GB/s (read + write) per round\n", n, elem, row,
             ti, tj, threads);
  for (int mode = 0; mode < kModes; ++mode) {
    if (gbps[mode].empty()) {
      fmt::print("{:8s} n/a for {}-byte elements on this CPU\n", names[mode], elem);
      continue;
    }
    std::vector<double> v = gbps[mode];
    std::sort(v.begin(), v.end());
    fmt::print("{:8s} median {:5.1f}  (", names[mode], v[v.size() / 2]);
    for (double g : gbps[mode]) fmt::print(" {:.1f}", g);
    fmt::print(" )\n");
  }
  return 0;
}
