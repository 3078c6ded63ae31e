// permute_packed's knobs on the GPU: prefetch on/off, blocks per SM forced or not, and the box
// volume, each timed against cudaMemcpy of the same bytes in the same run (CUDA events, median of
// 10 after 2 warm-ups). Every variant's output is compared with the first one's.
//
// Built and run by scripts/device.sh (stage `packedexp`) against the library's own build:
//   nvcc -std=c++20 -O3 -arch=sm_90 -Isrc -Iinclude scripts/packed_experiment.cu BUILD/src/libxpose.a
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/kernels/permute_packed.cuh"
#include "gpu/packed_tile.hpp"
#include "plan/problem.hpp"

using namespace xpose::detail;
using namespace xpose::detail::gpu;

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

template <class F>
float median_ms(F&& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < 10; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T, bool P, int M>
float time_e(const packed_params& p, const void* in, void* out) {
  auto go = [&](auto kernel) {
    const int smem = p.smem_elems * static_cast<int>(sizeof(T));
    int per_sm = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPackedThreads, smem));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long resident = static_cast<long long>(std::max(per_sm, 1)) * sms;
    const unsigned grid = static_cast<unsigned>(std::min<long long>(p.tiles, resident));
    return median_ms([&] {
      kernel<<<grid, kPackedThreads, smem>>>(static_cast<const T*>(in), static_cast<T*>(out), p);
    });
  };
  switch (p.slots_per_thread) {
    case 1: return go(permute_packed_kernel<T, 1, P, M>);
    case 2: return go(permute_packed_kernel<T, 2, P, M>);
    case 4: return go(permute_packed_kernel<T, 4, P, M>);
    case 8: return go(permute_packed_kernel<T, 8, P, M>);
    case 16:
      if constexpr (sizeof(T) <= 4) return go(permute_packed_kernel<T, 16, P, M>);
  }
  return -1;
}

struct experiment {
  const char* name;
  std::vector<std::int64_t> ext;
  std::vector<int> perm;
  int eb;
};

template <class T>
void run(const experiment& x) {
  xpose::permute_desc d;
  d.extents = x.ext;
  d.perm = x.perm;
  d.elem_bytes = x.eb;
  const problem pr = normalize(to_problem(d));
  const std::size_t bytes = static_cast<std::size_t>(pr.count()) * x.eb;
  void *in = nullptr, *out = nullptr, *ref = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&ref, bytes));
  std::vector<unsigned char> h(bytes), g(bytes);
  for (std::size_t i = 0; i < bytes; ++i) h[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  CHECK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  const float copy = median_ms([&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  bool first = true;
  for (int scale : {1, 2}) {
    const int max_volume = kPackedThreads * packed_max_slots(x.eb) * scale;
    if (max_volume > kPackedThreads * (sizeof(T) <= 4 ? 16 : 8)) continue;
    packed_params p;
    const char* why = "";
    if (!packed_plan(pr, max_volume, &p, &why)) {
      std::printf("%s: %s\n", x.name, why);
      return;
    }
    struct v {
      const char* name;
      float (*f)(const packed_params&, const void*, void*);
    };
    const v variants[] = {{"noprefetch", time_e<T, false, 0>},
                          {"prefetch", time_e<T, true, 0>},
                          {"noprefetch,min4", time_e<T, false, 4>},
                          {"prefetch,min4", time_e<T, true, 4>},
                          {"prefetch,min2", time_e<T, true, 2>}};
    for (const auto& var : variants) {
      CHECK(cudaMemset(out, 0xA5, bytes));
      const float ms = var.f(p, in, out);
      CHECK(cudaDeviceSynchronize());
      if (first) {
        CHECK(cudaMemcpy(ref, out, bytes, cudaMemcpyDeviceToDevice));
        first = false;
      }
      CHECK(cudaMemcpy(g.data(), out, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(h.data(), ref, bytes, cudaMemcpyDeviceToHost));
      const bool same = std::memcmp(g.data(), h.data(), bytes) == 0;
      std::printf("%-28s %2dB box %5d E %2d runs %4d/%-4d %-16s %8.4f ms  %5.1f%% of copy%s\n", x.name, x.eb, p.volume,
                  p.slots_per_thread, p.run_in, p.run_out, var.name, ms, 100.0 * copy / ms,
                  same ? "" : "  DIFFERS FROM THE FIRST VARIANT");
    }
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(ref));
}

int main() {
  const experiment xs[] = {
      {"16384^2 transpose", {16384, 16384}, {1, 0}, 4},
      {"16384^2 transpose", {16384, 16384}, {1, 0}, 8},
      {"16384^2 transpose", {16384, 16384}, {1, 0}, 1},
      {"batch 100000 x 32x48", {100000, 32, 48}, {0, 2, 1}, 4},
      {"reversal rank 6", {16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}, 4},
      {"reversal rank 8", {4, 8, 8, 8, 8, 8, 16, 32}, {7, 6, 5, 4, 3, 2, 1, 0}, 4},
      {"random rank 7", {22, 12, 5, 21, 6, 20, 20}, {5, 2, 4, 0, 3, 6, 1}, 4},
      {"random rank 6", {543, 20, 11, 11, 17, 3}, {2, 4, 3, 1, 5, 0}, 4},
      {"random rank 6", {543, 20, 11, 11, 17, 3}, {2, 4, 3, 1, 5, 0}, 8},
  };
  for (const auto& x : xs) {
    switch (x.eb) {
      case 1: run<unsigned char>(x); break;
      case 4: run<unsigned>(x); break;
      case 8: run<uint2>(x); break;
    }
  }
  return 0;
}
