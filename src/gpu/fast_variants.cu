// Launches of the library's own fast kernels (their launch shapes: configure.cpp).
#include <optional>
#include <utility>

#include "gpu/common.cuh"
#include "gpu/kernels/fast_tile.cuh"
#include "gpu/kernels/narrow.cuh"
#include "gpu/kernels/permute_general.cuh"
#include "gpu/kernels/permute_packed.cuh"
#include "gpu/kernels/permute_rows.cuh"
#include "gpu/kernels/permute_box.cuh"
#include "gpu/kernels/permute_runs.cuh"
#include "gpu/kernels/reg_batch.cuh"
#include "gpu/kernels/reg_tile.cuh"
#include "gpu/kernels/skew_tile.cuh"
#include "gpu/tickets.hpp"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {

status run_fast_tile(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    fast_tile_kernel<T><<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(static_cast<const T*>(in),
                                                                          static_cast<T*>(out), pd.mat);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    return status::kSuccess;
  });
}

status run_reg_tile(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    auto launch = [&](auto kernel) -> status {
      kernel<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                                 pd.mat, pd.launch.grid_x, pd.launch.grid_y,
                                                                 std::int64_t{kRegTileBandRows});
      XPOSE_CUDA_TRY(cudaGetLastError(), why);
      return status::kSuccess;
    };
    if constexpr (sizeof(T) == 1) {  // the other block shapes: reg_tile_stack, reg_tile_lanes
      if (pd.launch.lanes_high == 8) return launch(reg_tile_kernel<T, 8, 8>);
      if (pd.launch.warps_high == 1) return launch(reg_tile_kernel<T, 1, 4>);
      if (pd.launch.warps_high == 2) return launch(reg_tile_kernel<T, 2, 4>);
      if (pd.launch.warps_high == 4) return launch(reg_tile_kernel<T, 4, 4>);
    }
    return launch(reg_tile_kernel<T, 8, 4>);
  });
}

status run_reg_batch(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const std::int64_t v = 16 / pd.prob.elem_bytes;
  reg_batch_grid g;
  g.nbc = static_cast<std::uint32_t>(pd.mat.cols / v);
  g.nbr = static_cast<std::uint32_t>(pd.mat.rows / v);
  g.rows = static_cast<std::uint32_t>(pd.mat.batch) * g.nbr;  // < 2^31 (configure_reg_batch)
  g.warp_rows = static_cast<std::uint32_t>(pd.launch.warp_rows);
  g.warp_cols = static_cast<std::uint32_t>(pd.launch.warp_cols);
  g.segs = (g.nbc + g.warp_cols - 1) / g.warp_cols;
  g.tiles = (g.rows + g.warp_rows - 1) / g.warp_rows * g.segs;  // < 2^31 (configure_reg_batch)
  g.cols_div = fast_div(g.warp_cols);
  g.segs_div = fast_div(g.segs);
  g.nbr_div = fast_div(g.nbr);
  for (int k = 0; k < pd.mat.batch_rank && pd.mat.batch_rank > 1; ++k)
    g.batch_div[k] = fast_div(static_cast<std::uint32_t>(pd.mat.batch_ext[k]));
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    reg_batch_kernel<T><<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(static_cast<const T*>(in),
                                                                           static_cast<T*>(out), pd.mat, g);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    return status::kSuccess;
  });
}

status run_skew_tile(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    if constexpr (sizeof(T) == 16) {
      return status::kVariantNotApplicable;  // configure_skew_tile refuses it
    } else {
      using shape = skew_tile_shape<sizeof(T)>;
      // The load phase by the input's leading dimension (skew_tile.cuh skew_load_raw, tile_shapes.hpp).
      auto kernel = skew_tile_kernel<T, shape, shape::kDown, -1>;
      const int L = static_cast<int>(pd.mat.ld_in & (16 / sizeof(T) - 1));
      if (pd.launch.skew_pitch > 0)  // configure_skew_tile chose the raw layout (kRawMask)
        [&]<int... Ls>(std::integer_sequence<int, Ls...>) {
          auto pick = [&]<int Lc>() {
            if constexpr ((shape::kRawMask >> Lc) & 1u)
              if (L == Lc) kernel = skew_tile_kernel<T, shape, shape::kDown, Lc>;
          };
          (pick.template operator()<Ls>(), ...);
        }(std::make_integer_sequence<int, 16 / sizeof(T)>{});
      kernel<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                                pd.mat, pd.launch.skew_pitch);
      XPOSE_CUDA_TRY(cudaGetLastError(), why);
      return status::kSuccess;
    }
  });
}

