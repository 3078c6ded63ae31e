#!/usr/bin/env bash
# One device call after a change to the narrow rules (kNarrowRules in plan/planner.cpp): the whole
# test_gpu (and memcheck on MEMCHECK's tests) first, then `auto` on the narrow shapes of
# scripts/device_narrow.sh for 2- to 16-byte elements, and every kernel by name for i8
# (TYPES_ALL; empty: none). Everything comes back as one archive, $OUT/narrow-verify.tgz.
set -u
source "$(dirname "$0")/device_common.sh"
if [ "${TESTS:-1}" = 1 ]; then
  ALLTESTS_GPU=0 device_alltests "${MEMCHECK:-GpuRandom.RegBatchWholeBlocks}" 300
  wait
  echo "tests done at ${SECONDS}s"
fi
OUT_TOP=$OUT
export OUT=$OUT_TOP/auto
mkdir -p "$OUT"
VARIANTS=auto TYPES="${TYPES_AUTO-f16 f32 f64 c128}" bash "$(dirname "$0")/device_narrow.sh"
if [ -n "${TYPES_ALL-i8}" ]; then
  export OUT=$OUT_TOP/all
  mkdir -p "$OUT"
  TYPES="${TYPES_ALL-i8}" bash "$(dirname "$0")/device_narrow.sh"
fi
# With INTERP=1: sides between the measured ones (kNarrowRules' ranges interpolate), auto against
# the kernels auto ran before the rules: $OUT/interp-TYPE.json.
if [ "${INTERP:-0}" = 1 ]; then
  export OUT=$OUT_TOP
  for t in f64 c128; do
    timeout 300 "$B/xpose" bench --variants auto,narrow,reg_batch,fast_tile,permute_packed --dtype $t --reps 10 \
      --warmup 2 --shapes 10000000x32,10000001x32,10000000x24 --json "$OUT/interp-$t.json" > /dev/null 2>&1
  done
  timeout 300 "$B/xpose" bench --variants auto,narrow,permute_packed,permute_box --dtype i8 --reps 10 --warmup 2 \
    --shapes 7x10000001,32x10000001,10000001x32,10000001x24 --json "$OUT/interp-i8.json" > /dev/null 2>&1
  echo "interp done"
fi
cat "$OUT_TOP"/tests-all.log 2> /dev/null
cd "$OUT_TOP" && tar czf /tmp/narrow-verify.tgz . && find . -type f -delete && find . -mindepth 1 -type d -delete &&
  mv /tmp/narrow-verify.tgz .
