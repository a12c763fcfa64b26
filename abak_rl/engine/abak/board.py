"""Abak Evolution board encoding: a batch of positions is one int8 array [B, WIDTH].

Seen from the player to move, like the classic encoding:

    columns 0..119   24 columns x 5 slots: slot (p, h) is column p * 5 + h, p = point - 1,
                     h = 0 the bottom checker. A column holds its checkers bottom-up with no gaps;
                     empty slots are 0. Codes: class code for the mover's checkers, minus it for
                     the opponent's.
    columns 120..125 mover's checkers on the bar, count per class (S, G, D, K, O, E)
    columns 126..131 opponent's checkers on the bar, count per class
    column  132      mover's checkers borne off
    column  133      opponent's checkers borne off

Class codes: 1 Soldier (S), 2 General (G), 3 Druid (D), 4 Guard (K), 5 Odd Wounded (O),
6 Even Wounded (E) -- the letters of the position JSON format. A checker is trapped when a
checker of the other colour sits anywhere above it in its column.
"""

from __future__ import annotations

import numpy as np

N_POINTS = 24
HEIGHT = 5
SLOTS = N_POINTS * HEIGHT          # 120
BAR = 120                          # 6 columns, one per class
OPP_BAR = 126
OFF = 132
OPP_OFF = 133
WIDTH = 134
SOLDIER, GENERAL, DRUID, GUARD, ODD, EVEN = 1, 2, 3, 4, 5, 6
LETTERS = "SGDKOE"                 # index = code - 1
CLASS_COUNTS = {SOLDIER: 9, GENERAL: 1, DRUID: 1, GUARD: 2, ODD: 1, EVEN: 1}


def stacks(boards: np.ndarray) -> np.ndarray:
    """[B, 24, 5] view of the columns (slot 0 = bottom)."""
    return boards[..., :SLOTS].reshape(boards.shape[:-1] + (N_POINTS, HEIGHT))


def flip(boards: np.ndarray) -> np.ndarray:
    """The same positions seen from the other player."""
    boards = np.asarray(boards)
    out = np.empty_like(boards)
    out[..., :SLOTS] = -stacks(boards)[..., ::-1, :].reshape(boards.shape[:-1] + (SLOTS,))
    out[..., BAR:BAR + 6] = boards[..., OPP_BAR:OPP_BAR + 6]
    out[..., OPP_BAR:OPP_BAR + 6] = boards[..., BAR:BAR + 6]
    out[..., OFF] = boards[..., OPP_OFF]
    out[..., OPP_OFF] = boards[..., OFF]
    return out


def to_classic(boards: np.ndarray) -> np.ndarray:
    """Class-blind view: the classic [B, 30] row with the same checker counts per point.

    Used by class-blind bots (pubeval on Abak). A mixed column is shown as its top checker's
    colour with that colour's count there (the trapped checkers below are left out, so a side's
    total can be under 15 in this view).
    """
    from ..board import WIDTH as CW, BAR as CBAR, OPP_BAR as COPP_BAR, OFF as COFF, OPP_OFF as COPP_OFF
    boards = np.asarray(boards)
    st = stacks(boards)
    out = np.zeros(boards.shape[:-1] + (CW,), dtype=np.int8)
    height = (st != 0).sum(-1)
    top = np.take_along_axis(st, np.maximum(height - 1, 0)[..., None], axis=-1)[..., 0]
    out[..., :N_POINTS] = np.where(top > 0, (st > 0).sum(-1), -(st < 0).sum(-1))
    out[..., CBAR] = boards[..., BAR:BAR + 6].sum(-1)
    out[..., COPP_BAR] = boards[..., OPP_BAR:OPP_BAR + 6].sum(-1)
    out[..., COFF] = boards[..., OFF]
    out[..., COPP_OFF] = boards[..., OPP_OFF]
    return out
