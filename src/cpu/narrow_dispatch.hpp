// with_narrow15 / with_count: a run-time count (a narrow tile's short side) to a compile-time one,
// for the narrow kernels of microkernels_avx2.cpp and microkernels_vbmi.cpp. Only included by those
// instruction-set translation units; in an unnamed namespace like everything there, so that no
// instantiation built with one instruction set can be picked by the linker for another.
#pragma once

#include <cstdint>
#include <utility>

namespace xpose::detail::cpu {
namespace {

// Calls f.template operator()<N>() for 1 <= n <= 15.
template <class F>
void with_narrow15(std::int64_t n, F&& f) {
  switch (n) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 3: return f.template operator()<3>();
    case 4: return f.template operator()<4>();
    case 5: return f.template operator()<5>();
    case 6: return f.template operator()<6>();
    case 7: return f.template operator()<7>();
    case 8: return f.template operator()<8>();
    case 9: return f.template operator()<9>();
    case 10: return f.template operator()<10>();
    case 11: return f.template operator()<11>();
    case 12: return f.template operator()<12>();
    case 13: return f.template operator()<13>();
    case 14: return f.template operator()<14>();
    case 15: return f.template operator()<15>();
  }
}

// Calls f.template operator()<N>() for Lo <= n <= Hi (nothing otherwise). Always inlined, so that
// a caller that is itself inlined keeps its kernels inline (the VBMI file's short tiles).
// with_narrow15 stays the switch the AVX2 file was measured with: as a wrapper of this one, that
// file's inlining, and so its code, changed.
template <int Lo, int Hi, class F>
[[gnu::always_inline]] inline void with_count(std::int64_t n, F&& f) {
  [&]<int... K>(std::integer_sequence<int, K...>) __attribute__((always_inline)) {
    (void)((n == Lo + K && (f.template operator()<Lo + K>(), true)) || ...);
  }(std::make_integer_sequence<int, Hi - Lo + 1>{});
}

}  // namespace
}  // namespace xpose::detail::cpu
