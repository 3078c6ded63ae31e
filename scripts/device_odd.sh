#!/usr/bin/env bash
# One device call for the odd-size and small-matrix targets of issue 4: skew_tile's tile order swept
# over band heights (XPOSE_TUNE_SKEW_BAND, a scratch switch read by configure_skew_tile while the sweep
# runs), small single matrices with many repetitions, narrow shapes under auto, and Nsight Compute on
# skew_tile. Binaries built on the development machine in BIN (default .devbin: xpose, test_gpu,
# libgomp.so.1).
#   scripts/device_odd.sh [alltests] [band] [spread] [bytes] [halves] [profile] [verify] [small] [narrow] [ncu]
#     env: BANDS, ODD_SHAPES, TYPES
#   alltests: the whole test_gpu plus memcheck on skew_tile's tests, on GPU 1 in the background (an
#   H200 pair), while the other modes run on GPU 0.
set -u
B=${BIN:-.devbin}
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
SECONDS=0
for mode in "$@"; do
  if [ "$mode" = alltests ]; then
    (
      export CUDA_VISIBLE_DEVICES=1
      timeout 420 $B/test_gpu 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case|tests ran" | head -40
      timeout 300 compute-sanitizer --tool memcheck $B/test_gpu \
        --gtest_filter='*GpuVariant*skew_tile*:*GpuVariant*fast_tile*:GpuRandom.*Align*:GpuRandom.TransposesSmall' 2>&1 |
        grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8
      echo "all tests done at ${SECONDS}s"
    ) > "$OUT/tests-all.log" 2>&1 &
  fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
for mode in "$@"; do
  case $mode in
    band)
      for band in ${BANDS:-1 8 32 128 1000000}; do
        XPOSE_TUNE_SKEW_BAND=$band timeout 300 $B/xpose bench --variants skew_tile \
          --shapes "${ODD_SHAPES:-10007x9973,16383x16385,8191x8193}" --dtype "${TYPES:-i8,f16,f32,f64}" --reps 10 --warmup 2 \
          --json "$OUT/band-$band.json" 2>&1 | grep -E '^\| [a-z]' | sed "s/^/band $band /" | tee -a "$OUT/band.log"
      done
      echo "band done at ${SECONDS}s" ;;
    spread)
      # fast_tile's and skew_tile's Spread forced through XPOSE_TUNE_SPREAD (scratch): their tests at
      # spreads 2 and 4, then small and odd shapes at 1, 2, 4, two rounds interleaved.
      for sp in 2 4; do  # on GPU 1 in the background
        CUDA_VISIBLE_DEVICES=1 XPOSE_TUNE_SPREAD=$sp timeout 250 $B/test_gpu --gtest_filter='*GpuVariant*fast_tile*:*GpuVariant*skew_tile*:GpuRandom.*' 2>&1 |
          grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected" | head -10 | sed "s/^/spread $sp /" >> "$OUT/spread-tests.log"
      done &
      for round in 1 2; do
        for sp in 1 2 4; do
          XPOSE_TUNE_SPREAD=$sp timeout 200 $B/xpose bench --variants auto --shapes "${SPREAD_SHAPES:-256x256,512x512,1000x1000,1024x1024,2048x1024,2048x2048,4096x4096}" \
            --dtype i8,f16,f32,f64,c128 --reps 100 --warmup 10 --json "$OUT/spread-$sp-$round.json" > /dev/null 2>&1
          XPOSE_TUNE_SPREAD=$sp timeout 200 $B/xpose bench --variants auto --shapes 10007x9973 \
            --dtype i8,f16,f32,f64 --reps 10 --warmup 2 --json "$OUT/spread-odd-$sp-$round.json" > /dev/null 2>&1
        done
      done
      echo "spread done at ${SECONDS}s" ;;
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
