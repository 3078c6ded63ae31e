// Shared helpers of the GPU backend: error checking, element words, grid sizing.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "dispatch/plan_data.hpp"
#include "gpu/errors.hpp"
#include "gpu/geometry.hpp"
#include "plan/validate.hpp"

namespace xpose::detail::gpu {

// A transpose moves bytes, so kernels are instantiated per element *size*: f32, i32 and u32 all run
// the 4-byte instantiation. 8- and 16-byte words are the CUDA vector types so that each element is
// one 8- or 16-byte load and store (the natural alignment is required, checked by execute).
template <int Bytes> struct word_of;
template <> struct word_of<1> { using type = std::uint8_t; };
template <> struct word_of<2> { using type = std::uint16_t; };
template <> struct word_of<4> { using type = std::uint32_t; };
template <> struct word_of<8> { using type = uint2; };
template <> struct word_of<16> { using type = uint4; };

// Calls f.template operator()<Word>() with the word type of the element size.
template <class F>
status with_word(int elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1: return f.template operator()<word_of<1>::type>();
    case 2: return f.template operator()<word_of<2>::type>();
    case 4: return f.template operator()<word_of<4>::type>();
    case 8: return f.template operator()<word_of<8>::type>();
    case 16: return f.template operator()<word_of<16>::type>();
  }
  return status::kUnsupportedElementSize;
}

// Stores v at p (16-byte aligned, global memory) as one 16-byte vector. nvcc 13.0's front end split
// `*reinterpret_cast<uint4*>(p) = v` into 4- or 8-byte stores wherever p pointed to 2-, 4- or 8-byte
// elements (st.global.u32 x 4 in the PTX; STG.E / STG.E.64 in the SASS of fast_tile, skew_tile,
// narrow, reg_tile: cuobjdump -sass, 2026-11-30), also with __builtin_assume_aligned; so the vector
// store is written in PTX (scripts/sass_vector_stores.sh checks the SASS for it). No memory clobber: no kernel reads its output back, and the compiler stays
// free to schedule the tile's shared loads around it.
__device__ __forceinline__ void store_vec16(void* p, const uint4& v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}

inline dim3 capped_grid(std::int64_t gx, std::int64_t gy, std::int64_t gz) {
  auto cap = [](std::int64_t v, std::int64_t m) { return static_cast<unsigned>(v < m ? (v < 1 ? 1 : v) : m); };
  return dim3(cap(gx, kMaxGridX), cap(gy, kMaxGridYZ), cap(gz, kMaxGridYZ));
}

// Offsets of matrix b of a batch: b times the batch stride, or b decomposed over a multi-dim batch
// (kTransposeNd). Called once per tile, so its 64-bit divisions are amortised over the tile.
__device__ __forceinline__ void batch_offsets(const matrix_view& m, std::int64_t b, std::int64_t* in_off,
                                              std::int64_t* out_off) {
  if (m.batch_rank <= 1) {
    *in_off = b * m.bs_in;
    *out_off = b * m.bs_out;
    return;
  }
  std::int64_t i = 0, o = 0;
  for (int k = m.batch_rank - 1; k >= 0; --k) {
    const std::int64_t idx = b % m.batch_ext[k];
    b /= m.batch_ext[k];
    i += idx * m.batch_in[k];
    o += idx * m.batch_out[k];
  }
  *in_off = i;
  *out_off = o;
}

inline dim3 grid_of(const launch_shape& l) { return capped_grid(l.grid_x, l.grid_y, l.grid_z); }
inline dim3 block_of(const launch_shape& l) { return dim3(l.block_x, l.block_y, l.block_z); }

}  // namespace xpose::detail::gpu
