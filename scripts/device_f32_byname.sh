#!/usr/bin/env bash
# Planned for the first session with a GPU after the fiftieth (not run yet): where the f32
# permutation suite loses. One H200 call, about 300 s.
#   1) the f32 suite by name: auto, permute_box, permute_runs, permute_packed (f32-byname.json):
#      permute_runs holds 9 of the 30 f32 cases under the median (55-74%), and permute_box has
#      gained since the forty-sixth session's by-name run (tables, one block per tile);
#   2) Nsight Compute with stall reasons on the three lowest cases' kernels (box-profile.log).
#   scripts/device_f32_byname.sh BIN   (BIN: xpose and libgomp.so.1, as device_box.sh)
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_f32_byname.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
SECONDS=0
"$B/xpose" bench --suite permute --dtype f32 --variants auto,permute_box,permute_runs,permute_packed \
  --reps 5 --warmup 1 --json "$OUT/f32-byname.json" > "$OUT/f32-byname.log" 2>&1
echo "suite by name took ${SECONDS}s"
STALLS=1 KERNEL=permute PVARIANT=auto OUT=$OUT \
  CASES="3623,7,2,21,21,3 2,0,4,1,5,3 f32;692,19,10,3,10,17 5,4,1,2,3,0 f32;11,21,10,4,12,13,23,2 4,3,6,2,0,1,5,7 f32" \
  bash "$(dirname "$0")/device_box.sh" "$B" profile > /dev/null 2>&1
echo "all took ${SECONDS}s"
