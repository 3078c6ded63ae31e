#!/usr/bin/env bash
# A baseline and a candidate build, same call (written for the tile order and its panels;
# docs/performance.md "Fifty-ninth session" to "Sixty-first session"). build-dev-next holds xz-packed
# binaries and libgomp.so.1; carry only the files a call needs (the folder and the tracked tree pass
# the 64 MiB carry limit): xpose_head.xz, test_gpu.xz and libgomp.so.1.xz without a candidate:
#   xpose_head and test_gpu: the baseline (main), always;
#   xpose_new and test_gpu_new: a candidate build, when there is one.
# Now (sixty-sixth session): xpose_head and test_gpu are main at 48d171e (the f32 box / runs rule;
# docs/performance.md, sixty-sixth session); no candidate.
#   OUT=$OUT scripts/device_tile_order.sh test     # the candidate's whole test_gpu (the baseline's
#                                                  # without one), memcheck of the three kernels the
#                                                  # tile order and panels touch (H100: 269 s)
#   OUT=$OUT scripts/device_tile_order.sh suites   # the suite of each type in TYPES (default f32
#                                                  # f16 i8), baseline then candidate if any, one
#                                                  # call: $OUT/{head,new}/suite-T.json. H100 with
#                                                  # a candidate: f32 + f16 270 s, i8 + f64 415 s,
#                                                  # c128 over 300 s; without one, about half
#   OUT=$OUT scripts/device_tile_order.sh memprofile # the baseline's Nsight Compute memory and issue
#                                                  # counters (device_memprofile.sh) on CASES, by
#                                                  # default the i8 boxes of the sixty-second
#                                                  # session's next call 3 and an f16 box of the
#                                                  # same bytes: $OUT/memprofile.log; the
#                                                  # candidate's in $OUT/new/memprofile.log
set -uo pipefail
cd build-dev-next && for f in *.xz; do xz -d -T8 -f "$f"; done; chmod +x xpose* test_gpu* 2> /dev/null
cp xpose_head xpose
new=0
if [ -f xpose_new ]; then
  new=1 && mkdir -p nb && cp xpose_new nb/xpose && cp libgomp.so.1 nb/ && cp test_gpu_new nb/test_gpu
fi
cd ..
nvidia-smi -L
R=$OUT
cand=build-dev-next && [ $new = 1 ] && cand=build-dev-next/nb
case "${1:?test, suites or memprofile}" in
  test)
    OUT=$R MEMCHECK='GpuRandom.PermuteRunsAnyAlignment:GpuRandom.PackedVectorPaths:GpuRandom.PermuteBox:GpuRandom.TilePanels' BENCH2D=0 \
      scripts/device_check.sh $cand test ;;
  suites)
    for t in ${TYPES:-f32 f16 i8}; do
      OUT=$R/head TYPES=$t scripts/device_check.sh build-dev-next suite
      [ $new = 1 ] && OUT=$R/new TYPES=$t scripts/device_check.sh build-dev-next/nb suite
    done ;;
  memprofile)
    export CASES=${CASES:-"1472,6,22,6,10,23 0,2,5,1,4,3 i8;514244,174,3 0,2,1 i8;776,12,21,3,8,19,3 6,5,4,1,3,0,2 i8;92,201,168,85 3,2,1,0 i8;46,201,168,85 3,2,1,0 f16"}
    BIN=build-dev-next OUT=$R scripts/device_memprofile.sh
    # The candidate's counters too (its instructions per case against the baseline's), when there is one.
    [ $new = 1 ] && mkdir -p "$R/new" && BIN=$cand OUT=$R/new scripts/device_memprofile.sh ;;
esac
echo "tile order $1 done after ${SECONDS}s"