status run_narrow(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    auto launch = [&](auto kernel) -> status {
      if (pd.launch.smem_bytes > 48 * 1024)
        XPOSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, pd.launch.smem_bytes),
                       why);
      kernel<<<grid_of(pd.launch), block_of(pd.launch), pd.launch.smem_bytes, s>>>(
          static_cast<const T*>(in), static_cast<T*>(out), pd.mat, pd.launch.chunk);
      XPOSE_CUDA_TRY(cudaGetLastError(), why);
      return status::kSuccess;
    };
    constexpr int v = 16 / sizeof(T);
    const bool shifted = (pd.launch.wide_in ? pd.mat.ld_in : pd.mat.ld_out) % v != 0;
    if (pd.launch.wide_in)
      return shifted ? launch(narrow_kernel<T, true, true>) : launch(narrow_kernel<T, true, false>);
    return shifted ? launch(narrow_kernel<T, false, true>) : launch(narrow_kernel<T, false, false>);
  });
}

namespace {

// permute_packed's compile-time knob (kernels/permute_packed.cuh), measured by a harness that
// compiled the kernel's variants side by side (scripts/packed_experiment.cu at commit 78d163e) on the
// H200 (2026-11-29, docs/results/packed-experiment-2026-11-29.txt, one element per access), % of copy without / with prefetch, compiler's registers / 4 blocks per SM forced:
//   16384^2 f32 (box 1024):   45.5 / 29.9, 53.1 / 36.8     16384^2 f64:  74.7 / 52.8, 89.8 / 63.3
//   100000 x 32x48 f32:       39.0 / 21.2, 55.2 / 31.9     rank-6 reversal f32: 39.8 / 21.2, 50.6 / 31.4
// Prefetching into registers lost everywhere (the registers it holds cost more occupancy than the
// overlap gains) and was removed; forcing 4 blocks per SM won everywhere, as did the smaller boxes
// (4 or 8 slots per thread over 16, packed_slots in packed_tile.hpp).
inline constexpr int kPackedMinBlocks = 4;
// The persistent grid claims its tiles in order from a ticket (tickets.hpp) rather than block b
// taking b, b + grid, ...: on the 38 seed-1 suite plans of this kernel, every dtype, 2.2-13.9
// points of copy gained on each, none lost (H100, seventy-fourth session; with permute_runs' 10
// below, `BINS="xpose_main xpose_tk" CASES=scripts/cases/runs_packed_oneshot_73_cases.txt`,
// docs/performance.md). One block per tile instead lost 9-50 points on every such plan (its slot
// tables, per thread, are worth building once per block; seventy-third session).
inline constexpr bool kPackedTickets = true;

template <class T, int VI, int VO, int E>
status launch_packed(const packed_params& p, const plan_data& pd, const void* in, void* out, cudaStream_t s,
                     std::string* why) {
  auto kernel = permute_packed_kernel<T, VI, VO, E, kPackedMinBlocks>;
  const int smem_bytes = p.smem_elems * static_cast<int>(sizeof(T));
  if (smem_bytes > 48 * 1024)
    XPOSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes), why);
  int per_sm = 0;
  XPOSE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPackedThreads, smem_bytes), why);
  const std::int64_t resident = static_cast<std::int64_t>(per_sm > 0 ? per_sm : 1) * pd.device.sm_count;
  const unsigned grid = static_cast<unsigned>(p.tiles < resident ? p.tiles : resident);
  // More tiles than blocks: claimed in order through a leased ticket (kPackedTickets; none free:
  // the static order).
  std::optional<ticket_lease> lease;
  if (kPackedTickets && p.tiles > grid) lease.emplace(s);
  kernel<<<grid, kPackedThreads, smem_bytes, s>>>(static_cast<const T*>(in), static_cast<T*>(out), p,
                                                  lease ? lease->ticket() : nullptr);
  XPOSE_CUDA_TRY(cudaGetLastError(), why);
  if (lease) XPOSE_CUDA_TRY(lease->release(), why);
  return status::kSuccess;
}

