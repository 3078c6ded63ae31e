#include "bench/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <omp.h>

#include "cpu/reference.hpp"
#include "plan/problem.hpp"

#ifdef XPOSE_HAS_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace xpose::bench {
namespace {

constexpr unsigned char kPoison = 0xA5;

// Host memory for the CPU bench: anonymous pages, advised to the kernel as transparent huge pages
// when asked (run_options::huge_pages, as NumPy advises every array of 4 MiB and more on Linux).
class host_buffer {
 public:
  host_buffer(std::size_t bytes, bool huge) : bytes_(std::max<std::size_t>(bytes, 1)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    p_ = static_cast<unsigned char*>(p);
    if (huge) (void)madvise(p_, bytes_, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
  }
  host_buffer(const host_buffer&) = delete;
  host_buffer& operator=(const host_buffer&) = delete;
  ~host_buffer() { munmap(p_, bytes_); }
  unsigned char* data() const { return p_; }
  std::size_t size() const { return bytes_; }

 private:
  std::size_t bytes_;
  unsigned char* p_ = nullptr;
};

struct sizes {
  std::int64_t count = 0;      // elements moved
  std::int64_t in_bytes = 0;   // span of the input
  std::int64_t out_bytes = 0;  // span of the output
};

sizes sizes_of(const problem_spec& p) {
  const detail::problem raw = p.transpose ? detail::to_problem(*p.transpose) : detail::to_problem(*p.permute);
  return {raw.count(), detail::in_span(raw) * p.elem_bytes, detail::out_span(raw) * p.elem_bytes};
}

// Random data of the dtype: finite values for floating types (so the cuBLAS baseline, which does
// arithmetic, returns them bit-exact), arbitrary bytes for integers. splitmix64 per 64-byte chunk,
// in parallel, so multi-GiB inputs fill in well under a second on the device machine's 16 cores.
void fill(const std::string& dtype, unsigned char* p, std::int64_t bytes, std::uint64_t seed) {
  const std::int64_t chunks = (bytes + 63) / 64;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::uint64_t s = (seed + 1) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(c) * 0xD1B54A32D192ED03ull;
    std::uint64_t words[8];
    for (auto& w : words) {
      std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = z ^ (z >> 31);
    }
    unsigned char buf[64];
    std::memcpy(buf, words, 64);
    if (dtype == "f32" || dtype == "c64") {
      for (int i = 0; i < 16; ++i) {  // exponent 126 or 127: |x| in [0.5, 2), sign random
        std::uint32_t v;
        std::memcpy(&v, buf + 4 * i, 4);
        v = (v & 0x80FFFFFFu) | ((126u + (v >> 23 & 1u)) << 23);
        std::memcpy(buf + 4 * i, &v, 4);
      }
    } else if (dtype == "f64" || dtype == "c128") {
      for (int i = 0; i < 8; ++i) {
        std::uint64_t v;
        std::memcpy(&v, buf + 8 * i, 8);
        v = (v & 0x800FFFFFFFFFFFFFull) | ((1022ull + (v >> 52 & 1ull)) << 52);
        std::memcpy(buf + 8 * i, &v, 8);
      }
    } else if (dtype == "f16" || dtype == "bf16") {
      const int ebits = dtype == "f16" ? 10 : 7;  // mantissa bits
      const std::uint16_t bias = dtype == "f16" ? 15 : 127;
      for (int i = 0; i < 32; ++i) {
        std::uint16_t v;
        std::memcpy(&v, buf + 2 * i, 2);
        const std::uint16_t mant = v & ((1u << ebits) - 1), sign = v & 0x8000u;
        const std::uint16_t exp = static_cast<std::uint16_t>(bias - 1 + (v >> 14 & 1u));
        v = static_cast<std::uint16_t>(sign | (exp << ebits) | mant);
        std::memcpy(buf + 2 * i, &v, 2);
      }
    }
    const std::int64_t off = c * 64;
    std::memcpy(p + off, buf, static_cast<std::size_t>(std::min<std::int64_t>(64, bytes - off)));
  }
}

void reference(const problem_spec& p, const void* in, void* out) {
  if (p.transpose)
    reference::transpose(*p.transpose, in, out);
  else
    reference::permute(*p.permute, in, out);
}

std::int64_t first_mismatch(const unsigned char* a, const unsigned char* b, std::int64_t n) {
  std::int64_t first = -1;
  const std::int64_t chunk = 1 << 20;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < (n + chunk - 1) / chunk; ++c) {
    const std::int64_t lo = c * chunk, len = std::min(chunk, n - lo);
    if (std::memcmp(a + lo, b + lo, static_cast<std::size_t>(len)) != 0) {
      std::int64_t i = lo;
      while (a[i] == b[i]) ++i;
#pragma omp critical
      if (first < 0 || i < first) first = i;
    }
  }
  return first;
}

