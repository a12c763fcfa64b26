"""Exact cubeful money equities of short two-sided bear-offs (docs/bearoff.md).

When both sides have every checker left in their home boards and at most six of them, no
gammon is possible (each side has borne off nine or more) and the game is a pure dice race
whose cube actions can be solved exactly: the equity of the player on roll, per unit of cube,
for each cube state (centred, owned by the player on roll, owned by the opponent), with every
later double, take, pass and play chosen optimally. Janowski's formula with a fixed cube
efficiency is poor exactly here (a last-roll position is a double at any winning chance above
one half, which x = 0.6 does not see); GNU Backgammon reads such positions from its two-sided
database in the same way.

Positions are pairs (the on-roll side's board, the opponent's board), each side's six home
points with 0..6 checkers (924 boards a side, 853,776 pairs). Solved by dynamic programming in
increasing total pips, every roll's distinct final boards listed once per board (a flat table),
the values of a whole pip level computed with array operations. Built in seconds and cached as
an .npz like the one-sided database (`get_two_sided_cube_db`). Money play only: match scores
keep the match cube's formula.
"""

from __future__ import annotations

import threading
from math import comb
from pathlib import Path

import numpy as np

from .bearoff import (N_POSITIONS, POINTS, ROLL_WEIGHTS, ROLLS, _one_die_children, _sides,
                      bearoff_counts, bearoff_index)
from .bearoff import cache_path as _one_sided_cache_path, cached, save_npz
from .board import BAR, OFF, OPP_BAR, OPP_OFF, OPP_POOL, POOL, WIDTH

VERSION = 1
MAX_CHECKERS = 6
N_BOARDS = comb(MAX_CHECKERS + POINTS, POINTS)        # 924
CENTRED, OWNED, THEIRS = 0, 1, 2                       # cube state, seen from the player on roll
_SWAP = (CENTRED, THEIRS, OWNED)                       # the same cube seen by the other side


def _boards() -> tuple[np.ndarray, np.ndarray]:
    """(counts [924, 6] of the small boards, map [54264] one-sided index -> small index or -1)."""
    big = np.arange(N_POSITIONS)
    counts = bearoff_counts(big)
    small = counts.sum(1) <= MAX_CHECKERS
    to_small = np.full(N_POSITIONS, -1, np.int64)
    to_small[big[small]] = np.arange(int(small.sum()))
    return counts[small], to_small


