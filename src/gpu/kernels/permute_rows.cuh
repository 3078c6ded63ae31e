// permute_rows: a row copy (the fastest dim contiguous on both sides, the output dense) as aligned
// 16-byte vectors on both sides for any row length, strides and pointer alignment
// (gpu/rows_copy.hpp).
//
// Per item j, the j-th aligned 16-byte chunk of the output:
//   1. rows_pieces splits it into row pieces: the row of its first byte by a multiply-shift
//      division, the row's input offset from the thread's cursor (rows_cursor: no division while
//      the thread stays in a row or moves on within the innermost row dim, a division per row dim
//      otherwise);
//   2. rows of 15 bytes and more (P = 2, a chunk holds one piece or two): the 16 input bytes from
//      where the first piece's chunk byte 0 would come (rows_load16: the aligned chunk holding
//      it and the next one, shifted down by funnel_down), and, where any lane of the warp has a
//      second piece, the same from the second piece's row, merged at the row's end (rows_merge);
//      shorter rows (P = 3 .. 16): per piece the same 32-byte load and shift, keeping the piece's
//      bytes (keep_bytes);
//   3. store the 16 bytes as one vector, or byte by byte at the output's first and last chunk.
// The kernel is issue-bound (Nsight Compute, H200 2026-12-02, before step 2's one path: issue
// slots 79% busy on odd rows of 23-257 B, results/rows-profile-2026-12-02.log), so the choices
// below are about instructions (H200 2026-11-30, i8, % of copy,
// aligned rows of 256 B / odd rows of 257 B, docs/performance.md "permute_rows"):
//   - warps over 8 steps of 32 consecutive chunks, the cursor kept across steps: 88.2 / 45.1,
//     where a grid-stride loop (a thread's chunks 4 MB apart, every chunk a division chain) ran
//     69.2 / 38.9;
//   - 32-bit offsets (rows_plan bounds the spans below 2^31) and loads through the kernel's own
//     pointer (LDG.E.128.CONSTANT; through an integer address nvcc emitted generic LD.E.128):
//     94.1 / 49.2;
//   - no register cap: __launch_bounds__(256, 8) spilled (40-64 bytes of stack) and ran 78.4 /
//     41.3 (measured before the 32-bit offsets, against 88.2 / 45.1).
//   - (2026-12-02) step 2's one path for two pieces, then the cursor's multi-row step: odd rows of
//     257 B 49.2 -> 69.8 -> 76.5, 150 B 50.3 -> 70.5 -> 75.7, 55 B 49.9 -> 63.4 -> 65.2, 513 B 57.3
//     -> 80.0; 23 B unchanged at 46 (results/rows-ab-2026-12-02{a,b}.json).
//
// Launch geometry: block kRowsThreads; grid ceil(chunks / (kRowsThreads * kRowsSteps)), each warp
// 32 * kRowsSteps consecutive chunks. No shared memory.
#pragma once

#include <cstdint>

#include "gpu/common.cuh"
#include "gpu/kernels/chunk_ops.cuh"
#include "gpu/rows_copy.hpp"

namespace xpose::detail::gpu {

// Mask of the bytes of word i (bytes 4i .. 4i + 3 of a chunk) that lie in [b, e).
__device__ __forceinline__ std::uint32_t rows_byte_mask(int i, int b, int e) {
  const int lo = min(max(b - 4 * i, 0), 4), hi = min(max(e - 4 * i, 0), 4);
  const std::uint32_t below_hi = hi >= 4 ? 0xffffffffu : (1u << (8 * hi)) - 1u;
  const std::uint32_t below_lo = lo >= 4 ? 0xffffffffu : (1u << (8 * lo)) - 1u;
  return below_hi & ~below_lo;
}

// v's bytes b .. e - 1 replaced by w's.
__device__ __forceinline__ void keep_bytes(uint4& v, const uint4& w, int b, int e) {
  std::uint32_t* vv = &v.x;
  const std::uint32_t* ww = &w.x;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t m = rows_byte_mask(i, b, e);
    vv[i] = (vv[i] & ~m) | (ww[i] & m);
  }
}

