#!/usr/bin/env bash
# The seventieth session's owned-ends plans (branch cand/box-halo-compact): its permutation tests
# with memcheck, then main against the branch by name, alternating rounds, on the plans that differ
# (scripts/cases/box_halo_guard_70_cases.txt). Carry build-dev-next/{xpose_main,xpose_new,
# test_gpu_new,libgomp.so.1}.xz (xpose_main: main's; the others the branch's). About 300 s.
# Another candidate: NEW and TESTBIN name its binaries, CASES its case file.
#   OUT=$OUT scripts/device_halo_guard.sh
#   NEW=xpose_shrink TESTBIN=test_gpu_shrink CASES=scripts/cases/box_halo_shrink_70_cases.txt \
#     OUT=$OUT scripts/device_halo_guard.sh
# $OUT/tests.log, $OUT/ab.log and $OUT/ab.json.
set -uo pipefail
export BIN=build-dev-next/guard
source "$(dirname "$0")/device_common.sh"
NEW=${NEW:-xpose_new} TESTBIN=${TESTBIN:-test_gpu_new}
device_unpack xpose_main "$NEW" "$TESTBIN" libgomp.so.1
nvidia-smi -L | tee "$OUT/tests.log"
device_perm_tests "$TESTBIN" "" 'GpuRandom.*OwnedEnds:GpuRandom.PermuteBoxCompactHalo:GpuRandom.PermuteBoxWideWords'
BINS="xpose_main $NEW" CASES=${CASES:-scripts/cases/box_halo_guard_70_cases.txt} ROUNDS=${ROUNDS:-3} \
  "$(dirname "$0")/device_ab_cases.sh" > /dev/null
tail -1 "$OUT/ab.log"
