// Launches of the seeds' kernels, the classic tile, its staggered form tiled_skew and its word form
// tiled_words (their launch shapes: configure.cpp).
//
// Each variant has two kernels: the seeds' own form (seed_form.cuh: int indices, one tile per
// block), run when the problem is one the seeds' code can launch (seed_form_fits), and the looped
// 64-bit kernel (naive.cuh, smem_seed.cuh, tiled.cuh) for every other shape.
#include "dispatch/plan_data.hpp"
#include "gpu/common.cuh"
#include "gpu/kernels/naive.cuh"
#include "gpu/kernels/seed_form.cuh"
#include "gpu/kernels/smem_seed.cuh"
#include "gpu/kernels/tiled.cuh"
#include "gpu/kernels/tiled_skew.cuh"
#include "gpu/kernels/tiled_words.cuh"
#include "gpu/variants.hpp"

namespace xpose::detail::gpu {
namespace {

template <class T>
using seed_kernel = void (*)(const T*, T*, int, int);
template <class T>
using looped_kernel = void (*)(const T*, T*, matrix_view, std::int64_t, std::int64_t);

template <class T>
status launch(const plan_data& pd, seed_kernel<T> seed, looped_kernel<T> looped, const void* in, void* out,
              cudaStream_t s, std::string* why) {
  const T* src = static_cast<const T*>(in);
  T* dst = static_cast<T*>(out);
  if (seed_form_fits(pd))
    seed<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(src, dst, static_cast<int>(pd.mat.rows),
                                                              static_cast<int>(pd.mat.cols));
  else
    looped<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(src, dst, pd.mat, pd.launch.grid_x, pd.launch.grid_y);
  XPOSE_CUDA_TRY(cudaGetLastError(), why);
  return status::kSuccess;
}

// Kernels templated on the square block edge B (8, 16, 32), as the seeds' BLOCKDIM.
template <template <int, class> class Pick>
status run_square_block(const plan_data& pd, const void* in, void* out, cudaStream_t s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    switch (pd.launch.block_x) {
      case 8: return launch<T>(pd, Pick<8, T>::seed, Pick<8, T>::looped, in, out, s, why);
      case 16: return launch<T>(pd, Pick<16, T>::seed, Pick<16, T>::looped, in, out, s, why);
      case 32: return launch<T>(pd, Pick<32, T>::seed, Pick<32, T>::looped, in, out, s, why);
    }
    return status::kInvalidBlock;  // configure_smem_* admits 8, 16, 32 only
  });
}

template <int B, class T> struct pick_v1 {
  static constexpr seed_kernel<T> seed = smem_v1_seed<B, T>;
  static constexpr looped_kernel<T> looped = smem_v1_kernel<B, T>;
};
template <int B, class T> struct pick_v2 {
  static constexpr seed_kernel<T> seed = smem_v2_seed<B, T>;
  static constexpr looped_kernel<T> looped = smem_v2_kernel<B, T>;
};
template <int B, class T> struct pick_v3 {
  static constexpr seed_kernel<T> seed = smem_v3_seed<B, T>;
  static constexpr looped_kernel<T> looped = smem_v3_kernel<B, T>;
};

}  // namespace

status run_naive_row_read(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() {
    return launch<T>(pd, naive_row_read_seed<T>, naive_row_read_kernel<T>, in, out, s, why);
  });
}

status run_naive_col_read(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() {
    return launch<T>(pd, naive_col_read_seed<T>, naive_col_read_kernel<T>, in, out, s, why);
  });
}

status run_smem_v1(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return run_square_block<pick_v1>(pd, in, out, s, why);
}
status run_smem_v2(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return run_square_block<pick_v2>(pd, in, out, s, why);
}
status run_smem_v3(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return run_square_block<pick_v3>(pd, in, out, s, why);
}

// The looped kernel's order follows configure_tiled's grid: down for single matrices, across for batches.
template <int H, class T>
looped_kernel<T> tiled_looped(const plan_data& pd) {
  return pd.mat.batch == 1 ? tiled_kernel<H, T, true> : tiled_kernel<H, T, false>;
}

status run_tiled(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    switch (pd.launch.block_y) {
      case 1: return launch<T>(pd, tiled_seed<1, T>, tiled_looped<1, T>(pd), in, out, s, why);
      case 2: return launch<T>(pd, tiled_seed<2, T>, tiled_looped<2, T>(pd), in, out, s, why);
      case 4: return launch<T>(pd, tiled_seed<4, T>, tiled_looped<4, T>(pd), in, out, s, why);
      case 8: return launch<T>(pd, tiled_seed<8, T>, tiled_looped<8, T>(pd), in, out, s, why);
      case 16: return launch<T>(pd, tiled_seed<16, T>, tiled_looped<16, T>(pd), in, out, s, why);
      case 32: return launch<T>(pd, tiled_seed<32, T>, tiled_looped<32, T>(pd), in, out, s, why);
    }
    return status::kInvalidBlock;  // configure_tiled admits 1, 2, 4, 8, 16, 32 only
  });
}

status run_tiled_skew(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  return with_word(pd.prob.elem_bytes, [&]<class T>() -> status {
    if constexpr (sizeof(T) == 1) {
      return status::kVariantNotApplicable;  // configure_tiled_skew refuses it
    } else {
      switch (pd.launch.block_y) {  // the grid is (tile rows, tile columns), as the looped kernel's loops
        case 4: return launch<T>(pd, tiled_skew_seed<4, T>, tiled_skew_kernel<4, T>, in, out, s, why);
        case 8: return launch<T>(pd, tiled_skew_seed<8, T>, tiled_skew_kernel<8, T>, in, out, s, why);
        case 16: return launch<T>(pd, tiled_skew_seed<16, T>, tiled_skew_kernel<16, T>, in, out, s, why);
      }
      return status::kInvalidBlock;  // configure_tiled_skew admits 4, 8, 16 only
    }
  });
}

status run_tiled_words(const plan_data& pd, const void* in, void* out, CUstream_st* s, std::string* why) {
  auto go = [&]<class T>() -> status {
    auto pick = [&]<int H>() {
      return pd.mat.batch == 1 ? tiled_words_kernel<H, T, true> : tiled_words_kernel<H, T, false>;
    };
    void (*k)(const T*, T*, matrix_view, std::int64_t, std::int64_t) = nullptr;
    switch (pd.launch.block_y) {
      case 4: k = pick.template operator()<4>(); break;
      case 8: k = pick.template operator()<8>(); break;
      case 16: k = pick.template operator()<16>(); break;
      case 32: k = pick.template operator()<32>(); break;
      default: return status::kInvalidBlock;  // configure_tiled_words admits 4, 8, 16, 32 only
    }
    k<<<grid_of(pd.launch), block_of(pd.launch), 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out), pd.mat,
                                                         pd.launch.grid_x, pd.launch.grid_y);
    XPOSE_CUDA_TRY(cudaGetLastError(), why);
    return status::kSuccess;
  };
  switch (pd.prob.elem_bytes) {
    case 1: return go.template operator()<std::uint8_t>();
    case 2: return go.template operator()<std::uint16_t>();
  }
  return status::kVariantNotApplicable;  // configure_tiled_words refuses other sizes
}

}  // namespace xpose::detail::gpu
