// narrow: transposes where one side is short (2..64 elements) and dense, e.g. 4 x 10^7 or 10^7 x 3.
//
// Why a kernel of its own: a square tile of fast_tile would hold 4 useful rows out of 64, so 94% of
// its threads idle and each block moves ~1 KiB. Here the short side is kept whole and the long side
// is cut into chunks, so that each block moves ~16 KiB. The dense side of a narrow transpose is one
// contiguous run of memory (rows x short elements), read or written with linear 16-byte vectors;
// the other side is `short` rows, each a contiguous run of the chunk, also with 16-byte vectors.
//
//  wide_in  (rows = R short, cols long; output cols x R dense, ld_out == R):
//     load  tile[i][j - c0] from R input rows (vectors along each row),
//     store the output run out[c0*R .. (c0+C)*R) linearly: element q -> tile[q % R][q / R].
//  tall_in  (cols = C short, rows long; input rows x C dense, ld_in == C):
//     load  the input run in[r0*C .. (r0+Rc)*C) linearly: element q -> tile[q % C][q / C],
//     store tile[j][.] to output row j (vectors along each row).
//
// The tile is tile[short][chunk + V] in dynamic shared memory; chunk = a multiple of 32 elements
// and of V, chosen on the host (configure_narrow) so short * chunk * size is about 16 KiB. Rows of
// chunk + V elements start on 16-byte boundaries, so the row side moves whole 16-byte vectors
// through shared memory too. The row side's leading dimension may be any number of elements: each
// row is moved as the aligned vectors that cover its part of the chunk (one more than its length
// needs when it is not aligned), kept at their alignment in the tile, and the linear side adds the
// row's offset (row * ld mod V) to its shared index. Vectors that reach past the chunk's part of a
// row are read or written element by element, so nothing outside the matrix is touched. The V-element pad shifts row k by 4k banks: for 4-byte elements that
// keeps the linear side's element accesses conflict-free when the short side is 4 or 8, but a short
// side of 2 leaves 2-way and of 16/32/64 leaves 2/4/8-way conflicts there (`xpose banks --variant
// narrow`, docs/banks.md): a swizzle is the fix, not yet measured. Vectors that straddle the end
// fall back to element accesses. Needs 16-byte aligned pointers and batch strides that are
// multiples of 16 bytes (checked by the planner and at execute).
//
// Launch: block (256), grid (ceil(long / chunk), 1, batch), capped and looped.
#pragma once

#include "gpu/common.cuh"
#include "gpu/kernels/fast_tile.cuh"  // vec16

