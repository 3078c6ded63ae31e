#!/usr/bin/env bash
# The sixty-eighth session's A/B of permute_runs with the next tile's loads issued before this
# tile's stores (branch cand/runs-prefetch): HEAD's build (build-dev-next/xpose_head.xz) against
# candidates A (4 blocks per SM, 64 registers, 52-140 bytes spilled) and B (3 blocks, no cap at
# 64), xz-packed as build-dev-next/xpose_pf{A,B}.xz. TEST_CANDS (e.g. "B", with test_gpu_pfB.xz
# carried) first runs those candidates' permutation tests; the session's run set none (the carry
# limit). Then per case of CASES (default scripts/cases/runs_prefetch_68_cases.txt) HEAD's auto and
# permute_runs and each candidate's permute_runs, the binaries alternating case by case.
# Output: $OUT/prefetch.tgz.
set -uo pipefail
cd build-dev-next && for f in xpose_head xpose_pfA xpose_pfB test_gpu_pfA test_gpu_pfB libgomp.so.1; do
  [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
chmod +x xpose_* test_gpu_pf* 2>/dev/null; cd ..
export LD_LIBRARY_PATH=$PWD/build-dev-next:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/prefetch"
nvidia-smi -L | tee "$OUT/prefetch/gpu.txt"
F='GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PermutationsSmall:GpuRandom.PermutationsPerVariant:GpuRandom.TilePanels'
for c in ${TEST_CANDS:-}; do
  timeout 150 build-dev-next/test_gpu_pf$c --gtest_filter="$F" 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|tests ran" |
    head -20 > "$OUT/prefetch/tests-$c.txt"
  echo "tests $c at ${SECONDS}s: $(tail -1 "$OUT/prefetch/tests-$c.txt")"
done
i=0
while read -r ext perm dt; do
  [ -z "$ext" ] || [ "${ext:0:1}" = "#" ] && continue
  i=$((i + 1))
  [ "$SECONDS" -gt "${LIMIT:-480}" ] && { echo "case $i on skipped: ${SECONDS}s gone"; break; }
  for b in head pfA pfB; do
    v=permute_runs; [ $b = head ] && v=auto,permute_runs
    timeout 60 build-dev-next/xpose_$b bench --variants $v --extents "$ext" --perm "$perm" --dtype "$dt" --reps 10 \
      --warmup 2 --json "$OUT/prefetch/c$i-$b.json" > /dev/null 2>> "$OUT/prefetch/errors.txt"
  done
done < "${CASES:-scripts/cases/runs_prefetch_68_cases.txt}"
echo "cases done at ${SECONDS}s"
cd "$OUT" && tar czf prefetch.tgz prefetch && rm -rf prefetch
