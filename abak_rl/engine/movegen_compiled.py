"""Legal afterstates of classic positions (standard, Nackgammon, Acey-deucey), compiled with Numba.

The NumPy generator (movegen.py) runs each layer of movements as a handful of array calls over
the whole batch; at the batch sizes search uses (tens of positions) those calls' fixed costs
dominate (0.5 ms a call at batch 64, where GNU Backgammon needs less). This module plays the
same rules one position at a time inside one compiled loop over the batch:

* a movement is legal when its source holds a mover's checker, the bar is empty or is the
  source, and the landing point holds at most one opposing checker (a blot, which is hit), or
  it bears off: every checker home, and the die is exact or no checker stands higher; the
  Acey-deucey pool enters where the bar does, with no precedence (or, with the enter-all
  option, before anything but the bar);
* a non-double a-b is played a-then-b, and b-then-a where its a-move was not legal at the
  start (else a-then-b has the play); a double with sources in non-increasing order (bar,
  pool, then points from 24 down: every play can be reordered so, and different such plays
  leave different boards);
* only the plays that use the most dice are kept, and of one-die plays of a non-double, those
  of the larger die when some play uses it; a non-double's equal boards are dropped (a 64-bit
  hash of the row's four words, rows compared in full when hashes meet). A position with no
  movement keeps itself.

The same set of afterstates as movegen's NumPy layers, per position (tests/test_movegen_compiled.py
compares the two); the order within a position may differ. movegen uses it wherever no play
notation is asked for (Acey-deucey's 1-2 calls it twice: the 1-2 plays, then the doubles);
with notation (`with_plays`) the NumPy layers run. AVAILABLE is False where Numba cannot be
imported.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit

from .board import BAR, OFF, OPP_BAR, POOL, WIDTH



_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27, 13, 23, 21,
                      19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)
HOME = 0x3F                              # bits 0..5: points 1..6
BAR_BIT = 1 << 24
POOL_BIT = 1 << 25                       # Acey-deucey's checkers not yet entered
ALL = (1 << 26) - 1


@_jit
def _low(m, table):
    """Index of the lowest set bit of a nonzero mask below 2^32."""
    return table[(((m & -m) * 0x077CB531) >> 27) & 31]


@_jit
def _sources(own, open_, d, enter_all):
    """Sources (bit s: 0..23 = points 1..24, 24 = the bar, 25 = the pool) from which a checker
    may move d pips: own & (open << d) lands on a point with at most one opposing checker; the
    pool enters where the bar does; with every checker home, bearing off (the exact point, or
    the highest one when the die is larger); with a checker on the bar, only the bar; with
    enter_all (Acey-deucey's option) and a checker in the pool, only the bar and the pool."""
    m = own & (open_ << d) & ~POOL_BIT
    if own & ~HOME == 0 and own != 0:
        if own & (1 << (d - 1)):
            m |= 1 << (d - 1)
        elif own < (1 << (d - 1)):
            h = 0
            x = own >> 1
            while x:
                h += 1
                x >>= 1
            m |= 1 << h
    if own & POOL_BIT:
        entry = POOL_BIT if (open_ >> (24 - d)) & 1 else 0
        m |= entry
        if enter_all:
            m = entry | (m & BAR_BIT)
    if own & BAR_BIT:
        m &= BAR_BIT
    return m


@_jit
def _root(r, p):
    """(own, open) masks of row p of r: the mover's sources (points, bar, pool) and the points
    it may land on (at most one opposing checker)."""
    own = 0
    open_ = 0
    for i in range(24):
        if r[p, i] > 0:
            own |= 1 << i
        if r[p, i] >= -1:
            open_ |= 1 << i
    if r[p, BAR] > 0:
        own |= BAR_BIT
    if r[p, POOL] > 0:
        own |= POOL_BIT
    return own, open_


@_jit
def _after(s):
    """Sources a double may use after a movement from s: played in non-increasing order, the
    bar first, then the pool, then the points from 24 down."""
    if s == 24:
        return ALL
    if s == 25:
        return ALL & ~BAR_BIT
    return (2 << s) - 1


@_jit
def _apply(r, at, own, s, d):
    """Make the movement on the row at r[at:at + 32]; returns the mover's new source mask."""
    if s == 24:
        r[at + BAR] -= 1
        if r[at + BAR] == 0:
            own &= ~BAR_BIT
        to = 24 - d
    elif s == 25:
        r[at + POOL] -= 1
        if r[at + POOL] == 0:
            own &= ~POOL_BIT
        to = 24 - d
    else:
        r[at + s] -= 1
        if r[at + s] == 0:
            own &= ~(1 << s)
        to = s - d
    if to >= 0:
        if r[at + to] == -1:
            r[at + to] = 0
            r[at + OPP_BAR] += 1
        r[at + to] += 1
        own |= 1 << to
    else:
        r[at + OFF] += 1
    return own


@_jit
def _bigger(a):
    """The same buffer twice as long (one that filled up; rare)."""
    b = np.zeros(2 * a.shape[0], a.dtype)
    b[:a.shape[0]] = a
    return b


ROW = 32          # bytes a row in the buffers: the 30 columns, the play's movements, its die
DEP, DIE = 30, 31


@_jit
def _copy(dst, i, src, j):
    """Row j of word buffer src into row i of dst (4 words of 8 bytes)."""
    for k in range(4):
        dst[4 * i + k] = src[4 * j + k]


@_jit
def _generate(boards, dice, table, enter_all):
    # The four levels of a double are written out as nested loops on purpose: one depth-first
    # loop over a stack of masks (the same rules, less text) measured 1.75x slower at batch 1024
    # (12.0 M against 21.4 M afterstates/s), as its state lives in memory instead of registers.
    B = boards.shape[0]
    out = np.empty(max(64, B * 32) * ROW, np.int8)
    parent = np.empty(out.shape[0] // ROW, np.int64)
    cand = np.zeros(1024 * ROW, np.int8)   # one position's candidate plays
    hashes = np.empty(1024, np.uint64)
    rows = np.zeros(4 * ROW, np.int8)      # the position and its plays after 1, 2, 3 movements
    rw = rows.view(np.uint64)
    cw = cand.view(np.uint64)
    ow = out.view(np.uint64)
    n = 0
    for p in range(B):
        for k in range(WIDTH):                 # rows may be wider (movegen's 32-byte rows)
            rows[k] = boards[p, k]
        a = dice[p, 0]
        b = dice[p, 1]
        own0, open_ = _root(boards, p)
        c = 0
        most = 0
        if a != b:
            first_a = _sources(own0, open_, a, enter_all)
            for order in range(2):
                f = a if order == 0 else b
                g = b if order == 0 else a
                # b then a: an a-move legal at the start, played second, repeats an a-then-b play
                limit = -1 if order == 0 else ~first_a
                m1 = _sources(own0, open_, f, enter_all)
                while m1:
                    s1 = _low(m1, table)
                    m1 &= m1 - 1
                    _copy(rw, 1, rw, 0)
                    own1 = _apply(rows, ROW, own0, s1, f)
                    m2 = _sources(own1, open_, g, enter_all) & limit
                    if (c + 32) * ROW > cand.shape[0]:
                        cand = _bigger(cand)
                        cw = cand.view(np.uint64)
                    if m2 == 0:
                        if most < 2:
                            _copy(cw, c, rw, 1)
                            cand[c * ROW + DEP] = 1
                            cand[c * ROW + DIE] = f
                            c += 1
                            most = 1
                        continue
                    most = 2
                    while m2:
                        s2 = _low(m2, table)
                        m2 &= m2 - 1
                        _copy(cw, c, rw, 1)
                        _apply(cand, c * ROW, own1, s2, g)
                        cand[c * ROW + DEP] = 2
                        c += 1
        else:
            d = a
            m1 = _sources(own0, open_, d, enter_all)
            while m1:
                s1 = _low(m1, table)
                m1 &= m1 - 1
                _copy(rw, 1, rw, 0)
                own1 = _apply(rows, ROW, own0, s1, d)
                most = max(most, 1)
                m2 = _sources(own1, open_, d, enter_all) & _after(s1)
                if m2 == 0 and most <= 1:
                    if (c + 1) * ROW > cand.shape[0]:
                        cand = _bigger(cand)
                        cw = cand.view(np.uint64)
                    _copy(cw, c, rw, 1)
                    cand[c * ROW + DEP] = 1
                    c += 1
                while m2:
                    s2 = _low(m2, table)
                    m2 &= m2 - 1
                    _copy(rw, 2, rw, 1)
                    own2 = _apply(rows, 2 * ROW, own1, s2, d)
                    most = max(most, 2)
                    m3 = _sources(own2, open_, d, enter_all) & _after(s2)
                    if m3 == 0 and most <= 2:
                        if (c + 1) * ROW > cand.shape[0]:
                            cand = _bigger(cand)
                            cw = cand.view(np.uint64)
                        _copy(cw, c, rw, 2)
                        cand[c * ROW + DEP] = 2
                        c += 1
                    while m3:
                        s3 = _low(m3, table)
                        m3 &= m3 - 1
                        _copy(rw, 3, rw, 2)
                        own3 = _apply(rows, 3 * ROW, own2, s3, d)
                        most = max(most, 3)
                        m4 = _sources(own3, open_, d, enter_all) & _after(s3)
                        if (c + 32) * ROW > cand.shape[0]:
                            cand = _bigger(cand)
                            cw = cand.view(np.uint64)
                        if m4 == 0 and most <= 3:
                            _copy(cw, c, rw, 3)
                            cand[c * ROW + DEP] = 3
                            c += 1
                        while m4:
                            s4 = _low(m4, table)
                            m4 &= m4 - 1
                            most = 4
                            _copy(cw, c, rw, 3)
                            _apply(cand, c * ROW, own3, s4, d)
                            cand[c * ROW + DEP] = 4
                            c += 1
        if (n + max(c, 1)) * ROW > out.shape[0]:
            while (n + max(c, 1)) * ROW > out.shape[0]:
                out = _bigger(out)
            ow = out.view(np.uint64)
            parent2 = np.empty(out.shape[0] // ROW, np.int64)
            parent2[:n] = parent[:n]
            parent = parent2
        if most == 0:                    # no movement: the position itself
            _copy(ow, n, rw, 0)
            parent[n] = p
            n += 1
            continue
        # keep the plays with the most movements; of a non-double's one-movement plays, the
        # larger die's when there are any; a non-double's equal boards once
        want_die = 0
        if most == 1 and a != b:
            big = max(a, b)
            for k in range(c):
                if cand[k * ROW + DIE] == big:
                    want_die = big
                    break
        if hashes.shape[0] < c:
            hashes = np.empty(cand.shape[0] // ROW, np.uint64)
        start = n
        for k in range(c):
            if cand[k * ROW + DEP] != most or (want_die != 0 and cand[k * ROW + DIE] != want_die):
                continue
            cand[k * ROW + DEP] = 0
            cand[k * ROW + DIE] = 0
            if a != b:
                h = (cw[4 * k] * np.uint64(0x9E3779B97F4A7C15) + cw[4 * k + 1] * np.uint64(0xC2B2AE3D27D4EB4F)
                     + cw[4 * k + 2] * np.uint64(0x165667B19E3779F9)
                     + cw[4 * k + 3] * np.uint64(0xD6E8FEB86659FD93))
                dup = False
                for j in range(start, n):
                    if (hashes[j - start] == h and ow[4 * j] == cw[4 * k] and ow[4 * j + 1] == cw[4 * k + 1]
                            and ow[4 * j + 2] == cw[4 * k + 2] and ow[4 * j + 3] == cw[4 * k + 3]):
                        dup = True
                        break
                if dup:
                    continue
                hashes[n - start] = h
            _copy(ow, n, cw, k)
            parent[n] = p
            n += 1
    return out[:n * ROW].reshape(n, ROW), parent[:n]


@_jit
def _can_move(boards, enter_all, out):
    for p in range(boards.shape[0]):
        own, open_ = _root(boards, p)
        for d in range(1, 7):
            if _sources(own, open_, d, enter_all) != 0:
                out[p] = True
                break


def can_move_some_die(boards: np.ndarray, enter_all: bool = False) -> np.ndarray:
    """True where the player to move can make one movement with some die 1..6, as
    movegen.can_move_some_die (which says why that is "some roll has a legal play")."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.zeros(boards.shape[0], dtype=np.bool_)
    if boards.shape[0]:
        _can_move(boards, bool(enter_all), out)
    return out


@_jit
def _first_of_each(parent, words):
    """Indices (ascending) of the first row of every distinct (parent, row): parent is
    non-decreasing, words the rows as 4 uint64 each. An open-addressing table per parent."""
    n = parent.shape[0]
    keep = np.empty(n, np.int64)
    m = 0
    size = 16
    table = np.full(size, -1, np.int64)
    start = 0
    while start < n:
        end = start
        while end < n and parent[end] == parent[start]:
            end += 1
        need = 16
        while need < 2 * (end - start):
            need *= 2
        if need > size:
            size = need
            table = np.full(size, -1, np.int64)
        else:
            table[:need] = -1
        mask = need - 1
        for i in range(start, end):
            h = (words[4 * i] * np.uint64(0x9E3779B97F4A7C15) + words[4 * i + 1] * np.uint64(0xC2B2AE3D27D4EB4F)
                 + words[4 * i + 2] * np.uint64(0x165667B19E3779F9)
                 + words[4 * i + 3] * np.uint64(0xD6E8FEB86659FD93))
            slot = np.int64((h ^ (h >> np.uint64(29))) & np.uint64(mask))
            while True:
                j = table[slot]
                if j < 0:
                    table[slot] = i
                    keep[m] = i
                    m += 1
                    break
                if (words[4 * j] == words[4 * i] and words[4 * j + 1] == words[4 * i + 1]
                        and words[4 * j + 2] == words[4 * i + 2] and words[4 * j + 3] == words[4 * i + 3]):
                    break
                slot = (slot + 1) & mask
        start = end
    return keep[:m]


def first_of_each(parent: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices (ascending) of the first row of each distinct (parent, row) pair; parent
    non-decreasing, rows int8 [N, 32] (movegen's padded rows)."""
    rows = np.ascontiguousarray(rows, dtype=np.int8)
    return _first_of_each(np.ascontiguousarray(parent, dtype=np.int64), rows.reshape(-1).view(np.uint64))


def generate(rows: np.ndarray, dice: np.ndarray, enter_all: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(parent int64 [N] non-decreasing, afterstates int8 [N, 32]: the 30 columns, then zeros) of
    classic rows [B, >= 30] and dice [B, 2] (no Acey-deucey 1-2 rule: movegen applies it)."""
    out, parent = _generate(np.ascontiguousarray(rows, dtype=np.int8),
                            np.ascontiguousarray(dice, dtype=np.int64), _DEBRUIJN, bool(enter_all))
    return parent, out
