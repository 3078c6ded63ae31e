#!/usr/bin/env bash
# Counts the shared-memory instructions in the SASS of every kernel of a CUDA binary, per kernel:
#   LDS / STS     shared load / store (any width: .U8, .U16, .64, .128)
#   LDSM / STSM   matrix load / store (ldmatrix / stmatrix)
#   ATOMS         shared atomics
#   LDGSTS        global -> shared asynchronous copies (cp.async)
# This is how docs/banks.md establishes whether the compiler kept a kernel's shared round trip
# (e.g. smem_v1): a kernel whose source writes and reads shared memory but shows 0 LDS and 0 STS
# here makes no shared accesses, and Nsight Compute will count 0 for it.
#
#   scripts/sass_shared_ops.sh build/tools/xpose            # the CLI holds every kernel
#   scripts/sass_shared_ops.sh build/tools/xpose smem_v1    # only kernels whose name matches
#
# Needs cuobjdump (CUDA toolkit; with nvdisasm beside it). Demangles with c++filt when present.
set -euo pipefail

source "$(dirname "$0")/sass_common.sh" "$@"
demangle=cat
command -v c++filt >/dev/null && demangle=c++filt

# One line per kernel: counts, a tab, the mangled name (demangled below: names hold spaces).
awk '
  function flush() {
    if (fn != "") printf "%5d %5d %5d %5d %5d %6d\t%s\n", n["LDS"], n["STS"], n["LDSM"], n["STSM"], n["ATOMS"], n["LDGSTS"], fn
    delete n
  }
  /Function : / { flush(); fn = $NF; next }
  /^[[:space:]]+\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[[:space:]]+\/\*[0-9a-f]+\*\/[[:space:]]+/, "", line)   # address
    sub(/^@!?U?P[0-9T]+[[:space:]]+/, "", line)                    # predicate
    split(line, tok, /[[:space:];]+/)
    op = tok[1]; sub(/\..*/, "", op)                               # LDS.U16 -> LDS
    if (op == "LDS" || op == "STS" || op == "LDSM" || op == "STSM" || op == "ATOMS" || op == "LDGSTS") n[op]++
  }
  END { flush() }
'  "$sass" | while IFS=$'\t' read -r counts mangled; do
  name=$(printf '%s\n' "$mangled" | $demangle)
  if [[ -z $filter || $name == *"$filter"* ]]; then
    printf '%s  %s\n' "$counts" "$name"
  fi
done | { printf '%5s %5s %5s %5s %5s %6s  %s\n' LDS STS LDSM STSM ATOMS LDGSTS kernel; sort -k7; }
