# Sourced by the per-call device scripts (device_batch.sh, device_tma.sh, device_odd.sh): the
# binaries' folder B (BIN, default .devbin: binaries built on the development machine, with
# libgomp.so.1 for their host code), the output folder OUT, the clock (SECONDS), and device_alltests.
B=${BIN:-.devbin}
export LD_LIBRARY_PATH=$PWD/$B:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
SECONDS=0

# The whole test_gpu, then memcheck on the tests matching gtest filter $1 (timeout $2 seconds,
# default 300), on GPU 1 in the background (an H200 pair) while the caller's other modes run on GPU 0;
# the summary lines go to $OUT/tests-all.log.
device_alltests() {
  (
    export CUDA_VISIBLE_DEVICES=1
    timeout 420 "$B/test_gpu" 2>&1 | grep -E "^\[  (PASSED|FAILED)  \]|Failure|Which is|Expected|case|tests ran" | head -40
    timeout "${2:-300}" compute-sanitizer --tool memcheck "$B/test_gpu" --gtest_filter="$1" 2>&1 |
      grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)  \]|Invalid" | head -8
    echo "all tests done at ${SECONDS}s"
  ) > "$OUT/tests-all.log" 2>&1 &
}
