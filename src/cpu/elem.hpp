// Element moves on the host: by size, through memcpy (no alignment assumed; compiles to one move).
#pragma once

#include <cstddef>
#include <cstring>

#include "xpose/status.hpp"

namespace xpose::detail::cpu {

template <int B>
inline void copy_elem(std::byte* dst, const std::byte* src) {
  std::memcpy(dst, src, B);
}

// Calls f.template operator()<B>() for the element size B.
template <class F>
status with_elem_size(int elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1: f.template operator()<1>(); return status::kSuccess;
    case 2: f.template operator()<2>(); return status::kSuccess;
    case 4: f.template operator()<4>(); return status::kSuccess;
    case 8: f.template operator()<8>(); return status::kSuccess;
    case 16: f.template operator()<16>(); return status::kSuccess;
  }
  return status::kUnsupportedElementSize;
}

}  // namespace xpose::detail::cpu
