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