namespace xpose::detail::gpu {

inline constexpr int kNarrowThreads = 256;

// Shifted: the row side's leading dimension is not a multiple of V (rows moved as the aligned
// vectors that cover them). A template, so the aligned kernel carries none of the shift arithmetic:
// a runtime shift of 0 per element cost the aligned 1-byte kernel ~9 points of copy
// ([64,128,128,64] perm 0,3,1,2 i8, H200 2026-11-29: 65.4 -> 56.7%).
template <class T, bool WideIn, bool Shifted>
__global__ void __launch_bounds__(kNarrowThreads) narrow_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                 matrix_view m, int chunk) {
  constexpr int V = 16 / sizeof(T);
  extern __shared__ uint4 smem_raw[];
  T* tile = reinterpret_cast<T*>(smem_raw);
  const int pitch = chunk + V;
  const std::int64_t shrt = WideIn ? m.rows : m.cols;  // the short extent, kept whole
  const std::int64_t lng = WideIn ? m.cols : m.rows;   // the long extent, cut into chunks
  const int S = static_cast<int>(shrt);
  const std::int64_t nchunks = ceil_div(lng, chunk);

  for (std::int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (std::int64_t ch = blockIdx.x; ch < nchunks; ch += gridDim.x) {
      const std::int64_t l0 = ch * chunk;
      const int len = static_cast<int>(lng - l0 < chunk ? lng - l0 : chunk);
      const T* src = in + b * m.bs_in;
      T* dst = out + b * m.bs_out;
      const int row_vecs = (len + V - 1) / V;  // vectors per short-side row in this chunk
      // Rows that are not all aligned take one vector more (the first and last are partial); with
      // aligned rows the row side's lanes are those of the aligned kernel (the bank model's).
      const int row_slots = row_vecs + (Shifted ? 1 : 0);
      const int lin = S * len;                 // elements of the dense run
      if constexpr (WideIn) {
        // Rows of the input: S rows x len elements from column l0. Row i starts a_i elements past a
        // 16-byte boundary (its leading dimension need not be a multiple of V): it is read as the
        // aligned vectors that cover it, stored whole at tile[i][0..), element j at tile[i][j + a_i].
        for (int idx = threadIdx.x; idx < S * row_slots; idx += blockDim.x) {
          const int i = idx / row_slots, k = idx % row_slots;
          const int a = Shifted ? static_cast<int>((i * m.ld_in) & (V - 1)) : 0;
          const int lo = k * V - a;  // first element of the vector, relative to column l0
          if (lo >= len) continue;
          const T* p = src + i * m.ld_in + l0 + lo;
          vec16<T> v;
          if (lo >= 0 && lo + V <= len) {
            v.v = *reinterpret_cast<const uint4*>(p);
          } else {
#pragma unroll
            for (int e = 0; e < V; ++e) v.e[e] = lo + e >= 0 && lo + e < len ? p[e] : T{};
          }
          *reinterpret_cast<uint4*>(tile + i * pitch + k * V) = v.v;
        }
        __syncthreads();
        // The dense output run: out[(l0 + j) * S + i] for q = j * S + i.
        T* run = dst + l0 * m.ld_out;
        for (int q0 = threadIdx.x * V; q0 < lin; q0 += blockDim.x * V) {
          vec16<T> v;
          int i = q0 % S, j = q0 / S;
#pragma unroll
          for (int k = 0; k < V; ++k) {
            v.e[k] = j < len ? tile[i * pitch + j + (Shifted ? static_cast<int>((i * m.ld_in) & (V - 1)) : 0)] : T{};
            if (++i == S) i = 0, ++j;
          }
          if (q0 + V <= lin) {
            store_vec16(run + q0, v.v);
          } else {
            for (int k = 0; k < lin - q0; ++k) run[q0 + k] = v.e[k];
          }
        }
      } else {
        // The dense input run: in[(l0 + i) * S + j] for q = i * S + j -> tile[j][i].
        const T* run = src + l0 * m.ld_in;
        for (int q0 = threadIdx.x * V; q0 < lin; q0 += blockDim.x * V) {
          vec16<T> v;
          if (q0 + V <= lin) {
            v.v = *reinterpret_cast<const uint4*>(run + q0);
          } else {
            for (int k = 0; k < V; ++k) v.e[k] = q0 + k < lin ? run[q0 + k] : T{};
          }
          int j = q0 % S, i = q0 / S;
#pragma unroll
          for (int k = 0; k < V; ++k) {
            if (i < len) tile[j * pitch + i + (Shifted ? static_cast<int>((j * m.ld_out) & (V - 1)) : 0)] = v.e[k];
            if (++j == S) j = 0, ++i;
          }
        }
        __syncthreads();
        // Output rows: S rows x len elements from column l0. Row j starts b_j elements past a 16-byte
        // boundary; element i sits at tile[j][i + b_j], so the aligned vectors of the output row are
        // aligned in the tile too. Vectors that hold elements of the neighbouring chunks (or lie
        // past the row's end) are written element by element.
        for (int idx = threadIdx.x; idx < S * row_slots; idx += blockDim.x) {
          const int j = idx / row_slots, k = idx % row_slots;
          const int b = Shifted ? static_cast<int>((j * m.ld_out) & (V - 1)) : 0;
          const int lo = k * V - b;  // first element of the vector, relative to column l0
          if (lo >= len) continue;
          vec16<T> v;
          v.v = *reinterpret_cast<const uint4*>(tile + j * pitch + k * V);
          T* p = dst + j * m.ld_out + l0 + lo;
          if (lo >= 0 && lo + V <= len) {
            store_vec16(p, v.v);
          } else {
            for (int e = 0; e < V; ++e)
              if (lo + e >= 0 && lo + e < len) p[e] = v.e[e];
          }
        }
      }
      __syncthreads();
    }
}

}  // namespace xpose::detail::gpu
