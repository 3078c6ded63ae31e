#!/usr/bin/env bash
# A gtab-build candidate against main on one device call. Carry build-dev-next (ignored by git):
# it holds xpose_seg35.xz (main's GPU code at 52b27d3), libgomp.so.1.xz and the candidate's
# xpose_NAME.xz / test_gpu_NAME.xz, NAME = CAND (default gpair):
#   gpair: the eighty-fifth session's box_gtab_pair, docs/results/gtab-pair-candidate-2026-12-07.patch
#          on main (not measured yet: the machine was taken back mid-call);
#   gfill: the eighty-fourth session's box_gtab_fill, docs/results/gtab-fill-candidate-2026-12-07.patch
#          (measured in the eighty-fifth session on an H100: mean -0.7, i8 [44,23,13,22,6,22,7]
#          -7.4; dropped).
# A fresh checkout packs them: `scripts/devbin.sh --build xpose_seg35 test_gpu_seg35` on main, and
# with the patch applied `scripts/devbin.sh --build xpose_gpair test_gpu_gpair`.
# 182 s on an H100 (eighty-fifth session, gfill, two profile cases).
#   CAND=gpair OUT=$OUT scripts/device_gtab_fill.sh
# 1. test_gpu_NAME on the permutation tests, memcheck on the box tests with owned ends, compact
#    halos and segments: $OUT/tests.log (SKIP_TESTS=1 leaves it out).
# 2. scripts/device_ab_cases.sh, BINS="xpose_seg35 xpose_NAME", CASES (default
#    scripts/cases/gtab_fill_84_cases.txt), auto, ROUNDS rounds (default 1): $OUT/ab.json, ab.log.
# 3. Nsight Compute's instruction and issue counts (device_memprofile.sh) for each build on
#    PROFILE (';'-separated "extents perm dtype"; default three of the cases, empty for none):
#    $OUT/profile-NAME.log.
set -uo pipefail
BIN=build-devbin source "$(dirname "$0")/device_common.sh"
cand=${CAND:-gpair}
device_unpack xpose_seg35 "xpose_$cand" "test_gpu_$cand" libgomp.so.1
nvidia-smi -L | tee "$OUT/tests.log"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  device_perm_tests "test_gpu_$cand" "$DEVICE_PERM_TESTS" \
    'GpuRandom.PermuteBoxSegments:GpuRandom.*OwnedEnds:GpuRandom.PermuteBoxCompactHalo'
fi
OUT=$OUT BIN=build-devbin BINS="xpose_seg35 xpose_$cand" CASES=${CASES:-scripts/cases/gtab_fill_84_cases.txt} \
  ROUNDS=${ROUNDS:-1} timeout "${AB_TIMEOUT:-330}" "$(dirname "$0")/device_ab_cases.sh"
tail -2 "$OUT/ab.log"
PROFILE=${PROFILE-"2484,25,18,6,10,4 4,2,0,3,5,1 i8;44,23,13,22,6,22,7 2,5,0,1,4,3,6 i8;62,23,14,4,15,11,10 3,1,6,0,4,5,2 f16"}
if [ -n "$PROFILE" ]; then
  for b in xpose_seg35 "xpose_$cand"; do  # device_memprofile.sh runs BIN/xpose
    mkdir -p "build-devbin/$b.d" && cp "build-devbin/$b" "build-devbin/$b.d/xpose" &&
      cp build-devbin/libgomp.so.1 "build-devbin/$b.d/"
    OUT=$OUT BIN=build-devbin/$b.d CASES=$PROFILE LOG=profile-$b.log \
      "$(dirname "$0")/device_memprofile.sh" > /dev/null 2>&1
  done
fi
echo "gtab_fill done at ${SECONDS}s" | tee -a "$OUT/tests.log"