struct stats {
  double median = 0, min = 0, max = 0;
};

stats summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  return {n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), ms.front(), ms.back()};
}

result base_result(const problem_spec& p, const variant_spec& v, backend where) {
  result r;
  r.variant = v.name;
  r.backend = where == backend::kGpu ? "gpu" : "cpu";
  r.dtype = p.dtype;
  r.elem_bytes = p.elem_bytes;
  r.label = p.label;
  r.block_x = v.block_x;
  r.block_y = v.block_y;
  if (p.transpose) {
    r.rows = p.transpose->rows;
    r.cols = p.transpose->cols;
    r.batch = p.transpose->batch;
  } else {
    // Permutations: rows x cols of the normalised problem, viewed as (everything else) x (the
    // output's fastest fused dimension).
    const detail::problem n = detail::normalize(detail::to_problem(*p.permute));
    r.cols = n.rank ? n.dims[n.rank - 1].extent : 1;
    r.rows = n.count() / r.cols;
    r.extents = p.permute->extents;
    r.perm = p.permute->perm;
  }
  return r;
}

void finish(result& r, const stats& t, double copy_ms, std::int64_t count) {
  r.median_ms = t.median;
  r.min_ms = t.min;
  r.max_ms = t.max;
  const double bytes = 2.0 * static_cast<double>(count) * r.elem_bytes;  // read + write
  r.gbps = bytes / (t.median * 1e6);
  r.copy_gbps = bytes / (copy_ms * 1e6);
  r.pct_of_copy = 100.0 * copy_ms / t.median;
}

status plan_for(const problem_spec& p, const plan_options& o, plan* pl, std::string* why) {
  return p.transpose ? make_plan(*p.transpose, o, pl, why) : make_plan(*p.permute, o, pl, why);
}

