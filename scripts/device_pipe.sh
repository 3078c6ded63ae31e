#!/usr/bin/env bash
# One call on a two-GPU machine (binaries built elsewhere, as for device_prebuilt.sh): pipe_tile
# against the 2-D kernels. GPU 1: the whole test_gpu binary, memcheck of pipe_tile's random cases.
# GPU 0 (or, with one GPU, after the tests): large dense, awkward-but-aligned and batched 2-D shapes for every element size, pipe_tile
# shapes selected by XPOSE_PIPE (an experiment switch of run_pipe_tile while it lasts). Run from the
# repository root with BIN holding xpose, test_gpu (and libgomp.so.1); results go to $OUT.
#
#   scripts/device_pipe.sh BIN
set -uo pipefail
B=$(cd "${1:?usage: scripts/device_pipe.sh BIN}" && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
X=$B/xpose
rows() { grep -E "^\| (auto|pipe_tile|fast_tile|reg_tile|permute_packed|copy|cublas)" | awk -F'|' '{printf "%-14s %-22s %-5s %8s %7s\n",$2,$4,$5,$10,$12}'; }
bench_part() { SECONDS=0
  for g in ${GROUPS_:-0 -1 64}; do
    echo "== XPOSE_RASTER=$g"
    XPOSE_RASTER=$g timeout 90 $X bench --variants fast_tile,reg_tile --shapes 16384x16384,16000x16000,12288x12288 --dtype i8 --reps 10 2>&1 | rows
    XPOSE_RASTER=$g timeout 90 $X bench --variants fast_tile --shapes 16384x16384,16000x16000,12288x12288 --dtype f16,f32 --reps 10 2>&1 | rows
    XPOSE_RASTER=$g timeout 90 $X bench --variants fast_tile --shapes 16384x8192,8192x16384,8000x16000,8192x8192 --dtype f64 --reps 10 2>&1 | rows
  done
  echo "gpu0 ${SECONDS}s"; }
test_part() { SECONDS=0
  timeout 240 $B/test_gpu --gtest_filter="${TESTS:-*}" 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]+ test|tests? from .* ran|Failure|Which is| case " | head -30
  timeout 120 compute-sanitizer --tool memcheck $B/test_gpu --gtest_filter="GpuRandom.PipeTileAligned" 2>&1 | grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid|Program hit|is out of bounds|by thread" | head -12
  timeout 120 compute-sanitizer --tool racecheck $B/test_gpu --gtest_filter='GpuRandom.PipeTileAligned' 2>&1 | grep -E "RACECHECK SUMMARY|ERROR SUMMARY|^\[  (PASSED|FAILED)  \]" | head
  echo "tests ${SECONDS}s"; }
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  ( export CUDA_VISIBLE_DEVICES=0; bench_part ) > $OUT/gpu0.log 2>&1 &
  ( export CUDA_VISIBLE_DEVICES=1; test_part ) > $OUT/gpu1.log 2>&1
  wait
else  # one GPU: the tests named in TESTS (default: pipe_tile's), then the benchmarks
  ( test_part ) > $OUT/gpu1.log 2>&1
  ( bench_part ) > $OUT/gpu0.log 2>&1
fi
cat $OUT/gpu0.log $OUT/gpu1.log
