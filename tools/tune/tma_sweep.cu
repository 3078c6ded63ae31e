// Tuning harness for tma_tile (src/gpu/kernels/tma_tile.cuh): times tile shapes, stages, resident
// blocks and raster bands side by side against cudaMemcpyAsync of the same bytes, in one process,
// and verifies every configuration against a plain reference transpose on the GPU (output poisoned
// first). Its output is what the entries of tma_tile_shape (kernels/tile_shapes.hpp) cite.
//
//   xpose_tune_tma --shape 16384x16384 [--batch 1] [--sizes 1,2,4,8,16] [--reps 7]
//                  [--groups 1,4,16,64] [--scheds 0,1,2]   (0 static, 1 ticket, 2 one tile per block)
//   xpose_tune_tma --shape RxC --fast 1   (fast_tile across vs down its tile rows)
//   xpose_tune_tma --shape RxC --tiled 1  (the classic tile, tiled_seed, across vs down, H 4/8/16,
//                                          and skew_tile across vs down for 1- to 8-byte elements)
//   xpose_tune_tma --copy BYTES   (copy kernels against cudaMemcpyAsync: the ceiling of SM kernels)
//
// Prints one CSV line per configuration: size,rows,cols,batch,npo,npi,threads,out_bufs,stages,
// blocks_per_sm,group,sched,ms,pct_of_copy,ok.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/kernels/fast_tile.cuh"
#include "gpu/kernels/seed_form.cuh"
#include "gpu/kernels/skew_tile.cuh"
#include "gpu/kernels/tma_tile.cuh"
#include "gpu/tma_maps.hpp"

using namespace xpose::detail;
using namespace xpose::detail::gpu;

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace {

__global__ void fill(unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed ^ static_cast<unsigned>(i >> 32) * 40503u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[i] = static_cast<unsigned char>(x);
  }
}

// out[b][c][r] = in[b][r][c], S bytes per element.
__global__ void reference(const unsigned char* in, unsigned char* out, long long rows, long long cols, long long batch,
                          int S) {
  const long long n = rows * cols * batch;
  for (long long e = blockIdx.x * 1LL * blockDim.x + threadIdx.x; e < n; e += 1LL * gridDim.x * blockDim.x) {
    const long long b = e / (rows * cols), rc = e % (rows * cols), r = rc / cols, c = rc % cols;
    const long long o = b * rows * cols + c * rows + r;
    for (int k = 0; k < S; ++k) out[o * S + k] = in[e * S + k];
  }
}

__global__ void count_diff(const unsigned char* a, const unsigned char* b, std::size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(bad, mine);
}

// ---- copy ceilings (--copy): how close an SM kernel gets to cudaMemcpyAsync at all ----

// float4 grid-stride copy, U independent 16-byte loads in flight per thread.
template <int U>
__global__ void copy_vec(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) out[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) out[i] = in[i];
}

// 1-D bulk copies through shared memory: one thread per block, `stages` chunks of `chunk` bytes in
// flight, chunk k of the array to block k % grid.
__global__ void copy_bulk(const unsigned char* in, unsigned char* out, std::size_t bytes, int chunk, int stages) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ alignas(8) std::uint64_t bar[8];
  if (threadIdx.x != 0) return;
  const std::size_t nchunks = bytes / chunk;
  for (int s = 0; s < stages; ++s) tma::mbar_init(&bar[s], 1);
  tma::fence_mbar_init();
  auto load = [&](std::size_t k, int s) {
    tma::mbar_expect_tx(&bar[s], chunk);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     tma::smem_addr(buf + s * chunk)),
                 "l"(in + k * chunk), "r"(chunk), "r"(tma::smem_addr(&bar[s]))
                 : "memory");
  };
  int i = 0;
  for (int s = 0; s < stages; ++s)
    if (blockIdx.x + s * std::size_t{gridDim.x} < nchunks) load(blockIdx.x + s * std::size_t{gridDim.x}, s);
  for (std::size_t k = blockIdx.x; k < nchunks; k += gridDim.x, ++i) {
    const int s = i % stages;
    tma::mbar_wait(&bar[s], (i / stages) & 1);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + k * chunk),
                 "r"(tma::smem_addr(buf + s * chunk)), "r"(chunk)
                 : "memory");
    tma::commit_group();
    tma::wait_group_read<0>();
    const std::size_t next = k + static_cast<std::size_t>(stages) * gridDim.x;
    if (next < nchunks) load(next, s);
  }
  tma::wait_group_all();
}

