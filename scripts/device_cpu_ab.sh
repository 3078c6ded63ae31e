#!/usr/bin/env bash
# A/B of two builds' CPU backend on the device machine's cores (no GPU work): `auto` on each
# "extents perm dtype" line of CASES, builds interleaved, ROUNDS rounds (default 3), then the
# permutation suite for each type of SUITES (default "i8 f16") with each build. Builds are
# binaries in BIN (default build-devbin) named by BUILD_A and BUILD_B (defaults xpose_main, xpose).
#   CASES=file SUITES="i8 f16" BUILD_A=xpose_main BUILD_B=xpose scripts/device_cpu_ab.sh
# Output: $OUT/cpu-cases-BUILD-ROUND-N.json, $OUT/cpu-suite-TYPE-BUILD.json, one tar file.
set -u
source "$(dirname "$0")/device_common.sh"
A=${BUILD_A:-xpose_main}
nproc
if [ -n "${CASES:-}" ]; then
  for round in $(seq "${ROUNDS:-3}"); do
    i=0
    while read -r ext perm dt; do
      [ -z "$ext" ] || [ "${ext:0:1}" = "#" ] && continue  # case lists open with comment lines
      i=$((i + 1))
      for x in "$A" "${BUILD_B:-xpose}"; do
        timeout 120 "$B/$x" bench --device cpu --variants auto --extents "$ext" --perm "$perm" --dtype "$dt" \
          --reps 5 --warmup 1 --json "$OUT/cpu-cases-$x-$round-$i.json" > /dev/null 2>&1
      done
    done < "$CASES"
    echo "round $round done at ${SECONDS}s"
  done
fi
for t in ${SUITES-i8 f16}; do
  for x in "$A" "${BUILD_B:-xpose}"; do
    timeout 300 "$B/$x" bench --device cpu --suite permute --dtype "$t" --variants auto --reps 3 --warmup 1 \
      --json "$OUT/cpu-suite-$t-$x.json" > /dev/null 2>&1
    echo "suite $t $x done at ${SECONDS}s"
  done
done
cd "$OUT" && tar czf /tmp/cpu-ab.tgz . && find . -type f -delete && mv /tmp/cpu-ab.tgz .
