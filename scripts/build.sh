#!/usr/bin/env bash
# Configures and builds xpose (Release) into ${XPOSE_BUILD_DIR:-build} with every core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${XPOSE_BUILD_DIR:-$root/build}
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && gen=()
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
