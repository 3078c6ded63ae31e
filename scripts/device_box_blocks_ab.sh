#!/usr/bin/env bash
# The sixty-seventh session's A/B of permute_box's blocks an SM for 4- to 16-byte elements: main's 5
# (48 registers) against 6 (40 registers, no spills) and 8 (32 registers, 32-76 bytes spilled),
# permute_box by name on scripts/cases/box_blocks_67_cases.txt, rounds alternating between builds
# (device_ab_cases.sh). Carry build-dev-next/xpose_head.xz (main), build-dev-next/wb/xpose_w6.xz,
# build-dev-next/wb/xpose_w8.xz (XPOSE_BOX_WIDE_MIN_BLOCKS=6 and 8, branch cand/box-wide-blocks) and
# build-dev-next/libgomp.so.1.xz. Output: $OUT/ab.json, $OUT/ab.log.
#   OUT=$OUT scripts/device_box_blocks_ab.sh
set -uo pipefail
mkdir -p build-dev-next/abw
for f in build-dev-next/xpose_head build-dev-next/wb/xpose_w6 build-dev-next/wb/xpose_w8 build-dev-next/libgomp.so.1; do
  xz -d -T8 -c "$f.xz" > "build-dev-next/abw/$(basename "$f")"
done
chmod +x build-dev-next/abw/xpose_*
nvidia-smi -L
BIN=build-dev-next/abw BINS="xpose_head xpose_w6 xpose_w8" VARIANTS=permute_box ROUNDS=${ROUNDS:-2} \
  CASES=${CASES:-scripts/cases/box_blocks_67_cases.txt} scripts/device_ab_cases.sh
