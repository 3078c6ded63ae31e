// The shared accesses of each kernel, transcribed from src/gpu/kernels/*.cuh. Each factory states the
// shared array and, per shared-memory statement, which element a lane touches and when its bounds
// check passes, in tile-local terms: the kernels test `row < rows && col < cols` with
// row = by * B + ty, which inside tile (bx, by) is `ty < valid.rows`, and so on.
//
// To model a new kernel: write a factory like the ones below (array shape, padding or a swizzle in
// smem_array::swizzle, one smem_instruction per shared load or store) and add a row to kVariants.
#include <array>
#include <memory>

#include <fmt/format.h>

#include "gpu/kernels/tile_shapes.hpp"  // fast_tile's tile shapes: plain C++, shared with the kernel
#include "gpu/packed_tile.hpp"          // permute_packed's box: plain C++, shared with the kernel
#include "plan/problem.hpp"
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

// The seeds' variants run one of two kernels with the same shared accesses (src/gpu/kernels/
// seed_form.cuh): NAME_seed, the notes' own int-indexed code, for one dense matrix of fewer than
// 2^31 elements, and the looped NAME_kernel for batches (and shapes the seeds cannot launch).
std::string seed_kernel_name(const char* name, const problem_2d& shape) {
  const bool seed_form = shape.rows > 0 && shape.batch == 1 && shape.rows * shape.cols < (std::int64_t{1} << 31);
  return fmt::format("{}_{}", name, seed_form ? "seed" : "kernel");
}

// smem_v1: every thread reads back the word it wrote, then writes it out strided.
status make_smem_v1(int bx, int by, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  if (status s = check_square("smem_v1", bx, by, why); s != status::kSuccess) return s;
  kernel_model k;
  k.variant = "smem_v1";
  k.kernel_function = seed_kernel_name("smem_v1", shape);
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
status make_smem_v23(const char* name, int pad, int bx, int by, int elem_bytes, const problem_2d& shape,
                     kernel_model* out, std::string* why) {
  if (status s = check_square(name, bx, by, why); s != status::kSuccess) return s;
  kernel_model k;
  k.variant = name;
  k.kernel_function = seed_kernel_name(name, shape);
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

status make_smem_v2(int bx, int by, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  return make_smem_v23("smem_v2", 0, bx, by, elem_bytes, shape, out, why);
}

status make_smem_v3(int bx, int by, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  return make_smem_v23("smem_v3", 1, bx, by, elem_bytes, shape, out, why);
}

// tiled (src/gpu/kernels/tiled.cuh): a 32 x 32 tile in a (32, 33) array moved by 32 x H threads,
// each looping r = ty, ty + H, ... < 32.
status make_tiled(int bx, int by, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  constexpr int kT = 32;
  if (bx != kT || (by != 1 && by != 2 && by != 4 && by != 8 && by != 16 && by != 32))
    return fail(status::kInvalidBlock, why,
                fmt::format("tiled needs a block of 32xH with H in 1, 2, 4, 8, 16, 32 (got {}x{})", bx, by));
  kernel_model k;
  k.variant = "tiled";
  k.kernel_function = seed_kernel_name("tiled", shape);
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

// ---- the library's own kernels ----

// fast_tile (src/gpu/kernels/fast_tile.cuh), 2- to 16-byte elements (1-byte: fast_tile_bytes_model,
// below): a TR x TC tile in tile[TR][TC + pad], moved by a 1-D
// block of kThreads threads as 16-byte vectors (V = 16 / S elements). Every thread handles 4 vectors
// on each side (the kernel's kIters: tile vectors / threads is 4 for every element size), arranged
// per warp as 4 rows x 8 lanes: lx = tid % 8, ly = (tid % 32) / 8, w = (it * kThreads + tid) / 32.
//   load phase:  tile[row][col + k] = v[it].e[k],  row = (w / segs_in) * 4 + ly,
//                                                  col = ((w % segs_in) * 8 + lx) * V
//   store phase: o.e[k] = tile[i + k][c],          c = (w / segs_out) * 4 + ly,
//                                                  i = ((w % segs_out) * 8 + lx) * V
// with segs_in = TC / V / 8 and segs_out = TR / V / 8. No shared access has a bounds check: a vector
// that leaves the matrix is filled with zeros and still scattered, and the store phase reads all V
// elements (only the global store is predicated), so edge tiles issue exactly the interior's
// accesses. The unrolled loops over `it` and `k` are modelled as trips: trip = it * V + k.
//
// What nvcc 13.0 made of it (sm_90 SASS, scripts/sass_shared_ops.sh): one LDS and one STS per element
// for 4-, 8- and 16-byte elements (16/16, 8/8 .64, 4/4 .128 per thread and tile), but
// for 2-byte elements 32 LDS.U16 and only 16 STS: the scatter's neighbouring elements k, k + 1 of a
// tile row are 4-byte aligned (pitch 132 bytes, columns in steps of 8 elements) and are stored as one
// 4-byte word. The model counts what the SASS does.
struct fast_tile_geometry {
  int rows, cols, pad, threads;
};

template <int S>
constexpr fast_tile_geometry fast_tile_of() {
  using g = ::xpose::detail::gpu::fast_tile_shape<S>;
  return {g::kRows, g::kCols, g::kPad, g::kThreads};
}

fast_tile_geometry fast_tile_geometry_of(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return fast_tile_of<1>();
    case 2: return fast_tile_of<2>();
    case 4: return fast_tile_of<4>();
    case 8: return fast_tile_of<8>();
    default: return fast_tile_of<16>();
  }
}

// The SASS name of the instantiation's word type and its LDS/STS suffix, for the compiler note.
const char* word_type_name(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "uint2";
    default: return "uint4";
  }
}

const char* sass_suffix(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return ".U8";
    case 2: return ".U16";
    case 4: return "";
    case 8: return ".64";
    default: return ".128";
  }
}

