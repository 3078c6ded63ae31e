// tma_tile: the 2-D transpose through Hopper's bulk tensor copy engine (TMA), on a persistent grid.
//
// Why: fast_tile and reg_tile stop at 87-91% of copy on large matrices (docs/performance.md). Each of
// their blocks loads a tile, synchronises, stores it and only then loads the next, so the bytes in
// flight per SM drop whenever many blocks are in their store phase. Here the copy engine loads tiles
// several stages ahead into shared memory and stores finished tiles from shared memory, both
// asynchronously; the threads only move bytes from the input tile to the output tile in shared
// memory, transposing them in registers on the way.
//
// Geometry. A tile is TR x TC elements (input rows x input cols) with TR * S = NPO * 128 bytes and
// TC * S = NPI * 128 bytes: NPI 128-byte "panels" side by side on the input side, NPO on the output
// side. The engine moves one panel per bulk copy, a box 128 bytes wide, swizzled by 128 bytes: in a
// panel, row r's 16-byte chunk c sits at chunk position c ^ (r % 8) (the panel starts on a 1024-byte
// boundary, as the swizzle needs). Rows are 128 bytes on both sides, so DRAM sees whole lines only.
//
// Threads move micro-blocks of K x K elements, K = 16 / S: K input rows of one 16-byte chunk each
// (K 16-byte shared loads), transposed in registers (S = 4, 8, 16: register renaming; S = 2: 32
// byte permutes; S = 1: 128 byte permutes for 16 x 16 bytes), stored as K 16-byte chunks of K output
// rows. That is 2 shared accesses per 16 bytes for every element size (fast_tile: 2 to 32).
//
// Banks. Micro-blocks form 8 x 8 groups (row block j, chunk c). A quarter-warp (the 8 lanes one
// 16-byte access serves per wavefront) takes lanes l = 0..7 at (j, c) = ((l + d) % 8, l) for K >= 2
// and (l, d) for K = 1, d the quarter's diagonal. With the 128-byte swizzle both the loads
// (chunk c ^ ((K*j + k) % 8)) and the stores (chunk j ^ ((K*c + k) % 8)) then hit 8 distinct
// 16-byte bank groups: conflict-free for every K (tma_layout.hpp holds the map and the offsets;
// tests/model/test_bank_model.cpp TmaTileLanes counts every access with the bank model's hardware rule).
//
// Pipeline (one block, NS input stages, NO output buffers; thread 0 drives the engine):
//   prologue: thread 0 starts the loads of the block's first NS tiles, each completing on its
//             stage's mbarrier (transaction bytes);
//   tile i:   every thread waits for stage i % NS, transposes it into output buffer i % NO, fences
//             the async proxy; thread 0 waits until the store of output buffer (i + 1) % NO (tile
//             i + 1 - NO) has read its shared memory; one __syncthreads; thread 0 starts the store
//             of tile i and the load of tile i + NS into the freed stage.
// One barrier per tile. Edges need no code: the engine fills out-of-range input with zeros and
// clips out-of-range output, so the zeros it transposes land outside the output. It clips stores
// at 16-byte granularity along the contiguous dim, though, so output rows must be whole 16-byte
// units (else it writes into a padded output's padding; configure_tma_tile refuses them).
//
// Tiles are visited in bands of `group` tile rows, column by column inside a band (as reg_tile,
// gpu/geometry.hpp raster_tile), so the blocks running at one time touch a compact region of both
// matrices; tile t goes to block t % grid.
//
// Launch: block NT threads, grid min(tiles, blocks per SM x SMs), dynamic shared memory
// (NS + NO) x tile bytes + 1024 (alignment). Needs 16-byte aligned pointers, leading dimensions,
// batch stride and output rows in whole 16-byte units, and one batch dim at most
// (configure_tma_tile checks).
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>

#include "gpu/common.cuh"
#include "gpu/kernels/bulk_ops.cuh"
#include "gpu/kernels/tma_layout.hpp"
#include "gpu/tickets.hpp"

