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
td198_pool also packs (features.Packing): 31 codes a row (24 points, bar/off/pool counts, again).
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from . import FeatureSet, Packing


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


def _point_units(codes: np.ndarray, out: np.ndarray) -> None:
    """out[:, :192] = the point units of [N, 24] codes (count + 15)."""
    words = np.take(_POINT_WORDS, codes.astype(np.intp).ravel(), axis=0)
    out[:, :192] = words.view(np.float32).reshape(codes.shape[0], 192)


def _other_units(boards: np.ndarray, again: np.ndarray, out: np.ndarray, pool: bool) -> None:
    """out[:, :6 or 8] = units 192.. (bar, off, turn, and the pool when `pool`)."""
    out[:, 0] = boards[:, cb.BAR] / 2.0
    out[:, 1] = boards[:, cb.OPP_BAR] / 2.0
    out[:, 2] = boards[:, cb.OFF] / 15.0
    out[:, 3] = boards[:, cb.OPP_OFF] / 15.0
    out[:, 4] = ~again
    out[:, 5] = again
    if pool:
        out[:, 6] = boards[:, cb.POOL] / 15.0
        out[:, 7] = boards[:, cb.OPP_POOL] / 15.0


def _encode(boards: np.ndarray, again: np.ndarray, pool: bool) -> np.ndarray:
    out = np.empty((boards.shape[0], 200 if pool else 198), dtype=np.float32)
    _point_units(boards[:, :cb.N_POINTS] + 15, out)
    _other_units(boards, again, out[:, 192:], pool)
    return out


# td198_pool packed (features.Packing): every unit is a small integer's function, so a row is
# all codes and no dense part: one per point (its count + 15), then the six counts on the bar,
# off and in the pool (0..15 each) and whether the mover rolls again (0/1). Acey-deucey's 1-2 has
# thousands of afterstates to score: as table sums the first layer costs 31 row additions
# instead of a 200-wide product, and the encoding is a copy.
_POOL_COLUMNS = (cb.BAR, cb.OPP_BAR, cb.OFF, cb.OPP_OFF, cb.POOL, cb.OPP_POOL)
_POOL_UNITS = (192, 193, 194, 195, 198, 199)        # the dense unit each of those counts feeds
_POOL_SCALES = (2.0, 2.0, 15.0, 15.0, 15.0, 15.0)   # ... as count / scale
POOL_PACKED_SIZE = cb.N_POINTS + len(_POOL_COLUMNS) + 1       # 31 codes
_POOL_OFFSETS = np.concatenate([np.arange(cb.N_POINTS) * 31,
                                cb.N_POINTS * 31 + np.arange(len(_POOL_COLUMNS) + 1) * 16]).astype(np.int64)


def _pack_pool(boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
    """float32 [N, 31]: 24 point codes (count + 15), the bar/off/pool counts, the again flag."""
    boards = np.asarray(boards)
    again = np.zeros(boards.shape[0], dtype=bool) if again is None else np.asarray(again, dtype=bool)
    out = np.empty((boards.shape[0], POOL_PACKED_SIZE), dtype=np.float32)
    out[:, :cb.N_POINTS] = boards[:, :cb.N_POINTS] + 15
    out[:, cb.N_POINTS:-1] = boards[:, list(_POOL_COLUMNS)]
    out[:, -1] = again
    return out


def _unpack_pool(packed: np.ndarray) -> np.ndarray:
    """The dense float32 [N, 200] encoding of packed rows."""
    packed = np.asarray(packed, dtype=np.float32)
    out = np.empty((packed.shape[0], 200), dtype=np.float32)
    _point_units(packed[:, :cb.N_POINTS], out)
    for k, (unit, scale) in enumerate(zip(_POOL_UNITS, _POOL_SCALES)):
        out[:, unit] = packed[:, cb.N_POINTS + k].astype(np.float64) / scale   # as _other_units rounds
    out[:, 196] = 1.0 - packed[:, -1]
    out[:, 197] = packed[:, -1]
    return out


def _point_tables(weight):
    """[24 * 31, H] for a first layer W [H, F >= 192]: row p * 31 + c is W_p @ POINT_TABLE[c]."""
    import torch   # only the scorer calls this; the encoding itself stays NumPy-only
    w = weight.detach()
    hidden = w.shape[0]
    table = torch.from_numpy(POINT_TABLE).to(w.device)
    # one [31, 8] @ [8, H] product per point (bmm: 2-3x faster than the same einsum; the
    # tables are rebuilt after every gradient step)
    per_point = w[:, :192].t().reshape(cb.N_POINTS, 8, hidden)
    return torch.bmm(table.expand(cb.N_POINTS, 31, 8), per_point).reshape(-1, hidden)


def _pool_tables(weight):
    """[24 * 31 + 7 * 16, H] for a td198_pool first layer W [H, 200]: the point tables, then for
    each bar/off/pool count c = 0..15 the row (c / scale) * W[:, unit], then the again flag's two
    rows (W[:, 196] when it is 0, W[:, 197] when it is 1; the rest of that block is unused)."""
    import torch
    w = weight.detach()
    counts = torch.arange(16, dtype=w.dtype, device=w.device)
    rows = [_point_tables(w)]
    for unit, scale in zip(_POOL_UNITS, _POOL_SCALES):
        rows.append(torch.outer(counts / scale, w[:, unit]))
    flag = torch.zeros(16, w.shape[0], dtype=w.dtype, device=w.device)
    flag[0], flag[1] = w[:, 196], w[:, 197]
    rows.append(flag)
    return torch.cat(rows)


TD198 = FeatureSet("td198", 1, 198, ("standard", "nackgammon"), cb.WIDTH,
                   lambda b, a: _encode(b, a, pool=False))
TD198_POOL = FeatureSet("td198_pool", 1, 200, ("acey_deucey",), cb.WIDTH,
                        lambda b, a: _encode(b, a, pool=True),
                        packing=Packing(POOL_PACKED_SIZE, POOL_PACKED_SIZE, _pack_pool, _unpack_pool,
                                        _pool_tables, _POOL_OFFSETS))
