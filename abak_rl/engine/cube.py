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

Money play: Janowski's interpolation between the dead-cube equity (cubeless, the cube never
used again) and the live-cube equity (a cube used perfectly, piecewise linear in the winning
chance p between the take and cash points), weighted by a cube efficiency x:

    E(x) = x * E_live + (1 - x) * E_dead

with W = average points won when winning, L = average points lost when losing, take point
TP = (L - 1/2) / (W + L + 1/2) and cash point CP = (L + 1) / (W + L + 1/2). The live equity runs
through (0, -L), (TP, -1), (CP, +1), (1, W) for a centred cube; through (0, -L), (CP, +1),
(1, W) when the player owns it; through (0, -L), (TP, -1), (1, W) when the opponent owns it.

Match play works in match-winning chances (MWC) read from a match equity table (default
Kazaross-XG2, the table GNU Backgammon uses; `met="recursion"` is our own approximation). The
same interpolation, with GNU Backgammon's live-cube cash points: computed from the highest cube
level that can still matter down to the current one (at the top level the doubled cube is dead,
below it each side's cash point follows from the other's one level up), with the gammon and
backgammon rates of the position. The cube's efficiency x is GNU Backgammon's per position
class (`cube_efficiency`): 0.68 in contact, 0.55 + 0.00125 x (pips of the player to move)
clamped to 0.6..0.7 in a race, 0.6 when both sides bear off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

CENTRED = -1
NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = 0, 1, 2
DECISION_NAMES = {NO_DOUBLE: "no double", DOUBLE_TAKE: "double, take", DOUBLE_PASS: "double, pass"}
DEFAULT_X = 0.68          # cube efficiency in contact (GNU Backgammon's default)


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