// ------------------------------------------------------------------------------------------ CPU
// Host memory a run may take: MemAvailable from /proc/meminfo (free memory plus the page cache the
// kernel can drop), else the free pages.
std::int64_t available_host_bytes() {
  std::ifstream f("/proc/meminfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("MemAvailable:", 0) == 0) return std::stoll(line.substr(13)) * 1024;
  return static_cast<std::int64_t>(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
}

std::vector<result> run_cpu(const problem_spec& p, const std::vector<variant_spec>& variants, const run_options& o) {
  const sizes sz = sizes_of(p);
  const std::size_t copy_bytes = static_cast<std::size_t>(sz.count) * p.elem_bytes;
  // A problem whose buffers (input, output, expected output, the copy's target) do not fit in the
  // host's memory is skipped with the reason, instead of the kernel's OOM killer ending the whole
  // run: the c128 permutation suite's [1,24,19,23,24,25,16,5] (its first extent cannot shrink to
  // the suite's 2^26 elements) is 7.5 GiB a buffer, 30 GiB in all.
  const std::int64_t need = sz.in_bytes + 2 * sz.out_bytes + static_cast<std::int64_t>(copy_bytes);
  if (const std::int64_t avail = available_host_bytes(); need > avail) {
    std::vector<result> skipped;
    for (const auto& v : variants) {
      result r = base_result(p, v, backend::kCpu);
      r.skipped = true;
      r.note = fmt::format("needs {:.1f} GiB of host memory (input, output, expected output, copy), {:.1f} GiB available",
                           need / 1073741824.0, avail / 1073741824.0);
      skipped.push_back(r);
    }
    return skipped;
  }
  host_buffer in(sz.in_bytes, o.huge_pages), out(sz.out_bytes, o.huge_pages), scratch(copy_bytes, o.huge_pages);
  std::vector<unsigned char> expected(sz.out_bytes, kPoison);
  fill(p.dtype, in.data(), sz.in_bytes, o.seed);
  reference(p, in.data(), expected.data());
  std::memset(out.data(), 0, out.size());  // touch every page before anything is timed
  std::memset(scratch.data(), 0, scratch.size());

  auto time_once = [](auto&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  // The ceiling: memcpy of the same bytes, split over the same number of threads as the variants
  // get (a single-threaded memcpy would flatter a multi-threaded transpose on a many-core machine).
  const int threads = o.cpu_threads > 0 ? o.cpu_threads : omp_get_max_threads();
  auto copy = [&] {
    const std::size_t chunk = (copy_bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::size_t lo = std::min(copy_bytes, t * chunk);
      const std::size_t n = std::min(copy_bytes - lo, chunk);
      std::memcpy(scratch.data() + lo, out.data() + lo, n);
    }
  };
  // Copy and variant are timed in alternation, rep by rep, so both see the same neighbours: a host
  // shared with other work moves the copy's own rate by 2x from minute to minute (docs/cpu.md), and
  // a copy timed once before all the variants compared them against a different machine.
  auto time_pairs = [&](auto&& fn, double* copy_ms) {
    for (int i = 0; i < o.warmup; ++i) {
      copy();
      fn();
    }
    std::vector<double> ms, cms;
    for (int i = 0; i < o.reps; ++i) {
      cms.push_back(time_once(copy));
      ms.push_back(time_once(fn));
    }
    *copy_ms = summarize(std::move(cms)).median;
    return summarize(std::move(ms));
  };

  std::vector<result> results;
  for (const auto& v : variants) {
    result r = base_result(p, v, backend::kCpu);
    plan pl;
    std::string why;
    plan_options po{.where = backend::kCpu, .variant = v.name, .cpu_threads = o.cpu_threads, .tuning = o.tuning};
    if (o.progress) o.progress(fmt::format("cpu {} {} {}", v.name, p.label, p.dtype));
    if (plan_for(p, po, &pl, &why) != status::kSuccess) {
      r.skipped = true;
      r.note = why;
      results.push_back(r);
      continue;
    }
    std::memset(out.data(), kPoison, out.size());
    if (execute(pl, in.data(), out.data(), nullptr, &why) != status::kSuccess) {
      r.note = "execute failed: " + why;
      results.push_back(r);
      continue;
    }
    const std::int64_t bad = first_mismatch(out.data(), expected.data(), sz.out_bytes);
    r.verified = bad < 0;
    if (!r.verified) r.note = fmt::format("WRONG: first difference at output byte {}", bad);
    double copy_ms = 0;
    const stats t = time_pairs([&] { (void)execute(pl, in.data(), out.data(), nullptr, nullptr); }, &copy_ms);
    finish(r, t, copy_ms, sz.count);
    results.push_back(r);
  }
  return results;
}

// ------------------------------------------------------------------------------------------ GPU
#ifdef XPOSE_HAS_CUDA
struct cuda_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw cuda_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw cuda_error(fmt::format("{}: cuBLAS status {}", what, static_cast<int>(e)));
}

struct device_buffer {
  void* p = nullptr;
  explicit device_buffer(std::int64_t bytes) { check(cudaMalloc(&p, static_cast<std::size_t>(bytes)), "cudaMalloc"); }
  ~device_buffer() { cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

struct event_pair {
  cudaEvent_t a{}, b{};
  event_pair() {
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~event_pair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

// Times fn() with CUDA events around each repetition (no host synchronisation inside the region).
template <class F>
stats time_gpu(F&& fn, const run_options& o, cudaStream_t s) {
  for (int i = 0; i < o.warmup; ++i) fn();
  check(cudaStreamSynchronize(s), "warm-up");
  std::vector<event_pair> ev(static_cast<std::size_t>(o.reps));
  for (auto& e : ev) {
    check(cudaEventRecord(e.a, s), "cudaEventRecord");
    fn();
    check(cudaEventRecord(e.b, s), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(s), "timed runs");
  check(cudaGetLastError(), "timed runs");
  std::vector<double> ms;
  for (auto& e : ev) {
    float t = 0;
    check(cudaEventElapsedTime(&t, e.a, e.b), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  return summarize(std::move(ms));
}

// cuBLAS geam as a transpose baseline: C = 1 * op(A) with op = transpose. Our row-major rows x
// cols input is cuBLAS's column-major cols x rows with lda = ld_in; the row-major cols x rows
// output is column-major rows x cols with ldc = ld_out. S, D, Z for 4-, 8- and 16-byte elements.
status run_cublas(cublasHandle_t h, const transpose_desc& d, const void* in, void* out, std::string* why) {
  const std::int64_t ld_in = d.ld_in.value_or(d.cols), ld_out = d.ld_out.value_or(d.rows);
  const std::int64_t bsi = (d.batch_stride_in ? *d.batch_stride_in : d.rows * ld_in), bso = (d.batch_stride_out ? *d.batch_stride_out : d.cols * ld_out);
  const int m = static_cast<int>(d.rows), n = static_cast<int>(d.cols), lda = static_cast<int>(ld_in),
            ldc = static_cast<int>(ld_out);
  for (std::int64_t b = 0; b < d.batch; ++b) {
    cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
    const auto off_in = b * bsi * d.elem_bytes, off_out = b * bso * d.elem_bytes;
    const auto* a = static_cast<const char*>(in) + off_in;
    auto* c = static_cast<char*>(out) + off_out;
    if (d.elem_bytes == 4) {
      const float one = 1, zero = 0;
      st = cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const float*>(a), lda, &zero,
                       reinterpret_cast<const float*>(c), ldc, reinterpret_cast<float*>(c), ldc);
    } else if (d.elem_bytes == 8) {
      const double one = 1, zero = 0;
      st = cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const double*>(a), lda, &zero,
                       reinterpret_cast<const double*>(c), ldc, reinterpret_cast<double*>(c), ldc);
    } else if (d.elem_bytes == 16) {
      const cuDoubleComplex one{1, 0}, zero{0, 0};
      st = cublasZgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const cuDoubleComplex*>(a), lda,
                       &zero, reinterpret_cast<const cuDoubleComplex*>(c), ldc, reinterpret_cast<cuDoubleComplex*>(c),
                       ldc);
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
      if (why) *why = fmt::format("cublas geam failed with status {}", static_cast<int>(st));
      return status::kCudaError;
    }
  }
  return status::kSuccess;
}

std::vector<result> run_gpu(const problem_spec& p, const std::vector<variant_spec>& variants, const run_options& o) {
  const sizes sz = sizes_of(p);
  const std::int64_t copy_bytes = sz.count * p.elem_bytes;
  std::vector<unsigned char> h_in(sz.in_bytes), expected(sz.out_bytes), got(sz.out_bytes);
  fill(p.dtype, h_in.data(), sz.in_bytes, o.seed);
  std::memset(expected.data(), kPoison, expected.size());
  reference(p, h_in.data(), expected.data());

  const std::int64_t off = static_cast<std::int64_t>(p.offset_elems) * p.elem_bytes;
  device_buffer d_in_buf(sz.in_bytes + off), d_out_buf(sz.out_bytes + off), d_copy(copy_bytes);
  void* const in_ptr = static_cast<char*>(d_in_buf.p) + off;
  void* const out_ptr = static_cast<char*>(d_out_buf.p) + off;
  check(cudaMemcpy(in_ptr, h_in.data(), sz.in_bytes, cudaMemcpyHostToDevice), "upload");
  check(cudaMemset(out_ptr, 0, sz.out_bytes), "cudaMemset");
  cudaStream_t s{};
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> stream_guard(s, [](cudaStream_t x) { cudaStreamDestroy(x); });

  // The ceiling: a device-to-device copy of the same number of bytes, timed in this run.
  const double copy_ms =
      time_gpu([&] { check(cudaMemcpyAsync(d_copy.p, out_ptr, copy_bytes, cudaMemcpyDeviceToDevice, s), "copy"); },
               o, s)
          .median;

  static cublasHandle_t handle = nullptr;
  std::vector<result> results;
  for (const auto& v : variants) {
    result r = base_result(p, v, backend::kGpu);
    if (o.progress) o.progress(fmt::format("gpu {} {} {}", v.name, p.label, p.dtype));
    std::function<status(std::string*)> run_once;
    plan pl;
    std::string why;
    if (v.name == "cublas") {
      if (!p.transpose) {
        r.skipped = true;
        r.note = "cuBLAS has no tensor permutation";
      } else if (p.elem_bytes != 4 && p.elem_bytes != 8 && p.elem_bytes != 16) {
        r.skipped = true;
        r.note = fmt::format("cuBLAS geam has no {}-byte type (only S, D/C, Z: 4, 8, 16 bytes)", p.elem_bytes);
      } else {
        if (!handle) {
          check(cublasCreate(&handle), "cublasCreate");
          check(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
        }
        check(cublasSetStream(handle, s), "cublasSetStream");
        run_once = [&](std::string* w) { return run_cublas(handle, *p.transpose, in_ptr, out_ptr, w); };
      }
    } else {
      plan_options po{.where = backend::kGpu, .variant = v.name};
      if (v.name != "auto") po.block_x = v.block_x, po.block_y = v.block_y;
      if (plan_for(p, po, &pl, &why) != status::kSuccess) {
        r.skipped = true;
        r.note = why;
      } else {
        run_once = [&](std::string* w) { return execute(pl, in_ptr, out_ptr, s, w); };
      }
    }
    if (r.skipped) {
      results.push_back(r);
      continue;
    }
    check(cudaMemsetAsync(out_ptr, kPoison, sz.out_bytes, s), "poison");
    if (run_once(&why) != status::kSuccess) {
      r.note = "execute failed: " + why;
      results.push_back(r);
      continue;
    }
    check(cudaStreamSynchronize(s), "kernel");
    check(cudaMemcpy(got.data(), out_ptr, sz.out_bytes, cudaMemcpyDeviceToHost), "download");
    const std::int64_t bad = first_mismatch(got.data(), expected.data(), sz.out_bytes);
    r.verified = bad < 0;
    if (!r.verified) r.note = fmt::format("WRONG: first difference at output byte {}", bad);
    finish(r, time_gpu([&] { (void)run_once(nullptr); }, o, s), copy_ms, sz.count);
    results.push_back(r);
  }
  return results;
}
#endif

}  // namespace

bool gpu_present(std::string* reason) {
#ifdef XPOSE_HAS_CUDA
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    if (reason) *reason = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  return true;
#else
  if (reason) *reason = "xpose was built without CUDA";
  return false;
#endif
}

std::vector<result> run_problem(const problem_spec& p, const std::vector<variant_spec>& variants,
                                const run_options& opts) {
#ifdef XPOSE_HAS_CUDA
  if (opts.where == backend::kGpu) return run_gpu(p, variants, opts);
#endif
  return run_cpu(p, variants, opts);
}

device_description describe_device(backend where) {
  device_description d;
  d.backend = where == backend::kGpu ? "gpu" : "cpu";
#ifdef XPOSE_HAS_CUDA
  if (where == backend::kGpu) {
    int dev = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      d.name = prop.name;
      d.cc_major = prop.major;
      d.cc_minor = prop.minor;
      d.sm_count = prop.multiProcessorCount;
      d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
      d.l2_bytes = prop.l2CacheSize;
    }
    return d;
  }
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      d.name = line.substr(line.find(':') + 2);
      break;
    }
  d.threads = omp_get_max_threads();
  return d;
}

}  // namespace xpose::bench