void copy_ceilings(long long bytes, int reps) {
  unsigned char *in, *out;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  fill<<<4096, 256>>>(in, bytes, 99u);
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  auto timed = [&](auto&& f) {
    std::vector<float> t;
    f();
    CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      CHECK(cudaEventRecord(e0));
      f();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return static_cast<double>(t[t.size() / 2]);
  };
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double mc = timed([&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("copy,%lld,memcpy,,%.4f,100.0\n", bytes, mc);
  const std::size_t n = bytes / 16;
  for (int bps : {2, 4, 8, 16})
    for (int threads : {256, 512, 1024}) {
      if (bps * threads > 2048) continue;
      const double a = timed([&] {
        copy_vec<1><<<bps * sms, threads>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), n);
      });
      const double b = timed([&] {
        copy_vec<4><<<bps * sms, threads>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), n);
      });
      std::printf("copy,%lld,vec1,bps%d_t%d,%.4f,%.1f\n", bytes, bps, threads, a, 100 * mc / a);
      std::printf("copy,%lld,vec4,bps%d_t%d,%.4f,%.1f\n", bytes, bps, threads, b, 100 * mc / b);
    }
  const double big = timed([&] { copy_vec<1><<<(n + 255) / 256, 256>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), n); });
  std::printf("copy,%lld,vec1,one_per_thread,%.4f,%.1f\n", bytes, big, 100 * mc / big);
  for (int chunk : {4096, 8192, 16384, 32768})
    for (int stages : {2, 4, 6})
      for (int bps : {1, 2, 4, 8}) {
        const int smem = chunk * stages;
        if (smem > 200 * 1024 || bps * smem > 220 * 1024) continue;
        CHECK(cudaFuncSetAttribute(copy_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const double t = timed([&] {
          copy_bulk<<<bps * sms, 32, smem>>>(in, out, bytes, chunk, stages);
          CHECK(cudaGetLastError());
        });
        std::printf("copy,%lld,bulk,chunk%d_st%d_bps%d,%.4f,%.1f\n", bytes, chunk, stages, bps, t, 100 * mc / t);
      }
  const double mc2 = timed([&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("copy,%lld,memcpy_again,,%.4f,%.1f\n", bytes, mc2, 100 * mc / mc2);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

struct ctx {
  long long rows, cols, batch;
  std::size_t bytes;
  unsigned char *in, *out, *ref;
  unsigned long long* bad;
  unsigned long long* ticket;  // {next tile, blocks done}, self-resetting
  cudaEvent_t e0, e1;
  int sms;
  int reps;
  double copy_ms;
  std::vector<int> groups, scheds;
  bool fast = false;  // --fast: fast_tile's two launch orders instead of the tma_tile sweep
  bool tiled = false;  // --tiled: the classic tile's two launch orders
};

template <class F>
double time_ms(ctx& c, F&& f) {
  std::vector<float> t;
  f();  // warm-up
  CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < c.reps; ++r) {
    CHECK(cudaEventRecord(c.e0));
    f();
    CHECK(cudaEventRecord(c.e1));
    CHECK(cudaEventSynchronize(c.e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The dense matrix view of the context's shape.
matrix_view dense_view(const ctx& c) {
  matrix_view m;
  m.rows = c.rows;
  m.cols = c.cols;
  m.ld_in = c.cols;
  m.ld_out = c.rows;
  m.batch = c.batch;
  m.bs_in = m.bs_out = c.rows * c.cols;
  m.batch_rank = c.batch > 1 ? 1 : 0;
  return m;
}

// Runs `run` once on a poisoned output and counts the bytes that differ from the reference.
template <class F>
unsigned long long wrong_bytes(ctx& c, F&& run) {
  CHECK(cudaMemset(c.out, 0xA5, c.bytes));
  run();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemset(c.bad, 0, sizeof(unsigned long long)));
  count_diff<<<1024, 256>>>(c.out, c.ref, c.bytes, c.bad);
  unsigned long long bad = 0;
  CHECK(cudaMemcpy(&bad, c.bad, sizeof bad, cudaMemcpyDeviceToHost));
  return bad;
}

template <int S, int NPO, int NPI, int NT, int NO>
void sweep(ctx& c) {
  const matrix_view m = dense_view(c);
  CUtensorMap mi, mo;
  std::string why;
  if (make_tma_maps(m, S, NPO, NPI, c.in, c.out, &mi, &mo, &why) != xpose::status::kSuccess) {
    std::fprintf(stderr, "maps: %s\n", why.c_str());
    std::exit(1);
  }
  // sched 0: static persistent (block b takes b, b + grid, ...); 1: ticket persistent (tiles in the
  // order blocks ask); 2: one tile per block (the hardware's block order).
  for (int sched : c.scheds)
    for (int stages : {2, 3, 4})
      for (int bps : {1, 2, 3, 4}) {
        const int smem = tma_tile_smem<S, NPO, NPI>(stages, NO);
        if (smem > 227 * 1024 || bps * (smem + 1024) > 228 * 1024 || bps * NT > 2048) continue;
        if (sched == 2 && (stages != 2 || bps != 1)) continue;
        for (int group : c.groups) {
          tma_tile_args a = make_tma_args(m, S, NPO, NPI, group, stages);
          if (sched == 1) a.ticket = c.ticket;
          const int grid = sched == 2 ? static_cast<int>(a.tiles)
                                      : static_cast<int>(std::min<long long>(a.tiles, 1LL * bps * c.sms));
          auto run = [&] { CHECK((launch_tma_tile<S, NPO, NPI, NT, NO>(mi, mo, a, grid, 0))); };
          const unsigned long long bad = wrong_bytes(c, run);
          const double ms = time_ms(c, run);
          std::printf("%d,%lld,%lld,%lld,%d,%d,%d,%d,%d,%d,%d,%s,%.4f,%.1f,%s\n", S, c.rows, c.cols, c.batch, NPO, NPI,
                      NT, NO, stages, sched == 2 ? 0 : bps, group, sched == 0 ? "static" : sched == 1 ? "ticket" : "oneshot",
                      ms, 100.0 * c.copy_ms / ms, bad ? "BAD" : "ok");
          std::fflush(stdout);
        }
      }
}

// fast_tile (one-shot grid) in its two launch orders, against the same reference.
template <int S>
void fast_orders(ctx& c) {
  using T = typename word_of<S>::type;
  using sh = fast_tile_shape<S>;
  const matrix_view m = dense_view(c);
  const long long nbx = (c.cols + sh::kCols - 1) / sh::kCols, nby = (c.rows + sh::kRows - 1) / sh::kRows;
  for (int down : {0, 1}) {
    auto run = [&] {
      if (down)
        fast_tile_kernel<T, true><<<capped_grid(nby, nbx, c.batch), sh::kThreads>>>(
            reinterpret_cast<const T*>(c.in), reinterpret_cast<T*>(c.out), m);
      else
        fast_tile_kernel<T, false><<<capped_grid(nbx, nby, c.batch), sh::kThreads>>>(
            reinterpret_cast<const T*>(c.in), reinterpret_cast<T*>(c.out), m);
      CHECK(cudaGetLastError());
    };
    const unsigned long long bad = wrong_bytes(c, run);
    const double ms = time_ms(c, run);
    std::printf("%d,%lld,%lld,%lld,fast_tile,,,,,,,%s,%.4f,%.1f,%s\n", S, c.rows, c.cols, c.batch,
                down ? "down" : "across", ms, 100.0 * c.copy_ms / ms, bad ? "BAD" : "ok");
    std::fflush(stdout);
  }
}

// The classic tile (tiled_seed, one tile per block) in its two launch orders and three heights.
template <int H, int S>
void tiled_order(ctx& c, bool down) {
  using T = typename word_of<S>::type;
  const int nbx = static_cast<int>((c.cols + 31) / 32), nby = static_cast<int>((c.rows + 31) / 32);
  auto run = [&] {
    const T* in = reinterpret_cast<const T*>(c.in);
    T* out = reinterpret_cast<T*>(c.out);
    if (down)
      tiled_seed<H, T, true><<<dim3(nby, nbx), dim3(32, H)>>>(in, out, static_cast<int>(c.rows), static_cast<int>(c.cols));
    else
      tiled_seed<H, T, false><<<dim3(nbx, nby), dim3(32, H)>>>(in, out, static_cast<int>(c.rows), static_cast<int>(c.cols));
    CHECK(cudaGetLastError());
  };
  const unsigned long long bad = wrong_bytes(c, run);
  const double ms = time_ms(c, run);
  std::printf("%d,%lld,%lld,%lld,tiled,,%d,,,,,%s,%.4f,%.1f,%s\n", S, c.rows, c.cols, c.batch, 32 * H,
              down ? "down" : "across", ms, 100.0 * c.copy_ms / ms, bad ? "BAD" : "ok");
  std::fflush(stdout);
}

template <int S>
void skew_orders(ctx& c) {
  if constexpr (S < 16) {
    using T = typename word_of<S>::type;
    using sh = skew_tile_shape<S>;
    constexpr int U = 32 / S;
    const matrix_view m = dense_view(c);
    const long long nbx = (c.cols + sh::kCols - 1) / sh::kCols, nby = (c.rows + U - 1 + sh::kRows - 1) / sh::kRows;
    for (int down : {0, 1}) {
      auto run = [&] {
        const T* in = reinterpret_cast<const T*>(c.in);
        T* out = reinterpret_cast<T*>(c.out);
        if (down)
          skew_tile_kernel<T, sh, true><<<capped_grid(nby, nbx, c.batch), sh::kThreads>>>(in, out, m);
        else
          skew_tile_kernel<T, sh, false><<<capped_grid(nbx, nby, c.batch), sh::kThreads>>>(in, out, m);
        CHECK(cudaGetLastError());
      };
      const unsigned long long bad = wrong_bytes(c, run);
      const double ms = time_ms(c, run);
      std::printf("%d,%lld,%lld,%lld,skew_tile,,%d,,,,,%s,%.4f,%.1f,%s\n", S, c.rows, c.cols, c.batch, sh::kThreads,
                  down ? "down" : "across", ms, 100.0 * c.copy_ms / ms, bad ? "BAD" : "ok");
      std::fflush(stdout);
    }
  }
}

template <int S>
void tiled_orders(ctx& c) {
  skew_orders<S>(c);
  if (c.batch != 1 || c.rows * c.cols > 0x7fffffffLL || (c.cols + 31) / 32 > 65535 || (c.rows + 31) / 32 > 65535) {
    std::printf("# tiled: one matrix under 2^31 elements with both grid sides <= 65535 only\n");
    return;
  }
  for (int down : {0, 1}) {
    tiled_order<4, S>(c, down);
    tiled_order<8, S>(c, down);
    tiled_order<16, S>(c, down);
  }
}

void run_size(ctx& c, int S) {
  CHECK(cudaMemset(c.ref, 0, c.bytes));
  reference<<<4096, 256>>>(c.in, c.ref, c.rows, c.cols, c.batch, S);
  CHECK(cudaGetLastError());
  c.copy_ms = time_ms(c, [&] { CHECK(cudaMemcpyAsync(c.out, c.in, c.bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("# size %d: memcpy %.4f ms (%.0f GB/s read+write)\n", S, c.copy_ms, 2.0 * c.bytes / c.copy_ms / 1e6);
  if (c.tiled) {
    switch (S) {
      case 1: tiled_orders<1>(c); break;
      case 2: tiled_orders<2>(c); break;
      case 4: tiled_orders<4>(c); break;
      case 8: tiled_orders<8>(c); break;
      case 16: tiled_orders<16>(c); break;
    }
    return;
  }
  if (c.fast) {
    switch (S) {
      case 1: fast_orders<1>(c); break;
      case 2: fast_orders<2>(c); break;
      case 4: fast_orders<4>(c); break;
      case 8: fast_orders<8>(c); break;
      case 16: fast_orders<16>(c); break;
    }
    return;
  }
  switch (S) {
    case 1:
      sweep<1, 1, 1, 64, 2>(c);
      sweep<1, 1, 1, 64, 3>(c);
      sweep<1, 2, 1, 128, 2>(c);
      sweep<1, 1, 2, 128, 2>(c);
      break;
    case 2:
      sweep<2, 1, 2, 128, 2>(c);
      sweep<2, 2, 1, 128, 2>(c);
      sweep<2, 1, 1, 64, 2>(c);
      sweep<2, 2, 2, 256, 2>(c);
      break;
    case 4:
      sweep<4, 2, 2, 128, 2>(c);
      sweep<4, 2, 2, 256, 2>(c);
      sweep<4, 2, 2, 128, 3>(c);
      sweep<4, 1, 1, 64, 2>(c);
      sweep<4, 1, 2, 128, 2>(c);
      break;
    case 8:
      sweep<8, 2, 4, 128, 2>(c);
      sweep<8, 4, 2, 128, 2>(c);
      sweep<8, 2, 2, 128, 2>(c);
      sweep<8, 4, 4, 256, 2>(c);
      sweep<8, 8, 2, 128, 2>(c);
      sweep<8, 8, 2, 256, 2>(c);
      sweep<8, 4, 4, 128, 2>(c);
      break;
    case 16:
      sweep<16, 4, 4, 128, 2>(c);
      sweep<16, 4, 4, 256, 2>(c);
      sweep<16, 2, 2, 128, 2>(c);
      sweep<16, 2, 4, 128, 2>(c);
      sweep<16, 8, 4, 256, 2>(c);
      sweep<16, 8, 2, 128, 2>(c);
      sweep<16, 4, 2, 128, 2>(c);
      sweep<16, 8, 8, 256, 2>(c);
      break;
  }
  const double again = time_ms(c, [&] { CHECK(cudaMemcpyAsync(c.out, c.in, c.bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("# size %d: memcpy again %.4f ms\n", S, again);
}

std::vector<int> int_list(const std::string& v) {
  std::vector<int> out;
  for (std::size_t p = 0; p < v.size();) {
    out.push_back(std::atoi(v.c_str() + p));
    p = v.find(',', p);
    if (p == std::string::npos) break;
    ++p;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  long long rows = 16384, cols = 16384, batch = 1;
  std::vector<int> sizes = {1, 2, 4, 8, 16};
  int reps = 7;
  long long copy_bytes = 0;
  bool fast = false, tiled = false;
  std::vector<int> groups = {1, 4, 16, 64}, scheds = {0, 1, 2};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--shape") {
      if (std::sscanf(v.c_str(), "%lldx%lld", &rows, &cols) != 2) return std::fprintf(stderr, "bad --shape\n"), 2;
    } else if (k == "--batch") {
      batch = std::atoll(v.c_str());
    } else if (k == "--fast") {
      fast = std::atoi(v.c_str()) != 0;
    } else if (k == "--tiled") {
      tiled = std::atoi(v.c_str()) != 0;
    } else if (k == "--copy") {
      copy_bytes = std::atoll(v.c_str());
    } else if (k == "--reps") {
      reps = std::atoi(v.c_str());
    } else if (k == "--sizes") {
      sizes = int_list(v);
    } else if (k == "--groups") {
      groups = int_list(v);
    } else if (k == "--scheds") {
      scheds = int_list(v);
    } else {
      return std::fprintf(stderr, "unknown option %s\n", k.c_str()), 2;
    }
  }
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("# %s, %d SMs; shape %lldx%lld, batch %lld\n", prop.name, prop.multiProcessorCount, rows, cols, batch);
  if (copy_bytes) {
    std::printf("copy,bytes,kernel,config,ms,pct_of_memcpy\n");
    copy_ceilings(copy_bytes, reps);
    return 0;
  }
  std::printf("size,rows,cols,batch,npo,npi,threads,out_bufs,stages,blocks_per_sm,group,sched,ms,pct_of_copy,ok\n");
  for (int S : sizes) {
    ctx c{};
    c.rows = rows;
    c.cols = cols;
    c.batch = batch;
    c.bytes = static_cast<std::size_t>(rows * cols * batch * S);
    c.sms = prop.multiProcessorCount;
    c.reps = reps;
    c.groups = groups;
    c.scheds = scheds;
    c.fast = fast;
    c.tiled = tiled;
    CHECK(cudaMalloc(&c.in, c.bytes));
    CHECK(cudaMalloc(&c.out, c.bytes));
    CHECK(cudaMalloc(&c.ref, c.bytes));
    CHECK(cudaMalloc(&c.bad, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&c.ticket, 2 * sizeof(unsigned long long)));
    CHECK(cudaMemset(c.ticket, 0, 2 * sizeof(unsigned long long)));
    CHECK(cudaEventCreate(&c.e0));
    CHECK(cudaEventCreate(&c.e1));
    fill<<<4096, 256>>>(c.in, c.bytes, 1234u + S);
    CHECK(cudaGetLastError());
    run_size(c, S);
    CHECK(cudaFree(c.in));
    CHECK(cudaFree(c.out));
    CHECK(cudaFree(c.ref));
    CHECK(cudaFree(c.bad));
    CHECK(cudaFree(c.ticket));
    CHECK(cudaEventDestroy(c.e0));
    CHECK(cudaEventDestroy(c.e1));
  }
  return 0;
}
