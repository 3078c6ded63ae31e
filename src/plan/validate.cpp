#include "plan/validate.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "plan/problem.hpp"

namespace xpose::detail {
namespace {

using i64 = std::int64_t;

bool mul_ok(i64 a, i64 b, i64* r) { return !__builtin_mul_overflow(a, b, r); }
bool add_ok(i64 a, i64 b, i64* r) { return !__builtin_add_overflow(a, b, r); }

// Largest offset + 1 reached by a layout, in elements; false on overflow.
bool span_of(const std::int64_t* extents, const std::int64_t* strides, int rank, i64* span) {
  i64 reach = 0;
  for (int k = 0; k < rank; ++k) {
    i64 t;
    if (!mul_ok(extents[k] - 1, strides[k], &t) || !add_ok(reach, t, &reach)) return false;
  }
  return add_ok(reach, 1, span);
}

// Sufficient condition for a layout to give every index its own offset: sorted by stride, each
// stride must step past everything the smaller strides can reach. Dense, padded and permuted
// layouts all pass; interleaved ones that would also be injective are rejected (documented).
bool injective(const std::int64_t* extents, const std::int64_t* strides, int rank) {
  std::array<int, kMaxRank> order{};
  int n = 0;
  for (int k = 0; k < rank; ++k)
    if (extents[k] > 1) order[n++] = k;
  for (int i = 1; i < n; ++i)  // insertion sort: at most 8 entries
    for (int j = i; j > 0 && strides[order[j]] < strides[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  i64 reach = 0;
  for (int i = 0; i < n; ++i) {
    const int k = order[i];
    if (strides[k] <= reach) return false;
    reach += strides[k] * (extents[k] - 1);  // cannot overflow: span_of checked it first
  }
  return true;
}

status check_elem_bytes(int elem_bytes, std::string* why) {
  if (!supported_elem_bytes(elem_bytes))
    return fail(status::kUnsupportedElementSize, why,
                fmt::format("element size {} bytes is not supported (use 1, 2, 4, 8 or 16)", elem_bytes));
  return status::kSuccess;
}

// Checks the layouts of a problem (extents and strides on both sides): strides non-negative, spans
// (in bytes) within 64 bits, and an output in which no two elements share memory.
status check_layouts(const problem& p, std::string* why) {
  std::array<i64, kMaxRank> e{}, si{}, so{};
  for (int k = 0; k < p.rank; ++k) {
    e[k] = p.dims[k].extent;
    si[k] = p.dims[k].in_stride;
    so[k] = p.dims[k].out_stride;
    if (si[k] < 0 || so[k] < 0)
      return fail(status::kInvalidStride, why, "strides must not be negative");
  }
  i64 span_in, span_out, bytes;
  if (!span_of(e.data(), si.data(), p.rank, &span_in) || !mul_ok(span_in, p.elem_bytes, &bytes))
    return fail(status::kOverflow, why, "the input's extent in bytes does not fit in 64 bits");
  if (!span_of(e.data(), so.data(), p.rank, &span_out) || !mul_ok(span_out, p.elem_bytes, &bytes))
    return fail(status::kOverflow, why, "the output's extent in bytes does not fit in 64 bits");
  if (!injective(e.data(), so.data(), p.rank))
    return fail(status::kInvalidStride, why,
                "output strides make distinct elements share memory (the output would race)");
  return status::kSuccess;
}

}  // namespace

bool supported_elem_bytes(int b) { return b == 1 || b == 2 || b == 4 || b == 8 || b == 16; }

status fail(status s, std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return s;
}

status validate(const transpose_desc& d, std::string* why) {
  if (d.rows <= 0) return fail(status::kInvalidExtent, why, fmt::format("rows must be positive (got {})", d.rows));
  if (d.cols <= 0) return fail(status::kInvalidExtent, why, fmt::format("cols must be positive (got {})", d.cols));
  if (d.batch <= 0) return fail(status::kInvalidExtent, why, fmt::format("batch must be positive (got {})", d.batch));
  if (status s = check_elem_bytes(d.elem_bytes, why); s != status::kSuccess) return s;
  i64 n, bytes;
  if (!mul_ok(d.rows, d.cols, &n) || !mul_ok(n, d.batch, &n) || !mul_ok(n, d.elem_bytes, &bytes))
    return fail(status::kOverflow, why,
                fmt::format("{} x {} x {} elements of {} bytes overflow 64 bits", d.batch, d.rows, d.cols, d.elem_bytes));
  if (d.ld_in && *d.ld_in < d.cols)
    return fail(status::kInvalidLeadingDim, why,
                fmt::format("input leading dimension {} is smaller than cols ({})", *d.ld_in, d.cols));
  if (d.ld_out && *d.ld_out < d.rows)
    return fail(status::kInvalidLeadingDim, why,
                fmt::format("output leading dimension {} is smaller than rows ({})", *d.ld_out, d.rows));
  const i64 ld_in = d.ld_in.value_or(d.cols), ld_out = d.ld_out.value_or(d.rows);
  i64 t;
  if (!d.batch_stride_in && !mul_ok(d.rows, ld_in, &t))
    return fail(status::kOverflow, why, "rows * ld_in overflows 64 bits");
  if (!d.batch_stride_out && !mul_ok(d.cols, ld_out, &t))
    return fail(status::kOverflow, why, "cols * ld_out overflows 64 bits");
  if (d.batch_stride_in && *d.batch_stride_in < 0)
    return fail(status::kInvalidStride, why, fmt::format("input batch stride {} is negative", *d.batch_stride_in));
  if (d.batch_stride_out && *d.batch_stride_out < 0)
    return fail(status::kInvalidStride, why, fmt::format("output batch stride {} is negative", *d.batch_stride_out));
  const status s = check_layouts(to_problem(d), why);
  if (s == status::kInvalidStride && why) {
    // Only the output batch stride can make a validated transpose's output alias.
    i64 dense_bs;
    *why = mul_ok(d.cols, ld_out, &dense_bs)
               ? fmt::format("output batch stride {} overlaps the previous matrix (needs at least cols * ld_out = {})",
                             d.batch_stride_out ? *d.batch_stride_out : dense_bs, dense_bs)
               : fmt::format("output batch stride {} overlaps the previous matrix", d.batch_stride_out.value_or(0));
  }
  return s;
}

status validate(const permute_desc& d, std::string* why) {
  const int rank = static_cast<int>(d.extents.size());
  if (rank < 1 || rank > kMaxRank)
    return fail(status::kInvalidRank, why, fmt::format("rank {} is outside 1..{}", rank, kMaxRank));
  if (static_cast<int>(d.perm.size()) != rank)
    return fail(status::kInvalidPermutation, why,
                fmt::format("permutation has {} entries but the tensor has rank {}", d.perm.size(), rank));
  std::array<bool, kMaxRank> seen{};
  for (int k = 0; k < rank; ++k) {
    const int p = d.perm[k];
    if (p < 0 || p >= rank)
      return fail(status::kInvalidPermutation, why,
                  fmt::format("permutation entry {} at position {} is outside 0..{}", p, k, rank - 1));
    if (seen[p])
      return fail(status::kInvalidPermutation, why,
                  fmt::format("permutation entry {} appears more than once", p));
    seen[p] = true;
  }
  for (int k = 0; k < rank; ++k)
    if (d.extents[k] <= 0)
      return fail(status::kInvalidExtent, why,
                  fmt::format("extent {} of dimension {} must be positive", d.extents[k], k));
  if (status s = check_elem_bytes(d.elem_bytes, why); s != status::kSuccess) return s;
  i64 n = 1;
  for (int k = 0; k < rank; ++k)
    if (!mul_ok(n, d.extents[k], &n))
      return fail(status::kOverflow, why, "the number of elements overflows 64 bits");
  if (!mul_ok(n, d.elem_bytes, &n))
    return fail(status::kOverflow, why, "the tensor's size in bytes overflows 64 bits");
  if (!d.in_strides.empty() && static_cast<int>(d.in_strides.size()) != rank)
    return fail(status::kInvalidStride, why,
                fmt::format("{} input strides given for a tensor of rank {}", d.in_strides.size(), rank));
  if (!d.out_strides.empty() && static_cast<int>(d.out_strides.size()) != rank)
    return fail(status::kInvalidStride, why,
                fmt::format("{} output strides given for a tensor of rank {}", d.out_strides.size(), rank));
  // Dense strides of the default layouts cannot overflow: their products are bounded by n above.
  return check_layouts(to_problem(d), why);
}

}  // namespace xpose::detail
