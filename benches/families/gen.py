#!/usr/bin/env python3
"""Benchmark inputs for the families of moves (slides, teleports), made
the same on every run: `gen.py ice|robots|portals > FILE`."""
import random
import sys


def grid(rng, h, w, cell):
    return [[cell(rng) for _ in range(w)] for _ in range(h)]


def place(rng, g, marks):
    cells = [(r, c) for r in range(len(g)) for c in range(len(g[0]))]
    for m, (r, c) in zip(marks, rng.sample(cells, len(marks))):
        g[r][c] = m


def show(g):
    return "\n".join("".join(row) for row in g)


def ice(rng):
    maps = []
    for _ in range(4):
        h = w = 1500
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.12 else ("_" if r.random() < 0.05 else "."))
        place(rng, g, "S")
        g[h - 1][w - 1] = "E"
        maps.append(f"{h} {w}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def robots(rng):
    maps = []
    for i in range(8):
        h = w = 12
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.1 else ".")
        place(rng, g, "RX12")
        maps.append(f"{h} {w} 2\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def portals(rng):
    maps = []
    for _ in range(4):
        h = w = 1200
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.3 else ("D" if r.random() < 0.02 else "."))
        place(rng, g, "SEk" + "aabbccddee")
        maps.append(f"{h} {w}\n{show(g)}")
    return "\n".join(maps) + "\n0 0\n"


if __name__ == "__main__":
    kind = sys.argv[1]
    sys.stdout.write({"ice": ice, "robots": robots, "portals": portals}[kind](random.Random(2026)))
