#!/usr/bin/env bash
# One device call (an H200 pair, or one H200: see below) to check a build before it is merged,
# and to refresh the permutation suites. Binaries built on the development machine in BIN
# (default build-devbin: xpose, test_gpu, libgomp.so.1, and older builds for the A/B named in BINS).
#   MEMCHECK=filter CASES=file BINS="xpose_main xpose" SUITE0="i8 f16" SUITE1="f32 f64" \
#     SUITE_BINS="xpose_main xpose" TESTS=1 scripts/device_verify.sh
# GPU 1: (TESTS=1, the default) the whole test_gpu, memcheck on the tests matching MEMCHECK
#        (default GpuRandom.PermuteBox), then `xpose bench --suite permute --variants auto` for each
#        type of SUITE1 with each build of SUITE_BINS1 (default SUITE_BINS, default xpose):
#        $OUT/suite-TYPE-BUILD.json. A type written TYPE@BUILD runs with that build only.
# GPU 0: `auto` on each "extents perm dtype" line of CASES with each build of BINS, interleaved,
#        two rounds ($OUT/cases-BUILD-ROUND-N.json), then the suite for each type of SUITE0 with
#        each build of SUITE_BINS.
# With one GPU everything runs on it, one thing at a time: tests first, then the GPU 0 part, then
# the GPU 1 suites (no timing shares the GPU with the tests).
set -u
source "$(dirname "$0")/device_common.sh"
suite() {  # builds, types... (a type written TYPE@BUILD runs with that build only)
  local t x bins=$1
  shift
  for t in "$@"; do
    local tb=$bins
    if [[ $t == *@* ]]; then tb=${t#*@}; t=${t%@*}; fi
    for x in $tb; do
      timeout 300 "$B/$x" bench --suite permute --dtype "$t" --variants auto --reps 5 --warmup 1 \
        --json "$OUT/suite-$t-$x.json" > /dev/null 2>&1
      echo "suite $t $x done at ${SECONDS}s"
    done
  done
}
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
second=1
[ "$gpus" -ge 2 ] || second=0
tests=0
if [ "${TESTS:-1}" = 1 ]; then
  if [ $second = 0 ]; then
    ALLTESTS_GPU=0 device_alltests "${MEMCHECK:-GpuRandom.PermuteBox}" 300
    wait
  else
    device_alltests "${MEMCHECK:-GpuRandom.PermuteBox}" 300
    tests=$!
  fi
fi
[ $second = 0 ] || (
  while [ $tests != 0 ] && kill -0 $tests 2> /dev/null; do sleep 2; done
  export CUDA_VISIBLE_DEVICES=1
  suite "${SUITE_BINS1:-${SUITE_BINS:-xpose}}" ${SUITE1:-}
) > "$OUT/suite1.log" 2>&1 &
export CUDA_VISIBLE_DEVICES=0
if [ -n "${CASES:-}" ]; then
  for round in 1 2; do
    for x in ${BINS:-xpose}; do
      device_cases "$CASES" "cases-$x-$round" "$x"
    done
  done
  echo "cases done at ${SECONDS}s"
fi
suite "${SUITE_BINS:-xpose}" ${SUITE0:-}
[ $second = 1 ] || suite "${SUITE_BINS1:-${SUITE_BINS:-xpose}}" ${SUITE1:-} > "$OUT/suite1.log" 2>&1
wait
cat "$OUT"/*.log
cd "$OUT" && tar czf /tmp/verify.tgz . && find . -type f -delete && mv /tmp/verify.tgz .
