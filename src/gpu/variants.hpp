// Host-side entry points of the GPU backend (plain C++: no CUDA types), used by the registry,
// the planner and execute. Each variant has a configure (fill/validate the launch shape: host-only)
// and a run (launch on a stream).
#pragma once

#include <string>

#include "dispatch/plan_data.hpp"
#include "xpose/status.hpp"

namespace xpose::detail::gpu {

#define XPOSE_GPU_VARIANT(name)                                              \
  status configure_##name(plan_data& pd, std::string* why);                  \
  status run_##name(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why);

XPOSE_GPU_VARIANT(naive_row_read)
XPOSE_GPU_VARIANT(naive_col_read)
XPOSE_GPU_VARIANT(smem_v1)
XPOSE_GPU_VARIANT(smem_v2)
XPOSE_GPU_VARIANT(smem_v3)
XPOSE_GPU_VARIANT(tiled)
XPOSE_GPU_VARIANT(tiled_skew)
XPOSE_GPU_VARIANT(tiled_words)
XPOSE_GPU_VARIANT(copy)
XPOSE_GPU_VARIANT(fast_tile)
XPOSE_GPU_VARIANT(narrow)
XPOSE_GPU_VARIANT(interleave)
XPOSE_GPU_VARIANT(reg_tile)
XPOSE_GPU_VARIANT(reg_batch)
XPOSE_GPU_VARIANT(skew_tile)
XPOSE_GPU_VARIANT(tma_tile)
XPOSE_GPU_VARIANT(permute_general)
XPOSE_GPU_VARIANT(permute_packed)
XPOSE_GPU_VARIANT(permute_runs)
XPOSE_GPU_VARIANT(permute_rows)
XPOSE_GPU_VARIANT(permute_box)
#undef XPOSE_GPU_VARIANT

// Whether tma_tile's tensor maps can describe matrix view m of `elem_bytes`-byte elements (one
// batch dim, leading dimensions and batch strides in whole 16-byte units, output rows of whole
// 16-byte units, dims under 2^31 engine units): kSuccess, or the status and *why. configure_tma_tile
// checks it at plan time, make_tma_maps again at execute time (the tuning harness builds maps
// without a plan), with the pointers' alignment.
status check_tma_view(const matrix_view& m, int elem_bytes, std::string* why);

// Gives a permute_box plan its tables in device memory (box_tables.cpp), built once here instead of
// by every block of every launch. Best effort: a plan left without them runs the same, building its
// tables in each block. Called by make_plan on the plan it returns.
void attach_box_tables(plan_data* pd);

// The current device's properties; kNoDevice when there is none or the driver is unusable.
status query_device(device_info* info, std::string* why);

enum class mem_space { kHost, kDevice, kManaged };
// Where a pointer lives, by cudaPointerGetAttributes. Without a usable CUDA runtime every pointer is
// a host pointer.
mem_space pointer_space(const void* p, int* device);

}  // namespace xpose::detail::gpu
