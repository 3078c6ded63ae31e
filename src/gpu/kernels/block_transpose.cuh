// The register transpose of a V x V block (V = 16 / S elements of S bytes) held as V 16-byte vectors,
// shared by reg_tile and reg_batch: output vector k holds element k of every input vector.
//
// Built from 32-bit words (byte or half permutes for 1- and 2-byte elements, plain word moves for
// wider ones) and returned as one uint4, so the caller stores it as one 16-byte vector. Writing the
// elements into a union and storing its uint4 (what both kernels did before) let nvcc 13.0 split the
// store into 4-byte (2- and 4-byte elements) or 8-byte (8-byte elements) stores: in the SASS of
// reg_tile and reg_batch for those sizes every full-block store was STG.E or STG.E.64, never
// STG.E.128 (cuobjdump -sass, 2026-11-30), and reg_batch ran at 10-47% of copy on batches of small
// f16 / f32 / f64 matrices (H200, results/batch-first-2026-11-30p.log). Building the vector from
// words alone did not fix it (store_vec16 in common.cuh does), so this helper is not needed for the
// stores: the element form plus store_vec16, as fast_tile and skew_tile use, gives the same SASS for
// 4- to 16-byte elements in both kernels and the same instruction counts for reg_batch's 2-byte one,
// but reschedules reg_tile's 2-byte kernel (2088 -> 2104 instructions; cuobjdump, 2026-11-30). Left
// in place until that can run on the device; folding it into the element form is the cleanup.
// 1-byte elements keep the element form: nvcc packs those into STG.E.128.
#pragma once

#include <cstdint>

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

__device__ __forceinline__ std::uint32_t vec_word(const uint4& v, int w) {
  return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

// Output vector k (a compile-time constant once the caller's loop is unrolled) of the block
// r[0 .. 16 / S - 1], for S = 2, 4, 8, 16.
template <int S>
__device__ __forceinline__ uint4 block_column(const uint4 (&r)[16 / S], int k) {
  static_assert(S == 2 || S == 4 || S == 8 || S == 16, "1-byte blocks use the element form");
  if constexpr (S == 16) {
    return r[0];
  } else if constexpr (S == 8) {  // element k of r[0] and of r[1]: words 2k, 2k + 1 of each
    return make_uint4(vec_word(r[0], 2 * k), vec_word(r[0], 2 * k + 1), vec_word(r[1], 2 * k), vec_word(r[1], 2 * k + 1));
  } else if constexpr (S == 4) {
    return make_uint4(vec_word(r[0], k), vec_word(r[1], k), vec_word(r[2], k), vec_word(r[3], k));
  } else {  // word w: half k % 2 of word k / 2 of r[2w] (low half) and of r[2w + 1] (high half)
    const std::uint32_t sel = (k & 1) ? 0x7632 : 0x5410;
    std::uint32_t o[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) o[w] = __byte_perm(vec_word(r[2 * w], k / 2), vec_word(r[2 * w + 1], k / 2), sel);
    return make_uint4(o[0], o[1], o[2], o[3]);
  }
}

}  // namespace xpose::detail::gpu
