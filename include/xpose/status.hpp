// Status codes returned at every public entry point. The library never throws across its API,
// never prints and never exits: each failure is one of these codes, optionally with a sentence
// (the `why` out-parameter of the calls) naming the offending value.
#pragma once

namespace xpose {

enum class status : int {
  kSuccess = 0,
  kInvalidExtent,           // an extent, row or column count, or batch count is zero or negative
  kOverflow,                // element counts or byte spans do not fit in 64 bits
  kInvalidLeadingDim,       // a leading dimension is smaller than the dense one
  kInvalidStride,           // batch or tensor strides that are negative or make elements collide
  kUnsupportedElementSize,  // element size other than 1, 2, 4, 8 or 16 bytes
  kInvalidPermutation,      // repeated or out-of-range entries, or a length other than the rank
  kInvalidRank,             // rank outside 1..8
  kInvalidBlock,            // block shape the variant cannot use
  kUnknownVariant,          // no variant of that name
  kVariantNotApplicable,    // the named variant cannot run this problem (e.g. a 2-D kernel on a 3-D permutation)
  kNullPointer,             // input or output pointer is null
  kOverlap,                 // input and output memory ranges overlap
  kWrongMemorySpace,        // host pointer given to a GPU plan, or device pointer to a CPU plan
  kMisaligned,              // pointer or leading dimension not aligned for the chosen access width
  kInvalidPlan,             // executing a default-constructed or failed plan
  kNoDevice,                // a GPU plan was asked for but no usable CUDA device exists
  kCudaError,               // a CUDA runtime call or kernel launch failed
  kInvalidOption,           // a plan option outside its range (plan_options::tuning)
};

// Short identifier of the code, e.g. "kInvalidExtent".
const char* status_name(status s) noexcept;
// One sentence describing the code.
const char* status_message(status s) noexcept;

}  // namespace xpose
