#!/usr/bin/env bash
# The H200 sweep behind docs/performance.md: auto, the fast kernels, the classic tile and cuBLAS
# against a device copy of the same bytes, every element size. Usage: perf_sweep.sh XPOSE OUTDIR
# Writes perf-*.json (at most 4 files: the device tool returns 8 in all).
set -uo pipefail
xpose=$1
out=$2
all=i8,f16,f32,f64,c128
rc=0
b() { "$xpose" bench --reps 20 --warmup 3 "$@" || rc=1; }
# Large dense squares (>= 256 MiB for every element size from 16384^2), smaller ones, and
# awkward sizes (odd, prime, not a multiple of 32).
b --variants auto,reg_tile,fast_tile,tiled --baseline cublas \
  --shapes 1024x1024,4096x4096,16384x16384,10007x9973,16383x16385 --dtype $all --json "$out/perf-square.json"
# Narrow: 2..64 elements on one side, 10^7 or more on the other.
b --variants auto --baseline cublas --dtype i8,f32,c128 --json "$out/perf-narrow.json" \
  --shapes 2x50000000,4x40000000,16x10000000,64x10000000,50000000x2,40000000x4,10000000x16,10000000x64
# Batches of small matrices.
b --variants auto,tiled --baseline cublas --shapes 32x48 --batch 100000 --dtype $all --json "$out/perf-batch.json"
b --variants auto,tiled --baseline cublas --shapes 256x384 --batch 4096 --dtype $all
# Strided (leading dimensions larger than dense) and unaligned pointers: the cost of each.
b --variants auto --shapes 16384x16384 --dtype f32,f16 --ld-in 16400 --ld-out 16400 --json "$out/perf-strided.json"
b --variants auto --shapes 16384x16384 --dtype f32,f16 --ld-in 16385 --ld-out 16387
b --variants auto --shapes 16384x16384 --dtype f32,f16 --offset 1
exit $rc
