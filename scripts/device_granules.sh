#!/usr/bin/env bash
# One device call for the sixteenth session: skew_tile's load phase for 1- and 2-byte elements
# (kernels/skew_tile.cuh skew_load_raw; first tried as rows realigned in registers, hence the
# name) against a build from before it, and the looped tiled kernel's batch order. Binaries built
# on the development machine in BIN (default build-devbin: xpose, test_gpu, libgomp.so.1, and xpose_old
# = a build before the change; BINS names the builds to compare, default "xpose_old xpose xpose_ldg").
#   scripts/device_granules.sh [alltests] [odd] [suite] [verify] [ncu]
#   alltests: the whole test_gpu, then memcheck on skew_tile's and the classic tile's tests, on GPU 1.
#   odd: skew_tile by name and auto, i8 and f16 at odd sizes, the three binaries interleaved, two rounds.
#   suite: the permutation-suite cases that run skew_tile, the three binaries.
#   verify: auto on the suite cases of scripts/cases/tiled_suite_cases.txt (the tiled kernel's batch order).
#   ncu: Nsight Compute on skew_tile, 10007x9973 i8 and f16, the new binary.
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  [ "$mode" = alltests ] && device_alltests '*skew_tile*:GpuRandom.SkewTile*:*GpuVariant*tiled*:GpuRandom.TiledSkew*' 400
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
bins=${BINS:-"xpose_old xpose xpose_ldg"}
for mode in "$@"; do
  case $mode in
    odd)
      for round in 1 2; do
        for x in $bins; do
          [ -x "$B/$x" ] || continue
          timeout 200 $B/$x bench --variants skew_tile,auto --shapes ${ODD_SHAPES:-10007x9973,16383x16385,8191x8193,5000x5003,9973x10007} \
            --dtype ${ODD_TYPES:-i8,f16} --reps 10 --warmup 2 --json "$OUT/odd-$x-$round.json" > /dev/null 2>&1
        done
      done
      echo "odd done at ${SECONDS}s" ;;
    suite)
      for x in $bins; do
        [ -x "$B/$x" ] || continue
        device_cases - "suite-$x" "$x" <<'CASES'
360,163,56,81 2,3,1,0 i8
21024,8,14,19,6 2,3,4,1,0 i8
180,163,56,81 2,3,1,0 f16
10512,8,14,19,6 2,3,4,1,0 f16
CASES
      done
      echo "suite done at ${SECONDS}s" ;;
    verify)
      device_cases "$(dirname "$0")/cases/tiled_suite_cases.txt" verify-suite
      echo "verify done at ${SECONDS}s" ;;
    ncu)
      device_ncu_skew i8 f16
      echo "ncu done at ${SECONDS}s" ;;
  esac
done
wait
cd "$OUT" && tar czf /tmp/granules.tgz . && find . -type f -delete && mv /tmp/granules.tgz .
