"""Cube policies: when to offer a double and when to take one.

A policy sees positions before the roll, from the player to move (the would-be doubler), and a
CubeContext; it answers arrays of booleans for the whole batch:

    offer(variant, boards, ctx)   does the player to move double?
    accept(variant, boards, ctx)  does its opponent take? (boards still seen from the doubler)

Policies:
- JanowskiCube: from the evaluator's five outcome probabilities, Janowski's cubeful equity with
  cube efficiency x (engine/cube.py), money or match play (match equity table).
- ThresholdCube: the baseline bots' policy: a win estimate p for the player to move; double when
  double_at <= p < too_good, take when the taker's chance 1 - p >= take_at.
- RandomCube: doubles and takes at random (the random bot's policy).
- NeverDouble: never doubles, always takes (the yardstick a cube-using agent is measured against).
"""

from __future__ import annotations

import numpy as np

from ..engine import cube as cube_math
from ..engine.cube import CubeContext  # noqa: F401  (re-exported for policy authors)


class NeverDouble:
    name = "never"

    def offer(self, variant, boards, ctx):
        return np.zeros(boards.shape[0], dtype=bool)

    def accept(self, variant, boards, ctx):
        return np.ones(boards.shape[0], dtype=bool)


class RandomCube:
    name = "random"

    def __init__(self, p_double: float = 0.1, p_take: float = 0.5, seed: int = 0):
        self.p_double, self.p_take = p_double, p_take
        self.rng = np.random.default_rng(seed)

    def offer(self, variant, boards, ctx):
        return self.rng.random(boards.shape[0]) < self.p_double

    def accept(self, variant, boards, ctx):
        return self.rng.random(boards.shape[0]) < self.p_take


def pip_win_estimate(variant, boards: np.ndarray) -> np.ndarray:
    """A rough win chance for the player to move from the pip counts (any variant).

    p = logistic((opponent pips - own pips + 4) / (0.08 * own pips + 2)): the player on roll is
    worth about 4 pips, and a lead matters less the longer the race. Good enough for baseline
    cube thresholds, not for play.
    """
    from ..engine import board as cb
    b = np.asarray(boards)
    if getattr(variant, "kind", "classic") == "abak":
        from ..engine.abak.board import to_classic
        b = to_classic(b)
    pts = b[:, : cb.N_POINTS].astype(np.float64)
    idx = np.arange(1, cb.N_POINTS + 1, dtype=np.float64)
    own = (np.clip(pts, 0, None) * idx).sum(1) + 25 * (b[:, cb.BAR] + b[:, cb.POOL])
    opp = (np.clip(-pts, 0, None) * (25 - idx)).sum(1) + 25 * (b[:, cb.OPP_BAR] + b[:, cb.OPP_POOL])
    return 1.0 / (1.0 + np.exp(-(opp - own + 4.0) / (0.08 * own + 2.0)))


class ThresholdCube:
    name = "threshold"

    def __init__(self, win_estimate=pip_win_estimate, double_at: float = 0.70,
                 too_good: float = 0.90, take_at: float = 0.25):
        self.win_estimate = win_estimate
        self.double_at, self.too_good, self.take_at = double_at, too_good, take_at

    def offer(self, variant, boards, ctx):
        p = self.win_estimate(variant, boards)
        return (p >= self.double_at) & (p < self.too_good)

    def accept(self, variant, boards, ctx):
        return 1.0 - self.win_estimate(variant, boards) >= self.take_at


class JanowskiCube:
    """Cube decisions from the evaluator's probabilities for the player to move.

    probs_fn(variant, boards) -> [n, 5] outcome probabilities of the player to move, before its
    roll (a neural agent evaluates the position as the opponent's afterstate and swaps sides).
    """

    name = "janowski"

    def __init__(self, probs_fn, x: float = 0.68):
        self.probs_fn, self.x = probs_fn, x

    def _decision(self, variant, boards, ctx):
        probs = self.probs_fn(variant, boards)
        if ctx.is_match:
            return cube_math.match_cube_decision(probs, ctx.away, ctx.opp_away, ctx.value,
                                                 ctx.owner, ctx.met, self.x)
        return cube_math.money_cube_decision(probs, ctx.owner, self.x)

    def offer(self, variant, boards, ctx):
        return self._decision(variant, boards, ctx)[0] != cube_math.NO_DOUBLE

    def accept(self, variant, boards, ctx):
        decision, eq = self._decision(variant, boards, ctx)
        return eq[:, 1] < eq[:, 2]  # the taker takes when double-take costs it less than a pass
