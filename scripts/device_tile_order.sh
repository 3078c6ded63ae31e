#!/usr/bin/env bash
# A baseline and a candidate build, same call (written for the tile order, tile_first_dim;
# docs/performance.md "Fifty-ninth session" and "Sixtieth session"). build-dev-next holds xz-packed
# xpose_head (the baseline), xpose_new and test_gpu (both built from the candidate) and
# libgomp.so.1; pass carry ["build-dev-next"]. For the sixty-first session: xpose_head is main at
# e2c6fa5 (the tile order with its span bound), xpose_new and test_gpu are lead/tile-panel 998bb02
# (panels, docs/performance.md "Sixtieth session"; its test_gpu holds main's tests and
# GpuRandom.TilePanels).
#   OUT=$OUT scripts/device_tile_order.sh test     # the candidate's whole test_gpu, memcheck of the
#                                                  # three kernels the order touches and of the
#                                                  # panels (about 300 s; the panels under memcheck
#                                                  # not yet timed)
#   OUT=$OUT scripts/device_tile_order.sh suites   # the suite of each type in TYPES (default f32
#                                                  # f16 i8), baseline then candidate, one call
#                                                  # (about 450 s on the H200; an H100 is slower, i8
#                                                  # most: give it TYPES="f32 f16", then TYPES=i8):
#                                                  # $OUT/{head,new}/suite-T.json
set -uo pipefail
cd build-dev-next && for f in *.xz; do xz -d -T8 -f "$f"; done; chmod +x xpose* test_gpu 2> /dev/null
cp xpose_head xpose && mkdir -p nb && cp xpose_new nb/xpose && cp libgomp.so.1 nb/ && cp test_gpu nb/ && cd ..
nvidia-smi -L
R=$OUT
case "${1:?test or suites}" in
  test)
    OUT=$R MEMCHECK='GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PackedVectorPaths:GpuRandom.PermuteBox:GpuRandom.TilePanels' BENCH2D=0 \
      scripts/device_check.sh build-dev-next/nb test ;;
  suites)
    for t in ${TYPES:-f32 f16 i8}; do
      OUT=$R/head TYPES=$t scripts/device_check.sh build-dev-next suite
      OUT=$R/new TYPES=$t scripts/device_check.sh build-dev-next/nb suite
    done ;;
esac
echo "tile order $1 done after ${SECONDS}s"
