#!/usr/bin/env bash
# The sixty-sixth session's sweep: every kernel that plans each of the suites' lowest cases
# (scripts/cases/worst_byname_66_cases.txt), by name and as auto, HEAD's build carried xz-packed as
# build-dev-next/xpose_b3.xz with libgomp.so.1.xz. Stops starting cases after LIMIT seconds
# (default 540). Output: $OUT/byname.tgz (device_byname.sh).
#   OUT=$OUT scripts/device_worst_byname.sh
set -uo pipefail
cd build-dev-next && for f in xpose_b3 libgomp.so.1; do [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
mkdir -p b3 && mv xpose_b3 b3/xpose && cp libgomp.so.1 b3/ && chmod +x b3/xpose && cd ..
nvidia-smi -L
BIN=build-dev-next/b3 CASES=scripts/cases/worst_byname_66_cases.txt \
  VARIANTS=auto,tiled,tiled_skew,tiled_words,fast_tile,reg_tile,reg_batch,tma_tile,skew_tile,narrow,permute_packed,permute_runs,permute_box,permute_rows \
  LIMIT=${LIMIT:-540} scripts/device_byname.sh
