#!/usr/bin/env bash
# One device call for tma_tile: its GPU tests (and memcheck on a reduced set), `xpose bench` of
# tma_tile against auto on issue 4's shapes, and optionally a tuning sweep. Binaries built on the
# development machine in BIN (default build-devbin: xpose, test_gpu, xpose_tune_tma, libgomp.so.1).
#   scripts/device_tma.sh [tests] [bench] [sweep] [perf] [perm] [suite] [alltests]
#     env: SHAPES, TYPES, VARIANTS, SWEEP_ARGS, FILTER
#   alltests: the whole test_gpu plus memcheck on the tma_tile tests, on GPU 1 in the background
#   (an H200 pair), while the other modes run on GPU 0. perf: issue 4's sweep (scripts/perf_sweep.sh).
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  if [ "$mode" = alltests ]; then device_alltests 'GpuRandom.TmaTile*:GpuVariant.*/tma_tile*' 200; fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
for mode in "$@"; do
  case $mode in
    tests)
      timeout 400 $B/test_gpu --gtest_filter="${FILTER:-*TmaTile*:*tma_tile*}" 2>&1 |
        grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case|tests ran" | head -30 | tee "$OUT/tma-tests.log"
      timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='GpuRandom.TmaTileConcurrentStreams:GpuVariant.AwkwardShapesMatchReference/tma_tile*' 2>&1 |
        grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8 | tee -a "$OUT/tma-tests.log"
      echo "tests done at ${SECONDS}s" ;;
    bench)
      IFS=';' read -ra groups <<< "${SHAPES:-16384x16384,10000x10000,8192x8192,4096x4096,1024x1024,32768x16384;256x384@4096}"
      for g in "${groups[@]}"; do
        shapes=${g%@*}; batch=1
        [[ $g == *@* ]] && batch=${g#*@}
        timeout 300 $B/xpose bench --variants "${VARIANTS:-tma_tile,auto}" --shapes "$shapes" --batch "$batch" \
          --dtype "${TYPES:-i8,f16,f32,f64,c128}" --reps 10 --warmup 2 --json "$OUT/bench-tma-${shapes%%,*}-b$batch.json" 2>&1 |
          grep -E '^\|' | tee -a "$OUT/tma-bench.log"
      done
      echo "bench done at ${SECONDS}s" ;;
    perf)
      scripts/perf_sweep.sh $B/xpose "$OUT" > "$OUT/perf.log" 2>&1
      echo "perf done at ${SECONDS}s" ;;
    perm)
      # Suite permutations that auto now sends to tma_tile, against the kernels it ran before:
      # lines "dtype extents perm variants" of PERM_CASES (default scripts/cases/tma_perm_cases.txt).
      while read -r t e p v; do
        [ -z "$t" ] || [ "${t:0:1}" = "#" ] && continue  # case lists open with comment lines
        timeout 200 $B/xpose bench --extents "$e" --perm "$p" --dtype "$t" --variants "$v" --reps 10 --warmup 2 2>&1 |
          grep -E '^\| [a-z]' | grep -v '^| variant' | tee -a "$OUT/tma-perm.log"
      done < "${PERM_CASES:-scripts/cases/tma_perm_cases.txt}"
      echo "perm done at ${SECONDS}s" ;;
    suite)
      # Issue 5's suite with auto, one JSON per type of SUITE_TYPES.
      for t in ${SUITE_TYPES:-i8 f16 f32 f64}; do
        timeout 240 $B/xpose bench --suite permute --dtype "$t" --variants auto --reps 5 --warmup 1 \
          --json "$OUT/bench-permute-$t.json" > "$OUT/bench-permute-$t.log" 2>&1
        echo "suite $t done at ${SECONDS}s"
      done ;;
    sweep)
      timeout 300 $B/xpose_tune_tma ${SWEEP_ARGS:---shape 16384x16384 --sizes 8,16 --groups 256,4096 --scheds 1} > "$OUT/tma-sweep.csv" 2>&1
      echo "sweep done at ${SECONDS}s" ;;
  esac
done
wait
