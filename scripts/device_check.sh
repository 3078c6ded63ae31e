#!/usr/bin/env bash
# Device runs on a one-GPU machine (or more) with binaries built elsewhere (BIN holds xpose,
# test_gpu and libgomp.so.1; see device_prebuilt.sh for how to build them from a commit). Two parts,
# one call each, so that each fits the device tool's 10-minute limit:
#
#   scripts/device_check.sh BIN bench   # CPU backend on all cores (GPU idle), then 2-D GPU benches
#   scripts/device_check.sh BIN test    # the whole test_gpu binary, memcheck of reg_tile's cases,
#                                       # then the 1-byte 2-D benches again
#       MEMCHECK=FILTER: memcheck on these tests instead (a gtest filter), alongside the tests;
#       BENCH2D=0: no 2-D benches after them
#   TYPES="i8 f16" scripts/device_check.sh BIN suite   # the permutation suite, auto, per type
#
# Results go to $OUT: cpu.log, cpu-suite.json, gpu-2d.json, bench.log; tests.log.
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_check.sh BIN bench|test}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/xpose
case "${2:?bench or test}" in
  bench)
    {
      echo "== CPU backend on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo))"
      for t in 1 2 4 8 16; do
        $X bench --device cpu --variants cpu_blocked --shapes 8192x8192,3x40000000 --threads $t --reps 5 2>/dev/null | grep '^| cpu'
      done
      $X bench --device cpu --variants auto --shapes 16384x16384 --dtype i8,f16,f32,f64 --threads 16 --reps 3 2>/dev/null | grep '^| auto'
      $X bench --device cpu --suite permute --dtype f32 --threads 16 --reps 3 --warmup 1 --json $OUT/cpu-suite.json 2>/dev/null | tail -3
    } > $OUT/cpu.log 2>&1
    {
      echo "== GPU 2-D"
      $X bench --variants auto,reg_tile --shapes 16384x16384,16000x16000,12288x12288,8192x8192,4096x4096 --dtype i8 --reps 10 \
        --json $OUT/gpu-2d-i8.json 2>/dev/null | grep -E '^\| (auto|reg_tile)'
      $X bench --variants auto --shapes 16384x16384 --dtype f16,f32,f64,c128 --reps 10 --json $OUT/gpu-2d.json 2>/dev/null | grep -E '^\| auto'
      $X bench --variants auto --shapes 256x384 --batch 4096 --dtype i8 --reps 10 2>/dev/null | grep -E '^\| auto'
    } > $OUT/bench.log 2>&1
    cat $OUT/cpu.log $OUT/bench.log ;;
  test)
    SECONDS=0
    [ -n "${MEMCHECK:-}" ] && { timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter="$MEMCHECK" 2>&1 |
      grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8 > /tmp/t_m.log; } &
    $B/test_gpu --gtest_filter='GpuRandom.*:All/GpuHuge.*' > /tmp/t_a.log 2>&1 &
    $B/test_gpu --gtest_filter='-GpuRandom.*:All/GpuHuge.*' > /tmp/t_b.log 2>&1
    wait
    {
      for f in /tmp/t_a.log /tmp/t_b.log; do
        echo "== $f"; grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \] [0-9]+ tests|tests? from .* ran|Failure" "$f" | head -20
      done
      echo "tests took ${SECONDS}s"
      echo "== memcheck: ${MEMCHECK:-*reg_tile*}"
      if [ -n "${MEMCHECK:-}" ]; then cat /tmp/t_m.log; else
        timeout 200 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='*reg_tile*' 2>&1 | grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]"
      fi
      echo "done after ${SECONDS}s"
    } > $OUT/tests.log 2>&1
    [ "${BENCH2D:-1}" = 0 ] && { cat $OUT/tests.log; exit 0; }
    $X bench --variants auto,reg_tile --shapes 16384x16384,16000x16000,12288x12288,8192x8192,4096x4096 --dtype i8 --reps 10 \
      --json $OUT/gpu-2d-i8.json 2>/dev/null | grep -E '^\| (auto|reg_tile)' >> $OUT/tests.log
    $X bench --variants auto --shapes 256x384 --batch 4096 --dtype i8 --reps 10 2>/dev/null | grep -E '^\| auto' >> $OUT/tests.log
    cat $OUT/tests.log ;;
  suite)
    for t in ${TYPES:-i8}; do
      $X bench --suite permute --dtype $t --reps 5 --warmup 1 --json $OUT/suite-$t.json > /tmp/suite-$t.log 2>&1
      python3 - "$OUT/suite-$t.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
p = [x["pct_of_copy"] for x in r]
print(sys.argv[1], len(p), "cases, median %.1f, min %.1f, all verified: %s" % (statistics.median(p), min(p), all(x["verified"] for x in r)))
PY
    done ;;
esac
