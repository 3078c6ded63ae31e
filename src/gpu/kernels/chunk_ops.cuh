// Aligned 16-byte chunks of a byte array at any misalignment: the device helpers permute_rows,
// permute_runs and permute_box share (load a chunk inside the array's span, shift 32 bytes down to
// any byte, copy an aligned chunk to shared memory asynchronously, write one aligned output chunk
// of a run).
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

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

// The aligned 16-byte output chunk that starts at byte `first` of a run of run_elems elements
// (first > -16, a multiple of the element size S: pointers are aligned to the element) holds the
// run's elements start .. start + cnt - 1 (cnt >= 1 for first < run_elems * S). Kernels gather V =
// 16 / S consecutive elements from `from` for every chunk, whole or not: from = start but at the
// run's end, where it moves back so the V elements stay inside the run (runs of V elements and
// more; shorter ones gather from 0 with indices clamped to the run). One gather path for head,
// tail and inner chunks alike: only store_run_chunk branches (permute_box.cuh, "Converged").
template <int S>
__device__ __forceinline__ int run_chunk_from(int first, int run_elems) {
  constexpr int V = 16 / S;
  const int start = first > 0 ? first / S : 0;
  return run_elems >= V ? min(start, run_elems - V) : 0;
}

// Writes the chunk at byte `first` of the run at `run` (bytes, run_elems elements) from v, whose
// element i is the run's element run_chunk_from + i: one 16-byte store for a whole chunk, else
// the chunk's own elements one by one. (Its bounds are recomputed here rather than kept live
// through the gather: the byte kernels run at 48 registers.)
template <class T>
__device__ __forceinline__ void store_run_chunk(unsigned char* run, int first, int run_elems, const uint4& v) {
  constexpr int S = sizeof(T), V = 16 / S;
  if (first >= 0 && first + 16 <= run_elems * S) {
    *reinterpret_cast<uint4*>(run + first) = v;
  } else {
    T e[V];
    memcpy(e, &v, sizeof v);
    const int from = run_chunk_from<S>(first, run_elems);
    T* d = reinterpret_cast<T*>(run) + from;
    const int lo = first / S - from, hi = lo + V < run_elems - from ? lo + V : run_elems - from;
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (i >= lo && i < hi) d[i] = e[i];
  }
}

}  // namespace xpose::detail::gpu