namespace xpose::detail::gpu {

// Runtime arguments of the kernel (the tensor maps travel separately, as __grid_constant__).
struct tma_tile_args {
  std::int64_t tiles_r = 1, tiles_c = 1;  // tiles down the input's rows and across its columns
  std::int64_t tiles = 1;                 // tiles_r * tiles_c * batch
  std::int64_t rows = 1, cols = 1;        // the matrix (input rows x input cols)
  int group = 1;                          // tile rows per raster band
  int stages = 2;                         // input stages (dynamic shared memory), 2 to 8
  // Optional: {next tile, blocks done}, zero before the launch; blocks then claim tiles in the order
  // they ask for them, and the last block resets both. Null: block b takes tiles b, b + grid, ...
  unsigned long long* ticket = nullptr;
};

namespace tma {

// Loads box (x, y, z) of `map` into shared memory at dst, completing on bar.
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap* map, int x, int y, int z, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(smem_addr(bar))
      : "memory");
}

// Stores shared memory at src to box (x, y, z) of `map` (part of the current bulk group).
__device__ __forceinline__ void store_box(const CUtensorMap* map, int x, int y, int z, const void* src) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x), "r"(y), "r"(z), "r"(smem_addr(src))
               : "memory");
}

__device__ __forceinline__ void commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most N bulk groups still read shared memory / are still in flight.
template <int N>
__device__ __forceinline__ void wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void wait_group_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }


__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

__device__ __forceinline__ uint4 lds128(std::uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void sts128(std::uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// Transposes a K x K micro-block held as K 16-byte rows (in[k] = input row k) into K 16-byte rows of
// the output (out[k] = input column k), for K = 16 / S.
template <int S>
__device__ __forceinline__ void transpose_micro(const uint4 (&in)[16 / S], uint4 (&out)[16 / S]) {
  constexpr int K = 16 / S;
  if constexpr (S == 16) {
    out[0] = in[0];
  } else if constexpr (S == 8) {
    out[0] = make_uint4(in[0].x, in[0].y, in[1].x, in[1].y);
    out[1] = make_uint4(in[0].z, in[0].w, in[1].z, in[1].w);
  } else if constexpr (S == 4) {
    out[0] = make_uint4(in[0].x, in[1].x, in[2].x, in[3].x);
    out[1] = make_uint4(in[0].y, in[1].y, in[2].y, in[3].y);
    out[2] = make_uint4(in[0].z, in[1].z, in[2].z, in[3].z);
    out[3] = make_uint4(in[0].w, in[1].w, in[2].w, in[3].w);
  } else if constexpr (S == 2) {
    // out[k] word w = halves (row 2w, col k) and (row 2w + 1, col k).
#pragma unroll
    for (int k = 0; k < K; ++k) {
      std::uint32_t w[4];
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const uint4& a = in[2 * p];
        const uint4& b = in[2 * p + 1];
        const std::uint32_t wa = (k / 2 == 0) ? a.x : (k / 2 == 1) ? a.y : (k / 2 == 2) ? a.z : a.w;
        const std::uint32_t wb = (k / 2 == 0) ? b.x : (k / 2 == 1) ? b.y : (k / 2 == 2) ? b.z : b.w;
        w[p] = __byte_perm(wa, wb, (k % 2) ? 0x7632 : 0x5410);
      }
      out[k] = make_uint4(w[0], w[1], w[2], w[3]);
    }
  } else {
    static_assert(S == 1);
    // 4 x 4 byte blocks: rows 4w..4w+3 (word m of each) -> columns 4m..4m+3 (word w of each).
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      std::uint32_t y[4][4];  // y[b][w]: output row 4m + b, word w
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        std::uint32_t x[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const uint4& r = in[4 * w + i];
          x[i] = (m == 0) ? r.x : (m == 1) ? r.y : (m == 2) ? r.z : r.w;
        }
        const std::uint32_t u0 = __byte_perm(x[0], x[1], 0x5140), u1 = __byte_perm(x[0], x[1], 0x7362);
        const std::uint32_t v0 = __byte_perm(x[2], x[3], 0x5140), v1 = __byte_perm(x[2], x[3], 0x7362);
        y[0][w] = __byte_perm(u0, v0, 0x5410);
        y[1][w] = __byte_perm(u0, v0, 0x7632);
        y[2][w] = __byte_perm(u1, v1, 0x5410);
        y[3][w] = __byte_perm(u1, v1, 0x7632);
      }
#pragma unroll
      for (int b = 0; b < 4; ++b) out[4 * m + b] = make_uint4(y[b][0], y[b][1], y[b][2], y[b][3]);
    }
  }
}

}  // namespace tma

