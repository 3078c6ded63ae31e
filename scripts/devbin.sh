#!/usr/bin/env bash
# Packs a build for the device calls: tools/xpose as build-dev-next/NAME.xz and, with a second name,
# tests/test_gpu as TESTNAME.xz, plus libgomp.so.1.xz (the device lacks the host's OpenMP runtime)
# when it is not there yet. build-dev-next is not in git: a fresh checkout builds and packs again.
# The device scripts unpack with device_unpack.
# --build first builds the two binaries compactly in build-dev (XPOSE_BUILD_DIR overrides): sm_90
# machine code only (no compute_90 PTX: the device JITs nothing), fatbins left uncompressed (xz
# packs them tighter than nvcc's own compression) and no -lineinfo (XPOSE_LINEINFO=OFF; the line
# tables change no instruction). The kernels are the same as the default build's; each binary packs
# to about a fifth of its size (xpose 2.2 MB against 12.4), so a call's 64 MiB carries main, its
# tests and several candidates instead of two binaries. Without --build it packs what
# XPOSE_BUILD_DIR (default build) holds.
#   scripts/devbin.sh --build xpose_main test_gpu_main
#   scripts/build.sh && scripts/devbin.sh xpose_main     # the default (full) build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compact=0
if [ "${1:-}" = --build ]; then compact=1; shift; fi
build=${XPOSE_BUILD_DIR:-$root/build}
[ "$compact" = 1 ] && build=${XPOSE_BUILD_DIR:-$root/build-dev}
out=$root/build-dev-next
name=${1:?usage: scripts/devbin.sh NAME [TESTNAME]}
mkdir -p "$out"
if [ "$compact" = 1 ]; then
  gen=()
  command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ] && gen=(-G Ninja)
  cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DCMAKE_CUDA_FLAGS=--compress-mode=none -DXPOSE_LINEINFO=OFF > /dev/null
  cmake --build "$build" -j "$(nproc)" --target xpose_cli ${2:+test_gpu}
fi
xz -9e -T2 -c "$build/tools/xpose" > "$out/$name.xz"
[ -n "${2:-}" ] && xz -9e -T2 -c "$build/tests/test_gpu" > "$out/$2.xz"
if [ ! -f "$out/libgomp.so.1.xz" ]; then
  gomp=$(ldd "$build/tools/xpose" | awk '/libgomp.so.1/ {print $3}')
  [ -n "$gomp" ] && xz -9e -c "$gomp" > "$out/libgomp.so.1.xz"
fi
ls -l "$out"