// The planner's check_vector_strides for a dense matrix: the strided sides' leading dimensions (and
// a batch's stride, rows * cols) must be multiples of V elements.
status check_vectors(const char* name, const problem_2d& p, int elem_bytes, bool in_side, bool out_side,
                     std::string* why) {
  const int v = 16 / elem_bytes;
  if ((in_side && p.cols % v) || (out_side && p.rows % v))
    return fail(status::kMisaligned, why,
                fmt::format("{} moves 16-byte vectors: the {} of a {}x{} matrix must be multiples of {} elements "
                            "for {}-byte elements (the planner does not run it here)",
                            name, in_side && out_side ? "rows and columns" : (in_side ? "columns" : "rows"), p.rows,
                            p.cols, v, elem_bytes));
  return status::kSuccess;
}

// What both fast_tile models share: the variant, its kernel, its 1-D block and its tile.
kernel_model fast_tile_frame(const fast_tile_geometry& g) {
  kernel_model k;
  k.variant = "fast_tile";
  k.kernel_function = "fast_tile_kernel";
  k.block_x = g.threads;
  k.block_y = 1;
  k.tile_rows = g.rows;
  k.tile_cols = g.cols;
  return k;
}

// fast_tile's 1-byte path (fast_tile_bytes in kernels/fast_tile.cuh): a column-major tile of words,
// tw[128][32], word g of column c at tw[c][g ^ s(c)], s(c) = ((c / 16) mod 8) * 4. Thread (warp, lx,
// ly), g = 4 warp + ly:
//   scatter tw[16 lx + j][g ^ s]: the 4 rows 4g .. 4g + 3 of column 16 lx + j, one STS per j (trip j);
//   gather  tw[c][4 lx ^ s] .. + 3, c = 4 (8 it + warp) + ly: one 16-byte LDS per output vector (trip it).
// SASS (nvcc 13.0, sm_90): 16 STS and 4 LDS.128 per thread and tile.
kernel_model fast_tile_bytes_model(const fast_tile_geometry& g) {
  const int words = g.rows / 4, nt = g.threads;
  kernel_model k = fast_tile_frame(g);
  k.array = {"tw", g.cols, words, 4, [words](int row, int col) -> std::int64_t {
               return (std::int64_t{row} * words + (col ^ (((row >> 4) & 7) << 2))) * 4;
             }};
  k.instructions.push_back({"tw[16 lx + j][g ^ s] = column 16 lx + j of rows 4g .. 4g+3   (trip = j)", smem_op::kStore,
                            16, 4, [](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int lx = c.tx % 8, ly = (c.tx % 32) / 8, warp = c.tx / 32;
                              return smem_coord{16 * lx + c.trip, 4 * warp + ly};
                            }});
  k.instructions.push_back({"o = tw[c][4 lx ^ s] .. + 3, one 16-byte load   (trip = it)", smem_op::kLoad, 4, 16,
                            [nt](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int lx = c.tx % 8, ly = (c.tx % 32) / 8, warp = c.tx / 32;
                              return smem_coord{(c.trip * (nt / 32) + warp) * 4 + ly, 4 * lx};
                            }});
  k.compiler_note =
      "1-byte elements go through words: the sm_90 SASS of fast_tile_kernel<unsigned char> (nvcc 13.0) has 16 STS "
      "and 4 LDS.128 per thread and tile, as the model counts";
  return k;
}

