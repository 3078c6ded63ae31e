#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, runs `xpose bench` (GPU if present,
# else CPU). Extra arguments go to `xpose bench`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
exec "${XPOSE_BUILD_DIR:-$root/build}/tools/xpose" bench "$@"
