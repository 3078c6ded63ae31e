#!/usr/bin/env bash
# One device call for the forty-first session's permute_box change (the tile's input window reached
# through a 64-bit offset, so inputs over 2 GiB): the box tests, `auto` / permute_packed /
# permute_box by name on scripts/cases/box_over2gib_cases.txt ($OUT/big-N.json), an A/B of the build
# before (BASE, default xbase) and after (xpose) on scripts/cases/box_window_cases.txt in two rounds of
# opposite order ($OUT/ab.log, $OUT/r2/ab.log), then memcheck on GpuRandom.PermuteBox. Binaries
# (xz-compressed or not) in BIN, default build-dev:
#   BIN=build-dev scripts/device_box_window.sh
set -u
export BIN=${BIN:-build-dev}
B=$BIN
(cd "$B" && for f in *.xz; do [ -e "$f" ] && xz -d -T4 "$f"; done; chmod +x ./* 2> /dev/null)
source "$(dirname "$0")/device_common.sh"
base=${BASE:-xbase}
timeout 200 "$B/test_gpu" --gtest_filter='GpuRandom.PermuteBox*:GpuRandom.PermutationsSmall:GpuRandom.BroadcastInputs' 2>&1 |
  grep -E "^\[ +(OK|FAILED|PASSED) |Failure|Expected|Which" | head -20
echo "tests at ${SECONDS}s"
i=0
grep -v '^#' "$(dirname "$0")/cases/box_over2gib_cases.txt" | while read -r e p t; do
  i=$((i + 1))
  timeout 150 "$B/xpose" bench --variants auto,permute_packed,permute_box --extents "$e" --perm "$p" --dtype "$t" \
    --reps 5 --warmup 1 --json "$OUT/big-$i.json" 2>&1 | grep -E '^\| [a-z]'
  echo "big $i at ${SECONDS}s"
done
BINS="$base xpose" CASES="$(dirname "$0")/cases/box_window_cases.txt" ROUNDS=1 REPS=5 bash "$(dirname "$0")/device_ab_cases.sh"
BINS="xpose $base" CASES="$(dirname "$0")/cases/box_window_cases.txt" ROUNDS=1 REPS=5 OUT=$OUT/r2 \
  bash "$(dirname "$0")/device_ab_cases.sh"
echo "ab at ${SECONDS}s"
timeout 170 compute-sanitizer --tool memcheck "$B/test_gpu" --gtest_filter='GpuRandom.PermuteBox' 2>&1 |
  grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid" | head
echo "memcheck at ${SECONDS}s"