// Calls f.template operator()<V>() for the width v (elements) if v * sizeof(T) <= 16 bytes.
template <class T, class F>
status with_width(int v, F&& f) {
  switch (v) {
    case 1: return f.template operator()<1>();
    case 2: if constexpr (sizeof(T) <= 8) return f.template operator()<2>(); break;
    case 4: if constexpr (sizeof(T) <= 4) return f.template operator()<4>(); break;
    case 8: if constexpr (sizeof(T) <= 2) return f.template operator()<8>(); break;
    case 16: if constexpr (sizeof(T) == 1) return f.template operator()<16>(); break;
  }
  return status::kVariantNotApplicable;
}

}  // namespace

status run_permute_packed(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const auto* plans = static_cast<const packed_plans*>(pd.kernel_params.get());
  if (!plans) return status::kVariantNotApplicable;  // configure_permute_packed fills it
  // The vector plan needs each side's pointer aligned to its vectors; the scalar plan runs any
  // pointer aligned to the element.
  const int w = pd.launch.chunk;
  const auto aligned = [](const void* ptr, int bytes) {
    return reinterpret_cast<std::uintptr_t>(ptr) % static_cast<unsigned>(bytes) == 0;
  };
  const packed_params& p =
      aligned(in, plans->vec.vin * w) && aligned(out, plans->vec.vout * w) ? plans->vec : plans->scalar;
  return with_word(w, [&]<class T>() -> status {
    return with_width<T>(p.vin, [&]<int VI>() -> status {
      return with_width<T>(p.vout, [&]<int VO>() -> status {
        constexpr int kSlots = packed_slots(VI, VO, sizeof(T));  // the only one planned
        if (p.slots != kSlots) return status::kVariantNotApplicable;
        return launch_packed<T, VI, VO, kSlots>(p, pd, in, out, s, why);
      });
    });
  });
}

// permute_runs holds 16-64 registers' worth of chunks per thread (kRunsLoads uint4): 4 blocks of
// 256 threads per SM keep the compiler at 64 registers; shared memory (16-40 KiB a block) allows 5-8.
inline constexpr int kRunsMinBlocks = 4;
// Where the grid is persistent (every element size, runs_tile.hpp kRunsOneShotMinElem), its
// tiles are claimed in order from a ticket (tickets.hpp): the 10 f32 seed-1 suite plans of this
// kernel gained 1.3-11.5 points of copy (H100, seventy-fourth session; see kPackedTickets).
inline constexpr bool kRunsTickets = true;

status run_permute_runs(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const auto* p = static_cast<const runs_params*>(pd.kernel_params.get());
  if (!p) return status::kVariantNotApplicable;  // configure_permute_runs fills it
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    auto kernel = permute_runs_kernel<T, kRunsMinBlocks>;
    if (p->smem_bytes > 48 * 1024)
      XPOSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes), why);
    int per_sm = 0;
    XPOSE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kRunsThreads, p->smem_bytes), why);
    const std::int64_t resident = static_cast<std::int64_t>(per_sm > 0 ? per_sm : 1) * pd.device.sm_count;
    const unsigned grid = static_cast<unsigned>(p->one_shot || p->tiles < resident ? p->tiles : resident);
    std::optional<ticket_lease> lease;  // a persistent grid's tiles claimed in order (kRunsTickets)
    if (kRunsTickets && p->tiles > grid) lease.emplace(s);
    kernel<<<grid, kRunsThreads, p->smem_bytes, s>>>(static_cast<const T*>(in), static_cast<T*>(out), *p,
                                                     lease ? lease->ticket() : nullptr);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    if (lease) XPOSE_CUDA_TRY(lease->release(), why);
    return status::kSuccess;
  });
}

