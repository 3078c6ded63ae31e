#!/usr/bin/env python3
"""Case-by-case comparison of an A/B run of scripts/device_ab_cases.sh (its ab.json).

Rows of ab.json carry "build" as NAME.cN (binary NAME, case N of the case list), "variant" and
"pct_of_copy"; each round adds one row per binary, case and variant. This averages the rounds and
prints, for each case, A's and B's mean % of copy, the difference and the spread of each side's
rounds (a difference inside the spread is noise), then the count of cases that moved more than a
point either way and the mean difference.

A and B are two binaries (compare builds on the same variant, --variant, default auto) or, with
--variants, two variants of one binary (--build, default the only one in the file). Any unverified
row is reported first: a wrong output voids the comparison.

    python3 scripts/ab_compare.py ab.json xpose_main xpose_new
    python3 scripts/ab_compare.py ab.json auto permute_runs --variants
    python3 scripts/ab_compare.py ab.json xpose_main xpose_new --plan build/tools/xpose
"""
import argparse
import collections
import json
import statistics
import subprocess
import sys


def load(path):
    with open(path) as f:
        rows = json.load(f)["results"]
    bad = [r for r in rows if not r.get("verified", False)]
    for r in bad:
        print(f"UNVERIFIED: {r['build']} {r['variant']} {r['extents']} {r['perm']} {r['dtype']}")
    return rows


def planned_kernel(xpose, case):
    """auto's kernel for one case, by `xpose plan` on this machine (it plans for an H200 without a GPU)."""
    ext, perm, dtype = case
    out = subprocess.run([xpose, "plan", "--extents", ",".join(map(str, ext)), "--perm",
                          ",".join(map(str, perm)), "--dtype", dtype], capture_output=True, text=True).stdout
    line = out.strip().splitlines()[-1] if out.strip() else "?"
    return line.split(" on ")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ab_json")
    ap.add_argument("a", help="binary A (or variant A with --variants)")
    ap.add_argument("b", help="binary B (or variant B with --variants)")
    ap.add_argument("--variants", action="store_true", help="A and B name variants of one binary")
    ap.add_argument("--variant", default="auto", help="the variant compared between binaries")
    ap.add_argument("--build", help="the binary whose variants are compared (--variants)")
    ap.add_argument("--plan", metavar="XPOSE", help="add the kernel XPOSE plan gives auto for each case (this tree's planner, which may differ from the builds measured)")
    args = ap.parse_args()

    rows = load(args.ab_json)
    builds = sorted({r["build"].rsplit(".", 1)[0] for r in rows})
    if args.variants and args.build is None:
        if len(builds) != 1:
            sys.exit(f"ab_compare: several binaries in the file ({', '.join(builds)}); name one with --build")
        args.build = builds[0]

    pct = collections.defaultdict(list)  # (case, side) -> % of copy, one per round
    info = {}
    for r in rows:
        name, case = r["build"].rsplit(".", 1)
        # Case numbers restart in each call's list, so a file merged from several calls keys its
        # cases by number and problem together.
        n = (int(case[1:]), r["dtype"], tuple(r["extents"]), tuple(r["perm"]))
        info[n] = (r["extents"], r["perm"], r["dtype"])
        if args.variants:
            if name == args.build and r["variant"] in (args.a, args.b):
                pct[(n, r["variant"])].append(r["pct_of_copy"])
        elif r["variant"] == args.variant and name in (args.a, args.b):
            pct[(n, name)].append(r["pct_of_copy"])

    diffs = []
    for n in sorted(info, key=lambda k: (k[1], k[0])):
        a, b = pct.get((n, args.a)), pct.get((n, args.b))
        ext, perm, dtype = info[n]
        if not a or not b:
            print(f"{n[0]:3d} {dtype:4s} {str(ext):30s} {str(perm):26s} missing a side ({len(a or [])} / {len(b or [])} rounds)")
            continue
        ma, mb = statistics.mean(a), statistics.mean(b)
        diffs.append(mb - ma)
        kernel = f" {planned_kernel(args.plan, info[n]):14s}" if args.plan else ""
        print(f"{n[0]:3d} {dtype:4s}{kernel} {str(ext):30s} {str(perm):26s} {ma:6.1f} -> {mb:6.1f} {mb - ma:+6.1f}"
              f"  spread {max(a) - min(a):4.1f} / {max(b) - min(b):4.1f}")
    if diffs:
        print(f"{len(diffs)} cases, mean {statistics.mean(diffs):+.2f}, up >1: {sum(d > 1 for d in diffs)}, "
              f"down <-1: {sum(d < -1 for d in diffs)}, min {min(diffs):+.1f}, max {max(diffs):+.1f}")


if __name__ == "__main__":
    main()
