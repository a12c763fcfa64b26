"""Tesauro's pubeval: the public linear benchmark evaluator, scored on whole batches.

Published strengths are measured against it, so it must play exactly like pubeval.c (as GNU
Backgammon embeds it): the race or contact weights are chosen from the position *before* the
move, each afterstate is scored from the side that just moved, an afterstate with all 15 checkers
off scores 99,999,999, and the first of equal scores wins.

Variants: Abak rows are scored through their class-blind view (abak board.to_classic). In
Acey-deucey a checker still in the pool counts like a checker on the bar: it is not an input of
its own (pubeval has no input for the mover's bar) and it keeps the position in contact; the
opponent's pool adds to input 120 like its bar, which is the same for every afterstate of one
position and so never changes a choice.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from ..engine import board as cb
from ..engine.common import Afterstates, segment_argmax

ALL_OFF_SCORE = 99_999_999.0


@lru_cache(maxsize=1)
def weights() -> tuple[np.ndarray, np.ndarray]:
    """(race, contact) weight vectors, 122 each, from the packaged pubeval_weights.json."""
    text = resources.files("abak_rl").joinpath("data/pubeval_weights.json").read_text()
    data = json.loads(text)
    race, contact = (np.asarray(data[k], dtype=np.float64) for k in ("race", "contact"))
    if race.shape != (122,) or contact.shape != (122,):
        raise ValueError("pubeval_weights.json must hold 122 race and 122 contact weights")
    return race, contact


def classic_view(variant, boards: np.ndarray) -> np.ndarray:
    """Classic [B, 30] rows for any variant (Abak through its class-blind view)."""
    boards = np.asarray(boards)
    if getattr(variant, "kind", "classic") == "classic":
        return boards
    from ..engine.abak.board import to_classic
    return to_classic(boards)


def inputs(boards: np.ndarray) -> np.ndarray:
    """The 122 pubeval inputs of classic rows seen from the side that just moved."""
    b = np.asarray(boards).astype(np.int16)
    pts = b[:, cb.N_POINTS - 1::-1]            # own points 24, 23, ..., 1
    x = np.zeros((b.shape[0], 24, 5), dtype=np.float64)
    x[..., 0] = pts == -1
    x[..., 1] = pts == 1
    x[..., 2] = pts >= 2
    x[..., 3] = pts == 3
    x[..., 4] = np.where(pts >= 4, (pts - 3) / 2.0, 0.0)
    extra = np.stack([(b[:, cb.OPP_BAR] + b[:, cb.OPP_POOL]) / 2.0, b[:, cb.OFF] / 15.0], axis=1)
    return np.concatenate([x.reshape(b.shape[0], 120), extra], axis=1)


def is_race(boards: np.ndarray) -> np.ndarray:
    """True where no contact is left: every own checker is past every opposing one.

    Seen from the mover: own checkers on the bar or in the pool sit at 25, the opponent's at 0.
    """
    b = np.asarray(boards).astype(np.int16)
    idx = np.arange(1, cb.N_POINTS + 1)
    own_back = np.where(b[:, :cb.N_POINTS] > 0, idx, 0).max(axis=1)
    own_back = np.where((b[:, cb.BAR] > 0) | (b[:, cb.POOL] > 0), 25, own_back)
    opp_back = np.where(b[:, :cb.N_POINTS] < 0, idx, 25).min(axis=1)
    opp_back = np.where((b[:, cb.OPP_BAR] > 0) | (b[:, cb.OPP_POOL] > 0), 0, opp_back)
    return own_back < opp_back


def scores(after: np.ndarray, race: np.ndarray) -> np.ndarray:
    """pubeval score of classic afterstates; race[i] picks the weights for row i."""
    wr, wc = weights()
    x = inputs(after)
    s = np.where(race, x @ wr, x @ wc)
    return np.where(np.asarray(after)[:, cb.OFF] >= cb.CHECKERS, ALL_OFF_SCORE, s)


class PubevalAgent:
    """Plays the afterstate pubeval scores highest (first on ties), for every variant."""

    def __init__(self, seed: int = 0):
        self.name = "pubeval"

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        n = before.shape[0]
        race = is_race(classic_view(variant, before))
        s = scores(classic_view(variant, after.boards), race[after.parent])
        return segment_argmax(s, after.parent, n)
