// Device queries used by the planner and by execute's pointer checks.
#include "gpu/common.cuh"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {

status query_device(device_info* info, std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return fail(status::kNoDevice, why,
                e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e)
                                 : std::string("no CUDA device is present"));
  }
  int dev = 0;
  XPOSE_CUDA_TRY(cudaGetDevice(&dev), why);
  cudaDeviceProp prop{};
  XPOSE_CUDA_TRY(cudaGetDeviceProperties(&prop, dev), why);
  info->ordinal = dev;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->sm_count = prop.multiProcessorCount;
  info->l2_bytes = prop.l2CacheSize;
  info->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info->max_grid_y = prop.maxGridSize[1];
  info->max_grid_z = prop.maxGridSize[2];
  return status::kSuccess;
}

mem_space pointer_space(const void* p, int* device) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return mem_space::kHost;
  }
  if (device) *device = attr.device;
  switch (attr.type) {
    case cudaMemoryTypeDevice: return mem_space::kDevice;
    case cudaMemoryTypeManaged: return mem_space::kManaged;
    default: return mem_space::kHost;  // registered or plain pageable host memory
  }
}

// kCopy problems: one contiguous block on both sides (configure_copy: configure.cpp).
status run_copy(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const std::size_t bytes = static_cast<std::size_t>(pd.prob.count()) * pd.prob.elem_bytes;
  XPOSE_CUDA_TRY(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s), why);
  return status::kSuccess;
}

}  // namespace xpose::detail::gpu
