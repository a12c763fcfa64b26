"""Exact one-sided bear-off database for the classic variants (docs/bearoff.md).

Once both sides have all their checkers in their home boards the game is a race with no
contact: each side's number of rolls to finish depends only on its own checkers and its own
dice. So one table over the 54,264 ways to put up to 15 checkers on six points (a side's home
board) gives, per position, the exact distribution of the number of rolls needed
(`rolls_off_all`) and to get a first checker off (`rolls_first_off`, for gammons), each under
the play that minimises its expectation. Two of them give a race's win and gammon chances
(`bearoff_probs`) without a net.

The tables are built here by dynamic programming in increasing pip count, from a one-die move
table: the best final position of k more moves with one die (k = 1..4) is a minimum over the
one-die moves of the best of k - 1, so no roll's afterstates are ever listed. Built in a few
seconds and cached as an .npz (`get_bearoff_db`). NumPy only.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
import zipfile
from math import comb
from pathlib import Path

import numpy as np

from . import bearoff_compiled
from .board import BAR, N_POINTS, OFF, OPP_BAR, OPP_OFF, OPP_POOL, POOL, WIDTH

VERSION = 1
POINTS = 6
MAX_CHECKERS = 15
N_POSITIONS = comb(MAX_CHECKERS + POINTS, POINTS)  # 54,264
MAX_ROLLS = 32  # distributions hold n = 0..31 rolls; no position needs more than 30 (none cut)
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0

# _BINOM[i, n] = C(n, i + 1): the combinatorial number system's weights
_BINOM = np.array([[comb(n, i + 1) for n in range(MAX_CHECKERS + POINTS)] for i in range(POINTS)],
                  dtype=np.int64)


def bearoff_index(counts: np.ndarray) -> np.ndarray:
    """Perfect hash of one side's home board: counts [N, 6] (points 1..6, sum <= 15) -> [N].

    Stars and bars: the six counts and the borne-off rest are 15 stars split by 6 bars; bar i
    (0-based) stands at b_i = c_1 + .. + c_{i+1} + i, and the index is sum_i C(b_i, i + 1) --
    the combinatorial number system, a bijection onto 0 .. C(21, 6) - 1. The empty board is 0.
    """
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] != POINTS:
        raise ValueError(f"counts must have shape [N, {POINTS}], got {list(c.shape)}")
    c = c.astype(np.int64)
    if c.size and (c.min() < 0 or c.sum(1).max() > MAX_CHECKERS):
        raise ValueError(f"counts must be >= 0 with at most {MAX_CHECKERS} checkers a row")
    bars = np.cumsum(c, axis=1) + np.arange(POINTS)
    return _BINOM[np.arange(POINTS), bars].sum(1)


def bearoff_counts(index: np.ndarray) -> np.ndarray:
    """Inverse of bearoff_index: indices [N] -> counts int8 [N, 6]."""
    rem = np.asarray(index, dtype=np.int64).reshape(-1).copy()
    if rem.size and (rem.min() < 0 or rem.max() >= N_POSITIONS):
        raise ValueError(f"bear-off indices must be in 0..{N_POSITIONS - 1}")
    bars = np.empty((rem.size, POINTS), np.int64)
    for i in range(POINTS - 1, -1, -1):  # the largest b with C(b, i + 1) <= rem, top bar first
        b = np.searchsorted(_BINOM[i], rem, side="right") - 1
        bars[:, i] = b
        rem -= _BINOM[i, b]
    counts = np.diff(bars, axis=1, prepend=-1) - 1
    return counts.astype(np.int8)


def _one_die_children(counts: np.ndarray) -> np.ndarray:
    """CHILD[idx, die, src]: index after moving one checker from point src+1 by die, -1 if that
    movement is illegal. A bear-off side can always play any die while it has a checker (exact
    bear-off, a move down inside the home board, or the highest checker off with a larger die),
    so 'use both dice' never bites; the empty board plays nothing and stays itself."""
    m = counts.shape[0]
    c = counts.astype(np.int64)
    occupied = c > 0
    # highest occupied point (0-based), -1 when empty
    top = np.where(occupied.any(1), POINTS - 1 - np.argmax(occupied[:, ::-1], axis=1), -1)
    child = np.full((m, 7, POINTS), -1, np.int64)
    for die in range(1, 7):
        for src in range(POINTS):
            p = src + 1
            legal = occupied[:, src] & ((p >= die) | (top == src))
            new = c[legal].copy()
            new[:, src] -= 1
            if p > die:
                new[:, src - die] += 1
            child[legal, die, src] = bearoff_index(new)
        child[~occupied.any(1), die, 0] = np.flatnonzero(~occupied.any(1))
    return child


def _solve(child: np.ndarray, counts: np.ndarray, full: int | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """(distribution [M, MAX_ROLLS] float64, expectation [M]) of the rolls to bear off all
    checkers (full=None) or, full=k, until fewer than k are left (k=15: a first checker off),
    each roll played to minimise that expectation. Positions are solved in increasing pip count:
    every play lowers it, so a position's afterstates are all solved before it."""
    m = child.shape[0]
    c = counts.astype(np.int64)
    n_checkers, pip = c.sum(1), c @ np.arange(1, POINTS + 1)
    done = (n_checkers == 0) if full is None else (n_checkers < full)
    dist = np.zeros((m, MAX_ROLLS))
    dist[done, 0] = 1.0
    expect = np.zeros(m)
    ids = np.arange(m)
    # argmin key: expectation to 1e-9, then the lower index (the same rule as the brute force)
    key = np.full(m, np.iinfo(np.int64).max)
    key[done] = ids[done]
    # best[k][die][x]: the position with the lowest key among those k moves of die reach from x
    best = np.zeros((5, 7, m), np.int64)
    best[0] = ids
    order = np.argsort(pip, kind="stable")
    levels = np.split(order, np.flatnonzero(np.diff(pip[order])) + 1)

    def pick(cands):  # cands [n, j] of indices or -1 -> the one with the lowest key
        k = np.where(cands >= 0, key[np.maximum(cands, 0)], np.iinfo(np.int64).max)
        return np.take_along_axis(cands, k.argmin(1)[:, None], 1)[:, 0]

    for xs in levels:
        for die in range(1, 7):
            kids = child[xs, die]
            for k in range(1, 5):
                prev = best[k - 1, die][np.maximum(kids, 0)]
                best[k, die, xs] = pick(np.where(kids >= 0, prev, -1))
        todo = xs[~done[xs]]
        if todo.size == 0:
            continue
        finals = np.empty((todo.size, len(ROLLS)), np.int64)
        for r, (a, b) in enumerate(ROLLS):
            if a == b:
                finals[:, r] = best[4, a, todo]
            else:
                ka, kb = child[todo, a], child[todo, b]
                cands = np.concatenate([np.where(ka >= 0, best[1, b][np.maximum(ka, 0)], -1),
                                        np.where(kb >= 0, best[1, a][np.maximum(kb, 0)], -1)], 1)
                finals[:, r] = pick(cands)
        expect[todo] = 1.0 + expect[finals] @ ROLL_WEIGHTS
        dist[todo, 1:] = np.einsum("r,nrk->nk", ROLL_WEIGHTS, dist[finals, :-1])
        key[todo] = np.round(expect[todo] * 1e9).astype(np.int64) * (1 << 17) + todo
    return dist, expect