// Tile t -> (batch, tile row, tile col): matrix by matrix, each in raster_tile's bands.
__device__ __forceinline__ void tma_tile_coords(const tma_tile_args& a, std::int64_t t, int* b, int* tr, int* tc) {
  const std::int64_t per_mat = a.tiles_r * a.tiles_c;
  std::int64_t bx, by;
  raster_tile(t % per_mat, a.tiles_c, a.tiles_r, a.group, &bx, &by);
  *b = static_cast<int>(t / per_mat);
  *tr = static_cast<int>(by);
  *tc = static_cast<int>(bx);
}

// S: element bytes. The tensor maps count elements in units of U = min(S, 8) bytes (a 16-byte element
// is two 8-byte units), so a panel is 128 / U units wide.
template <int S, int NPO, int NPI, int NT, int NO>
__global__ void __launch_bounds__(NT) tma_tile_kernel(const __grid_constant__ CUtensorMap map_in,
                                                      const __grid_constant__ CUtensorMap map_out, tma_tile_args a) {
  constexpr int K = 16 / S;                   // micro-block side
  constexpr int U = S < 8 ? S : 8, E = S / U;  // unit bytes, units per element
  constexpr int TR = NPO * 128 / S, TC = NPI * 128 / S;
  constexpr int kInPanel = TR * 128, kOutPanel = TC * 128;  // bytes
  constexpr int kTile = TR * TC * S;
  constexpr int kGroups = NPO * NPI;          // 8 x 8 micro-block groups
  constexpr int kMicro = kGroups * 64;
  static_assert(kMicro % NT == 0, "every thread moves the same number of micro-blocks");
  static_assert(TR <= 256 && TC <= 256, "a bulk-copy box is at most 256 rows");
  constexpr int kMaxStages = 8;

  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) std::uint64_t full[kMaxStages];
  unsigned char* smem = smem_raw + ((1024 - (tma::smem_addr(smem_raw) & 1023)) & 1023);
  const int ns = a.stages;
  unsigned char* out_buf = smem + ns * kTile;

  const int tid = threadIdx.x;
  const std::int64_t grid = gridDim.x;

  // Starts the loads of tile t into stage s: the panels that begin inside the matrix.
  auto load_tile = [&](std::int64_t t, int s) {
    int b, tr, tc;
    tma_tile_coords(a, t, &b, &tr, &tc);
    const std::int64_t col0 = static_cast<std::int64_t>(tc) * TC, row0 = static_cast<std::int64_t>(tr) * TR;
    const std::int64_t left = a.cols - col0;
    const int np = left >= TC ? NPI : static_cast<int>((left * S + 127) / 128);
    tma::mbar_expect_tx(&full[s], np * kInPanel);
    for (int p = 0; p < np; ++p)
      tma::load_box(smem + s * kTile + p * kInPanel, &map_in, static_cast<int>((col0 + p * (128 / S)) * E),
                    static_cast<int>(row0), b, &full[s]);
  };

  // Tile claims: tile_of[s] is the tile stage s holds (>= a.tiles: none). With a ticket, thread 0
  // claims tiles from the global counter in the order blocks ask (see tma_tile_args::ticket);
  // without one, block b takes tiles b, b + grid, ...
  __shared__ std::int64_t tile_of[kMaxStages];
  std::int64_t claims = 0;  // thread 0's claims so far
  auto claim = [&]() -> std::int64_t {
    if (a.ticket) return static_cast<std::int64_t>(atomicAdd(a.ticket, 1ull));
    return blockIdx.x + (claims++) * grid;
  };

  if (tid == 0) {
    tma::prefetch_map(&map_in);
    tma::prefetch_map(&map_out);
    for (int s = 0; s < ns; ++s) tma::mbar_init(&full[s], 1);
    tma::fence_mbar_init();
    bool more = true;
    for (int s = 0; s < ns; ++s) {
      const std::int64_t t = more ? claim() : a.tiles;
      more = t < a.tiles;
      tile_of[s] = t;
      if (more) load_tile(t, s);
    }
  }
  __syncthreads();

  // tile_of[s] is rewritten by thread 0 after the barrier of the tile it held and read again ns >= 2
  // tiles later, after at least one more barrier.
  for (int i = 0;; ++i) {
    const int s = i % ns, o = i % NO;
    const std::int64_t t = tile_of[s];
    if (t >= a.tiles) break;
    tma::mbar_wait(&full[s], (i / ns) & 1);
    const std::uint32_t in_base = tma::smem_addr(smem + s * kTile);
    const std::uint32_t out_base = tma::smem_addr(out_buf + o * kTile);
#pragma unroll
    for (int it = 0; it < kMicro / NT; ++it) {
      int jb, cb;  // row block (output panel jb / 8), chunk across the input tile (input panel cb / 8)
      tma_tile_block(K, NPI, tid + it * NT, &jb, &cb);
      uint4 v[K], w[K];
#pragma unroll
      for (int k = 0; k < K; ++k) v[k] = tma::lds128(in_base + tma_in_offset(TR, K * jb + k, cb));
      tma::transpose_micro<S>(v, w);
#pragma unroll
      for (int k = 0; k < K; ++k)  // output tile row = input tile column
        tma::sts128(out_base + tma_out_offset(TC, K * cb + k, jb), w[k]);
    }
    tma::fence_async_shared();
    if (tid == 0) tma::wait_group_read<NO - 2>();  // buffer (i + 1) % NO is free for tile i + 1
    __syncthreads();
    if (tid == 0) {
      int b, tr, tc;
      tma_tile_coords(a, t, &b, &tr, &tc);
      const std::int64_t col0 = static_cast<std::int64_t>(tc) * TC, row0 = static_cast<std::int64_t>(tr) * TR;
      // Output panel p covers output columns row0 + p * 128 / S ...: only those that start inside.
      for (int p = 0; p < NPO && row0 + p * (128 / S) < a.rows; ++p)
        tma::store_box(&map_out, static_cast<int>((row0 + p * (128 / S)) * E), static_cast<int>(col0), b,
                       out_buf + o * kTile + p * kOutPanel);
      tma::commit_group();
      // The stage is free (every thread read it before the barrier): the next claim goes there.
      const std::int64_t prev = tile_of[(i + ns - 1) % ns];  // the newest claim so far
      const std::int64_t next = prev < a.tiles ? claim() : a.tiles;
      tile_of[s] = next;
      if (next < a.tiles) load_tile(next, s);
    }
  }
  if (tid == 0) {
    tma::wait_group_all();
    ticket_done(a.ticket);  // the last block out resets the ticket for the slot's next launch
  }
}

