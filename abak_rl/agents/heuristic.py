"""A hand-written, variant-aware bot: the baseline that needs no training and no external net.

Every afterstate gets a score in "pip equivalents" from the side that just moved:
- contact: blots cost (rolls that hit them / 36) x (pips lost), worse against a strong opposing
  home board (shots counted over the 21 rolls, combination shots blocked by our made points);
  made points are worth a value by location (home board, bar point, anchors); a prime of 3+
  earns more; hits are worth the opponent's lost pips plus a bonus growing with our home board;
  tall stacks, dead checkers on the 1-3 points and checkers far from home cost;
- race (no contact left): fewest pips and checkers on the board, checkers brought home, no
  waste on the low points;
- Abak (read from the Abak encoding itself): made points and blots come from each column's top
  run, a lone Guard is a made point rather than a blot, an exposed Druid or General costs more,
  trapped checkers (ours cost, theirs gain, a covered trap more), full columns cost, and
  stragglers cost more (Wounded move on half the numbers).
Weights were tuned by short matches against pubeval (docs/benchmarks/evaluation.md).
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from ..engine.common import Afterstates, segment_argmax
from .pubeval import is_race

# Value of owning a made point, by own point 1..24.
POINT_VALUE = np.array([0.5, 1.5, 3.0, 5.0, 6.0, 5.5, 5.0, 3.0, 2.0, 1.5, 1.0, 0.5,
                        0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 1.5, 3.0, 3.0, 1.5, 1.0, 1.0])
W = dict(own_pips=1.0, hit=8.0, blot_tempo=0.0, board_risk=0.15, prime=1.0, opp_pips=1.0,
         bar_board=1.5, stack=2.0, deep=3.0, back=2.0, race_checker=3.0, race_stack=0.3, race_low=1.0,
         race_cross=2.0, race_far=0.05, far=0.5,
         trap_gain=6.0, trapped_cost=6.0, druid_risk=1.0, general_risk=0.5, full_column=1.5,
         lone_guard=1.0)
# Abak: stragglers cost more (Wounded move on half the numbers, columns cap at 5).
ABAK_W = {**W, "far": 0.8, "full_column": 4.0}
# Extra checkers (beyond two) on the 1, 2 and 3 points are out of play: their cost per checker.
DEEP = np.array([1.0, 0.7, 0.4])
# Race: quarters a checker must still cross to reach home, and its squared distance to home.
CROSSINGS = np.maximum(np.ceil((np.arange(1, 25) - 6) / 6), 0)
FAR = np.maximum(np.arange(1, 25) - 6, 0) ** 2 / 6.0
FAR_BAR = (25 - 6) ** 2 / 6.0          # the bar and Acey-deucey's pool sit at 25

# The 21 distinct rolls: weight (1 or 2 of 36) and dice.
_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
ROLL_WEIGHT = np.array([1 if a == b else 2 for a, b in _ROLLS], dtype=np.float64)
_BITS = np.int64(1) << np.arange(25, dtype=np.int64)


def as_mask(flags: np.ndarray) -> np.ndarray:
    """[N, 25] booleans -> one int64 bitmask per row (bit q = column q)."""
    return (flags.astype(np.int64) * _BITS).sum(1)


def shots(opp_at: np.ndarray, open_pts: np.ndarray) -> np.ndarray:
    """[N, 24] rolls out of 36 on which the opponent can hit a checker on each own point.

    opp_at: [N, 25] True where the opponent has a checker that can move from q (q = 0: its bar
    or pool, q = own point number otherwise; it moves towards higher own points). open_pts:
    [N, 25] True where it may land (column 0 unused). A combined shot needs its intermediate
    landings open; the must-enter-first rule is ignored.
    """
    start, ok = as_mask(opp_at), as_mask(open_pts)
    out = np.zeros((opp_at.shape[0], 24))
    bits = _BITS[1:]
    for (a, b), w in zip(_ROLLS, ROLL_WEIGHT):                   # 21 rolls, not positions
        if a == b:
            reach, step = 0, start
            for _ in range(4):
                step = (step << a) & ok
                reach = reach | step
        else:
            la, lb = (start << a) & ok, (start << b) & ok
            reach = la | lb | ((la << b) & ok) | ((lb << a) & ok)
        out += w * ((reach[:, None] & bits) != 0)
    return out


def longest_run(made: np.ndarray) -> np.ndarray:
    """Length of the longest run of consecutive True per row."""
    run = np.zeros(made.shape[0], dtype=np.int64)
    best = np.zeros_like(run)
    for i in range(made.shape[1]):                                # 24 columns, not positions
        run = np.where(made[:, i], run + 1, 0)
        best = np.maximum(best, run)
    return best


def classic_score(c: np.ndarray, made: np.ndarray | None = None, blots: np.ndarray | None = None,
                  own_pips: np.ndarray | None = None, w: dict | None = None) -> np.ndarray:
    """Score of classic rows [N, 30] seen from the side that just moved.

    Abak passes its own readings: made [N, 24] (made points, lone Guards included), blots
    [N, 24] (risk weight of each blot, 0 where none) and own_pips (trapped checkers count).
    """
    w = W if w is None else w
    b = np.asarray(c).astype(np.int64)
    own, opp = np.clip(b[:, :24], 0, None), np.clip(-b[:, :24], 0, None)
    pts = np.arange(1, 25)
    own_bar = b[:, cb.BAR] + b[:, cb.POOL]
    opp_bar = b[:, cb.OPP_BAR] + b[:, cb.OPP_POOL]
    pips = (own * pts).sum(1) + 25 * own_bar if own_pips is None else own_pips
    opp_pips = (opp * (25 - pts)).sum(1) + 25 * opp_bar
    made = own >= 2 if made is None else made
    blots = own == 1 if blots is None else blots

    opp_at = np.concatenate([(opp_bar > 0)[:, None], opp > 0], axis=1)
    open_pts = np.concatenate([np.zeros((b.shape[0], 1), bool), ~made], axis=1)
    opp_home = (opp[:, 18:] >= 2).sum(1)
    hit_cost = (w["blot_tempo"] + (25 - pts)[None, :]) * (1.0 + w["board_risk"] * opp_home)[:, None]
    risk = (blots * shots(opp_at, open_pts) / 36.0 * hit_cost).sum(1)
    own_home = made[:, :6].sum(1)
    deep = w["deep"] * (np.clip(own[:, :3] - 2, 0, None) * DEEP).sum(1)
    contact_score = ((made * POINT_VALUE).sum(1)
                     + w["prime"] * np.clip(longest_run(made) - 2, 0, None) ** 2
                     - risk
                     + w["opp_pips"] * opp_pips + (w["hit"] + w["bar_board"] * own_home) * opp_bar
                     - w["stack"] * np.clip(own - 3, 0, None).sum(1) - deep
                     - w["back"] * (own[:, 18:].sum(1) + own_bar)
                     - w["far"] * ((own * FAR).sum(1) + own_bar * FAR_BAR))
    race_score = (-deep - pips - w["race_checker"] * (cb.CHECKERS - b[:, cb.OFF])
                  - w["race_stack"] * np.clip(own[:, :6] - 2, 0, None).sum(1)
                  - w["race_low"] * (own[:, 0] + 0.5 * own[:, 1])
                  - w["race_cross"] * (own * CROSSINGS).sum(1) - w["race_far"] * (own * FAR).sum(1))
    score = np.where(is_race(b), race_score, contact_score - w["own_pips"] * pips)
    return np.where(b[:, cb.OFF] >= cb.CHECKERS, 1e9, score)


def abak_score(boards: np.ndarray) -> np.ndarray:
    """Score of Abak rows [N, 134]: the classic terms on the class-blind view plus class terms."""
    from ..engine.abak import board as ab
    b = np.asarray(boards)
    st = ab.stacks(b).astype(np.int64)                           # [N, 24, 5]
    height = (st != 0).sum(-1)
    top = np.take_along_axis(st, np.maximum(height - 1, 0)[..., None], -1)[..., 0]
    mine, theirs = st > 0, st < 0
    # A checker is trapped when a checker of the other colour sits anywhere above it.
    above_theirs = np.flip(np.cumsum(np.flip(theirs, -1), -1), -1) - theirs > 0
    above_mine = np.flip(np.cumsum(np.flip(mine, -1), -1), -1) - mine > 0
    own_trapped = (mine & above_theirs).sum((1, 2))
    opp_trapped = (theirs & above_mine).sum((1, 2))
    # Top run of own checkers: same colour counted down from the top.
    own_top_run = np.where(top > 0, np.cumprod(np.flip(mine | (st == 0), -1), -1).sum(-1)
                           - (5 - height), 0)
    lone_guard = (top == ab.GUARD) & (own_top_run == 1)
    weight = 1.0 + ABAK_W["druid_risk"] * (top == ab.DRUID) + ABAK_W["general_risk"] * (top == ab.GENERAL)
    blots = np.where((own_top_run == 1) & (top > 0) & ~lone_guard, weight, 0.0)
    made = (own_top_run >= 2) | lone_guard
    protected_trap = (own_top_run >= 2) & (theirs & above_mine).any(-1)
    pts = np.arange(1, 25)
    own_pips = (mine.sum(-1) * pts).sum(1) + 25 * b[:, ab.BAR:ab.BAR + 6].astype(np.int64).sum(1)
    s = classic_score(ab.to_classic(b), made=made, blots=blots, own_pips=own_pips, w=ABAK_W)
    s = s + (ABAK_W["trap_gain"] * opp_trapped - ABAK_W["trapped_cost"] * own_trapped
             + 0.5 * ABAK_W["trap_gain"] * protected_trap.sum(1)
             + ABAK_W["lone_guard"] * lone_guard.sum(1) - ABAK_W["full_column"] * (height >= 5).sum(1))
    return s


class HeuristicAgent:
    """Plays the afterstate with the best hand-written score (first on ties)."""

    def __init__(self, seed: int = 0):
        self.name = "heuristic"

    def score(self, variant, boards: np.ndarray) -> np.ndarray:
        if getattr(variant, "kind", "classic") == "classic":
            return classic_score(boards)
        if getattr(variant, "name", "") == "abak":
            return abak_score(boards)
        raise ValueError(f"the heuristic agent does not know variant {variant.name!r}")

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        return segment_argmax(self.score(variant, after.boards), after.parent, before.shape[0])
