#include "cpu/reference.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace xpose::reference {

void transpose(const transpose_desc& d, const void* in, void* out) {
  const std::int64_t ld_in = d.ld_in.value_or(d.cols), ld_out = d.ld_out.value_or(d.rows);
  const std::int64_t bsi = (d.batch_stride_in ? *d.batch_stride_in : d.rows * ld_in);
  const std::int64_t bso = (d.batch_stride_out ? *d.batch_stride_out : d.cols * ld_out);
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const int eb = d.elem_bytes;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t b = 0; b < d.batch; ++b)
    for (std::int64_t j = 0; j < d.cols; ++j)
      for (std::int64_t i = 0; i < d.rows; ++i)
        std::memcpy(dst + (b * bso + j * ld_out + i) * eb, src + (b * bsi + i * ld_in + j) * eb, eb);
}

void permute(const permute_desc& d, const void* in, void* out) {
  const int r = static_cast<int>(d.extents.size());
  std::array<std::int64_t, kMaxRank> si{}, so{}, oe{};
  std::int64_t s = 1;
  for (int j = r - 1; j >= 0; --j) {
    si[j] = d.in_strides.empty() ? s : d.in_strides[j];
    s *= d.extents[j];
  }
  s = 1;
  for (int k = r - 1; k >= 0; --k) {
    oe[k] = d.extents[d.perm[k]];
    so[k] = d.out_strides.empty() ? s : d.out_strides[k];
    s *= oe[k];
  }
  const std::int64_t total = s, outer = oe[0], inner = total / outer;
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const int eb = d.elem_bytes;
#pragma omp parallel for schedule(static)
  for (std::int64_t i0 = 0; i0 < outer; ++i0) {
    std::array<std::int64_t, kMaxRank> idx{};  // output index; idx[0] = i0
    idx[0] = i0;
    for (std::int64_t e = 0; e < inner; ++e) {
      // Decompose e over output dims 1..r-1, then map each output index to its input dim.
      std::int64_t rem = e;
      for (int k = r - 1; k >= 1; --k) {
        idx[k] = rem % oe[k];
        rem /= oe[k];
      }
      std::int64_t off_in = 0, off_out = 0;
      for (int k = 0; k < r; ++k) {
        off_in += idx[k] * si[d.perm[k]];
        off_out += idx[k] * so[k];
      }
      std::memcpy(dst + off_out * eb, src + off_in * eb, eb);
    }
  }
}

}  // namespace xpose::reference