status make_fast_tile(int, int, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  if (shape.rows > 0)
    if (status s = check_vectors("fast_tile", shape, elem_bytes, true, true, why); s != status::kSuccess) return s;
  const fast_tile_geometry g = fast_tile_geometry_of(elem_bytes);
  if (elem_bytes == 1) {
    *out = fast_tile_bytes_model(g);
    return status::kSuccess;
  }
  const int v = 16 / elem_bytes;
  constexpr int kIters = 4;  // 16-byte vectors per thread and side
  const int nt = g.threads, segs_in = g.cols / v / 8, segs_out = g.rows / v / 8;
  // The scatter's store width: one element, or a pair of 2-byte elements merged by nvcc.
  const int pair = elem_bytes == 2 ? 2 : 1;
  const int stores_per_vec = v / pair;

  kernel_model k = fast_tile_frame(g);
  k.array = {"tile", g.rows, g.cols + g.pad, elem_bytes, {}};
  k.instructions.push_back(
      {pair == 1 ? fmt::format("tile[row][col + k] = v[it].e[k]   (trip = it*{} + k)", v)
                 : fmt::format("tile[row][col + k .. k+1] = v[it].e[k], e[k+1]: one 4-byte STS per pair   (trip = "
                               "it*{} + k/2)",
                               stores_per_vec),
       smem_op::kStore, kIters * stores_per_vec, elem_bytes * pair,
       [=](const lane_ctx& c) -> std::optional<smem_coord> {
         const int it = c.trip / stores_per_vec, m = c.trip % stores_per_vec;
         const int tid = c.tx, lx = tid % 8, ly = (tid % 32) / 8;
         const int w = (it * nt + tid) / 32;
         const int row = (w / segs_in) * 4 + ly, col = ((w % segs_in) * 8 + lx) * v;
         return smem_coord{row, col + m * pair};
       }});
  k.instructions.push_back({fmt::format("o.e[k] = tile[i + k][c]   (trip = it*{} + k)", v), smem_op::kLoad, kIters * v, 0,
                            [=](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int it = c.trip / v, kk = c.trip % v;
                              const int tid = c.tx, lx = tid % 8, ly = (tid % 32) / 8;
                              const int w = (it * nt + tid) / 32;
                              const int col = (w / segs_out) * 4 + ly, i = ((w % segs_out) * 8 + lx) * v;
                              return smem_coord{i + kk, col};
                            }});
  k.compiler_note =
      pair == 1
          ? fmt::format("nvcc 13.0 keeps one shared access per element: the sm_90 SASS of fast_tile_kernel<{}> has "
                        "{} STS{} and {} LDS{} (4 vectors of {} elements per thread on each side)",
                        word_type_name(elem_bytes), kIters * v, sass_suffix(elem_bytes), kIters * v,
                        sass_suffix(elem_bytes), v)
          : "nvcc 13.0 merges the scatter's 2-byte pairs: the sm_90 SASS of fast_tile_kernel<unsigned short> has 16 "
            "4-byte STS (elements k, k+1 of a tile row, 4-byte aligned) and 32 LDS.U16, and the model counts those";
  *out = std::move(k);
  return status::kSuccess;
}

