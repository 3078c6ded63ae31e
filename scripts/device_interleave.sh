#!/usr/bin/env bash
# interleave (kernels/interleave.cuh) on one GPU, with binaries built on the development machine
# (BIN holds xpose, test_gpu and libgomp.so.1). One call:
#   1. its tests (GpuRandom.Interleave* and every GpuVariant test of `interleave`), then the same
#      under compute-sanitizer memcheck, and RACE_FILTER (default the GpuVariant tests and
#      GpuRandom.InterleaveBlockTilesShort) under racecheck;
#   2. issue 4's narrow shapes with a short side of 2, 3, 4, 8 and 16 against long sides of 10^7
#      and 10^7 + 1, both ways round, 1-, 2- and 4-byte elements: `interleave` by name against `auto`
#      (and whatever else VARIANTS adds), --reps 10;
#   3. (alltests) the whole test_gpu, in two halves side by side;
#   4. (small) the same by name at 10^5 + 1, 10^6 and 10^6 + 1 with sides of 3, 8 and 16 (below
#      the sizes the planner's rules were measured at), --reps 20;
#   5. (wide) sides of 32, 48 and 64 (row groups) against 10^7 and 10^7 + 1, both ways, TYPES
#      (default i8 f16 f32 f64), `interleave` by name against `auto`, --reps 10;
#   6. (widesmall) the same sides against 10^6 and 10^6 + 1, --reps 20;
#   7. (ab) A/B against the build in OLD (an xpose binary): `auto` and `interleave` on AB_SHAPES
#      (default the unzips into odd rows, 10000001 and 1000001 x 32, 48, 64), TYPES, ROUNDS rounds
#      (default 2) alternating new and old, --reps 10; ab.log and every row in ab.json;
#   8. (profile) Nsight Compute on `interleave` for CASES ("shape dtype;..."; default the i8 short
#      sides of 64, both ways, 10^7 and 10^7 + 1): throughput, memory, occupancy, warp states and
#      each stall reason per issued instruction.
#
#   scripts/device_interleave.sh BIN [tests] [bench] [alltests] [small] [wide] [widesmall] [ab] [profile]
# Results go to $OUT: tests.log, alltests.log, profile.log, and per sweep (bench: narrow, small,
# wide, widesmall) <sweep>-<type>.json and <sweep>.log. (The device tool brings back at most 8
# files a call: pick TYPES and stages to fit.)
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_interleave.sh BIN [tests] [bench]}" && pwd)
shift
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/xpose
SECONDS=0
# sweep NAME SIDES LENGTHS REPS TYPES EXTRA: `interleave` by name against `auto` (and the EXTRA
# variants) on every side x length both ways round, verified; NAME-<type>.json per type, the table
# rows in NAME.log.
sweep() {
  local name=$1 sides=$2 lengths=$3 reps=$4 types=$5 extra=$6 shapes="" r n t
  for r in $sides; do
    for n in $lengths; do shapes="$shapes,${r}x$n,${n}x$r"; done
  done
  for t in $types; do
    $X bench --variants auto,interleave${extra:+,$extra} --shapes "${shapes#,}" --dtype "$t" --reps "$reps" \
      --json "$OUT/$name-$t.json" 2>/dev/null | grep -E '^\| ' >> "$OUT/$name.log"
  done
  echo "$name done after ${SECONDS}s" >> "$OUT/$name.log"
  cat "$OUT/$name.log"
}
for stage in ${@:-tests bench}; do
  case $stage in
    tests)
      {
        echo "== test_gpu, interleave"
        $B/test_gpu --gtest_filter='*nterleave*' 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \]|tests? from .* ran|Failure|case [0-9]+" | head -40
        echo "== memcheck (after ${SECONDS}s)"
        timeout 300 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='*nterleave*' 2>&1 |
          grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]" | head -10
        echo "== racecheck ${RACE_FILTER:-*GpuVariant*interleave*:GpuRandom.InterleaveBlockTilesShort} (after ${SECONDS}s)"
        timeout 300 compute-sanitizer --tool racecheck $B/test_gpu --gtest_filter="${RACE_FILTER:-*GpuVariant*interleave*:GpuRandom.InterleaveBlockTilesShort}" 2>&1 |
          grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|^\[  (PASSED|FAILED)  \]" | head -10
        echo "tests done after ${SECONDS}s"
      } > "$OUT/tests.log" 2>&1
      cat "$OUT/tests.log" ;;
    bench) sweep narrow "2 3 4 8 16" "10000000 10000001" 10 "${TYPES:-i8 f16 f32}" "${VARIANTS:-}" ;;
    alltests)
      $B/test_gpu --gtest_filter='GpuRandom.*:All/GpuHuge.*' > /tmp/t_a.log 2>&1 &
      $B/test_gpu --gtest_filter='-GpuRandom.*:All/GpuHuge.*' > /tmp/t_b.log 2>&1
      wait
      for f in /tmp/t_a.log /tmp/t_b.log; do
        echo "== $f"; grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \] [0-9]+ tests|tests? from .* ran|Failure" "$f" | head -20
      done > "$OUT/alltests.log"
      echo "alltests done after ${SECONDS}s" >> "$OUT/alltests.log"
      cat "$OUT/alltests.log" ;;
    small) sweep small "3 8 16" "100001 1000000 1000001" 20 "${TYPES:-i8 f16 f32}" "" ;;
    wide) sweep wide "32 48 64" "10000000 10000001" 10 "${TYPES:-i8 f16 f32 f64}" "${VARIANTS:-}" ;;
    widesmall) sweep widesmall "32 48 64" "1000000 1000001" 20 "${TYPES:-i8 f16 f32 f64}" "" ;;
    ab)
      mkdir -p "$OUT/ab"
      for round in $(seq "${ROUNDS:-2}"); do
        for t in ${TYPES:-i8 f16 f32 f64}; do
          for side in new old; do
            bin=$X; [ $side = old ] && bin=${OLD:?ab needs OLD, an xpose binary}
            $bin bench --variants auto,interleave --shapes "${AB_SHAPES:-10000001x32,10000001x48,10000001x64,1000001x32,1000001x48,1000001x64}" \
              --dtype "$t" --reps 10 --json "$OUT/ab/$side-$t-$round.json" 2>/dev/null | grep -E '^\| ' | sed "s/^/$side $round /" >> "$OUT/ab.log"
          done
        done
      done
      python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
