#!/usr/bin/env bash
# One device call for the odd-size and small-matrix targets of issue 4 (thirteenth session): fast_tile's
# 1- or 2-byte path against an older build ($B/xpose_old), the bank model's fast_tile rows against
# Nsight Compute and the SASS checks, the changed plans by name with the permutation suite, small single
# matrices with 100 repetitions, narrow shapes under auto, and Nsight Compute on skew_tile. Binaries
# built on the development machine in BIN (default build-devbin: xpose, test_gpu, libgomp.so.1).
#   scripts/device_odd.sh [alltests] [bytes] [halves] [profile] [verify] [small] [narrow] [ncu]
#     env: PERM_CASES, SUITE_TYPES, BYTE_BATCHES
#   alltests: the whole test_gpu plus memcheck on fast_tile's and skew_tile's tests, on GPU 1 in the
#   background (an H200 pair), while the other modes run on GPU 0.
# (The session's sweeps of skew_tile's tile order and of threads per tile used scratch switches in
# configure.cpp, removed with their modes: docs/performance.md, "Thirteenth session", has the results.)
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  if [ "$mode" = alltests ]; then
    device_alltests '*GpuVariant*skew_tile*:*GpuVariant*fast_tile*:GpuRandom.*Align*:GpuRandom.TransposesSmall'
  fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
for mode in "$@"; do
  case $mode in
    bytes)
      # fast_tile's 1-byte path (words through a swizzled tile) against the binary before it
      # ($B/xpose_old), interleaved, by name and auto, 1-byte matrices and batches.
      for round in 1 2; do
        for x in xpose_old xpose; do
          timeout 200 $B/$x bench --variants auto,fast_tile --shapes 256x256,512x512,1024x1024,2048x1024,2048x2048,4096x4096,8192x8192 \
            --dtype i8 --reps 100 --warmup 10 --json "$OUT/bytes-$x-$round.json" > /dev/null 2>&1
          timeout 200 $B/$x bench --variants auto,fast_tile,reg_tile,tma_tile --shapes 16384x16384,16000x16000 \
            --dtype i8 --reps 10 --warmup 2 --json "$OUT/bytes-big-$x-$round.json" > /dev/null 2>&1
        done
      done
      IFS=';' read -ra groups <<< "${BYTE_BATCHES:-256x384@4096;128x128@8192;1024x128@512;32x48@100000;64x64@50000}"
      for g in "${groups[@]}"; do
        timeout 200 $B/xpose bench --variants auto,fast_tile,reg_batch --shapes "${g%@*}" --batch "${g#*@}" --dtype i8 \
          --reps 10 --warmup 2 --json "$OUT/bytes-batch-${g%@*}.json" > /dev/null 2>&1
      done
      echo "bytes done at ${SECONDS}s" ;;
    halves)
      # fast_tile's 2-byte word path against the binary before it ($B/xpose_old), interleaved; the
      # fast_tile rows of the bank-model comparison; 2-byte batches and large matrices by name.
      for r in "256x256 f16" "112x208 f16" "256x256 i8" "112x208 i8"; do
        set -- $r
        timeout 60 $B/xpose profile --variant fast_tile --shape $1 --dtype $2 2>&1 | tail -6 >> "$OUT/profile-fast.log"
      done
      for round in 1 2; do
        for x in xpose_old xpose; do
          timeout 200 $B/$x bench --variants auto,fast_tile --shapes 256x256,512x512,1024x1024,2048x1024,2048x2048,4096x4096 \
            --dtype f16 --reps 100 --warmup 10 --json "$OUT/halves-$x-$round.json" > /dev/null 2>&1
        done
      done
      for x in xpose_old xpose; do
        timeout 200 $B/$x bench --variants fast_tile,tma_tile --shapes 8192x8192,16384x16384 --dtype f16 --reps 10 \
          --warmup 2 --json "$OUT/halves-big-$x.json" > /dev/null 2>&1
        for g in 64x64@50000 64x256@8192 256x384@4096 1024x128@512; do
          timeout 200 $B/$x bench --variants auto,fast_tile --shapes "${g%@*}" --batch "${g#*@}" --dtype f16 \
            --reps 10 --warmup 2 --json "$OUT/halves-batch-$x-${g%@*}.json" > /dev/null 2>&1
        done
      done
      echo "halves done at ${SECONDS}s" ;;
    profile)
      # The bank models against Nsight Compute (docs/banks.md), and the SASS checks.
      timeout 300 $B/xpose profile --suite > "$OUT/profile-suite.log" 2>&1
      echo "profile rc $?" >> "$OUT/profile-suite.log"
      scripts/sass_shared_ops.sh $B/xpose fast_tile > "$OUT/sass.log" 2>&1
      scripts/sass_vector_stores.sh $B/xpose >> "$OUT/sass.log" 2>&1
      echo "profile done at ${SECONDS}s" ;;
    verify)
      # The plans auto changed (PERM_CASES lines "dtype extents perm variants", default
      # $B/i8changes.txt) by name, issue 5's suite under auto for SUITE_TYPES, and large 1-byte
      # matrices under auto.
      while read -r t e p v _; do
        timeout 200 $B/xpose bench --extents "$e" --perm "$p" --dtype "$t" --variants "$v" --reps 10 --warmup 2 2>&1 |
          grep -E '^\| [a-z]' | grep -v '^| variant' >> "$OUT/verify-perm.log"
      done < "${PERM_CASES:-$B/i8changes.txt}"
      timeout 200 $B/xpose bench --variants auto --shapes 4096x4096,8192x8192,16384x16384,16000x16000 --dtype i8 --reps 10 \
        --warmup 2 --json "$OUT/verify-big.json" > /dev/null 2>&1
      for t in ${SUITE_TYPES:-i8}; do
        timeout 240 $B/xpose bench --suite permute --dtype "$t" --variants auto --reps 5 --warmup 1 \
          --json "$OUT/bench-permute-$t.json" > "$OUT/bench-permute-$t.log" 2>&1
      done
      echo "verify done at ${SECONDS}s" ;;
    small)
      # Launch-bound sizes (4 MiB and less for the target): 100 repetitions.
      timeout 300 $B/xpose bench --variants auto --baseline cublas \
        --shapes 256x256,512x512,1000x1000,1024x1024,2048x1024,1024x2048,2048x2048 --dtype i8,f16,f32,f64,c128 \
        --reps 100 --warmup 10 --json "$OUT/bench-small.json" 2>&1 | grep -E '^\|' > "$OUT/small.log"
      echo "small done at ${SECONDS}s" ;;
    narrow)
      timeout 300 $B/xpose bench --variants auto --shapes 48x10000000,10000000x48,32x20000000,20000000x32 \
        --dtype i8,f16,f32,f64,c128 --reps 10 --warmup 2 --json "$OUT/bench-narrow.json" 2>&1 | grep -E '^\|' > "$OUT/narrow.log"
      echo "narrow done at ${SECONDS}s" ;;
    ncu)
      for t in i8 f32; do
        timeout 200 ncu --kernel-name regex:skew --launch-skip 2 --launch-count 1 --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
          $B/xpose bench --variants skew_tile --shapes 10007x9973 --dtype $t --reps 2 --warmup 1 > "$OUT/ncu-skew-$t.txt" 2>&1
      done
      echo "ncu done at ${SECONDS}s" ;;
  esac
done
wait
