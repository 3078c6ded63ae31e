#!/usr/bin/env bash
# The sixty-sixth session's A/B of permute_box, permute_runs and permute_packed by name on the f32
# and f64 suite cases where auto runs one of them and both box and runs plan
# (scripts/cases/runs_box_66_cases.txt), ROUNDS rounds (default 2), HEAD's build carried xz-packed
# as build-dev-next/xpose_b3.xz with libgomp.so.1.xz. Output: $OUT/rN/byname.tgz per round.
# (Its first run, the sixty-sixth session, piped device_byname.sh into `head -1`, which ended it by
# SIGPIPE before it packed its files: of 74 files 8 came back. Its log goes to $OUT/rN.log now.)
# CASES and VARIANTS replace the case list and the kernels (the sixty-seventh session's f64 / c128 run:
# scripts/cases/wide_byname_67_cases.txt with tiled and tma_tile too).
#   OUT=$OUT scripts/device_runs_box_ab.sh
set -uo pipefail
cd build-dev-next && for f in xpose_b3 libgomp.so.1; do [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
mkdir -p b3 && mv xpose_b3 b3/xpose && cp libgomp.so.1 b3/ && chmod +x b3/xpose && cd ..
nvidia-smi -L
for r in $(seq 1 "${ROUNDS:-2}"); do
  OUT=$OUT/r$r BIN=build-dev-next/b3 CASES=${CASES:-scripts/cases/runs_box_66_cases.txt} \
    VARIANTS=${VARIANTS:-permute_box,permute_runs,permute_packed} LIMIT=${LIMIT:-170} scripts/device_byname.sh > "$OUT/r$r.log"
done
echo "runs/box A/B done after ${SECONDS}s"
