"""Arithmetic on the evaluator's five outputs, in NumPy only (no torch), so that the torch-free
inference (abak_rl.inference) and the trainer share one definition.

Outputs, from the view of the player P who made the afterstate ("gammon" includes backgammons):
p_win, p_wg (win gammon), p_wbg (win backgammon), p_lg (lose gammon), p_lbg (lose backgammon).
"""

from __future__ import annotations

import numpy as np

OUTPUTS = ("p_win", "p_wg", "p_wbg", "p_lg", "p_lbg")


def equity(p):
    """Cubeless equity per row of [..., 5] probabilities (numpy or torch):
    E = p_win - (1 - p_win) + p_wg - p_lg + p_wbg - p_lbg."""
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def swap_perspective_np(p: np.ndarray) -> np.ndarray:
    """The same outcome probabilities seen from the other player."""
    p = np.asarray(p)
    return np.stack([1 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], axis=-1)


def outcome_probs(points: np.ndarray) -> np.ndarray:
    """Exact 'probabilities' of a finished game won by P with `points` (1, 2 or 3) each; a
    negative or zero value gives all zeros (P lost a single game)."""
    points = np.asarray(points)
    out = np.zeros(points.shape + (5,), dtype=np.float32)
    out[..., 0] = points >= 1
    out[..., 1] = points >= 2
    out[..., 2] = points >= 3
    return out


def cumulative_np(p: np.ndarray) -> np.ndarray:
    """NumPy twin of model.net.cumulative: p_wbg <= p_wg <= p_win, p_lbg <= p_lg <= 1 - p_win."""
    p = np.asarray(p)
    out = np.empty_like(p)
    out[..., 0] = p[..., 0]
    out[..., 1] = np.minimum(p[..., 1], p[..., 0])
    out[..., 2] = np.minimum(p[..., 2], out[..., 1])
    out[..., 3] = np.minimum(p[..., 3], 1 - p[..., 0])
    out[..., 4] = np.minimum(p[..., 4], out[..., 3])
    return out
