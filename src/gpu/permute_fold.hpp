// Folding a transpose-class permutation into (rows x cols) x batch for permute_tiled: host-side,
// shared by the launch configuration (configure.cpp) and the launch (fast_variants.cu).
#pragma once

#include <cstdint>

#include "plan/problem.hpp"

namespace xpose::detail::gpu {

struct permute_tiled_params {
  int r_rank = 0, c_rank = 0, b_rank = 0;
  std::int64_t rows = 1, cols = 1, batch = 1;
  std::int64_t r_ext[kMaxRank] = {}, r_in[kMaxRank] = {};                        // row chain, fastest first
  std::int64_t c_ext[kMaxRank] = {}, c_out[kMaxRank] = {};                       // column chain, fastest first
  std::int64_t b_ext[kMaxRank] = {}, b_in[kMaxRank] = {}, b_out[kMaxRank] = {};  // batch dims, outermost first
};

// The column chain starts at the input-contiguous dim and takes the dims that continue it
// contiguously in the input; the row chain likewise from the output-contiguous dim in the output;
// each grows until it holds kFold elements or nothing continues it. The other dims are the batch.
// False when the problem has no distinct input- and output-contiguous dims.
inline constexpr std::int64_t kFold = 32;  // one tile edge of permute_tiled
bool fold_chains(const problem& pr, permute_tiled_params* p);

}  // namespace xpose::detail::gpu