def _finals(counts: np.ndarray, to_small: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every roll's distinct final boards, for every small board: (flat successor indices, the
    roll of each entry, the first entry of each board [924 + 1]); a board's entries are grouped
    by roll in ROLLS order. Both dice are always played (a bear-off side can play any die while
    it has a checker; an empty board stays empty)."""
    n = counts.shape[0]
    child_big = _one_die_children(counts)                 # one-sided indices, -1 where illegal
    child = np.where(child_big >= 0, to_small[np.maximum(child_big, 0)], -1)   # [n, 7, 6]

    def step(cur, die):                                   # cur [n, k] -> [n, 6k]
        nxt = child[np.maximum(cur, 0), die]              # [n, k, 6]
        return np.where(cur[..., None] >= 0, nxt, -1).reshape(n, -1)

    start = np.arange(n)[:, None]
    per_roll = []
    for a, b in ROLLS:
        if a == b:
            cur = start
            for _ in range(4):
                cur = step(cur, a)
        else:
            cur = np.concatenate([step(step(start, a), b), step(step(start, b), a)], 1)
        s = np.sort(cur, 1)
        keep = (s >= 0) & np.concatenate([np.ones((n, 1), bool), s[:, 1:] != s[:, :-1]], 1)
        width = int(keep.sum(1).max())
        col = np.cumsum(keep, 1) - 1                      # where each kept board goes in its row
        out = np.full((n, width), -1, np.int64)
        rows = np.broadcast_to(np.arange(n)[:, None], s.shape)
        out[rows[keep], col[keep]] = s[keep]
        per_roll.append(out)
    k = max(a.shape[1] for a in per_roll)
    table = np.stack([np.pad(a, ((0, 0), (0, k - a.shape[1])), constant_values=-1) for a in per_roll], 1)
    mask = table >= 0                                      # [n, 21, k], row-major = board, roll, entry
    first = np.concatenate([[0], np.cumsum(mask.sum((1, 2)))])
    return table[mask], np.nonzero(mask)[1], first


def _before_roll(rolled: np.ndarray, s: int, y, x) -> np.ndarray:
    """The on-roll side's equity with its cube action taken (y on roll against x, state s), from
    the roll values: with access to the cube it doubles when min(double/take, double/pass) =
    min(2 x the roll value with the opponent owning the cube, 1) beats rolling on."""
    if s == THEIRS:
        return rolled[THEIRS, y, x]
    return np.maximum(rolled[s, y, x], np.minimum(2.0 * rolled[THEIRS, y, x], 1.0))


def _solve(counts, succ, roll_of, first) -> np.ndarray:
    """rolled [3, 924, 924] float64: R[s, x, y], the expected equity per unit of cube of the
    player on roll with board x against board y and cube state s if it rolls now (no double),
    every later play, double, take and pass optimal. Pairs are solved in increasing total pips
    (every play lowers its side's pips), a whole pip level at a time."""
    n = counts.shape[0]
    pips = counts.astype(np.int64) @ np.arange(1, POINTS + 1)
    empty = int(np.flatnonzero(counts.sum(1) == 0)[0])
    rolled = np.zeros((3, n, n))
    live = np.flatnonzero(np.arange(n) != empty)
    X, Y = np.meshgrid(live, live, indexing="ij")
    X, Y = X.ravel(), Y.ravel()
    total = pips[X] + pips[Y]
    order = np.argsort(total, kind="stable")
    X, Y, total = X[order], Y[order], total[order]
    cuts = np.flatnonzero(np.diff(total)) + 1
    n_rolls = len(ROLLS)
    for xs, ys in zip(np.split(X, cuts), np.split(Y, cuts)):
        lens = first[xs + 1] - first[xs]
        rep = np.repeat(np.arange(xs.size), lens)               # the pair of each entry
        pos = np.arange(rep.size) - np.repeat(np.cumsum(lens) - lens, lens) + first[xs][rep]
        nxt, roll = succ[pos], roll_of[pos]
        opp = ys[rep]
        won = nxt == empty
        nxt = np.where(won, 0, nxt)
        seg = rep * n_rolls + roll                              # a (pair, roll)'s entries are contiguous
        starts = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]]))
        for s in (CENTRED, OWNED, THEIRS):
            v = np.where(won, 1.0, -_before_roll(rolled, _SWAP[s], opp, nxt))
            best = np.maximum.reduceat(v, starts).reshape(xs.size, n_rolls)
            rolled[s, xs, ys] = best @ ROLL_WEIGHTS
    return rolled


_TO_SMALL: np.ndarray | None = None


def small_index(counts: np.ndarray) -> np.ndarray:
    """counts [N, 6] of a side's home points 1..6 -> small board index, -1 over six checkers."""
    global _TO_SMALL
    if _TO_SMALL is None:
        _TO_SMALL = _boards()[1]
    c = np.asarray(counts, np.int64)
    out = np.full(c.shape[0], -1, np.int64)
    ok = c.sum(1) <= MAX_CHECKERS
    if ok.any():
        out[ok] = _TO_SMALL[bearoff_index(c[ok])]
    return out


