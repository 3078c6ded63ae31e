#!/usr/bin/env bash
# Installs the built xpose into a temporary prefix, builds tests/install as a separate project with
# find_package(xpose), and runs it: the 3x2 transpose of 1..6 must print "1 3 5 2 4 6".
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumer" >/dev/null
out=$("$tmp/consumer/app" | head -1)
echo "consumer printed: $out"
[ "$out" = "1 3 5 2 4 6 " ]