// permute_packed (src/gpu/kernels/permute_packed.cuh) on a 2-D transpose: the box and the padding
// are the planner's (packed_plan, src/gpu/packed_tile.cpp), so the model is made for one shape.
// Block 256 x 1; slot q = tx + 256 * trip, trips = E (slots per thread). Per tile:
//   store tile[q + q / pad] = v[trip]: every slot inside the box stores, edge tiles included (the
//     slots beyond the matrix store values nobody reads back);
//   load tile[s_out(q)]: the element that is the q-th of the box in output order, only where it
//     lies inside the matrix.
// A box spanning several matrices of a batch is outside the model (tile classes are per matrix).
status make_permute_packed(int, int, int elem_bytes, const problem_2d& shape, kernel_model* out, std::string* why) {
  if (shape.rows <= 0)
    return fail(status::kInvalidExtent, why, "permute_packed's box depends on the shape: give --shape RxC");
  transpose_desc d;
  d.rows = shape.rows;
  d.cols = shape.cols;
  d.batch = shape.batch;
  d.elem_bytes = elem_bytes;
  const detail::problem pr = detail::normalize(detail::to_problem(d));
  if (detail::classify(pr) != detail::problem_class::kTranspose2d)
    return fail(status::kVariantNotApplicable, why,
                fmt::format("a {}x{} matrix is not a 2-D transpose once normalised (it is a {})", shape.rows,
                            shape.cols, detail::class_name(detail::classify(pr))));
  // The plan the kernel runs on vector-aligned pointers (cudaMalloc's, as under the profiler).
  auto p = std::make_shared<detail::gpu::packed_params>();
  const char* reason = "";
  if (!detail::gpu::packed_plan(pr, true, p.get(), &reason)) return fail(status::kVariantNotApplicable, why, reason);
  int rdim = -1, cdim = -1;  // the dims of the input's rows (output-contiguous) and columns
  for (int k = 0; k < pr.rank; ++k) {
    if (pr.dims[k].out_stride == 1) rdim = k;
    else if (pr.dims[k].in_stride == 1) cdim = k;
    else if (p->t[k] > 1)
      return fail(status::kVariantNotApplicable, why,
                  "this box spans several matrices of the batch; the model counts boxes inside one matrix");
  }
  kernel_model k;
  k.variant = "permute_packed";
  k.kernel_function = "permute_packed_kernel";
  k.block_x = detail::gpu::kPackedThreads;
  k.block_y = 1;
  k.tile_rows = p->t[rdim];
  k.tile_cols = p->t[cdim];
  k.made_for = shape;
  k.array = {"tile", 1, p->smem_elems, elem_bytes, {}, true};
  const int slots = p->slots;
  k.instructions.push_back({fmt::format("*(word{}*)&tile[s_in[j]] = v[j]   (input vector u = tx + 256 j of {} "
                                        "elements, every one in the box)",
                                        p->vin * elem_bytes * 8, p->vin),
                            smem_op::kStore, slots, p->vin * elem_bytes,
                            [p](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int u = c.tx + c.trip * detail::gpu::kPackedThreads;
                              if (u >= p->volume / p->vin) return std::nullopt;
                              return smem_coord{0, detail::gpu::packed_smem_index(*p, u * p->vin)};
                            }});
  // Output vector o = tx + 256 j loads its vout elements (trip = j * vout + i): out_fast_pitch
  // apart, or stepped through the dims the vector spans (packed_gather_next).
  k.instructions.push_back({p->vout == 1 ? std::string("dst[out_rel[j]] = tile[s_out[j]]   (slots inside the matrix)")
                            : p->gather_levels == 0
                                ? fmt::format("e[i] = tile[index(pos[j] + i * {})], i < {}   (slots inside the matrix)",
                                              p->out_fast_pitch, p->vout)
                                : fmt::format("e[i] = tile[index(pos)], pos stepped over 2 dims, i < {}   (slots "
                                              "inside the matrix)",
                                              p->vout),
                            smem_op::kLoad, slots * p->vout, 0,
                            [p, rdim, cdim](const lane_ctx& c) -> std::optional<smem_coord> {
                              const int j = c.trip / p->vout, i = c.trip % p->vout;
                              const int o = c.tx + j * detail::gpu::kPackedThreads;
                              if (o >= p->volume / p->vout) return std::nullopt;
                              int rem = o * p->vout + i, cr = 0, cc = 0;
                              for (int n = 0; n < p->n_box; ++n) {  // the element's coordinates, output order
                                const int dd = p->out_order[n], v = rem % p->t[dd];
                                rem /= p->t[dd];
                                if (dd == rdim) cr = v;
                                if (dd == cdim) cc = v;
                              }
                              if (cr >= c.valid.rows || cc >= c.valid.cols) return std::nullopt;
                              const auto b = detail::gpu::packed_slot_of(*p, o * p->vout);
                              const int pos = detail::gpu::packed_gather_pos(*p, b.pos, b.gather, i);
                              return smem_coord{0, detail::gpu::packed_smem_index(*p, pos)};
                            }});
  const std::string layout =
      p->pad_pitch   ? fmt::format("{} padding elements every {}", p->pad_unit, p->pad_pitch)
      : p->swz_shift ? fmt::format("{}-element chunks swizzled by bits {}+ of their index", p->vin, p->swz_shift)
                     : std::string("no padding or swizzle");
  k.compiler_note = fmt::format(
      "box {}x{} (rows x cols of the input), vectors of {}/{} elements in/out, {} slots per thread, {} (the "
      "layout with the fewest wavefronts); the SASS of permute_packed_kernel has one STS per input vector and one "
      "LDS per element of an output vector",
      k.tile_rows, k.tile_cols, p->vin, p->vout, slots, layout);
  *out = std::move(k);
  return status::kSuccess;
}

