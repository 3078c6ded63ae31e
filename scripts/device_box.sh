#!/usr/bin/env bash
# permute_box on the device (one call on a two-GPU machine): its tests and memcheck on GPU 1, the
# permutation suite by name on both GPUs.
#   scripts/device_box.sh BIN [tests] [suite]   (BIN: xpose, test_gpu, libgomp.so.1)
#     tests: FILTER (default GpuRandom.PermuteBox), then compute-sanitizer memcheck on MEMCHECK
#            (default the same test) (GPU 1);
#     suite: `xpose bench --suite permute` for TYPES0 on GPU 0 and TYPES1 on GPU 1 (defaults "i8"
#            and "f16"), VARIANTS (default auto,permute_box), JSON per type in $OUT;
#     profile: Nsight Compute on permute_box for CASES ("extents perm dtype;..."), GPU 0; STALLS=1
#            adds each stall reason's warps per issued instruction.
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_box.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/${XPOSE:-xpose}
suite() {  # GPU, types
  for t in $2; do
    CUDA_VISIBLE_DEVICES=$1 $X bench --suite permute --dtype "$t" --variants "${VARIANTS:-auto,permute_box}" \
      --reps 5 --warmup 1 --json "$OUT/box-$t.json" > "$OUT/box-$t.log" 2>&1
  done
}
tests=0 bench=0 prof=0
for mode in "${@:2}"; do
  case $mode in tests) tests=1 ;; suite) bench=1 ;; profile) prof=1 ;; esac
done
SECONDS=0
if [ $prof = 1 ]; then
  IFS=';' read -ra cases <<< "${CASES:-2048,256,512 2,1,0 i8;2048,256,512 2,1,0 f16;4,24,19,23,24,25,16,5 2,1,4,0,6,5,3,7 i8}"
  for c in "${cases[@]}"; do
    read -r e p t <<< "$c"
    echo "== $e perm $p $t"
    CUDA_VISIBLE_DEVICES=0 ncu --kernel-name regex:"${KERNEL:-permute_box}" --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis --print-summary none \
      $X bench --extents "$e" --perm "$p" --dtype "$t" --variants "${PVARIANT:-permute_box}" --reps 1 --warmup 1 2>&1 |
      grep -vE "^==PROF==|^\s*$|----|^          " | cut -c1-160 | head -${LINES:-400}
    if [ "${STALLS:-0}" = 1 ]; then  # why warps wait: each stall reason per issued instruction
      CUDA_VISIBLE_DEVICES=0 ncu --kernel-name regex:"${KERNEL:-permute_box}" --launch-skip 1 --launch-count 1 \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' --print-summary none \
        $X bench --extents "$e" --perm "$p" --dtype "$t" --variants "${PVARIANT:-permute_box}" --reps 1 --warmup 1 2>&1 |
        grep -E "stalled|error|ERROR" | sort -k3 -g -r | head -24
    fi
  done > "$OUT/box-profile.log" 2>&1
fi
if [ $bench = 1 ]; then suite 0 "${TYPES0:-i8}" & fi
(
  export CUDA_VISIBLE_DEVICES=1
  if [ $tests = 1 ]; then
    $B/test_gpu --gtest_filter="${FILTER:-GpuRandom.PermuteBox}" 2>&1 |
      grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case" | head -20
    timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter="${MEMCHECK:-GpuRandom.PermuteBox}" 2>&1 |
      grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8
    echo "tests took ${SECONDS}s"
  fi
  if [ $bench = 1 ]; then suite 1 "${TYPES1:-f16}"; fi
) > "$OUT/box-tests.log" 2>&1
wait
echo "all took ${SECONDS}s" >> "$OUT/box-tests.log"
cat "$OUT/box-tests.log"
