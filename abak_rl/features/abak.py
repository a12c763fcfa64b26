"""abak_stack: an Abak Evolution encoding that also describes classes and stack order.

Input: Abak rows (engine/abak/board.py, int8 [N, 134]), an afterstate seen from the player P who
just moved; O is the opponent. Slot (p, h) is point p+1 at height h (0 = bottom). A checker is
trapped when a checker of the other colour sits anywhere above it. Blocks, in order:

    offset  size  what
         0   840  per point p (24 blocks of 35 units, point 1 first):
                    8  P's then O's checker count n in the column (trapped ones included) as
                       Tesauro's units [n>=1, n>=2, n>=3, max(n-3,0)/2]
                   12  the top checker as a one-hot over (side, class): P's S G D K O E, then
                       O's S G D K O E; all zero on an empty point
                    2  [P's top run >= 2, O's top run >= 2]: the top run (same-colour checkers
                       counted down from the top) decides what may land there
                    2  [P's trapped checkers / 2, O's trapped checkers / 2]
                    1  column full (5 checkers: nothing may land)
                   10  per slot h = 0..4, [P's checker there, O's checker there]: the colour
                       pattern of the stack, so with the special checkers' places below the
                       whole board is described (every other checker is a Soldier)
       840   143  P's special checkers: for each of General, Druid, Odd Wounded, Even Wounded:
                  where it is as a one-hot over 26 places (points 1..24, bar, borne off), then
                  its height / 4, trapped, on top of its column (29 units each, 116 in all);
                  then the Guards: count per point (24), on the bar, borne off (all / 2), and
                  trapped Guards / 2 (27 units)
       983   143  O's special checkers, the same way
      1126    12  checkers on the bar per class: P's S G D K O E, then O's (each count / 2)
      1138     2  P's / O's checkers borne off / 15
      1140     2  [O rolls next, P rolls again] (always [1, 0] in Abak; kept for uniformity)
    size 1142
"""

from __future__ import annotations

import numpy as np

from ..engine.abak import board as ab
from . import FeatureSet
from .classic import POINT_TABLE

SIZE = 1142
_T4 = POINT_TABLE[15:21, :4]           # n = 0..5 -> Tesauro's 4 units
_POW3 = 3 ** np.arange(ab.HEIGHT)      # column colour pattern: sum of 3^h * (0 empty, 1 P, 2 O)
_SPECIALS = (ab.GENERAL, ab.DRUID, ab.ODD, ab.EVEN)
_PER_POINT = 8 + 12 + 2 + 2 + 1 + 10   # the per-point units of blocks 0..600 and 600..840


