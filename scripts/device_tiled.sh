#!/usr/bin/env bash
# One device call for issue 4's awkward sizes (fifteenth session): the classic tile (tiled_seed) in
# its two grid orders, across the input's tile columns (the notes' order) and down its tile rows
# (fast_tile's), at heights 4, 8 and 16, by tools/tune/tma_sweep.cu --tiled 1. Binaries built on the
# development machine in BIN (default build-devbin: xpose, xpose_tune_tma, test_gpu, libgomp.so.1).
#   scripts/device_tiled.sh [alltests] [orders] [c128] [aligned] [small] [skewed] [verify] [odd]
#     env: TILED_SHAPES, TILED_SIZES (orders), ODD_VARIANTS, ODD_SHAPES, ODD_TYPES (odd)
#   alltests: the whole test_gpu plus memcheck on the classic tile's tests, on GPU 1 in the background.
#   orders: the two orders, one CSV per shape (ORDERS_* files).
#   c128: 16-byte elements, tiled (32x8, 32x16) against auto, tma_tile, fast_tile, cuBLAS; two rounds.
#   aligned: f32/f64 with odd input rows and output rows of whole 32-byte sectors, tiled (32x4,
#   32x8) against auto and skew_tile; two rounds.
#   small: launch-bound odd and aligned matrices, auto against tiled and skew_tile / fast_tile,
#   three rounds of 100 repetitions.
#   skewed: odd output rows, tiled_skew (32x4, 32x8, 32x16) against auto, skew_tile and tiled.
#   verify: auto (and cuBLAS) on the shapes the session's rules changed, and the permutation-suite
#   cases that run tiled or skew_tile (scripts/cases/tiled_suite_cases.txt), whose grid order changed.
#   odd: ODD_VARIANTS (default auto,tiled,skew_tile) by name through xpose bench, two rounds.
set -u
source "$(dirname "$0")/device_common.sh"
for mode in "$@"; do
  if [ "$mode" = alltests ]; then
    device_alltests '*GpuVariant*tiled*:GpuRandom.TiledSkew*'
  fi
done
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
for mode in "$@"; do
  case $mode in
    orders)
      for shape in ${TILED_SHAPES:-6000x6001 8191x8193 10007x9973 16383x16385 16384x16384}; do
        timeout 200 $B/xpose_tune_tma --shape "$shape" --tiled 1 --sizes ${TILED_SIZES:-1,2,4,8,16} --reps 9 \
          > "$OUT/orders-$shape.csv" 2>&1
      done
      echo "orders done at ${SECONDS}s" ;;
    c128)  # 16-byte elements: tiled at two heights against auto, tma_tile, fast_tile and cuBLAS
      for round in 1 2; do
        sh=${C128_SHAPES:-10007x9973,16383x16385,8191x8193,24001x23999,6000x6001,16384x16384,10000x10000,12000x12000,6000x12000,8192x8192,4096x4096}
        timeout 200 $B/xpose bench --variants auto,tma_tile,fast_tile --baseline cublas --shapes $sh --dtype c128 \
          --reps 10 --warmup 2 --json "$OUT/c128-$round.json" > /dev/null 2>&1
        for h in 8 16; do
          timeout 200 $B/xpose bench --variants tiled --block 32x$h --shapes $sh --dtype c128 \
            --reps 10 --warmup 2 --json "$OUT/c128-tiled$h-$round.json" > /dev/null 2>&1
        done
      done
      echo "c128 done at ${SECONDS}s" ;;
    aligned)  # odd input rows, output rows of whole 32-byte sectors: tiled at two heights vs skew_tile
      for round in 1 2; do
        sh=${ALIGNED_SHAPES:-10000x10007,16384x16383,8192x8193,12000x12007,20000x20001,6000x6001,5000x5003,2048x2049,1448x1449}
        timeout 200 $B/xpose bench --variants auto,skew_tile --shapes $sh --dtype f32,f64 \
          --reps 10 --warmup 2 --json "$OUT/aligned-$round.json" > /dev/null 2>&1
        for h in 4 8; do
          timeout 200 $B/xpose bench --variants tiled --block 32x$h --shapes $sh --dtype f32,f64 \
            --reps 10 --warmup 2 --json "$OUT/aligned-tiled$h-$round.json" > /dev/null 2>&1
        done
      done
      echo "aligned done at ${SECONDS}s" ;;
    small)  # launch-bound sizes: the rules of tiled_small_wins, with the classic tile's new order
      for round in 1 2 3; do
        timeout 200 $B/xpose bench --variants auto,tiled,skew_tile \
          --shapes 500x501,999x1001,1448x1449,2048x2049,2896x2897,3500x3501,4096x4097,5000x5003 --dtype i8,f16,f32,f64 \
          --reps 100 --warmup 10 --json "$OUT/small-odd-$round.json" > /dev/null 2>&1
        timeout 200 $B/xpose bench --variants auto,tiled,fast_tile --shapes 256x256,512x512,1024x1024,2048x1024,2048x2048 \
          --dtype i8,f16,f32,f64,c128 --reps 100 --warmup 10 --json "$OUT/small-aligned-$round.json" > /dev/null 2>&1
      done
      echo "small done at ${SECONDS}s" ;;
    skewed)  # odd output rows: tiled_skew at three heights against auto, skew_tile and tiled (32x8)
      sh=${SKEWED_SHAPES:-10007x9973,16383x16385,8191x8193,10007x10000,16383x16384,3500x3501}
      for round in ${ROUNDS:-1}; do
        timeout 200 $B/xpose bench --variants auto,skew_tile,tiled --shapes $sh --dtype ${SKEWED_TYPES:-f16,f32,f64,c128} \
          --reps 10 --warmup 2 --json "$OUT/skewed-$round.json" > /dev/null 2>&1
        for h in 4 8 16; do
          timeout 200 $B/xpose bench --variants tiled_skew --block 32x$h --shapes $sh --dtype ${SKEWED_TYPES:-f16,f32,f64,c128} \
            --reps 10 --warmup 2 --json "$OUT/skewed-ts$h-$round.json" > /dev/null 2>&1
        done
      done
      echo "skewed done at ${SECONDS}s" ;;
    verify)  # auto after the fifteenth session's rules, cuBLAS alongside; the suite cases of tiled and skew_tile
      timeout 150 $B/xpose bench --variants auto --baseline cublas --dtype f32,f64,c128 --reps 10 --warmup 2 \
        --shapes 10007x9973,16383x16385,8191x8193,16383x16384,10000x10007,16384x16383,4096x4096,16384x16384,10000x10000 \
        --json "$OUT/verify-2d.json" > /dev/null 2>&1
      device_cases "$(dirname "$0")/cases/tiled_suite_cases.txt" verify-suite
      echo "verify done at ${SECONDS}s" ;;
    odd)
      for round in 1 2; do
        timeout 240 $B/xpose bench --variants "${ODD_VARIANTS:-auto,tiled,skew_tile}" \
          --shapes ${ODD_SHAPES:-10007x9973,16383x16385,8191x8193,5000x5003} --dtype ${ODD_TYPES:-i8,f16,f32,f64} \
          --reps 10 --warmup 2 --json "$OUT/odd-$round.json" 2>&1 | grep -E '^\|' > "$OUT/odd-$round.log"
      done
      echo "odd done at ${SECONDS}s" ;;
  esac
done
wait
cd "$OUT" && tar czf /tmp/tiled.tgz . && find . -type f -delete && mv /tmp/tiled.tgz .
