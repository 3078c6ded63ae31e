#!/usr/bin/env python3
"""How each kernel's bandwidth scales between two cards, from two permutation-suite runs of the same code.

The H200 and the H100 (SXM) have the same SMs (132, sm_90, about the same clocks) and differ in
memory: the H200's device copy runs about 1.4x the H100's. A kernel limited by memory gains what the
copy gains; one limited by the SMs' own work (instructions, shared memory, latency per byte) gains
less, and so loses percent-of-copy on the faster card. This prints, per kernel, the median ratio of
the kernel's GB/s on card A to card B next to the copy's ratio (docs/performance.md, sixty-second
session).

  scripts/card_scaling.py A.json B.json [--plan PLAN.txt]

A.json and B.json are `xpose bench --suite permute --json` files (one dtype each) of the same code
on two cards; PLAN.txt, the output of `xpose plan --suite permute --dtype T` for that code, labels
each case with its kernel (permute_box split by its gather: elements or words). Without it the cases
are grouped by dtype only.
"""
import argparse
import json
import re
import statistics


def load(path):
    doc = json.load(open(path))
    rows = doc["results"] if isinstance(doc, dict) else doc
    name = doc.get("device", {}).get("name", "?") if isinstance(doc, dict) else "?"
    return name, {(tuple(r["extents"]), tuple(r["perm"]), r["dtype"]): r for r in rows if r.get("variant", "auto") == "auto"}


def kernels(path):
    out = {}
    for line in open(path):
        m = re.match(r"\[([\d,]+)\] perm ([\d,]+): (\S+) on gpu", line)
        if not m:
            continue
        name = m[3]
        if name == "permute_box":
            name += " words" if "word gather" in line else " elements"
        out[(tuple(map(int, m[1].split(","))), tuple(map(int, m[2].split(","))))] = name
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--plan")
    args = ap.parse_args()
    name_a, a = load(args.a)
    name_b, b = load(args.b)
    label = kernels(args.plan) if args.plan else {}
    groups = {}
    for key, ra in a.items():
        rb = b.get(key)
        if rb is None:
            continue
        group = label.get(key[:2], key[2])
        groups.setdefault(group, []).append((ra, rb))
    both = [p for g in groups.values() for p in g]
    if not both:
        raise SystemExit("no case is in both files")
    copy = statistics.median(ra["copy_gbps"] / rb["copy_gbps"] for ra, rb in both)
    print(f"A: {name_a} ({args.a})\nB: {name_b} ({args.b})\n{len(both)} cases in both; copy A/B {copy:.2f}")
    print(f"{'kernel':<22} {'cases':>5} {'GB/s A/B':>8} {'A %copy':>8} {'B %copy':>8} {'A GB/s':>7}")
    for group, pairs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        med = lambda f: statistics.median(f(ra, rb) for ra, rb in pairs)
        print(f"{group:<22} {len(pairs):>5} {med(lambda x, y: x['gbps'] / y['gbps']):>8.2f} "
              f"{med(lambda x, y: x['pct_of_copy']):>8.1f} {med(lambda x, y: y['pct_of_copy']):>8.1f} "
              f"{med(lambda x, y: x['gbps']):>7.0f}")


if __name__ == "__main__":
    main()