// narrow (src/gpu/kernels/narrow.cuh, launch shape in configure_narrow, src/gpu/configure.cpp): the
// short side (S <= 64 elements) is kept whole, the long side cut into chunks; one chunk is a logical
// tile. Shared memory is tile[S][chunk + V] (dynamic, 16-byte aligned), 256 threads.
//   wide_in (rows <= 64, output dense): S = rows.
//     row side:    idx = tid + 256*t < S * row_vecs:  16-byte store tile[i][jv .. jv+V-1],
//                  i = idx / row_vecs, jv = (idx % row_vecs) * V, row_vecs = ceil(len / V)
//     linear side: q0 = (tid + 256*t) * V < S * len:  for k < V, q = q0 + k, element load
//                  tile[q % S][q / S] if q / S < len
//   tall_in (cols <= 64, input dense): S = cols, the same accesses with load and store exchanged:
//     linear side stores tile[q % S][q / S] (if q / S < len), row side loads 16-byte tile[j][iv ..].
// len is the chunk's length (the last chunk may be short). The SASS has one STS.128 / LDS.128 per
// row vector and V predicated element accesses per linear vector, as the source; the linear side's
// trips are modelled as trip = t * V + k.
constexpr int kNarrowMax = 64;               // configure.cpp
constexpr int kNarrowTileBytes = 16 * 1024;  // configure.cpp
constexpr int kNarrowThreads = 256;          // narrow.cuh

