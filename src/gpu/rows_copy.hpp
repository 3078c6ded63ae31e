// The row copy of permute_rows: a permutation whose fastest dim is contiguous on both sides (a
// kRowCopy problem) moved as rows of W bytes, and the index arithmetic the kernel and the host tests
// share (everything here is __host__ __device__ or host-only).
//
// Why a kernel of its own: the other kernels move elements, or words as wide as the row's bytes
// and every stride allow, so a row whose length or strides are odd moves byte by byte. H200
// 2026-11-30, i8, % of copy: [596,7,19,23,21,7] perm 1,0,2,3,4,5 (rows of 64,239 B, permute_general
// with 1-byte words) 12.5; [N,64,W] perm 1,0,2 with W = 257 / 513 / 1025: 2.5-15.3 where W = 256 /
// 512 / 1024 ran 86-94.
//
// The output of a row copy is dense: row after row, in output order, one stream of bytes. The
// kernel walks that stream in aligned 16-byte chunks (item j: bytes 16 j - d .. 16 j - d + 15 of
// the output, d the output pointer's misalignment), so every store is one aligned vector but at
// the tensor's two ends. A chunk covers pieces of one or more consecutive rows (at most
// rows_max_pieces(W)); for each piece the kernel loads the aligned input chunk holding its first
// source byte and the next one, shifts the 32 bytes down to the piece's position in the output
// chunk (funnel shifts), and keeps the piece's bytes. Neighbouring chunks load the same input
// chunks (L1 hits). Only input chunks across the tensor's first or last byte are read byte by byte,
// so nothing outside the input is read.
#pragma once

#include <cstdint>

#include "gpu/packed_tile.hpp"  // fast_div
#include "plan/problem.hpp"

