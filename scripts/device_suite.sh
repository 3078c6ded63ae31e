#!/usr/bin/env bash
# One call on a two-GPU machine (binaries built elsewhere, as for device_prebuilt.sh): the whole
# test_gpu binary and memcheck of permute_runs' cases on GPU 1, then the f64 suite; the suite for
# i8, f16 and f32 with `auto` and `permute_runs` by name, c128 with `auto`, and the awkward 2-D
# shapes on GPU 0. Run from the repository root with BIN holding xpose, test_gpu (and libgomp.so.1
# where the device lacks it); results go to $OUT (suite-T.json, gpu0.log, gpu1.log). This is the
# call behind docs/performance.md's fifth-session numbers (2026-11-30, binaries of fc5a8fc).
#
#   scripts/device_suite.sh BIN
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_suite.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
suite() { timeout 280 $B/xpose bench --suite permute --dtype $1 --variants $2 --reps 5 --warmup 1 --json $OUT/suite-$1.json > /tmp/suite-$1.log 2>&1; }
( export CUDA_VISIBLE_DEVICES=0; SECONDS=0; for t in i8 f16 f32; do suite $t auto,permute_runs; done; suite c128 auto
  timeout 60 $B/xpose bench --shapes 10007x9973,8191x8193 --dtype i8,f16,f32,f64,c128 --variants auto,permute_runs --reps 5 2>&1 | grep -E "^\| (auto|permute_runs)"
  echo "gpu0 ${SECONDS}s" ) > $OUT/gpu0.log 2>&1 &
( export CUDA_VISIBLE_DEVICES=1; SECONDS=0
  timeout 220 $B/test_gpu 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]+ test|tests? from .* ran|Failure|Which is| case " | head -30
  timeout 100 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PermutationsSmall' 2>&1 | grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]" | head
  echo "tests ${SECONDS}s"
  suite f64 auto
  echo "gpu1 ${SECONDS}s" ) > $OUT/gpu1.log 2>&1
wait; cat $OUT/gpu0.log $OUT/gpu1.log
