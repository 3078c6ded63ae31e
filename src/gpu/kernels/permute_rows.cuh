// permute_rows: a row copy (the fastest dim contiguous on both sides, the output dense) as aligned
// 16-byte vectors on both sides for any row length, strides and pointer alignment
// (gpu/rows_copy.hpp).
//
// Per item j, the j-th aligned 16-byte chunk of the output:
//   1. rows_pieces splits it into row pieces: the row of its first byte by a multiply-shift
//      division, the row's input offset from the thread's cursor (rows_cursor: no division while
//      the thread stays in a row, one add for the next row, a division per row dim otherwise);
//   2. per piece: load the aligned input chunk holding the byte chunk byte 0 would come from and
//      the next one (one when they coincide), shift the 32 bytes down by that byte's misalignment
//      (funnel_down) and keep the piece's bytes (keep_bytes);
//   3. store the 16 bytes as one vector, or byte by byte at the output's first and last chunk.
// The piece loop is unrolled to P pieces (a template: 2 for rows of 15 bytes and more). The kernel
// looks issue-bound (not profiled; every change that removed instructions helped), so the choices
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
    rows_pieces<P>(p, j, out_mis, &cur, [&](int b, int n, std::int32_t s) {
      const int m = (in_mis + s) & 15;  // where chunk byte 0 would come from, mod 16
      const std::int32_t a = s - m;     // its aligned chunk, from in
      const uint4 lo = load_chunk(in, a, p.in_span_bytes);
      const uint4 w = m ? funnel_down(lo, load_chunk(in, a + 16, p.in_span_bytes), m) : lo;
      if (n == 16) v = w;
      else keep_bytes(v, w, b, b + n);
    });
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
