# Sourced by the per-call device scripts (device_batch.sh, device_tma.sh, device_odd.sh, ...): the
# binaries' folder B (BIN, default build-devbin: binaries built on the development machine, with
# libgomp.so.1 for their host code), the output folder OUT, the clock (SECONDS), and the helpers
# device_unpack, device_alltests, device_cases, device_merge_json and device_ncu_skew.
B=${BIN:-build-devbin}  # under build*/, ignored by git: a warm device machine keeps it between calls
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
SECONDS=0

# Unpacks build-dev-next/NAME.xz (a carried binary) into B for each NAME given, executable.
device_unpack() {
  mkdir -p "$B" && for f in "$@"; do xz -dc "build-dev-next/$f.xz" > "$B/$f" || return 1; done && chmod +x "$B"/*
}

# The whole test_gpu, then memcheck on the tests matching gtest filter $1 (timeout $2 seconds,
# default 300) and racecheck on those matching $RACECHECK when it is set, on GPU ALLTESTS_GPU
# (default 1) in the background (an H200 pair: the caller's
# other modes run on GPU 0); the summary lines go to $OUT/tests-all.log.
device_alltests() {
  (
    export CUDA_VISIBLE_DEVICES=${ALLTESTS_GPU:-1}
    timeout 420 "$B/test_gpu" 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case|tests ran" | head -40
    timeout "${2:-300}" compute-sanitizer --tool memcheck "$B/test_gpu" --gtest_filter="$1" 2>&1 |
      grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8
    if [ -n "${RACECHECK:-}" ]; then  # racecheck on the tests matching this filter, when set
      timeout "${2:-300}" compute-sanitizer --tool racecheck "$B/test_gpu" --gtest_filter="$RACECHECK" 2>&1 |
        grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard|^\[  (PASSED|FAILED)  \]" | head -8
    fi
    echo "all tests done at ${SECONDS}s"
  ) > "$OUT/tests-all.log" 2>&1 &
}

# The owned-ends permutation tests of test binary $1 (filter $2, default DEVICE_PERM_TESTS), then
# memcheck on filter $3 (default GpuRandom.*OwnedEnds); summary lines appended to $OUT/tests.log.
DEVICE_PERM_TESTS='GpuRandom.*OwnedEnds:GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PermutationsSmall'
DEVICE_PERM_TESTS="$DEVICE_PERM_TESTS:GpuRandom.PermutationsPerVariant:GpuRandom.TilePanels:GpuRandom.PermuteBox*"
device_perm_tests() {
  timeout 300 "$B/$1" --gtest_filter="${2:-$DEVICE_PERM_TESTS}" 2>&1 |
    grep -E "^\[  (PASSED|FAILED)  \]|^\[       OK \]|Failure|Which is|case|tests ran" | head -60 >> "$OUT/tests.log"
  timeout 200 compute-sanitizer --tool memcheck "$B/$1" --gtest_filter="${3:-GpuRandom.*OwnedEnds}" 2>&1 |
    grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8 >> "$OUT/tests.log"
  echo "tests done at ${SECONDS}s" | tee -a "$OUT/tests.log"
}

# The permutation suite of dtype $2 by binary $1 (`auto`, five repetitions): $3/suite-$2-NAME.json
# and its stderr, NAME being $4 (default $1); the exit status and time appended to log $5.
device_suite() {
  local name=${4:-$1}
  timeout 250 "$B/$1" bench --suite permute --dtype "$2" --variants auto --reps 5 --warmup 1 \
    --json "$3/suite-$2-$name.json" > /dev/null 2> "$3/suite-err-$2-$name.txt"
  echo "suite $2 $name rc=$? at ${SECONDS}s" | tee -a "$5"
}

# `xpose bench --variants auto` (binary $3, default xpose) on each "extents perm dtype" line of file
# $1 (- : standard input), ten repetitions: $OUT/$2-N.json for line N.
device_cases() {
  local i=0 ext perm dt
  while read -r ext perm dt; do
    [ -z "$ext" ] || [ "${ext:0:1}" = "#" ] && continue  # case lists open with comment lines
    i=$((i + 1))
    timeout 60 "$B/${3:-xpose}" bench --variants auto --extents "$ext" --perm "$perm" --dtype "$dt" --reps 10 \
      --warmup 2 --json "$OUT/$2-$i.json" > /dev/null 2>&1
  done < <(if [ "$1" = - ]; then cat; else cat "$1"; fi)
}

# Nsight Compute on skew_tile at 10007x9973 for each dtype argument, $NCU_LAUNCHES launches (default
# 1) after two: $OUT/ncu-skew-T.txt.
device_ncu_skew() {
  local t
  for t in "$@"; do
    timeout 200 ncu --kernel-name regex:skew --launch-skip 2 --launch-count "${NCU_LAUNCHES:-1}" --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis_Tables "$B/xpose" bench --variants skew_tile --shapes 10007x9973 --dtype "$t" \
      --reps 2 --warmup 1 > "$OUT/ncu-skew-$t.txt" 2>&1
  done
}

# Merges the `xpose bench --json` files NAME-ROUND.json of folder $1 into $2, every row with NAME
# under key $3 and ROUND under "round", then removes the folder unless $4 is "keep"
# (device_ab_bins.sh, device_small.sh; device_ab_cases.sh merges after every round).
device_merge_json() {
  python3 - "$1" "$2" "$3" << 'PY'
import json, pathlib, sys
src, dst, key = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = []
for f in sorted(src.glob("*.json")):
    name, rnd = f.stem.rsplit("-", 1)
    for r in json.load(open(f))["results"]:
        rows.append(dict(r, **{key: name, "round": int(rnd)}))
json.dump({"results": rows}, open(dst, "w"), indent=1)
PY
  [ "${4:-}" = keep ] || rm -rf "$1"
}
