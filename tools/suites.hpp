// The built-in problem suites the CLI shares: `xpose bench --suite permute` times them, `xpose plan
// --suite permute` prints what the planner picks for each (so a planner change can be checked on
// the host, case by case, before any device time: scripts/plan_diff.sh).
#pragma once

#include <cstdint>
#include <vector>

namespace xpose::cli {

struct suite_case {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
};

// Issue 5's permutation suite for elements of `elem_bytes` bytes, its random cases drawn from
// `seed` (the bench's --seed, default 1).
std::vector<suite_case> permute_suite_cases(int elem_bytes, std::uint64_t seed);

}  // namespace xpose::cli
