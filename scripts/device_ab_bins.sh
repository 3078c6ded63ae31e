#!/usr/bin/env bash
# A/B of several builds in one device call, rounds alternating between them: `xpose bench` with the
# same variants, shapes and types for each binary of BINS (names in BIN, default build-devbin), ROUNDS
# rounds (default 2), --reps REPS (default 10). Every row goes to $OUT/ab.json with the build and the
# round added; the table rows to $OUT/ab.log, prefixed with build and round. Then, if EXTRA is set,
# one more `xpose bench` with EXTRA's arguments on the first build (a by-name probe in the same call),
# rows in $OUT/extra.json and extra.log.
#   BINS="xpose_main xpose" VARIANTS=auto,skew_tile SHAPES=10007x9973,... TYPES=f16 \
#     EXTRA="--variants auto,tiled --shapes 64x10000001 --dtype c128 --reps 5" scripts/device_ab_bins.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
mkdir -p "$OUT/ab"
for round in $(seq "${ROUNDS:-2}"); do
  for x in ${BINS:?set BINS, the binaries to compare}; do
    timeout 300 "$B/$x" bench --variants "${VARIANTS:-auto}" --shapes "${SHAPES:?set SHAPES}" --dtype "${TYPES:-f32}" \
      --reps "${REPS:-10}" --warmup 2 --json "$OUT/ab/$x-$round.json" 2> /dev/null | grep -E '^\| ' |
      sed "s/^/$x $round /" >> "$OUT/ab.log"
  done
done
device_merge_json "$OUT/ab" "$OUT/ab.json" build
echo "ab done after ${SECONDS}s" >> "$OUT/ab.log"
if [ -n "${EXTRA:-}" ]; then
  first=${BINS%% *}
  # shellcheck disable=SC2086  # EXTRA is a list of arguments
  timeout 300 "$B/$first" bench $EXTRA --json "$OUT/extra.json" 2> /dev/null | grep -E '^\| ' > "$OUT/extra.log"
  echo "extra done after ${SECONDS}s" >> "$OUT/extra.log"
fi
cat "$OUT"/*.log
