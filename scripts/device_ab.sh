#!/usr/bin/env bash
# A/B of two builds on a two-GPU machine: the permutation suite by name (VARIANTS, default
# permute_box) with build A then build B, TYPE0 on GPU 0 and TYPE1 on GPU 1 (defaults i8, f16),
# after B's tests (FILTER, default GpuRandom.PermuteBox, then memcheck on it) on GPU 1.
#   scripts/device_ab.sh A_DIR B_DIR   (each: xpose, libgomp.so.1; B also test_gpu)
set -uo pipefail
A=$(cd "${1:?usage: scripts/device_ab.sh A_DIR B_DIR}" && pwd)
B=$(cd "${2:?}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
suite() {  # GPU, dtype
  for side in A B; do
    dir=$A; [ $side = B ] && dir=$B
    CUDA_VISIBLE_DEVICES=$1 LD_LIBRARY_PATH=$dir $dir/xpose bench --suite permute --dtype "$2" \
      --variants "${VARIANTS:-permute_box}" --reps 5 --warmup 1 --json "$OUT/ab-$2-$side.json" > /dev/null 2>&1
  done
}
SECONDS=0
suite 0 "${TYPE0:-i8}" &
(
  export CUDA_VISIBLE_DEVICES=1 LD_LIBRARY_PATH=$B
  $B/test_gpu --gtest_filter="${FILTER:-GpuRandom.PermuteBox}" 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected" | head -20
  timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='GpuRandom.PermuteBox' 2>&1 |
    grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8
  echo "tests took ${SECONDS}s"
  suite 1 "${TYPE1:-f16}"
) > "$OUT/ab-tests.log" 2>&1
wait
echo "all took ${SECONDS}s" >> "$OUT/ab-tests.log"
cat "$OUT/ab-tests.log"
