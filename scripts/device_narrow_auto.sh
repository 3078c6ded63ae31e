#!/usr/bin/env bash
# One device call: `auto` alone on the narrow shapes a change to kNarrowRules moved, one bench per
# dtype (`xpose bench --variants auto --reps 10 --warmup 2`), every output verified; all the JSON
# back as $OUT/narrow-auto.tgz. Shapes per dtype in SHAPES_<dtype> (comma-separated RxC).
set -u
source "$(dirname "$0")/device_common.sh"
for t in i8 f16 f32 f64 c128; do
  var="SHAPES_$t"
  [ -n "${!var:-}" ] || continue
  timeout 300 "$B/xpose" bench --variants auto --shapes "${!var}" --dtype "$t" --reps 10 --warmup 2 \
    --json "$OUT/auto-$t.json" > "$OUT/auto-$t.log" 2>&1
  echo "auto $t done at ${SECONDS}s"
done
cd "$OUT" && tar czf /tmp/narrow-auto.tgz ./*.json ./*.log && rm -f ./*.json ./*.log && mv /tmp/narrow-auto.tgz .
