#!/usr/bin/env bash
# One call on a two-GPU machine with binaries built elsewhere (no build on the device: saves a
# minute of its time budget). BIN holds xpose, test_gpu and, when the device lacks it, libgomp.so.1
# (build them from a clean export of the commit: `git archive HEAD | tar -x -C DIR` and
# scripts/build.sh there). At most 8 files come back from $OUT: two logs and six JSON files.
#
#   COMMIT=<hash> [CPU=1] scripts/device_prebuilt.sh BIN
#
# GPU 1: the whole test_gpu binary (two processes: the randomized and huge cases, the rest),
#        compute-sanitizer memcheck on the vector kernels' awkward cases, then the permutation
#        suite for f64 and c128.
# GPU 0: the permutation suite for f32, f16 and i8; issue 4's shapes: awkward sizes against tiled
#        and cuBLAS, narrow shapes (aligned and odd) against narrow and permute_packed, batches,
#        16384^2, an offset pointer.
# With CPU=1, first, with both GPUs idle: the CPU backend on this machine's cores (cpu16 of
# device.sh, plus the 16384^2 targets at 16 threads).
set -uo pipefail
bin=$(cd "${1:?usage: scripts/device_prebuilt.sh BIN}" && pwd)
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log="$out/device.log" tlog="$out/tests.log"
suite() { "$bin/xpose" bench --suite permute --dtype "$1" --reps 5 --warmup 1 --json "$out/bench-permute-$1.json"; }

{ echo "commit ${COMMIT:-unknown} (binaries from $bin)"; nvidia-smi -L; } | tee "$log" >"$tlog"
if [ "${CPU:-0}" = 1 ]; then
  {
    echo "== CPU backend on $(nproc) cores"
    for t in 1 2 4 8 16; do
      "$bin/xpose" bench --device cpu --variants cpu_blocked --shapes 8192x8192,3x40000000 --threads $t --reps 5
    done
    "$bin/xpose" bench --device cpu --variants auto --shapes 16384x16384 --dtype i8,f16,f32 --threads 16 --reps 3
  } >>"$log" 2>&1
fi
(
  export CUDA_VISIBLE_DEVICES=1
  SECONDS=0
  "$bin/test_gpu" --gtest_filter='GpuRandom.*:All/GpuHuge.*' >/tmp/xpose_tests_a.log 2>&1 &
  "$bin/test_gpu" --gtest_filter='-GpuRandom.*:All/GpuHuge.*' >/tmp/xpose_tests_b.log 2>&1
  wait
  for f in /tmp/xpose_tests_a.log /tmp/xpose_tests_b.log; do
    echo "== $f"; grep -E "^\[  (PASSED|FAILED)  \]|^\[  SKIPPED \] [0-9]+ tests|tests ran|Failure" "$f" | head -20
  done >>"$tlog"
  echo "gpu tests took ${SECONDS}s" >>"$tlog"
  echo "== memcheck: awkward shapes of the vector kernels, skew_tile's random cases" >>"$tlog"
  compute-sanitizer --tool memcheck "$bin/test_gpu" \
    --gtest_filter='All/GpuVariant.AwkwardShapes*:All/GpuVariant.Strided*:GpuRandom.SkewTile*:GpuRandom.PackedVectorPaths' \
    2>&1 | grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " >>"$tlog"
  suite f64 >>"$tlog" 2>&1
  suite c128 >>"$tlog" 2>&1
  echo "gpu 1 done after ${SECONDS}s" >>"$tlog"
) &
(
  export CUDA_VISIBLE_DEVICES=0
  SECONDS=0
  for t in f32 f16 i8; do suite $t; done
  "$bin/xpose" bench --shapes 10007x9973,8191x8193 --dtype i8,f16,f32,f64,c128 --variants auto,tiled --baseline cublas \
    --reps 10 --json "$out/bench-2d-issue4.json"
  "$bin/xpose" bench --shapes 3x40000000,40000000x3,48x10000000,10000000x48,3x40000001,40000001x3,48x10000001,10000001x48 \
    --dtype i8,f16,f32,f64,c128 --variants auto,narrow,permute_packed --reps 5
  "$bin/xpose" bench --shapes 32x48 --batch 100000 --dtype i8,f16,f32,f64,c128 --variants auto --reps 10
  "$bin/xpose" bench --shapes 256x384 --batch 4096 --dtype i8,f16,f32,f64,c128 --variants auto --reps 10
  "$bin/xpose" bench --shapes 16384x16384 --dtype i8,f16,f32,f64,c128 --variants auto --reps 10
  "$bin/xpose" bench --shapes 16384x16384 --dtype i8,f16,f32,f64 --variants auto --offset 1 --reps 5
  echo "gpu 0 done after ${SECONDS}s"
) >>"$log" 2>&1
wait
tail -c 3000 "$tlog"
