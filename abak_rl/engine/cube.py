"""The doubling cube: cube state and scoring, match equity, and cubeful decisions.

Everything works on arrays (one entry per game) so the lockstep loop decides the cube for whole
batches at once.

Cube state per game: `value` (1, 2, 4, ...) and `owner` (-1 centred, else the seat that owns it).
Before rolling, the player to move may offer a double when the cube is centred or theirs (and,
in a match, not in the Crawford game). The opponent takes (value doubles, the taker owns the
cube) or drops (loses the current value at once).

Outcome probabilities are the evaluator's five numbers for the player to move, cumulative as in
GNU Backgammon: win, win gammon (incl. backgammons), win backgammon, lose gammon (incl.
backgammons), lose backgammon.

Cubeful money equity is Janowski's interpolation between the dead-cube equity (cubeless, the
cube never used again) and the live-cube equity (a cube used perfectly, piecewise linear in the
winning chance p between the take and cash points), weighted by a cube efficiency x:

    E(x) = x * E_live + (1 - x) * E_dead

with W = average points won when winning, L = average points lost when losing, take point
TP = (L - 1/2) / (W + L + 1/2) and cash point CP = (L + 1) / (W + L + 1/2). The live equity runs
through (0, -L), (TP, -1), (CP, +1), (1, W) for a centred cube; through (0, -L), (CP, +1),
(1, W) when the player owns it; through (0, -L), (TP, -1), (1, W) when the opponent owns it.

Match play applies the same interpolation to match-winning chances: the points of the money
curve are replaced by the match equities of each outcome, read from a match equity table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CENTRED = -1
NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = 0, 1, 2
DECISION_NAMES = {NO_DOUBLE: "no double", DOUBLE_TAKE: "double, take", DOUBLE_PASS: "double, pass"}


# ----------------------------------------------------------------------------- state and scoring

@dataclass
class CubeState:
    """Cube value and owner per game (owner: -1 centred, 0 or 1 the owning seat)."""

    value: np.ndarray
    owner: np.ndarray

    @classmethod
    def centred(cls, n: int) -> "CubeState":
        return cls(np.ones(n, dtype=np.int64), np.full(n, CENTRED, dtype=np.int8))

    def may_double(self, mover: np.ndarray, crawford: np.ndarray | None = None) -> np.ndarray:
        ok = (self.owner == CENTRED) | (self.owner == mover)
        if crawford is not None:
            ok &= ~crawford
        return ok

    def take(self, games: np.ndarray, taker: np.ndarray) -> None:
        self.value[games] *= 2
        self.owner[games] = taker


def game_points(result: np.ndarray, cube_value: np.ndarray, cube_owner: np.ndarray,
                jacoby: bool = False) -> np.ndarray:
    """Points a finished game is worth: result (1 single, 2 gammon, 3 backgammon) x cube.

    With the Jacoby rule (money play), gammons and backgammons count as single games while the
    cube is still centred.
    """
    result = np.asarray(result, dtype=np.int64)
    if jacoby:
        result = np.where(np.asarray(cube_owner) == CENTRED, np.minimum(result, 1), result)
    return result * np.asarray(cube_value, dtype=np.int64)


def match_award(points: np.ndarray, winner_away: np.ndarray) -> np.ndarray:
    """In a match a game is worth at most what its winner still needs."""
    return np.minimum(points, winner_away)


@dataclass
class CubeContext:
    """Cube and match state of each position, seen from the player to move.

    owner: 0 centred, 1 the player to move owns the cube, -1 its opponent does.
    away / opp_away: points still needed in a match (None in money play); met: the table.
    """

    value: np.ndarray
    owner: np.ndarray
    away: np.ndarray | None = None
    opp_away: np.ndarray | None = None
    met: np.ndarray | None = None

    @property
    def is_match(self) -> bool:
        return self.away is not None


# ----------------------------------------------------------------------------- match equity

def match_equity_table(length: int, gammon_rate: float = 0.26) -> tuple[np.ndarray, np.ndarray]:
    """Match equity tables computed by recursion from a gammon rate (documented approximation).

    Returns (met, post_crawford): met[a, b] = chance that the player needing a points wins
    against one needing b, before the cube is used in a game (a, b >= 1; a or b <= 0 means the
    match is over). Each game is even (p = 1/2) and a fraction `gammon_rate` of wins are
    gammons (backgammons are folded into gammons). When a player reaches 1-away, the next game
    is the Crawford game (no cube); after it the trailer doubles at once (post-Crawford), which
    makes every post-Crawford game worth 2 (4 with a gammon). Pre-Crawford games are scored as
    cubeless single/gammon games -- the usual first approximation; published tables that model
    the cube differ from it by a few percent.
    """
    g = float(gammon_rate)
    if not 0 <= g < 1:
        raise ValueError(f"gammon_rate must be in [0, 1), got {gammon_rate}")
    n = int(length)
    if n < 1:
        raise ValueError(f"match length must be at least 1, got {length}")
    size = n + 1

    # post-Crawford: leader 1-away, trailer b-away; pc[b] = chance the LEADER wins.
    pc = np.zeros(size + 4)
    for b in range(1, size):
        def lead(k: int) -> float:  # the trailer has won the match when k <= 0
            return 0.0 if k <= 0 else pc[k]
        # the trailer doubles; the leader takes (a free drop when b is even makes no difference
        # for equal 1/2 chances at this level of approximation)
        pc[b] = 0.5 + 0.5 * ((1 - g) * lead(b - 2) + g * lead(b - 4))

    met = np.zeros((size, size))

    def m(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return met[a, b]

    for total in range(2, 2 * n + 1):
        for a in range(1, size):
            b = total - a
            if b < 1 or b >= size:
                continue
            if a == 1 and b == 1:
                met[a, b] = 0.5
            elif a == 1:  # Crawford game: no cube, then post-Crawford
                lose1 = pc[b - 1] if b - 1 >= 1 else 0.0
                lose2 = pc[b - 2] if b - 2 >= 1 else 0.0
                met[a, b] = 0.5 + 0.5 * ((1 - g) * lose1 + g * lose2)
            elif b == 1:
                lose1 = pc[a - 1] if a - 1 >= 1 else 0.0
                lose2 = pc[a - 2] if a - 2 >= 1 else 0.0
                met[a, b] = 1.0 - (0.5 + 0.5 * ((1 - g) * lose1 + g * lose2))
            else:
                met[a, b] = (0.5 * ((1 - g) * m(a - 1, b) + g * m(a - 2, b))
                             + 0.5 * ((1 - g) * m(a, b - 1) + g * m(a, b - 2)))
    return met, pc[:size]


# ----------------------------------------------------------------------------- Janowski

def outcome_values(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, W, L): winning chance, average points of a win, average points of a loss."""
    probs = np.asarray(probs, dtype=np.float64)
    p = np.clip(probs[..., 0], 1e-9, 1 - 1e-9)
    W = (p + probs[..., 1] + probs[..., 2]) / p
    L = ((1 - p) + probs[..., 3] + probs[..., 4]) / (1 - p)
    return p, W, L


