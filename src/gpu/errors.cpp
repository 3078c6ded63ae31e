#include "gpu/errors.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "plan/validate.hpp"

namespace xpose::detail::gpu {

status cuda_fail(int cuda_error, const char* call, const char* file, int line, std::string* why) {
  return fail(status::kCudaError, why,
              fmt::format("{} failed: {} ({}:{})", call, cudaGetErrorString(static_cast<cudaError_t>(cuda_error)),
                          file, line));
}

}  // namespace xpose::detail::gpu
