// Validation of the public descriptors, before any index is computed from them.
#pragma once

#include <string>

#include "xpose/desc.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

bool supported_elem_bytes(int elem_bytes);
status validate(const transpose_desc& d, std::string* why);
status validate(const permute_desc& d, std::string* why);

// Writes msg to *why when why is non-null and returns s: the one way errors leave the library.
status fail(status s, std::string* why, std::string msg);

}  // namespace xpose::detail
