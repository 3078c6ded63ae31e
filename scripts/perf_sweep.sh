#!/usr/bin/env bash
# The H200 sweep behind docs/performance.md: auto, the fast kernels and cuBLAS against a device copy
# of the same bytes, every element size. Usage: perf_sweep.sh XPOSE OUTDIR
# Writes perf-*.json (at most 4 files: the device tool returns 8 in all).
set -uo pipefail
xpose=$1
out=$2
all=i8,f16,f32,f64,c128
rc=0
b() { "$xpose" bench --reps 10 --warmup 3 "$@" || rc=1; }
# Squares from 1024^2 to 16384^2 (>= 256 MiB for every element size from 16384^2) and awkward
# sizes (not a multiple of 32, odd, prime); 32768^2 for the 1- to 4-byte elements.
b --variants auto,tma_tile,fast_tile,reg_tile --baseline cublas \
  --shapes 1024x1024,4096x4096,8192x8192,16384x16384,10000x10000,10007x9973,16383x16385 --dtype $all \
  --json "$out/perf-square.json"
b --variants auto --baseline cublas --shapes 32768x32768 --dtype i8,f16,f32 --json "$out/perf-32k.json"
# Narrow: 2..64 elements on one side, 10^7 or more on the other (NARROW=1; tma_tile does not take
# them, so the tenth session did not re-run them).
if [ "${NARROW:-0}" = 1 ]; then
  b --variants auto --baseline cublas --dtype i8,f32,c128 --json "$out/perf-narrow.json" \
    --shapes 2x50000000,4x40000000,16x10000000,64x10000000,50000000x2,40000000x4,10000000x16,10000000x64
fi
# Batches of small matrices.
b --variants auto,tiled --baseline cublas --shapes 32x48 --batch 100000 --dtype $all --json "$out/perf-batch.json"
b --variants auto,tiled --baseline cublas --shapes 256x384 --batch 4096 --dtype $all
# Strided (leading dimensions larger than dense) and unaligned pointers: the cost of each.
b --variants auto --shapes 16384x16384 --dtype f32,f16 --ld-in 16400 --ld-out 16400 --json "$out/perf-strided.json"
b --variants auto --shapes 16384x16384 --dtype f32,f16 --ld-in 16385 --ld-out 16387
b --variants auto --shapes 16384x16384 --dtype f32,f16 --offset 1
exit $rc
