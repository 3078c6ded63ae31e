#!/usr/bin/env bash
# The sixty-eighth session's owned output ends in permute_runs (branch cand/runs-own-ends; built
# there, not on a device yet): its tests, then an A/B against HEAD. Carry
# build-dev-next/{xpose_head,xpose_own,test_gpu_own,libgomp.so.1}.xz (xpose_head: main's kernels and
# plans; xpose_own and test_gpu_own: the branch). About 350 s.
#   OUT=$OUT scripts/device_runs_own_ends.sh
# 1. test_gpu_own on the permutation tests that run permute_runs (PermuteRunsOwnedEnds is new), then
#    memcheck on PermuteRunsOwnedEnds: $OUT/tests.log.
# 2. scripts/device_ab_cases.sh, BINS="xpose_head xpose_own", CASES=scripts/cases/runs_own_ends_68_cases.txt,
#    auto, two rounds: $OUT/ab.json, $OUT/ab.log.
set -uo pipefail
cd build-dev-next && mkdir -p own && for f in xpose_head xpose_own test_gpu_own libgomp.so.1; do
  xz -dc $f.xz > own/$f; done && chmod +x own/* && cd ..
export LD_LIBRARY_PATH=$PWD/build-dev-next/own:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/tests.log"
F='GpuRandom.PermuteRunsOwnedEnds:GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PermutationsSmall:GpuRandom.PermutationsPerVariant:GpuRandom.TilePanels'
timeout 240 build-dev-next/own/test_gpu_own --gtest_filter="$F" 2>&1 |
  grep -E "^\[  (PASSED|FAILED)  \]|^\[       OK \]|Failure|Which is|case|tests ran" | head -40 >> "$OUT/tests.log"
timeout 150 compute-sanitizer --tool memcheck build-dev-next/own/test_gpu_own --gtest_filter=GpuRandom.PermuteRunsOwnedEnds 2>&1 |
  grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8 >> "$OUT/tests.log"
echo "tests done at ${SECONDS}s" | tee -a "$OUT/tests.log"
OUT=$OUT BIN=build-dev-next/own BINS="xpose_head xpose_own" CASES=scripts/cases/runs_own_ends_68_cases.txt ROUNDS=2 \
  timeout 200 scripts/device_ab_cases.sh
echo "done at ${SECONDS}s"
