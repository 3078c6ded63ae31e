#!/usr/bin/env bash
# The H200 sweep behind docs/performance.md: auto / fast kernels / the classic tile / cuBLAS against
# a device copy of the same bytes, every element size. Usage: perf_sweep.sh XPOSE OUTDIR [quick]
set -uo pipefail
xpose=$1
out=$2
mode=${3:-full}
all=i8,f16,f32,f64,c128
rc=0
b() { "$xpose" bench --reps 20 --warmup 3 "$@" || rc=1; }
if [ "$mode" = quick ]; then
  b --variants auto,fast_tile,tiled --baseline cublas --shapes 16384x16384 --dtype $all --json "$out/perf-square.json"
  b --variants auto,fast_tile --baseline cublas --shapes 10007x9973 --dtype f32,i8 --json "$out/perf-awkward.json"
  b --variants auto,narrow,fast_tile --baseline cublas --shapes 4x40000000,40000000x4 --dtype f32 --json "$out/perf-narrow.json"
  exit $rc
fi
# Large dense squares (256 MiB and more for every element size at 16384^2 and up) and smaller ones.
b --variants auto,fast_tile,tiled --baseline cublas --shapes 1024x1024,4096x4096,8192x8192,16384x16384 --dtype $all --json "$out/perf-square.json"
b --variants auto --baseline cublas --shapes 32768x32768 --dtype i8,f16,f32 --json "$out/perf-square-32k.json"
# Awkward sizes.
b --variants auto,tiled --baseline cublas --shapes 10007x9973,9973x10007,16383x16385 --dtype $all --json "$out/perf-awkward.json"
# Narrow: 2..64 elements on one side, 10^7 or more on the other.
b --variants auto --baseline cublas --shapes 2x50000000,3x40000000,4x40000000,8x20000000,16x10000000,64x10000000,50000000x2,40000000x3,40000000x4,20000000x8,10000000x16,10000000x64 --dtype i8,f32,c128 --json "$out/perf-narrow.json"
# Batches of small matrices.
b --variants auto,tiled --baseline cublas --shapes 32x48 --batch 100000 --dtype $all --json "$out/perf-batch-small.json"
b --variants auto,tiled --baseline cublas --shapes 256x384 --batch 4096 --dtype $all --json "$out/perf-batch-mid.json"
exit $rc
