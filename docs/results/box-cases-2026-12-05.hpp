// The host analyses of the sixty-third session (box-sectors-2026-12-05.cpp,
// box-pairs-model-2026-12-05.cpp): each reads "extents perm" lines from standard input and plans
// each case's box as permute_box's planner does (box_plan on the normalised problem).
#pragma once
#include <iostream>
#include <sstream>
#include <string>
#include "gpu/box_tile.hpp"
#include "plan/problem.hpp"

// The next case: its extents and perm as written (e, p) and, where box_plan takes it, its box (true).
// False at the end of the input; *planned false where box_plan refuses the case.
inline bool next_box_case(int elem_bytes, std::string* e, std::string* p, xpose::detail::gpu::box_params* bp,
                          bool* planned) {
  std::string line;
  if (!std::getline(std::cin, line)) return false;
  std::istringstream is(line);
  is >> *e >> *p;
  xpose::permute_desc d;
  d.elem_bytes = elem_bytes;
  std::stringstream es(*e), ps(*p);
  std::string t;
  while (std::getline(es, t, ',')) d.extents.push_back(std::stoll(t));
  while (std::getline(ps, t, ',')) d.perm.push_back(std::stoi(t));
  const char* why = "";
  *bp = {};
  *planned = xpose::detail::gpu::box_plan(xpose::detail::normalize(xpose::detail::to_problem(d)), bp, &why);
  return true;
}
