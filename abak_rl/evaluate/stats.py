"""Match statistics: points per game with a paired 95% interval, and win/gammon rates.

Each dice sequence is played twice with the seats swapped, so the two results of one sequence
are correlated (luck largely cancels). The interval is therefore computed over the per-sequence
means, which are independent: half-width = z * sd(pair means) / sqrt(pairs).
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def mean_ci(values: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """(mean, half-width of the normal-approximation interval) of independent values."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        raise ValueError("no values to summarise")
    if v.size == 1:
        return float(v[0]), math.inf
    return float(v.mean()), float(z * v.std(ddof=1) / math.sqrt(v.size))


def paired_ppg(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """Points per game and its 95% half-width from the two games of each dice sequence."""
    a, b = np.asarray(first, np.float64), np.asarray(second, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired results differ in length: {a.shape} vs {b.shape}")
    return mean_ci((a + b) / 2.0)


def summarize(pair_a: np.ndarray, pair_b: np.ndarray) -> dict:
    """Everything the match report holds about the results, from the agent's side.

    pair_a[i], pair_b[i]: the agent's signed points (+won, -lost: 1 single, 2 gammon,
    3 backgammon) in the two games of dice sequence i (agent in seat 0, then in seat 1).
    """
    a, b = np.asarray(pair_a, np.int64), np.asarray(pair_b, np.int64)
    p = np.concatenate([a, b])
    ppg, half = paired_ppg(a, b)
    win_rate, win_half = paired_ppg(a > 0, b > 0)
    return {
        "ppg": ppg,
        "ppg_ci95": half,
        "win_rate": win_rate,
        "win_rate_ci95": win_half,
        "gammon_rate": float((p >= 2).mean()),
        "backgammon_rate": float((p >= 3).mean()),
        "lose_gammon_rate": float((p <= -2).mean()),
        "lose_backgammon_rate": float((p <= -3).mean()),
    }
