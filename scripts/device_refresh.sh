#!/usr/bin/env bash
# One H200 call that refreshes the record at one commit: binaries in build-dev-next (xz-packed
# xpose_head, test_gpu and libgomp.so.1, built here from HEAD), then
#   1. the f32 cases auto runs with permute_runs, permute_runs against permute_box by name, two
#      rounds (measured on H100s only, in the fifty-seventh and fifty-ninth sessions; f64's box won
#      on both GPUs), $OUT/f32runs/ab.{json,log};
#   2. the permutation suite with auto for each type in TYPES (default all five), $OUT/suite/.
#   OUT=... scripts/device_refresh.sh          # TYPES="f32 i8" for fewer suites, AB=0 to skip 1.
set -uo pipefail
cd build-dev-next && for f in *.xz; do xz -d -T8 -f "$f"; done; chmod +x xpose* test_gpu 2> /dev/null
cp xpose_head xpose && cd ..
nvidia-smi -L
R=$OUT
if [ "${AB:-1}" = 1 ]; then
  grep ' f32$' scripts/cases/runs_box_cases.txt > /tmp/f32runs.txt
  OUT=$R/f32runs BIN=build-dev-next BINS=xpose_head VARIANTS=permute_runs,permute_box ROUNDS=2 \
    CASES=/tmp/f32runs.txt scripts/device_ab_cases.sh > /dev/null
  tail -1 "$R/f32runs/ab.log"
fi
OUT=$R/suite TYPES="${TYPES:-f32 i8 f16 f64 c128}" scripts/device_check.sh build-dev-next suite
echo "refresh done after ${SECONDS}s"
