// The one table of variants: name, backend, what it accepts, how to configure and run it.
// Adding a kernel = one file under src/gpu/kernels or src/cpu, one entry in registry.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "dispatch/plan_data.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

struct variant_info {
  const char* name;
  backend where;
  bool matrix_only;          // a 2-D kernel: runs (batched) 2-D transposes only
  int default_block_x, default_block_y;
  const char* summary;       // one line for `xpose plan` and the docs
  // Validates the block shape in pd.launch and fills the rest of the launch shape.
  status (*configure)(plan_data& pd, std::string* why);
  // Launches (GPU) or runs (CPU). Pointers are already checked.
  status (*run)(const plan_data& pd, const void* in, void* out, CUstream_st* stream, std::string* why);
};

std::span<const variant_info> all_variants();
const variant_info* find_variant(std::string_view name);

}  // namespace xpose::detail
