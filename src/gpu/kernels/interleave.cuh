// interleave: narrow transposes with a short side of 2..16, 32, 48 or 64 elements of 1 to 8 bytes, e.g.
// 3 x 10000001 bytes -> 10000001 x 3, or the reverse. With R the short side and N the long one:
//   zip   (WideIn: R input rows of N elements, ld_in anything; output N x R dense): the R rows are
//         interleaved into one contiguous run, out[x * R + r] = in[r * ld_in + x];
//   unzip (input N x R dense; R output rows, ld_out anything): the run is split into R rows.
//
// Why a kernel of its own: `narrow` and `permute_box` move such shapes through shared memory one
// element per access, with the short side a run-time number, and the odd long sides cost them most:
// i8 3 x 10000001 42.5%, 16 x 10000001 54.7%, 10000001 x 16 58.1%, 10^7 x 2 63.4% of copy (H200,
// docs/performance.md "Twenty-first session"). Here R is a compile-time constant, so a thread's V x R
// block (V = 16 / S elements of the long side: R 16-byte vectors on the dense side, one vector per
// row on the other) is transposed in registers by byte permutes whose selectors are constants, and
// every global access is an aligned 16-byte vector whatever the rows' misalignment:
//   - a warp moves a tile of 32 such blocks (32 V elements of the long side; lane l the l-th);
//   - the dense side (32 R vectors, contiguous) goes through the warp's shared buffer, so that its
//     global accesses are linear (coalesced) while each lane reads or writes its own R vectors
//     there; lane l's vector v sits in slot l * RP + v, RP = R rounded up to odd, so the 8 lanes of
//     a lane-indexed 16-byte access fall in 8 different bank groups (the linear accesses skip a slot
//     at each lane boundary for even R: the bank model prices them at up to twice the wavefronts for
//     R = 2, 4, 6, tests/model BankModelHardware.InterleaveDenseSideSlots; the XOR swizzle of
//     InterleaveSwizzledSlotsConflictFree is conflict-free both ways by the model, not yet measured);
//   - the row side: row r starts s_r = r * ld mod V elements past a 16-byte boundary (the same for
//     every lane). Zip reads each row's 33 aligned chunks that cover the tile into shared memory
//     (cp.async: no registers held while in flight), and lane l joins chunks l and l + 1 with a funnel
//     shift. Unzip has each lane store the aligned chunk that holds the end of its own vector and
//     the start of the next lane's (a shuffle): lanes 0..30 store whole chunks, and lane 31 only
//     lends its vector, its block being the next tile's first (such tiles step by 31 blocks; where
//     every row is aligned, by 32, every lane storing its own vectors). So every output chunk is
//     one 16-byte store; only a row's first chunk is written in aligned pieces (by tile 0), and
//     nothing outside the row is written. (A first version stepped by 32 blocks and had lanes 0 and
//     31 store the two chunks shared with the neighbouring tiles as pieces: rows with odd leading
//     dimensions ran at 54-94% of copy, against 88-105% for aligned ones.)
// Measured on the H200 against the kernels auto ran before (docs/performance.md "Twenty-fifth
// session"): i8 3 x 10000001 42 -> 99% of copy, 10^7 x 2 66 -> 93, f16 2 x 10000001 56 -> 111, f64
// 16 x 10000001 81 -> 92; where it lost (whole long sides with 8 or 16 rows, where reg_batch and
// permute_packed move whole 16 x 16-byte blocks) auto keeps those (kNarrowRules, plan/narrow_rules.cpp).
// The last tiles (within 33 V elements of the end) are moved element by element, as are whole
// matrices too short for one tile.
//
// Short sides of 32, 48 and 64 (G = 2, 3, 4 groups of RG = 16 rows; twenty-sixth session): 64 rows
// would be 256 words a lane, so each group of 16 rows takes 32 / G lanes (P of them: 16, 10, 8) and
// a tile is P blocks. Lane (g, b) transposes rows 16 g .. 16 g + 15 of block b exactly as a short side
// of 16 would (the same byte map), and its 16 vectors are the group's part of each long-side element:
// 16 S bytes, whole vectors, at k g within the element's R S / 16 (interleave_dense_index in
// kernels/tile_shapes.hpp, checked on the CPU by tests/model). The row side's R (P + 1) chunks are
// spread over the whole warp; unzip's tiles step by P - 1 blocks where rows are unaligned (one lent
// block in P: 10000001 x 64 i8 75% of copy against 89 for 10^7 x 64; tiles of 32 blocks in G passes
// lent one in 32 but ran at 38-66%, the halves of boundary sectors written microseconds apart:
// docs/performance.md "Twenty-sixth session"). Everything else is the one-group kernel's, with 32
// replaced by P.
//
// Launch: block kInterleaveThreads, grid ceil(tiles / warps per block), one tile per warp. Static
// shared memory: max(R (P + 1), P RP) 16-byte slots per warp. Needs 16-byte aligned pointers, one matrix
// (batch 1), and the short side dense (configure_interleave).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "gpu/common.cuh"
#include "gpu/kernels/chunk_ops.cuh"  // funnel_down, copy_chunk_async
#include "gpu/kernels/tile_shapes.hpp"

