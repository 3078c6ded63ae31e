#!/usr/bin/env bash
# The plans a planner change moves, checked on the host before any device time: `xpose plan --suite
# permute` of two builds, per dtype and seed, and every case whose plan differs (its kernel before
# and after; FULL=1 prints both plans whole). No GPU needed: without one both plan for an H200.
#   scripts/plan_diff.sh OLD_XPOSE NEW_XPOSE            # i8 f16 f32 f64 c128, seed 1 (the suite)
#   TYPES="f32 f64" SEEDS="1 2 3" scripts/plan_diff.sh build-old/tools/xpose build/tools/xpose
# Exit status 0 when no plan differs, 1 when some do, 2 on a usage or planning error.
set -uo pipefail
old=${1:?usage: scripts/plan_diff.sh OLD_XPOSE NEW_XPOSE}
new=${2:?usage: scripts/plan_diff.sh OLD_XPOSE NEW_XPOSE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 changed=0
for t in ${TYPES:-i8 f16 f32 f64 c128}; do
  for seed in ${SEEDS:-1}; do
    "$old" plan --suite permute --dtype "$t" --seed "$seed" > "$tmp/old" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 2; }
    "$new" plan --suite permute --dtype "$t" --seed "$seed" > "$tmp/new" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 2; }
    n=$(wc -l < "$tmp/new")
    d=0
    while IFS= read -r case; do
      a=$(grep -F "$case: " "$tmp/old" | head -1)
      b=$(grep -F "$case: " "$tmp/new" | head -1)
      [ "$a" = "$b" ] && continue
      d=$((d + 1))
      echo "$t seed $seed $case: $(echo "${a#*: }" | cut -d' ' -f1) -> $(echo "${b#*: }" | cut -d' ' -f1)"
      if [ "${FULL:-0}" = 1 ]; then echo "  - ${a#*: }"; echo "  + ${b#*: }"; fi
    done < <(sed 's/: .*//' "$tmp/new")
    echo "$t seed $seed: $d of $n plans differ" >&2
    total=$((total + n)) changed=$((changed + d))
  done
done
echo "plan_diff: $changed of $total plans differ" >&2
[ "$changed" = 0 ]
