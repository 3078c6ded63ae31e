// permute_box's tables, built once per plan: make_plan builds them on the host (box_tables_build)
// and copies them to the plan's device; each block of every launch copies them into shared memory
// (cp.async, waited for before its first tile's loads; permute_box_kernel) instead of computing
// them. Plans of 1-byte elements only (kBoxTablesElemBytes; permute_box_kernel's kMayCopyTables
// says what the other sizes measured).
//
// Why: the tables (the input and output runs' offsets, cuts and shared bases, and the output run's
// gather table gtab) depend only on box_params, never on the tile, yet a block computed them for
// itself, and a one-block-per-tile box (most of the slow i8 plans) so computed them once per tile:
// about 100 of the 318 instructions a 16-byte chunk on i8 [44,23,13,22,6,22,7] (Nsight Compute,
// H100), of which gtab took most; copied, that plan ran 117.7 M instructions instead of 166.5 M.
//
// Size: 8 KiB a copy on average over 1,795 random byte plans of rank 2 to 8, 35 KiB at most (the
// box's shared-memory budget bounds it); 32 copies of it (kCopies below), so 256 KiB a plan on
// average and 1.1 MiB at most.
//
// Best effort: where the copy cannot be made (no device current, another device current than the
// plan's, an allocation refused) the plan keeps no tables and the kernel builds them as before; the
// result is the same either way (tests/gpu GpuRandom.PermuteBoxOwnTables runs both).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "dispatch/registry.hpp"
#include "gpu/box_tile.hpp"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {
namespace {

// What the plan's kernel_params point into: the box with its tables' device address, and the
// allocation it owns. The last copy of the plan frees it; cudaFree waits for the device, so no
// launch still reading it loses it.
struct box_with_tables {
  box_params p;
  void* dev = nullptr;
  ~box_with_tables() {
    if (dev) cudaFree(dev);  // an error here (the runtime unloading at exit) leaves nothing to do
  }
};

// Copies `bytes` from host to a new allocation on the current device, on a private non-blocking
// stream (so it neither waits for nor joins the legacy stream), allowed where another thread is
// capturing a graph (relaxed capture mode for this thread). nullptr where any step fails.
void* upload(const void* host, std::size_t bytes) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) return nullptr;
  void* dev = nullptr;
  cudaStream_t s = nullptr;
  bool ok = cudaMalloc(&dev, bytes) == cudaSuccess;
  ok = ok && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess;
  ok = ok && cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s) == cudaSuccess;
  ok = ok && cudaStreamSynchronize(s) == cudaSuccess;
  if (s) cudaStreamDestroy(s);
  if (!ok && dev) cudaFree(dev);
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (!ok) cudaGetLastError();  // the failure is handled (no tables); leave no error for the caller's next check
  return ok ? dev : nullptr;
}

}  // namespace

void attach_box_tables(plan_data* pd) {
  if (pd->where != backend::kGpu || !pd->variant || std::string_view(pd->variant->name) != "permute_box") return;
  const auto* p = static_cast<const box_params*>(pd->kernel_params.get());
  // The kernel's 16-byte copies need the shared tables (after tile_bytes) at the offset mod 16 the
  // device copy has (cudaMalloc: 256-byte aligned): tile_bytes whole chunks (box_tile.cpp's layouts
  // round the tile to 128 bytes; checked, not assumed).
  if (!p || p->tables || p->tile_bytes % 16 != 0) return;
  // 1-byte elements only: the kernels of wider ones compile without the copy (permute_box.cuh,
  // kMayCopyTables says why).
  if (pd->prob.elem_bytes != kBoxTablesElemBytes) return;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess || device != pd->device.ordinal) {
    cudaGetLastError();
    return;
  }
  const std::vector<std::int32_t> one = box_tables_build(*p, pd->prob.elem_bytes);
  if (one.empty()) return;
  // kCopies copies, each starting on a 256-byte boundary; block b reads copy b % kCopies. With one
  // copy, which every block reads at about the same time from the same few L2 lines, the tables
  // lost 1.3 points of copy on average over 33 plans (f16 [2,24,19,23,24,25,16,5] 97.4 -> 89.3);
  // with 32 the same kernels gained 0.5 (H100, docs/performance.md, eighty-seventh session). The
  // size in the header above is with the 32.
  constexpr int kCopies = 32;
  static_assert((kCopies & (kCopies - 1)) == 0, "the kernel picks a copy with a mask (tables_mask)");
  const int stride = static_cast<int>((one.size() + 63) / 64 * 64);
  std::vector<std::int32_t> host(static_cast<std::size_t>(stride) * kCopies, 0);
  for (int c = 0; c < kCopies; ++c) std::copy(one.begin(), one.end(), host.begin() + static_cast<std::ptrdiff_t>(c) * stride);
  const std::size_t bytes = host.size() * sizeof(std::int32_t);
  void* dev = upload(host.data(), bytes);
  if (!dev) return;
  auto held = std::make_shared<box_with_tables>();
  held->p = *p;
  held->p.tables = static_cast<const std::int32_t*>(dev);
  held->p.tables_device = device;
  held->p.tables_stride = stride;
  held->p.tables_mask = kCopies - 1;
  held->dev = dev;
  pd->kernel_params = std::shared_ptr<const void>(held, &held->p);
  pd->launch_note += fmt::format("; tables built at plan time ({} B on device {}, copied by each block)", bytes, device);
}

}  // namespace xpose::detail::gpu