namespace xpose::detail::gpu {

// Block shape and row groups: kInterleaveThreads and interleave_groups in kernels/tile_shapes.hpp.
// R = 16 takes 34 KiB of static shared memory (4 warps x 544 slots), under the 48 KiB a block may
// have without opting in (R = 64: 36 KiB), and 80-122 registers a thread, so 4-6 blocks fit an SM.

namespace ilv {

template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
  }(std::make_integer_sequence<int, N>{});
}

// Where byte j of the thread's output words comes from in its input words (both flat arrays of 4 R
// words): zip's input word 4 r + k holds row r's elements, its output the dense run; unzip the
// reverse.
template <int S, int R, bool Zip>
struct byte_map {
  static constexpr int src(int j) {  // source byte index in the flat input words
    if constexpr (Zip) {
      const int q = j / S, c = q / R, r = q % R;  // dense element q = c * R + r: column c of row r
      return r * 16 + c * S + j % S;
    } else {
      const int r = j / 16, c = (j % 16) / S;  // output row r, its element c = dense element c * R + r
      return (c * R + r) * S + j % S;
    }
  }
};

// Output word J / 4 (bytes J .. J + 3) from the input words w: one move, one permute when the
// four bytes come from at most two words, else three permutes.
template <class M, int J>
__device__ __forceinline__ std::uint32_t gather_word(const std::uint32_t* w) {
  constexpr int p0 = M::src(J), p1 = M::src(J + 1), p2 = M::src(J + 2), p3 = M::src(J + 3);
  constexpr int w0 = p0 / 4, w1 = p1 / 4, w2 = p2 / 4, w3 = p3 / 4;
  constexpr int wb = w1 != w0 ? w1 : w2 != w0 ? w2 : w3;  // a second word, if any
  if constexpr (p0 % 4 == 0 && p1 == p0 + 1 && p2 == p0 + 2 && p3 == p0 + 3) {
    return w[w0];
  } else if constexpr ((w1 == w0 || w1 == wb) && (w2 == w0 || w2 == wb) && (w3 == w0 || w3 == wb)) {
    constexpr unsigned sel = (p0 % 4) | (w1 == w0 ? p1 % 4 : 4 + p1 % 4) << 4 |
                             (w2 == w0 ? p2 % 4 : 4 + p2 % 4) << 8 | (w3 == w0 ? p3 % 4 : 4 + p3 % 4) << 12;
    return __byte_perm(w[w0], w[wb], sel);
  } else {
    const std::uint32_t lo = __byte_perm(w[w0], w[w1], (p0 % 4) | (4 + p1 % 4) << 4);
    const std::uint32_t hi = __byte_perm(w[w2], w[w3], (p2 % 4) | (4 + p3 % 4) << 4);
    return __byte_perm(lo, hi, 0x5410);
  }
}

