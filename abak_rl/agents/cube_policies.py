"""Cube policies: when to offer a double and when to take one.

A policy sees positions before the roll, from the player to move (the would-be doubler), and a
CubeContext; it answers arrays of booleans for the whole batch:

    offer(variant, boards, ctx)   does the player to move double?
    accept(variant, boards, ctx)  does its opponent take? (boards still seen from the doubler)

Policies:
- JanowskiCube: from the evaluator's five outcome probabilities, Janowski's cubeful equity
  (engine/cube.py), money or match play (match-winning chances from the match equity table),
  cube efficiency by position class, at 0-ply, 1-ply or 2-ply.
- ThresholdCube: the baseline bots' policy: a win estimate p for the player to move; double when
  double_at <= p < too_good, take when the taker's chance 1 - p >= take_at.
- RandomCube: doubles and takes at random (the random bot's policy).
- NeverDouble: never doubles, always takes (the yardstick a cube-using agent is measured against).
"""

from __future__ import annotations

import numpy as np

from ..engine import cube as cube_math
from ..engine.common import segment_argmax
from ..engine.cube import CubeContext  # noqa: F401  (re-exported for policy authors)
from ..model.outcomes import equity
from .search import REPLY_FILTER, MoveFilter, Search, best_of, check_ply


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


ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0


class JanowskiCube:
    """Cube decisions from the evaluator's probabilities for the player to move.

    probs_fn(variant, boards) -> [n, 5] outcome probabilities of the player to move, before its
    roll (a neural agent evaluates the position as the opponent's afterstate and swaps sides).
    x: the cube efficiency, "auto" (GNU Backgammon's per position class, cube.cube_efficiency)
    or a number. ply=N >= 1 looks N rolls ahead, as GNU Backgammon's N-ply cube does: for each of
    the mover's 21 rolls its play is chosen and valued at (N-1)-ply (afterstate_fn(boards, again)
    -> [m, 5], the afterstates' 0-ply probabilities from the view of the player who made them,
    searched by agents/search.Search at N = 2 over the plays `move_filter` keeps at 0-ply; the choice
    by cubeless equity in money play, by match-winning chance at a match score) and the next
    player's 0-ply cube decision on those probabilities is averaged over the 21 rolls
    (cube.cube_decision_1ply).
    """

    name = "janowski"

    def __init__(self, probs_fn, x="auto", ply: int = 0, afterstate_fn=None,
                 move_filter: MoveFilter = REPLY_FILTER):
        if not (x == "auto" or isinstance(x, (int, float)) and 0.0 <= float(x) <= 1.0):
            raise ValueError(f"cube efficiency x must be 'auto' or a number in [0, 1], got {x!r}")
        try:
            ply = check_ply(ply)
        except ValueError:
            raise ValueError(f"cube ply must be 0, 1 or 2, got {ply!r}") from None
        if ply and afterstate_fn is None:
            raise ValueError(f"a {ply}-ply cube needs afterstate_fn (the evaluator of afterstates)")
        self.probs_fn, self.x, self.ply, self.afterstate_fn = probs_fn, x, ply, afterstate_fn
        self.move_filter = move_filter
        # what the last decide() read: the mover's pre-roll probabilities (N-ply: the average
        # over the rolls) and which rows took the exact bear-off values
        self.last_probs = self.last_exact = None

    def efficiency(self, variant, boards):
        if self.x == "auto":
            return cube_math.cube_efficiency(variant, boards)
        return np.full(np.asarray(boards).shape[0], float(self.x))

    def decide(self, variant, boards, ctx):
        """(decision codes, equities [n, 3]: no double, double-take, double-pass). With x =
        "auto", money decisions in short two-sided bear-offs are the exact ones
        (cube.exact_bearoff_money), at either ply."""
        if self.ply:
            codes, eq = self._decide_nply(variant, boards, ctx)
        else:
            probs = self.probs_fn(variant, boards)
            self.last_probs = np.asarray(probs, dtype=np.float64)
            codes, eq = cube_math.cube_decision(probs, ctx, self.efficiency(variant, boards))
        self.last_exact = np.zeros(len(codes), dtype=bool)
        if self.x == "auto" and not ctx.is_match:
            codes, eq, self.last_exact = cube_math.exact_bearoff_money(variant, boards, ctx.owner, codes, eq)
        return codes, eq

    def _decide_nply(self, variant, boards, ctx):
        boards = np.asarray(boards)
        n, r = boards.shape[0], len(ROLLS)
        pos = np.repeat(boards, r, axis=0)
        dice = np.tile(ROLLS, (n, 1))
        after = variant.legal_afterstates(pos, dice)
        again_rows = variant.extra_turn(dice)[after.parent]
        root = after.parent // r

        def score(p, rows=slice(None)):     # what the mover's play of each roll maximises
            if ctx.is_match:
                return cube_math.mwc_from_probs(p, ctx.away[root[rows]], ctx.opp_away[root[rows]],
                                                ctx.value[root[rows]], ctx.met)
            return equity(p)

        p = np.asarray(self.afterstate_fn(after.boards, again_rows), dtype=np.float64)
        if self.ply == 1:
            best = segment_argmax(score(p), after.parent, n * r)
        else:   # the plays the filter keeps at 0-ply, valued at (ply - 1)-ply
            rows = np.flatnonzero(self.move_filter.keep(equity(p), after.parent, n * r))
            p = p.copy()
            p[rows] = Search(self.afterstate_fn, variant).values(after.boards[rows], again_rows[rows], self.ply - 1)
            best = best_of(score(p[rows], rows), rows, after.parent, n * r)
        chosen = after.boards[best]
        again = variant.extra_turn(dice)
        over = variant.winner_points(chosen) > 0
        nxt = np.where(again[:, None], chosen, variant.flip(chosen))
        leaf_x = np.where(over, 0.0, self.efficiency(variant, nxt))
        leaf = p[best].reshape(n, r, 5)
        self.last_probs = np.einsum("nrc,r->nc", leaf, ROLL_WEIGHTS)
        return cube_math.cube_decision_1ply(leaf, leaf_x.reshape(n, r), ROLL_WEIGHTS, ctx,
                                            over.reshape(n, r), again.reshape(n, r))

    def offer(self, variant, boards, ctx):
        return self.decide(variant, boards, ctx)[0] != cube_math.NO_DOUBLE

    def accept(self, variant, boards, ctx):
        decision, eq = self.decide(variant, boards, ctx)
        return eq[:, 1] < eq[:, 2]  # the taker takes when double-take costs it less than a pass
