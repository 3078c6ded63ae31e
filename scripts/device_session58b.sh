#!/usr/bin/env bash
# Fifty-eighth session's second call, asked of an H200, run on an H100. build-dev-next: xpose_exp =
# 06ec28d plus an experiment knob, XFILL (docs/results/box-fill-experiment-2026-12-05.patch, not
# kept: the box score raises its fill factor to the power XFILL); xpose_fill0 runs it with XFILL=0.
# The f32 suite with the f32 rule, permute_box with and without the fill factor on
# scripts/cases/box_fill_cases.txt, and permute_runs by name on its f32 lines.
set -uo pipefail
cd build-dev-next && for f in *.xz; do xz -d -T8 -f "$f"; done; chmod +x xpose*; cp xpose_exp xpose; cd ..
nvidia-smi -L
R=$OUT
OUT=$R/suite TYPES=f32 scripts/device_check.sh build-dev-next suite
OUT=$R/fill BIN=build-dev-next BINS="xpose_exp xpose_fill0" VARIANTS=permute_box ROUNDS=${ROUNDS:-1} CASES=scripts/cases/box_fill_cases.txt scripts/device_ab_cases.sh
grep ' f32$' scripts/cases/box_fill_cases.txt > /tmp/f32c.txt
OUT=$R/runs BIN=build-dev-next BINS=xpose_exp VARIANTS=permute_runs ROUNDS=1 CASES=/tmp/f32c.txt scripts/device_ab_cases.sh
echo "session58b done after ${SECONDS}s"
