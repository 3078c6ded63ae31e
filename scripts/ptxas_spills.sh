#!/usr/bin/env bash
# Register spills of every kernel, against the record in tests/data/ptxas_spills.txt: compiles each
# kernel file of src/gpu with the library's device flags and -Xptxas -v (sm_90), and fails where a
# kernel spills more bytes than recorded, or a kernel not in the record spills at all. Fewer bytes
# pass, with a line saying so (--update records them).
#
# Why: spills are invisible in a unit test and cost more than they look. A change that only added a
# kernel argument and a claim (permute_box's tickets, seventy-fifth session) made the 48-register
# converged box kernels spill 16-28 bytes, and their one-block-per-tile plans lost up to 17 points
# of copy on the H100 (docs/performance.md, seventy-sixth session). This check would have named
# them on a CPU.
#
#   scripts/ptxas_spills.sh            # check (exit 1 on a new or larger spill; 77 without nvcc)
#   scripts/ptxas_spills.sh --update   # rewrite the record from this tree
# About 3 minutes on two cores; CTest runs it as ptxas_spills (label cpu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
record=$root/tests/data/ptxas_spills.txt
nvcc=$(command -v nvcc || true)
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
[[ -n $nvcc ]] || { echo "ptxas_spills: skipped: nvcc not found (PATH, /usr/local/cuda/bin)"; exit 77; }

# The record holds for one compiler: another nvcc allocates registers its own way.
version=$("$nvcc" --version | grep -o 'V[0-9][0-9.]*' | head -1)
if [[ ${1:-} != --update && -r $record ]]; then
  recorded=$(sed -n 's/^# nvcc \(V[0-9.]*\).*/\1/p' "$record" | head -1)
  if [[ $recorded != "$version" ]]; then
    echo "ptxas_spills: skipped: the record is of nvcc ${recorded:-unknown}, this is $version (--update, then review the diff)"
    exit 77
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The device flags of src/CMakeLists.txt that can change code generation (not -lineinfo).
flags=(-O3 -DNDEBUG -DXPOSE_HAS_CUDA=1 -DFMT_HEADER_ONLY=1 -std=c++20 --expt-relaxed-constexpr
  "--generate-code=arch=compute_90,code=[sm_90]" -I"$root/include" -I"$root/src" -Xptxas -v)
pids=()
for f in "$root"/src/gpu/*.cu; do
  "$nvcc" "${flags[@]}" -x cu -c "$f" -o "$tmp/$(basename "$f").o" > "$tmp/$(basename "$f").log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { cat "$tmp"/*.log >&2; echo "ptxas_spills: a compile failed" >&2; exit 2; }; done

# One line per kernel: spill store bytes, spill load bytes, mangled name (sorted by name).
cat "$tmp"/*.log | awk '
  /Compiling entry function/ { fn = $0; sub(/.*entry function .\047?/, "", fn); sub(/\047.*/, "", fn) }
  /bytes spill stores/ { st = $5; ld = $9 }
  /Used [0-9]+ registers/ { if (fn != "") print st, ld, fn; fn = "" }
' | sort -k3 > "$tmp/now.txt"
[[ -s $tmp/now.txt ]] || { echo "ptxas_spills: no kernel found in the ptxas output" >&2; exit 2; }

if [[ ${1:-} == --update ]]; then
  { echo "# nvcc $version, sm_90: spill store bytes, spill load bytes, kernel (scripts/ptxas_spills.sh --update)"
    cat "$tmp/now.txt"; } > "$record"
  echo "ptxas_spills: recorded $(wc -l < "$tmp/now.txt") kernels in $record"
  exit 0
fi
[[ -r $record ]] || { echo "ptxas_spills: no record at $record (run with --update)" >&2; exit 2; }
awk '
  NR == FNR { if ($1 !~ /^#/) rec[$3] = $1; next }
  {
    n++
    if (!($3 in rec)) { if ($1 > 0) { print "new kernel spills " $1 " bytes: " $3; bad++ } }
    else if ($1 > rec[$3]) { print "spills " rec[$3] " -> " $1 " bytes: " $3; bad++ }
    else if ($1 < rec[$3]) print "spills less, " rec[$3] " -> " $1 " bytes (--update records it): " $3
  }
  END {
    printf "ptxas_spills: %d kernels, %d spill more than recorded\n", n, bad
    exit bad > 0
  }
' "$record" "$tmp/now.txt"
