"""abak_expert written plainly, one position at a time (the check on abak_expert.py).

Every unit follows the definitions in abak_expert.py's docstring, computed directly from the
board row with loops over points and dice, sharing no code with the batched encoder except the
unit tables of abak_stack (whose own reference test covers them). Slow; for tests only.
"""

from __future__ import annotations

import numpy as np

from ..engine.abak import board as ab
from .abak import _UNITS as STACK_UNITS
from .abak_expert import N_COL_UNITS, N_SPECIAL_UNITS, SIZE, SPECIAL0, DENSE0

LAND_LIMIT = ab.HEIGHT


def _column(row, p):
    return [int(v) for v in row[p * ab.HEIGHT:(p + 1) * ab.HEIGHT] if v != 0]


def _top_run(col):
    if not col:
        return 0, 0
    side = 1 if col[-1] > 0 else -1
    run = 0
    for v in reversed(col):
        if (v > 0) != (side > 0):
            break
        run += 1
    return side, run


def _column_units(col, p):
    u = np.zeros(N_COL_UNITS, dtype=np.float32)
    pattern = sum((1 if v > 0 else 2) * 3 ** h for h, v in enumerate(col))
    top_class = abs(col[-1]) if col else 0
    u[:35] = STACK_UNITS[pattern * 7 + top_class]
    side, run = _top_run(col)
    for base, who in ((35, 1), (38, -1)):
        if col and side == who:
            u[base] = run >= 2 or top_class == ab.GUARD
            u[base + 1] = run == 1 and top_class != ab.GUARD
            u[base + 2] = run == 1 and top_class == ab.GUARD
    u[41] = len(col) == ab.HEIGHT - 1
    if 6 <= p < 18 and col and run == 1:
        u[42] = side == -1
        u[43] = side == 1
    mine_trapped = sum(1 for h, v in enumerate(col) if v > 0 and any(w < 0 for w in col[h + 1:]))
    theirs_trapped = sum(1 for h, v in enumerate(col) if v < 0 and any(w > 0 for w in col[h + 1:]))
    if col:
        if side == -1:
            u[44 if run == 1 else 45] = mine_trapped / 2.0
        else:
            u[46 if run == 1 else 47] = theirs_trapped / 2.0
    if len(col) >= 2 and top_class == ab.DRUID and (col[-2] > 0) != (col[-1] > 0):
        u[48 if side == 1 else 49] = 1
    return u


def _special_units(place, height=0, trapped=False, top=False):
    u = np.zeros(N_SPECIAL_UNITS, dtype=np.float32)
    u[place] = 1
    u[26], u[27], u[28] = height / 4.0, trapped, top
    return u


class _View:
    """The board from one side X: X's columns indexed in X's own point order (X moves towards
    index 0), values > 0 for X's checkers."""

    def __init__(self, row, mirror: bool):
        cols = [_column(row, p) for p in range(24)]
        if mirror:
            cols = [[-v for v in c] for c in reversed(cols)]
        self.cols = cols
        self.bar = row[ab.OPP_BAR:ab.OPP_BAR + 6] if mirror else row[ab.BAR:ab.BAR + 6]
        self.bar = [int(v) for v in self.bar]

    def top(self, p):
        c = self.cols[p]
        return (c[-1] if c else 0), _top_run(c)[1]

    def holds(self, p, who):      # who = +1: X holds p; -1: the other side holds it
        v, run = self.top(p)
        return v * who > 0 and (run >= 2 or abs(v) == ab.GUARD)

    def lone_guard(self, p, who):
        v, run = self.top(p)
        return v * who > 0 and run == 1 and abs(v) == ab.GUARD

    def blot(self, p, who):
        v, run = self.top(p)
        return v * who > 0 and run == 1 and abs(v) != ab.GUARD

    def may_land(self, p, who=1):
        """A non-Guard checker of side `who` may land on p."""
        return (len(self.cols[p]) < LAND_LIMIT and not self.holds(p, -who)
                and not self.lone_guard(p, -who))

    def count(self, p):
        return sum(1 for v in self.cols[p] if v > 0)


def _side_units(view: _View) -> list[float]:
    n_out = sum(view.count(p) for p in range(6, 24)) + sum(view.bar)
    all_home = n_out == 0
    best = cur = 0
    for p in range(24):
        cur = cur + 1 if view.holds(p, 1) else 0
        best = max(best, cur)
    gen = [p for p in range(24) if view.top(p)[0] == ab.GENERAL]
    may_back = False
    reach = 0
    if gen:
        g = gen[0]
        others = n_out - (1 if g >= 6 else 0)
        may_back = others > 0
        if may_back:
            reach = sum(1 for d in range(1, 7) if g + d < 24 and view.may_land(g + d))
    wounded = []
    highest = max((p for p in range(24) if view.count(p) > 0), default=-1)
    for cls, dice in ((ab.ODD, (1, 3, 5)), (ab.EVEN, (2, 4, 6))):
        where = [p for p in range(24) if view.top(p)[0] == cls]
        k = 0
        if where:
            w = where[0]
            for d in dice:
                if w - d >= 0:
                    k += view.may_land(w - d)
                elif all_home and (d == w + 1 or (d > w + 1 and w == highest)):
                    k += 1
        wounded.append(k / 3.0)
    return [float(all_home), best / 6.0, float(may_back), reach / 6.0 if may_back else 0.0, *wounded]


