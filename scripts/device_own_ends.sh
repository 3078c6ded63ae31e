#!/usr/bin/env bash
# The sixty-ninth session's owned output ends in permute_runs and permute_box (branch
# cand/box-own-ends; built there, not on a device yet): their tests, then an A/B against HEAD.
# Carry build-dev-next/{xpose_head,xpose_bown,test_gpu_bown,libgomp.so.1}.xz (xpose_head: main's
# kernels and plans; xpose_bown and test_gpu_bown: the branch). About 400 s.
#   OUT=$OUT scripts/device_own_ends.sh
# 1. test_gpu_bown on the permutation tests (the two OwnedEnds tests are new), then memcheck on the
#    OwnedEnds tests: $OUT/tests.log.
# 2. scripts/device_ab_cases.sh, BINS="xpose_head xpose_bown", CASES (default: the runs cases of
#    the sixty-eighth session, then the suite plans whose box takes a halo), auto, two rounds:
#    $OUT/ab.json, $OUT/ab.log. SKIP_TESTS=1 leaves out step 1; TESTS=short runs only the
#    OwnedEnds and PermuteBox tests, and memcheck on the OwnedEnds ones.
# SUITES="i8 f16 ..." runs `xpose bench --suite permute` (auto, --reps 5) for each type with the
# two builds one after the other instead of step 2: $OUT/suite-TYPE-{head,bown}.json. A call brings
# back only eight files, so with SUITES of more than two types write OUT to a folder of your own
# and tar it into the call's (the sixty-ninth session lost two suites so; device_halo_reach.sh tars
# its own).
set -uo pipefail
BIN=build-dev-next/own source "$(dirname "$0")/device_common.sh"
device_unpack xpose_head xpose_bown test_gpu_bown libgomp.so.1
nvidia-smi -L | tee "$OUT/tests.log"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  F=$DEVICE_PERM_TESTS
  [ "${TESTS:-}" = short ] && F='GpuRandom.*OwnedEnds:GpuRandom.PermuteBox'
  device_perm_tests test_gpu_bown "$F"
fi
if [ -n "${SUITES:-}" ]; then
  for t in $SUITES; do
    for b in head bown; do
      device_suite "xpose_$b" "$t" "$OUT" "$b" "$OUT/tests.log"
    done
  done
  exit 0
fi
cases=${CASES:-}
if [ -z "$cases" ]; then
  cases=$(mktemp)
  cat scripts/cases/runs_own_ends_68_cases.txt scripts/cases/box_own_ends_69_cases.txt > "$cases"
fi
OUT=$OUT BIN=build-dev-next/own BINS="xpose_head xpose_bown" CASES=$cases ROUNDS=${ROUNDS:-2} \
  timeout ${AB_LIMIT:-330} scripts/device_ab_cases.sh
echo "done at ${SECONDS}s"