// The 16 input bytes at offsets s .. s + 15 (s may be negative: bytes outside the input are 0):
// the aligned chunk holding byte s and the next one, shifted down (funnel_down). Warps whose
// sources all lie on a 16-byte boundary (rows of whole chunks at aligned pointers) load one chunk.
__device__ __forceinline__ uint4 rows_load16(const unsigned char* __restrict__ in, int in_mis, std::int32_t s,
                                             std::int32_t span) {
  const int m = (in_mis + s) & 15;
  const std::int32_t a = s - m;
  const uint4 lo = load_chunk(in, a, span);
  if (__all_sync(__activemask(), m == 0)) return lo;
  return funnel_down(lo, load_chunk(in, a + 16, span), m);  // m = 0 shifts by nothing
}

// Bytes 0 .. split - 1 of a, the rest of b (0 <= split <= 16): a word's mask is its low 8 split -
// 32 i bits, clamped to 0 .. 32 (__funnelshift_lc clamps the shift at 32).
__device__ __forceinline__ uint4 rows_merge(const uint4& a, const uint4& b, int split) {
  const std::uint32_t* aa = &a.x;
  const std::uint32_t* bb = &b.x;
  std::uint32_t r[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t m = __funnelshift_lc(~0u, 0u, static_cast<unsigned>(max(8 * split - 32 * i, 0)));
    r[i] = (aa[i] & m) | (bb[i] & ~m);
  }
  return make_uint4(r[0], r[1], r[2], r[3]);
}

template <int P>
__global__ void __launch_bounds__(kRowsThreads)
    permute_rows_kernel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, rows_params p) {
  const int in_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(in) & 15);
  const int out_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
  const auto chunks = static_cast<std::uint32_t>(rows_chunks(p, out_mis));
  unsigned char* const out_aligned = out - out_mis;
  const std::uint32_t warp = blockIdx.x * (kRowsThreads / 32) + threadIdx.x / 32;
  const std::uint32_t j0 = warp * 32 * kRowsSteps + threadIdx.x % 32;
  rows_cursor cur;
  for (int k = 0; k < kRowsSteps; ++k) {
    const std::uint32_t j = j0 + 32 * k;
    if (j >= chunks) break;
    uint4 v = make_uint4(0, 0, 0, 0);
    if constexpr (P == 2) {
      // Rows of 15 bytes or more: a chunk holds one piece or two, and the warp moves them by one
      // path: every lane loads its first piece's 16 bytes, and where any lane's chunk crosses a
      // row's end, every lane loads a second 16 bytes (a chunk of one piece loads its own again,
      // L1 hits) and keeps bytes from `split` on from them. A loop over the pieces ran the second
      // piece (loads, shifts, keep_bytes) for the few lanes that had one while the rest of the
      // warp waited: Nsight Compute, H200, 2026-12-02, i8 rows of 257 / 150 / 23 B: 16.0 / 16.7 /
      // 25.8 active threads per warp, 25 issued warp-thread instructions per byte, issue slots 79%
      // busy (results/rows-profile-2026-12-02.log).
      std::int32_t s1 = 0, s2 = 0;
      int split = 16, pieces = 0;  // chunk bytes from split on come from s2
      rows_pieces<2>(p, j, out_mis, &cur, [&](int b, int n, std::int32_t s) {
        if (pieces++ == 0) {
          s1 = s2 = s;
          split = b + n;
        } else {
          s2 = s;
        }
      });
      v = rows_load16(in, in_mis, s1, p.in_span_bytes);
      if (__any_sync(__activemask(), pieces > 1)) v = rows_merge(v, rows_load16(in, in_mis, s2, p.in_span_bytes), split);
    } else {
      rows_pieces<P>(p, j, out_mis, &cur, [&](int b, int n, std::int32_t s) {
        const int m = (in_mis + s) & 15;  // where chunk byte 0 would come from, mod 16
        const std::int32_t a = s - m;     // its aligned chunk, from in
        const uint4 lo = load_chunk(in, a, p.in_span_bytes);
        const uint4 w = m ? funnel_down(lo, load_chunk(in, a + 16, p.in_span_bytes), m) : lo;
        if (n == 16) v = w;
        else keep_bytes(v, w, b, b + n);
      });
    }
    const std::int32_t pos0 = 16 * static_cast<std::int32_t>(j) - out_mis;
    unsigned char* dst = out_aligned + 16 * j;
    if (pos0 >= 0 && pos0 + 16 <= p.total_bytes) {
      *reinterpret_cast<uint4*>(dst) = v;
    } else {
      const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int i = 0; i < 16; ++i)
        if (pos0 + i >= 0 && pos0 + i < p.total_bytes) dst[i] = static_cast<unsigned char>(w[i >> 2] >> (8 * (i & 3)));
    }
  }
}

}  // namespace xpose::detail::gpu
