#!/usr/bin/env bash
# One device call after a change to the permutation rules (plan/planner.cpp): the whole test_gpu
# and memcheck on MEMCHECK's tests, then the permutation suites of SUITE_TYPES with `auto`, ten
# repetitions: $OUT/suite-auto-T.json; all in $OUT/rules-verify.tgz.
set -u
source "$(dirname "$0")/device_common.sh"
ALLTESTS_GPU=0 device_alltests "${MEMCHECK:-GpuRandom.PermutationsSmall}" 240
wait
echo "tests done at ${SECONDS}s"
for t in ${SUITE_TYPES:-c128 f32}; do
  timeout 300 "$B/xpose" bench --suite permute --dtype "$t" --variants auto --reps 10 --warmup 2 \
    --json "$OUT/suite-auto-$t.json" > /dev/null 2>> "$OUT/errors.txt"
  echo "$t done at ${SECONDS}s"
done
cat "$OUT/tests-all.log"
cd "$OUT" && tar czf /tmp/rules-verify.tgz . && find . -type f -delete && mv /tmp/rules-verify.tgz .
