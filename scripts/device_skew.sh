#!/usr/bin/env bash
# One device call for issue 4's odd leading dimensions (fourteenth session): the whole test_gpu, the
# odd sizes by name and under auto, small and mid-sized odd matrices (where the classic tile beats
# skew_tile: tiled_small_wins in the planner), and Nsight Compute on skew_tile. Binaries built on the
# development machine in BIN (default build-devbin: xpose, test_gpu, libgomp.so.1).
#   scripts/device_skew.sh [alltests] [odd] [small] [ncu]
#     env: SKEW_VARIANTS (odd), ODD_SHAPES, ODD_TYPES, ROUNDS, SMALL_VARIANTS, SMALL_SHAPES
#   alltests: the whole test_gpu plus memcheck on skew_tile's tests, on GPU 1 in the background (an
#   H200 pair), while the other modes run on GPU 0.
#   odd: SKEW_VARIANTS (default auto,skew_tile) on odd sizes, every element size skew_tile takes.
#   small: odd-sized single matrices of 0.25-191 MiB, auto against tiled and skew_tile, three rounds.
#   ncu: Nsight Compute on skew_tile at 10007x9973, i8 and f32.
# (The session's scratch kernel skew_async, measured with SKEW_VARIANTS=auto,skew_tile,skew_async and
# XPOSE_SKEW_CFG, was removed: docs/performance.md, "Fourteenth session".)
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  if [ "$mode" = alltests ]; then
    device_alltests '*GpuVariant*skew*:GpuRandom.Skew*'
  fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
V=${SKEW_VARIANTS:-auto,skew_tile}
for mode in "$@"; do
  case $mode in
    odd)
      for round in ${ROUNDS:-1 2}; do
        timeout 240 $B/xpose bench --variants "$V" --shapes ${ODD_SHAPES:-10007x9973,16383x16385,8191x8193,5000x5003} \
          --dtype ${ODD_TYPES:-i8,f16,f32,f64} --reps 10 --warmup 2 --json "$OUT/odd-$round.json" 2>&1 | grep -E '^\|' > "$OUT/odd-$round.log"
      done
      echo "odd done at ${SECONDS}s" ;;
    small)
      for round in 1 2 3; do
        timeout 240 $B/xpose bench --variants "${SMALL_VARIANTS:-auto,tiled,skew_tile}" \
          --shapes ${SMALL_SHAPES:-500x501,999x1001,1448x1449,2048x2049,2896x2897,3500x3501,4096x4097,5000x5003} --dtype i8,f16,f32,f64 \
          --reps 100 --warmup 10 --json "$OUT/small-$round.json" > /dev/null 2>&1
      done
      echo "small done at ${SECONDS}s" ;;
    ncu)
      NCU_LAUNCHES=2 device_ncu_skew i8 f32
      echo "ncu done at ${SECONDS}s" ;;
  esac
done
wait