status make_narrow(int, int, int elem_bytes, const problem_2d& p, kernel_model* out, std::string* why) {
  if (p.rows < 1 || p.cols < 1)
    return fail(status::kInvalidExtent, why,
                "narrow's shared layout follows the matrix shape (chunk, pitch, wide_in or tall_in): give the shape");
  bool wide_in;
  if (p.rows <= kNarrowMax) {
    wide_in = true;
  } else if (p.cols <= kNarrowMax) {
    wide_in = false;
  } else {
    return fail(status::kVariantNotApplicable, why,
                fmt::format("narrow needs a short side of at most {} elements (got {}x{})", kNarrowMax, p.rows, p.cols));
  }
  // Rows whose leading dimension is not a multiple of V are moved with one vector more each and a
  // per-row shift in the tile (kernels/narrow.cuh); the model covers the aligned layout only.
  if ((wide_in ? p.cols : p.rows) % (16 / elem_bytes))
    return fail(status::kMisaligned, why,
                fmt::format("the narrow model covers rows that are whole 16-byte vectors: the {} of a {}x{} matrix "
                            "of {}-byte elements are not (the kernel shifts each row by its alignment there)",
                            wide_in ? "input rows" : "output rows", p.rows, p.cols, elem_bytes));
  if (p.batch > 1 && (p.rows * p.cols * elem_bytes) % 16)
    return fail(status::kMisaligned, why,
                fmt::format("narrow needs batch strides that are multiples of 16 bytes ({}x{} of {}-byte elements)",
                            p.rows, p.cols, elem_bytes));
  const int v = 16 / elem_bytes;
  const int S = static_cast<int>(wide_in ? p.rows : p.cols);
  int chunk = kNarrowTileBytes / (S * elem_bytes) / 32 * 32;
  if (chunk < 32) chunk = 32;
  const int pitch = chunk + v;
  const int trips = (S * (chunk / v) + kNarrowThreads - 1) / kNarrowThreads;  // both sides: S * chunk / V vectors

  kernel_model k;
  k.variant = "narrow";
  k.kernel_function = "narrow_kernel";
  k.block_x = kNarrowThreads;
  k.block_y = 1;
  k.tile_rows = wide_in ? S : chunk;
  k.tile_cols = wide_in ? chunk : S;
  k.array = {"tile", S, pitch, elem_bytes, {}};
  k.made_for = problem_2d{p.rows, p.cols, 1};
  auto len_of = [wide_in](const lane_ctx& c) { return wide_in ? c.valid.cols : c.valid.rows; };
  // The row side: a 16-byte vector of tile row i (wide_in: stored; tall_in: loaded).
  lane_fn row_side = [=](const lane_ctx& c) -> std::optional<smem_coord> {
    const int len = len_of(c), row_vecs = (len + v - 1) / v;
    const int idx = c.tx + kNarrowThreads * c.trip;
    if (idx >= S * row_vecs) return std::nullopt;
    return smem_coord{idx / row_vecs, (idx % row_vecs) * v};
  };
  // The linear side: element k of the dense run's vector q0.
  lane_fn linear_side = [=](const lane_ctx& c) -> std::optional<smem_coord> {
    const int len = len_of(c), t = c.trip / v, kk = c.trip % v;
    const int q0 = (c.tx + kNarrowThreads * t) * v;
    if (q0 >= S * len) return std::nullopt;
    const int q = q0 + kk;
    if (q / S >= len) return std::nullopt;
    return smem_coord{q % S, q / S};
  };
  if (wide_in) {
    k.instructions.push_back({"tile[i][jv .. jv+V-1] = in[i][l0 + jv ..]   (16-byte vector; idx = tid + 256*trip)",
                              smem_op::kStore, trips, 16, row_side});
    k.instructions.push_back({fmt::format("out[l0*S + q] <- tile[q % S][q / S]   (q = q0 + k; trip = t*{} + k)", v),
                              smem_op::kLoad, trips * v, 0, linear_side});
  } else {
    k.instructions.push_back({fmt::format("tile[q % S][q / S] = in[l0*S + q]   (q = q0 + k; trip = t*{} + k)", v),
                              smem_op::kStore, trips * v, 0, linear_side});
    k.instructions.push_back({"out[j][l0 + iv ..] = tile[j][iv .. iv+V-1]   (16-byte vector; idx = tid + 256*trip)",
                              smem_op::kLoad, trips, 16, row_side});
  }
  k.compiler_note = fmt::format(
      "{}: short side {} kept whole, chunk {} of the long side, pitch {} elements; nvcc 13.0 compiles it as written "
      "(sm_90 SASS of narrow_kernel<{}, {}, false>: one {}.128 per row vector, {} predicated element {}{} per linear "
      "vector)",
      wide_in ? "wide_in" : "tall_in", S, chunk, pitch, word_type_name(elem_bytes), wide_in ? "true" : "false",
      wide_in ? "STS" : "LDS", v, wide_in ? "LDS" : "STS", sass_suffix(elem_bytes));
  *out = std::move(k);
  return status::kSuccess;
}

