#!/usr/bin/env bash
# One device call: where the bytes go for a few permutations. For each "extents perm dtype [variant]"
# in CASES (';'-separated), `xpose bench` (auto or the variant, % of copy) and Nsight Compute's
# memory counters on the kernel's second launch: DRAM bytes read and written against the tensor's
# bytes, L2 sectors from the SMs, DRAM and L2 throughput, occupancy and issue activity.
#   BIN=build-dev CASES="692,19,10,3,10,17 5,4,1,2,3,0 f64;..." OUT=$OUT scripts/device_memprofile.sh
# EXTRA_METRICS: more ncu metrics, comma-separated. LOG names the output file (default memprofile.log).
# Output: $OUT/memprofile.log (bench rows, then one block of metrics per case).
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,launch__grid_size,\
launch__occupancy_limit_shared_mem,launch__registers_per_thread${EXTRA_METRICS:+,$EXTRA_METRICS}
IFS=';' read -ra cases <<< "${CASES:?CASES: \"extents perm dtype [variant];...\"}"
for c in "${cases[@]}"; do
  read -r e p t v <<< "$c"
  v=${v:-auto}
  echo "== $e perm $p $t $v"
  timeout 120 "$B/xpose" bench --extents "$e" --perm "$p" --dtype "$t" --variants "$v" --reps 10 --warmup 2 2>&1 |
    grep -E "^\| (auto|permute|fast|tma|tiled|reg|narrow)" | cut -d'|' -f2,4,5,10,11,12,13
  timeout 240 ncu --kernel-name regex:"${KREGEX:-permute|tile|batch|narrow|interleave|unzip}" --launch-skip 1 \
    --launch-count 1 --clock-control none --metrics "$METRICS" --print-summary none \
    "$B/xpose" bench --extents "$e" --perm "$p" --dtype "$t" --variants "$v" --reps 1 --warmup 1 2>&1 |
    grep -vE "^==PROF==|^\s*$|----|Section:|^\[|^\|" | sed 's/  */ /g' | cut -c1-150
done > "$OUT/${LOG:-memprofile.log}" 2>&1
echo "profile done at ${SECONDS}s" >> "$OUT/${LOG:-memprofile.log}"
tail -c 5000 "$OUT/${LOG:-memprofile.log}"
