// Plan / execute.
//
//   xpose::plan p;
//   std::string why;
//   if (xpose::make_plan(desc, {}, &p, &why) != xpose::status::kSuccess) { ... why ... }
//   xpose::execute(p, d_in, d_out, stream);
//
// make_plan validates the descriptor, normalises the problem (drops size-1 dimensions, fuses
// dimensions that stay adjacent), picks a variant and computes the launch shape. For GPU
// permutations it scores candidate tiles with the shared-memory bank model, which takes up to a few
// milliseconds on high-rank permutations (0.2-7 ms on the 2-core development machine): plan once,
// execute many times. It runs on the host, but for one kind of plan: a permute_box plan (`xpose
// plan` names it) of 1-byte elements copies its kernel's tables (256 KiB on average, 1.1 MiB at
// most) to the plan's device, the current one (one allocation and a copy on a stream of its own,
// waited for; allowed while another thread captures a graph). The plan owns that memory; its last
// copy frees it with cudaFree, which waits for the device. Where the copy cannot be made the plan
// runs the same, each block building the tables itself. execute only checks the pointers and
// launches; it is stream-ordered, never synchronises the device and never allocates (tma_tile's
// launches lease one of a fixed set of tile counters and record a CUDA event after the launch; the
// first ones on a device create those events). A plan is a small value: copy it, keep it, reuse it.
#pragma once

#include <memory>
#include <string>

#include "xpose/desc.hpp"
#include "xpose/status.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared here so the header needs no CUDA

namespace xpose {

enum class backend { kGpu, kCpu };

// Which host's measured tuning tables a CPU plan uses (docs/cpu.md, "Tuning per host"): the AMD
// EPYC (Zen 4) development machine's, or the Intel Xeon's (AVX-512) one, whose page walks made
// long rows of tiles cost more. kAuto picks by the CPU's vendor (Intel: kIntel, anything else:
// kAmd). Results are identical either way; only the blocking differs.
enum class cpu_tuning { kAuto, kAmd, kIntel };

struct plan_options {
  backend where = backend::kGpu;
  std::string variant = "auto";  // "auto" or a name from `xpose::variant_names()`
  int block_x = 0;               // threads per block in x and y; 0 = the variant's default
  int block_y = 0;
  int cpu_threads = 0;           // CPU plans: 0 = all hardware threads
  cpu_tuning tuning = cpu_tuning::kAuto;  // CPU plans: whose tuning tables (above)
};

namespace detail {
struct plan_data;
}

class plan {
 public:
  plan();
  ~plan();
  plan(const plan&);
  plan& operator=(const plan&);
  plan(plan&&) noexcept;
  plan& operator=(plan&&) noexcept;

  bool valid() const noexcept;
  backend where() const noexcept;
  // Name of the variant that will run, e.g. "tiled" or "cpu_naive".
  std::string variant() const;
  // One line: the normalised problem, the variant, its launch shape and why it was chosen.
  std::string summary() const;

  const detail::plan_data* data() const noexcept { return data_.get(); }

 private:
  std::shared_ptr<const detail::plan_data> data_;
  friend status make_plan(const transpose_desc&, const plan_options&, plan*, std::string*);
  friend status make_plan(const permute_desc&, const plan_options&, plan*, std::string*);
};

// On failure *out is left untouched and *why (if given) names the offending value.
status make_plan(const transpose_desc& desc, const plan_options& options, plan* out,
                 std::string* why = nullptr);
status make_plan(const permute_desc& desc, const plan_options& options, plan* out,
                 std::string* why = nullptr);

// Runs the plan: `in` and `out` are device pointers for GPU plans, host pointers for CPU plans.
// Checks null, overlap, memory space and alignment before anything is launched; on error nothing
// is written. GPU plans are stream-ordered (stream may be null: the legacy default stream); CPU
// plans run synchronously and ignore the stream.
status execute(const plan& p, const void* in, void* out, CUstream_st* stream = nullptr,
               std::string* why = nullptr);

// Every variant name the library knows, GPU and CPU, in a stable order.
const std::vector<std::string>& variant_names();

}  // namespace xpose
