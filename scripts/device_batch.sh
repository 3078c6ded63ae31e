#!/usr/bin/env bash
# One device call for reg_batch (batches of small matrices of whole V x V blocks): its GPU tests and
# memcheck, `xpose bench` on batches of small matrices, suite permutations by name, and small single
# matrices timed with many repetitions plus their kernels' device time under Nsight Compute.
# Binaries built on the development machine in BIN (default build-devbin: xpose, test_gpu, libgomp.so.1).
#   scripts/device_batch.sh [alltests | bgtests] [tests] [bench] [square] [narrow] [perm] [suite] [small]
#     env: SHAPES ("RxC@B;..."), TYPES, VARIANTS, PERM_CASES (lines "dtype extents perm variants"), FILTER
#   alltests: the whole test_gpu plus memcheck on the 16-byte store kernels, on GPU 1 in the background
#   (an H200 pair), while the other modes run on GPU 0.
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  if [ "$mode" = bgtests ]; then  # the reg_batch tests and memcheck on GPU 1, in the background
    ( export CUDA_VISIBLE_DEVICES=1; OUT=$OUT "$0" tests > /dev/null 2>&1; echo "bg tests done at ${SECONDS}s" >> "$OUT/batch-tests.log" ) &
  fi
  if [ "$mode" = alltests ]; then
    device_alltests '*GpuVariant*reg_batch*:*GpuVariant*fast_tile*:*GpuVariant*skew_tile*:*GpuVariant*narrow*:*GpuVariant*reg_tile*'
  fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
for mode in "$@"; do
  case $mode in
    tests)
      timeout 400 $B/test_gpu --gtest_filter="${FILTER:-GpuRandom.RegBatch*:*GpuVariant*reg_batch*:GpuHugeWholeBlocks.*}" 2>&1 |
        grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case|tests ran" | head -30 | tee "$OUT/batch-tests.log"
      timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='*GpuVariant*reg_batch*' 2>&1 |
        grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8 | tee -a "$OUT/batch-tests.log"
      echo "tests done at ${SECONDS}s" ;;
    bench)
      IFS=';' read -ra groups <<< "${SHAPES:-32x48@100000;256x384@4096;16x16@1000000;64x64@50000;32x32@200000;128x128@8192;48x80@40000}"
      for g in "${groups[@]}"; do
        shapes=${g%@*}; batch=${g#*@}
        timeout 300 $B/xpose bench --variants "${VARIANTS:-auto,reg_batch,permute_packed,fast_tile}" --shapes "$shapes" \
          --batch "$batch" --dtype "${TYPES:-i8,f16,f32,f64,c128}" --reps 10 --warmup 2 \
          --json "$OUT/bench-batch-${shapes}-b$batch.json" 2>&1 | grep -E '^\|' | tee -a "$OUT/batch-bench.log"
      done
      echo "bench done at ${SECONDS}s" ;;
    square)
      # The 2-D kernels whose stores became 16-byte vectors (fast_tile, skew_tile, reg_tile), by name and auto.
      timeout 300 $B/xpose bench --variants auto,fast_tile,skew_tile,reg_tile --shapes 16384x16384,10007x9973,4096x4096,1024x1024 \
        --dtype i8,f16,f32,f64 --reps 10 --warmup 2 --json "$OUT/bench-square.json" 2>&1 | grep -E '^\|' > "$OUT/square.log"
      echo "square done at ${SECONDS}s" ;;
    narrow)
      timeout 300 $B/xpose bench --variants auto,narrow --shapes 48x10000000,10000000x48,48x10000001,10000001x48 \
        --dtype i8,f16,f32,f64 --reps 10 --warmup 2 --json "$OUT/bench-narrow.json" 2>&1 | grep -E '^\|' > "$OUT/narrow.log"
      echo "narrow done at ${SECONDS}s" ;;
    perm)
      while read -r t e p v _; do
        timeout 200 $B/xpose bench --extents "$e" --perm "$p" --dtype "$t" --variants "$v" --reps 10 --warmup 2 2>&1 |
          grep -E '^\| [a-z]' | grep -v '^| variant' | tee -a "$OUT/batch-perm.log"
      done < "${PERM_CASES:-$B/batchcases.txt}"
      echo "perm done at ${SECONDS}s" ;;
    suite)
      # Issue 5's suite with auto, one JSON per type of SUITE_TYPES.
      for t in ${SUITE_TYPES:-i8 f16}; do
        timeout 240 $B/xpose bench --suite permute --dtype "$t" --variants auto --reps 5 --warmup 1 \
          --json "$OUT/bench-permute-$t.json" > "$OUT/bench-permute-$t.log" 2>&1
        echo "suite $t done at ${SECONDS}s"
      done ;;
    small)
      # Launch-bound sizes: 100 repetitions, then each kernel's device time alone (ncu) next to the copy's.
      timeout 200 $B/xpose bench --variants auto,fast_tile,reg_batch,tma_tile --baseline cublas \
        --shapes 1024x1024,2048x1024,512x512 --dtype i8,f16,f32,f64,c128 --reps 100 --warmup 10 \
        --json "$OUT/bench-small.json" 2>&1 | grep -E '^\|' | tee "$OUT/small.log"
      timeout 200 ncu --metrics gpu__time_duration.sum --csv $B/xpose bench --variants auto,reg_batch --shapes 1024x1024 \
        --dtype i8,f32 --reps 3 --warmup 0 > "$OUT/small-ncu.csv" 2>&1
      echo "small done at ${SECONDS}s" ;;
  esac
done
wait
