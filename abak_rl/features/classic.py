"""Tesauro's TD-Gammon encoding (198 units) for the classic 30-column rows, plus a pool variant.

td198 (version 1), for an afterstate seen from the player P who just moved, opponent O:
    units   0..191  for each point p = 1..24 (index p-1), 8 units: P's count n as
                    [n>=1, n>=2, n>=3, max(n-3, 0)/2], then O's count on that point the same way
                    (layout [24, 8]; Tesauro's order differs, which does not matter to a net)
    192, 193        P's checkers on the bar / 2, O's / 2
    194, 195        P's checkers borne off / 15, O's / 15
    196, 197        "whose turn": [O rolls next, P rolls again]. Tesauro's two turn units; with
                    afterstates always seen from the player who moved, they are [1, 0] except
                    after Acey-deucey's 1-2 (P rolls again).
td198_pool (version 1) = td198 + 198, 199: P's / O's checkers not yet entered (pool) / 15.

The 192 point units come from one table lookup per point (count -15..15 -> 8 units).
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from . import FeatureSet


def _point_table() -> np.ndarray:
    table = np.zeros((31, 8), dtype=np.float32)
    for c in range(-15, 16):
        for side, n in ((0, max(c, 0)), (1, max(-c, 0))):
            table[c + 15, side * 4:side * 4 + 4] = [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]
    return table


POINT_TABLE = _point_table()
# The same table with each 8-float row seen as 4 uint64 words: np.take of whole words is about
# 4x faster than a fancy-index gather of float rows (measured at batch 5,000).
_POINT_WORDS = np.ascontiguousarray(POINT_TABLE).view(np.uint64)


def _encode(boards: np.ndarray, again: np.ndarray, pool: bool) -> np.ndarray:
    n = boards.shape[0]
    out = np.empty((n, 200 if pool else 198), dtype=np.float32)
    pts = (boards[:, :cb.N_POINTS].astype(np.intp) + 15).ravel()
    words = np.take(_POINT_WORDS, pts, axis=0)
    out[:, :192] = words.view(np.float32).reshape(n, 192)
    out[:, 192] = boards[:, cb.BAR] / 2.0
    out[:, 193] = boards[:, cb.OPP_BAR] / 2.0
    out[:, 194] = boards[:, cb.OFF] / 15.0
    out[:, 195] = boards[:, cb.OPP_OFF] / 15.0
    out[:, 196] = ~again
    out[:, 197] = again
    if pool:
        out[:, 198] = boards[:, cb.POOL] / 15.0
        out[:, 199] = boards[:, cb.OPP_POOL] / 15.0
    return out


TD198 = FeatureSet("td198", 1, 198, ("standard", "nackgammon"), cb.WIDTH,
                   lambda b, a: _encode(b, a, pool=False))
TD198_POOL = FeatureSet("td198_pool", 1, 200, ("acey_deucey",), cb.WIDTH,
                        lambda b, a: _encode(b, a, pool=True))
