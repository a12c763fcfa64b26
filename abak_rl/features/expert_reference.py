"""Plain per-position reference for the `expert` concept units (features/expert.py).

Written from the definitions in expert.py's docstring with Python lists and loops only: no
bitmasks, no tables, no batching. The tests compare the batched encoder with it on thousands
of random-game positions; it is far too slow for training.
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb


def _rolls():
    for a in range(1, 7):
        for b in range(a, 7):
            yield a, b, (1 if a == b else 2)


def _shots(y_pts: list[int], y_bar: int, x_blots: set[int], x_made: set[int]) -> tuple[int, int]:
    """(rolls hitting >= 1, rolls hitting >= 2) for side Y on roll; Y moves from high to low;
    y_pts[p] = Y's checkers on Y-point p (1..24); X's blots and made points in Y's numbering."""
    one = two = 0
    for a, b, w in _rolls():
        hit_any, hit_two = _roll_hits(a, b, y_pts, y_bar, x_blots, x_made)
        one += w * hit_any
        two += w * hit_two
    return one, two


def _roll_hits(a, b, y_pts, y_bar, blots, x_made):
    """(hits >= 1 blot, hits >= 2) with the roll a-b."""
    sources = {p for p in range(1, 25) if y_pts[p] > 0}

    def land_open(p: int) -> bool:
        return 1 <= p <= 24 and p not in x_made
    if a != b:
        return _nondouble(a, b, sources, y_bar, blots, land_open)
    return _double(a, sources, y_bar, blots, land_open)


def _side_view(row):
    """One side's view of a row (its own numbering) as plain lists: (row as ints, own[p],
    opp[p] for p = 1..24, the opponent Y's counts in Y's numbering, own blots and own made
    points in Y's numbering)."""
    row = [int(v) for v in row]
    own = [0] * 25
    opp = [0] * 25
    for p in range(1, 25):
        own[p] = max(row[p - 1], 0)
        opp[p] = max(-row[p - 1], 0)
    y_pts = [0] * 25                      # Y's view: X-point p is Y-point 25 - p
    for p in range(1, 25):
        y_pts[25 - p] = opp[p]
    blots = {25 - p for p in range(1, 25) if own[p] == 1}
    made = {25 - p for p in range(1, 25) if own[p] >= 2}
    return row, own, opp, y_pts, blots, made


def _nondouble(a, b, sources, y_bar, blots, land_open):
    if y_bar == 0:
        h_a = {s - a for s in sources if s - a in blots}
        h_b = {s - b for s in sources if s - b in blots}
        chain = set()
        for s in sources:
            for f, g in ((a, b), (b, a)):
                if land_open(s - f) and s - f - g in blots:
                    chain.add(s - f - g)
        hit_any = bool(h_a or h_b or chain)
        pair = any(x != y for x in h_a for y in h_b)
        cont = any(x - b in blots for x in h_a) or any(x - a in blots for x in h_b)
        return hit_any, pair or cont
    hits_any, hits_two = False, False
    entries = {}
    for die in (a, b):
        e = 25 - die
        entries[die] = land_open(e)
    if y_bar == 1:
        for f, g in ((a, b), (b, a)):
            if not entries[f]:
                continue
            e = 25 - f
            first = e in blots
            then = {s - g for s in sources | {e} if s - g in blots}
            hits_any |= first or bool(then)
            hits_two |= first and bool(then - {e})
        return hits_any, hits_two
    ha = entries[a] and (25 - a) in blots
    hb = entries[b] and (25 - b) in blots
    return ha or hb, ha and hb


def _double(d, sources, y_bar, blots, land_open):
    e = 25 - d
    if y_bar > 0:
        if not land_open(e):
            return False, False
        steps = 4 - min(y_bar, 4)
        starts = sources | {e}
        found = {e} if e in blots else set()
    else:
        steps, starts, found = 4, sources, set()
    exact = {k: set() for k in range(1, 5)}      # blots hit in exactly k steps
    for s in starts:
        p = s
        for k in range(1, steps + 1):
            p -= d
            if not 1 <= p <= 24:
                break
            if p in blots:
                exact[k].add(p)
            if not land_open(p):
                break
    within = lambda k: set().union(*(exact[m] for m in range(1, k + 1)))  # noqa: E731
    every = found | within(4)
    if y_bar > 0:
        return bool(every), len(every) >= 2
    pair = (any(x != y for x in exact[1] for y in within(3))
            or any(x != y for x in exact[2] for y in within(2)))
    return bool(every), pair


