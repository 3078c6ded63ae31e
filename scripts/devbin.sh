#!/usr/bin/env bash
# Packs this machine's build for the device calls: build/tools/xpose as build-dev-next/NAME.xz and,
# with a second name, build/tests/test_gpu as TESTNAME.xz, plus libgomp.so.1.xz (the device lacks
# the host's OpenMP runtime) when it is not there yet. build-dev-next is not in git: a fresh checkout
# builds (scripts/build.sh) and packs again. The device scripts unpack with device_unpack.
#   scripts/build.sh && scripts/devbin.sh xpose_main
#   scripts/devbin.sh xpose_new test_gpu_new      # after building a candidate
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${XPOSE_BUILD_DIR:-$root/build}
out=$root/build-dev-next
name=${1:?usage: scripts/devbin.sh NAME [TESTNAME]}
mkdir -p "$out"
xz -9e -T2 -c "$build/tools/xpose" > "$out/$name.xz"
[ -n "${2:-}" ] && xz -9e -T2 -c "$build/tests/test_gpu" > "$out/$2.xz"
if [ ! -f "$out/libgomp.so.1.xz" ]; then
  gomp=$(ldd "$build/tools/xpose" | awk '/libgomp.so.1/ {print $3}')
  [ -n "$gomp" ] && xz -9e -c "$gomp" > "$out/libgomp.so.1.xz"
fi
ls -l "$out"
