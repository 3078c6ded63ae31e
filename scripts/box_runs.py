#!/usr/bin/env python3
"""Smallest box with runs of at least R bytes on both sides, for each case of a suite JSON.

For a dense input, a box (tile extents t_d over the dims) reads runs as long as its input-order
prefix of whole dims times the tile extent of the first cut one, and writes runs likewise in
output order. This takes, on each side, whole dims in that side's order until the run reaches R
bytes (the last dim cut to what is needed), joins the two prefixes (the larger tile extent where a
dim is in both) and prints the box's volume in bytes: what a shared-memory tile needs to hold for
every global access to move R contiguous bytes.

    python3 scripts/box_runs.py docs/results/bench-permute-i8-2026-11-30f.json [R ...]
"""
import json
import math
import statistics
import sys


def side_prefix(ext, order, elem, run_bytes):
    """Tile extents of the dims a side's run of run_bytes takes, fastest first."""
    dims, run = {}, 1
    for d in order:
        need = math.ceil(run_bytes / (run * elem))
        if ext[d] >= need:
            dims[d] = need
            return dims
        dims[d] = ext[d]
        run *= ext[d]
    return dims


def box_bytes(ext, perm, elem, run_bytes):
    n = len(ext)
    in_order = [d for d in range(n - 1, -1, -1) if ext[d] > 1]
    out_order = [d for d in reversed(perm) if ext[d] > 1]
    box = side_prefix(ext, in_order, elem, run_bytes)
    for d, t in side_prefix(ext, out_order, elem, run_bytes).items():
        box[d] = max(box.get(d, 1), t)
    return math.prod(box.values()) * elem


def main():
    results = json.load(open(sys.argv[1]))["results"]
    for r in [int(a) for a in sys.argv[2:]] or [128, 256, 512]:
        v = sorted(box_bytes(x["extents"], x["perm"], x["elem_bytes"], r) for x in results)
        fits = sum(1 for b in v if b <= 48 * 1024)
        print(f"runs >= {r} B: box bytes median {statistics.median(v):.0f}, 90th percentile "
              f"{v[int(0.9 * len(v))]}, max {v[-1]}; {fits} of {len(v)} within 48 KiB")


if __name__ == "__main__":
    main()
