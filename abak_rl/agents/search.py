"""Search at play time: N-ply values of afterstates and the choice of a play, with move filters.

One implementation for the torch NeuralAgent and the torch-free exported Model: both hand in a
0-ply evaluator `probs_fn(boards, again) -> [N, 5]` (afterstates seen from the player who made
them, exact where the game is over) and the variant. NumPy and the move generator only.

The N-ply value of an afterstate A made by player P (N >= 1): for each of the 21 rolls of the
next player Q (the opponent; P itself after Acey-deucey's 1-2, `variant.extra_turn`), Q's best
reply is chosen by (N-1)-ply search and valued at (N-1)-ply; the values are averaged with
weights 1/36 (doubles) and 2/36, and seen back from P (swap_perspective, unless Q is P).
A game-ending afterstate gets its exact value at every depth.

Move filters (GNU Backgammon's): a choice at 1-ply or deeper first scores every play at 0-ply,
then searches only the best `k` of them that lie within `margin` equity of the best. The root
choice uses `root`; the replies chosen inside a 2-ply value (by 1-ply search) use `reply`.
0-ply choices need no filter, but they are most of a search's work (every reply to every roll
at the deepest level): a `Screen` (GNU Backgammon's pruning nets) scores them first with a
small, cheap net and leaves only its best `k` per position to the full net. Work is batched
over positions, plays and rolls; loops run over plies and chunks of afterstates only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine.common import segment_argmax, segment_keep
from ..model.outcomes import equity, outcome_probs
from ..model.outcomes import swap_perspective_np as swap_perspective

# The 21 distinct rolls and their weights out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0
MAX_PLY = 2
CHUNK = 256   # afterstates expanded at once (x 21 rolls) per level of the search (CPU time is flat from 64 to 1024)


@dataclass(frozen=True)
class MoveFilter:
    """Search at most `k` plays (None: all), only those within `margin` (None: any) of the
    best 0-ply equity. The best 0-ply play always passes."""

    k: int | None = 8
    margin: float | None = 0.16

    def __post_init__(self):
        if self.k is not None and (not isinstance(self.k, (int, np.integer)) or self.k < 1):
            raise ValueError(f"move filter k must be a whole number >= 1 (or None for all), got {self.k!r}")
        if self.margin is not None and (not isinstance(self.margin, (int, float)) or
                                        math.isnan(self.margin) or self.margin < 0):
            raise ValueError(f"move filter margin must be a number >= 0 (or None), got {self.margin!r}")

    @property
    def off(self) -> bool:
        return self.k is None and (self.margin is None or math.isinf(self.margin))

    def keep(self, eq: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
        """Boolean mask of the rows to search; rows of a position contiguous (Afterstates)."""
        if self.off or eq.shape[0] == 0:
            return np.ones(eq.shape[0], dtype=bool)
        return segment_keep(eq, parent, self.k, self.margin)

    def label(self) -> str:
        k = "all" if self.k is None else str(self.k)
        return f"{k}/{'any' if self.margin is None else format(self.margin, 'g')}"


ROOT_FILTER = MoveFilter(8, 0.16)
REPLY_FILTER = MoveFilter(2, 0.04)


@dataclass(frozen=True)
class Screen:
    """The deepest 0-ply choices of a search made in two steps: `probs_fn` (a small net,
    same signature as the full evaluator) scores every play, the full net only its best `k` per
    position (with `margin`, only those of them within that equity of the screen's best), and
    the best of those by the full net is the choice. A play the screen ranks
    below k is never seen, so a chooser's value can only come out lower (for the standard
    student's 1 x 32 screen at k = 8: 0.00024 equity rms at 1-ply; docs/training.md)."""

    probs_fn: object
    k: int = 8
    name: str = "screen"
    margin: float | None = None
    """Of the screen's best k, only those within `margin` of the screen's best equity go on to
    the full net (None: all k)."""

    def __post_init__(self):
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise ValueError(f"screen k must be a whole number >= 1, got {self.k!r}")
        MoveFilter(self.k, self.margin)            # checks the margin: a number >= 0 or None

    def label(self) -> str:
        """'k' or 'k/margin': the filter the screen applies (recorded with labels it searched)."""
        return str(self.k) if self.margin is None else f"{self.k}/{format(self.margin, 'g')}"


NO_FILTER = MoveFilter(None, None)


def parse_screen_margin(raw: str) -> float:
    """A screen margin as given on a command line or in an agent spec: a finite number >= 0."""
    try:
        margin = float(raw)
    except ValueError:
        margin = math.nan
    if not 0 <= margin < math.inf:
        raise ValueError(f"screen margin {raw!r}: expected a number >= 0")
    return margin


def filter_suffix(root: MoveFilter, reply: MoveFilter) -> str:
    """',k=..,margin=..' style name tail for filters other than the defaults ('' otherwise)."""
    parts = []
    for tag, f, default in (("", root, ROOT_FILTER), ("reply_", reply, REPLY_FILTER)):
        if f.k != default.k:
            parts.append(f"{tag}k={'all' if f.k is None else f.k}")
        if f.margin != default.margin:
            parts.append(f"{tag}margin={'none' if f.margin is None else format(f.margin, 'g')}")
    return "".join("," + p for p in parts)


def check_ply(ply) -> int:
    if isinstance(ply, bool) or not isinstance(ply, (int, np.integer)) or not 0 <= ply <= MAX_PLY:
        raise ValueError(f"ply must be 0, 1 or 2, got {ply!r}")
    return int(ply)


def best_of(eq: np.ndarray, rows: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """Per position, the row among `rows` (sorted indices) with the highest eq[rows]; first on ties."""
    return rows[segment_argmax(eq, parent[rows], n)]


class Search:
    """N-ply search over a 0-ply evaluator. probs_fn(boards, again) -> [N, 5] (float32 or 64)."""

    def __init__(self, probs_fn, variant, root: MoveFilter = ROOT_FILTER,
                 reply: MoveFilter = REPLY_FILTER, chunk: int = CHUNK, screen: Screen | None = None):
        self.probs_fn, self.variant = probs_fn, variant
        self.root, self.reply, self.chunk, self.screen = root, reply, int(chunk), screen

    # -- values -----------------------------------------------------------------------------------
    def values(self, boards: np.ndarray, again: np.ndarray, ply: int) -> np.ndarray:
        """[N, 5] float64 ply-level values of afterstates, from the player who made them."""
        boards, again = np.asarray(boards), np.asarray(again, dtype=bool)
        if ply == 0:
            return np.asarray(self.probs_fn(boards, again), dtype=np.float64)
        v = self.variant
        won = v.winner_points(boards)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        over = won > 0
        out[over] = outcome_probs(won[over])
        live = np.flatnonzero(~over)
        for lo in range(0, live.size, self.chunk):
            idx = live[lo:lo + self.chunk]
            k = idx.size
            nxt = np.where(again[idx, None], boards[idx], v.flip(boards[idx]))
            pos = np.repeat(nxt, len(ROLLS), axis=0)
            dice = np.tile(ROLLS, (k, 1))
            after = v.legal_afterstates(pos, dice)
            reply = self.best_replies(after, dice, k * len(ROLLS), ply - 1).reshape(k, len(ROLLS), 5)
            avg = np.einsum("krc,r->kc", reply, ROLL_WEIGHTS)
            out[idx] = np.where(again[idx, None], avg, swap_perspective(avg))
        return out

    def best_replies(self, after, dice: np.ndarray, n: int, ply: int) -> np.ndarray:
        """[n, 5] float64: per position of `after`, its best play chosen and valued at `ply`
        (the reply filter screens plays at 0-ply first when ply >= 1), from the mover's view."""
        if ply == 0:
            return self.best_rows(after, dice, n)[1]
        again = self.variant.extra_turn(np.asarray(dice))[after.parent]
        eq0 = equity(self.probs_fn(after.boards, again))
        rows = np.flatnonzero(self.reply.keep(eq0, after.parent, n))
        val = self.values(after.boards[rows], again[rows], ply)
        return val[segment_argmax(equity(val), after.parent[rows], n)]

    def best_rows(self, after, dice: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The 0-ply choice per position of `after` (rolled `dice`): (row of `after` [n], its
        probabilities [n, 5] float64, mover's view). With a screen, the best of the screen's top
        k plays by the full net; otherwise the full net's best of every play."""
        again = self.variant.extra_turn(np.asarray(dice))[after.parent]
        if self.screen is None:
            p = self.probs_fn(after.boards, again)
            best = segment_argmax(equity(p), after.parent, n)
            return best, np.asarray(p[best], dtype=np.float64)
        scr = self.screen
        s = scr.probs_fn(after.boards, again)
        rows = np.flatnonzero(MoveFilter(scr.k, scr.margin).keep(equity(s), after.parent, n))
        p = np.asarray(self.probs_fn(after.boards[rows], again[rows]), dtype=np.float64)
        best = segment_argmax(equity(p), after.parent[rows], n)
        return rows[best], p[best]

    def play_values(self, after, dice: np.ndarray, n: int, ply: int):
        """Values of every row of `after` (positions rolled `dice`) for the root choice:
        (probs [M, 5] float64, searched [M] bool). Rows the root filter drops keep their 0-ply
        values (searched False); at ply 0 every row is searched (probs as probs_fn gives them)."""
        again = self.variant.extra_turn(np.asarray(dice))[after.parent]
        p0 = self.probs_fn(after.boards, again)
        if ply == 0:
            return p0, np.ones(len(after), dtype=bool)
        keep = self.root.keep(equity(p0), after.parent, n)
        out = np.asarray(p0, dtype=np.float64).copy()
        out[keep] = self.values(after.boards[keep], again[keep], ply)
        return out, keep

    def choose(self, after, dice: np.ndarray, n: int, ply: int) -> np.ndarray:
        """Best row of `after` per position by ply-level search over the root filter's plays."""
        p, searched = self.play_values(after, dice, n, ply)
        if ply == 0:
            return segment_argmax(equity(p), after.parent, n)
        return best_of(equity(p[searched]), np.flatnonzero(searched), after.parent, n)

    def pre_roll(self, boards: np.ndarray, ply: int) -> np.ndarray:
        """[N, 5] probabilities of the player to move BEFORE its roll, float64.

        0-ply: the position as the opponent's afterstate (flip), seen back from the mover.
        N-ply: the average over the mover's 21 rolls of its best play, chosen and valued at
        (N-1)-ply (the reply filter screens the plays when N-1 >= 1)."""
        boards = np.asarray(boards)
        v = self.variant
        if ply == 0:
            return swap_perspective(np.asarray(self.probs_fn(v.flip(boards), np.zeros(boards.shape[0], bool)),
                                               dtype=np.float64))
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        for lo in range(0, boards.shape[0], self.chunk):
            part = boards[lo:lo + self.chunk]
            k = part.shape[0]
            pos = np.repeat(part, len(ROLLS), axis=0)
            dice = np.tile(ROLLS, (k, 1))
            after = v.legal_afterstates(pos, dice)
            reply = self.best_replies(after, dice, k * len(ROLLS), ply - 1).reshape(k, len(ROLLS), 5)
            out[lo:lo + k] = np.einsum("krc,r->kc", reply, ROLL_WEIGHTS)
        return out


def parse_filter_options(options: dict) -> dict:
    """{'k': '8', 'margin': '0.16', 'reply_k': '2', 'reply_margin': 'none'} (strings, any
    subset) -> {'root': MoveFilter, 'reply': MoveFilter} for the keys given; 'all' / 'none'
    switch a limit off. Unknown keys raise ValueError naming them."""
    unknown = set(options) - {"k", "margin", "reply_k", "reply_margin"}
    if unknown:
        raise ValueError(f"unknown search option(s) {', '.join(sorted(unknown))}; "
                         f"expected k, margin, reply_k, reply_margin")

    def k_of(key, default):
        raw = options.get(key)
        if raw is None:
            return default
        if str(raw).strip().lower() in ("all", "none"):
            return None
        try:
            return int(str(raw))
        except ValueError:
            raise ValueError(f"{key}={raw!r}: expected a whole number >= 1 or 'all'") from None

    def margin_of(key, default):
        raw = options.get(key)
        if raw is None:
            return default
        if str(raw).strip().lower() in ("none", "any", "inf"):
            return None
        try:
            return float(str(raw))
        except ValueError:
            raise ValueError(f"{key}={raw!r}: expected a number >= 0 or 'none'") from None

    out = {}
    if "k" in options or "margin" in options:
        out["root"] = MoveFilter(k_of("k", ROOT_FILTER.k), margin_of("margin", ROOT_FILTER.margin))
    if "reply_k" in options or "reply_margin" in options:
        out["reply"] = MoveFilter(k_of("reply_k", REPLY_FILTER.k), margin_of("reply_margin", REPLY_FILTER.margin))
    return out
