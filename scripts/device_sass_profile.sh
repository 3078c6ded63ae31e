#!/usr/bin/env bash
# Where a kernel's instructions go, SASS instruction by instruction: Nsight Compute's source
# counters (executed instructions, thread-level executed instructions, stall samples per SASS line)
# for one launch of the kernels matching KERNEL (default permute_box) on each case of CASES
# ("extents perm dtype;..."), printed as CSV with the SASS text ($OUT/sass-N.csv; the report itself
# is removed unless KEEP_REP=1), and each run's details ($OUT/sass-cases.txt).
#   BIN=build-devbin scripts/device_sass_profile.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
IFS=';' read -ra cases <<< "${CASES:-92,201,168,85 3,2,1,0 i8}"
i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  read -r e p t <<< "$c"
  echo "== $i: $e perm $p $t" >> "$OUT/sass-cases.txt"
  CUDA_VISIBLE_DEVICES=0 timeout 240 ncu --kernel-name regex:"${KERNEL:-permute_box}" --launch-skip 1 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section InstructionStats --section SpeedOfLight \
    -o "$OUT/sass-$i" -f "$B/${XPOSE:-xpose}" bench --extents "$e" --perm "$p" --dtype "$t" \
    --variants "${PVARIANT:-auto}" --reps 1 --warmup 1 >> "$OUT/sass-cases.txt" 2>&1
  ncu -i "$OUT/sass-$i.ncu-rep" --page source --csv --print-source sass > "$OUT/sass-$i.csv" 2>&1
  ncu -i "$OUT/sass-$i.ncu-rep" --page details >> "$OUT/sass-cases.txt" 2>&1
  [ "${KEEP_REP:-0}" = 1 ] || rm -f "$OUT/sass-$i.ncu-rep"  # 25 MB each: over what a call brings back
done
ls -la "$OUT"
echo "took ${SECONDS}s"
