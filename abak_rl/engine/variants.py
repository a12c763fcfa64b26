"""Variants: one engine core, configured per game.

A variant is a small object with the same interface for every game, so the game loop, the
agents, the trainer and the evaluation never branch on the variant's name:

    width                         row width of the board encoding
    initial_boards(n)             n starting positions, seen from the first player to move
    legal_afterstates(b, dice)    all distinct afterstates (engine.common.Afterstates)
    flip(b)                       the same positions seen from the other player
    winner_points(b)              after the mover's play: 0 if the game goes on, else the mover
                                  won 1 (single), 2 (gammon) or 3 (backgammon)
    extra_turn(dice)              True where the same player rolls again (Acey-deucey's 1-2)
    validate(b)                   raise ValueError naming the problem in a malformed batch

The classic variants differ only in data (starting layout, a pool of unentered checkers) and in
Acey-deucey's 1-2 rule; Abak Evolution plugs in its own encoding and move generator.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

import numpy as np

from . import board as cb
from .movegen import can_move_some_die
from .movegen import legal_afterstates as _classic_afterstates

VARIANT_NAMES = ("standard", "nackgammon", "acey_deucey", "abak")


@functools.lru_cache(maxsize=None)
def _starting_row(layout: str, pool: int) -> np.ndarray:
    """The starting row of a layout, read from the data file once (self-play restarts games
    every step; reading the JSON each time cost a third of a millisecond)."""
    row = cb.board_from_layout(cb.load_starting_layouts()[layout], pool=pool)
    row.setflags(write=False)
    return row


@dataclass(frozen=True)
class ClassicVariant:
    name: str
    layout: str
    pool: int = 0
    acey_deucey: bool = False
    enter_all_before_moving: bool = False
    width: int = cb.WIDTH
    kind: str = "classic"

    def initial_boards(self, n: int) -> np.ndarray:
        return np.repeat(_starting_row(self.layout, self.pool)[None], n, axis=0)

    def legal_afterstates(self, boards: np.ndarray, dice: np.ndarray, with_plays: bool = False,
                          one_two_filter=None):
        """one_two_filter (Acey-deucey): only the 1-2 rows under the 1-2 plays it keeps
        (engine.movegen.legal_afterstates); None: every legal afterstate."""
        return _classic_afterstates(boards, dice, with_plays=with_plays,
                                    acey_deucey=self.acey_deucey,
                                    enter_all_before_moving=self.enter_all_before_moving,
                                    one_two_filter=one_two_filter)

    def can_move(self, boards: np.ndarray) -> np.ndarray:
        """True where the player to move has a legal play for at least one of the 21 rolls
        (engine.deadlock), exactly: some die can make one movement (movegen.can_move_some_die,
        which says why), without generating any afterstate."""
        return can_move_some_die(boards, self.enter_all_before_moving)

    def flip(self, boards: np.ndarray) -> np.ndarray:
        return cb.flip(boards)

    def winner_points(self, boards: np.ndarray) -> np.ndarray:
        return classic_winner_points(boards)

    def extra_turn(self, dice: np.ndarray) -> np.ndarray:
        dice = np.asarray(dice)
        if not self.acey_deucey:
            return np.zeros(dice.shape[0], dtype=bool)
        return (dice.min(axis=1) == 1) & (dice.max(axis=1) == 2)

    def validate(self, boards: np.ndarray) -> np.ndarray:
        return cb.validate_boards(boards, allow_pool=self.acey_deucey)


def classic_winner_points(boards: np.ndarray) -> np.ndarray:
    """0 while the mover has checkers left; else 1, 2 (gammon) or 3 (backgammon).

    Gammon: the loser bore off none. Backgammon: besides, the loser still has a checker on the
    bar, in the pool (Acey-deucey: counts like the bar) or in the winner's home board.
    """
    b = np.asarray(boards)
    out = np.zeros(b.shape[0], dtype=np.int8)
    won = np.flatnonzero(b[:, cb.OFF] == cb.CHECKERS)   # few rows: the rest stays 0
    if won.size:
        w = b[won]
        gammon = w[:, cb.OPP_OFF] == 0
        back = (w[:, cb.OPP_BAR] > 0) | (w[:, cb.OPP_POOL] > 0) | (w[:, :6] < 0).any(axis=1)
        out[won] = np.where(gammon, np.where(back, 3, 2), 1)
    return out


def get_variant(name: str, **options):
    """The variant called `name` (see VARIANT_NAMES); options: start=<layout name>,
    enter_all_before_moving=<bool> (Acey-deucey)."""
    start = options.pop("start", None)
    if name == "standard":
        v = ClassicVariant("standard", start or "standard")
    elif name == "nackgammon":
        v = ClassicVariant("nackgammon", start or "nackgammon")
    elif name == "acey_deucey":
        v = ClassicVariant("acey_deucey", start or "acey_deucey", pool=cb.CHECKERS, acey_deucey=True,
                           enter_all_before_moving=bool(options.pop("enter_all_before_moving", False)))
    elif name == "abak":
        from .abak.variant import AbakVariant  # the Abak engine plugs in here
        v = AbakVariant()
    else:
        raise ValueError(f"unknown variant {name!r}; expected one of {', '.join(VARIANT_NAMES)}")
    if options:
        raise ValueError(f"unknown option(s) for variant {name!r}: {', '.join(sorted(options))}")
    if start is not None and start not in cb.load_starting_layouts():
        raise ValueError(f"unknown starting layout {start!r}")
    return v
