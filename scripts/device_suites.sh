#!/usr/bin/env bash
# The permutation suites of one or more prebuilt binaries, one after another per type: `xpose bench
# --suite permute --dtype T --variants auto --reps 5 --warmup 1` for each T of SUITES (default all
# five) and each NAME of BINS (default xpose_main), carried as build-dev-next/NAME.xz with
# libgomp.so.1.xz. About 60-140 s per type and binary on an H100 (i8 the longest). $OUT/suites.tgz
# (suite-T-NAME.json and their stderr), written again after each suite so that a call cut off keeps
# what finished, and $OUT/suites.log.
#   SUITES="i8 f16" OUT=$OUT scripts/device_suites.sh
#   BINS="xpose_main xpose_new" SUITES=f32 OUT=$OUT scripts/device_suites.sh
set -uo pipefail
export BIN=build-dev-next/suites
source "$(dirname "$0")/device_common.sh"
BINS=${BINS:-xpose_main}
# shellcheck disable=SC2086  # BINS is a list of names
device_unpack $BINS libgomp.so.1
S=$(mktemp -d)
nvidia-smi -L | tee "$OUT/suites.log"
for t in ${SUITES:-i8 f16 f32 f64 c128}; do
  for b in $BINS; do
    device_suite "$b" "$t" "$S" "$b" "$OUT/suites.log"
    tar czf "$OUT/suites.tgz" -C "$S" .
  done
done
rm -rf "$S"