constexpr std::array<variant_entry, 7> kVariants{{
    {"smem_v1", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v1},
    {"smem_v2", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v2},
    {"smem_v3", 16, 16, "square 8x8, 16x16 or 32x32", make_smem_v3},
    {"tiled", 32, 8, "32xH with H in 1, 2, 4, 8, 16, 32", make_tiled},
    {"fast_tile", 0, 0, "fixed by the element size: 256x1 (1 byte), 128x1 (2), 64x1 (4), 128x1 (8), 256x1 (16)",
     make_fast_tile},
    {"narrow", 0, 0, "fixed: 256x1", make_narrow},
    {"permute_packed", 0, 0, "fixed: 256x1", make_permute_packed},
}};

// The registry's variants with no shared memory, and why (their sm_90 SASS has no LDS or STS:
// scripts/sass_shared_ops.sh).
struct no_shared {
  std::string_view name;
  const char* why;
};
constexpr std::array<no_shared, 8> kNoShared{{
    {"naive_row_read", "one thread per element, straight from global to global memory"},
    {"naive_col_read", "one thread per element, straight from global to global memory"},
    {"reg_tile", "it transposes V x V blocks in registers, 16-byte vectors both ways"},
    {"reg_batch", "it transposes V x V blocks in registers, one per thread, 16-byte vectors both ways"},
    {"permute_general", "one thread per element or wider word, straight from global to global memory"},
    {"copy", "it is cudaMemcpyAsync, no kernel of xpose's"},
    {"cpu_naive", "it runs on the CPU"},
    {"cpu_blocked", "it runs on the CPU"},
}};

}  // namespace

std::span<const variant_entry> modelled_variants() { return kVariants; }

const variant_entry* find_modelled_variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (name == v.name) return &v;
  return nullptr;
}

std::string modelled_variant_list() {
  std::string s;
  for (const auto& v : kVariants) s += (s.empty() ? "" : ", ") + std::string(v.name);
  return s;
}

bool has_no_shared_memory(std::string_view name, std::string* why) {
  for (const auto& n : kNoShared)
    if (n.name == name) {
      if (why)
        *why = fmt::format("{} uses no shared memory ({}), so there are no bank conflicts to model and Nsight "
                           "Compute counts 0 shared wavefronts; the variants with shared memory are {}",
                           name, n.why, modelled_variant_list());
      return true;
    }
  return false;
}

status make_kernel_model(std::string_view variant, int block_x, int block_y, int elem_bytes, kernel_model* out,
                         std::string* why) {
  return make_kernel_model(variant, block_x, block_y, elem_bytes, problem_2d{}, out, why);
}

status make_kernel_model(std::string_view variant, int block_x, int block_y, int elem_bytes, const problem_2d& shape,
                         kernel_model* out, std::string* why) {
  const variant_entry* v = find_modelled_variant(variant);
  if (!v) {
    std::string reason;
    if (has_no_shared_memory(variant, &reason)) return fail(status::kVariantNotApplicable, why, reason);
    return fail(status::kUnknownVariant, why,
                fmt::format("no bank model for variant '{}' (modelled: {})", variant, modelled_variant_list()));
  }
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
    return fail(status::kUnsupportedElementSize, why,
                fmt::format("element size {} is not 1, 2, 4, 8 or 16 bytes", elem_bytes));
  if (v->default_block_x == 0) {
    // The kernel fixes its block; the planner refuses a block shape for it, and so does the model.
    if (block_x != 0 || block_y != 0)
      return fail(status::kInvalidBlock, why,
                  fmt::format("{} takes no block shape (its block is {})", v->name, v->blocks));
    return v->make(0, 0, elem_bytes, shape, out, why);
  }
  if (block_x == 0 && block_y == 0) {
    block_x = v->default_block_x;
    block_y = v->default_block_y;
  }
  if (block_x < 1 || block_y < 1 || static_cast<long>(block_x) * block_y > 1024)
    return fail(status::kInvalidBlock, why,
                fmt::format("block {}x{} is invalid: each side at least 1, at most 1024 threads in all", block_x,
                            block_y));
  return v->make(block_x, block_y, elem_bytes, shape, out, why);
}

}  // namespace xpose::model