// The 16 output bytes J .. J + 15.
template <class M, int J>
__device__ __forceinline__ uint4 gather_vec(const std::uint32_t* w) {
  return make_uint4(gather_word<M, J>(w), gather_word<M, J + 4>(w), gather_word<M, J + 8>(w),
                    gather_word<M, J + 12>(w));
}

__device__ __forceinline__ uint4 shfl_down_vec(const uint4& v) {
  return make_uint4(__shfl_down_sync(0xffffffffu, v.x, 1), __shfl_down_sync(0xffffffffu, v.y, 1),
                    __shfl_down_sync(0xffffffffu, v.z, 1), __shfl_down_sync(0xffffffffu, v.w, 1));
}

// Bytes [from, to) of v into the 16-byte aligned chunk c, as naturally aligned pieces of 8, 4, 2
// and 1 bytes (at most four for a head or a tail). It repeats what chunk_pieces.hpp's
// store_chunk_end does (host-tested); folding it into that is left for a session that can re-run the
// GPU tests (this one's device time was spent after the tests of the code as it stands).
__device__ __forceinline__ void store_chunk_bytes(unsigned char* c, const uint4& v, int from, int to) {
  for (int o = from; o < to;) {
    int p = 8;
    while (p > 1 && ((o & (p - 1)) || o + p > to)) p >>= 1;
    const uint4 r = funnel_down(v, v, o);  // byte o first
    if (p == 8) *reinterpret_cast<std::uint64_t*>(c + o) = static_cast<std::uint64_t>(r.y) << 32 | r.x;
    else if (p == 4) *reinterpret_cast<std::uint32_t*>(c + o) = r.x;
    else if (p == 2) *reinterpret_cast<std::uint16_t*>(c + o) = static_cast<std::uint16_t>(r.x);
    else c[o] = static_cast<unsigned char>(r.x);
    o += p;
  }
}

}  // namespace ilv