def _interp(p: np.ndarray, xs: list, ys: list) -> np.ndarray:
    """Piecewise-linear curve through (xs[i], ys[i]) evaluated at p (xs increasing per row)."""
    out = np.empty_like(p)
    out[...] = ys[-1]
    for i in range(len(xs) - 2, -1, -1):
        x0, x1, y0, y1 = xs[i], xs[i + 1], ys[i], ys[i + 1]
        t = np.where(x1 > x0, (p - x0) / np.where(x1 > x0, x1 - x0, 1.0), 1.0)
        seg = y0 + t * (y1 - y0)
        out = np.where(p <= x1, seg, out)
    return out


def money_equity(probs: np.ndarray, owner: np.ndarray, x: float = 0.68) -> np.ndarray:
    """Janowski cubeful money equity per unit of cube, for the player to move.

    owner: 0 centred, 1 the player to move owns the cube, -1 the opponent owns it.
    """
    p, W, L = outcome_values(probs)
    dead = p * W - (1 - p) * L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    zero, one = np.zeros_like(p), np.ones_like(p)
    centred = _interp(p, [zero, tp, cp, one], [-L, -one, one, W])
    owned = _interp(p, [zero, cp, one], [-L, one, W])
    theirs = _interp(p, [zero, tp, one], [-L, -one, W])
    owner = np.asarray(owner)
    live = np.where(owner == 0, centred, np.where(owner > 0, owned, theirs))
    return x * live + (1 - x) * dead


def money_cube_decision(probs: np.ndarray, owner: np.ndarray, x: float = 0.68):
    """Decision of the player to move before rolling, money play.

    Returns (decision codes NO_DOUBLE / DOUBLE_TAKE / DOUBLE_PASS, equities [.., 3] for no
    double, double-take, double-pass, in units of the current cube value). The opponent takes
    exactly when taking loses less than passing (DT < DP).
    """
    nd = money_equity(probs, owner, x)
    dt = 2.0 * money_equity(probs, np.full(np.shape(nd), -1), x)
    dp = np.ones_like(nd)
    best_double = np.minimum(dt, dp)
    decision = np.where(best_double > nd, np.where(dt < dp, DOUBLE_TAKE, DOUBLE_PASS), NO_DOUBLE)
    return decision, np.stack([nd, dt, dp], axis=-1)


