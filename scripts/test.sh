#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test. GPU tests (label
# `gpu`) skip with their reason on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
cd "${XPOSE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
