"""GNU Backgammon 0-ply as an Agent, through the gnubg_nn bindings (standard backgammon only).

gnubg_nn plays one position per call, so this bot loops over positions (it is a reference
opponent, not a hot path); positions with a single legal afterstate never reach gnubg. The
gnubg play is mapped back onto our afterstates, so an illegal or unknown play is an error,
never a silent substitute.

gnubg's board: [opponent, player on roll], each 25 counts from its own side (index = point - 1,
index 24 = its bar). best_move(..., b=1) returns the position key after the play with the sides
swapped: board[0] is then the side that just moved.
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from ..engine.common import Afterstates


def _gnubg():
    try:
        import gnubg_nn
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("the gnubg agent needs GNU Backgammon's network: "
                           "pip install 'abak-rl[gnubg]' (package gnubg-nn)") from exc
    return gnubg_nn


def to_gnubg(row: np.ndarray) -> list[list[int]]:
    """Our classic row (mover's view) as gnubg's [opponent, mover] board."""
    r = np.asarray(row).astype(np.int64)
    me = np.clip(r[:cb.N_POINTS], 0, None).tolist() + [int(r[cb.BAR])]
    opp = np.clip(-r[cb.N_POINTS - 1::-1], 0, None).tolist() + [int(r[cb.OPP_BAR])]
    return [opp, me]


def from_gnubg(mover, other) -> np.ndarray:
    """gnubg sides (mover, other), each from its own view, as our classic row."""
    me = np.asarray(mover, dtype=np.int8)
    opp = np.asarray(other, dtype=np.int8)
    row = np.zeros(cb.WIDTH, dtype=np.int8)
    row[:cb.N_POINTS] = me[:24] - opp[23::-1]
    row[cb.BAR], row[cb.OPP_BAR] = me[24], opp[24]
    row[cb.OFF], row[cb.OPP_OFF] = cb.CHECKERS - me.sum(), cb.CHECKERS - opp.sum()
    return row


PLIES = (0, 1, 2)


def afterstate_probs(boards: np.ndarray, again: np.ndarray | None = None, plies: int = 0) -> np.ndarray:
    """gnubg-nn's five probabilities of standard afterstates at `plies` (0 by default), from the
    side that made them: the evaluator interface of agents/search.py, so our search can run over
    gnubg's net (scripts/search_vs_gnubg.py compares that with gnubg's own search), and a judge
    of other evaluations (scripts/label_quality.py). `again` is unused: standard backgammon has
    no extra turns."""
    if plies not in PLIES:
        raise ValueError(f"gnubg-nn searches 0, 1 or 2 plies, not {plies!r}")
    from ..model.outcomes import swap_perspective_np
    g = _gnubg()
    nxt = cb.flip(np.asarray(boards))      # the side to roll next: gnubg's player on roll
    p = np.array([g.probabilities(to_gnubg(r), int(plies)) for r in nxt], dtype=np.float64).reshape(-1, 5)
    return swap_perspective_np(p)


class GnubgAgent:
    """gnubg's best play, cubeless money: at 0 ply its neural net on each afterstate; at 1 or 2
    plies gnubg-nn's own lookahead (its move filters), what "gnubg,ply=N" names."""

    def __init__(self, variant=None, seed: int = 0, plies: int = 0):
        name = getattr(variant, "name", "standard")
        if name != "standard":
            raise ValueError(f"the gnubg agent plays standard backgammon only, not {name!r}")
        if plies not in PLIES:
            raise ValueError(f"the gnubg agent searches 0, 1 or 2 plies, not {plies!r}")
        self.g = _gnubg()
        self.plies = int(plies)
        self.name = "gnubg" if not plies else f"gnubg,ply={plies}"

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        if getattr(variant, "name", None) != "standard":
            raise ValueError(f"the gnubg agent plays standard backgammon only, not {variant.name!r}")
        n = before.shape[0]
        starts = after.starts(n)
        counts = after.counts(n)
        picks = starts.copy()
        for i in np.flatnonzero(counts > 1):
            _, key = self.g.best_move(to_gnubg(before[i]), int(dice[i, 0]), int(dice[i, 1]), n=self.plies, b=1)
            mover, other = self.g.board_from_position_key(key)
            row = from_gnubg(mover, other)
            seg = after.boards[starts[i]:starts[i] + counts[i]]
            hit = np.flatnonzero((seg == row).all(axis=1))
            if hit.size != 1:
                raise RuntimeError(f"gnubg's play for position {i} is not one of our legal "
                                   f"afterstates (dice {dice[i].tolist()})")
            picks[i] = starts[i] + hit[0]
        return picks