template <int S, int R, bool WideIn>
__global__ void __launch_bounds__(kInterleaveThreads)
    interleave_kernel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, matrix_view m) {
  static_assert(S == 1 || S == 2 || S == 4 || S == 8);
  static_assert(interleave_short_side(R));
  constexpr int V = 16 / S;                 // long-side elements per block (one vector of a row)
  constexpr int G = interleave_groups(R);   // row groups
  constexpr int RG = R / G;                 // rows a lane holds
  constexpr int P = interleave_tile_blocks(R);  // lanes a group has: the tile's blocks
  constexpr int A = P * G;                  // lanes with a block (30 for R = 48)
  constexpr int RP = R | 1;                 // slots per block in the dense-side buffer (odd)
  constexpr int kWarps = kInterleaveThreads / 32;
  constexpr int kRowSlots = R * (P + 1), kDense = P * R;  // the row side's chunks; the dense side's vectors
  constexpr int kSlots = kRowSlots > P * RP ? kRowSlots : P * RP;
  using M = ilv::byte_map<S, RG, WideIn>;
  __shared__ uint4 stage[kWarps][kSlots];
  auto slot = [](int q) { return interleave_slot<R>(q); };  // dense-run vector q's slot

  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const bool active = G == 1 || lane < A;
  // Lane (g, b) moves rows g RG .. g RG + RG - 1 of block b; idle lanes shadow the last active one
  // (they take part in the warp's copies and shuffles but store nothing of their own). One group:
  // lane l, block l (spelt so, the one-group kernels compile to the code measured before groups).
  const int g = G == 1 ? 0 : active ? lane / P : G - 1, b = G == 1 ? lane : active ? lane % P : P - 1;
  uint4* buf = stage[warp];
  const std::int64_t n = WideIn ? m.cols : m.rows;        // the long extent
  const std::int64_t ld = WideIn ? m.ld_in : m.ld_out;    // the row side's leading dimension
  // Long-side elements a tile steps by: P blocks, but P - 1 for unzip into rows that are not all
  // aligned: there a group's last lane only lends its vector to the lane before (the next tile's
  // first lane moves that block), so that every aligned chunk of an output row is stored whole by one lane.
  const bool lend = !WideIn && ld % V != 0;
  const std::int64_t step = (lend ? P - 1 : P) * V;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
  const std::int64_t x0w = t * step;                       // the tile's first long-side element
  if (x0w >= n) return;
  const std::int64_t x0 = x0w + b * V;                     // this lane's block

  // A tile is fast when its P blocks (and zip's extra aligned chunk of each row) lie inside the
  // matrix. The others, the last one or two, go element by element over the blocks they own
  // (warp-uniform); behind a fast unzip tile, each row's first V - s_r elements are already stored
  // (the fast tile's lane P - 2 of the row's group stored that chunk whole).
  auto fast = [&](std::int64_t x) { return x + P * V + (WideIn ? V : 0) <= n; };
  if (!fast(x0w)) {
    if (!active || b * V >= step) return;
    const bool behind_fast = lend && t > 0 && fast(x0w - step);
#pragma unroll
    for (int rr = 0; rr < RG; ++rr) {
      const int r = g * RG + rr;
      const int s = static_cast<int>((r * ld) & (V - 1));
      const std::int64_t from = behind_fast && s != 0 ? x0w + V - s : x0w;
      for (int c = 0; c < V; ++c) {
        const std::int64_t x = x0 + c;
        if (x >= n) break;
        if (x < from) continue;
        const std::int64_t src = WideIn ? r * ld + x : x * R + r, dst = WideIn ? x * R + r : r * ld + x;
        memcpy(out + dst * S, in + src * S, S);
      }
    }
    return;
  }

  std::uint32_t w[4 * RG];  // the block: row r's vector (zip) or the dense side's vector r (unzip)
  if constexpr (WideIn) {
    // Rows: the P + 1 aligned chunks of row r from element x0w - s_r, into slots r (P + 1) + k.
    if constexpr (G == 1) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int s = static_cast<int>((r * ld) & (V - 1));
        const unsigned char* row = in + (r * ld + x0w - s) * S;
        copy_chunk_async(&buf[r * 33 + lane], row + lane * 16);
        if (s != 0 && lane == 0) copy_chunk_async(&buf[r * 33 + 32], row + 32 * 16);
      }
    } else {  // the R (P + 1) chunks spread over the whole warp
#pragma unroll
      for (int i = 0; i < (kRowSlots + 31) / 32; ++i) {
        const int c = i * 32 + lane, r = c / (P + 1), k = c % (P + 1);
        const int s = static_cast<int>((r * ld) & (V - 1));
        if ((kRowSlots % 32 == 0 || c < kRowSlots) && (k < P || s != 0))
          copy_chunk_async(&buf[c], in + (r * ld + x0w - s) * S + k * 16);
      }
    }
    wait_chunks_async();
    __syncwarp();
#pragma unroll
    for (int rr = 0; rr < RG; ++rr) {
      const int r = g * RG + rr;
      const int s = static_cast<int>((r * ld) & (V - 1));
      uint4 v = buf[r * (P + 1) + b];
      if (s != 0) v = funnel_down(v, buf[r * (P + 1) + b + 1], s * S);
      w[4 * rr] = v.x, w[4 * rr + 1] = v.y, w[4 * rr + 2] = v.z, w[4 * rr + 3] = v.w;
    }
    __syncwarp();  // every lane has its rows before the buffer takes the dense side
    if (active)
      ilv::static_for<RG>([&](auto v) {
        constexpr int vi = decltype(v)::value;
        if constexpr (G == 1) buf[b * RP + vi] = ilv::gather_vec<M, 16 * vi>(w);
        else buf[slot(interleave_dense_index<S, R>(b, g, vi))] = ilv::gather_vec<M, 16 * vi>(w);
      });
    __syncwarp();
    unsigned char* run = out + x0w * R * S;  // the tile's dense output: P R vectors
