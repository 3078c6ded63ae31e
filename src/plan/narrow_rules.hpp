// The measured narrow-shape rules of `auto` (plan/narrow_rules.cpp): which kernel a single matrix
// with a short side takes, by element size, side, long-side alignment and size. Host-only.
#pragma once

#include <span>

#include "dispatch/plan_data.hpp"

namespace xpose::detail {

// Single narrow matrices where a kernel measured ahead of the one auto ran before (twenty-first
// session, H200 2026-12-01, every kernel by name, one run, % of copy; sides of 2, 3, 4, 8, 16, 32, 48
// and 64 (8- and 16-byte elements: to 48) against long sides of 10^7 and 10^7 + 1, both ways round,
// every element size; docs/performance.md "Twenty-first session", results/narrow-*-2026-12-01y-*.json).
// Only gains of 4 points or more were taken (a side inside a row's range that gained less is named
// where it was measured); from the size of the smallest case a row was measured at (smaller ones,
// launch-bound, keep the rules further down). "Rows" short: the input is a few long rows (S x L);
// "columns" short: many short input rows (L x S). Whole: the long side a multiple of 16 elements
// (10^7), odd: not whole 16-byte vectors (10^7 + 1; for 16-byte elements, not a multiple of 16).
struct narrow_rule {
  int elem_lo, elem_hi;  // element bytes
  bool short_rows;       // which side is short (above)
  int side_lo, side_hi;  // its extent
  int whole;             // 1: only where the long side is whole (above), 0: only where it is odd, -1: either
  int min_mib;           // the smallest case measured, MiB (rounded down)
  const char* variant;
  const char* reason;
  int max_mib = 1 << 30;  // the largest size it holds for (MiB, rounded down): where a row above was not taken
};

// Every row, in the order they are tried (the first match wins).
std::span<const narrow_rule> narrow_rules();
// The first row a single matrix (pd.mat, batch 1) matches, or null.
const narrow_rule* narrow_rule_for(const plan_data& pd);

}  // namespace xpose::detail
