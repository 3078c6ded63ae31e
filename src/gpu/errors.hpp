// CUDA error -> status, with a message. Defined in a .cpp so that .cu files need no fmt.
#pragma once

#include <string>

#include "xpose/status.hpp"

namespace xpose::detail::gpu {

// Returns kCudaError and writes "<call> failed: <CUDA message> (<file>:<line>)" to *why.
status cuda_fail(int cuda_error, const char* call, const char* file, int line, std::string* why);

}  // namespace xpose::detail::gpu

// Returns early with kCudaError when a CUDA call fails.
#define XPOSE_CUDA_TRY(call, why)                                                              \
  do {                                                                                         \
    const auto xpose_err_ = (call);                                                            \
    if (xpose_err_ != 0)                                                                       \
      return ::xpose::detail::gpu::cuda_fail(static_cast<int>(xpose_err_), #call, __FILE__, __LINE__, (why)); \
  } while (0)
