#!/usr/bin/env bash
# interleave (kernels/interleave.cuh) on one GPU, with binaries built on the development machine
# (BIN holds xpose, test_gpu and libgomp.so.1). One call:
#   1. its tests (GpuRandom.InterleaveNarrow and every GpuVariant test of `interleave`), then the
#      same under compute-sanitizer memcheck;
#   2. issue 4's narrow shapes with a short side of 2, 3, 4, 8 and 16 against long sides of 10^7
#      and 10^7 + 1, both ways round, 1-, 2- and 4-byte elements: `interleave` by name against `auto`
#      (and whatever else VARIANTS adds), --reps 10;
#   3. (alltests) the whole test_gpu, in two halves side by side;
#   4. (small) the same by name at 10^5 + 1, 10^6 and 10^6 + 1 with sides of 3, 8 and 16 (below
#      the sizes the planner's rules were measured at), --reps 20.
#
#   scripts/device_interleave.sh BIN [tests] [bench] [alltests] [small]
# Results go to $OUT: tests.log, narrow-<type>.json, bench.log, alltests.log, small-<type>.json.
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_interleave.sh BIN [tests] [bench]}" && pwd)
shift
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/xpose
SECONDS=0
for stage in ${@:-tests bench}; do
  case $stage in
    tests)
      {
        echo "== test_gpu, interleave"
        $B/test_gpu --gtest_filter='*nterleave*' 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \]|tests? from .* ran|Failure|case [0-9]+" | head -40
        echo "== memcheck (after ${SECONDS}s)"
        timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='*nterleave*' 2>&1 |
          grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]" | head -10
        echo "tests done after ${SECONDS}s"
      } > "$OUT/tests.log" 2>&1
      cat "$OUT/tests.log" ;;
    bench)
      shapes=""
      for r in 2 3 4 8 16; do
        for n in 10000000 10000001; do shapes="$shapes,${r}x$n,${n}x$r"; done
      done
      for t in ${TYPES:-i8 f16 f32}; do
        $X bench --variants auto,interleave${VARIANTS:+,$VARIANTS} --shapes "${shapes#,}" --dtype $t --reps 10 \
          --json "$OUT/narrow-$t.json" 2>/dev/null | grep -E '^\| ' >> "$OUT/bench.log"
      done
      echo "bench done after ${SECONDS}s" >> "$OUT/bench.log"
      cat "$OUT/bench.log" ;;
    alltests)
      $B/test_gpu --gtest_filter='GpuRandom.*:All/GpuHuge.*' > /tmp/t_a.log 2>&1 &
      $B/test_gpu --gtest_filter='-GpuRandom.*:All/GpuHuge.*' > /tmp/t_b.log 2>&1
      wait
      for f in /tmp/t_a.log /tmp/t_b.log; do
        echo "== $f"; grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \] [0-9]+ tests|tests? from .* ran|Failure" "$f" | head -20
      done > "$OUT/alltests.log"
      echo "alltests done after ${SECONDS}s" >> "$OUT/alltests.log"
      cat "$OUT/alltests.log" ;;
    small)
      shapes=""
      for r in 3 8 16; do
        for n in 100001 1000000 1000001; do shapes="$shapes,${r}x$n,${n}x$r"; done
      done
      for t in ${TYPES:-i8 f16 f32}; do
        $X bench --variants auto,interleave --shapes "${shapes#,}" --dtype $t --reps 20 \
          --json "$OUT/small-$t.json" 2>/dev/null | grep -E '^\| ' >> "$OUT/small.log"
      done
      echo "small done after ${SECONDS}s" >> "$OUT/small.log"
      cat "$OUT/small.log" ;;
  esac
done
