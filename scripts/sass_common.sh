# Sourced by the scripts/sass_*.sh tools with their arguments: checks them (BINARY [NAME_FILTER]),
# finds cuobjdump (PATH, /usr/local/cuda/bin; exit 77 without it) and leaves the binary's SASS in the
# file $sass (removed on exit), the arguments in $binary and $filter.
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BINARY [NAME_FILTER]" >&2
  exit 2
fi
binary=$1
filter=${2:-}
[[ -r $binary ]] || { echo "$0: cannot read $binary" >&2; exit 2; }

cuobjdump=$(command -v cuobjdump || true)
[[ -z $cuobjdump && -x /usr/local/cuda/bin/cuobjdump ]] && cuobjdump=/usr/local/cuda/bin/cuobjdump
[[ -n $cuobjdump ]] || { echo "$0: cuobjdump not found (PATH, /usr/local/cuda/bin)" >&2; exit 77; }

sass=$(mktemp)
trap 'rm -f "$sass"' EXIT
"$cuobjdump" -sass "$binary" >"$sass"
