// The hardware half of the bank model: how sm_90 serves one warp's shared-memory request. Built
// into the library itself, since the planner uses it (permute_packed's padding choice,
// gpu/packed_tile.cpp); the rest of the model (bank_model.cpp, kernels.cpp) is the tools' library.
#include <algorithm>
#include <array>
#include <vector>

#include "model/bank_model.hpp"

namespace xpose::model {
namespace {

// The distinct 4-byte words the active lanes of [lane_begin, lane_end) touch, by bank (at most
// 32 lanes x 4 words), without sorting or allocating: the planner scores thousands of warps.
struct bank_words {
  std::array<int, kBanks> count{};
  std::array<std::array<std::int64_t, kWarpSize * 4>, kBanks> words;  // words[b][0, count[b])
};

// Fills `s`; returns the most distinct words any one bank holds and, in *bank, the lowest bank
// holding that many (-1 when no lane is active).
int collect(std::span<const lane_access> lanes, int lane_begin, int lane_end, bank_words& s, int* bank) {
  for (int l = lane_begin; l < lane_end; ++l) {
    const lane_access& a = lanes[l];
    if (!a.active) continue;
    for (int w = 0; w < a.words; ++w) {
      const std::int64_t word = a.first_word + w;
      const auto b = static_cast<std::size_t>(word % kBanks);
      auto& in_bank = s.words[b];
      const auto end = in_bank.begin() + s.count[b];
      if (std::find(in_bank.begin(), end, word) == end && s.count[b] < static_cast<int>(in_bank.size()))
        in_bank[static_cast<std::size_t>(s.count[b]++)] = word;
    }
  }
  int most = 0;
  *bank = -1;
  for (int b = 0; b < kBanks; ++b)
    if (s.count[b] > most) most = s.count[b], *bank = b;
  return most;
}

// Serves `lanes` (active ones only) as one group: each bank delivers one word per wavefront, lanes
// reading the same word share it (a broadcast for loads; for stores the byte masks of the lanes are
// merged, which is why 1- and 2-byte stores to neighbouring bytes of a word cost one wavefront: a
// warp storing 32 consecutive bytes takes 1 wavefront on the H200, not 4).
lane_group serve_group(std::span<const lane_access> lanes, int lane_begin, int lane_end) {
  bank_words s;
  lane_group g{lane_begin, lane_end, 0, -1, {}};
  g.wavefronts = collect(lanes, lane_begin, lane_end, s, &g.worst_bank);
  if (g.worst_bank >= 0) {
    const auto& w = s.words[static_cast<std::size_t>(g.worst_bank)];
    g.worst_words.assign(w.begin(), w.begin() + g.wavefronts);
    std::sort(g.worst_words.begin(), g.worst_words.end());
  }
  return g;
}

// The same group's wavefronts alone.
int serve_count(std::span<const lane_access> lanes, int lane_begin, int lane_end) {
  bank_words s;
  int bank = -1;
  return collect(lanes, lane_begin, lane_end, s, &bank);
}

bool any_active(std::span<const lane_access> lanes, int begin, int end) {
  for (int l = begin; l < end; ++l)
    if (lanes[l].active) return true;
  return false;
}

// True when every aligned group of 4 lanes in [begin, end) has at most 2 active lanes.
bool at_most_two_per_quad(std::span<const lane_access> lanes, int begin, int end) {
  for (int q = begin; q < end; q += 4) {
    int n = 0;
    for (int l = q; l < q + 4 && l < end; ++l) n += lanes[l].active ? 1 : 0;
    if (n > 2) return false;
  }
  return true;
}

}  // namespace

void place(lane_access& a, std::int64_t byte, int width) {
  a.active = true;
  a.byte = byte;
  a.width = width;
  a.first_word = byte / kBankBytes;
  a.words = static_cast<int>((byte + width - 1) / kBankBytes - a.first_word + 1);
  a.bank = static_cast<int>(a.first_word % kBanks);
}

const char* op_name(smem_op op) { return op == smem_op::kLoad ? "ld" : "st"; }

// How sm_90 serves one warp's request, as measured with Nsight Compute 2025.3 on the H200 (2,256
// single-warp probes of every width, load and store, lane mask and address pattern, plus about 1,500
// launches of the seed and tiled kernels; docs/banks.md):
//
//   * 1-, 2- and 4-byte accesses: the whole warp is one group. Ideal: 1 wavefront.
//   * Stores of 8 and 16 bytes: fixed groups of 128 bytes' worth of lanes, half-warps (8 bytes) or
//     quarter-warps (16 bytes); a group with no active lane costs nothing. Ideal: one wavefront per
//     group with an active lane, so a full warp's conflict-free STS.64 is 2 wavefronts, 0 conflicts.
//   * Loads of 8 bytes (the whole warp) and 16 bytes (each half-warp): when every aligned quad of
//     lanes has at most two active lanes, the lanes fit one 128-byte wavefront's slots and are served
//     as ONE group (ideal 1), even if they then conflict; otherwise they are split into the same
//     groups as stores. So four lanes 0, 8, 16, 24 reading 8 bytes 64 bytes apart cost 2 wavefronts
//     of which ncu counts 1 as a conflict, while lanes 0-3, 8-11, 16-19, 24-27 reading the same rows
//     cost 2 wavefronts and 0 conflicts.
//
// Conflicts = wavefronts - ideal, which is how Nsight Compute's data_bank_conflicts counter came out
// on every probe. (On busy launches ncu adds wavefronts from collisions with concurrent global
// traffic in the same L1 data banks; no access pattern explains those, see docs/banks.md.)
namespace {

// Calls add(begin, end) for each set of lanes the hardware serves together (rules above).
template <class Add>
void for_each_group(smem_op op, int width, std::span<const lane_access> lanes, Add&& add) {
  const int n = static_cast<int>(lanes.size());
  if (width <= kBankBytes) {
    add(0, n);
    return;
  }
  // 128 bytes of lanes: 16 lanes of 8 bytes, 8 lanes of 16 bytes.
  const int group = std::max(1, kWavefrontBytes / width);
  // Loads are first tried whole: the warp for 8 bytes, each half-warp for 16 bytes.
  const int unit = op == smem_op::kLoad ? std::min(n, 2 * group) : group;
  for (int u = 0; u < n; u += unit) {
    const int u_end = std::min(n, u + unit);
    if (op == smem_op::kLoad && at_most_two_per_quad(lanes, u, u_end)) {
      add(u, u_end);
      continue;
    }
    for (int g = u; g < u_end; g += group) add(g, std::min(u_end, g + group));
  }
}

}  // namespace

wavefront_count count_wavefronts(smem_op op, int width, std::span<const lane_access> lanes) {
  wavefront_count c;
  for_each_group(op, width, lanes, [&](int begin, int end) {
    if (!any_active(lanes, begin, end)) return;
    lane_group g = serve_group(lanes, begin, end);
    c.wavefronts += g.wavefronts;
    c.ideal += 1;
    c.groups.push_back(std::move(g));
  });
  return c;
}

int count_wavefronts_total(smem_op op, int width, std::span<const lane_access> lanes) {
  int total = 0;
  for_each_group(op, width, lanes, [&](int begin, int end) {
    if (any_active(lanes, begin, end)) total += serve_count(lanes, begin, end);
  });
  return total;
}

}  // namespace xpose::model