#pragma unroll
    for (int i = 0; i < (kDense + 31) / 32; ++i) {
      const int q = i * 32 + lane;
      if (kDense % 32 == 0 || q < kDense) store_vec16(run + q * 16, buf[slot(q)]);
    }
  } else {
    const unsigned char* run = in + x0w * R * S;  // the tile's dense input: P R vectors
#pragma unroll
    for (int i = 0; i < (kDense + 31) / 32; ++i) {
      const int q = i * 32 + lane;
      if (kDense % 32 == 0 || q < kDense) copy_chunk_async(&buf[slot(q)], run + q * 16);
    }
    wait_chunks_async();
    __syncwarp();
#pragma unroll
    for (int v = 0; v < RG; ++v) {
      const uint4 d = buf[G == 1 ? b * RP + v : slot(interleave_dense_index<S, R>(b, g, v))];
      w[4 * v] = d.x, w[4 * v + 1] = d.y, w[4 * v + 2] = d.z, w[4 * v + 3] = d.w;
    }
    ilv::static_for<RG>([&](auto rc) {
      constexpr int rr = decltype(rc)::value;
      const int r = g * RG + rr;  // a constant when G = 1
      const uint4 o = ilv::gather_vec<M, 16 * rr>(w);
      const int s = static_cast<int>((r * ld) & (V - 1));
      unsigned char* p = out + (r * ld + x0) * S;  // this lane's vector of row r, s elements past a chunk
      // The next lane's vector (the rest of the aligned chunk after p). Where rows are unaligned
      // (lend) every lane shuffles, the groups' rows differing in s; with one group s is the same
      // across the warp and only rows with s != 0 shuffle.
      if constexpr (G == 1) {
        if (s == 0) {
          if (!lend || b < P - 1) store_vec16(p, o);
        } else {
          const int sh = s * S;  // bytes
          const uint4 next = ilv::shfl_down_vec(o);
          // The aligned chunk after p holds the vector's last sh bytes, then the next lane's first.
          if (b < P - 1) store_vec16(p + 16 - sh, funnel_down(o, next, 16 - sh));
          // The row's first chunk (tile 0 only): the row's first 16 - sh bytes, at its end.
          if (b == 0 && t == 0) ilv::store_chunk_bytes(p - sh, funnel_down(o, o, 16 - sh), sh, 16);
        }
      } else {  // the same, but every lane shuffles (the groups' rows differ in s) and idle lanes store nothing
        const uint4 next = lend ? ilv::shfl_down_vec(o) : o;
        if (!active) {
        } else if (s == 0) {
          if (!lend || b < P - 1) store_vec16(p, o);
        } else {
          const int sh = s * S;
          if (b < P - 1) store_vec16(p + 16 - sh, funnel_down(o, next, 16 - sh));
          if (b == 0 && t == 0) ilv::store_chunk_bytes(p - sh, funnel_down(o, o, 16 - sh), sh, 16);
        }
      }
    });
  }
}

