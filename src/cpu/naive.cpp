#include <cstring>

#include "cpu/cpu_variants.hpp"
#include "cpu/elem.hpp"

namespace xpose::detail::cpu {
namespace {

template <int B>
void naive_matrix(const matrix_view& m, const std::byte* in, std::byte* out) {
  for (std::int64_t b = 0; b < m.batch; ++b)
    for (std::int64_t i = 0; i < m.rows; ++i)
      for (std::int64_t j = 0; j < m.cols; ++j)
        copy_elem<B>(out + (b * m.bs_out + j * m.ld_out + i) * B, in + (b * m.bs_in + i * m.ld_in + j) * B);
}

template <int B>
void naive_general(const problem& p, const std::byte* in, std::byte* out) {
  std::array<std::int64_t, kMaxRank> idx{};
  const std::int64_t n = p.count();
  std::int64_t oi = 0, oo = 0;  // running input and output offsets of idx
  for (std::int64_t e = 0; e < n; ++e) {
    copy_elem<B>(out + oo * B, in + oi * B);
    for (int k = p.rank - 1; k >= 0; --k) {  // odometer: last output dim fastest
      oi += p.dims[k].in_stride;
      oo += p.dims[k].out_stride;
      if (++idx[k] < p.dims[k].extent) break;
      oi -= p.dims[k].in_stride * p.dims[k].extent;
      oo -= p.dims[k].out_stride * p.dims[k].extent;
      idx[k] = 0;
    }
  }
}

}  // namespace

status configure_naive(plan_data& pd, std::string*) {
  pd.launch = {};
  return status::kSuccess;
}

status run_naive(const plan_data& pd, const void* in, void* out, CUstream_st*, std::string*) {
  const auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  return with_elem_size(pd.prob.elem_bytes, [&]<int B>() {
    if (pd.has_matrix && pd.mat.batch_rank <= 1)
      naive_matrix<B>(pd.mat, src, dst);
    else
      naive_general<B>(pd.prob, src, dst);
  });
}

}  // namespace xpose::detail::cpu