// Dynamic shared memory of a block: the stages, the output buffers and the 1 KiB the swizzle's
// alignment may skip.
template <int S, int NPO, int NPI>
constexpr int tma_tile_smem(int stages, int out_bufs) {
  return (stages + out_bufs) * (NPO * NPI * 128 * 128 / S) + 1024;
}

// Launches one shape of the kernel (host side). The tuning harness (tools/tune) launches other
// shapes through it; the library launches tma_tile_shape<S>'s (tma_variants.cu).
// The shared-memory limit is raised once per device and size (cudaFuncSetAttribute costs more host
// time than a small launch takes on the GPU).
template <int S, int NPO, int NPI, int NT, int NO>
cudaError_t launch_tma_tile(const CUtensorMap& map_in, const CUtensorMap& map_out, const tma_tile_args& a,
                            int grid, cudaStream_t stream) {
  auto kernel = tma_tile_kernel<S, NPO, NPI, NT, NO>;
  const int smem = tma_tile_smem<S, NPO, NPI>(a.stages, NO);
  constexpr int kMaxDevices = 64;
  static std::atomic<int> raised[kMaxDevices] = {};  // the largest limit set so far, per device
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (device >= kMaxDevices || raised[device].load(std::memory_order_relaxed) < smem) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        e != cudaSuccess)
      return e;
    if (device < kMaxDevices) {
      int seen = raised[device].load(std::memory_order_relaxed);
      while (seen < smem && !raised[device].compare_exchange_weak(seen, smem)) {
      }
    }
  }
  kernel<<<grid, NT, smem, stream>>>(map_in, map_out, a);
  return cudaGetLastError();
}

}  // namespace xpose::detail::gpu
