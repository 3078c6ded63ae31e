// tma_tile's host side: tensor maps, arguments and the launch of the tuned shape (launch shape:
// configure.cpp, configure_tma_tile).
#include <cudaTypedefs.h>

#include <algorithm>
#include <optional>

#include "gpu/common.cuh"
#include "gpu/kernels/tile_shapes.hpp"
#include "gpu/kernels/tma_tile.cuh"
#include "gpu/tickets.hpp"
#include "gpu/tma_maps.hpp"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {
namespace {

// cuTensorMapEncodeTiled, found once through the runtime (no link against libcuda).
PFN_cuTensorMapEncodeTiled_v12000 encoder(std::string* why, status* st) {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  if (!fn) *st = cuda_fail(static_cast<int>(cudaErrorNotSupported), "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)",
                           __FILE__, __LINE__, why);
  return fn;
}

// One 3-D map: `inner` elements per row (the contiguous dim), `outer` rows, `batch` matrices.
status encode(CUtensorMap* map, const void* base, int S, std::int64_t inner, std::int64_t outer, std::int64_t batch,
              std::int64_t ld, std::int64_t bs, int box_rows, std::string* why) {
  const int U = S < 8 ? S : 8, E = S / U;
  const CUtensorMapDataType type = U == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : U == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : U == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                            : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  // A single matrix still gets a batch stride: any multiple of 16 bytes past the matrix.
  if (batch == 1) bs = ld * outer;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner * E), static_cast<cuuint64_t>(outer),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld * S), static_cast<cuuint64_t>(bs * S)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(128 / U), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t estr[3] = {1, 1, 1};
  status st = status::kSuccess;
  auto fn = encoder(why, &st);
  if (!fn) return st;
  const CUresult r = fn(map, type, 3, const_cast<void*>(base), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return cuda_fail(static_cast<int>(r), "cuTensorMapEncodeTiled", __FILE__, __LINE__, why);
  return status::kSuccess;
}

}  // namespace

status make_tma_maps(const matrix_view& m, int S, int npo, int npi, const void* in, void* out, CUtensorMap* map_in,
                     CUtensorMap* map_out, std::string* why) {
  if (status st = check_tma_view(m, S, why); st != status::kSuccess) return st;
  if (reinterpret_cast<std::uintptr_t>(in) % 16 || reinterpret_cast<std::uintptr_t>(out) % 16) {
    if (why) *why = "tma_tile needs 16-byte aligned pointers";
    return status::kMisaligned;
  }
  if (status st = encode(map_in, in, S, m.cols, m.rows, m.batch, m.ld_in, m.bs_in, npo * 128 / S, why);
      st != status::kSuccess)
    return st;
  return encode(map_out, out, S, m.rows, m.cols, m.batch, m.ld_out, m.bs_out, npi * 128 / S, why);
}

tma_tile_args make_tma_args(const matrix_view& m, int S, int npo, int npi, int group, int stages) {
  tma_tile_args a;
  a.rows = m.rows;
  a.cols = m.cols;
  a.tiles_r = ceil_div(m.rows, npo * 128 / S);
  a.tiles_c = ceil_div(m.cols, npi * 128 / S);
  a.tiles = a.tiles_r * a.tiles_c * m.batch;
  a.group = group;
  a.stages = stages;
  return a;
}

status run_tma_tile(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  auto go = [&]<int S>() -> status {
    using sh = tma_tile_shape<S>;
    CUtensorMap map_in, map_out;
    if (status st = make_tma_maps(pd.mat, S, sh::kNpo, sh::kNpi, in, out, &map_in, &map_out, why);
        st != status::kSuccess)
      return st;
    tma_tile_args a = make_tma_args(pd.mat, S, sh::kNpo, sh::kNpi, sh::kGroup, sh::kStages);
    // More tiles than blocks: claim them in order through a leased ticket (none: the static order).
    std::optional<ticket_lease> lease;
    if (a.tiles > pd.launch.grid_x) {
      lease.emplace(s);
      a.ticket = lease->ticket();
    }
    XPOSE_CUDA_TRY((launch_tma_tile<S, sh::kNpo, sh::kNpi, sh::kThreads, sh::kOutBufs>(
                       map_in, map_out, a, static_cast<int>(pd.launch.grid_x), s)),
                   why);
    if (lease) XPOSE_CUDA_TRY(lease->release(), why);
    return status::kSuccess;
  };
  switch (pd.prob.elem_bytes) {
    case 1: return go.template operator()<1>();
    case 2: return go.template operator()<2>();
    case 4: return go.template operator()<4>();
    case 8: return go.template operator()<8>();
    case 16: return go.template operator()<16>();
  }
  return status::kUnsupportedElementSize;
}

}  // namespace xpose::detail::gpu