// permute_box: 5 blocks of 256 threads per SM (48 registers with kBoxLoads = 2, no spills; shared
// memory of 44 KiB at most allows 5). Measured against 4 and 6: box_tile.hpp, kBoxLoads. For 4- to
// 16-byte elements, whose raw boxes of at most 20 KiB would let more blocks in, 6 blocks (40
// registers, no spills) and 8 (32 registers, 32-76 bytes spilled) measured against 5 on 18 suite
// boxes by name: 6 level on f64 and c128 (-1.6 to +1.6 but one +4.7) and down 2.2-11.8 on f32, 8
// down 1.2-30.1 everywhere (H100, sixty-seventh session, results/box-blocks-ab-2026-12-06-h100.json;
// branch cand/box-wide-blocks). The wide boxes do not wait for want of warps.
inline constexpr int kBoxMinBlocks = 5;
// The word gather (bytes) holds 16 gathered words and 4 chunks: at 48 registers (5 blocks) it
// spilled 40-48 bytes of stack; 4 blocks give it 64 (H200, seventeenth session). 5 blocks, spills
// and all (44-72 bytes by ptxas -v), measured in the sixty-fourth session: 6 of the i8 suite's 7
// word boxes 1.4-5.4 points of copy down, one 0.8 up (H100, branch cand/box-words-5blocks,
// results/box-words-ab-2026-12-06-h100.json).
inline constexpr int kBoxWordsMinBlocks = 4;
// Where the grid is persistent (box_params::one_shot off), its tiles are claimed in order from a
// ticket (tickets.hpp), as permute_packed's and permute_runs' are (kPackedTickets). Against block b
// taking tiles b, b + grid, ...: 70 persistent boxes (every one of seeds 1-4, then the raw-wide
// test's), 47 gained more than a point, up to 11.0 (f64 [22935,7,11,19,2] 76.6 -> 87.6), 8 lost
// 1.1-3.0, mean +2.6 (H100, one round, seventy-fifth session, results/box-tickets-ab-2026-12-06-h100).
// Thread 0 claims with the ticket read from shared memory (permute_box.cuh says why: held in
// registers it made the converged kernels spill 16-28 bytes, and the suite plans that run them one
// block per tile lost up to 17 points, seventy-sixth session). So claimed (branch
// cand/box-claim-shared, seventy-eighth session, two alternating rounds by name against main's
// static order, scripts/cases/box_claim_shared_77_cases.txt, results/box-claim-shared-ab-2026-12-07-
// h100.{json,log}): the 16 persistent suite boxes of the list gained 4.7-17.7 points on an H100
// (f16 [13314,21,6,16,5] 79.5 -> 97.2, f64 [22935,7,11,19,2] 75.8 -> 90.9), and the 14 one-block
// plans that the spilling tickets had cost 8.7-17.4 held, -0.2 to +3.8 (-0.8 to +0.8 on an H200,
// seventy-seventh session).
inline constexpr bool kBoxTickets = true;
// Where no ticket is leased (one block per tile, or a grid that holds every tile) the grid never
// claims, and 16-byte elements launch their kernel without the claim's code (permute_box_kernel's
// Claims = false, the static loop b, b + grid, ...); smaller elements launch the claiming kernel
// either way. With the claim compiled in, c128's one-block boxes had lost 4-11 points on an H100
// (the kernel keeps its 48 registers and spills nothing, but its SASS grew 2592 -> 2672
// instructions and was rescheduled). Measured (H100, eightieth session, one round each, every
// output verified): the 32 c128 one-block suite boxes of scripts/cases/c128_box_oneshot_79_cases.txt,
// mean +2.7, 12 up by 1.6-10.5 points, none down by more than 0.2 ([403,7,6,9,22,10,2] 87.8 -> 98.3,
// [112410,199,3] 90.0 -> 99.5), the same as the kernels before tickets (034c832); the c128 suite
// 93.5 / 77.0 -> 94.1 / 80.8 (median / minimum, same machine). Claim-free kernels for every element
// size (branch cand/box-oneshot-static-79) held the 1- to 8-byte boxes of
// box_claim_shared_77_cases.txt level but two i8 one-block boxes, which lost 2.8 and 3.8 points
// ([264,12,6,2,15,18,13,2] 79.0 -> 75.2, results/box-oneshot-static-ab-2026-12-07-h100): sizes up to
// 8 bytes keep the claiming kernel.
inline constexpr bool kBoxPlainWide = true;

