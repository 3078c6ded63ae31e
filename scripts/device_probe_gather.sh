#!/usr/bin/env bash
# The sixty-eighth session's probe: how fast would the permutation kernels run without their
# shared-memory gather? Runs `xpose bench --suite permute --variants auto` for each type of TYPES
# with HEAD's build (build-dev-next/xpose_head.xz) and with the probe build of branch
# probe/no-gather (build-dev-next/xpose_probe.xz: permute_box, permute_runs and permute_packed store
# a value made from the item index instead of gathering it, so the loads, barriers, stores and
# plans are the real ones; its outputs are WRONG by design and its bench exits 1). The two builds
# alternate type by type, ROUNDS rounds (default 1). Output: $OUT/probe.tgz.
#   OUT=$OUT TYPES="i8 f16 f32 f64" scripts/device_probe_gather.sh
set -uo pipefail
cd build-dev-next && for f in xpose_head xpose_probe libgomp.so.1; do [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
mkdir -p head probe && mv xpose_head head/xpose && mv xpose_probe probe/xpose && cp libgomp.so.1 head/ &&
  cp libgomp.so.1 probe/ && chmod +x head/xpose probe/xpose && cd ..
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/probe"
nvidia-smi -L | tee "$OUT/probe/gpu.txt"
for r in $(seq 1 "${ROUNDS:-1}"); do
  for t in ${TYPES:-i8 f16 f32 f64}; do
    for b in head probe; do
      LD_LIBRARY_PATH=$PWD/build-dev-next/$b:${LD_LIBRARY_PATH:-} timeout 250 build-dev-next/$b/xpose bench \
        --suite permute --dtype "$t" --variants auto --reps 5 --warmup 1 --json "$OUT/probe/suite-$t-$b-r$r.json" \
        > /dev/null 2> "$OUT/probe/err-$t-$b-r$r.txt"
      echo "round $r $t $b rc=$? at ${SECONDS}s"
    done
  done
done
cd "$OUT" && tar czf probe.tgz probe && rm -rf probe
