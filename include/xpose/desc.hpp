// Problem descriptors: what to move, independent of how.
//
// Conventions (NumPy / PyTorch): tensors are row-major, the last index is the fastest. A permutation
// `perm` of rank r says that output dimension k is input dimension perm[k]:
//     out.extent[k] = in.extent[perm[k]]
//     out[i_0, ..., i_{r-1}] = in[j]  with  j[perm[k]] = i_k.
// The 2-D transpose is the rank-2 case perm = {1, 0} (with an optional batch in front, perm {0, 2, 1}).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace xpose {

inline constexpr int kMaxRank = 8;

// A batch of row-major matrices, transposed:  out[b*bso + j*ld_out + i] = in[b*bsi + i*ld_in + j]
// for 0 <= i < rows, 0 <= j < cols, 0 <= b < batch. All counts and strides are in elements.
struct transpose_desc {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int elem_bytes = 4;                           // 1, 2, 4, 8 or 16
  std::optional<std::int64_t> ld_in;            // default: cols (dense)
  std::optional<std::int64_t> ld_out;           // default: rows (dense)
  std::int64_t batch = 1;
  std::optional<std::int64_t> batch_stride_in;  // default: rows * ld_in
  std::optional<std::int64_t> batch_stride_out; // default: cols * ld_out
};

// A general permutation of a rank-1..8 tensor.
struct permute_desc {
  std::vector<std::int64_t> extents;      // input extents, outermost first
  std::vector<int> perm;                  // output dim k = input dim perm[k]
  int elem_bytes = 4;                     // 1, 2, 4, 8 or 16
  std::vector<std::int64_t> in_strides;   // per input dim, in elements; empty = dense row-major
  std::vector<std::int64_t> out_strides;  // per output dim, in elements; empty = dense row-major
};

}  // namespace xpose
