// A host-only model of the shared-memory traffic of xpose's kernels, and of how Hopper (sm_90) turns
// each warp's shared-memory instruction into wavefronts. It predicts, exactly, the four Nsight Compute
// counters
//     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum
//     l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
// for a whole launch, and explains them lane by lane for any one warp (`xpose banks`, docs/banks.md).
//
// Two halves:
//   * What a kernel asks for: a kernel_model lists the shared-memory instructions of the kernel's
//     source, each as a function from a thread (threadIdx, loop trip, the part of its tile that lies
//     inside the matrix) to the element of the shared array it touches, or to nothing when the lane's
//     bounds check fails. The array's layout (padding, a swizzle) maps elements to bytes. Adding a
//     kernel is one factory in model/kernels.cpp.
//   * What the hardware does with one warp's request (count_wavefronts): 32 banks of 4 bytes; a
//     wavefront serves at most one 4-byte word per bank, lanes touching the same word share it. The
//     rules for 8- and 16-byte accesses were measured on the H200 (see count_wavefronts).
//
// Counting is per logical tile (one trip of a block's tile loop), not per launched block: kernels
// whose grid is capped at 65535 in y and z loop over tiles, and each trip executes every instruction
// again. Tiles that differ only in their position inside the matrix issue identical shared accesses,
// so a launch is summed over at most four tile classes (interior, right edge, bottom edge, corner).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xpose/status.hpp"

namespace xpose::model {

inline constexpr int kWarpSize = 32;
inline constexpr int kBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr int kWavefrontBytes = kBanks * kBankBytes;  // 128: one word from every bank

enum class smem_op { kLoad, kStore };
const char* op_name(smem_op op);  // "ld" / "st", as in the ncu metric names

// An element of the kernel's shared array, in the array's own (row, column) indices.
struct smem_coord {
  int row = 0, col = 0;
  bool operator==(const smem_coord&) const = default;
};

// The matrix a launch transposes: rows x cols input elements, `batch` matrices.
struct problem_2d {
  std::int64_t rows = 0, cols = 0, batch = 1;
};

// Which part of a tile lies inside the matrix: rows and columns of the *input* tile, each between 1
// and the tile's extent. Interior tiles are full; tiles on the right and bottom edges are cut.
struct tile_extent {
  int rows = 0, cols = 0;
};

// Everything a lane's address or bounds check may depend on.
struct lane_ctx {
  int tx = 0, ty = 0;            // threadIdx.x, threadIdx.y
  int block_x = 1, block_y = 1;  // blockDim
  tile_extent valid;             // the tile's in-bounds part
  int trip = 0;                  // trip of the instruction's own loop (0 for straight-line code)
};

// The element a lane accesses, or nullopt when the lane is inactive for this instruction (its
// bounds check fails, or the loop trip does not exist for this thread).
using lane_fn = std::function<std::optional<smem_coord>(const lane_ctx&)>;

// One shared-memory instruction of the kernel's source.
struct smem_instruction {
  std::string source;  // the statement, e.g. "tile[ty][tx] = in[row][col]"
  smem_op op = smem_op::kLoad;
  int trips = 1;       // times every thread reaches it per tile (tiled: 32 / blockDim.y)
  int access_bytes = 0;  // bytes per lane; 0 = the element size
  lane_fn lane;
  int array = 0;  // the shared array it touches: 0 = kernel_model::array, n = kernel_model::tables[n - 1]
};

// The kernel's __shared__ array.
struct smem_array {
  std::string name = "tile";
  int rows = 0, cols = 0;  // declared extents in elements; cols includes any padding
  int elem_bytes = 4;
  // Byte offset of element (row, col). Empty: plain row-major with a row pitch of `cols` elements.
  // A swizzled kernel sets its XOR pattern here.
  std::function<std::int64_t(int row, int col)> swizzle;
  bool one_dimensional = false;  // declared as name[cols] (rows == 1), e.g. permute_packed's tile

  std::int64_t byte_offset(int row, int col) const;
  std::string declaration() const;  // e.g. "tile[16][17]", "row_in[32]"
};

// What one variant's kernel asks of shared memory, for one block shape and element size.
struct kernel_model {
  std::string variant;          // registry name, e.g. "smem_v3"
  std::string kernel_function;  // the __global__ function's name (ncu's --kernel-name)
  int block_x = 0, block_y = 0;
  int tile_rows = 0, tile_cols = 0;  // input elements covered by one logical tile
  smem_array array;                   // the tile
  // Further shared arrays (offset tables; none of the current kernels has one), each addressed from
  // its own byte 0: the compiler places arrays of 8-byte elements on 8-byte boundaries, and shifting every address of
  // an instruction by whole words changes which banks it uses but not how many words share one.
  std::vector<smem_array> tables;
  std::vector<smem_instruction> instructions;
  // The shape this model was made for, when the kernel's shared layout depends on it (narrow: the
  // chunk, the pitch and the mode come from the shape); count_launch refuses other shapes.
  std::optional<problem_2d> made_for;
  // True when the compiler removed every shared access of the source (established from the SASS,
  // see scripts/sass_shared_ops.sh): then the compiled kernel's counters are all zero while the
  // source-level counts still describe what the code asks for.
  bool compiled_away = false;
  std::string compiler_note;  // how the SASS check came out, one or two sentences

