#!/usr/bin/env python3
"""Draws the ratio-to-copy of `xpose bench --json` results as grouped bars, one group per case.

    python3 scripts/plot_results.py OUT.png RESULTS.json [RESULTS.json ...] [--variants auto,cublas]
    [--title TEXT]

Needs matplotlib (pip install matplotlib). Reads only the documented result keys.
"""
import argparse
import json
import sys


def label(r):
    if "extents" in r:
        return "[" + ",".join(map(str, r["extents"])) + "]\nperm " + ",".join(map(str, r["perm"])) + f"\n{r['dtype']}"
    shape = f"{r['rows']}x{r['cols']}" if r["batch"] == 1 else f"{r['batch']}x{r['rows']}x{r['cols']}"
    return f"{shape}\n{r['dtype']}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("results", nargs="+")
    ap.add_argument("--variants", default="")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for f in a.results:
        with open(f) as fh:
            rows += json.load(fh)["results"]
    keep = [v for v in a.variants.split(",") if v] or sorted({r["variant"] for r in rows})
    cases = []
    for r in rows:
        if label(r) not in cases:
            cases.append(label(r))
    val = {(label(r), r["variant"]): r["pct_of_copy"] for r in rows}
    fig, ax = plt.subplots(figsize=(min(24, max(8, 0.7 * len(cases))), 5.5))
    width = 0.8 / len(keep)
    for i, v in enumerate(keep):
        xs = [c + i * width for c in range(len(cases))]
        ys = [val.get((c, v), 0) for c in cases]
        ax.bar(xs, ys, width, label=v)
    ax.axhline(100, color="black", linewidth=0.8)
    ax.set_xticks([c + 0.4 - width / 2 for c in range(len(cases))])
    ax.set_xticklabels(cases, fontsize=6, rotation=90)
    ax.set_ylabel("% of cudaMemcpy D2D (same bytes, same run)")
    ax.set_title(a.title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