def crawford_game(need: np.ndarray, crawford_done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(is the next game the Crawford game, has it been reached) for matches where the players
    still need `need` [.., 2] points: the Crawford game is the first game with a player at
    1-away; every game after it is post-Crawford."""
    one_away = (np.asarray(need) == 1).any(axis=-1)
    return one_away & ~np.asarray(crawford_done, dtype=bool), np.asarray(crawford_done, dtype=bool) | one_away


@dataclass
class CubeContext:
    """Cube and match state of each position, seen from the player to move.

    owner: 0 centred, 1 the player to move owns the cube, -1 its opponent does.
    away / opp_away: points still needed in a match (None in money play); met: the
    MatchEquityTable; crawford: True in the Crawford game (no cube); jacoby: money play with
    the Jacoby rule.
    """

    value: np.ndarray
    owner: np.ndarray
    away: np.ndarray | None = None
    opp_away: np.ndarray | None = None
    met: "MatchEquityTable | None" = None
    crawford: np.ndarray | None = None
    jacoby: bool = False

    @property
    def is_match(self) -> bool:
        return self.away is not None

    def crawford_mask(self) -> np.ndarray:
        if self.crawford is None:
            return np.zeros(np.shape(self.value), dtype=bool)
        return np.asarray(self.crawford, dtype=bool)


# ----------------------------------------------------------------------------- match equity

MET_FILES = {"kazaross-xg2": "met_kazaross_xg2.json"}
DEFAULT_MET = "kazaross-xg2"
MET_CHOICES = tuple(MET_FILES) + ("recursion",)


@dataclass(frozen=True)
class MatchEquityTable:
    """A match equity table: pre[a, b] is the chance that the player a-away wins against one
    b-away at the start of a game (a, b >= 1; a or b = 1 is the Crawford game); post[b] the
    chance of the trailer b-away against the leader 1-away after the Crawford game (post[1] =
    1/2). Row and column 0 are unused."""

    name: str
    pre: np.ndarray
    post: np.ndarray
    source: str = ""

    @property
    def length(self) -> int:
        return self.pre.shape[0] - 1

    def equity(self, away, opp_away, post_crawford=False) -> np.ndarray:
        """MWC of the player `away` from winning against one `opp_away`, at the start of the
        next game (away <= 0: the match is won, opp_away <= 0: lost). post_crawford: the game
        that produced this score was the Crawford game or after it, so a player at 1-away plays
        post-Crawford (otherwise reaching 1-away starts the Crawford game)."""
        a, b = np.asarray(away), np.asarray(opp_away)
        if (np.maximum(a, b) > self.length).any():
            raise ValueError(f"the {self.name} match equity table covers {self.length} points, "
                             f"asked for {int(np.maximum(a, b).max())}-away")
        ai, bi = np.clip(a, 1, self.length), np.clip(b, 1, self.length)
        post = np.where(ai == 1, 1.0 - self.post[bi], self.post[ai])
        val = np.where(np.asarray(post_crawford) & ((ai == 1) | (bi == 1)), post, self.pre[ai, bi])
        return np.where(a <= 0, 1.0, np.where(b <= 0, 0.0, val))


def load_met(name: str = DEFAULT_MET) -> MatchEquityTable:
    """A stored table by name (see MET_FILES)."""
    if name not in MET_FILES:
        raise ValueError(f"unknown match equity table {name!r}: expected one of {', '.join(MET_CHOICES)}")
    return _load_met(name)


@lru_cache(maxsize=None)
def _load_met(name: str) -> MatchEquityTable:
    raw = json.loads(resources.files("abak_rl.data").joinpath(MET_FILES[name]).read_text())
    n = int(raw["length"])
    pre = np.zeros((n + 1, n + 1))
    pre[1:, 1:] = np.asarray(raw["pre_crawford"], dtype=np.float64)
    post = np.zeros(n + 1)
    post[1:] = np.asarray(raw["post_crawford"], dtype=np.float64)
    pre.setflags(write=False)
    post.setflags(write=False)
    return MatchEquityTable(name, pre, post, raw.get("source", ""))


def get_met(spec="kazaross-xg2", length: int = 1, gammon_rate: float = 0.26) -> MatchEquityTable:
    """The table for matches to `length` points: a stored table's name, "recursion" (computed by
    match_equity_table), or a MatchEquityTable (returned as is). One clear ValueError when the
    table is shorter than the match."""
    if isinstance(spec, MatchEquityTable):
        met = spec
    elif spec is None or spec == DEFAULT_MET:
        met = load_met(DEFAULT_MET)
    elif spec == "recursion":
        met = recursion_met(max(int(length), 1), gammon_rate)
    else:
        met = load_met(spec)
    if length > met.length:
        raise ValueError(f"match length {length} is longer than the {met.name} match equity table "
                         f"({met.length} points); use met=recursion")
    return met


def recursion_met(length: int, gammon_rate: float = 0.26) -> MatchEquityTable:
    """match_equity_table as a MatchEquityTable (its post-Crawford values seen from the trailer)."""
    met, pc = match_equity_table(length, gammon_rate)
    return MatchEquityTable(f"recursion (gammon rate {gammon_rate})", met, 1.0 - pc,
                            "computed by abak_rl.engine.cube.match_equity_table")


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




def mwc_from_probs(probs: np.ndarray, away, opp_away, cube, met: MatchEquityTable) -> np.ndarray:
    """Match-winning chance of the player whose five outcome probabilities these are, with a
    dead cube of value `cube` at the score (away, opp_away): each outcome (single, gammon,
    backgammon, won or lost) weighted by the match equity of the score it leaves, capped at the
    match's end. Used to choose checker plays at a match score (the play that wins the most
    matches) and as the dead-cube MWC of the cube decisions."""
    probs = np.asarray(probs, dtype=np.float64)
    a, b, c = np.asarray(away), np.asarray(opp_away), np.asarray(cube)
    post = (a == 1) | (b == 1)
    win, lose = _outcome_mwc(met, a, b, c, post, (1, 2, 3))
    single_w = probs[..., 0] - probs[..., 1]
    single_l = 1.0 - probs[..., 0] - probs[..., 3]
    return (single_w * win[0] + (probs[..., 1] - probs[..., 2]) * win[1] + probs[..., 2] * win[2]
            + single_l * lose[0] + (probs[..., 3] - probs[..., 4]) * lose[1] + probs[..., 4] * lose[2])


def _outcome_mwc(met, a, b, c, post, mults):
    """MWC of winning and of losing mult x c points, for each multiple."""
    win = [met.equity(a - m * c, b, post) for m in mults]
    lose = [met.equity(a, b - m * c, post) for m in mults]
    return win, lose


# ----------------------------------------------------------------------------- cube efficiency

CONTACT, RACE, BEAROFF = 0, 1, 2
CLASS_NAMES = ("contact", "race", "bearoff")


def position_class(variant, boards: np.ndarray) -> np.ndarray:
    """The cube's position class of each position (CONTACT, RACE or BEAROFF: every checker of
    both sides in its home board, none on the bar), which sets its cube efficiency."""
    return _classify(variant, boards)[0]


def cube_efficiency(variant, boards: np.ndarray) -> np.ndarray:
    """GNU Backgammon's cube efficiency x per position (the player to move's view): 0.68 with
    contact; in a race 0.55 + 0.00125 x the pips of the player to move, clamped to 0.6..0.7; 0.6
    when both sides have every checker in their home boards. Abak positions are classified on
    their class-blind view, and a column holding both sides' checkers is contact."""
    cls, pips = _classify(variant, boards)
    race_x = np.clip(0.55 + 0.00125 * pips, 0.6, 0.7)
    return np.where(cls == BEAROFF, 0.6, np.where(cls == RACE, race_x, DEFAULT_X))


