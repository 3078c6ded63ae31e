// Tensor maps (the bulk tensor copy engine's descriptors of a global array) for tma_tile: built at
// execute time, since they hold the pointers. Host side; needs the CUDA headers, not libcuda (the
// driver's encoder is found through the runtime).
#pragma once

#include <cuda.h>

#include <string>

#include "dispatch/plan_data.hpp"
#include "gpu/kernels/tma_tile.cuh"
#include "xpose/status.hpp"

namespace xpose::detail::gpu {

// The input and output maps of matrix view m (one batch dim at most) for tiles of npo x npi
// 128-byte panels of `elem_bytes`-byte elements: 3-D (columns, rows, batch), 128-byte boxes
// swizzled by 128 bytes. Fails as check_tma_view (gpu/variants.hpp) does, with kMisaligned for a
// pointer that is not 16-byte aligned, and with kCudaError when the driver refuses.
status make_tma_maps(const matrix_view& m, int elem_bytes, int npo, int npi, const void* in, void* out,
                     CUtensorMap* map_in, CUtensorMap* map_out, std::string* why);

// The kernel's runtime arguments for matrix view m.
tma_tile_args make_tma_args(const matrix_view& m, int elem_bytes, int npo, int npi, int group, int stages);

}  // namespace xpose::detail::gpu
