// The copy engine's (TMA's) shared-memory barriers and its plain 1-D bulk copy, shared by tma_tile
// (tensor copies both ways) and permute_box (raw input rows, one bulk copy per row).
//
// An mbarrier phase completes when its pending arrivals reach zero *and* its transaction count does:
// a thread announces the bytes it is about to bring in (mbar_expect_tx / mbar_add_tx), the engine
// counts them off as they land (complete_tx), and a thread waiting on the phase's parity then sees
// them in shared memory.
#pragma once

#include <cstdint>

namespace xpose::detail::gpu::tma {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// A barrier of `count` arrivals per phase (one thread, before a fence_mbar_init and a __syncthreads).
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// One arrival that also adds `bytes` to the phase's transaction count.
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}

// Spins until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// Adds `bytes` to the current phase's transaction count without arriving (any thread, any number
// of times before the phase's last arrival).
__device__ __forceinline__ void mbar_add_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

// One arrival on the current phase.
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// The engine copies `bytes` (a multiple of 16) from global src to shared dst (both 16-byte
// aligned) and counts them off bar's transactions.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

// Ordinary shared accesses ordered before the copy engine's (the async proxy's) later ones.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

}  // namespace xpose::detail::gpu::tma