def _column_tables() -> tuple[np.ndarray, np.ndarray]:
    """Everything per point depends only on the column's colour pattern and its top class, so
    it is precomputed: UNITS[pattern * 7 + top class] = the 35 per-point units and INTS[pattern] = (height, highest P slot, highest
    O slot) with -1 for none. Patterns with gaps never occur and are left as computed."""
    units = np.zeros((243 * 7, _PER_POINT), dtype=np.float32)
    ints = np.zeros((243, 3), dtype=np.int8)
    for pat in range(243):
        s = [(pat // 3 ** h) % 3 for h in range(ab.HEIGHT)]
        mine = [h for h in range(ab.HEIGHT) if s[h] == 1]
        theirs = [h for h in range(ab.HEIGHT) if s[h] == 2]
        height = len(mine) + len(theirs)
        hm, ht = max(mine, default=-1), max(theirs, default=-1)
        ints[pat] = (height, hm, ht)
        top_side = s[height - 1] if height else 0
        run = 0
        for h in range(height - 1, -1, -1):
            if s[h] != top_side:
                break
            run += 1
        for cls in range(7):
            u = units[pat * 7 + cls]
            u[0:4], u[4:8] = _T4[len(mine)], _T4[len(theirs)]
            if height and cls:
                u[8 + (cls - 1 if top_side == 1 else 6 + cls - 1)] = 1
            u[20], u[21] = top_side == 1 and run >= 2, top_side == 2 and run >= 2
            u[22] = sum(h < ht for h in mine) / 2.0
            u[23] = sum(h < hm for h in theirs) / 2.0
            u[24] = height == ab.HEIGHT
            for h in range(ab.HEIGHT):
                u[25 + 2 * h], u[26 + 2 * h] = s[h] == 1, s[h] == 2
    return units, ints


_UNITS, _INTS = _column_tables()


def _specials(boards: np.ndarray, st: np.ndarray, ints: np.ndarray) -> np.ndarray:
    """Both sides' special-checker units (module docstring, offsets 840..1126) as [N, 286].

    Special checkers are few (at most 10 per row), so they are found once with nonzero and
    their units scattered; ints: [N, 24, 3] per-column (height, highest P, highest O).
    """
    n = boards.shape[0]
    out = np.zeros((n, 286), dtype=np.float32)
    r, p, h = np.nonzero(np.abs(st) >= 2)
    code = st[r, p, h].astype(np.int64)
    theirs = code < 0
    cls = np.abs(code)
    base = np.where(theirs, 143, 0)
    height = ints[r, p, 0]
    other_high = np.where(theirs, ints[r, p, 1], ints[r, p, 2])
    trapped = h < other_high
    unique = cls != ab.GUARD
    j = np.array([-1, -1, 0, 1, -1, 2, 3])[cls]                    # G D O E -> 0..3
    col = base + 29 * j
    ru, pu, hu, cu = r[unique], p[unique], h[unique], col[unique]
    out[ru, cu + pu] = 1
    out[ru, cu + 26] = hu / 4.0
    out[ru, cu + 27] = trapped[unique]
    out[ru, cu + 28] = hu == height[unique] - 1
    on_board = np.zeros((n, 2, 4), dtype=bool)
    on_board[ru, theirs[unique].astype(np.intp), j[unique]] = True
    for side, (b0, bar) in enumerate(((0, ab.BAR), (143, ab.OPP_BAR))):
        on_bar = boards[:, bar + np.array(_SPECIALS) - 1] > 0       # [N, 4]
        cols = b0 + 29 * np.arange(4)
        out[:, cols + 24] = on_bar
        out[:, cols + 25] = ~on_board[:, side] & ~on_bar
        g = (cls == ab.GUARD) & (theirs == bool(side))
        per_point = np.bincount(r[g] * 24 + p[g], minlength=n * 24).reshape(n, 24)
        guards_bar = boards[:, bar + ab.GUARD - 1].astype(np.int64)
        out[:, b0 + 116:b0 + 140] = per_point / 2.0
        out[:, b0 + 140] = guards_bar / 2.0
        out[:, b0 + 141] = (ab.CLASS_COUNTS[ab.GUARD] - per_point.sum(-1) - guards_bar) / 2.0
        out[:, b0 + 142] = np.bincount(r[g & trapped], minlength=n) / 2.0
    return out


def encode(boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    n = boards.shape[0]
    st = boards[:, :ab.SLOTS].reshape(n, ab.N_POINTS, ab.HEIGHT)  # [N, 24, 5]
    colour = (st > 0).astype(np.int16) + 2 * (st < 0)
    pattern = colour @ _POW3                                     # [N, 24]
    ints = _INTS[pattern]                                        # height, highest P, highest O
    height = ints[..., 0].astype(np.intp)
    top = np.take_along_axis(st, np.maximum(height - 1, 0)[..., None], axis=-1)[..., 0]
    top_class = np.where(height > 0, np.abs(top), 0)
    units = _UNITS[pattern * 7 + top_class].reshape(n, 24 * _PER_POINT)
    rest = np.empty((n, 16), dtype=np.float32)
    rest[:, 0:6] = boards[:, ab.BAR:ab.BAR + 6] / 2.0
    rest[:, 6:12] = boards[:, ab.OPP_BAR:ab.OPP_BAR + 6] / 2.0
    rest[:, 12] = boards[:, ab.OFF] / 15.0
    rest[:, 13] = boards[:, ab.OPP_OFF] / 15.0
    rest[:, 14] = ~again
    rest[:, 15] = again
    return np.concatenate([units, _specials(boards, st, ints), rest], axis=1)


ABAK_STACK = FeatureSet("abak_stack", 1, SIZE, ("abak",), ab.WIDTH, encode)
