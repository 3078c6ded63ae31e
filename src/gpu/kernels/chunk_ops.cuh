// Aligned 16-byte chunks of a byte array at any misalignment: the device helpers permute_rows,
// permute_runs and permute_box share (load a chunk inside the array's span, shift 32 bytes down to
// any byte, copy an aligned chunk to shared memory asynchronously, write one aligned output chunk
// of a run).
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

#include "gpu/chunk_pieces.hpp"

namespace xpose::detail::gpu {

// The aligned 16 bytes at in + off (off may be negative: in itself need not be aligned); byte by
// byte (only the bytes at offsets 0 .. span - 1, the rest 0) when the chunk is not wholly inside.
__device__ __forceinline__ uint4 load_chunk(const unsigned char* __restrict__ in, std::int32_t off, std::int32_t span) {
  if (off >= 0 && off + 16 <= span) return __ldg(reinterpret_cast<const uint4*>(in + off));
  std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
  for (int j = 0; j < 16; ++j)
    if (off + j >= 0 && off + j < span) w[j >> 2] |= static_cast<std::uint32_t>(in[off + j]) << (8 * (j & 3));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Bytes m .. m + 15 of the 32 bytes lo:hi (little-endian, lo first), 0 <= m < 16.
__device__ __forceinline__ uint4 funnel_down(const uint4& lo, const uint4& hi, int m) {
  const std::uint32_t t[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const int q = m >> 2, sh = 8 * (m & 3);
  std::uint32_t b[5];
#pragma unroll
  for (int j = 0; j < 5; ++j) b[j] = q == 0 ? t[j] : q == 1 ? t[j + 1] : q == 2 ? t[j + 2] : t[j + 3];
  return make_uint4(__funnelshift_r(b[0], b[1], sh), __funnelshift_r(b[1], b[2], sh), __funnelshift_r(b[2], b[3], sh),
                    __funnelshift_r(b[3], b[4], sh));
}

// An asynchronous copy of the aligned 16 bytes at src into shared memory at dst (cp.async, L2
// only), and the wait for every copy this thread has issued: no register holds the data, so a
// thread can have all of its chunks in flight at once.
__device__ __forceinline__ void copy_chunk_async(void* dst, const void* src) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void wait_chunks_async() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// n 32-bit words from src (global) to dst (shared) by the block's threads (thread t of `threads`),
// asynchronously as above: whole 16-byte chunks, and single words before the first and after the
// last. dst and src lie at the same offset from a 16-byte boundary.
__device__ __forceinline__ void copy_words_async(std::int32_t* dst, const std::int32_t* src, int n, int t, int threads) {
  const int head = min(n, static_cast<int>((16 - (reinterpret_cast<std::uintptr_t>(src) & 15)) & 15) / 4);
  const int quads = (n - head) / 4, tail = n - head - 4 * quads;
  auto word = [](std::int32_t* d, const std::int32_t* s) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(d))),
                 "l"(s)
                 : "memory");
  };
  if (t < head) word(dst + t, src + t);
  for (int i = t; i < quads; i += threads) copy_chunk_async(dst + head + 4 * i, src + head + 4 * i);
  if (t < tail) word(dst + head + 4 * quads + t, src + head + 4 * quads + t);
}

// Writes the chunk at byte `first` of the run at `run` (bytes, run_elems elements) from v, whose
// element i is the run's element run_chunk_from + i: one 16-byte store for a whole chunk. A
// partial chunk of bytes with one end inside the run (a head or tail chunk) is rotated into place
// and stored as at most four aligned pieces (gpu/chunk_pieces.hpp says why and how); other partial
// chunks (wider elements, runs of less than 16 bytes inside one chunk) go element by element, as
// every partial chunk did before the nineteenth session. Pieces for 2-byte elements too (8 element
// stores -> at most 3 pieces) measured a loss: f16 suite, permute_box's converged cases -0.5 points
// on average, [11598,29,57,7] perm 2,1,0,3 -4.6 (its first build -6.6), and an 8-byte spill in the
// converged word kernel; bytes +0.95 on average, every case within 1.5 of before or better
// (H200, 2026-12-01, results/chunk-pieces-suite-*-2026-12-01w.json). Its bounds are recomputed
// here rather than kept live through the gather: the byte kernels run at 48 registers.
template <class T>
__device__ __forceinline__ void store_run_chunk(unsigned char* run, int first, int run_elems, const uint4& v) {
  constexpr int S = sizeof(T), V = 16 / S;
  const int run_bytes = run_elems * S;
  const int from = run_chunk_from<S>(first, run_elems);
  if (first >= 0 && first + 16 <= run_bytes) {
    *reinterpret_cast<uint4*>(run + first) = v;
  } else if (S == 1 && (first >= 0 || first + 16 <= run_bytes)) {
    std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
    rotate_chunk(w, chunk_rotation(first, from));
    unsigned char* c = run + first;  // the aligned chunk
    const bool head = first < 0;
    store_chunk_end<1>(w, head, head ? 16 + first : run_bytes - first, [c](int at, std::uint64_t x, int bytes) {
      if (bytes == 1) c[at] = static_cast<unsigned char>(x);
      else if (bytes == 2) *reinterpret_cast<std::uint16_t*>(c + at) = static_cast<std::uint16_t>(x);
      else if (bytes == 4) *reinterpret_cast<std::uint32_t*>(c + at) = static_cast<std::uint32_t>(x);
      else *reinterpret_cast<std::uint64_t*>(c + at) = x;
    });
  } else {
    T e[V];
    memcpy(e, &v, sizeof v);
    T* d = reinterpret_cast<T*>(run) + from;
    const int lo = first / S - from, hi = lo + V < run_elems - from ? lo + V : run_elems - from;
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (i >= lo && i < hi) d[i] = e[i];
  }
}

}  // namespace xpose::detail::gpu