class BearoffDB:
    """The two one-sided tables, indexed by bearoff_index of a side's home board (points 1..6).

    rolls_off_all[i, n]:   P(exactly n rolls to bear off every checker), float32 [54264, 32]
    rolls_first_off[i, n]: P(exactly n rolls until a first checker is off); only positions with
                           all 15 checkers on the board need a roll (the others have n = 0)
    expected_off_all, expected_first_off: the expectations, float64 [54264]
    """

    def __init__(self, rolls_off_all, rolls_first_off, expected_off_all, expected_first_off):
        self.rolls_off_all = np.asarray(rolls_off_all, np.float32)
        self.rolls_first_off = np.asarray(rolls_first_off, np.float32)
        self.expected_off_all = np.asarray(expected_off_all, np.float64)
        self.expected_first_off = np.asarray(expected_first_off, np.float64)
        # survival functions P(N > n), n = 0..MAX_ROLLS-1, for bearoff_probs
        self._cdf_all = np.cumsum(self.rolls_off_all, axis=1, dtype=np.float64)
        self._sf_first = 1.0 - np.cumsum(self.rolls_first_off, axis=1, dtype=np.float64)

    @classmethod
    def build(cls) -> "BearoffDB":
        counts = bearoff_counts(np.arange(N_POSITIONS))
        child = _one_die_children(counts)
        d_all, e_all = _solve(child, counts)
        d_first, e_first = _solve(child, counts, full=MAX_CHECKERS)
        if d_all[:, -1].any() or d_first[:, -1].any():  # the last bin is where truncation bites
            raise RuntimeError(f"a bear-off needs {MAX_ROLLS - 1} rolls or more: raise MAX_ROLLS")
        return cls(d_all, d_first, e_all, e_first)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"rolls_off_all": self.rolls_off_all, "rolls_first_off": self.rolls_first_off,
                "expected_off_all": self.expected_off_all,
                "expected_first_off": self.expected_first_off}

    def probs(self, boards: np.ndarray) -> np.ndarray:
        """bearoff_probs with this database (see the module function)."""
        return _probs(self, boards)


