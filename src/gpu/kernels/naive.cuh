// The two naive kernels of the seeds: one thread per element, no shared memory.
//
// naive_row_read (note 000's naive kernel, note 001's scheme A): threadIdx.x walks the input's
//   columns, so a warp reads consecutive input addresses (coalesced) and writes addresses ld_out
//   apart (one 32-byte sector per element written).
// naive_col_read (note 001's scheme B): threadIdx.x walks the input's rows, so a warp reads
//   addresses ld_in apart and writes consecutive output addresses. Writes that touch a partial
//   sector cost a read-modify-write in L2, strided reads only waste sector bandwidth, which is why
//   B beats A on the H200 at every size the baselines measured.
//
// Launch geometry: any block (W, H) with W*H <= 1024; grid (nbx, nby, batch) = (ceil(fast/W),
// ceil(slow/H), batch), computed on the host and passed in (a 64-bit division per thread would cost
// more than the element it moves). y and z are capped at 65535 and x at 2^31-1; each loop covers
// what the capped grid leaves and runs once otherwise. Addresses are 64-bit; the access pattern
// is exactly the seeds'.
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

template <class T>
__global__ void naive_row_read_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m,
                                      std::int64_t nbx, std::int64_t nby) {
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    const T* src = in + b * m.bs_in;
    T* dst = out + b * m.bs_out;
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        const std::int64_t row = by * blockDim.y + threadIdx.y;  // i
        const std::int64_t col = bx * blockDim.x + threadIdx.x;  // j
        if (row < m.rows && col < m.cols) dst[col * m.ld_out + row] = src[row * m.ld_in + col];
      }
  }
}

template <class T>
__global__ void naive_col_read_kernel(const T* __restrict__ in, T* __restrict__ out, matrix_view m,
                                      std::int64_t nbx, std::int64_t nby) {
  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    const T* src = in + b * m.bs_in;
    T* dst = out + b * m.bs_out;
    for (std::int64_t by = blockIdx.y; by < nby; by += gridDim.y)
      for (std::int64_t bx = blockIdx.x; bx < nbx; bx += gridDim.x) {
        const std::int64_t i = bx * blockDim.x + threadIdx.x;  // output column = input row
        const std::int64_t j = by * blockDim.y + threadIdx.y;  // output row = input column
        if (i < m.rows && j < m.cols) dst[j * m.ld_out + i] = src[i * m.ld_in + j];
      }
  }
}

}  // namespace xpose::detail::gpu
