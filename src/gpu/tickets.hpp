// Tile tickets: persistent grids that claim their tiles from a global counter, in the order blocks
// ask, instead of the static order b, b + grid, ... (tickets.cu says why and how slots are leased).
// A kernel given a ticket (two counters: next tile, blocks done) claims with atomicAdd on the first
// and, in its last block out, sets both back to zero (ticket_done below).
#pragma once

#include <cuda_runtime.h>

namespace xpose::detail::gpu {

struct ticket_pool;

// Leases a ticket slot of the current device for one launch on `stream`; ticket() is nullptr where
// none is free (or the stream is being captured, or the device cannot be read: the launch reports
// that itself), and the launch then runs its static order. After the launch, release() records
// when the slot may be leased again; without it (the launch failed, so the kernel never touched the
// slot) the destructor frees the slot at once.
class ticket_lease {
 public:
  explicit ticket_lease(cudaStream_t stream);
  ticket_lease(const ticket_lease&) = delete;
  ticket_lease& operator=(const ticket_lease&) = delete;
  ~ticket_lease();
  unsigned long long* ticket() const;
  cudaError_t release();

 private:
  cudaStream_t stream_;
  ticket_pool* pool_ = nullptr;
  int slot_ = -1;
};

#if defined(__CUDACC__)
// Called by one thread of every block after its last claim: the last block out resets the ticket
// for the slot's next launch.
__device__ inline void ticket_done(unsigned long long* ticket) {
  if (ticket && atomicAdd(ticket + 1, 1ull) == gridDim.x - 1) {
    atomicExch(ticket, 0ull);
    atomicExch(ticket + 1, 0ull);
  }
}
#endif

}  // namespace xpose::detail::gpu
