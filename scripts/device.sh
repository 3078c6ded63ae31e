#!/usr/bin/env bash
# One call on the GPU machine: build with every core, then the stages named on the command line
# (default: all of them). Logs and JSON go to $OUT (the device tool fetches them) or ./device-out.
#
#   scripts/device.sh                      # build test sanitize bench
#   scripts/device.sh build bench perf     # pick stages
#
# Stages: build, test (gpu-labelled ctest), cputest (the rest), sanitize (memcheck on a reduced gpu
# set, racecheck on the shared-memory variants), bench (default `xpose bench`), perf (the
# performance sweep, docs/performance.md), perm (permutation suite), banks (model vs ncu),
# sass (shared-memory instructions and global store widths per kernel, from cuobjdump), permall (the suite for every element
# size), packed (permute_packed against the 2-D kernels on 2-D shapes and batches), memcheck (the whole gpu test
# binary under memcheck, the 2^31-element cases excluded).
# On a machine with two GPUs, run tests and benchmarks at once, each on its own GPU:
#   scripts/device.sh build && { XPOSE_LOG=tests CUDA_VISIBLE_DEVICES=1 scripts/device.sh test &
#                                CUDA_VISIBLE_DEVICES=0 scripts/device.sh bench perf; wait; }
# At most 8 files come back from $OUT: everything textual goes to one log, plus a few JSON files.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
log="$out/${XPOSE_LOG:-device}.log"  # XPOSE_LOG names the log of a second, concurrent call
build=${XPOSE_BUILD_DIR:-$root/build-device}
xpose="$build/tools/xpose"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test sanitize bench)
status=0

section() { echo; echo "==== $* ($(date -u +%H:%M:%S))"; }
run() {  # run a command, log it, remember failure
  echo "+ $*"
  "$@"
  local rc=$?
  [ $rc -ne 0 ] && { echo "!! exit $rc: $*"; status=1; }
  return 0
}

{
  section "machine"
  # The device tool's copy of the tree can carry a stale .git: pass XPOSE_COMMIT=<hash> in the
  # command to record the commit that was sent.
  echo "commit ${XPOSE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) (read from the copied .git)}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  nvcc --version | tail -2
  cmake --version | head -1
} >>"$log" 2>&1

for stage in "${stages[@]}"; do
  case "$stage" in
    build)
      { section build; SECONDS=0
        run env XPOSE_BUILD_DIR="$build" "$root/scripts/build.sh"
        echo "build took ${SECONDS}s"; } >>"$log" 2>&1 ;;
    test)
      { section "gpu tests"; cd "$build" && run ctest -L gpu --output-on-failure -j 2 --timeout 900; cd "$root"; } >>"$log" 2>&1 ;;
    cputest)
      { section "cpu tests"; cd "$build" && run ctest -LE gpu --output-on-failure -j 8; cd "$root"; } >>"$log" 2>&1 ;;
    sanitize)
      { section "compute-sanitizer memcheck (reduced gpu set)"
        run timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test_gpu" \
          --gtest_filter='*AwkwardShapes*/*_4B:*AwkwardShapes*/*_1B:*StridedAndBatched*/*_16B:*ExecuteChecks*'
        section "compute-sanitizer racecheck (the kernels with shared memory)"
        run timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test_gpu" \
          --gtest_filter='*AwkwardShapes*/smem_v*_4B:*AwkwardShapes*/tiled_4B:*AwkwardShapes*/fast_tile_*:*AwkwardShapes*/narrow_4B'
      } >>"$log" 2>&1 ;;
    bench)
      { section "xpose bench (default: the seeds' experiments)"
        run "$xpose" bench --json "$out/bench-default.json"; } >>"$log" 2>&1 ;;
    perf)
      { section "performance sweep"; run "$root/scripts/perf_sweep.sh" "$xpose" "$out"; } >>"$log" 2>&1 ;;
    perm)
      { section "permutation suite"
        run "$xpose" bench --suite permute --json "$out/bench-permute.json"; } >>"$log" 2>&1 ;;
    permall)
      { section "permutation suite, every element size, auto"
        for t in f32 f64 c128 f16 i8; do  # one JSON per type: a run cut short keeps the finished ones
          run "$xpose" bench --suite permute --dtype $t --reps 5 --warmup 1 --json "$out/bench-permute-$t.json"
        done; } >>"$log" 2>&1 ;;
    packed)
      { section "permute_packed against the 2-D kernels"
        run "$xpose" bench --shapes 10007x9973,16384x16384 --dtype i8,f16,f32,f64,c128 \
          --variants auto,tiled,permute_packed --reps 10 --json "$out/bench-packed-2d.json"
        run "$xpose" bench --shapes 32x48 --batch 100000 --dtype i8,f16,f32,f64,c128 \
          --variants auto,permute_packed --reps 10
        run "$xpose" bench --shapes 256x384 --batch 4096 --dtype i8,f16,f32,f64,c128 \
          --variants auto,permute_packed --reps 10; } >>"$log" 2>&1 ;;
    memcheck)
      { section "compute-sanitizer memcheck (the whole gpu test binary but the 2^31-element cases)"
        run timeout 420 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test_gpu" \
          --gtest_filter='-*MoreThan2Pow31*'; } >>"$log" 2>&1 ;;
    banks)
      { section "bank model vs ncu"; run "$xpose" profile --suite --json "$out/banks-ncu.json"; } >>"$log" 2>&1 ;;
    sass)
      { section "shared-memory instructions per kernel (cuobjdump)"
        run "$root/scripts/sass_shared_ops.sh" "$xpose" smem_
        section "global stores by width per kernel: every vector kernel stores 16 bytes (cuobjdump)"
        run "$root/scripts/sass_vector_stores.sh" "$xpose"; } >>"$log" 2>&1 ;;
    cpu16)
      { section "CPU backend on this machine's cores (8192^2 f32 and 3 x 40M f32)"
        for t in 1 2 4 8 16; do
          run "$xpose" bench --device cpu --variants cpu_blocked --shapes 8192x8192,3x40000000 --threads $t --reps 5
        done; } >>"$log" 2>&1 ;;
    *) echo "unknown stage $stage" >>"$log"; status=1 ;;
  esac
done
section "done, status $status" >>"$log"
tail -c 6000 "$log"
exit $status