status run_permute_box(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const auto* p = static_cast<const box_params*>(pd.kernel_params.get());
  if (!p) return status::kVariantNotApplicable;  // configure_permute_box fills it
  box_params own;  // the plan's box without its tables, where another device than theirs is current
  if (p->tables) {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device != p->tables_device) {
      cudaGetLastError();
      own = *p;
      own.tables = nullptr;
      p = &own;
    }
  }
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    // `kernel` claims its tiles where a ticket is leased; `plain` (the same kernel, or for 16-byte
    // elements its claim-free form, kBoxPlainWide) runs where none is.
    auto launch = [&](auto kernel, auto plain) -> status {
      // One block per tile, or a persistent grid of the blocks resident at once (box_params::one_shot).
      if (p->smem_bytes > 48 * 1024)  // the word gather's boxes (kBoxWordsMaxSmem)
        XPOSE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes), why);
      int per_sm = 0;
      XPOSE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBoxThreads, p->smem_bytes), why);
      const std::int64_t resident = static_cast<std::int64_t>(per_sm > 0 ? per_sm : 1) * pd.device.sm_count;
      const unsigned grid = static_cast<unsigned>(p->one_shot || p->tiles < resident ? p->tiles : resident);
      std::optional<ticket_lease> lease;  // a persistent grid's tiles claimed in order (kBoxTickets)
      if (kBoxTickets && p->tiles > grid) lease.emplace(s);
      if (lease) {
        kernel<<<grid, kBoxThreads, p->smem_bytes, s>>>(static_cast<const T*>(in), static_cast<T*>(out), *p,
                                                        lease->ticket());
      } else {
        if (p->smem_bytes > 48 * 1024 && plain != kernel)
          XPOSE_CUDA_TRY(cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes), why);
        plain<<<grid, kBoxThreads, p->smem_bytes, s>>>(static_cast<const T*>(in), static_cast<T*>(out), *p, nullptr);
      }
      XPOSE_CUDA_TRY(cudaGetLastError(), why);
      if (lease) XPOSE_CUDA_TRY(lease->release(), why);
      return status::kSuccess;
    };
    // Both stores come in two forms (box_store_converged): converged where output runs have head or
    // tail chunks, whole chunks where every run is whole aligned chunks.
    const int out_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
    const bool converged = box_store_converged(*p, sizeof(T), out_mis);
    // Owned output ends (box_tile.hpp) run kernels of their own, planned only where the store is
    // converged (box_tile.cpp own_ends); 16-byte elements have none.
    if (p->halo && (!converged || sizeof(T) == 16)) return status::kVariantNotApplicable;
    if constexpr (sizeof(T) == 1) {  // the word gather (box_tile.hpp), for 1-byte elements
      auto same = [&](auto kernel) { return launch(kernel, kernel); };  // claiming either way (kBoxPlainWide)
      auto words = [&]<bool Converged, bool Owned>() -> status {
        if (p->words_shift) {  // raw rows: plain or granules (box_tile.cpp raw_layout)
          if (p->swizzle == kBoxWords) return status::kVariantNotApplicable;
          return p->swizzle == kBoxGranules
                     ? same(permute_box_kernel<T, kBoxGranules, kBoxWordsMinBlocks, true, Converged, true, Owned>)
                     : same(permute_box_kernel<T, kBoxPlain, kBoxWordsMinBlocks, true, Converged, true, Owned>);
        }
        switch (p->swizzle) {
          case kBoxGranules:
            return same(permute_box_kernel<T, kBoxGranules, kBoxWordsMinBlocks, true, Converged, false, Owned>);
          case kBoxWords: return same(permute_box_kernel<T, kBoxWords, kBoxWordsMinBlocks, true, Converged, false, Owned>);
          default: return same(permute_box_kernel<T, kBoxPlain, kBoxWordsMinBlocks, true, Converged, false, Owned>);
        }
      };
      // The segment gather (box_segments.hpp): rows of 3 or 5 bytes, in the converged form only,
      // without owned ends or the word swizzle (box_tile.cpp segment_rows).
      if (p->segs) {
        if (p->words || p->halo || p->swizzle == kBoxWords) return status::kVariantNotApplicable;
        auto segments = [&]<int L>() -> status {
          return p->swizzle == kBoxGranules
                     ? same(permute_box_kernel<T, kBoxGranules, kBoxMinBlocks, false, true, false, false, true, L>)
                     : same(permute_box_kernel<T, kBoxPlain, kBoxMinBlocks, false, true, false, false, true, L>);
        };
        switch (p->segs) {
          case 3: return segments.template operator()<3>();
          case 5: return segments.template operator()<5>();
          default: return status::kVariantNotApplicable;
        }
      }
      if (p->words)
        return p->halo     ? words.template operator()<true, true>()
               : converged ? words.template operator()<true, false>()
                           : words.template operator()<false, false>();
    }
    if (p->words) return status::kVariantNotApplicable;  // box_plan keeps the word gather to 1-byte elements
    constexpr bool kPlainClaims = !(kBoxPlainWide && sizeof(T) == 16);  // Claims of the kernel run without a ticket
    auto elements = [&]<bool Converged, bool Owned>() -> status {
      switch (p->swizzle) {
        case kBoxGranules:
          return launch(permute_box_kernel<T, kBoxGranules, kBoxMinBlocks, false, Converged, false, Owned>,
                        permute_box_kernel<T, kBoxGranules, kBoxMinBlocks, false, Converged, false, Owned, kPlainClaims>);
        case kBoxWords:
          if constexpr (sizeof(T) <= 4)
            return launch(permute_box_kernel<T, kBoxWords, kBoxMinBlocks, false, Converged, false, Owned>,
                          permute_box_kernel<T, kBoxWords, kBoxMinBlocks, false, Converged, false, Owned, kPlainClaims>);
          return status::kVariantNotApplicable;  // box_plan keeps words for elements of 4 bytes and less
        default:
          return launch(permute_box_kernel<T, kBoxPlain, kBoxMinBlocks, false, Converged, false, Owned>,
                        permute_box_kernel<T, kBoxPlain, kBoxMinBlocks, false, Converged, false, Owned, kPlainClaims>);
      }
    };
    if constexpr (sizeof(T) < 16)
      if (p->halo) return elements.template operator()<true, true>();
    return converged ? elements.template operator()<true, false>() : elements.template operator()<false, false>();
  });
}

