#!/usr/bin/env bash
# One device call: issue 4's narrow shapes with `auto` and every kernel that can run them, by name,
# so the planner's narrow rules can be checked against the best kernel of each shape. Binaries
# built on the development machine in BIN (default build-devbin: xpose and libgomp.so.1).
#   TYPES="i8 f16 f32 f64 c128" SIDES="3 16 48" LONGS="10000000 10000001" scripts/device_narrow.sh
# For each dtype: every side S of SIDES against every long side L of LONGS, both ways (S x L and
# L x S), `xpose bench --variants VARIANTS --reps 10 --warmup 2`: $OUT/narrow-TYPE.json.
# With TESTS=1 first: the whole test_gpu and memcheck on the tests matching MEMCHECK (device_common.sh).
set -u
source "$(dirname "$0")/device_common.sh"
V=${VARIANTS:-auto,tiled,tiled_skew,fast_tile,reg_tile,reg_batch,skew_tile,narrow,permute_packed,permute_runs,permute_box}
if [ "${TESTS:-0}" = 1 ]; then
  ALLTESTS_GPU=0 device_alltests "${MEMCHECK:-GpuRandom.RegBatchWholeBlocks}" 300
  wait
fi
for t in ${TYPES:-i8 f16 f32 f64 c128}; do
  shapes=""
  for s in ${SIDES:-3 16 48}; do
    for l in ${LONGS:-10000000 10000001}; do shapes="$shapes,${s}x$l,${l}x$s"; done
  done
  timeout 400 "$B/xpose" bench --variants "$V" --shapes "${shapes#,}" --dtype "$t" --reps 10 --warmup 2 \
    --json "$OUT/narrow-$t.json" > "$OUT/narrow-$t.log" 2>&1
  echo "narrow $t done at ${SECONDS}s"
done
cat "$OUT"/tests-all.log 2> /dev/null
