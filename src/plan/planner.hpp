// The planner: descriptor -> plan_data, host-only. make_plan (public) queries the device and calls
// these; tests call them directly with a hand-made device_info, so planning is tested without a GPU.
#pragma once

#include <optional>
#include <string>

#include "dispatch/plan_data.hpp"
#include "xpose/desc.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail {

// `raw_matrix` is the descriptor's own 2-D view when it came as a transpose_desc: named 2-D
// variants run it as given (a 1 x N transpose stays a 1 x N launch of the seed kernel).
status plan_problem(const problem& raw, const std::optional<matrix_view>& raw_matrix, const plan_options& opts,
                    const device_info& dev, plan_data* out, std::string* why);

// The 2-D view of a transpose_desc exactly as the caller wrote it (validated descriptor).
matrix_view raw_matrix(const transpose_desc& d);

// One line: variant, backend, normalised problem, launch shape, reason (plan::summary()).
std::string summarize(const plan_data& pd);

}  // namespace xpose::detail