def _sides(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover's, opponent's) home-board counts [N, 6], each ordered by its own points 1..6."""
    pts = boards[:, :N_POINTS].astype(np.int64)
    theirs = -pts[:, N_POINTS - 1:N_POINTS - 1 - POINTS:-1]  # the row's 24, 23, .., 19
    return np.clip(pts[:, :POINTS], 0, None), np.clip(theirs, 0, None)


def _home_only(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per side: all its checkers on its own home points or off (none on the bar or in the pool)."""
    b = boards.astype(np.int64)
    pts = b[:, :N_POINTS]
    mover = ~(pts[:, POINTS:] > 0).any(1) & (b[:, BAR] == 0) & (b[:, POOL] == 0)
    opp = ~(pts[:, :N_POINTS - POINTS] < 0).any(1) & (b[:, OPP_BAR] == 0) & (b[:, OPP_POOL] == 0)
    return mover, opp


def _as_rows(boards) -> np.ndarray:
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != WIDTH:
        raise ValueError(f"classic boards must have shape [N, {WIDTH}], got {list(b.shape)}")
    return b


def is_bearoff(boards: np.ndarray) -> np.ndarray:
    """bool [N]: both sides have every remaining checker in their own home board (mover's points
    1..6, opponent's 19..24), none on the bar or in the pool, and neither has finished."""
    b = _as_rows(boards)
    if bearoff_compiled.AVAILABLE:
        return bearoff_compiled.is_bearoff(b)
    return is_bearoff_numpy(b)


def is_bearoff_numpy(b: np.ndarray) -> np.ndarray:
    """is_bearoff with NumPy array operations (the path without Numba, and its check)."""
    mover, opp = _home_only(b)
    off = b[:, [OFF, OPP_OFF]].astype(np.int64)
    live = (off < MAX_CHECKERS).all(1)
    return mover & opp & live


def _probs(db: BearoffDB, boards) -> np.ndarray:
    b = _as_rows(boards)
    if bearoff_compiled.AVAILABLE:
        out, bad = bearoff_compiled.probs(b, db.rolls_off_all, db._cdf_all, db._sf_first, _BINOM)
        if bad >= 0:
            raise ValueError(f"position {bad} is not a bear-off afterstate "
                             "(both sides all home or off, the opponent still to finish)")
        return out
    return probs_numpy(db, b)


def probs_numpy(db: BearoffDB, b: np.ndarray) -> np.ndarray:
    """_probs with NumPy array operations (the path without Numba, and its check)."""
    mover, opp = _home_only(b)
    bad = ~(mover & opp) | (b[:, OPP_OFF].astype(np.int64) >= MAX_CHECKERS)
    if bad.any():
        raise ValueError(f"position {int(np.flatnonzero(bad)[0])} is not a bear-off afterstate "
                         "(both sides all home or off, the opponent still to finish)")
    mine, theirs = _sides(b)
    ip, io = bearoff_index(mine), bearoff_index(theirs)
    n_p = db.rolls_off_all[ip].astype(np.float64)  # P's rolls, P rolls second
    n_o = db.rolls_off_all[io].astype(np.float64)
    # O wins iff N_O <= N_P: sum_n P(N_P = n) P(N_O <= n)
    lose = np.einsum("nk,nk->n", n_p, db._cdf_all[io])
    # P wins a gammon iff O has nothing off and N_P < F_O: sum_n P(N_P = n) P(F_O > n)
    wg = np.einsum("nk,nk->n", n_p, db._sf_first[io]) * (b[:, OPP_OFF] == 0)
    # P loses a gammon iff P has nothing off and F_P > N_O - 1: sum_m P(N_O = m) P(F_P > m - 1)
    sf_p = np.concatenate([np.ones((len(b), 1)), db._sf_first[ip, :-1]], axis=1)
    lg = np.einsum("nk,nk->n", n_o, sf_p) * (b[:, OFF] == 0)
    out = np.zeros((len(b), 5), np.float64)
    out[:, 0] = np.clip(1.0 - lose, 0.0, 1.0)
    out[:, 1] = np.minimum(np.clip(wg, 0.0, 1.0), out[:, 0])  # keep p_win >= p_wg exactly
    out[:, 3] = np.minimum(np.clip(lg, 0.0, 1.0), 1.0 - out[:, 0])
    return out.astype(np.float32)


