#include "suites.hpp"

#include <algorithm>
#include <utility>

namespace xpose::cli {

// The layouts issue 5 names, each about 2^26 elements (256 MiB in f32): NCHW <-> NHWC, attention
// layouts, full reversals of rank 3..8, a transpose of the middle dims, and 50 seeded random
// permutations of rank 3..8 (half with a fastest input dim of 1..7 elements). For 1- and 2-byte
// elements the slowest dim is 4 or 2 times longer, so every tensor is at least the 256 MiB issue 5
// asks for (until 2026-11-30 they were 64 and 128 MiB).
std::vector<suite_case> permute_suite_cases(int elem_bytes, std::uint64_t seed) {
  std::vector<suite_case> cases = {
      {{64, 64, 128, 128}, {0, 2, 3, 1}},                     // NCHW -> NHWC
      {{64, 128, 128, 64}, {0, 3, 1, 2}},                     // NHWC -> NCHW
      {{16, 32, 1024, 128}, {0, 2, 1, 3}},                    // [B,H,N,D] -> [B,N,H,D]
      {{16, 32, 1024, 128}, {0, 1, 3, 2}},                    // [B,H,N,D] -> [B,H,D,N]
      {{8, 1024, 1024, 8}, {0, 2, 1, 3}},                     // middle dims transposed
      {{512, 256, 512}, {2, 1, 0}},                           // reversals, rank 3..8
      {{64, 64, 128, 128}, {3, 2, 1, 0}},
      {{32, 32, 32, 32, 64}, {4, 3, 2, 1, 0}},
      {{16, 16, 16, 16, 16, 64}, {5, 4, 3, 2, 1, 0}},
      {{8, 8, 8, 16, 16, 16, 32}, {6, 5, 4, 3, 2, 1, 0}},
      {{4, 8, 8, 8, 8, 8, 16, 32}, {7, 6, 5, 4, 3, 2, 1, 0}},
  };
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 12345;
  auto next = [&](std::uint64_t n) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return static_cast<std::int64_t>(s % n);
  };
  const std::int64_t target = std::int64_t{1} << 26;
  for (int c = 0; c < 50; ++c) {
    const int rank = 3 + static_cast<int>(next(6));
    std::vector<std::int64_t> ext(rank);
    std::int64_t prod = 1;
    for (int k = 1; k < rank; ++k) {
      ext[k] = (k == rank - 1 && c % 2 == 0) ? 1 + next(7) : 2 + next(rank <= 4 ? 200 : 24);
      prod *= ext[k];
    }
    ext[0] = std::max<std::int64_t>(1, target / prod);
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) perm[k] = k;
    for (int k = rank - 1; k > 0; --k) std::swap(perm[k], perm[next(k + 1)]);
    cases.push_back({ext, perm});
  }
  for (auto& c : cases) c.extents[0] *= std::max(1, 4 / elem_bytes);  // 2^26 elements are 256 MiB from 4 bytes up
  return cases;
}

}  // namespace xpose::cli
