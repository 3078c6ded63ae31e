#!/usr/bin/env bash
# Small single matrices (issue 4's launch-bound target: at most 1.15x the copy's time, 87% of copy
# or more) in one device call, binaries from the development machine in BIN (default build-devbin):
#   TESTS=1 ROUNDS=3 REPS=100 TYPES=i8,f16 SHAPES=1024x1024,... HEIGHTS="4 8 16 32" \
#     BASE=auto,tiled,fast_tile scripts/device_small.sh
# First (TESTS=1, the default) the whole test_gpu, then memcheck on the tests matching MEMCHECK
# (default: tiled_words'), $OUT/tests-all.log. Then ROUNDS rounds, each `tiled_words` at every
# block height of HEIGHTS and the variants of BASE, by name, REPS repetitions: every row in
# $OUT/small.json with its round and height added, the table rows in $OUT/small.log.
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
if [ "${TESTS:-1}" = 1 ]; then
  ALLTESTS_GPU=0 device_alltests "${MEMCHECK:-*tiled_words*:GpuRandom.TiledWords*:GpuVariantBlocks.*}" 300
  wait
fi
shapes=${SHAPES:-256x256,512x512,1024x1024,2048x1024,1024x2048,2048x2048}
mkdir -p "$OUT/small"
run() {  # name, extra arguments...
  local name=$1
  shift
  timeout 120 "$B/xpose" bench --shapes "$shapes" --dtype "${TYPES:-i8,f16}" --reps "${REPS:-100}" --warmup 5 \
    --json "$OUT/small/$name.json" "$@" 2> /dev/null | grep -E '^\| ' | sed "s/^/$name /" >> "$OUT/small.log"
}
for r in $(seq "${ROUNDS:-3}"); do
  for h in ${HEIGHTS:-4 8 16 32}; do run "words$h-$r" --variants tiled_words --block "32x$h"; done
  [ -n "${BASE-auto,tiled,fast_tile}" ] && run "base-$r" --variants "${BASE-auto,tiled,fast_tile}"
done
device_merge_json "$OUT/small" "$OUT/small.json" run
echo "done at ${SECONDS}s" >> "$OUT/small.log"
