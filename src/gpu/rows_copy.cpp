// Host side of permute_rows (see rows_copy.hpp): the row dims, their input byte strides, the bounds.
#include "gpu/rows_copy.hpp"

namespace xpose::detail::gpu {

int rows_word_bytes(const problem& p) {
  const int s = p.elem_bytes;
  if (p.rank == 0 || p.dims[p.rank - 1].in_stride != 1 || p.dims[p.rank - 1].out_stride != 1) return s;
  for (int w = 16; w > s; w /= 2) {
    bool ok = (p.dims[p.rank - 1].extent * s) % w == 0;
    for (int k = 0; k + 1 < p.rank && ok; ++k)
      ok = (p.dims[k].in_stride * s) % w == 0 && (p.dims[k].out_stride * s) % w == 0;
    if (ok) return w;
  }
  return s;
}

problem as_row_words(const problem& p) {
  problem pr = p;
  const int w = rows_word_bytes(pr);
  if (w == pr.elem_bytes) return pr;
  const int f = w / pr.elem_bytes;
  for (int k = 0; k < pr.rank; ++k) pr.dims[k].in_stride /= f, pr.dims[k].out_stride /= f;
  pr.dims[pr.rank - 1].extent /= f;
  pr.dims[pr.rank - 1].in_stride = pr.dims[pr.rank - 1].out_stride = 1;
  pr.elem_bytes = w;
  return pr;
}

bool rows_plan(const problem& pr, rows_params* p, const char** reason) {
  *p = rows_params{};
  if (pr.rank < 1 || pr.dims[pr.rank - 1].in_stride != 1 || pr.dims[pr.rank - 1].out_stride != 1) {
    *reason = "permute_rows needs the fastest dim contiguous in both the input and the output (a row copy)";
    return false;
  }
  const std::int64_t s = pr.elem_bytes;
  std::int64_t dense = pr.dims[pr.rank - 1].extent;  // the output stride a dense output has
  for (int k = pr.rank - 2; k >= 0; --k) {
    if (pr.dims[k].out_stride != dense) {
      *reason = "permute_rows needs a dense output (rows back to back in output order)";
      return false;
    }
    if (pr.dims[k].in_stride < 0) {
      *reason = "permute_rows needs non-negative strides";
      return false;
    }
    dense *= pr.dims[k].extent;
  }
  const std::int64_t span = in_span(pr) * s;
  if (dense * s >= (std::int64_t{1} << 31) - 16 || span >= (std::int64_t{1} << 31) - 16) {
    *reason = "permute_rows addresses bytes in 31 bits; this input or output spans 2^31 - 16 bytes or more";
    return false;
  }
  p->nd = pr.rank - 1;
  for (int k = 0; k < p->nd; ++k) {
    p->in_stride[k] = static_cast<std::int32_t>(pr.dims[k].in_stride * s);
    p->ext_div[k] = fast_div(static_cast<std::uint32_t>(pr.dims[k].extent));
  }
  p->row_bytes = static_cast<std::int32_t>(pr.dims[pr.rank - 1].extent * s);
  p->row_div = fast_div(static_cast<std::uint32_t>(p->row_bytes));
  p->total_bytes = static_cast<std::int32_t>(dense * s);
  p->rows = p->total_bytes / p->row_bytes;
  p->in_span_bytes = static_cast<std::int32_t>(span);
  p->max_pieces = rows_max_pieces(p->row_bytes);
  return true;
}

}  // namespace xpose::detail::gpu
