#!/usr/bin/env python3
"""Which kernels two builds compile alike: the SASS of every kernel of binary (or cuobjdump -sass
dump) A against B, function by function, instruction for instruction (branch targets as printed:
they are offsets within the function, so equal code prints equal targets).

Why: a source change that should leave a kernel alone can still reschedule it, and a rescheduled
kernel can run 10 points of copy slower with the same registers and no spills (c128's one-block
boxes, seventy-ninth and eightieth sessions, docs/performance.md). Before a change is merged on the
strength of measurements of another build, this says whether the measured code is the code that
ships: the eightieth session found `Claims && tid == 0` rescheduling every claiming box kernel where
`tid == 0 && Claims` left all 585 kernels as they were.

  scripts/sass_same.py OLD NEW [--filter REGEX] [--rename REGEX REPL]
    OLD, NEW   binaries (xpose, test_gpu, a cubin) or their `cuobjdump -sass` text (*.sass)
    --filter   compare only kernels whose mangled name matches REGEX
    --rename   rewrite NEW's mangled names (re.sub) before matching, e.g. to drop a template
               argument the change added, true in the kernels to compare (with a filter, so that
               no other kernel's name is rewritten):
               --filter permute_box_kernel --rename 'Lb1EEEvPK' 'EEvPK'
Prints each kernel that differs or is in one build only, then a count; exit status 1 where a kernel
of both builds differs. cuobjdump and nvdisasm come from PATH, /usr/local/cuda/bin or
build-sass-tools (which scripts/sass.sh fills from PyPI).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCTION = re.compile(r"Function : (\S+)")
# An instruction line: /*0a30*/  IMAD R26, R35, R34, -R25 ;  /* 0x... */ (the encoding lines have no text)
INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+([^;]*?)\s*;")


def tool_path():
    dirs = [os.path.dirname(p) for p in sorted(glob.glob(os.path.join(ROOT, "build-sass-tools/nvidia/cu*/bin/nvdisasm")))]
    return os.pathsep.join(dirs + ["/usr/local/cuda/bin", os.environ.get("PATH", "")])


def sass_text(path):
    if path.endswith(".sass"):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    env = dict(os.environ, PATH=tool_path())
    cuobjdump = shutil.which("cuobjdump", path=env["PATH"])
    if not cuobjdump:
        sys.exit("sass_same: cuobjdump not found (PATH, /usr/local/cuda/bin, build-sass-tools: run scripts/sass.sh once)")
    run = subprocess.run([cuobjdump, "-sass", path], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"sass_same: cuobjdump -sass {path} failed: {run.stderr.strip()}")
    return run.stdout


def kernels(text, rename=None):
    """Mangled name -> list of instructions (whitespace folded)."""
    out, name = {}, None
    for line in text.splitlines():
        m = FUNCTION.search(line)
        if m:
            name = re.sub(rename[0], rename[1], m.group(1)) if rename else m.group(1)
            out.setdefault(name, [])
            continue
        m = INSTRUCTION.match(line)
        if name is not None and m and m.group(1):
            out[name].append(" ".join(m.group(1).split()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--filter", default="", help="compare only kernels whose mangled name matches this regex")
    ap.add_argument("--rename", nargs=2, metavar=("REGEX", "REPL"), help="rewrite NEW's names before matching")
    a = ap.parse_args()
    old, new = kernels(sass_text(a.old)), kernels(sass_text(a.new), a.rename)
    pick = re.compile(a.filter)
    same = differ = only_old = only_new = 0
    for name in sorted(set(old) | set(new)):
        if not pick.search(name):
            continue
        if name not in new:
            only_old += 1
            print(f"only in {a.old}: {name} ({len(old[name])} instructions)")
        elif name not in old:
            only_new += 1
            print(f"only in {a.new}: {name} ({len(new[name])} instructions)")
        elif old[name] == new[name]:
            same += 1
        else:
            differ += 1
            print(f"differs: {name} ({len(old[name])} -> {len(new[name])} instructions)")
    print(f"{same} kernels the same, {differ} differ, {only_old} only in {a.old}, {only_new} only in {a.new}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