rows = []
for f in sorted((out / "ab").glob("*.json")):
    side, t, rnd = f.stem.split("-")
    for r in json.load(open(f))["results"]:
        rows.append(dict(r, build=side, round=int(rnd)))
json.dump({"results": rows}, open(out / "ab.json", "w"), indent=1)
PY
      rm -rf "$OUT/ab"
      echo "ab done after ${SECONDS}s" >> "$OUT/ab.log"
      cat "$OUT/ab.log" ;;
    profile)
      IFS=';' read -ra cases <<< "${CASES:-64x10000001 i8;10000001x64 i8;64x10000000 i8;10000000x64 i8}"
      for c in "${cases[@]}"; do
        read -r shape t <<< "$c"
        echo "== $shape $t"
        timeout 120 ncu --kernel-name regex:interleave --launch-skip 1 --launch-count 1 --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
          --print-summary none $X bench --variants interleave --shapes "$shape" --dtype "$t" --reps 1 --warmup 1 2>&1 |
          grep -vE "^==PROF==|^\s*$|----|^          " | cut -c1-160 | head -120
        timeout 120 ncu --kernel-name regex:interleave --launch-skip 1 --launch-count 1 \
          --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum' \
          --print-summary none $X bench --variants interleave --shapes "$shape" --dtype "$t" --reps 1 --warmup 1 2>&1 |
          grep -E "stalled|sectors|dram__|error|ERROR" | sort -k3 -g -r | head -20
      done > "$OUT/profile.log" 2>&1
      echo "profile done after ${SECONDS}s" >> "$OUT/profile.log"
      tail -3 "$OUT/profile.log" ;;
  esac
done
