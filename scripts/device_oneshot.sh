#!/usr/bin/env bash
# The seventy-first session's grid bound (box_tile.cpp kBoxOneShotBytesPerEntry): builds at 32 and
# 16 bytes per table entry by name, alternating rounds, on the suite boxes that move between them
# (scripts/cases/box_oneshot_low_71_cases.txt), then the i8 and f16 suites of the 32 build.
# Carry build-dev-next/{xpose_w32,xpose_w16,libgomp.so.1}.xz. About 450 s on an H100.
#   OUT=$OUT scripts/device_oneshot.sh
#   BINS_AB="xpose_w16 xpose_w1" SUITES="" CASES=scripts/cases/box_oneshot_floor_71_cases.txt \
#     OUT=$OUT scripts/device_oneshot.sh    # other builds (the suites run the first), no suites
# $OUT/ab.log, $OUT/ab.json, $OUT/suite-{i8,f16}-NAME.json (NAME the first build) and $OUT/suites.log.
set -uo pipefail
export BIN=build-dev-next/oneshot
source "$(dirname "$0")/device_common.sh"
device_unpack ${BINS_AB:-xpose_w32 xpose_w16} libgomp.so.1 || exit 1
nvidia-smi -L | tee "$OUT/suites.log"
BINS="${BINS_AB:-xpose_w32 xpose_w16}" CASES=${CASES:-scripts/cases/box_oneshot_low_71_cases.txt} ROUNDS=${ROUNDS:-2} \
  "$(dirname "$0")/device_ab_cases.sh" > /dev/null
tail -1 "$OUT/ab.log"
first=${BINS_AB:-xpose_w32}
first=${first%% *}
for t in ${SUITES-i8 f16}; do device_suite "$first" "$t" "$OUT" "$first" "$OUT/suites.log"; done
