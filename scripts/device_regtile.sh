#!/usr/bin/env bash
# reg_tile's other block shapes (1-byte matrices of <= 256 rows or of 64 columns) on one GPU: its tests (random
# aligned cases, the variant tests, memcheck), then the shapes they are for, by name against auto.
# BIN holds xpose, test_gpu, libgomp.so.1; results in $OUT (tests.log, bench.log, bench.json).
#
#   scripts/device_regtile.sh BIN
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_regtile.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/xpose
{
  $B/test_gpu --gtest_filter='*reg_tile*:GpuRandom.RegTileAligned' 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \] [0-9]+ tests|tests? from .* ran|Failure|Which is| case "
  compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter='GpuRandom.RegTileAligned' 2>&1 | grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]"
} > $OUT/tests.log 2>&1
cat $OUT/tests.log
rows() { grep -E "^\| " | grep -v "variant" | awk -F'|' '{printf "%-15s %-36s %-5s %8s %7s %s\n",$2,$4,$5,$10,$12,$13}'; }
{
  V=auto,reg_tile,narrow,permute_packed
  $X bench --variants $V --extents 64,64,128,128 --perm 0,2,3,1 --dtype i8 --reps 10 --json $OUT/b1.json 2>&1 | rows
  $X bench --variants $V --extents 64,128,128,64 --perm 0,3,1,2 --dtype i8 --reps 10 --json $OUT/b0.json 2>&1 | rows
  $X bench --variants $V --shapes 10000000x64,1000000x64,40000x64 --dtype i8 --reps 10 --json $OUT/b5.json 2>&1 | rows
  $X bench --variants $V --shapes 64x10000000 --dtype i8 --reps 10 --json $OUT/b4.json 2>&1 | rows
  $X bench --variants auto,reg_tile --shapes 16384x16384,300x1000000 --dtype i8 --reps 10 2>&1 | rows
} > $OUT/bench.log 2>&1
cat $OUT/bench.log