def _escapes(point: int, y_made: set[int]) -> int:
    blocked = {point - q for q in y_made if 1 <= point - q <= 12}
    if not blocked:
        return 36
    far = max(blocked)
    count = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                d, ok = 0, False
                for _ in range(4):
                    d += a
                    if d in blocked:
                        break
                    if d > far:
                        ok = True
                        break
                count += ok
            else:
                ok = False
                for f, g in ((a, b), (b, a)):
                    if f > far and f not in blocked:
                        ok = True
                    if f not in blocked and f + g > far and f + g not in blocked:
                        ok = True
                count += ok
    return count


def side_units(row) -> list[float]:
    """The 21 units of the side to move in `row` (its own view), race and lead left 0."""
    row, own, opp, y_pts, blots, made = _side_view(row)
    bar, off, opp_bar = row[cb.BAR], row[cb.OFF], row[cb.OPP_BAR]
    u = [0.0] * 21
    u[0] = (sum(p * own[p] for p in range(1, 25)) + 25 * bar) / 167
    s1, s2 = _shots(y_pts, opp_bar, blots, made)
    u[1], u[2] = s1 / 36, s2 / 36
    u[3] = sum(1 for p in range(1, 25) if own[p] == 1) / 15
    rear = 25 if bar else max([p for p in range(1, 25) if own[p]], default=0)
    u[4] = rear / 25
    u[5] = (sum(own[19:25]) + bar) / 15
    y_made = {p for p in range(1, 25) if opp[p] >= 2}
    u[6] = (_escapes(rear, y_made) if rear else 0) / 36
    u[7] = min(_escapes(p, y_made) for p in range(15, 25)) / 36
    longest = run = 0
    for p in range(1, 25):
        run = run + 1 if own[p] >= 2 else 0
        longest = max(longest, run)
    u[8] = longest / 6
    u[9] = sum(1 for p in range(1, 7) if own[p] >= 2) / 6
    anchors = [p for p in range(19, 25) if own[p] >= 2]
    u[10] = len(anchors) / 6
    u[11] = (25 - min(anchors)) / 6 if anchors else 0.0
    u[12] = (sum(own[7:25]) + bar) / 15
    u[13] = (sum(own[p] * ((p - 1) // 6) for p in range(1, 25)) + 4 * bar) / 60
    u[14] = (sum(own[p] * (p - 6) for p in range(7, 25)) + 19 * bar) / 100
    closed = sum(1 for p in range(19, 25) if opp[p] >= 2)
    u[15] = closed / 6
    u[16] = (closed / 6) ** 2
    u[17] = min(bar, 3) / 3
    u[18] = off / 15
    return u


def _pip_loss(y_pts, y_bar, x_blots, x_made) -> int:
    """Sum over the 36 rolls of the highest Y-numbered point among the X blots that roll hits
    (X's loss), with _shots' rules: recomputed per roll from the single-blot question."""
    total = 0
    for a, b, w in _rolls():
        best = 0
        for q in sorted(x_blots, reverse=True):
            one, _ = _roll_hits(a, b, y_pts, y_bar, {q}, x_made)
            if one:
                best = q
                break
        total += w * best
    return total


def extra_units(row) -> list[float]:
    """expert2's 4 units of the side to move in `row` (its own view)."""
    row, own, opp, y_pts, blots, made = _side_view(row)
    bar, opp_bar = row[cb.BAR], row[cb.OPP_BAR]
    loss = _pip_loss(y_pts, opp_bar, blots, made)
    if opp_bar:
        t = 0
    else:
        t = min([p for p in range(1, 25) if opp[p]], default=26)
    brk = sum((p - t + 1) * own[p] for p in range(1, 25) if p >= t) + (bar * (26 - t) if t <= 25 else 0)
    free = sum(p * own[p] for p in range(1, 25) if p < t)
    sources = [25] if bar else [p for p in range(1, 25) if own[p]]
    mob = sum(1 for d in range(1, 7) for s in sources if 1 <= s - d <= 24 and opp[s - d] < 2)
    return [loss / 864, brk / 167, free / 167, mob / 90]


def race(row) -> bool:
    row = [int(v) for v in row]
    mine = 25 if row[cb.BAR] else max([p for p in range(1, 25) if row[p - 1] > 0], default=0)
    theirs = 0 if row[cb.OPP_BAR] else min([p for p in range(1, 25) if row[p - 1] < 0], default=25)
    return mine < theirs


def concept_units(row) -> list[float]:
    """Units 198..239 of the `expert` encoding for one afterstate row."""
    mine = side_units(row)
    theirs = side_units(cb.flip(np.asarray(row)[None])[0])
    r = float(race(row))
    mine[19] = theirs[19] = r
    lead = max(-1.0, min(1.0, (theirs[0] - mine[0]) * 167 / 50))
    mine[20], theirs[20] = lead, -lead
    return mine + theirs


def expert2_units(row) -> list[float]:
    """Units 198..247 of the `expert2` encoding for one afterstate row."""
    return concept_units(row) + extra_units(row) + extra_units(cb.flip(np.asarray(row)[None])[0])
