// The seeds' kernels in the seeds' own form, for the shapes the seeds can launch.
//
// The looped kernels in naive.cuh / smem_seed.cuh / tiled.cuh run every shape (batches, leading
// dimensions, more than 2^31 elements, grids over 65,535 blocks in y) with 64-bit indices and grid
// loops. That generality costs: 64-bit multiplies per element, loop bookkeeping, and for `tiled` a
// loop whose start depends on threadIdx.y so it did not unroll (1,000 SASS instructions against 88
// for the classic kernel; 50% of copy at 25600^2 f32 against the classic kernel's 82%).
//
// The kernels here are the notes' code: one tile per block, 32-bit int indices, no loops but the
// classic tile's constant-trip one. The launcher (seed_variants.cu) runs them when the problem is
// one dense matrix (ld_in = cols, ld_out = rows, batch 1) of fewer than 2^31 elements whose grid
// fits (y and z <= 65,535), i.e. exactly the cases the notes' code handles, and the looped kernels
// otherwise. The access patterns, and so the bank conflicts of src/model/, are the same in both.
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

// True when a plan's matrix is one the seeds' int-indexed, unlooped kernels can run.
inline bool seed_form_fits(const plan_data& pd) {
  const matrix_view& m = pd.mat;
  return m.batch_rank <= 1 && int_indexed_dense(m.rows, m.cols, m.ld_in, m.ld_out, m.batch) &&
         pd.launch.grid_x <= kMaxGridX && pd.launch.grid_y <= kMaxGridYZ;
}

// Note 000's naive kernel, note 001's scheme A (read rows, write columns).
template <class T>
__global__ void naive_row_read_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) out[col * rows + row] = in[row * cols + col];
}

// Note 001's scheme B (read columns, write rows), rectangular: x walks the input's rows.
template <class T>
__global__ void naive_col_read_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // input row = output column
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // input column = output row
  if (x < rows && y < cols) out[y * rows + x] = in[x * cols + y];
}

template <int B, class T>
__global__ void smem_v1_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  __shared__ T smem[B][B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * B + ty, col = blockIdx.x * B + tx;
  if (row < rows && col < cols) smem[ty][tx] = in[row * cols + col];
  __syncthreads();
  if (row < rows && col < cols) out[col * rows + row] = smem[ty][tx];
}

// v2 (Pad = 0) and v3 (Pad = 1).
template <int B, int Pad, class T>
__device__ __forceinline__ void smem_v23_seed_body(const T* __restrict__ in, T* __restrict__ out, int rows,
                                                   int cols) {
  __shared__ T smem[B][B + Pad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * B + ty, col = blockIdx.x * B + tx;
  if (row < rows && col < cols) smem[ty][tx] = in[row * cols + col];
  __syncthreads();
  const int out_y = ty + B * blockIdx.x;
  const int out_x = tx + B * blockIdx.y;
  if (out_x < rows && out_y < cols) out[out_x + rows * out_y] = smem[tx][ty];
}

template <int B, class T>
__global__ void smem_v2_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  smem_v23_seed_body<B, 0>(in, out, rows, cols);
}

template <int B, class T>
__global__ void smem_v3_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  smem_v23_seed_body<B, 1>(in, out, rows, cols);
}

// The classic 32 x 32 padded tile with 32 x H threads: each thread moves 32 / H elements each way,
// the loop's trip count a compile-time constant so it unrolls into independent loads.
// Down (the library's order, configure_tiled's grid): blockIdx.x walks down the input's tile rows
// (grid (ceil(rows/32), ceil(cols/32))), so blocks launched together write neighbouring pieces of
// the same output rows; else across its tile columns, as the classic kernel (kept for the tuning
// harness). Why, with the numbers: kernels/tiled.cuh.
template <int H, class T, bool Down = true>
__global__ void tiled_seed(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  constexpr int kT = 32;
  __shared__ T tile[kT][kT + 1];
  const int bx = Down ? blockIdx.y : blockIdx.x, by = Down ? blockIdx.x : blockIdx.y;
  int x = bx * kT + threadIdx.x, y = by * kT + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kT; j += H)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = by * kT + threadIdx.x;  // output column = input row
  y = bx * kT + threadIdx.y;  // output row = input column
#pragma unroll
  for (int j = 0; j < kT; j += H)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace xpose::detail::gpu
