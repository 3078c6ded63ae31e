// The shared accesses of each kernel, transcribed from src/gpu/kernels/*.cuh. Each factory states the
// shared array and, per shared-memory statement, which element a lane touches and when its bounds
// check passes, in tile-local terms: the kernels test `row < rows && col < cols` with
// row = by * B + ty, which inside tile (bx, by) is `ty < valid.rows`, and so on.
//
// To model a new kernel: write a factory like the ones below (array shape, padding or a swizzle in
// smem_array::swizzle, one smem_instruction per shared load or store) and add a row to kVariants.
#include <array>

#include <fmt/format.h>

#include "model/bank_model.hpp"

namespace xpose::model {
namespace {

status fail(status s, std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return s;
}

// The seeds' kernels (src/gpu/kernels/smem_seed.cuh) are templates on the square block edge B.
status check_square(const char* name, int bx, int by, std::string* why) {
  if (bx != by || (bx != 8 && bx != 16 && bx != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("{} needs a square block of 8x8, 16x16 or 32x32 (got {}x{}): the seed's tile is "
                            "BLOCKDIM x BLOCKDIM, indexed transposed",
                            name, bx, by));
  return status::kSuccess;
}

// tile[ty][tx] = in[row][col], guarded by row < rows && col < cols.
smem_instruction store_row_major() {
  return {"tile[ty][tx] = in[row][col]", smem_op::kStore, 1, 0,
          [](const lane_ctx& c) -> std::optional<smem_coord> {
            if (c.ty < c.valid.rows && c.tx < c.valid.cols) return smem_coord{c.ty, c.tx};
            return std::nullopt;
          }};
}

// smem_v1: every thread reads back the word it wrote, then writes it out strided.
status make_smem_v1(int bx, int by, int elem_bytes, kernel_model* out, std::string* why) {
  if (status s = check_square("smem_v1", bx, by, why); s != status::kSuccess) return s;
  kernel_model k;
  k.variant = "smem_v1";
  k.kernel_function = "smem_v1_kernel";
  k.block_x = bx;
  k.block_y = by;
  k.tile_rows = k.tile_cols = bx;
  k.array = {"tile", bx, bx, elem_bytes, {}};
  k.instructions.push_back(store_row_major());
  k.instructions.push_back({"out[col][row] = tile[ty][tx]", smem_op::kLoad, 1, 0,
                            [](const lane_ctx& c) -> std::optional<smem_coord> {
                              if (c.ty < c.valid.rows && c.tx < c.valid.cols) return smem_coord{c.ty, c.tx};
                              return std::nullopt;
                            }});
  // The round trip could be forwarded in a register (each thread reads only its own word), but the
  // barrier between the store and the load keeps nvcc from doing so: the SASS has one STS and one
  // LDS, and Nsight Compute counts them (docs/banks.md, "smem_v1").
  k.compiled_away = false;
  k.compiler_note =
      "nvcc 13.0 keeps the round trip: the sm_90 SASS of smem_v1_kernel has one STS and one LDS (the "
      "__syncthreads() between them stops the compiler forwarding the value in a register), and Nsight "
      "Compute counts them";
  *out = std::move(k);
  return status::kSuccess;
}

// smem_v2 / smem_v3: coalesced read into tile[ty][tx], coalesced write from tile[tx][ty]; the load's
// bounds check is on the output: out_x = tx + B*by < rows, out_y = ty + B*bx < cols.
status make_smem_v23(const char* name, int pad, int bx, int by, int elem_bytes, kernel_model* out, std::string* why) {
  if (status s = check_square(name, bx, by, why); s != status::kSuccess) return s;
  kernel_model k;
  k.variant = name;
  k.kernel_function = fmt::format("{}_kernel", name);
  k.block_x = bx;
  k.block_y = by;
  k.tile_rows = k.tile_cols = bx;
  k.array = {"tile", bx, bx + pad, elem_bytes, {}};
  k.instructions.push_back(store_row_major());
  k.instructions.push_back({"out[out_y][out_x] = tile[tx][ty]", smem_op::kLoad, 1, 0,
                            [](const lane_ctx& c) -> std::optional<smem_coord> {
                              if (c.tx < c.valid.rows && c.ty < c.valid.cols) return smem_coord{c.tx, c.ty};
                              return std::nullopt;
                            }});
  *out = std::move(k);
  return status::kSuccess;
}

status make_smem_v2(int bx, int by, int elem_bytes, kernel_model* out, std::string* why) {
  return make_smem_v23("smem_v2", 0, bx, by, elem_bytes, out, why);
}

status make_smem_v3(int bx, int by, int elem_bytes, kernel_model* out, std::string* why) {
  return make_smem_v23("smem_v3", 1, bx, by, elem_bytes, out, why);
}

// tiled (src/gpu/kernels/tiled.cuh): a 32 x 32 tile in a (32, 33) array moved by 32 x H threads,
// each looping r = ty, ty + H, ... < 32.
status make_tiled(int bx, int by, int elem_bytes, kernel_model* out, std::string* why) {
  constexpr int kT = 32;
  if (bx != kT || (by != 1 && by != 2 && by != 4 && by != 8 && by != 16 && by != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("tiled needs a block of 32xH with H in 1, 2, 4, 8, 16, 32 (got {}x{})", bx, by));
  kernel_model k;
  k.variant = "tiled";
  k.kernel_function = "tiled_kernel";
  k.block_x = bx;
  k.block_y = by;
  k.tile_rows = k.tile_cols = kT;
  k.array = {"tile", kT, kT + 1, elem_bytes, {}};
  const int trips = kT / by;
  k.instructions.push_back({"tile[r][tx] = src[row][col]   (r = ty + trip*H)", smem_op::kStore, trips, 0,
                            [](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int r = c.ty + c.trip * c.block_y;
                              if (r < kT && r < c.valid.rows && c.tx < c.valid.cols) return smem_coord{r, c.tx};
                              return std::nullopt;
                            }});
  k.instructions.push_back({"dst[orow][ocol] = tile[tx][r] (r = ty + trip*H)", smem_op::kLoad, trips, 0,
                            [](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int r = c.ty + c.trip * c.block_y;  // orow = bx*32 + r, ocol = by*32 + tx
                              if (r < kT && r < c.valid.cols && c.tx < c.valid.rows) return smem_coord{c.tx, r};
                              return std::nullopt;
                            }});
  *out = std::move(k);
  return status::kSuccess;
}

constexpr std::array<variant_entry, 4> kVariants{{
    {"smem_v1", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v1},
    {"smem_v2", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v2},
    {"smem_v3", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v3},
    {"tiled", 32, 8, "32xH with H in 1, 2, 4, 8, 16, 32", make_tiled},
}};

constexpr std::array<std::string_view, 4> kNoShared{"naive_row_read", "naive_col_read", "copy", "cpu_naive"};

}  // namespace

std::span<const variant_entry> modelled_variants() { return kVariants; }

const variant_entry* find_modelled_variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (name == v.name) return &v;
  return nullptr;
}

bool has_no_shared_memory(std::string_view name) {
  for (auto n : kNoShared)
    if (n == name) return true;
  return false;
}

status make_kernel_model(std::string_view variant, int block_x, int block_y, int elem_bytes, kernel_model* out,
                         std::string* why) {
  const variant_entry* v = find_modelled_variant(variant);
  if (!v) {
    if (has_no_shared_memory(variant))
      return fail(status::kVariantNotApplicable, why,
                  fmt::format("{} makes no shared-memory accesses; the bank model covers smem_v1, smem_v2, "
                              "smem_v3 and tiled",
                              variant));
    return fail(status::kUnknownVariant, why,
                fmt::format("no bank model for variant '{}' (modelled: smem_v1, smem_v2, smem_v3, tiled)", variant));
  }
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
    return fail(status::kUnsupportedElementSize, why,
                fmt::format("element size {} is not 1, 2, 4, 8 or 16 bytes", elem_bytes));
  if (block_x == 0 && block_y == 0) {
    block_x = v->default_block_x;
    block_y = v->default_block_y;
  }
  if (block_x < 1 || block_y < 1 || static_cast<long>(block_x) * block_y > 1024)
    return fail(status::kInvalidBlock, why,
                fmt::format("block {}x{} is invalid: each side at least 1, at most 1024 threads in all", block_x,
                            block_y));
  return v->make(block_x, block_y, elem_bytes, out, why);
}

}  // namespace xpose::model
