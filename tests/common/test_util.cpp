#include "common/test_util.hpp"

#include <cstring>
#include <random>

#include "cpu/reference.hpp"
#include "plan/problem.hpp"

#ifdef XPOSE_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace xpose::test {

void fill_random(void* p, std::size_t bytes, std::uint64_t seed) {
  auto* b = static_cast<unsigned char*>(p);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  std::size_t i = 0;
  while (i < bytes) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const std::size_t n = bytes - i < 8 ? bytes - i : 8;
    std::memcpy(b + i, &z, n);
    i += n;
  }
}

void poison(void* p, std::size_t bytes, unsigned char value) { std::memset(p, value, bytes); }

std::int64_t first_difference(const void* a, const void* b, std::size_t bytes) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (std::size_t i = 0; i < bytes; ++i)
    if (x[i] != y[i]) return static_cast<std::int64_t>(i);
  return -1;
}

emulation make_emulation(const permute_desc& d, std::uint64_t seed) {
  emulation e;
  const auto raw = detail::to_problem(d);
  e.in_bytes = detail::in_span(raw) * d.elem_bytes;
  e.out_bytes = detail::out_span(raw) * d.elem_bytes;
  e.in.resize(e.in_bytes);
  e.want.resize(e.out_bytes);
  e.got.resize(e.out_bytes);
  e.written.assign(e.out_bytes, 0);
  fill_random(e.in.data(), e.in.size(), seed);
  poison(e.want.data(), e.want.size());
  poison(e.got.data(), e.got.size());
  reference::permute(d, e.in.data(), e.want.data());
  return e;
}

bool emulation::put(std::int64_t at, unsigned char v) {
  if (at < 0 || at >= out_bytes) return false;
  got[at] = v;
  ++written[at];
  return true;
}

std::string emulation::verdict() const {
  for (std::int64_t i = 0; i < out_bytes; ++i)
    if (written[i] > 1) return "output byte " + std::to_string(i) + " stored " + std::to_string(written[i]) + " times";
  const auto bad = first_difference(got.data(), want.data(), got.size());
  return bad < 0 ? "" : "first difference at output byte " + std::to_string(bad);
}

transpose_desc tdesc(std::int64_t rows, std::int64_t cols, int elem_bytes) {
  transpose_desc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_bytes = elem_bytes;
  return d;
}

permute_desc pdesc(std::vector<std::int64_t> extents, std::vector<int> perm, int elem_bytes) {
  permute_desc d;
  d.extents = std::move(extents);
  d.perm = std::move(perm);
  d.elem_bytes = elem_bytes;
  return d;
}

permute_desc compact_halo_shape(std::uint64_t seed, int c) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<std::uint64_t>(c));
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  permute_desc d;
  d.elem_bytes = 1 << (c / 2 % 4);
  const int rank = static_cast<int>(pick(3, 4));
  for (int k = 0; k < rank; ++k) d.extents.push_back(pick(2, k == rank - 1 ? 120 : 60));
  d.extents[0] = pick(16 / d.elem_bytes, 100);
  d.perm.resize(rank);
  for (int k = 0; k < rank; ++k) d.perm[k] = rank - 1 - k;
  if (c % 2) std::swap(d.perm[0], d.perm[1]);
  return d;
}

std::vector<permute_desc> shifted_word_suite_shapes() {
  return {pdesc({276, 19, 10, 3, 10, 17}, {5, 4, 1, 2, 3, 0}, 1), pdesc({77, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 1),
          pdesc({2904, 22, 5, 2, 7, 6}, {5, 2, 4, 3, 1, 0}, 1), pdesc({36, 12, 16, 10, 10, 23, 7}, {4, 6, 1, 3, 5, 2, 0}, 1),
          pdesc({400, 7, 6, 9, 22, 10, 2}, {6, 0, 5, 3, 1, 2, 4}, 1)};
}

std::vector<tile_panel_case> tile_panel_cases() {
  return {{pdesc({100, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 4), "permute_runs", 0},
          {pdesc({1400, 29, 57, 7}, {2, 1, 0, 3}, 4), "permute_box", 0},
          {pdesc({30000, 127, 23}, {1, 0, 2}, 1), "permute_box", 3},
          {pdesc({60, 12, 21, 3, 8, 19, 3}, {6, 5, 4, 1, 3, 0, 2}, 2), "permute_box", 0},
          {pdesc({400, 21, 10, 4, 12, 13, 23, 2}, {4, 3, 6, 2, 0, 1, 5, 7}, 1), "permute_packed", 0}};
}

std::vector<std::pair<std::int64_t, std::int64_t>> definition_offsets(const permute_desc& d) {
  using i64 = std::int64_t;
  const int r = static_cast<int>(d.extents.size());
  std::vector<i64> si(r), oe(r), so(r);
  i64 s = 1;
  for (int j = r - 1; j >= 0; --j) {
    si[j] = d.in_strides.empty() ? s : d.in_strides[j];
    s *= d.extents[j];
  }
  for (int k = 0; k < r; ++k) oe[k] = d.extents[d.perm[k]];
  s = 1;
  for (int k = r - 1; k >= 0; --k) {
    so[k] = d.out_strides.empty() ? s : d.out_strides[k];
    s *= oe[k];
  }
  std::vector<std::pair<i64, i64>> out;
  std::vector<i64> idx(r, 0), j(r, 0);
  for (i64 e = 0; e < s; ++e) {
    i64 rem = e;
    for (int k = r - 1; k >= 0; --k) {
      idx[k] = rem % oe[k];
      rem /= oe[k];
    }
    for (int k = 0; k < r; ++k) j[d.perm[k]] = idx[k];
    i64 oi = 0, oo = 0;
    for (int q = 0; q < r; ++q) oi += j[q] * si[q];
    for (int k = 0; k < r; ++k) oo += idx[k] * so[k];
    out.emplace_back(oi, oo);
  }
  return out;
}

plan_options gpu_opts(std::string variant, int block_x, int block_y) {
  plan_options o;
  o.where = backend::kGpu;
  o.variant = std::move(variant);
  o.block_x = block_x;
  o.block_y = block_y;
  return o;
}

bool gpu_available(std::string* reason) {
#ifdef XPOSE_HAS_CUDA
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *reason = cudaGetErrorString(e);
    return false;
  }
  if (n == 0) {
    *reason = "cudaGetDeviceCount returned 0";
    return false;
  }
  return true;
#else
  *reason = "xpose was built without CUDA";
  return false;
#endif
}

}  // namespace xpose::test
