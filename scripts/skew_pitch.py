#!/usr/bin/env python3
"""Shared-memory wavefronts of skew_tile's two phases for each row pitch: how its kPitch was chosen.

skew_tile (src/gpu/kernels/skew_tile.cuh) stores each input row at a column that depends on the
row's alignment, and gathers output vectors whose first row depends on the output row's alignment,
so no pitch is conflict-free for every leading dimension. This script replays one warp's accesses
of both phases for every leading dimension mod V (input side) and mod U (output side), with both
pointers aligned, and counts wavefronts by the hardware rule of the bank model
(src/model/bank_model.cpp): per wavefront each of the 32 banks serves one 4-byte word; 8-byte
accesses are served per half warp and 16-byte ones per quarter warp. It prints the best pitches.

    scripts/skew_pitch.py ELEM_BYTES ROWS COLS [raw]      e.g. scripts/skew_pitch.py 4 32 32

ROWS x COLS is the tile (skew_tile_shape's kRows x kCols). The 1-byte case takes a few minutes.
With `raw`, the raw layout (skew_tile.cuh skew_load_raw, sixteenth session): rows stored as they
stand at pitch Pe = Pr + L (L = the input leading dimension mod V, Pr = COLS + V + V * steps); it
prints, for each L, the gather's wavefronts per instruction at steps 0-3 (averaged over output
leading dimensions and two row offsets): tile_shapes.hpp's kRawSteps.
"""
import sys


def wavefronts(byte_addrs, width):
    groups = {16: 4, 8: 2}.get(width, 1)
    per = 32 // groups
    total = 0
    for g in range(groups):
        words_in_bank = {}
        for a in byte_addrs[g * per:(g + 1) * per]:
            for w in range(a // 4, (a + width - 1) // 4 + 1):
                words_in_bank.setdefault(w % 32, set()).add(w)
        total += max((len(s) for s in words_in_bank.values()), default=0)
    return total


def raw_gather(s, cols, pitch, ld_out, offset):
    """Average wavefronts per gather instruction from a layout of row pitch `pitch` elements whose
    column 0 sits `offset` elements into its row."""
    v, u = 16 // s, 32 // s
    counts = []
    for m0 in range(u):
        for c_base in range(0, min(cols, 16), 4):
            for i in range(v):
                addrs = []
                for lane in range(32):
                    k, c = lane % 8, c_base + lane // 8
                    m_c = (m0 + c * ld_out) % u
                    addrs.append(((u - 1 - m_c + k * v + i) * pitch + c + offset) * s)
                counts.append(wavefronts(addrs, s))
    return sum(counts) / len(counts)


def raw_table(s, cols):
    v, u = 16 // s, 32 // s
    print(f"{s}-byte elements, raw layout, {cols} columns: gather wavefronts per instruction by L and steps")
    for L in range(v):
        per = []
        for steps in range(4):
            pe = cols + v + v * steps + L
            g = [raw_gather(s, cols, pe, lo, a0) for lo in range(0, u, 3) for a0 in (0, 5 % v)]
            per.append(sum(g) / len(g))
        best = min(range(4), key=lambda k: (round(per[k], 2), k))
        print(f"  L {L:2d}: " + ", ".join(f"{x:.2f}" for x in per) + f"  (steps {best})")


def phases(s, rows, cols, pitch, ld_in, ld_out):
    """Average wavefronts per instruction of the gather and of the scatter."""
    v, u = 16 // s, 32 // s
    gather = []
    for m0 in range(u):  # alignment of the first output row of the warp
        for c_base in range(0, min(cols, 16), 4):
            for i in range(v):
                addrs = []
                for lane in range(32):
                    k, c = lane % 8, c_base + lane // 8  # 8 vectors of one row x 4 output rows
                    m_c = (m0 + c * ld_out) % u
                    addrs.append(((u - 1 - m_c + k * v + i) * pitch + c + v) * s)
                gather.append(wavefronts(addrs, s))
    scatter = []
    main_chunks = cols // v
    for a0 in range(v):  # alignment of the first input row of the warp
        for h_base in (0, 4):
            for e in range(v):  # 4 rows x 8 chunks
                addrs = []
                for lane in range(32):
                    h, ch = h_base + lane // 8, lane % 8
                    a = (a0 + h * ld_in) % v
                    addrs.append((h * pitch + v + ch * v - a + e) * s)
                scatter.append(wavefronts(addrs, s))
        for e in range(v):  # the last chunk of 32 rows
            addrs = []
            for h in range(32):
                a = (a0 + h * ld_in) % v
                addrs.append((h * pitch + v + main_chunks * v - a + e) * s)
            scatter.append(wavefronts(addrs, s))
    return sum(gather) / len(gather), sum(scatter) / len(scatter)


def main():
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "raw"):
        sys.exit(__doc__)
    s, rows, cols = map(int, sys.argv[1:4])
    if len(sys.argv) == 5:
        raw_table(s, cols)
        return
    v, u = 16 // s, 32 // s
    ideal = max(1, s // 4)
    results = []
    for pitch in range(cols + 2 * v, cols + 2 * v + 33):
        per_class = [phases(s, rows, cols, pitch, li, lo) for li in range(v) for lo in range(u)]
        g = sum(x for x, _ in per_class) / len(per_class)
        sc = sum(y for _, y in per_class) / len(per_class)
        worst = max(x + y for x, y in per_class)
        results.append((g + sc, pitch, g, sc, worst))
    results.sort()
    print(f"{s}-byte elements, tile {rows}x{cols}: wavefronts per instruction (ideal {ideal} each), "
          f"averaged over leading dimensions mod {v} (input) and mod {u} (output)")
    for total, pitch, g, sc, worst in results[:5]:
        print(f"  pitch {pitch:4d}: gather {g:.2f}, scatter {sc:.2f}, both {total:.2f} (worst class {worst:.2f})")


if __name__ == "__main__":
    main()
