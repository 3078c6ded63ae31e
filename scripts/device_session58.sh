#!/usr/bin/env bash
# Fifty-eighth session's H200 calls (binaries in build-dev-next: xpose_head = 628413d, xpose_new =
# the f32 rule, f32_box_beats_packed). Results under $OUT.
#   scripts/device_session58.sh ab      # the f32 rule's first cases, the f64 runs cases by name,
#                                       # the f32 suite with the candidate, the i8 suite at HEAD
#   scripts/device_session58.sh suites  # the f32 suite with xpose_new, then with xpose_head; the f32
#                                       # runs cases, permute_runs against permute_box
set -uo pipefail
cd build-dev-next && for f in *.xz; do xz -d -T8 -f "$f"; done; chmod +x xpose*; cp xpose_head xpose
mkdir -p nb && cp xpose_new nb/xpose && cp libgomp.so.1 nb/ && cd ..
nvidia-smi -L
R=$OUT
case "${1:?ab or suites}" in
  ab)
    OUT=$R/f32 BIN=build-dev-next BINS=xpose_head VARIANTS=auto,permute_box ROUNDS=2 CASES=scripts/f32_plain_box_cases.txt scripts/device_ab_cases.sh
    grep ' f64$' scripts/runs_box_cases.txt > /tmp/f64runs.txt
    OUT=$R/f64runs BIN=build-dev-next BINS=xpose_head VARIANTS=permute_runs,permute_box ROUNDS=2 CASES=/tmp/f64runs.txt scripts/device_ab_cases.sh
    echo "10168,5,24,11,5 1,2,0,3,4 f64" > /tmp/f64packed.txt
    OUT=$R/f64packed BIN=build-dev-next BINS=xpose_head VARIANTS=permute_packed,permute_box ROUNDS=2 CASES=/tmp/f64packed.txt scripts/device_ab_cases.sh
    OUT=$R/suite-new TYPES=f32 scripts/device_check.sh build-dev-next/nb suite
    OUT=$R/suite-head TYPES=i8 scripts/device_check.sh build-dev-next suite ;;
  suites)
    OUT=$R/suite-new TYPES=f32 scripts/device_check.sh build-dev-next/nb suite
    OUT=$R/suite-head TYPES=f32 scripts/device_check.sh build-dev-next suite
    grep ' f32$' scripts/runs_box_cases.txt > /tmp/f32runs.txt
    OUT=$R/f32runs BIN=build-dev-next BINS=xpose_head VARIANTS=permute_runs,permute_box ROUNDS=2 CASES=/tmp/f32runs.txt scripts/device_ab_cases.sh ;;
esac
echo "session58 done after ${SECONDS}s"
