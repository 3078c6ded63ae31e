// Pure planning steps on the normalised problem; see problem.hpp for the representation.
#include <fmt/format.h>

#include "plan/problem.hpp"

namespace xpose::detail {

std::int64_t problem::count() const {
  std::int64_t n = 1;
  for (int k = 0; k < rank; ++k) n *= dims[k].extent;
  return n;
}

std::string problem::describe() const {
  std::string e, si, so;
  for (int k = 0; k < rank; ++k) {
    const char* sep = k ? "," : "";
    e += fmt::format("{}{}", sep, dims[k].extent);
    si += fmt::format("{}{}", sep, dims[k].in_stride);
    so += fmt::format("{}{}", sep, dims[k].out_stride);
  }
  return fmt::format("extents [{}] in-strides [{}] out-strides [{}] x {}B", e, si, so, elem_bytes);
}

const char* class_name(problem_class c) {
  switch (c) {
    case problem_class::kCopy: return "copy";
    case problem_class::kTranspose2d: return "transpose2d";
    case problem_class::kTransposeNd: return "transpose-nd";
    case problem_class::kRowCopy: return "row-copy";
    case problem_class::kGeneral: return "general";
  }
  return "?";
}

problem to_problem(const transpose_desc& d) {
  const std::int64_t ld_in = d.ld_in.value_or(d.cols), ld_out = d.ld_out.value_or(d.rows);
  problem p;
  p.rank = 3;
  p.elem_bytes = d.elem_bytes;
  // Output order: (batch, j over cols, i over rows); i is the output's fastest index.
  // The dense batch strides are computed only when not given (they may overflow when unused).
  p.dims[0] = {d.batch, d.batch_stride_in ? *d.batch_stride_in : d.rows * ld_in,
               d.batch_stride_out ? *d.batch_stride_out : d.cols * ld_out};
  p.dims[1] = {d.cols, 1, ld_out};
  p.dims[2] = {d.rows, ld_in, 1};
  return p;
}

problem to_problem(const permute_desc& d) {
  const int r = static_cast<int>(d.extents.size());
  std::array<std::int64_t, kMaxRank> in_stride{}, out_stride{};
  std::int64_t s = 1;
  for (int j = r - 1; j >= 0; --j) {
    in_stride[j] = d.in_strides.empty() ? s : d.in_strides[j];
    s *= d.extents[j];
  }
  s = 1;
  for (int k = r - 1; k >= 0; --k) {
    out_stride[k] = d.out_strides.empty() ? s : d.out_strides[k];
    s *= d.extents[d.perm[k]];
  }
  problem p;
  p.rank = r;
  p.elem_bytes = d.elem_bytes;
  for (int k = 0; k < r; ++k) p.dims[k] = {d.extents[d.perm[k]], in_stride[d.perm[k]], out_stride[k]};
  return p;
}

problem drop_unit_dims(const problem& p) {
  problem q;
  q.elem_bytes = p.elem_bytes;
  for (int k = 0; k < p.rank; ++k)
    if (p.dims[k].extent != 1) q.dims[q.rank++] = p.dims[k];
  return q;
}

problem fuse_dims(const problem& p) {
  problem q;
  q.elem_bytes = p.elem_bytes;
  for (int k = 0; k < p.rank; ++k) {
    const dim& d = p.dims[k];
    if (q.rank > 0) {
      dim& outer = q.dims[q.rank - 1];
      // `outer` then `d` are output neighbours; fusable when they are input neighbours too.
      // Compare with the inner dim's extent and stride *before* fusion: outer's strides are those of
      // the last dim fused into it, so a run of dims fuses one after another.
      std::int64_t span_in, span_out;  // overflow means the dims cannot be neighbours
      if (!__builtin_mul_overflow(d.extent, d.in_stride, &span_in) &&
          !__builtin_mul_overflow(d.extent, d.out_stride, &span_out) && outer.in_stride == span_in &&
          outer.out_stride == span_out) {
        outer = {outer.extent * d.extent, d.in_stride, d.out_stride};
        continue;
      }
    }
    q.dims[q.rank++] = d;
  }
  return q;
}

problem normalize(const problem& p) { return fuse_dims(drop_unit_dims(p)); }

namespace {

// The dims that are contiguous in the input (A) and in the output (B), or -1. After unit dims are
// dropped at most one dim of a valid output has stride 1; an input may alias (stride-0 broadcast),
// so the first unit-stride input dim is taken.
int unit_in_dim(const problem& p) {
  for (int k = 0; k < p.rank; ++k)
    if (p.dims[k].in_stride == 1) return k;
  return -1;
}
int unit_out_dim(const problem& p) {
  for (int k = p.rank - 1; k >= 0; --k)
    if (p.dims[k].out_stride == 1) return k;
  return -1;
}

}  // namespace

problem_class classify(const problem& p) {
  if (p.rank == 0) return problem_class::kCopy;
  const int a = unit_in_dim(p), b = unit_out_dim(p);
  if (a >= 0 && a == b) return p.rank == 1 ? problem_class::kCopy : problem_class::kRowCopy;
  if (a >= 0 && b >= 0) return p.rank <= 3 ? problem_class::kTranspose2d : problem_class::kTransposeNd;
  return problem_class::kGeneral;
}

matrix_view as_matrix(const problem& p) {
  matrix_view m;
  if (p.rank == 0) return m;
  const int a = unit_in_dim(p), b = unit_out_dim(p);
  if (p.rank == 1 || a < 0 || b < 0 || a == b) {  // a copy: one row
    m.cols = p.count();
    m.ld_in = m.cols;
    return m;
  }
  m.cols = p.dims[a].extent;
  m.rows = p.dims[b].extent;
  m.ld_in = p.dims[b].in_stride;
  m.ld_out = p.dims[a].out_stride;
  for (int k = 0; k < p.rank; ++k) {
    if (k == a || k == b) continue;
    m.batch_ext[m.batch_rank] = p.dims[k].extent;
    m.batch_in[m.batch_rank] = p.dims[k].in_stride;
    m.batch_out[m.batch_rank] = p.dims[k].out_stride;
    m.batch *= p.dims[k].extent;
    ++m.batch_rank;
  }
  if (m.batch_rank == 1) {
    m.bs_in = m.batch_in[0];
    m.bs_out = m.batch_out[0];
  }
  return m;
}

std::int64_t in_span(const problem& p) {
  std::int64_t s = 1;
  for (int k = 0; k < p.rank; ++k) s += (p.dims[k].extent - 1) * p.dims[k].in_stride;
  return s;
}

std::int64_t out_span(const problem& p) {
  std::int64_t s = 1;
  for (int k = 0; k < p.rank; ++k) s += (p.dims[k].extent - 1) * p.dims[k].out_stride;
  return s;
}

}  // namespace xpose::detail