def bearoff_probs(boards: np.ndarray) -> np.ndarray:
    """float32 [N, 5] (p_win, p_wg, p_wbg, p_lg, p_lbg) of bear-off AFTERSTATES, from the view of
    the player P who just moved (rows as legal_afterstates returns them: P's checkers > 0; the
    opponent O rolls next). Rows where P has just finished are allowed (p_win = 1).

    With N = rolls to bear off all and F = rolls to a first checker off, the two sides taken as
    independent (no contact, each playing its own tables' best play), O rolling first:
      O wins iff N_O <= N_P;  P wins a gammon iff O has nothing off and N_P < F_O;
      P loses a gammon iff P has nothing off and F_P > N_O - 1;  backgammons are impossible.
    """
    return _probs(get_bearoff_db(), boards)


# ---- the cache -----------------------------------------------------------------------------

def cache_path() -> Path:
    """$ABAK_RL_CACHE/bearoff-v<VERSION>.npz, else ~/.cache/abak-rl/bearoff-v<VERSION>.npz."""
    root = (os.environ.get("ABAK_RL_CACHE")
            or os.path.join(os.path.expanduser("~"), ".cache", "abak-rl"))
    return Path(root) / f"bearoff-v{VERSION}.npz"


_SHAPES = {"rolls_off_all": (N_POSITIONS, MAX_ROLLS), "rolls_first_off": (N_POSITIONS, MAX_ROLLS),
           "expected_off_all": (N_POSITIONS,), "expected_first_off": (N_POSITIONS,)}


def _load(path: Path) -> BearoffDB:
    with np.load(path, allow_pickle=False) as f:
        if int(f["version"]) != VERSION:
            raise ValueError(f"version {int(f['version'])}, expected {VERSION}")
        arrays = {k: f[k] for k in _SHAPES}
    for k, shape in _SHAPES.items():
        if arrays[k].shape != shape or not np.isfinite(arrays[k]).all():
            raise ValueError(f"{k} has shape {arrays[k].shape} or non-finite values")
    for k in ("rolls_off_all", "rolls_first_off"):
        if np.abs(arrays[k].sum(1, dtype=np.float64) - 1.0).max() > 1e-5:
            raise ValueError(f"{k}: a distribution does not sum to 1")
    return BearoffDB(**arrays)


def save_npz(path: Path, arrays: dict) -> None:
    """Write arrays to a temporary file next to the target, then rename: readers never see half
    a file (the bear-off caches)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _save(db: BearoffDB, path: Path) -> None:
    save_npz(path, {"version": np.int64(VERSION), **db.arrays()})


def cached(path: Path, load, build, save, what: str):
    """load(path) when the cache file is there and sound, else build() and save(result, path);
    a damaged file is rebuilt with a warning, and a cache that cannot be written (read-only
    home) only costs a warning."""
    if path.exists():
        try:
            return load(path)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
            warnings.warn(f"{what} cache {path} is unreadable ({e}); rebuilding it", stacklevel=3)
    obj = build()
    try:
        save(obj, path)
    except OSError as e:
        warnings.warn(f"could not write the {what} cache {path} ({e})", stacklevel=3)
    return obj


def load_or_build(path: Path | None = None) -> BearoffDB:
    """The cached database, built (and cached) when missing (`cached`)."""
    return cached(cache_path() if path is None else Path(path), _load, BearoffDB.build, _save, "bear-off")


_DB: BearoffDB | None = None
_LOCK = threading.Lock()


def get_bearoff_db() -> BearoffDB:
    """The process-wide database (loaded from the cache or built on first use)."""
    global _DB
    with _LOCK:
        if _DB is None:
            _DB = load_or_build()
        return _DB
