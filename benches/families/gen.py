#!/usr/bin/env python3
"""Benchmark inputs for the families of moves (slides, teleports, pushes,
pieces), made the same on every run:
`gen.py ice|escape|minotaur|daleks|bloxorz|log|snake|knights|horse|walkways|tilt|robots|robots4|portals|sokoban|klotski|blocks|stairs|lasers|pushing|burrow|fire|fifteen > FILE`.
`gen.py korf [N]`: the first N (10 unless given) of Korf's 100 15-puzzle
boards (`korf100.txt`) for `puzzles/fifteen.puz`. Also `gen.py robots5`:
five robots on six 14 x 14 boards, too many states for a bitset (A* by
default), not in `compare.sh`: its C++ BFS takes minutes and gigabytes."""
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


def escape(rng):
    """Four frozen lakes of 1500 x 1500 ringed by rocks with one gap, a
    ninth of the ice rocks, the skater in the middle."""
    maps = []
    for _ in range(4):
        h = w = 1500
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.11 else ("_" if r.random() < 0.04 else "."))
        for r in range(h):
            g[r][0] = g[r][w - 1] = "#"
        g[0] = ["#"] * w
        g[h - 1] = ["#"] * w
        g[0][rng.randrange(1, w - 1)] = "."
        g[h // 2][w // 2] = "S"
        maps.append(f"{h} {w}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def minotaur(rng):
    """Four mazes of 48 x 48, a fifth of their cells walls, Theseus in one
    corner, the Minotaur in the middle, the exit in the far corner."""
    maps = []
    for _ in range(4):
        n = 48
        g = grid(rng, n, n, lambda r: "#" if r.random() < 0.2 else ".")
        g[0][0] = "T"
        g[n // 2][n // 2] = "M"
        g[n - 1][n - 1] = "E"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def daleks(rng):
    """Four yards of 24 x 24, an eighth of their cells walls, the Doctor
    in one corner, the TARDIS in the far one, three Daleks anywhere."""
    maps = []
    for _ in range(4):
        n = 24
        g = grid(rng, n, n, lambda r: "#" if r.random() < 0.12 else ".")
        g[0][0] = "W"
        g[n - 1][n - 1] = "X"
        for r, c in rng.sample([(r, c) for r in range(4, n) for c in range(4, n - 1)], 3):
            g[r][c] = "D"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def bloxorz(rng):
    """Four boards of 700 x 700, a tenth of their cells void, one in a
    hundred a switch and two a bridge, the block standing in one corner,
    the hole in the far one."""
    maps = []
    for _ in range(4):
        n = 700
        g = grid(rng, n, n, lambda r: rng_tile(r, [("-", 0.1), ("o", 0.01), ("=", 0.02)]))
        g[0][0] = "B"
        g[n - 1][n - 1] = "O"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def log(rng):
    """One wood of 1,500 x 1,500 (Baekjoon 1938 reads one; it allows 50),
    a tenth of its cells trees, the log lying east-west in the north-west
    corner, the ends lying north-south in the far one."""
    n = 1500
    g = grid(rng, n, n, lambda r: "1" if r.random() < 0.1 else "0")
    g[1][1:4] = list("BBB")
    for r in range(n - 4, n - 1):
        g[r][n - 2] = "E"
    return f"{n}\n{show(g)}\n"


def snake(rng):
    """Four gardens of 24 x 24, a sixth of their cells walls, a snake of
    six cells along the top row from the west, the apple in the far
    corner."""
    maps = []
    for _ in range(4):
        n = 24
        g = grid(rng, n, n, lambda r: "#" if r.random() < 0.16 else ".")
        g[0][:7] = list("ooooooH")
        g[1][:7] = list(".......")
        g[n - 1][n - 1] = "A"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def rng_tile(r, shares):
    """A symbol of `shares` (symbol, share) by its share, else floor."""
    x = r.random()
    for sym, share in shares:
        if x < share:
            return sym
        x -= share
    return "."


def corners(rng, size, wall, share, start, goal):
    """Four boards of `size` x `size`, a `share` of their cells `wall`, the
    mover's `start` in one corner and its `goal` in the other."""
    maps = []
    for _ in range(4):
        g = grid(rng, size, size, lambda r: wall if r.random() < share else ".")
        g[0][0] = start
        g[size - 1][size - 1] = goal
        maps.append(f"{size} {size}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def knights(rng):
    """Boards of 1500 x 1500, a fifth of their squares pits."""
    return corners(rng, 1500, "#", 0.2, "N", "C")


def horse(rng):
    """Boards of 1000 x 1000, a tenth of their points stones."""
    return corners(rng, 1000, "x", 0.1, "H", "S")


def stairs(rng):
    """Four floors of 1500 x 1500: a tenth walls, a tenth staircases of
    either kind, the wizard in one corner and the tower in the other."""
    maps = []
    for _ in range(4):
        n = 1500
        g = grid(rng, n, n, lambda r: rng_tile(r, [("*", 0.1), ("|", 0.05), ("-", 0.05)]))
        g[0][0] = "S"
        g[n - 1][n - 1] = "T"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def lasers(rng):
    """Four vaults of 1000 x 1000: a tenth walls, one cell in 25 a turret
    facing any way, the thief in one corner and the door in the other."""
    maps = []
    for _ in range(4):
        n = 1000
        g = grid(rng, n, n, lambda r: rng_tile(r, [("#", 0.1), ("^", 0.01), (">", 0.01), ("v", 0.01), ("<", 0.01)]))
        g[0][0] = "T"
        g[n - 1][n - 1] = "D"
        maps.append(f"{n} {n}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def walkways(rng):
    """Four halls of 1000 x 1000: a tenth desks, walkways in runs of up to
    twenty cells (a fifth of the cells), a few doors, the traveller in one
    corner, the pass in the middle and the gate in the far corner."""
    maps = []
    for _ in range(4):
        h = w = 1000
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.1 else ("D" if r.random() < 0.02 else "."))
        for _ in range(h * w // 100):
            r, c, d = rng.randrange(h), rng.randrange(w), rng.randrange(4)
            dr, dc = [(-1, 0), (0, 1), (1, 0), (0, -1)][d]
            for _ in range(rng.randint(3, 20)):
                if 0 <= r < h and 0 <= c < w:
                    g[r][c] = "^>v<"[d]
                r, c = r + dr, c + dc
        g[0][0] = "T"
        g[h // 2][w // 2] = "P"
        g[h - 1][w - 1] = "G"
        maps.append(f"{h} {w}\n{show(g)}")
    return "\n".join(maps) + "\n0 0\n"


def tilt(rng):
    """Four boxes of 50 x 50, a sixth of their cells walls, two marbles
    and their holes put down at random."""
    maps = []
    for _ in range(4):
        h = w = 50
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.16 else ".")
        place(rng, g, "12AB")
        maps.append(f"{h} {w} 2\n{show(g)}")
    return "\n".join(maps) + "\n0 0 0\n"


def robots(rng, size=12, helpers="12"):
    """Eight boards of `size` x `size`, a tenth of their cells walls, with
    the red robot, its mark and the helpers put down at random."""
    maps = []
    for i in range(8):
        h = w = size
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.1 else ".")
        place(rng, g, "RX" + helpers)
        maps.append(f"{h} {w} {len(helpers)}\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def robots4(rng):
    """Four robots on 11 x 11 boards: a state of 28 bits, whose visited
    store starts as a hash set and takes a 32 MiB bitset only once the
    search has seen 2^21 states."""
    return robots(rng, 11, "123")


def robots5(_):
    rng = random.Random(11)
    maps = []
    for i in range(6):
        h = w = 14
        g = [["#" if rng.random() < 0.1 else "." for _ in range(w)] for _ in range(h)]
        cells = [(r, c) for r in range(h) for c in range(w) if g[r][c] == "."]
        rng.shuffle(cells)
        for (r, c), m in zip(cells, "RX1234"):
            g[r][c] = m
        maps.append(f"{h} {w} 4\n{show(g)}")
    return f"{len(maps)}\n" + "\n".join(maps) + "\n"


def portals(rng):
    maps = []
    for _ in range(4):
        h = w = 1200
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.3 else ("D" if r.random() < 0.02 else "."))
        place(rng, g, "SEk" + "aabbccddee")
        maps.append(f"{h} {w}\n{show(g)}")
    return "\n".join(maps) + "\n0 0\n"


def sokoban(rng):
    """Warehouses walled round, a few walls inside, as many spots as boxes,
    no box where no push could bring it to a spot; some solvable, some not
    (those exhaust their states)."""
    maps = []
    for boxes in [3, 3, 3, 4, 4, 4]:
        h = w = 10
        while True:
            g = grid(rng, h, w, lambda r: "#" if r.random() < 0.12 else " ")
            for r in range(h):
                for c in range(w):
                    if r in (0, h - 1) or c in (0, w - 1):
                        g[r][c] = "#"
            free = [(r, c) for r in range(h) for c in range(w) if g[r][c] == " "]
            cells = rng.sample(free, 1 + 2 * boxes)
            spots = cells[1 + boxes:]
            if all(c in live_cells(g, spots) for c in cells[1:1 + boxes]):
                break
        for m, (r, c) in zip("@" + "$" * boxes + "." * boxes, cells):
            g[r][c] = m
        maps.append(f"{h} {w}\n{show(g)}")
    return "\n".join(maps) + "\n0 0\n"


def klotski(rng):
    """Boxes of 4 x 5 with Klotski's ten pieces (the large square `B`, four
    tall, one wide, four small) put down at random, two cells left empty."""
    boards = []
    shapes = [(2, 2)] + [(2, 1)] * 4 + [(1, 2)] + [(1, 1)] * 4
    while len(boards) < 40:
        g = put_pieces(rng, 5, 4, shapes)
        if g and g[3][1] != "B":
            boards.append(show(g))
    return f"{len(boards)}\n" + "\n".join(boards) + "\n"


def put_pieces(rng, h, w, shapes):
    """A box of `h` x `w` with a piece of each shape, lettered `B`, `A`,
    `C`, ... in order, each put down at random where it fits; None when
    one does not fit."""
    g = [["."] * w for _ in range(h)]
    for letter, (ph, pw) in zip("BACDEFGHIJKLMNOPQ", shapes):
        spots = [(r, c) for r in range(h + 1 - ph) for c in range(w + 1 - pw)
                 if all(g[r + y][c + x] == "." for y in range(ph) for x in range(pw))]
        if not spots:
            return None
        r, c = rng.choice(spots)
        for y in range(ph):
            for x in range(pw):
                g[r + y][c + x] = letter
    return g


def blocks(rng):
    """Sliding blocks on a larger box (`puzzles/blocks.puz`): four boxes of
    6 x 4, the large square `B`, four tall pieces, two wide and six small,
    two cells left empty, `B` to row 4, column 1. Hundreds of thousands to
    millions of states each: a search that outweighs the process's floor."""
    boards = []
    h, w = 6, 4
    shapes = [(2, 2)] + [(2, 1)] * 4 + [(1, 2)] * 2 + [(1, 1)] * 6
    while len(boards) < 4:
        g = put_pieces(rng, h, w, shapes)
        if g and g[4][1] != "B":
            boards.append(f"{h} {w} 4 1\n{show(g)}")
    return f"{len(boards)}\n" + "\n".join(boards) + "\n"


def pushing(rng):
    """Twenty-four mazes of 40 x 40 for one box (POJ 1475 at twice its size), a
    sixth of the cells rock, the keeper, the box and the target at random;
    most solvable, some not (those exhaust their states)."""
    maps = []
    for _ in range(24):
        h = w = 40
        g = grid(rng, h, w, lambda r: "#" if r.random() < 0.16 else ".")
        place(rng, g, "SBT")
        maps.append(f"{h} {w}\n{show(g)}")
    return "\n".join(maps) + "\n0 0\n"


def burrow(rng):
    """Sixteen burrows of 20 x 20 (POJ 1324 at its largest), a body of
    eight squares laid by a random walk, a fifth of the other squares
    stone; the input gives squares by coordinates, from 1."""
    cases = []
    while len(cases) < 16:
        n = 20
        body = [(rng.randrange(n), rng.randrange(n))]
        while len(body) < 8:
            r, c = body[-1]
            nxt = [(r + dr, c + dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                   if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in body]
            if not nxt:
                break
            body.append(rng.choice(nxt))
        if len(body) < 8:
            continue
        stones = [(r, c) for r in range(n) for c in range(n)
                  if (r, c) not in body and (r, c) != (0, 0) and rng.random() < 0.2]
        lines = [f"{n} {n} {len(body)}"] + [f"{r + 1} {c + 1}" for r, c in body]
        lines += [str(len(stones))] + [f"{r + 1} {c + 1}" for r, c in stones]
        cases.append("\n".join(lines))
    return "\n".join(cases) + "\n0 0 0\n"


def fifteen(rng):
    """Twelve 4 x 4 sliding boards, each a random walk of 80 blank moves
    (never straight back) from the solved board: every one solvable."""
    boards = []
    for _ in range(12):
        b = list(range(1, 16)) + [0]
        z, back = 15, None
        for _ in range(80):
            r, c = divmod(z, 4)
            moves = [(dr, dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                     if 0 <= r + dr < 4 and 0 <= c + dc < 4 and (dr, dc) != back]
            dr, dc = rng.choice(moves)
            t = (r + dr) * 4 + c + dc
            b[z], b[t] = b[t], b[z]
            z, back = t, (-dr, -dc)
        boards.append(" ".join(map(str, b)))
    return f"{len(boards)}\n" + "\n".join(boards) + "\n"


def korf(_rng):
    """The first N of Korf's 100 boards, turned half a turn and numbered
    16 - k (0 stays the blank), which makes Korf's solved board (blank
    first) `fifteen.puz`'s (blank last) and keeps every board's fewest
    moves."""
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    with open(f"{here}/korf100.txt") as f:
        rows = [list(map(int, l.split())) for l in f if l.strip() and not l.startswith("#")]
    boards = []
    for b in rows[:n]:
        m = [0] * 16
        for i, t in enumerate(b):
            m[15 - i] = 0 if t == 0 else 16 - t
        boards.append(" ".join(map(str, m)))
    return f"{len(boards)}\n" + "\n".join(boards) + "\n"


def fire(rng, mazes=None, size=None):
    """Mazes of Fire! (UVa 11624): SIZE x SIZE, a quarter of the cells
    wall, Joe in the middle, a few fires; every other maze walled in but
    for one gap, so that the fire closes in before he is out."""
    cases = []
    for k in range(mazes or FIRE_MAZES):
        n = size or FIRE_SIZE
        g = grid(rng, n, n, lambda r: "#" if r.random() < 0.25 else ".")
        if k % 2:
            for i in range(n):
                g[0][i] = g[n - 1][i] = g[i][0] = g[i][n - 1] = "#"
            g[0][rng.randrange(1, n - 1)] = "."
        g[n // 2][n // 2] = "J"
        for _ in range(3):
            g[rng.randrange(n)][rng.randrange(n)] = "F"
        g[n // 2][n // 2] = "J"
        cases.append(f"{n} {n}\n{show(g)}")
    return f"{len(cases)}\n" + "\n".join(cases) + "\n"


FIRE_MAZES, FIRE_SIZE = 8, 200


def fire_large(rng):
    """Two mazes of Fire! at the problem's largest, 1000 x 1000."""
    return fire(rng, 2, 1000)


def live_cells(g, spots):
    """Cells from which pushes can bring a box to a spot, walls aside."""
    live, todo = set(spots), list(spots)
    while todo:
        r, c = todo.pop()
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            y, z = (r - dr, c - dc), (r - 2 * dr, c - 2 * dc)
            if all(0 <= a < len(g) and 0 <= b < len(g[0]) and g[a][b] != "#" for a, b in (y, z)):
                if y not in live:
                    live.add(y)
                    todo.append(y)
    return live


if __name__ == "__main__":
    kind = sys.argv[1]
    sys.stdout.write({"ice": ice, "escape": escape, "minotaur": minotaur, "daleks": daleks, "bloxorz": bloxorz, "log": log, "snake": snake, "knights": knights, "horse": horse, "walkways": walkways, "tilt": tilt, "robots": robots, "robots4": robots4, "robots5": robots5, "portals": portals, "sokoban": sokoban, "klotski": klotski, "blocks": blocks, "stairs": stairs, "lasers": lasers, "pushing": pushing, "burrow": burrow, "fire": fire, "fire_large": fire_large, "fifteen": fifteen, "korf": korf}[kind](random.Random(2026)))
