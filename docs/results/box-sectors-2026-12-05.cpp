// Sector traffic of permute_box's tiles (a host model, no device): for each "extents perm" line on
// standard input (argument: the element size), box_plan's tiles (every tile, or about 400 evenly
// spaced), the distinct 32-byte sectors a tile's loads touch (the aligned 16-byte chunks around each
// input run, as raw rows read them) and its stores touch, per byte of the tile's output (rd, wr), the
// share of written sectors the tile covers only in part (wpart) and the bytes of the input chunks
// per output byte (rchunk), all for pointers aligned to 256 bytes. docs/performance.md, sixty-third
// session. Built against a build of the tree:
//   g++ -std=c++20 -O2 -Isrc -Iinclude -DFMT_HEADER_ONLY=1 THIS.cpp build/src/libxpose.a \
//     build/src/libxpose_model.a -o sectors
//   build/tools/xpose plan --suite permute --dtype i8 | grep permute_box |
//     sed -E 's/^\[([0-9,]+)\] perm ([0-9,]+):.*/\1 \2/' | ./sectors 1
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include "box-cases-2026-12-05.hpp"
using namespace xpose::detail::gpu;
int main(int argc, char** argv) {
  const int s = std::stoi(argv[1]);
  std::string e, p;
  box_params bp;
  bool planned;
  while (next_box_case(s, &e, &p, &bp, &planned)) {
    if (!planned) { printf("%s %s none\n", e.c_str(), p.c_str()); continue; }
    const std::int64_t step = bp.tiles > 400 ? bp.tiles / 397 : 1;
    double bytes = 0, rsec = 0, wsec = 0, wpart = 0, rchunks = 0;
    std::int64_t ntiles = 0;
    for (std::int64_t tile = 0; tile < bp.tiles; tile += step) {
      const packed_origin o = packed_origin_of(bp, static_cast<std::uint32_t>(tile));
      const int rin = s * box_run_length(o, bp.run_in, bp.in_unit, bp.in_lim);
      const int rout = s * box_run_length(o, bp.run_out, bp.out_unit, bp.out_lim);
      std::unordered_set<std::int64_t> rs;
      for (int r = 0; r < bp.runs_in; ++r) {
        const box_run run = box_run_of(bp, true, r);
        if (!(o.full || packed_in_bounds(o, run.cut))) continue;
        const std::int64_t a = (o.in + run.off) * s, c0 = a & ~15LL, c1 = (a + rin + 15) & ~15LL;
        rchunks += (c1 - c0) / 16;
        for (std::int64_t c = c0; c < c1; c += 16) rs.insert(c >> 5);
      }
      std::unordered_map<std::int64_t, int> ws;
      for (int r = 0; r < bp.runs_out; ++r) {
        const box_run run = box_run_of(bp, false, r);
        if (!(o.full || packed_in_bounds(o, run.cut))) continue;
        const std::int64_t a = (o.out + run.off) * s;
        bytes += rout;
        for (std::int64_t b = a; b < a + rout; ++b) ws[b >> 5]++;
      }
      rsec += rs.size();
      wsec += ws.size();
      for (auto& kv : ws) wpart += kv.second < 32;
      ++ntiles;
    }
    printf("%s %s tiles=%lld oneshot=%d bulk=%d swz=%d wide=%d smem=%d vol=%d runs_in=%d runs_out=%d words=%d raw=%d run_in=%d run_out=%d rd=%.3f wr=%.3f wpart=%.3f rchunk=%.3f\n", e.c_str(),
           p.c_str(), (long long)bp.tiles, bp.one_shot, bp.bulk, bp.swizzle, bp.wide, bp.smem_bytes, bp.volume, bp.runs_in, bp.runs_out, bp.words, bp.raw, bp.run_in * s, bp.run_out * s, rsec * 32 / bytes, wsec * 32 / bytes,
           wpart / wsec, rchunks * 16 / bytes);
  }
}
