// The bank model's shared wavefronts (box_wavefronts, first 8 warps of each phase) per KiB of the
// store phase's sampled output, for each "extents perm" line on standard input; argument: the
// element size. docs/performance.md, sixty-second session. Built against a build of the tree:
//   g++ -std=c++20 -O1 -Isrc -Iinclude -DFMT_HEADER_ONLY=1 THIS.cpp build/src/libxpose.a \
//     build/src/libxpose_model.a -o wf
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include "gpu/box_tile.hpp"
#include "plan/problem.hpp"
using namespace xpose::detail::gpu;
int main(int argc, char** argv) {
  int s = std::stoi(argv[1]);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream is(line);
    std::string e, p;
    is >> e >> p;
    xpose::permute_desc d;
    d.elem_bytes = s;
    std::stringstream es(e), ps(p);
    std::string t;
    while (std::getline(es, t, ',')) d.extents.push_back(std::stoll(t));
    while (std::getline(ps, t, ',')) d.perm.push_back(std::stoi(t));
    box_params bp{};
    const char* why = "";
    auto pr = xpose::detail::normalize(xpose::detail::to_problem(d));
    if (!box_plan(pr, &bp, &why)) { printf("%s %s: no box (%s)\n", e.c_str(), p.c_str(), why); continue; }
    const std::int64_t wf = box_wavefronts(bp, s);
    // bytes the sample covers: the store phase's first min(items, 256) chunks (G runs each with words)
    const box_chunks nc = box_out_chunks(bp, 0);
    const long items = (long)bp.groups * nc.n;
    const long sampled = std::min(items, 256L);
    const double bytes = sampled * 16.0 * (bp.words ? 4 / s : 1);
    printf("%s %s words=%d wide=%d raw=%d swz=%d row=%d wf=%lld per_KiB=%.1f\n", e.c_str(), p.c_str(), bp.words, bp.wide,
           bp.raw, bp.swizzle, bp.row_bytes, (long long)wf, wf / bytes * 1024);
  }
}
