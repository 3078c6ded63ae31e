// permute_general: any permutation of rank <= 8, one element per thread and grid-stride loop.
//
// Each thread decomposes its output index over the output dims (last fastest), so consecutive
// threads write consecutive output elements (coalesced writes) and read through the input strides.
// `auto` runs it for row copies with rows of 512 bytes or more, moved as 16-byte words (faster than
// permute_packed's boxes there, see auto_candidates), and for permutations beyond permute_packed's
// 32-bit tile offsets. 32-bit index arithmetic when the tensor has fewer than 2^31 elements
// (divisions dominate).
//
// Launch: block (256), grid (min(ceil(count / 256), 32 * SMs)), grid-stride loop.
#pragma once

#include "gpu/common.cuh"

namespace xpose::detail::gpu {

struct permute_params {
  int rank;
  std::int64_t count;
  std::int64_t extent[kMaxRank];      // output order
  std::int64_t in_stride[kMaxRank];
  std::int64_t out_stride[kMaxRank];
};

template <class T, class I>
__global__ void permute_general_kernel(const T* __restrict__ in, T* __restrict__ out, permute_params p) {
  const I count = static_cast<I>(p.count);
  for (I e = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; e < count;
       e += static_cast<I>(gridDim.x) * blockDim.x) {
    I rem = e;
    std::int64_t oi = 0, oo = 0;
    for (int k = p.rank - 1; k > 0; --k) {
      const I ext = static_cast<I>(p.extent[k]);
      const I idx = rem % ext;
      rem /= ext;
      oi += static_cast<std::int64_t>(idx) * p.in_stride[k];
      oo += static_cast<std::int64_t>(idx) * p.out_stride[k];
    }
    oi += static_cast<std::int64_t>(rem) * p.in_stride[0];
    oo += static_cast<std::int64_t>(rem) * p.out_stride[0];
    out[oo] = in[oi];
  }
}

}  // namespace xpose::detail::gpu
