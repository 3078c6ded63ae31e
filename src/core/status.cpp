#include "xpose/status.hpp"

namespace xpose {

const char* status_name(status s) noexcept {
  switch (s) {
#define XPOSE_CASE(x) case status::x: return #x;
    XPOSE_CASE(kSuccess) XPOSE_CASE(kInvalidExtent) XPOSE_CASE(kOverflow) XPOSE_CASE(kInvalidLeadingDim)
    XPOSE_CASE(kInvalidStride) XPOSE_CASE(kUnsupportedElementSize) XPOSE_CASE(kInvalidPermutation)
    XPOSE_CASE(kInvalidRank) XPOSE_CASE(kInvalidBlock) XPOSE_CASE(kUnknownVariant)
    XPOSE_CASE(kVariantNotApplicable) XPOSE_CASE(kNullPointer) XPOSE_CASE(kOverlap)
    XPOSE_CASE(kWrongMemorySpace) XPOSE_CASE(kMisaligned) XPOSE_CASE(kInvalidPlan) XPOSE_CASE(kNoDevice)
    XPOSE_CASE(kCudaError) XPOSE_CASE(kInvalidOption)
#undef XPOSE_CASE
  }
  return "kUnknownStatus";
}

const char* status_message(status s) noexcept {
  switch (s) {
    case status::kSuccess: return "success";
    case status::kInvalidExtent: return "an extent, row, column or batch count is zero or negative";
    case status::kOverflow: return "the problem's element count or byte size overflows 64 bits";
    case status::kInvalidLeadingDim: return "a leading dimension is smaller than the matrix it holds";
    case status::kInvalidStride: return "strides are negative, of the wrong length, or make output elements share memory";
    case status::kUnsupportedElementSize: return "element size must be 1, 2, 4, 8 or 16 bytes";
    case status::kInvalidPermutation: return "the permutation has repeated or out-of-range entries, or the wrong length";
    case status::kInvalidRank: return "rank must be between 1 and 8";
    case status::kInvalidBlock: return "the block shape is not one the variant can use";
    case status::kUnknownVariant: return "no variant has that name";
    case status::kVariantNotApplicable: return "the variant cannot run this problem on this backend";
    case status::kNullPointer: return "input or output pointer is null";
    case status::kOverlap: return "input and output memory overlap";
    case status::kWrongMemorySpace: return "pointer is in the wrong memory space for the plan's backend (host vs device)";
    case status::kMisaligned: return "pointer or leading dimension is not aligned for the plan's access width";
    case status::kInvalidPlan: return "the plan is empty or was not made successfully";
    case status::kNoDevice: return "no usable CUDA device";
    case status::kCudaError: return "a CUDA call or kernel launch failed";
    case status::kInvalidOption: return "a plan option is outside its range";
  }
  return "unknown status";
}

}  // namespace xpose