def _classify(variant, boards: np.ndarray):
    """(position class, pips of the player to move) per position."""
    from . import board as cb
    b = np.asarray(boards)
    contact_extra = np.zeros(b.shape[0], dtype=bool)
    if getattr(variant, "kind", "classic") == "abak":
        from .abak.board import stacks, to_classic
        st = stacks(b)
        contact_extra = ((st > 0).any(-1) & (st < 0).any(-1)).any(-1)
        b = to_classic(b)
    pts = b[:, : cb.N_POINTS].astype(np.int64)
    idx = np.arange(1, cb.N_POINTS + 1)
    mine, theirs = pts > 0, pts < 0
    waiting = b[:, cb.BAR] + b[:, cb.POOL] > 0
    opp_waiting = b[:, cb.OPP_BAR] + b[:, cb.OPP_POOL] > 0
    my_back = np.where(waiting, 25, np.where(mine, idx, 0).max(1))
    opp_back = np.where(opp_waiting, 0, np.where(theirs, idx, 25).min(1))
    race = (my_back < opp_back) & ~contact_extra
    bearoff = race & (my_back <= 6) & (opp_back >= 19)
    pips = (np.clip(pts, 0, None) * idx).sum(1) + 25 * (b[:, cb.BAR] + b[:, cb.POOL])
    return np.where(bearoff, BEAROFF, np.where(race, RACE, CONTACT)), pips


# ----------------------------------------------------------------------------- money (Janowski)

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


def money_equity(probs: np.ndarray, owner: np.ndarray, x=DEFAULT_X, jacoby: bool = False) -> np.ndarray:
    """Janowski cubeful money equity per unit of cube, for the player to move.

    owner: 0 centred, 1 the player to move owns the cube, -1 the opponent owns it. x: a number
    or one per position. jacoby: gammons count single while the cube is centred: a centred
    cube's dead equity is 2p - 1 and its live curve is flat at -1 below the take point and at +1
    above the cash point (both points still from W and L, as GNU Backgammon does).
    """
    p, W, L = outcome_values(probs)
    owner = np.asarray(owner)
    dead = p * W - (1 - p) * L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    zero, one = np.zeros_like(p), np.ones_like(p)
    if jacoby:
        dead = np.where(owner == 0, 2 * p - 1, dead)
    lo, hi = (np.where(owner == 0, -one, -L), np.where(owner == 0, one, W)) if jacoby else (-L, W)
    centred = _interp(p, [zero, tp, cp, one], [lo, -one, one, hi])
    owned = _interp(p, [zero, cp, one], [-L, one, W])
    theirs = _interp(p, [zero, tp, one], [-L, -one, W])
    live = np.where(owner == 0, centred, np.where(owner > 0, owned, theirs))
    x = np.asarray(x, dtype=np.float64)
    return x * live + (1 - x) * dead


