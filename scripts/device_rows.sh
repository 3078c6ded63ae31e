#!/usr/bin/env bash
# permute_rows on the device (one call): its tests, memcheck on them, then the permutation suite's
# row copies (the fastest dim kept fastest) by name against the kernels auto ran before it.
#   scripts/device_rows.sh BIN [tests|suite|sweep]...   (BIN: xpose, test_gpu, libgomp.so.1)
#     tests: GpuRandom.RowCopies and memcheck on it;
#     suite: the suite's row copies, TYPES (default "i8 f16 f32"), VARIANTS by name;
#     sweep: [N,64,W] perm 1,0,2 in bytes (64 x N rows of W bytes, 256 MiB), W aligned and odd.
#   XPOSE=name picks another CLI binary in BIN (default xpose).
# The cases come from the suite's recorded JSON (docs/results/bench-permute-<type>-*.json, the newest).
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_rows.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/${XPOSE:-xpose}
for mode in "${@:2}"; do
case $mode in
tests)
{
  SECONDS=0
  $B/test_gpu --gtest_filter='GpuRandom.RowCopies' 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is" | head
  timeout 240 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='GpuRandom.RowCopies' 2>&1 |
    grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]"
  echo "tests took ${SECONDS}s"
} > "$OUT/rows-tests.log" 2>&1
cat "$OUT/rows-tests.log" ;;
suite)
for t in ${TYPES:-i8 f16 f32}; do
  f=$(ls docs/results/bench-permute-$t-2026-11-3*.json | sort | tail -1)
  python3 - "$f" <<'PY' > /tmp/rows-cases-$t.txt
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    e, p = r["extents"], r["perm"]
    keep = [k for k in range(len(e)) if e[k] > 1]
    q = [k for k in p if e[k] > 1]
    if r["variant"] == "auto" and q and q[-1] == keep[-1] and q != keep:
        print(",".join(map(str, e)), ",".join(map(str, p)))
PY
  while read -r e p; do
    $X bench --extents "$e" --perm "$p" --dtype $t --variants ${VARIANTS:-auto,permute_rows,permute_packed,permute_general} \
      --reps 5 --warmup 1 2>/dev/null | grep -E '^\| [a-z]' | grep -v '^| variant'
  done < /tmp/rows-cases-$t.txt
done | tee -a "$OUT/rows-bench.log" ;;
sweep)
for w in 16 17 32 33 64 65 128 129 256 257 512 513 1024 1025 4096 4097; do
  n=$(( (256 << 20) / (64 * w) ))
  $X bench --extents $n,64,$w --perm 1,0,2 --dtype i8 --variants ${VARIANTS:-auto,permute_rows,permute_packed,permute_general} \
    --reps 5 --warmup 1 2>/dev/null | grep -E '^\| [a-z]' | grep -v '^| variant'
done | tee -a "$OUT/rows-sweep.log" ;;
esac
done
