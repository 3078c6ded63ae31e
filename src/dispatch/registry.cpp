#include "dispatch/registry.hpp"

#include <array>

#include "cpu/cpu_variants.hpp"
#ifdef XPOSE_HAS_CUDA
#include "gpu/variants.hpp"
#endif

namespace xpose::detail {
namespace {

#ifdef XPOSE_HAS_CUDA
#define XPOSE_GPU(name, matrix_only, bx, by, text) \
  variant_info{#name, backend::kGpu, matrix_only, bx, by, text, gpu::configure_##name, gpu::run_##name},
#else
#define XPOSE_GPU(name, matrix_only, bx, by, text)
#endif

// Order: the seeds as the notes introduce them, then the library's own kernels, then the CPU.
// Default blocks: 16x16 is note 000's BLOCKDIM (note 001 used 32x16; `xpose bench` passes that
// explicitly for its experiments); 32x8 is the classic tile's (32 x 32 tile, 4 rows per thread).
constexpr auto kVariants = std::to_array<variant_info>({
    XPOSE_GPU(naive_row_read, true, 16, 16, "seed: read rows (coalesced), write columns (strided); note 001 scheme A")
    XPOSE_GPU(naive_col_read, true, 16, 16, "seed: read columns (strided), write rows (coalesced); note 001 scheme B")
    XPOSE_GPU(smem_v1, true, 16, 16, "seed: tile through shared memory, same thread writes and reads a word")
    XPOSE_GPU(smem_v2, true, 16, 16, "seed: coalesced both ways through an unpadded tile (bank conflicts)")
    XPOSE_GPU(smem_v3, true, 16, 16, "seed: coalesced both ways through a (B, B+1) padded tile")
    XPOSE_GPU(tiled, true, 32, 8, "classic 32x32 tile, 32x8 threads, (32, 33) padded shared array")
    XPOSE_GPU(tiled_skew, true, 32, 8, "classic 32x32 tile with its output rows staggered to 32-byte sectors (2- to 16-byte elements)")
    XPOSE_GPU(tiled_words, true, 32, 8, "classic 32x32 tile of 4-byte words, each a 2x2 (2-byte) or 4x4 (1-byte) block of elements transposed in registers")
    XPOSE_GPU(fast_tile, true, 0, 0, "16-byte vectors both ways through a padded shared tile, 4x8-lane accesses (1-byte tiles: swizzled words after register transposes)")
    XPOSE_GPU(reg_tile, true, 0, 0, "no shared memory: V x V blocks transposed in registers, 16-byte vectors both ways")
    XPOSE_GPU(reg_batch, true, 0, 0, "batches of small matrices (and narrow ones) of whole V x V blocks: one block per thread, a warp over G block rows of W blocks, transposed in registers")
    XPOSE_GPU(tma_tile, true, 0, 0, "bulk tensor copies (TMA) in and out of swizzled shared tiles, micro-blocks transposed in registers, persistent grid")
    XPOSE_GPU(skew_tile, true, 0, 0, "any leading dimension: tile edges staggered so 16-byte vectors stay aligned both ways")
    XPOSE_GPU(narrow, true, 0, 0, "short side (<= 64) kept whole, long side chunked, dense side moved linearly")
    XPOSE_GPU(interleave, true, 0, 0, "short dense side of 2-16, 32, 48 or 64 elements (1-8 bytes): a warp's blocks transposed in registers by constant byte permutes, 16 rows a lane, rows realigned by funnel shifts")
    XPOSE_GPU(permute_packed, false, 0, 0, "any permutation: boxes over several dims, runs of ~sqrt(volume) both ways")
    XPOSE_GPU(permute_runs, false, 0, 0, "any permutation: A x B transposes of input and output runs, aligned 16-byte chunks both ways")
    XPOSE_GPU(permute_box, false, 0, 0, "any permutation: boxes with long runs on both sides, rows realigned into shared memory, 16-byte chunks both ways")
    XPOSE_GPU(permute_rows, false, 0, 0, "row copies (fastest dim contiguous both ways): aligned 16-byte chunks both ways, rows realigned in registers")
    XPOSE_GPU(permute_general, false, 0, 0, "any permutation, one element (or 16-byte word of a long row) per thread")
    XPOSE_GPU(copy, false, 0, 0, "cudaMemcpyAsync, for problems that are a plain copy")
    variant_info{"cpu_naive", backend::kCpu, false, 0, 0, "the seed's CPU loop, one thread",
                 cpu::configure_naive, cpu::run_naive},
    variant_info{"cpu_blocked", backend::kCpu, false, 0, 0, "cache-blocked SIMD tiles, streaming stores, OpenMP threads",
                 cpu::configure_blocked, cpu::run_blocked},
});
#undef XPOSE_GPU

}  // namespace

std::span<const variant_info> all_variants() { return kVariants; }

const variant_info* find_variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (name == v.name) return &v;
  return nullptr;
}

}  // namespace xpose::detail
