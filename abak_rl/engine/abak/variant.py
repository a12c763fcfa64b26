"""Abak Evolution as a variant: the same interface as engine.variants.ClassicVariant, so the game
loop, agents and trainer run it unchanged."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board import load_starting_layouts
from . import board as ab
from .movegen import can_move as _abak_can_move
from .movegen import legal_afterstates as _abak_afterstates

CHECKERS = 15


def row_from_stacks(board: list[str], bar: str = "", off: tuple[int, int] = (0, 0)) -> np.ndarray:
    """One row from the position-JSON strings: 24 columns bottom to top, upper case = mover."""
    row = np.zeros(ab.WIDTH, dtype=np.int8)
    for p, column in enumerate(board):
        if len(column) > ab.HEIGHT:
            raise ValueError(f"point {p + 1}: more than {ab.HEIGHT} checkers")
        for h, letter in enumerate(column):
            code = ab.LETTERS.index(letter.upper()) + 1
            row[p * ab.HEIGHT + h] = code if letter.isupper() else -code
    for letter in bar:
        code = ab.LETTERS.index(letter.upper()) + 1
        row[(ab.BAR if letter.isupper() else ab.OPP_BAR) + code - 1] += 1
    row[ab.OFF], row[ab.OPP_OFF] = off
    return row


def starting_row() -> np.ndarray:
    """The starting position: each side's own stacks, the opponent's mirrored onto 25 - p."""
    layout = load_starting_layouts()["abak"]
    board = [""] * ab.N_POINTS
    for point, letters in layout.items():
        p = int(point)
        board[p - 1] = letters.upper()
        board[24 - p] = letters.lower()
    return row_from_stacks(board)


@dataclass(frozen=True)
class AbakVariant:
    name: str = "abak"
    kind: str = "abak"
    width: int = ab.WIDTH

    def initial_boards(self, n: int) -> np.ndarray:
        return np.repeat(starting_row()[None], n, axis=0)

    def legal_afterstates(self, boards: np.ndarray, dice: np.ndarray, with_plays: bool = False):
        return _abak_afterstates(boards, dice, with_plays=with_plays)

    def can_move(self, boards: np.ndarray) -> np.ndarray:
        """True where the player to move has a legal play for some roll (the deadlock check's
        fast path: one movement step over the six dice instead of 21 whole rolls)."""
        return _abak_can_move(boards)

    def flip(self, boards: np.ndarray) -> np.ndarray:
        return ab.flip(boards)

    def winner_points(self, boards: np.ndarray) -> np.ndarray:
        """0 while the mover has checkers left; else 1, 2 (gammon: the loser bore off none) or
        3 (backgammon: besides, a loser's checker on the bar or in the winner's home board)."""
        b = np.asarray(boards)
        won = b[:, ab.OFF] == CHECKERS
        gammon = b[:, ab.OPP_OFF] == 0
        back = (b[:, ab.OPP_BAR:ab.OPP_BAR + 6] > 0).any(1) | (b[:, :6 * ab.HEIGHT] < 0).any(1)
        pts = np.where(gammon, np.where(back, 3, 2), 1)
        return np.where(won, pts, 0).astype(np.int8)

    def extra_turn(self, dice: np.ndarray) -> np.ndarray:
        return np.zeros(np.asarray(dice).shape[0], dtype=bool)

    def validate(self, boards: np.ndarray) -> np.ndarray:
        return validate_boards(boards)


def validate_boards(boards: np.ndarray) -> np.ndarray:
    """Check a batch of Abak rows; raise ValueError naming the first problem found."""
    boards = np.asarray(boards)
    if boards.ndim == 1:
        boards = boards[None]
    if boards.ndim != 2 or boards.shape[1] != ab.WIDTH:
        raise ValueError(f"abak boards must have shape [B, {ab.WIDTH}], got {list(boards.shape)}")
    b = boards.astype(np.int16)
    st = ab.stacks(b)
    occ = st != 0
    tail = b[:, ab.BAR:]
    problems = [
        ((np.abs(st) > 6).any((1, 2)), "column codes must be 0 or +-1..6"),
        ((tail < 0).any(1), "bar and off counts must not be negative"),
        ((~occ[..., :-1] & occ[..., 1:]).any((1, 2)),
         "a column has a gap (empty slot under a checker)"),
    ]
    limit = np.array([ab.CLASS_COUNTS[c] for c in range(1, 7)])
    sides = (("mover", 1, ab.BAR, ab.OFF), ("opponent", -1, ab.OPP_BAR, ab.OPP_OFF))
    for side, sign, bar, off in sides:
        on_board = np.stack([(st * sign == c).sum((1, 2)) for c in range(1, 7)], 1)
        per_class = on_board + b[:, bar:bar + 6]
        problems.append(((per_class > limit).any(1),
                         f"the {side} has too many checkers of a class"))
        problems.append((per_class.sum(1) + b[:, off] != CHECKERS,
                         f"the {side} must have exactly {CHECKERS} checkers"))
    problems.append(((b[:, ab.OFF] == CHECKERS) & (b[:, ab.OPP_OFF] == CHECKERS),
                     "both sides have borne off all checkers"))
    for bad, message in problems:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"position {i}: {message}")
    return boards.astype(np.int8)
