// The one naive reference, shared by the tests and by `xpose bench`'s verification. It works from
// the public descriptors directly (not from the normalised problem), so it also checks the planner.
// OpenMP-parallel over the outermost output index so that verifying a multi-GiB bench run is quick.
#pragma once

#include "xpose/desc.hpp"

namespace xpose::reference {

// Writes exactly the elements of the output's logical region; nothing else.
void transpose(const transpose_desc& d, const void* in, void* out);
void permute(const permute_desc& d, const void* in, void* out);

}  // namespace xpose::reference