def _decide(nd, dt, dp, available):
    """Codes from the three equities of the player to move: double when both doubling
    outcomes beat not doubling; the opponent takes when taking costs it less than passing."""
    double = available & (np.minimum(dt, dp) > nd)
    return np.where(double, np.where(dt < dp, DOUBLE_TAKE, DOUBLE_PASS), NO_DOUBLE)


def money_cube_decision(probs: np.ndarray, owner: np.ndarray, x=DEFAULT_X, jacoby: bool = False):
    """Decision of the player to move before rolling, money play.

    Returns (decision codes NO_DOUBLE / DOUBLE_TAKE / DOUBLE_PASS, equities [.., 3] for no
    double, double-take, double-pass, in units of the current cube value). The opponent takes
    exactly when taking loses less than passing (DT < DP). A cube the opponent owns is never
    turned.
    """
    owner = np.asarray(owner)
    nd = money_equity(probs, owner, x, jacoby)
    dt = 2.0 * money_equity(probs, np.full(np.shape(nd), -1), x)
    dp = np.ones_like(nd)
    return _decide(nd, dt, dp, np.broadcast_to(owner >= 0, np.shape(nd))), np.stack([nd, dt, dp], axis=-1)


def take_decision_money(probs_doubler: np.ndarray, x=DEFAULT_X) -> np.ndarray:
    """True where the player offered a double should take: the doubler's double-take equity
    (the taker then owns the cube at twice the value) is below the +1 a pass would give."""
    dt = 2.0 * money_equity(probs_doubler, np.full(np.shape(probs_doubler)[:-1], -1), x)
    return dt < 1.0


# ----------------------------------------------------------------------------- match (MWC)

def _rates(probs):
    """(p, gammon-only and backgammon shares of the player's wins, the same of its losses)."""
    probs = np.asarray(probs, dtype=np.float64)
    p = probs[..., 0]
    pw, pl = np.maximum(p, 1e-12), np.maximum(1.0 - p, 1e-12)
    gw = np.where(p > 0, (probs[..., 1] - probs[..., 2]) / pw, 0.0)
    bw = np.where(p > 0, probs[..., 2] / pw, 0.0)
    gl = np.where(p < 1, (probs[..., 3] - probs[..., 4]) / pl, 0.0)
    bl = np.where(p < 1, probs[..., 4] / pl, 0.0)
    return p, gw, bw, gl, bl


def _safe_div(num, den):
    ok = np.abs(den) > 1e-12
    return np.where(ok, num / np.where(ok, den, 1.0), 0.0)


MAX_LEVELS = 8   # cube levels above the current one (2**8 covers any table here)