def _o_shots(row) -> tuple[float, float]:
    """O's hit and trap rolls, in P's point order (O moves towards higher p)."""
    cols = [_column(row, p) for p in range(24)]
    o_bar = int(row[ab.OPP_BAR:ab.OPP_BAR + 6].sum())

    def top(p):
        c = cols[p]
        return (c[-1] if c else 0), _top_run(c)[1]

    def p_blot(p):
        v, run = top(p)
        return v > 0 and run == 1 and v != ab.GUARD

    def p_lone_guard(p):
        v, run = top(p)
        return v == ab.GUARD and run == 1

    def o_may_land(p):
        v, run = top(p)
        p_holds = v > 0 and (run >= 2 or v == ab.GUARD)
        return len(cols[p]) < LAND_LIMIT and not p_holds and not p_lone_guard(p)

    def o_class(p):
        v, _ = top(p)
        return -v if v < 0 else 0

    def uses(cls, d):
        if cls == ab.ODD:
            return d % 2 == 1
        if cls == ab.EVEN:
            return d % 2 == 0
        return cls != 0

    def home(p):
        return p < 6 or p >= 18

    def lands_hit(cls, q):
        """Moving O checker of class cls arriving at q: 'hit', 'trap' or None."""
        if not 0 <= q < 24:
            return None
        if cls == ab.DRUID:
            if p_blot(q) or p_lone_guard(q):
                if home(q):
                    return "hit" if p_blot(q) else None
                return "trap"
            return None
        if p_blot(q):
            return "hit"
        if cls == ab.GUARD and p_lone_guard(q):
            return "hit"
        return None

    def passable(q):
        return 0 <= q < 24 and o_may_land(q) and not p_blot(q)

    hits = traps = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if o_bar:
                hits += p_blot(a - 1) or p_blot(b - 1)
                continue
            h = t = False
            for s in range(24):
                cls = o_class(s)
                if not cls:
                    continue
                for d in {a, b}:                       # one die
                    if uses(cls, d):
                        r = lands_hit(cls, s + d)
                        h |= r == "hit"
                        t |= r == "trap"
                if a != b:                             # one checker, both dice
                    for d1, d2 in ((a, b), (b, a)):
                        if uses(cls, d1) and uses(cls, d2) and passable(s + d1):
                            r = lands_hit(cls, s + d1 + d2)
                            h |= r == "hit"
                            t |= r == "trap"
                else:                                  # a double: 2..4 steps
                    if uses(cls, a):
                        q = s
                        for _ in range(3):
                            q += a
                            if not passable(q):
                                break
                            r = lands_hit(cls, q + a)
                            h |= r == "hit"
                            t |= r == "trap"
            if a != b:                                 # a Jane on a lone P Guard
                for g in range(24):
                    if not p_lone_guard(g):
                        continue
                    first = [s for s in range(24) if s + a == g and o_class(s) not in (0, ab.DRUID, ab.GUARD)
                             and uses(o_class(s), a)]
                    second = [s for s in range(24) if s + b == g and o_class(s) not in (0, ab.DRUID, ab.GUARD)
                              and uses(o_class(s), b)]
                    h |= bool(first and second)
            hits += h
            traps += t
    return hits / 36.0, (0.0 if o_bar else traps / 36.0)


def encode_one(row) -> np.ndarray:
    """The dense abak_expert encoding of one Abak row (int8 [134])."""
    row = np.asarray(row)
    x = np.zeros(SIZE, dtype=np.float32)
    cols = [_column(row, p) for p in range(24)]
    for p in range(24):
        x[p * N_COL_UNITS:(p + 1) * N_COL_UNITS] = _column_units(cols[p], p)
    # special checkers: slot per (side, class); Guards by place, lower first
    found: dict[tuple[int, int], list] = {}
    for p, col in enumerate(cols):
        for h, v in enumerate(col):
            if abs(v) < 2:
                continue
            side = 0 if v > 0 else 1
            trapped = any((w > 0) != (v > 0) for w in col[h + 1:])
            found.setdefault((side, abs(v)), []).append((p, h, trapped, h == len(col) - 1))
    for side, bar0 in ((0, ab.BAR), (1, ab.OPP_BAR)):
        places = {}
        for cls in (ab.GENERAL, ab.DRUID, ab.ODD, ab.EVEN, ab.GUARD):
            entries = sorted(found.get((side, cls), []))
            entries += [(24, 0, False, False)] * int(row[bar0 + cls - 1])
            total = 2 if cls == ab.GUARD else 1
            entries += [(25, 0, False, False)] * (total - len(entries))
            places[cls] = entries
        slots = [places[ab.GENERAL][0], places[ab.DRUID][0], places[ab.ODD][0], places[ab.EVEN][0],
                 *places[ab.GUARD]]
        for k, (place, h, trapped, top) in enumerate(slots):
            base = SPECIAL0 + (6 * side + k) * N_SPECIAL_UNITS
            x[base:base + N_SPECIAL_UNITS] = _special_units(place, h, trapped, top)
    d = x[DENSE0:]
    d[0:6] = _side_units(_View(row, mirror=False))
    d[6:12] = _side_units(_View(row, mirror=True))
    d[12], d[13] = _o_shots(row)
    d[14] = row[ab.BAR + ab.SOLDIER - 1] / 2.0
    d[15] = row[ab.OPP_BAR + ab.SOLDIER - 1] / 2.0
    d[16] = row[ab.OFF] / 15.0
    d[17] = row[ab.OPP_OFF] / 15.0
    p_pts = [p for p in range(24) if any(v > 0 for v in cols[p])]
    o_pts = [p for p in range(24) if any(v < 0 for v in cols[p])]
    bars = int(row[ab.BAR:ab.BAR + 6].sum() + row[ab.OPP_BAR:ab.OPP_BAR + 6].sum())
    d[18] = float(max(p_pts, default=-1) < min(o_pts, default=24) and bars == 0)
    return x


def encode(boards) -> np.ndarray:
    return np.stack([encode_one(r) for r in np.asarray(boards)])
