#!/usr/bin/env bash
# The sixty-ninth session's follow-ups to owned output ends (branch cand/box-halo-compact at
# 57a38ae, on top of cand/box-halo-reach; built there, not on a device yet): a tile counts its
# halo's reach toward its unchecked loads only where its halo exists, kernels without owned ends
# decompose over the tile extents at compile time, a box whose halo does not fit is planned again
# within up to 8 KiB less, and a compact halo where whole slices would be half the box. Its tests,
# then the permutation suites against main. Carry build-dev-next/{xpose_main,xpose_reach,
# test_gpu_reach,libgomp.so.1}.xz (xpose_main: main's kernels and plans, d7bb0ea's; xpose_reach
# and test_gpu_reach: 57a38ae). About 420 s with the default SUITES.
#   OUT=$OUT scripts/device_halo_reach.sh                 # tests, then the i8 and f16 suites
#   SKIP_TESTS=1 SUITES="f32 f64" OUT=$OUT scripts/device_halo_reach.sh
# $OUT/tests.log (the permutation tests, memcheck on the OwnedEnds tests, the suites' exit
# codes) and $OUT/suites.tgz (suite-TYPE-{main,reach}.json and their stderr): two files, as a call
# brings back only eight.
set -uo pipefail
BIN=build-dev-next/reach source "$(dirname "$0")/device_common.sh"
device_unpack xpose_main xpose_reach test_gpu_reach libgomp.so.1
S=$(mktemp -d)
nvidia-smi -L | tee "$OUT/tests.log"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  device_perm_tests test_gpu_reach "" 'GpuRandom.*OwnedEnds:GpuRandom.PermuteBoxCompactHalo'
fi
for t in ${SUITES:-i8 f16}; do
  for b in main reach; do
    device_suite "xpose_$b" "$t" "$S" "$b" "$OUT/tests.log"
    tar czf "$OUT/suites.tgz" -C "$S" .  # after each suite: a call cut off keeps what finished
  done
done
rm -rf "$S"
