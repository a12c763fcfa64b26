"""Per-position move filters compiled with Numba: which rows of each position to keep.

A search keeps, per position, the best k afterstates (and only those within a margin of the
best). In NumPy that is one stable sort of every row by (position, -score): at the depth of a
2-ply search (millions of rows a call) the sort was about a tenth of the labeller's time. Here
it is one pass over each position's contiguous rows, keeping the best k so far. Same result as the NumPy code in
common.py (tests/test_search.py compares them); AVAILABLE is False where Numba cannot be
imported, and common.py keeps its NumPy path.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit


@_jit
def _keep(scores, parent, k, margin, out):
    """out[i] = row i is among its position's k best (first ones on ties) and within `margin`
    of the best; k < 0 means any number, margin < 0 any distance. Rows of a position contiguous."""
    m = scores.shape[0]
    buf_s = np.empty(max(k, 1), dtype=np.float64)
    buf_i = np.empty(max(k, 1), dtype=np.int64)
    lo = 0
    while lo < m:
        p = parent[lo]
        hi = lo + 1
        while hi < m and parent[hi] == p:
            hi += 1
        best = scores[lo]
        for i in range(lo + 1, hi):
            if scores[i] > best:
                best = scores[i]
        floor = best - margin if margin >= 0 else -np.inf
        if k < 0 or hi - lo <= k:
            for i in range(lo, hi):
                out[i] = scores[i] >= floor
        else:
            # the k best so far, best first (a later row enters only when strictly better: the
            # first ones win ties); one pass over the position's rows
            c = 0
            for i in range(lo, hi):
                out[i] = False
                s = scores[i]
                if c == k and not s > buf_s[k - 1]:
                    continue
                j = c if c < k else k - 1
                while j > 0 and buf_s[j - 1] < s:
                    buf_s[j] = buf_s[j - 1]
                    buf_i[j] = buf_i[j - 1]
                    j -= 1
                buf_s[j] = s
                buf_i[j] = i
                if c < k:
                    c += 1
            for j in range(c):
                out[buf_i[j]] = buf_s[j] >= floor
        lo = hi


def keep(scores: np.ndarray, parent: np.ndarray, k: int | None, margin: float | None) -> np.ndarray:
    """Boolean mask: each position's k best rows within margin of its best (None: no limit).
    `parent` must be sorted (each position's rows contiguous, the Afterstates contract)."""
    out = np.empty(scores.shape[0], dtype=np.bool_)
    _keep(np.ascontiguousarray(scores, dtype=np.float64), np.ascontiguousarray(parent, dtype=np.int64),
          -1 if k is None else int(k), -1.0 if margin is None else float(margin), out)
    return out
