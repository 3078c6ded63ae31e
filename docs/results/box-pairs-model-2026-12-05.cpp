// Warp-instruction model of permute_box's converged store with K chunks per item (the candidate of
// branch cand/box-chunk-pairs has K = 2): over box_plan's tiles (about 200 spaced evenly), each warp
// of the item loop costs P + C * (the most chunks any of its lanes stores) where any lane has one,
// for a 256-byte aligned output; prints the cost for K = 2 and K = 4 relative to K = 1. Arguments:
// element size, P, C (the sixty-third session: 40 and 100, from the byte kernel's SASS). Cases:
// "extents perm" lines on standard input. docs/performance.md, sixty-third session. Built as
// box-sectors-2026-12-05.cpp is.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "box-cases-2026-12-05.hpp"
using namespace xpose::detail::gpu;
int main(int argc, char** argv) {
  const int s = std::stoi(argv[1]);
  const double P = std::stod(argv[2]), C = std::stod(argv[3]);
  std::string e, p;
  box_params bp;
  bool planned;
  while (next_box_case(s, &e, &p, &bp, &planned)) {
    if (!planned) continue;
    if (!box_store_converged(bp, s, 0)) { printf("%s %s whole\n", e.c_str(), p.c_str()); continue; }
    const int groups = bp.words ? bp.groups : bp.runs_out;
    const box_chunks nc = box_out_chunks(bp, 0);
    const std::int64_t step = bp.tiles > 200 ? bp.tiles / 199 : 1;
    double cost[3] = {0, 0, 0};
    const int Ks[3] = {1, 2, 4};
    for (std::int64_t tile = 0; tile < bp.tiles; tile += step) {
      const packed_origin o = packed_origin_of(bp, static_cast<std::uint32_t>(tile));
      const int rb = s * box_run_length(o, bp.run_out, bp.out_unit, bp.out_lim);
      std::vector<int> chunks(groups);  // chunks each run (group) stores
      for (int g = 0; g < groups; ++g) {
        const int r = bp.words ? box_group_of(bp, g).run0 : g;
        const box_run run = box_run_of(bp, false, r);
        if (!(o.full || packed_in_bounds(o, run.cut))) { chunks[g] = 0; continue; }
        const int mis = static_cast<int>(((o.out + run.off) * s) & 15);
        int c = 0;
        for (int j = 0; j < nc.n; ++j) c += 16 * j - mis < rb;
        chunks[g] = c;
      }
      for (int k = 0; k < 3; ++k) {
        const int K = Ks[k], nK = (nc.n + K - 1) / K, items = groups * nK;
        for (int w0 = 0; w0 < items; w0 += 32) {
          int most = 0;
          for (int u = w0; u < std::min(items, w0 + 32); ++u) {
            const int g = u / nK, q = u % nK;
            most = std::max(most, std::clamp(chunks[g] - K * q, 0, K));
          }
          cost[k] += most ? P + C * most : 0;
        }
      }
    }
    printf("%s %s words=%d nc=%d runs=%d K2=%.3f K4=%.3f\n", e.c_str(), p.c_str(), bp.words, nc.n, groups, cost[1] / cost[0],
           cost[2] / cost[0]);
  }
}
