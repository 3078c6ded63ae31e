#!/usr/bin/env bash
# The word gather's A/B on the device (ninth session): permute_box by name from an older build
# (OLD, a folder with xpose and libgomp.so.1) on the cases in CASES ("dtype extents perm" per
# line), one JSON per dtype in $OUT, on GPU ${GPU:-0}.
#   OLD=build-devbin-old CASES=build-devbin/wcases.txt scripts/device_words.sh
set -uo pipefail
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
O=$(cd "${OLD:?}" && pwd)
while read -r t e p; do
  [ -z "$t" ] || [ "${t:0:1}" = "#" ] && continue  # case lists open with comment lines
  CUDA_VISIBLE_DEVICES=${GPU:-0} LD_LIBRARY_PATH=$O $O/xpose bench --extents "$e" --perm "$p" --dtype "$t" \
    --variants "${VARIANTS:-permute_box}" --reps 5 --warmup 1 --json "$OUT/old-$t-$e-$p.json" > /dev/null 2>&1 || echo "failed: $t $e $p"
done < "${CASES:?}"
python3 - "$OUT" <<'PY'
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/old-*.json")):
    rows += json.load(open(f))["results"]
json.dump({"results": rows}, open(sys.argv[1] + "/old-byname.json", "w"), indent=1)
PY
rm -f "$OUT"/old-*-*.json