def take_decision_money(probs_doubler: np.ndarray, x: float = 0.68) -> np.ndarray:
    """True where the player offered a double should take: the doubler's double-take equity
    (the taker then owns the cube at twice the value) is below the +1 a pass would give."""
    dt = 2.0 * money_equity(probs_doubler, np.full(np.shape(probs_doubler)[:-1], -1), x)
    return dt < 1.0


def match_cube_decision(probs: np.ndarray, away: np.ndarray, opp_away: np.ndarray,
                        cube_value: np.ndarray, owner: np.ndarray, met: np.ndarray,
                        x: float = 0.68):
    """Decision of the player to move before rolling, match play (Janowski in match equity).

    away/opp_away: points each player still needs; owner as in money_equity. Returns
    (decision codes, match winning chances [.., 3] for no double, double-take, double-pass).
    """
    p, _, _ = outcome_values(probs)
    probs = np.asarray(probs, dtype=np.float64)

    def me(a, b):
        a = np.asarray(a); b = np.asarray(b)
        inside = (a >= 1) & (b >= 1)
        ai = np.clip(a, 1, met.shape[0] - 1); bi = np.clip(b, 1, met.shape[1] - 1)
        return np.where(a <= 0, 1.0, np.where(b <= 0, 0.0, np.where(inside, met[ai, bi], 0.5)))

    def curve(v, own):
        """Cubeful MWC with cube value v and ownership `own` (Janowski in MWC space)."""
        win1, win2, win3 = me(away - v, opp_away), me(away - 2 * v, opp_away), me(away - 3 * v, opp_away)
        los1, los2, los3 = me(away, opp_away - v), me(away, opp_away - 2 * v), me(away, opp_away - 3 * v)
        pw = np.maximum(p, 1e-9)
        pl = np.maximum(1 - p, 1e-9)
        Wm = ((p - probs[..., 1]) * win1 + (probs[..., 1] - probs[..., 2]) * win2 + probs[..., 2] * win3) / pw
        Lm = ((1 - p - probs[..., 3]) * los1 + (probs[..., 3] - probs[..., 4]) * los2 + probs[..., 4] * los3) / pl
        dead = p * Wm + (1 - p) * Lm
        # the market points: the opponent cashes at us losing v, we cash at winning v
        cash_us, cash_them = me(away - v, opp_away), me(away, opp_away - v)
        # take/cash points from the doubled (2v) dead-cube game
        W2 = ((p - probs[..., 1]) * me(away - 2 * v, opp_away) + (probs[..., 1] - probs[..., 2]) * me(away - 4 * v, opp_away)
              + probs[..., 2] * me(away - 6 * v, opp_away)) / pw
        L2 = ((1 - p - probs[..., 3]) * me(away, opp_away - 2 * v) + (probs[..., 3] - probs[..., 4]) * me(away, opp_away - 4 * v)
              + probs[..., 4] * me(away, opp_away - 6 * v)) / pl
        span = np.where(np.abs(W2 - L2) > 1e-12, W2 - L2, 1e-12)
        cp = np.clip((cash_us - L2) / span, 0, 1)         # we cash: opponent indifferent
        tp = np.clip((cash_them - L2) / span, 0, 1)       # opponent cashes against us
        tp = np.minimum(tp, cp)
        zero, one = np.zeros_like(p), np.ones_like(p)
        lo = np.minimum(Lm, cash_them)
        hi = np.maximum(Wm, cash_us)
        centred = _interp(p, [zero, tp, cp, one], [lo, cash_them, cash_us, hi])
        owned = _interp(p, [zero, cp, one], [lo, cash_us, hi])
        theirs = _interp(p, [zero, tp, one], [lo, cash_them, hi])
        live = np.where(own == 0, centred, np.where(own > 0, owned, theirs))
        return x * live + (1 - x) * dead

    cube_value = np.asarray(cube_value)
    nd = curve(cube_value, np.asarray(owner))
    dt = curve(2 * cube_value, np.full(np.shape(p), -1))
    dp = me(away - cube_value, opp_away)
    best_double = np.minimum(dt, dp)
    # once the cube covers what the player to move needs, doubling can only cost
    useful = cube_value < away
    decision = np.where(useful & (best_double > nd), np.where(dt < dp, DOUBLE_TAKE, DOUBLE_PASS),
                        NO_DOUBLE)
    return decision, np.stack([nd, dt, dp], axis=-1)