namespace xpose::detail::gpu {

inline constexpr int kRowsThreads = 256;
// Chunks per thread: warp w of block b moves chunks (8 b + w) * 32 kRowsSteps .. + 32 kRowsSteps - 1,
// 32 consecutive ones (512 bytes) per step, so a thread's chunks lie 512 bytes apart and a row of
// 512 bytes or more keeps the thread's cursor (rows_cursor) from one step to the next.
inline constexpr int kRowsSteps = 8;

struct rows_params {
  int nd = 0;  // row dims: the normalised problem's dims but the last (output order, last fastest)
  // Every offset is a 32-bit int: the output and the input span are below 2^31 - 16 bytes
  // (rows_plan), a third fewer instructions per chunk than 64-bit offsets.
  std::int32_t in_stride[kMaxRank] = {};  // bytes
  fast_div ext_div[kMaxRank];             // extents of the row dims
  std::int32_t row_bytes = 1;             // W: the last dim's extent times the element size
  fast_div row_div;                       // W, for the row of an output byte
  std::int32_t rows = 1;
  std::int32_t total_bytes = 0;           // rows * W: the output's bytes
  std::int32_t in_span_bytes = 0;         // bytes from the input's first element to past its last
  int max_pieces = 1;                     // rows_max_pieces(W)
};

// Rows a 16-byte chunk of the output can touch: a first piece of 1 byte or more, then whole rows.
XPOSE_HD constexpr int rows_max_pieces(std::int32_t w) { return w >= 15 ? 2 : static_cast<int>((15 + w - 1) / w) + 1; }

// Output chunks for an output whose first byte lies out_mis bytes past a 16-byte boundary.
XPOSE_HD inline std::int32_t rows_chunks(const rows_params& p, int out_mis) {
  return (out_mis + p.total_bytes + 15) / 16;
}

// Input byte offset of row r (0 <= r < rows, output order); *inner gets r's coordinate along the
// innermost row dim.
XPOSE_HD inline std::int32_t rows_in_offset(const rows_params& p, std::uint32_t r, std::uint32_t* inner) {
  std::int32_t off = 0;
  *inner = 0;
  for (int k = p.nd - 1; k >= 0; --k) {
    const std::uint32_t q = p.ext_div[k].div(r);
    const std::uint32_t c = r - q * p.ext_div[k].d;
    if (k == p.nd - 1) *inner = c;
    off += static_cast<std::int32_t>(c) * p.in_stride[k];
    r = q;
  }
  return off;
}

// The last row a thread's previous chunk touched: its input offset and innermost coordinate, so
// the next chunk in the same row (a row longer than the distance between a thread's chunks) costs
// no divisions, and a later row within the same run of the innermost row dim one multiply-add.
inline constexpr std::uint32_t kRowsNoRow = 0xffffffffu;
struct rows_cursor {
  std::uint32_t r = kRowsNoRow;
  std::uint32_t inner = 0;
  std::int32_t off = 0;
};

// Moves the cursor to row r: a step of d rows that keeps the innermost row coordinate inside its
// extent adds d strides; anything else (a first row, a step back, a wrap) divides. A thread's next
// chunk lies 512 bytes on, so for rows under 512 bytes that is a step of several rows: with only a
// step of one taken without divisions, i8 rows of 23 B ran a division chain per chunk (H200,
// 2026-12-02, docs/performance.md "permute_rows: one path for two pieces").
XPOSE_HD inline void rows_seek(const rows_params& p, std::uint32_t r, rows_cursor* c) {
  if (c->r == r) return;
  const std::uint32_t inner_ext = p.nd > 0 ? p.ext_div[p.nd - 1].d : 1u;
  if (c->r != kRowsNoRow && r > c->r && r - c->r < inner_ext - c->inner) {
    const std::uint32_t d = r - c->r;
    c->off += static_cast<std::int32_t>(d) * p.in_stride[p.nd - 1];
    c->inner += d;
  } else {
    c->off = rows_in_offset(p, r, &c->inner);
  }
  c->r = r;
}

// Calls piece(b, n, s) for each row piece of output chunk j (P >= rows_max_pieces(W)): chunk bytes
// b .. b + n - 1 are the input bytes at offsets s + b .. s + b + n - 1 (s, the offset chunk byte 0
// would come from, may be negative). Bytes of the chunk outside the output get no piece. The cursor
// is left on the chunk's last row.
template <int P, class F>
XPOSE_HD inline void rows_pieces(const rows_params& p, std::uint32_t j, int out_mis, rows_cursor* cur, F&& piece) {
  const std::int32_t pos0 = 16 * static_cast<std::int32_t>(j) - out_mis;  // output byte of chunk byte 0
  const std::int32_t first = pos0 > 0 ? pos0 : 0;
  const std::int32_t last = pos0 + 16 < p.total_bytes ? pos0 + 16 : p.total_bytes;
  std::uint32_t r = p.row_div.div(static_cast<std::uint32_t>(first));
  std::int32_t x = first - static_cast<std::int32_t>(r) * p.row_bytes;  // byte in row r
  int b = first - pos0;
  const int end = last - pos0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < P; ++k) {
    if (b >= end) break;
    rows_seek(p, r, cur);
    const int n = p.row_bytes - x < end - b ? p.row_bytes - x : end - b;
    piece(b, n, cur->off + x - b);
    b += n;
    ++r;
    x = 0;
  }
}

// Host side (rows_copy.cpp).
// The widest word (16, 8, 4 or 2 bytes, else the element) that divides a row copy's row bytes and
// every stride in bytes: what permute_general and permute_packed move a row copy's rows as.
// [B,H,N,D] -> [B,N,H,D] with D = 128 floats moves 16-byte words, 4x fewer threads and index
// decompositions than floats. (The launch narrows it to what the pointers' alignment allows.)
int rows_word_bytes(const problem& p);
// The problem with its element widened to rows_word_bytes (strides and the fastest extent divided
// by the widening): what permute_packed plans a row copy as.
problem as_row_words(const problem& p);
// Fills *p for a normalised row-copy problem, or returns false with
// *reason (the fastest dim not contiguous on both sides, an output that is not dense, negative
// strides, 2^31 - 16 output bytes or more).
bool rows_plan(const problem& pr, rows_params* p, const char** reason);

}  // namespace xpose::detail::gpu
