#!/usr/bin/env bash
# One device call: every permutation kernel by name (and auto) on each "extents perm dtype" line of
# CASES (default scripts/cases/byname_worst_cases.txt: the lowest cases of the f32, f64 and c128 suites
# at the nineteenth session's code), ten repetitions; then the CPU kernel tests on the device
# host's CPU (lscpu's flags in cpu.txt). No case starts after LIMIT seconds (default: no limit).
# Everything comes back as $OUT/byname.tgz.
set -u
source "$(dirname "$0")/device_common.sh"
CASES=${CASES:-scripts/cases/byname_worst_cases.txt}
VARIANTS=${VARIANTS:-auto,permute_packed,permute_box,permute_runs,permute_general,permute_rows}
i=0
while read -r ext perm dt; do
  [ -z "$ext" ] || [ "${ext:0:1}" = "#" ] && continue  # case lists open with comment lines
  i=$((i + 1))
  [ "$SECONDS" -gt "${LIMIT:-100000}" ] && { echo "case $i on skipped: ${SECONDS}s gone"; break; }
  timeout 120 "$B/xpose" bench --variants "$VARIANTS" --extents "$ext" --perm "$perm" --dtype "$dt" --reps 10 \
    --warmup 2 --json "$OUT/byname-$i.json" > /dev/null 2>> "$OUT/errors.txt"
done < "$CASES"
echo "by name done at ${SECONDS}s"
lscpu > "$OUT/cpu.txt"
if [ -x "$B/test_cpu_blocked" ]; then
  timeout 200 "$B/test_cpu_blocked" --gtest_filter='CpuBlockedKernels*:CpuBlocked.RandomPermutations:CpuBlocked.NarrowShapes' 2>&1 |
    tail -3 > "$OUT/cpu-tests.txt"
fi
echo "cpu tests done at ${SECONDS}s"
cd "$OUT" && tar czf /tmp/byname.tgz . && find . -type f -delete && mv /tmp/byname.tgz .
