"""Bradley-Terry ratings on the Elo scale, with bootstrap intervals, from head-to-head wins.

P(i beats j) = s_i / (s_i + s_j); rating_i = 400 log10(s_i), so 200 points ~ 76% wins. The
fit adds half a win each way to every pair that played (a weak prior), which keeps ratings
finite when one bot never loses to another. Ratings are relative: one agent (the anchor, the
first by default) is fixed at 0, and intervals say how well each is placed relative to it.
Intervals resample the dice sequences of every match (both games of a sequence together) and
refit; the 2.5% and 97.5% quantiles bound each rating.
"""

from __future__ import annotations

import numpy as np


def fit_bradley_terry(wins: np.ndarray, anchor: int = 0, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings from wins[i, j] = games i won against j (agent `anchor` at 0)."""
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    if w.ndim != 2 or w.shape != (k, k) or k < 2:
        raise ValueError(f"wins must be a square matrix of at least 2 agents, got {w.shape}")
    played = (w + w.T) > 0
    w = w + 0.5 * played
    np.fill_diagonal(w, 0.0)
    n = w + w.T
    s = np.ones(k)
    for _ in range(iters):                       # minorise-maximise (Hunter 2004)
        denom = (n / (s[:, None] + s[None, :])).sum(1)
        new = w.sum(1) / np.where(denom > 0, denom, 1.0)
        new = np.where(new > 0, new, 1e-12)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(s))) < tol:
            s = new
            break
        s = new
    r = 400.0 * np.log10(s)
    return r - r[anchor]


def bootstrap(pair_results: dict, k: int, n_boot: int = 1000, seed: int = 0, anchor: int = 0) -> np.ndarray:
    """[n_boot, k] ratings refitted on resampled matches.

    pair_results: {(i, j): (first, second)}: agent i's points in each dice sequence's two games.
    """
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, k))
    for b in range(n_boot):
        wins = np.zeros((k, k))
        for (i, j), (first, second) in pair_results.items():
            idx = rng.integers(0, first.size, first.size)
            won = (first[idx] > 0).sum() + (second[idx] > 0).sum()
            wins[i, j] += won
            wins[j, i] += 2 * first.size - won
        out[b] = fit_bradley_terry(wins, anchor)
    return out


def wins_matrix(pair_results: dict, k: int) -> np.ndarray:
    wins = np.zeros((k, k))
    for (i, j), (first, second) in pair_results.items():
        won = (first > 0).sum() + (second > 0).sum()
        wins[i, j] += won
        wins[j, i] += 2 * first.size - won
    return wins