def match_cash_points(probs, away, opp_away, cube, met: MatchEquityTable):
    """Live-cube cash points (cp_me, cp_opp) at the current cube level, as GNU Backgammon
    computes them: cp_me is the winning chance of the player to move at which the opponent is
    indifferent between taking and passing its double; cp_opp the same for the opponent (in
    the opponent's winning chance). From the highest level at which doubling still matters (the
    next double would cover what one side needs: a dead cube, the taker's automatic redouble
    counted) down to the current one, where a side's cash point is
    1 - (other side's cash point one level up) x (DP - DTW) / (RDP - DTW)."""
    p, gw, bw, gl, bl = _rates(probs)
    a, b, c = np.asarray(away), np.asarray(opp_away), np.asarray(cube)
    post = (a == 1) | (b == 1)
    # per side k (0: the player to move, 1: the opponent): its away, the other's, its own
    # gammon/backgammon shares of wins and the other's
    sides = ((a, b, gw, bw, gl, bl), (b, a, gl, bl, gw, bw))
    levels = np.zeros(np.shape(p), dtype=np.int64)
    d = c.copy() if np.ndim(c) else np.full(np.shape(p), c)
    for _ in range(MAX_LEVELS):
        more = (a > 2 * d) & (b > 2 * d)
        levels += more
        d = np.where(more, 2 * d, d)
    cp_up = [np.ones(np.shape(p)), np.ones(np.shape(p))]
    for n in range(MAX_LEVELS, -1, -1):
        v = c * (2 ** n)
        active = n <= levels
        dead = (a <= 2 * v) | (b <= 2 * v)
        cp_now = []
        for k, (ak, bk, g_k, b_k, g_o, b_o) in enumerate(sides):
            def mwc(mine, theirs):     # MWC of side k at the score it leaves
                return met.equity(mine, theirs, post)
            dp = mwc(ak - v, bk)
            # dead doubled cube: the taker redoubles at once when the doubler's need is covered
            vp = np.where((ak <= 2 * v) & (bk > 2 * v), 2 * v, v)
            dtl = ((1 - g_o - b_o) * mwc(ak, bk - 2 * vp) + g_o * mwc(ak, bk - 4 * vp)
                   + b_o * mwc(ak, bk - 6 * vp))
            dtw = ((1 - g_k - b_k) * mwc(ak - 2 * vp, bk) + g_k * mwc(ak - 4 * vp, bk)
                   + b_k * mwc(ak - 6 * vp, bk))
            cp_dead = _safe_div(dtl - dp, dtl - dtw)
            # live doubled cube: the taker's redouble/pass (RDP) and the doubled game won (DTW)
            rdp = mwc(ak, bk - 2 * v)
            dtw_live = ((1 - g_k - b_k) * mwc(ak - 2 * v, bk) + g_k * mwc(ak - 4 * v, bk)
                        + b_k * mwc(ak - 6 * v, bk))
            cp_live = 1.0 - cp_up[1 - k] * _safe_div(dp - dtw_live, rdp - dtw_live)
            cp_now.append(np.where(active, np.where(dead, cp_dead, cp_live), 1.0))
        cp_up = cp_now
    return cp_up[0], cp_up[1]


def _cubeful_mode(away, opp_away, cube, crawford):
    """Where GNU Backgammon evaluates a match position cubefully: not in the Crawford game, not
    with a cube dead for both sides, not at 2-away/2-away."""
    a, b, c = np.asarray(away), np.asarray(opp_away), np.asarray(cube)
    return ~np.asarray(crawford, dtype=bool) & ~((a <= c) & (b <= c)) & ~((a == 2) & (b == 2))


def match_cubeful_mwc(probs, away, opp_away, cube, owner, met: MatchEquityTable, x=DEFAULT_X,
                      crawford=False) -> np.ndarray:
    """Cubeful MWC of the player to move (0-ply, Janowski in MWC): x * live + (1 - x) * dead,
    the live curve piecewise linear in p through (0, lose with gammons), (opponent's take point
    1 - cp_opp, lose the cube), (cp_me, win the cube), (1, win with gammons); without the
    opponent's corner when the player owns the cube, without its own when the opponent does."""
    p, gw, bw, gl, bl = _rates(probs)
    a, b, c = np.asarray(away), np.asarray(opp_away), np.asarray(cube)
    owner = np.asarray(owner)
    post = (a == 1) | (b == 1)
    dead = mwc_from_probs(probs, a, b, c, met)
    cp_me, cp_opp = match_cash_points(probs, a, b, c, met)
    win, lose = _outcome_mwc(met, a, b, c, post, (1, 2, 3))
    cash, opp_cash = win[0], lose[0]
    win_all = (1 - gw - bw) * win[0] + gw * win[1] + bw * win[2]
    lose_all = (1 - gl - bl) * lose[0] + gl * lose[1] + bl * lose[2]
    opp_tg, tg = 1.0 - cp_opp, cp_me
    below = lose_all + (opp_cash - lose_all) * _safe_div(p, opp_tg)
    window = opp_cash + (cash - opp_cash) * _safe_div(p - opp_tg, tg - opp_tg)
    above = cash + (win_all - cash) * _safe_div(p - tg, 1.0 - tg)
    centred = np.where(p <= opp_tg, below, np.where(p < tg, window, above))
    owned = np.where(p <= tg, lose_all + (cash - lose_all) * _safe_div(p, tg), above)
    theirs = np.where(p <= opp_tg, below,
                      opp_cash + (win_all - opp_cash) * _safe_div(p - opp_tg, 1.0 - opp_tg))
    live = np.where(owner == 0, centred, np.where(owner > 0, owned, theirs))
    x = np.asarray(x, dtype=np.float64)
    cubeful = x * live + (1 - x) * dead
    return np.where(_cubeful_mode(a, b, c, crawford), cubeful, dead)