status run_permute_rows(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  const auto* p = static_cast<const rows_params*>(pd.kernel_params.get());
  if (!p) return status::kVariantNotApplicable;  // configure_permute_rows fills it
  auto launch = [&](auto kernel) -> status {
    const int out_mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) & 15);
    const std::int64_t blocks = ceil_div(rows_chunks(*p, out_mis), std::int64_t{kRowsThreads} * kRowsSteps);
    kernel<<<static_cast<unsigned>(blocks), kRowsThreads, 0, s>>>(static_cast<const unsigned char*>(in),
                                                                 static_cast<unsigned char*>(out), *p);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    return status::kSuccess;
  };
  // The piece loop's bound: rows of 15 bytes and more touch at most 2 rows per chunk.
  if (p->max_pieces <= 2) return launch(permute_rows_kernel<2>);
  if (p->max_pieces <= 3) return launch(permute_rows_kernel<3>);
  if (p->max_pieces <= 5) return launch(permute_rows_kernel<5>);
  if (p->max_pieces <= 9) return launch(permute_rows_kernel<9>);
  return launch(permute_rows_kernel<16>);
}

status run_permute_general(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  // Words of launch.chunk bytes (>= the element; see configure_permute_general): the last dim's
  // extent and every stride are rescaled from elements to words.
  const int s_elem = pd.prob.elem_bytes;
  int w = pd.launch.chunk > s_elem ? pd.launch.chunk : s_elem;
  const auto addr_bits = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  while (w > s_elem && (addr_bits % static_cast<unsigned>(w)) != 0) w /= 2;
  permute_params p{};
  p.rank = pd.prob.rank;
  for (int k = 0; k < pd.prob.rank; ++k) {
    p.extent[k] = pd.prob.dims[k].extent;
    p.in_stride[k] = pd.prob.dims[k].in_stride * s_elem / w;
    p.out_stride[k] = pd.prob.dims[k].out_stride * s_elem / w;
  }
  if (w != s_elem) {
    p.extent[p.rank - 1] = pd.prob.dims[p.rank - 1].extent * s_elem / w;
    p.in_stride[p.rank - 1] = p.out_stride[p.rank - 1] = 1;
  }
  if (p.rank == 0) {  // a single element
    p.rank = 1;
    p.extent[0] = 1;
  }
  p.count = 1;
  for (int k = 0; k < p.rank; ++k) p.count *= p.extent[k];
  return with_word(w, [&]<class T>() -> status {
    if (p.count < (std::int64_t{1} << 31))
      permute_general_kernel<T, std::uint32_t><<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(
          static_cast<const T*>(in), static_cast<T*>(out), p);
    else
      permute_general_kernel<T, std::uint64_t><<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(
          static_cast<const T*>(in), static_cast<T*>(out), p);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    return status::kSuccess;
  });
}

}  // namespace xpose::detail::gpu
