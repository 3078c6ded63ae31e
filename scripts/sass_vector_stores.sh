#!/usr/bin/env bash
# Checks that the kernels meant to store 16-byte vectors do: counts the global stores in the SASS of
# each kernel by width (STG.E.128, .64, 4-byte, .U16, .U8) and fails when a kernel of the vector
# family (fast_tile, skew_tile, narrow, reg_tile, reg_batch, permute_box, permute_runs, permute_rows)
# has no STG.E.128 at all. nvcc 13.0 had split `*reinterpret_cast<uint4*>(p) = v` into 4- or 8-byte
# stores wherever p pointed to 2- to 8-byte elements, silently (store_vec16 in src/gpu/common.cuh;
# docs/performance.md, twelfth session); edge paths store element by element on purpose, so only a
# kernel without a single 16-byte store is reported.
#
#   scripts/sass_vector_stores.sh build/tools/xpose             # every kernel of the CLI
#   scripts/sass_vector_stores.sh build/tools/xpose fast_tile   # only kernels whose name matches
#
# Needs cuobjdump (CUDA toolkit). Exit status: 0 all vector kernels store 16 bytes somewhere, 1 not,
# 2 usage, 77 no cuobjdump.
set -euo pipefail

source "$(dirname "$0")/sass_common.sh" "$@"

printf "%6s %5s %5s %5s %5s  %s\n" "STG128" "64" "32" "U16" "U8" "kernel (mangled)"
awk -v filter="$filter" '
  function flush() {
    if (fn != "" && (filter == "" || index(fn, filter) > 0)) {
      printf "%6d %5d %5d %5d %5d  %s\n", n["128"], n["64"], n["32"], n["U16"], n["U8"], fn
      if (fn ~ /(fast_tile|skew_tile|narrow|reg_tile|reg_batch|permute_box|permute_runs|permute_rows)_kernel/ && n["128"] == 0) {
        printf "  ^ no 16-byte store in a vector kernel\n"
        bad++
      }
    }
    delete n
  }
  /Function : / { flush(); fn = $NF; next }
  /STG\.E/ {
    if ($0 ~ /STG\.E\.128/) n["128"]++
    else if ($0 ~ /STG\.E\.64/) n["64"]++
    else if ($0 ~ /STG\.E\.U16/) n["U16"]++
    else if ($0 ~ /STG\.E\.U8/) n["U8"]++
    else n["32"]++
  }
  END { flush(); if (bad) { printf "%d vector kernel(s) without a 16-byte store\n", bad; exit 1 } }
' "$sass"
