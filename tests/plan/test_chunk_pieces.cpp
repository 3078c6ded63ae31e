// The partial output chunk's aligned pieces (gpu/chunk_pieces.hpp), on the CPU exactly as the
// kernels' store_run_chunk runs them for bytes (wider elements stay element by element there; the
// functions take any size and are checked for all): for every element size, run length (1 to 70
// elements) and run misalignment, each chunk of the run gets the vector the converged gather builds
// (V elements from run_chunk_from, indices clamped in runs shorter than a chunk), rotated and
// stored piece by piece into a poisoned copy of the output (a run inside one chunk, partial at both
// ends, element by element as store_run_chunk does). Every piece must be naturally aligned and
// inside the chunk's bytes of the run, every byte of the run written exactly once with its own
// value, nothing else written, and no chunk may take more than four stores.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu/chunk_pieces.hpp"

namespace {

using namespace xpose::detail::gpu;

template <int S>
std::string check_runs() {
  constexpr int V = 16 / S;
  for (int len = 1; len <= 70; ++len) {
    for (int mis = 0; mis < 16; mis += S) {
      const int run_bytes = len * S;
      // Memory: a poisoned area with the run at byte 32 + mis (32 is 16-aligned).
      std::vector<int> mem(run_bytes + 96, -1);
      std::vector<int> writes(mem.size(), 0);
      std::vector<unsigned char> run(run_bytes);
      for (int b = 0; b < run_bytes; ++b) run[b] = static_cast<unsigned char>(17 * b + 3 * len + mis + 1);
      const int base = 32 + mis;
      for (int first = -mis; first < run_bytes; first += 16) {  // the run's chunks: first byte from the run's start
        const bool whole = first >= 0 && first + 16 <= run_bytes;
        if (whole) {
          for (int b = 0; b < 16; ++b) mem[base + first + b] = run[first + b], ++writes[base + first + b];
          continue;
        }
        // The converged gather's vector: V elements from `from`, indices clamped in short runs.
        const int from = run_chunk_from<S>(first, len);
        unsigned char vb[16];
        for (int i = 0; i < V; ++i) {
          const int k = len < V ? (i < len - 1 ? i : len - 1) : i;
          if (from + k < 0 || from + k >= len) return fmt::format("s {} len {} mis {}: gather outside the run", S, len, mis);
          std::memcpy(vb + i * S, run.data() + (from + k) * S, S);
        }
        const int lo = first < 0 ? -first : 0, hi = run_bytes - first < 16 ? run_bytes - first : 16;
        if (lo > 0 && hi < 16) {  // a run inside one chunk: store_run_chunk's element loop
          for (int b = lo; b < hi; ++b) mem[base + first + b] = run[first + b], ++writes[base + first + b];
          continue;
        }
        std::uint32_t w[4];
        std::memcpy(w, vb, 16);
        rotate_chunk(w, chunk_rotation(first, from * S));
        int pieces = 0;
        std::string err;
        store_chunk_end<S>(w, first < 0, hi - lo, [&](int at, std::uint64_t x, int bytes) {
          ++pieces;
          if (at % bytes || at < lo || at + bytes > hi) {
            err = fmt::format("s {} len {} mis {} first {}: a {}-byte piece at {} (bytes {}..{})", S, len, mis, first, bytes,
                              at, lo, hi);
            return;
          }
          for (int b = 0; b < bytes; ++b) {
            const int addr = base + first + at + b;
            mem[addr] = static_cast<int>((x >> (8 * b)) & 0xff);
            ++writes[addr];
          }
        });
        if (!err.empty()) return err;
        if (pieces > 4) return fmt::format("s {} len {} mis {} first {}: {} stores", S, len, mis, first, pieces);
      }
      for (int a = 0; a < static_cast<int>(mem.size()); ++a) {
        const bool in_run = a >= base && a < base + run_bytes;
        if (!in_run && writes[a]) return fmt::format("s {} len {} mis {}: byte {} outside the run written", S, len, mis, a - base);
        if (in_run && writes[a] != 1)
          return fmt::format("s {} len {} mis {}: run byte {} written {} times", S, len, mis, a - base, writes[a]);
        if (in_run && mem[a] != run[a - base])
          return fmt::format("s {} len {} mis {}: run byte {} is {}, not {}", S, len, mis, a - base, mem[a], run[a - base]);
      }
    }
  }
  return "";
}

TEST(ChunkPieces, EveryRunOfEveryElementSize) {
  EXPECT_EQ(check_runs<1>(), "");
  EXPECT_EQ(check_runs<2>(), "");
  EXPECT_EQ(check_runs<4>(), "");
  EXPECT_EQ(check_runs<8>(), "");
}

TEST(ChunkPieces, RotationMovesEveryByte) {
  for (int m = 0; m < 16; ++m) {
    unsigned char b[16];
    for (int i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(i * 11 + 5);
    std::uint32_t w[4];
    std::memcpy(w, b, 16);
    rotate_chunk(w, m);
    unsigned char r[16];
    std::memcpy(r, w, 16);
    for (int j = 0; j < 16; ++j) EXPECT_EQ(r[j], b[(j + m) % 16]) << "m " << m << " byte " << j;
  }
}

}  // namespace