def match_cube_available(away, opp_away, cube, owner, crawford=False) -> np.ndarray:
    """The player to move may usefully double: cube centred or its own, not the Crawford game,
    and the cube does not already cover what it needs (a leader at 1-away never doubles)."""
    return (np.asarray(owner) >= 0) & ~np.asarray(crawford, dtype=bool) & (np.asarray(cube) < np.asarray(away))


def match_cube_decision(probs: np.ndarray, away: np.ndarray, opp_away: np.ndarray,
                        cube_value: np.ndarray, owner: np.ndarray, met: MatchEquityTable,
                        x=DEFAULT_X, crawford=False):
    """Decision of the player to move before rolling, match play.

    away/opp_away: points each player still needs; owner as in money_equity. Returns
    (decision codes, match winning chances [.., 3] for no double, double-take, double-pass).
    """
    c = np.asarray(cube_value)
    nd = match_cubeful_mwc(probs, away, opp_away, c, owner, met, x, crawford)
    dt = match_cubeful_mwc(probs, away, opp_away, 2 * c, np.full(np.shape(nd), -1), met, x, crawford)
    dp = met.equity(np.asarray(away) - c, opp_away, (np.asarray(away) == 1) | (np.asarray(opp_away) == 1))
    dp = np.broadcast_to(dp, np.shape(nd))
    available = np.broadcast_to(match_cube_available(away, opp_away, c, owner, crawford), np.shape(nd))
    return _decide(nd, dt, dp, available), np.stack([nd, dt, dp], axis=-1)


# ----------------------------------------------------------------------------- one entry point

def cube_decision(probs: np.ndarray, ctx: CubeContext, x=DEFAULT_X):
    """Money or match decision for positions in `ctx` (codes, equities [.., 3]): money
    equities per unit of the current cube, match ones in MWC."""
    if ctx.is_match:
        return match_cube_decision(probs, ctx.away, ctx.opp_away, ctx.value, ctx.owner, ctx.met,
                                   x, ctx.crawford_mask())
    return money_cube_decision(probs, ctx.owner, x, ctx.jacoby)


def exact_bearoff_money(variant, boards, owner, codes, eq):
    """(codes, eq, exact) with the money decisions of short two-sided bear-offs (at most six
    checkers a side, every one home: engine/bearoff_cube.py) replaced by their exact values;
    exact: bool [N], the rows replaced. What x = "auto" means in money play, as GNU Backgammon
    reads such positions from its two-sided database; a fixed x keeps Janowski everywhere."""
    from . import bearoff_cube
    b = np.asarray(boards)
    if getattr(variant, "kind", "classic") != "classic" or b.ndim != 2 or b.shape[1] != bearoff_cube.WIDTH:
        return codes, eq, np.zeros(len(b), dtype=bool)
    exact = bearoff_cube.covers(b)
    if not exact.any():
        return codes, eq, exact
    owner = np.broadcast_to(np.asarray(owner), exact.shape)
    values = bearoff_cube.get_two_sided_cube_db().money(b[exact], owner[exact])
    codes, eq = np.array(codes, copy=True), np.array(eq, dtype=np.float64, copy=True)
    eq[exact] = values
    codes[exact] = _decide(values[:, 0], values[:, 1], values[:, 2], owner[exact] >= 0)
    return codes, eq, exact


def cube_value(decision: np.ndarray, eq: np.ndarray) -> np.ndarray:
    """Equity of the decision taken: no double, or the doubling outcome the opponent picks."""
    return np.where(decision == NO_DOUBLE, eq[..., 0], np.minimum(eq[..., 1], eq[..., 2]))