// Grouped unzip (R of 32-64) into rows that are not all aligned, a tile per block (where
// interleave_block_tiles says so, tile_shapes.hpp): the four warps move four consecutive pieces of P
// blocks at once, and a group's last lane takes the next block's row vectors from the next warp,
// whose group lane 0 leaves them in shared memory before one __syncthreads. Only the block's last
// block is lent (one in 4 P: 32, or 40 for R = 48) where interleave_kernel lends one in P, and the
// halves of every sector at a piece boundary are written by concurrent warps (the passes form of the
// twenty-sixth session wrote them microseconds apart and ran at 41-66% of copy). H200, by name, % of
// copy against interleave_kernel: 10000001 x 64 i8 80.4 / 74.8, f16 82.8 / 77.1, f32 82.1 / 74.7, f64
// 80.2 / 74.2 (docs/performance.md "Twenty-seventh session"). 94-96 registers, no spills.
template <int S, int R>
__global__ void __launch_bounds__(kInterleaveThreads)
    interleave_unzip_handoff_kernel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                    matrix_view m) {
  constexpr int V = 16 / S, G = interleave_groups(R), RG = R / G, P = interleave_tile_blocks(R), A = P * G;
  constexpr int RP = R | 1, kWarps = kInterleaveThreads / 32, kDense = P * R, kBlocks = kWarps * P;
  static_assert(G > 1);
  using M = ilv::byte_map<S, RG, false>;
  __shared__ uint4 stage[kWarps][P * RP];
  __shared__ uint4 handoff[kWarps][R];  // each warp's first block, as R row vectors
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const bool active = lane < A;
  const int g = active ? lane / P : G - 1, b = active ? lane % P : P - 1;
  uint4* buf = stage[warp];
  const std::int64_t n = m.rows, ld = m.ld_out;
  const std::int64_t step = (kBlocks - 1) * V;  // the block's last block is only lent
  const std::int64_t tile = blockIdx.x, x0b = tile * step;
  if (x0b >= n) return;  // uniform over the block, as is `fast`
  const std::int64_t x0w = x0b + warp * P * V, x0 = x0w + b * V;
  auto fast = [&](std::int64_t x) { return x + kBlocks * V <= n; };
  if (!fast(x0b)) {
    if (!active || x0 - x0b >= step) return;
    const bool behind_fast = tile > 0 && fast(x0b - step);
#pragma unroll
    for (int rr = 0; rr < RG; ++rr) {
      const int r = g * RG + rr;
      const int s = static_cast<int>((r * ld) & (V - 1));
      const std::int64_t from = behind_fast && s != 0 ? x0b + V - s : x0b;
      for (int c = 0; c < V; ++c) {
        const std::int64_t x = x0 + c;
        if (x >= n) break;
        if (x < from) continue;
        memcpy(out + (r * ld + x) * S, in + (x * R + r) * S, S);
      }
    }
    return;
  }
  const unsigned char* run = in + x0w * R * S;  // the warp's dense input: P R vectors
#pragma unroll
  for (int i = 0; i < (kDense + 31) / 32; ++i) {
    const int q = i * 32 + lane;
    if (kDense % 32 == 0 || q < kDense) copy_chunk_async(&buf[interleave_slot<R>(q)], run + q * 16);
  }
  wait_chunks_async();
  __syncwarp();
  std::uint32_t w[4 * RG];
#pragma unroll
  for (int v = 0; v < RG; ++v) {
    const uint4 d = buf[interleave_slot<R>(interleave_dense_index<S, R>(b, g, v))];
    w[4 * v] = d.x, w[4 * v + 1] = d.y, w[4 * v + 2] = d.z, w[4 * v + 3] = d.w;
  }
  if (b == 0 && active)
    ilv::static_for<RG>([&](auto rc) {
      constexpr int rr = decltype(rc)::value;
      handoff[warp][g * RG + rr] = ilv::gather_vec<M, 16 * rr>(w);
    });
  __syncthreads();
  const bool last = warp == kWarps - 1 && b == P - 1;
  ilv::static_for<RG>([&](auto rc) {
    constexpr int rr = decltype(rc)::value;
    const int r = g * RG + rr;
    const uint4 o = ilv::gather_vec<M, 16 * rr>(w);
    const int s = static_cast<int>((r * ld) & (V - 1));
    unsigned char* p = out + (r * ld + x0) * S;
    uint4 next = ilv::shfl_down_vec(o);
    if (b == P - 1 && warp < kWarps - 1) next = handoff[warp + 1][r];
    if (!active) {
    } else if (s == 0) {
      if (!last) store_vec16(p, o);
    } else {
      const int sh = s * S;
      if (!last) store_vec16(p + 16 - sh, funnel_down(o, next, 16 - sh));
      if (b == 0 && warp == 0 && tile == 0) ilv::store_chunk_bytes(p - sh, funnel_down(o, o, 16 - sh), sh, 16);
    }
  });
}

}  // namespace xpose::detail::gpu
