#!/usr/bin/env bash
# The sixty-eighth session's probe, second call: Nsight Compute's unit throughputs and warp stalls
# on the slowest i8 and f32 suite cases, HEAD's build and the no-gather probe build (branch
# probe/no-gather; see device_probe_gather.sh). Output: $OUT/probe-head.log, $OUT/probe-probe.log.
# BINS names other builds (build-dev-next/xpose_N.xz each; the run-ends probe: BINS="head ends").
set -uo pipefail
BINS=${BINS:-head probe}
cd build-dev-next && for b in $BINS; do
  xz -d -T8 -f xpose_$b.xz && mkdir -p $b && mv xpose_$b $b/xpose && chmod +x $b/xpose; done
xz -d -T8 -f libgomp.so.1.xz; for b in $BINS; do cp libgomp.so.1 $b/; done; cd ..
nvidia-smi -L
S=smsp__average_warps_issue_stalled
export EXTRA_METRICS=lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,\
lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,\
${S}_long_scoreboard_per_issue_active.ratio,${S}_barrier_per_issue_active.ratio,${S}_lg_throttle_per_issue_active.ratio,\
${S}_mio_throttle_per_issue_active.ratio,${S}_short_scoreboard_per_issue_active.ratio,${S}_drain_per_issue_active.ratio,\
${S}_membar_per_issue_active.ratio,${S}_wait_per_issue_active.ratio,\
lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
export CASES=${CASES:-"776,12,21,3,8,19,3 6,5,4,1,3,0,2 i8;2768,19,10,3,10,17 5,4,1,2,3,0 i8;1612,7,6,9,22,10,2 6,0,5,3,1,2,4 i8;194,12,21,3,8,19,3 6,5,4,1,3,0,2 f32;3623,7,2,21,21,3 2,0,4,1,5,3 f32;23,201,168,85 3,2,1,0 f32"}
for b in $BINS; do BIN=build-dev-next/$b LOG=probe-$b.log scripts/device_memprofile.sh > /dev/null; echo "$b done at ${SECONDS}s"; done