def _swap(probs):
    probs = np.asarray(probs, dtype=np.float64)
    return np.stack([1.0 - probs[..., 0], probs[..., 3], probs[..., 4], probs[..., 1], probs[..., 2]], -1)


def _dead_points(probs, cube, owner, jacoby):
    """Cubeless money points of a finished game's exact probabilities, times the cube."""
    probs = np.asarray(probs, dtype=np.float64)
    eq = 2 * probs[..., 0] - 1 + probs[..., 1] + probs[..., 2] - probs[..., 3] - probs[..., 4]
    if jacoby:
        eq = np.where(np.asarray(owner) == 0, 2 * probs[..., 0] - 1, eq)
    return eq * cube


def cube_decision_1ply(leaf_probs: np.ndarray, leaf_x: np.ndarray, weights: np.ndarray,
                       ctx: CubeContext, over: np.ndarray, again: np.ndarray | None = None):
    """1-ply cube decision of the player to move (codes, equities [n, 3]).

    leaf_probs [n, R, 5]: after each of R rolls (weights [R], summing to 1), the outcome
    probabilities of the player to move's chosen play, from its view; leaf_x [n, R]: the cube
    efficiency of the position that follows; over [n, R]: that play ended the game; again
    [n, R]: the same player moves again (Acey-deucey's 1-2). For no double and for double-take,
    the next player makes its own 0-ply cube decision at the cube the branch leaves; the
    averages over the rolls are compared with double-pass as at 0-ply.
    """
    lp = np.asarray(leaf_probs, dtype=np.float64)
    n, r = lp.shape[:2]
    again = np.zeros((n, r), dtype=bool) if again is None else np.asarray(again, dtype=bool)
    over = np.asarray(over, dtype=bool)
    w = np.asarray(weights, dtype=np.float64)
    rep = lambda v: np.repeat(np.asarray(v)[:, None], r, axis=1) if v is not None else None
    value, owner = rep(ctx.value), rep(ctx.owner)
    crawford = rep(ctx.crawford_mask())
    flat = lambda v: v.reshape(-1) if v is not None else None

    def branch(cube, own):
        """Equity of the player to move after the roll, per leaf ([n, R])."""
        # the next mover: ourselves again, or the opponent (probabilities and ownership swapped)
        probs = np.where(again[..., None], lp, _swap(lp))
        nxt_owner = np.where(again, own, -own)
        if ctx.is_match:
            a, b = rep(ctx.away), rep(ctx.opp_away)
            na, nb = np.where(again, a, b), np.where(again, b, a)
            leaf = CubeContext(flat(cube), flat(nxt_owner), flat(na), flat(nb), ctx.met, flat(crawford))
            d, eq = cube_decision(probs.reshape(-1, 5), leaf, flat(leaf_x))
            v = cube_value(d, eq).reshape(n, r)
            ours = np.where(again, v, 1.0 - v)
            done = mwc_from_probs(lp, a, b, cube, ctx.met)
        else:
            leaf = CubeContext(flat(np.ones_like(cube)), flat(nxt_owner), jacoby=ctx.jacoby)
            d, eq = cube_decision(probs.reshape(-1, 5), leaf, flat(leaf_x))
            v = cube_value(d, eq).reshape(n, r) * cube / value
            ours = np.where(again, v, -v)
            done = _dead_points(lp, cube, own, ctx.jacoby) / value
        return (np.where(over, done, ours) * w).sum(1)

    nd = branch(value, owner)
    dt = branch(2 * value, np.full_like(owner, -1))
    if ctx.is_match:
        a, b, c = np.asarray(ctx.away), np.asarray(ctx.opp_away), np.asarray(ctx.value)
        dp = ctx.met.equity(a - c, b, (a == 1) | (b == 1))
        available = match_cube_available(a, b, c, ctx.owner, ctx.crawford_mask())
    else:
        dp = np.ones(n)
        available = np.asarray(ctx.owner) >= 0
    return _decide(nd, dt, dp, available), np.stack([nd, dt, dp], axis=-1)
