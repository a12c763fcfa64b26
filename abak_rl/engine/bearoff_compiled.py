"""The bear-off database's lookups compiled with Numba: which rows are bear-offs, and their
probabilities from the two one-sided distributions (engine/bearoff.py has the definitions).

Self-play asks both questions for every batch of afterstates; in NumPy they are a dozen array
passes and three einsums over [N, 32] gathers, about a tenth of a self-play step. Here they are
one loop over the rows. Same results as the NumPy code (tests/test_bearoff.py compares them);
AVAILABLE is False where Numba cannot be imported, and bearoff.py keeps its NumPy path.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit

from .board import BAR, N_POINTS, OFF, OPP_BAR, OPP_OFF, OPP_POOL, POOL

POINTS = 6
MAX_CHECKERS = 15



@_jit
def _home_only(r):
    """(mover all home or off, opponent all home or off) for one row."""
    mover = r[BAR] == 0 and r[POOL] == 0
    opp = r[OPP_BAR] == 0 and r[OPP_POOL] == 0
    for i in range(N_POINTS):
        if i >= POINTS and r[i] > 0:
            mover = False
        if i < N_POINTS - POINTS and r[i] < 0:
            opp = False
    return mover, opp


@_jit
def _is_bearoff(boards, out):
    for k in range(boards.shape[0]):
        r = boards[k]
        mover, opp = _home_only(r)
        out[k] = mover and opp and r[OFF] < MAX_CHECKERS and r[OPP_OFF] < MAX_CHECKERS


def is_bearoff(boards: np.ndarray) -> np.ndarray:
    out = np.empty(boards.shape[0], np.bool_)
    _is_bearoff(np.ascontiguousarray(boards, dtype=np.int8), out)
    return out


@_jit
def _index(r, mover, binom):
    """bearoff_index of one side's home board (the mover's points 1..6, or the opponent's 24..19)."""
    idx = 0
    bar = -1
    for i in range(POINTS):
        c = r[i] if mover else -r[N_POINTS - 1 - i]
        bar += c + 1
        idx += binom[i, bar]
    return idx


@_jit
def _probs(boards, n_all, cdf_all, sf_first, binom, out):
    """0 where every row is a bear-off afterstate; else 1 + the first row that is not."""
    K = n_all.shape[1]
    for k in range(boards.shape[0]):
        r = boards[k]
        mover, opp = _home_only(r)
        if not (mover and opp) or r[OPP_OFF] >= MAX_CHECKERS:
            return k + 1
        ip = _index(r, True, binom)
        io = _index(r, False, binom)
        lose = 0.0
        wg = 0.0
        lg = 0.0
        for n in range(K):
            pn = np.float64(n_all[ip, n])
            lose += pn * cdf_all[io, n]
            wg += pn * sf_first[io, n]
            lg += np.float64(n_all[io, n]) * (1.0 if n == 0 else sf_first[ip, n - 1])
        win = min(max(1.0 - lose, 0.0), 1.0)
        out[k, 0] = win
        out[k, 1] = min(min(max(wg, 0.0), 1.0), win) if r[OPP_OFF] == 0 else 0.0
        out[k, 2] = 0.0
        out[k, 3] = min(min(max(lg, 0.0), 1.0), 1.0 - win) if r[OFF] == 0 else 0.0
        out[k, 4] = 0.0
    return 0


def probs(boards: np.ndarray, n_all, cdf_all, sf_first, binom) -> tuple[np.ndarray, int]:
    """(float32 [N, 5] probabilities, -1) of bear-off afterstates, or (partial, i) where row i
    is not one."""
    out = np.zeros((boards.shape[0], 5), np.float64)
    bad = _probs(np.ascontiguousarray(boards, dtype=np.int8), n_all, cdf_all, sf_first, binom, out)
    return out.astype(np.float32), bad - 1
