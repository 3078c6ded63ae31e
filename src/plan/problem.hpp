// The normalised problem every backend works on.
//
// A permutation is described as a list of dimensions in *output* order (the last one is the fastest
// in the output). Each dimension carries its extent and its stride, in elements, in the input and in
// the output:
//     out[sum_k i_k * out_stride_k] = in[sum_k i_k * in_stride_k],   0 <= i_k < extent_k.
// This is the CuTe view of a transpose: the same index space under two layouts. Dropping size-1
// dimensions and fusing neighbours are then plain, testable operations on this list.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "xpose/desc.hpp"

namespace xpose::detail {

struct dim {
  std::int64_t extent = 1;
  std::int64_t in_stride = 0;
  std::int64_t out_stride = 0;
  bool operator==(const dim&) const = default;
};

struct problem {
  int rank = 0;                       // 0 means a single element
  std::array<dim, kMaxRank> dims{};   // output order, dims[rank - 1] fastest in the output
  int elem_bytes = 4;

  std::int64_t count() const;         // number of elements (1 for rank 0)
  std::string describe() const;       // "[e0 e1 ...] in strides (..) out strides (..)"
};

// A batch of row-major matrices: out[b*bs_out + j*ld_out + i] = in[b*bs_in + i*ld_in + j].
// When the batch spans several dims (batch_rank >= 2, a kTransposeNd problem), matrix b sits at
// the offsets of b decomposed over batch_ext (outermost first) with the batch_in / batch_out
// strides; bs_in / bs_out are then unused.
inline constexpr int kMaxBatchRank = kMaxRank - 2;
struct matrix_view {
  std::int64_t rows = 1, cols = 1;
  std::int64_t ld_in = 1, ld_out = 1;
  std::int64_t batch = 1, bs_in = 0, bs_out = 0;
  int batch_rank = 0;
  std::int64_t batch_ext[kMaxBatchRank] = {};
  std::int64_t batch_in[kMaxBatchRank] = {};
  std::int64_t batch_out[kMaxBatchRank] = {};
};

// How the kernels see a normalised problem.
enum class problem_class {
  kCopy,         // both layouts contiguous in the same order: a memcpy
  kTranspose2d,  // one dim contiguous in the input (A), another in the output (B), at most one more
                 // dim (the batch): a batch of 2-D transposes of B x A matrices
  kTransposeNd,  // the same with two or more batch dims (full reversals, most permutations)
  kRowCopy,      // one dim contiguous on both sides, the others permuted: strided row copies
  kGeneral,      // no dim contiguous in the input (strided views): element by element
};
const char* class_name(problem_class c);

// ---- pure planning steps (src/plan/normalize.cpp) ----
// The problem of a descriptor, before normalisation. Assumes the descriptor was validated.
problem to_problem(const transpose_desc& d);
problem to_problem(const permute_desc& d);
// Removes dimensions of extent 1 (they move nothing).
problem drop_unit_dims(const problem& p);
// Merges output-neighbour dims k, k+1 when they are also neighbours, in the same order, in the
// input: in_stride_k == extent_{k+1} * in_stride_{k+1}, and likewise for the output.
problem fuse_dims(const problem& p);
// drop_unit_dims then fuse_dims.
problem normalize(const problem& p);
problem_class classify(const problem& p);
// The matrix view of a kTranspose2d / kTransposeNd (or kCopy / rank <= 1) problem: rows = the
// output-contiguous dim B, cols = the input-contiguous dim A, the other dims the batch.
matrix_view as_matrix(const problem& p);
// Largest offset touched + 1, in elements, on each side.
std::int64_t in_span(const problem& p);
std::int64_t out_span(const problem& p);

}  // namespace xpose::detail
