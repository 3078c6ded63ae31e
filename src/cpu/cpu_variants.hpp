// Host entry points of the CPU backend.
#pragma once

#include <string>

#include "dispatch/plan_data.hpp"
#include "xpose/status.hpp"

namespace xpose::detail::cpu {

// cpu_naive: the seed's loop, for i over rows, for j over cols, out[j*ld_out+i] = in[i*ld_in+j];
// non-matrix problems walk the output in order with an odometer. Single-threaded, as the seed.
status configure_naive(plan_data& pd, std::string* why);
status run_naive(const plan_data& pd, const void* in, void* out, CUstream_st*, std::string* why);

// cpu_blocked: every problem class, element sizes 1..16 bytes, ranks up to 8. Cache-blocked tiles
// over the input- and output-contiguous dims around SIMD micro-kernels (AVX2 when the CPU has it),
// streaming stores for large outputs, OpenMP threads (pd.cpu_threads, 0 = all). See blocked.hpp.
status configure_blocked(plan_data& pd, std::string* why);
status run_blocked(const plan_data& pd, const void* in, void* out, CUstream_st*, std::string* why);

}  // namespace xpose::detail::cpu
