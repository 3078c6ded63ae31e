#!/usr/bin/env bash
# A permute_box candidate against main on one device call. Carry build-dev-next (ignored by git):
# it holds the baseline BASE (default xpose_seg35, main's GPU code at 52b27d3, before ptab6;
# xpose_ptab6 is main's since cb0aacf), libgomp.so.1.xz and the candidate's xpose_NAME.xz /
# test_gpu_NAME.xz, NAME = CAND (default ptab6); ALSO names more builds for the A/B (xpose_NAME, no
# tests). Measured so far (on an H100 unless named; docs/performance.md):
#   gfill: box_gtab_fill, results/gtab-fill-candidate-2026-12-07.patch: mean -0.7; dropped.
#   gpair: box_gtab_pair, results/gtab-pair-candidate-2026-12-07.patch: mean -0.0; dropped.
#   ptab1: tables built at make_plan, every one copied and waited for before the first load
#          (results/ptab-v1-candidate-2026-12-07.patch, branch ptab): mean -1.3 (i8 +9 on two; f16,
#          f32 and f64 plans -0.1 to -8.3); not merged.
#   ptab4: the same, the output side's copy issued at the block's start and the input side's built
#          (results/ptab-v4-candidate-2026-12-07.patch): mean -3.2; not merged.
#   ptab4off: ptab4's kernels with no tables attached (branch ptab4-off: the v4 patch and an early
#          return in attach_box_tables; no test binary, so ALSO only): the control that says whether
#          ptab4's loss is the copy or the changed code. It ran as main (mean -0.2): not the code.
#   ptab5: ptab1 with 32 copies of the tables, block b reading copy b mod 32 (branch ptab5,
#          results/ptab-v5-candidate-2026-12-07.patch): i8 +1.2 on average (two plans +9), f16,
#          f32, f64 -0.4 to -0.6; ptab4off as main (-0.2). So the copy's cost was the blocks' reads
#          of one copy meeting on the same L2 lines (eighty-seventh session).
#   ptab6: ptab5 for 1-byte elements only, the other sizes' kernels compiled as main's (branch
#          ptab6, results/ptab-v6-candidate-2026-12-07.patch). H200 (eighty-eighth session): tests
#          passed, the 8 plans of ptab_87_i8_cases +5.1 on average, the i8 suite's median 71.6 ->
#          73.0; merged (cb0aacf).
#   ptab7: ptab6 with halves too (branch ptab7): for the H200, where the bytes paid four times what
#          they did on the H100; not run yet.
#   wphase: not a table change: the word gather with each word at its own byte phase (branch
#          wphase), on the 7 i8 plans of scripts/cases/wphase_88_cases.txt; not run yet.
#   cand89: the eighty-ninth session's four candidates for the H200's byte and half boxes together
#          (branch cand89: wphase, wsplit, hwords, seg7, each behind its switch; docs/performance.md):
#          not run yet. Case lists scripts/cases/cand89_i8_cases.txt, hwords_89_f16_cases.txt.
# A fresh checkout packs them: `scripts/devbin.sh --build xpose_seg35 test_gpu_seg35` on main, and
# with a patch applied `scripts/devbin.sh --build xpose_ptab6 test_gpu_ptab6`.
# On an H100: the tests 130 s with memcheck; the A/B on scripts/cases/ptab_86_cases.txt (33 plans)
# 131 s for two builds; four builds ran past AB_TIMEOUT's 330 s after 122 of their 132 rows (so
# about 360 s, and no ab.json); scripts/cases/ptab_87_i8_cases.txt (8 plans) about 35 s a round for
# two builds; each profile case about 5 s a build (eighty-sixth and eighty-seventh sessions). On the
# H200: the tests 102 s, ptab_87_i8_cases two rounds of two builds 75 s (eighty-eighth session).
#   CAND=ptab6 ROUNDS=2 CASES=scripts/cases/ptab_87_i8_cases.txt PROFILE="" OUT=$OUT scripts/device_gtab_fill.sh
#   BASE=xpose_ptab6 CAND=ptab7 ALSO=xpose_ptab5 CASES=scripts/cases/ptab_88_wide_cases.txt PROFILE="" \
#     OUT=$OUT scripts/device_gtab_fill.sh     # ptab7's tests; main, ptab7 and ptab5 on 32 wider plans
#   BASE=xpose_ptab6 CAND=cand89 MEMCHECK='GpuRandom.PermuteBoxSplitStoreShapes:GpuRandom.PermuteBoxHalfWords:GpuRandom.PermuteBoxWordPhase' \
#     CASES=scripts/cases/cand89_i8_cases.txt ROUNDS=2 PROFILE="" OUT=$OUT scripts/device_gtab_fill.sh
# 1. test_gpu_NAME on the permutation tests, memcheck on the box tests with owned ends, compact
#    halos and segments (or the gtest filter MEMCHECK): $OUT/tests.log (SKIP_TESTS=1 leaves it out).
# 2. scripts/device_ab_cases.sh, BINS="$BASE xpose_NAME $ALSO", CASES (default
#    scripts/cases/ptab_86_cases.txt), auto, ROUNDS rounds (default 1), cut off at AB_TIMEOUT
#    seconds (default 330): $OUT/ab.json, ab.log.
# 3. Nsight Compute's instruction and issue counts (device_memprofile.sh) for each build on
#    PROFILE (';'-separated "extents perm dtype"; default three of the cases, empty for none):
#    $OUT/profile-NAME.log.
set -uo pipefail
BIN=build-devbin source "$(dirname "$0")/device_common.sh"
cand=${CAND:-ptab6}
base=${BASE:-xpose_seg35}
device_unpack "$base" "xpose_$cand" "test_gpu_$cand" libgomp.so.1
nvidia-smi -L | tee "$OUT/tests.log"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  device_perm_tests "test_gpu_$cand" "$DEVICE_PERM_TESTS" \
    "${MEMCHECK:-GpuRandom.PermuteBoxSegments:GpuRandom.*OwnedEnds:GpuRandom.PermuteBoxCompactHalo}"
fi
OUT=$OUT BIN=build-devbin BINS="$base xpose_$cand ${ALSO:-}" CASES=${CASES:-scripts/cases/ptab_86_cases.txt} \
  ROUNDS=${ROUNDS:-1} timeout "${AB_TIMEOUT:-330}" "$(dirname "$0")/device_ab_cases.sh"
tail -2 "$OUT/ab.log"
PROFILE=${PROFILE-"2484,25,18,6,10,4 4,2,0,3,5,1 i8;44,23,13,22,6,22,7 2,5,0,1,4,3,6 i8;62,23,14,4,15,11,10 3,1,6,0,4,5,2 f16"}
if [ -n "$PROFILE" ]; then
  for b in "$base" "xpose_$cand"; do  # device_memprofile.sh runs BIN/xpose
    mkdir -p "build-devbin/$b.d" && cp "build-devbin/$b" "build-devbin/$b.d/xpose" &&
      cp build-devbin/libgomp.so.1 "build-devbin/$b.d/"
    OUT=$OUT BIN=build-devbin/$b.d CASES=$PROFILE LOG=profile-$b.log \
      "$(dirname "$0")/device_memprofile.sh" > /dev/null 2>&1
  done
fi
echo "gtab_fill done at ${SECONDS}s" | tee -a "$OUT/tests.log"