  const smem_array& array_of(const smem_instruction& ins) const;
};

// One lane of one warp-instruction.
struct lane_access {
  int lane = 0;
  int tx = 0, ty = 0;
  bool exists = true;   // false for lanes past the end of the block (a block that is not a warp multiple)
  bool active = false;  // bounds check passed: the lane makes an access
  smem_coord at;
  std::int64_t byte = 0;        // byte offset in the array
  int width = 4;                // bytes accessed
  std::int64_t first_word = 0;  // 4-byte word index of the first byte
  int words = 1;                // 4-byte words touched (2 for 8-byte, 4 for 16-byte accesses)
  int bank = 0;                 // bank of the first word
};

// Makes `a` an active lane accessing `width` bytes at byte offset `byte` of a shared array (its
// words and the bank of the first; lane number and thread coordinates are left as they are).
void place(lane_access& a, std::int64_t byte, int width);

// A set of lanes the hardware serves together; its wavefronts = the largest number of different
// words any one bank must deliver.
struct lane_group {
  int lane_begin = 0, lane_end = 0;  // lanes [begin, end)
  int wavefronts = 0;
  int worst_bank = -1;                   // a bank that needs `wavefronts` different words
  std::vector<std::int64_t> worst_words; // those words, ascending
};

struct wavefront_count {
  int wavefronts = 0;
  int ideal = 0;  // wavefronts without bank conflicts: one per lane group
  std::vector<lane_group> groups;
  int conflicts() const { return wavefronts - ideal; }
};

// How the H200 serves one warp's shared-memory instruction (lanes: all 32, inactive ones ignored).
wavefront_count count_wavefronts(smem_op op, int width, std::span<const lane_access> lanes);
// count_wavefronts(...).wavefronts without the groups (and without allocating): the planner's scoring.
int count_wavefronts_total(smem_op op, int width, std::span<const lane_access> lanes);

// ---- kernels ----

struct variant_entry {
  const char* name;
  // 0x0: the kernel fixes its own block (fast_tile: by element size; narrow, permute_packed: always
  // the same) and, like the planner, the model takes no block shape for it.
  int default_block_x, default_block_y;
  const char* blocks;  // the block shapes it accepts, in words
  // `shape` has rows == 0 when the caller gave none; a factory whose layout needs it then fails.
  status (*make)(int block_x, int block_y, int elem_bytes, const problem_2d& shape, kernel_model* out,
                 std::string* why);
};
// The variants whose shared accesses are modelled, in registry order.
std::span<const variant_entry> modelled_variants();
const variant_entry* find_modelled_variant(std::string_view name);
// "smem_v1, smem_v2, ..., permute_packed": the modelled variants' names, for messages.
std::string modelled_variant_list();
// Variants known to make no shared-memory accesses at all (naive_*, reg_tile, reg_batch, permute_general,
// copy, the CPU's); *why (if given) gets one line saying why there is nothing to count.
bool has_no_shared_memory(std::string_view name, std::string* why = nullptr);

// The model of `variant` for a block (0x0 = the variant's default) and element size. Fails with
// kUnknownVariant, kVariantNotApplicable (no shared memory), kInvalidBlock or
// kUnsupportedElementSize and a one-line reason. The second form also knows the matrix: needed for
// narrow (its layout follows the shape), and it refuses shapes the planner would not run the variant
// on (fast_tile and narrow move 16-byte vectors: kMisaligned, kVariantNotApplicable).
status make_kernel_model(std::string_view variant, int block_x, int block_y, int elem_bytes, kernel_model* out,
                         std::string* why = nullptr);
status make_kernel_model(std::string_view variant, int block_x, int block_y, int elem_bytes, const problem_2d& shape,
                         kernel_model* out, std::string* why = nullptr);

// ---- one warp ----

std::int64_t tiles_x(const kernel_model& k, const problem_2d& p);  // tile columns: ceil(cols / tile_cols)
std::int64_t tiles_y(const kernel_model& k, const problem_2d& p);  // tile rows: ceil(rows / tile_rows)
int warps_per_block(const kernel_model& k);
// The in-bounds part of tile (bx, by); bx < tiles_x, by < tiles_y.
tile_extent extent_of_tile(const kernel_model& k, const problem_2d& p, std::int64_t bx, std::int64_t by);

struct warp_trace {
  int instruction = 0, warp = 0, trip = 0;
  std::vector<lane_access> lanes;  // kWarpSize entries
  wavefront_count count;
};
// Lanes, banks and wavefronts of instruction `instruction` for warp `warp` of a block working on a
// tile with in-bounds part `valid`, loop trip `trip`.
warp_trace trace_warp(const kernel_model& k, int instruction, int warp, int trip, tile_extent valid);

// ---- a whole launch ----

struct smem_counters {
  std::int64_t ld_wavefronts = 0, ld_conflicts = 0, st_wavefronts = 0, st_conflicts = 0;
  bool operator==(const smem_counters&) const = default;
};

struct instruction_totals {
  std::string source;
  smem_op op = smem_op::kLoad;
  std::int64_t executions = 0;  // warp-level executions with at least one active lane
  std::int64_t wavefronts = 0, ideal = 0;
  std::int64_t conflicts() const { return wavefronts - ideal; }
};

struct launch_totals {
  std::int64_t tiles = 0;  // logical tiles, batch included
  int warps_per_block = 0;
  std::vector<instruction_totals> instructions;
  smem_counters source;    // what the source code asks for
  smem_counters compiled;  // what the compiled kernel does: what Nsight Compute counts
  bool compiled_away = false;
};

// Sums every warp of every tile of the launch. Fails with kInvalidExtent (also: a shape other than
// the one a shape-bound model was made for) or kOverflow.
status count_launch(const kernel_model& k, const problem_2d& p, launch_totals* out, std::string* why = nullptr);

}  // namespace xpose::model
