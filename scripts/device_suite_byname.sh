#!/usr/bin/env bash
# One device call: the permutation suite of each "dtype variants" pair in SUITES (default: c128 and
# f64 against permute_box and permute_runs, f32's row copies against permute_packed and
# permute_general), ten repetitions: $OUT/suite-T.json, all in $OUT/suite-byname.tgz.
set -u
source "$(dirname "$0")/device_common.sh"
SUITES=${SUITES:-"c128:auto,permute_packed,permute_box,permute_runs f64:auto,permute_packed,permute_box,permute_runs f32:auto,permute_packed,permute_general,permute_rows"}
for s in $SUITES; do
  t=${s%%:*}
  timeout 400 "$B/xpose" bench --suite permute --dtype "$t" --variants "${s#*:}" --reps 10 --warmup 2 \
    --json "$OUT/suite-$t.json" > /dev/null 2>> "$OUT/errors.txt"
  echo "$t done at ${SECONDS}s"
done
cd "$OUT" && tar czf /tmp/suite-byname.tgz . && find . -type f -delete && mv /tmp/suite-byname.tgz .
