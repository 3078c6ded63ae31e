#!/usr/bin/env bash
# The SASS of the device kernels without a GPU or a full CUDA toolkit install: compiles one CUDA
# source of the library to an sm_90 cubin with the build's flags (ptxas -v's registers, spills and
# shared memory to SASS_DIR/ptxas.log) and disassembles it with cuobjdump and nvdisasm, which the
# toolkit here lacks and PyPI has (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm: unpacked once into
# build-sass-tools/, ignored by git). Used to compare a kernel's code across commits when no device
# is lent (docs/performance.md, fifty-fourth session: the c128 prologue's instructions and barriers).
#
#   scripts/sass.sh [SOURCE] [FILTER]
#     SOURCE  a .cu file of the tree to compile (default src/gpu/fast_variants.cu)
#     FILTER  an extended regex over the demangled kernel names (default: list the kernels only)
#   SASS_DIR (default build-sass) receives kernel.cubin, ptxas.log, kernels.txt and one
#   NAME.sass per matching kernel (NAME the mangled name).
#   ROOT=DIR takes the sources of another checkout (git archive C | tar -x -C DIR), so that
#   SASS_DIR=a scripts/sass.sh; ROOT=/tmp/old SASS_DIR=b scripts/sass.sh then diff a b.
# Whole builds kernel by kernel (which kernels a change recompiled differently): scripts/sass_same.py.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${ROOT:-$here}
src=${1:-src/gpu/fast_variants.cu}
filter=${2:-}
out=${SASS_DIR:-$here/build-sass}
tools=$here/build-sass-tools
mkdir -p "$out"
if [ ! -x "$tools/nvidia/cu13/bin/nvdisasm" ]; then
  mkdir -p "$tools/wheels"
  python3 -m pip download --no-deps -q -d "$tools/wheels" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
  for w in "$tools"/wheels/*.whl; do python3 -m zipfile -e "$w" "$tools"; done
  chmod +x "$tools"/nvidia/cu*/bin/*
fi
bin=$(dirname "$(ls "$tools"/nvidia/cu*/bin/nvdisasm | head -1)")
export PATH=$bin:$PATH
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
defs="-DFMT_HEADER_ONLY=1 -DXPOSE_HAS_AVX2_KERNELS=1 -DXPOSE_HAS_CUDA=1"
"$nvcc" $defs -I"$root/include" -I"$root/src" -O3 -DNDEBUG -arch=sm_90 -cubin -lineinfo --expt-relaxed-constexpr \
  -std=c++20 -Xptxas -v -x cu "$root/$src" -o "$out/kernel.cubin" 2> "$out/ptxas.log"
cuobjdump -elf "$out/kernel.cubin" | grep -oE '(^|[[:space:]])\.text\.[^[:space:]]+' | sed -E 's/^[[:space:]]*\.text\.//' |
  sort -u > "$out/mangled.txt"
c++filt < "$out/mangled.txt" > "$out/kernels.txt"
if [ -z "$filter" ]; then
  cat "$out/kernels.txt"
  exit 0
fi
paste "$out/mangled.txt" "$out/kernels.txt" | while IFS=$'\t' read -r m d; do
  if grep -qE -- "$filter" <<< "$d"; then
    cuobjdump -sass -fun "$m" "$out/kernel.cubin" > "$out/$m.sass"
    n=$(grep -cE '^\s+/\*[0-9a-f]{4,}\*/' "$out/$m.sass")
    bars=$(grep -c 'BAR.SYNC' "$out/$m.sass" || true)
    echo "$n instructions, $bars BAR.SYNC: $d"
  fi
done