def pair_index(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) small board indices of the player to move and of its opponent for positions the
    table solves, both -1 elsewhere: both sides with every checker left in their home boards,
    none on the bar or in a pool, 1..6 checkers each. Needs no table (a cheap test first)."""
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != WIDTH:
        raise ValueError(f"classic boards must have shape [N, {WIDTH}], got {list(b.shape)}")
    b = b.astype(np.int64)
    mine, theirs = _sides(b)
    pts = b[:, :24]
    left_me, left_opp = 15 - b[:, OFF], 15 - b[:, OPP_OFF]
    ok = (~(pts[:, POINTS:] > 0).any(1) & ~(pts[:, :24 - POINTS] < 0).any(1)
          & (b[:, BAR] == 0) & (b[:, OPP_BAR] == 0) & (b[:, POOL] == 0) & (b[:, OPP_POOL] == 0)
          & (mine.sum(1) == left_me) & (theirs.sum(1) == left_opp)
          & (left_me > 0) & (left_opp > 0) & (left_me <= MAX_CHECKERS) & (left_opp <= MAX_CHECKERS))
    x = np.full(b.shape[0], -1, np.int64)
    y = x.copy()
    if ok.any():
        x[ok], y[ok] = small_index(mine[ok]), small_index(theirs[ok])
    return x, y


def covers(boards: np.ndarray) -> np.ndarray:
    """bool [N]: the positions (before a roll, the player to move's view) the table solves."""
    return pair_index(boards)[0] >= 0


class TwoSidedCubeDB:
    """rolled[s, x, y] (float32 [3, 924, 924]): the no-double equity per unit of cube of the
    player on roll with small board x against y in cube state s; `money` answers for rows."""

    def __init__(self, rolled: np.ndarray):
        self.rolled = np.asarray(rolled, np.float32)

    @classmethod
    def build(cls) -> "TwoSidedCubeDB":
        counts, to_small = _boards()
        return cls(_solve(counts, *_finals(counts, to_small)))

    def money(self, boards: np.ndarray, owner) -> np.ndarray:
        """[N, 3] float64: no double, double/take, double/pass per unit of cube for the player to
        move (owner: 0 centred, 1 the player to move, -1 the opponent, as engine/cube.py), on
        rows that `covers`; the same three numbers engine/cube.money_cube_decision returns."""
        x, y = pair_index(boards)
        if (x < 0).any():
            raise ValueError("a position is not a two-sided bear-off of at most "
                             f"{MAX_CHECKERS} checkers a side (bearoff_cube.covers)")
        owner = np.broadcast_to(np.asarray(owner), x.shape)
        state = np.where(owner == 0, CENTRED, np.where(owner > 0, OWNED, THEIRS))
        nd = self.rolled[state, x, y].astype(np.float64)
        dt = 2.0 * self.rolled[THEIRS, x, y].astype(np.float64)
        return np.stack([nd, dt, np.ones_like(nd)], axis=-1)


# ---- the cache -----------------------------------------------------------------------------

def cache_path() -> Path:
    """Next to the one-sided database: <cache>/bearoff2-cube-v<VERSION>.npz."""
    return _one_sided_cache_path().with_name(f"bearoff2-cube-v{VERSION}.npz")


def _load(path: Path) -> TwoSidedCubeDB:
    with np.load(path, allow_pickle=False) as f:
        if int(f["version"]) != VERSION:
            raise ValueError(f"version {int(f['version'])}, expected {VERSION}")
        rolled = f["rolled"]
    if rolled.shape != (3, N_BOARDS, N_BOARDS) or not np.isfinite(rolled).all() or np.abs(rolled).max() > 1 + 1e-5:
        raise ValueError(f"rolled has shape {rolled.shape} or values outside [-1, 1]")
    return TwoSidedCubeDB(rolled)


def load_or_build(path: Path | None = None) -> TwoSidedCubeDB:
    """The cached table, built (and cached) when missing (bearoff.cached: a damaged file is
    rebuilt with a warning, an unwritable cache only costs one)."""
    save = lambda db, p: save_npz(p, {"version": np.int64(VERSION), "rolled": db.rolled})   # noqa: E731
    return cached(cache_path() if path is None else Path(path), _load, TwoSidedCubeDB.build, save,
                  "two-sided bear-off")


_DB: TwoSidedCubeDB | None = None
_LOCK = threading.Lock()


def get_two_sided_cube_db() -> TwoSidedCubeDB:
    """The process-wide table (loaded from the cache or built on first use)."""
    global _DB
    with _LOCK:
        if _DB is None:
            _DB = load_or_build()
        return _DB
