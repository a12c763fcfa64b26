"""TD(lambda) returns compiled with Numba: the backward recursion, one pass over each game.

train/td.py states the rule. Its NumPy form is one product with a [T, T] weight matrix per batch
of finished games (T the longest game of the batch), which costs G * T^2 * 5 and was about a
twentieth of a self-play step; the recursion is G * T * 5. Same results as the NumPy form
(tests/test_model.py runs both against a plain recursion); AVAILABLE is False where Numba
cannot be imported, and td.py keeps the NumPy form.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit

__all__ = ["AVAILABLE", "lambda_returns"]


@_jit
def _swap(v):
    """v (5 outcome probabilities) seen from the other player, in place."""
    v[0] = 1.0 - v[0]
    a, b = v[1], v[2]
    v[1], v[2] = v[3], v[4]
    v[3], v[4] = a, b


@_jit
def _returns(probs, again, length, lam, out):
    G, T = probs.shape[0], probs.shape[1]
    g_next = np.empty(5)
    y_next = np.empty(5)
    for g in range(G):
        last = length[g] - 1
        for c in range(5):                        # past the end: the result, as the NumPy form pads
            g_next[c] = probs[g, last, c]
        for t in range(last, T):
            for c in range(5):
                out[g, t, c] = g_next[c]
        for t in range(last - 1, -1, -1):
            for c in range(5):
                y_next[c] = probs[g, t + 1, c]
            if not again[g, t]:                   # t + 1 was made by the other player: its view
                _swap(g_next)
                _swap(y_next)
            for c in range(5):
                # the return of the last move is the result itself (g_next holds it then)
                v = g_next[c] if t == last - 1 else (1.0 - lam) * y_next[c] + lam * g_next[c]
                g_next[c] = v
                out[g, t, c] = v


def lambda_returns(probs: np.ndarray, again: np.ndarray, length: np.ndarray, lam: float) -> np.ndarray:
    """[G, T, 5] float32 lambda-returns, as td.lambda_returns (valid for t < length - 1)."""
    out = np.empty(probs.shape, dtype=np.float32)
    _returns(np.ascontiguousarray(probs, dtype=np.float64), np.ascontiguousarray(again, dtype=np.bool_),
             np.ascontiguousarray(length, dtype=np.int64), float(lam), out)
    return out
