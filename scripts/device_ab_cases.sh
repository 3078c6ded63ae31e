#!/usr/bin/env bash
# A/B of several builds on permutation cases in one device call, rounds alternating between builds:
# `xpose bench --extents E --perm P --dtype T --variants VARIANTS` for each "E P T" line of CASES (a
# file), with each binary of BINS (names in BIN, default build-devbin), ROUNDS rounds (default 2), --reps
# REPS (default 10). Rows to $OUT/ab.json with "build" (NAME.cN: the binary, N the case's number)
# and "round" added, table rows to $OUT/ab.log. ab.json (one file: one JSON per run would be too
# many files to bring back) is rewritten after each binary's pass over the cases, so a call cut off
# by its time limit still brings back the finished passes (the eighty-seventh session's four builds
# lost their whole round's JSON when the limit came during the last binary). Budget about 3.2 s
# per case, binary and variant on the H200 (2026-12-04: 155 runs of --reps 10 in 490 s).
# Binaries of BINS not in BIN yet are unpacked from build-dev-next/NAME.xz (device_unpack).
# TESTS=1 first runs device_alltests (the whole test_gpu in BIN, then memcheck on MEMCHECK),
# $OUT/tests-all.log.
#   TESTS=1 MEMCHECK='GpuRandom.RowCopies' BINS="xpose_main xpose" VARIANTS=auto,permute_rows \
#     CASES=scripts/cases/rows_cases.txt scripts/device_ab_cases.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
if [ "${TESTS:-0}" = 1 ]; then
  ALLTESTS_GPU=0 device_alltests "${MEMCHECK:?set MEMCHECK, a gtest filter}" 300
  wait
  cat "$OUT/tests-all.log"
fi
# Binaries carried as build-dev-next/NAME.xz and not unpacked yet (with libgomp.so.1 for them).
for x in ${BINS:?set BINS, the binaries to compare} libgomp.so.1; do
  if [ ! -e "$B/$x" ] && [ -f "build-dev-next/$x.xz" ]; then device_unpack "$x" || exit 1; fi
done
AB=$(mktemp -d)  # per-run JSON outside $OUT: a call brings back only so many files
for round in $(seq "${ROUNDS:-2}"); do
  for x in ${BINS:?set BINS, the binaries to compare}; do
    i=0
    while read -r e p t; do
      [ -z "$e" ] || [ "${e:0:1}" = "#" ] && continue
      i=$((i + 1))
      timeout 120 "$B/$x" bench --variants "${VARIANTS:-auto}" --extents "$e" --perm "$p" --dtype "$t" \
        --reps "${REPS:-10}" --warmup 2 --json "$AB/$x.c$i-$round.json" 2> /dev/null | grep -E '^\| [a-z]' |
        grep -v '^| variant' | sed "s/^/$x $round /" >> "$OUT/ab.log"
    done < "${CASES:?set CASES, a file of 'extents perm dtype' lines}"
    device_merge_json "$AB" "$OUT/ab.json" build keep
  done
done
rm -rf "$AB"
echo "ab done after ${SECONDS}s" >> "$OUT/ab.log"
