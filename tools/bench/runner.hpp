// The benchmark engine behind `xpose bench`: runs cases, times them against a copy of the same
// bytes in the same run, and verifies each output against the naive reference.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::bench {

// One problem (a 2-D transpose or a permutation) of one dtype, and the variants to run on it.
struct problem_spec {
  std::optional<transpose_desc> transpose;  // exactly one of transpose / permute is set
  std::optional<permute_desc> permute;
  std::string dtype;                        // i8, f16, ... (names only; the bench moves bytes)
  int elem_bytes = 4;
  std::string label;                        // "25600x25600" or "[64,3,224,224] perm 0,2,3,1"
  int offset_elems = 0;                     // GPU: input and output start this many elements past a
                                            // 256-byte aligned allocation (the cost of unaligned pointers)
};

struct variant_spec {
  std::string name;  // a library variant, or "cublas" (the baseline)
  int block_x = 0, block_y = 0;
};

struct result {
  std::string variant, backend, dtype, label;
  std::int64_t rows = 0, cols = 0, batch = 1;
  int elem_bytes = 0;
  std::vector<std::int64_t> extents;  // permutations only
  std::vector<int> perm;
  int block_x = 0, block_y = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, gbps = 0, copy_gbps = 0, pct_of_copy = 0;
  bool verified = false;
  bool skipped = false;
  std::string note;  // why it was skipped or what was wrong
};

struct run_options {
  backend where = backend::kGpu;
  int reps = 20;
  int warmup = 2;
  int cpu_threads = 0;
  cpu_tuning tuning = cpu_tuning::kAuto;
  bool huge_pages = false;  // CPU: advise the buffers as transparent huge pages (madvise)
  std::uint64_t seed = 1;
  std::function<void(const std::string&)> progress;  // one line per case, to stderr
};

// Runs every variant on the problem; one result per variant (skipped ones carry the reason).
std::vector<result> run_problem(const problem_spec& p, const std::vector<variant_spec>& variants,
                                const run_options& opts);

// "NVIDIA H200, cc 9.0, 132 SMs, ..." or the CPU's model name; fields for the JSON.
struct device_description {
  std::string backend, name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::int64_t memory_bytes = 0, l2_bytes = 0;
  int threads = 0;
};
device_description describe_device(backend where);
bool gpu_present(std::string* reason);

}  // namespace xpose::bench
