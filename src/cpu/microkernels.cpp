// The portable tile kernels and the run-time choice between them and the AVX2 ones.
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cpu/microkernels.hpp"

namespace xpose::detail::cpu {
namespace {

using i64 = std::int64_t;

// Walks the output in order inside the tile; the tile is small enough (blocked.cpp) that its input
// rows stay in L1 while their columns are gathered.
template <int E>
void scalar_tile(const std::byte* in, i64 ldi, std::byte* out, i64 ldo, i64 rows, i64 cols) {
  for (i64 j = 0; j < cols; ++j) {
    std::byte* o = out + j * ldo;
    const std::byte* s = in + j * E;
    for (i64 i = 0; i < rows; ++i) std::memcpy(o + i * E, s + i * ldi, E);
  }
}

void copy_rows(std::byte* dst, i64 ldd, const std::byte* src, i64 lds, i64 rows, i64 bytes) {
  for (i64 r = 0; r < rows; ++r) std::memcpy(dst + r * ldd, src + r * lds, static_cast<std::size_t>(bytes));
}

}  // namespace

const kernel_table& scalar_kernels() {
  static const kernel_table t{"scalar",
                              {scalar_tile<1>, scalar_tile<2>, scalar_tile<4>, scalar_tile<8>, scalar_tile<16>},
                              nullptr,
                              nullptr,
                              nullptr,
                              copy_rows};
  return t;
}

#ifndef XPOSE_HAS_AVX2_KERNELS
const kernel_table* avx2_kernels() { return nullptr; }
const kernel_table* vbmi_kernels() { return nullptr; }
#endif

bool vbmi_supported() {
#ifdef XPOSE_HAS_AVX2_KERNELS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

const kernel_table& active_kernels() {
  static const kernel_table* const chosen = [] {
#ifdef XPOSE_HAS_AVX2_KERNELS
    const char* cap = std::getenv("XPOSE_CPU_ISA");
    const std::string_view c = cap ? cap : "";
    if (c == "scalar") return &scalar_kernels();
    if (c != "avx2" && vbmi_supported()) return vbmi_kernels();
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return avx2_kernels();
#endif
    return &scalar_kernels();
  }();
  return *chosen;
}

}  // namespace xpose::detail::cpu
