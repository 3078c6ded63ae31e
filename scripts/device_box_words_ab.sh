#!/usr/bin/env bash
# The sixty-fourth session's A/B of the byte word gather's launch (docs/performance.md): three
# builds carried xz-packed in build-dev-next (carry the four files one by one; with the tracked tree
# they stay under the 64 MiB carry limit):
#   xpose_main  main (fb6890d);
#   xpose_a     kBoxWordsMinBlocks 4 -> 5 (fast_variants.cu: the word kernels at 48 registers, 5
#               blocks per SM, 44-72 bytes of spills by ptxas -v);
#   xpose_b     word boxes planned within 54 KiB instead of 44 (4 blocks per SM either way; the
#               launcher raises the kernel's dynamic shared-memory limit past 48 KiB).
# (xpose_a and xpose_b have since left build-dev-next: build them again from branch
# cand/box-words-5blocks and from bc1e2bc, cand/box-words-budget's first commit.)
# ROUNDS alternating rounds (default 2) of scripts/cases/box_words_cases.txt, auto, by
# device_ab_cases.sh: $OUT/ab.json and ab.log. SUITE=1 adds main's i8 suite ($OUT/head/suite-i8.json).
#   OUT=$OUT scripts/device_box_words_ab.sh
# The rule kept from b landed (sixty-fifth session). The b3 and b3-short forms the sixty-fourth
# session wrote for its tests never ran; `land` below took their place.
set -uo pipefail
# Landing form: b3's whole test_gpu and memcheck of the box tests ($OUT/tests.log), then, with the
# time a call has left (LIMIT seconds, default 590), the permutation suites of TYPES (default i8 f16
# f32) by xpose_b3, which is main's code once the branch lands ($OUT/suite-T.json); no A/B.
# Carry xpose_b3.xz, test_gpu_b3.xz (not for the suites alone) and libgomp.so.1.xz.
#   OUT=$OUT scripts/device_box_words_ab.sh land
# (It ran on an H100 in 443 s, the sixty-fifth session: tests 230 s, then three suites.) The suites
# alone, for the H200 (SUITES_ONLY=1; TYPES as above):
#   OUT=$OUT SUITES_ONLY=1 TYPES="i8 f16 f32" scripts/device_box_words_ab.sh land
if [ "${1:-}" = land ]; then
  cd build-dev-next && for f in xpose_b3 test_gpu_b3 libgomp.so.1; do [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
  mkdir -p b3 && mv xpose_b3 b3/xpose && cp libgomp.so.1 b3/ && { [ -f test_gpu_b3 ] && mv test_gpu_b3 b3/test_gpu; chmod +x b3/*; }
  cd .. && nvidia-smi -L
  [ "${SUITES_ONLY:-0}" = 1 ] || MEMCHECK='GpuRandom.PermuteBox:GpuRandom.PermuteBoxShiftedWords:GpuRandom.PermuteBoxWideWords' \
    BENCH2D=0 scripts/device_check.sh build-dev-next/b3 test
  for t in ${TYPES:-i8 f16 f32}; do
    # A suite takes 60-150 s on these cards; start one only where it can finish.
    [ $SECONDS -gt $(( ${LIMIT:-590} - 150 )) ] && { echo "suite $t skipped: ${SECONDS}s gone"; continue; }
    TYPES=$t scripts/device_check.sh build-dev-next/b3 suite
  done
  echo "land done after ${SECONDS}s"
  exit 0
fi
cd build-dev-next && for f in xpose_main xpose_a xpose_b libgomp.so.1; do [ -f $f.xz ] && xz -d -T8 -f $f.xz; done
chmod +x xpose_*; cp xpose_main xpose; cd ..
nvidia-smi -L
BIN=build-dev-next BINS="xpose_main xpose_a xpose_b" ROUNDS=${ROUNDS:-2} CASES=scripts/cases/box_words_cases.txt \
  scripts/device_ab_cases.sh | tail -2
[ "${SUITE:-0}" = 1 ] && OUT=$OUT/head TYPES=i8 scripts/device_check.sh build-dev-next suite
echo "words A/B done after ${SECONDS}s"
