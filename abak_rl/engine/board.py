"""Classic board encoding: a batch of positions is one int8 array of shape [B, WIDTH].

Every row is seen from the player to move (the "mover"), exactly like the position JSON format:

    column  0..23  points 1..24 of the mover (index = point - 1); > 0 mover's checkers,
                   < 0 the opponent's. The mover moves from 24 towards 1 and bears off below 1.
    column  24     BAR       mover's checkers on the bar
    column  25     OPP_BAR   opponent's checkers on the bar
    column  26     OFF       mover's checkers borne off
    column  27     OPP_OFF   opponent's checkers borne off
    column  28     POOL      mover's checkers not yet entered (Acey-deucey; 0 elsewhere)
    column  29     OPP_POOL  opponent's checkers not yet entered

Counts on the bar, off and in the pool are non-negative. Each side always owns 15 checkers.
Rules are pure functions over these arrays (see movegen.py); nothing here holds state.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

N_POINTS = 24
BAR, OPP_BAR, OFF, OPP_OFF, POOL, OPP_POOL = 24, 25, 26, 27, 28, 29
WIDTH = 30
CHECKERS = 15

# Column permutation that swaps the two sides' bookkeeping columns.
_SIDE_SWAP = np.array([BAR, OPP_BAR, OFF, OPP_OFF, POOL, OPP_POOL])
_SIDE_SWAPPED = np.array([OPP_BAR, BAR, OPP_OFF, OFF, OPP_POOL, POOL])


def flip(boards: np.ndarray) -> np.ndarray:
    """The same positions seen from the other player (who becomes the mover)."""
    boards = np.asarray(boards)
    out = np.empty_like(boards)
    out[..., :N_POINTS] = -boards[..., N_POINTS - 1 :: -1]
    out[..., _SIDE_SWAP] = boards[..., _SIDE_SWAPPED]
    return out


def load_starting_layouts() -> dict:
    """Starting layouts by name (data/starting_positions.json): own point -> checkers."""
    text = resources.files("abak_rl").joinpath("data/starting_positions.json").read_text()
    data = json.loads(text)
    data.pop("_comment", None)
    return data


def board_from_layout(layout: dict[str, int], pool: int = 0) -> np.ndarray:
    """One classic row with the same layout for both sides (each from its own view)."""
    row = np.zeros(WIDTH, dtype=np.int8)
    for point, count in layout.items():
        p = int(point)
        row[p - 1] += count
        row[24 - p] -= count
    row[POOL] = row[OPP_POOL] = pool
    return row


def mover_total(boards: np.ndarray) -> np.ndarray:
    b = boards.astype(np.int16)
    return np.clip(b[..., :N_POINTS], 0, None).sum(-1) + b[..., BAR] + b[..., OFF] + b[..., POOL]


def opponent_total(boards: np.ndarray) -> np.ndarray:
    b = boards.astype(np.int16)
    return (np.clip(-b[..., :N_POINTS], 0, None).sum(-1) + b[..., OPP_BAR] + b[..., OPP_OFF]
            + b[..., OPP_POOL])


def validate_boards(boards: np.ndarray, *, allow_pool: bool = False) -> np.ndarray:
    """Check a batch of classic rows; raise ValueError naming the first problem found."""
    boards = np.asarray(boards)
    if boards.ndim == 1:
        boards = boards[None]
    if boards.ndim != 2 or boards.shape[1] != WIDTH:
        raise ValueError(f"classic boards must have shape [B, {WIDTH}], got {list(boards.shape)}")
    b = boards.astype(np.int16)
    problems = [
        ((b[:, [BAR, OPP_BAR, OFF, OPP_OFF, POOL, OPP_POOL]] < 0).any(1),
         "bar, off and pool counts must not be negative"),
        (mover_total(b) != CHECKERS, "the mover must have exactly 15 checkers"),
        (opponent_total(b) != CHECKERS, "the opponent must have exactly 15 checkers"),
        ((b[:, OFF] == CHECKERS) & (b[:, OPP_OFF] == CHECKERS), "both sides have borne off all checkers"),
    ]
    if not allow_pool:
        problems.append(((b[:, POOL] != 0) | (b[:, OPP_POOL] != 0),
                         "only acey_deucey positions may have checkers in the pool"))
    for bad, message in problems:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"position {i}: {message}")
    return boards.astype(np.int8)


def row_from_points(points: dict[int, int], *, bar: tuple[int, int] = (0, 0),
                    pool: tuple[int, int] = (0, 0)) -> np.ndarray:
    """One classic row, written as people read a diagram: mover's point -> checkers (> 0 the
    mover's, < 0 the opponent's), bar and pool as (mover, opponent); the rest is borne off."""
    row = np.zeros(WIDTH, dtype=np.int16)
    for point, count in points.items():
        if not 1 <= int(point) <= N_POINTS:
            raise ValueError(f"point {point} is not in 1..24")
        row[int(point) - 1] = count
    row[BAR], row[OPP_BAR] = bar
    row[POOL], row[OPP_POOL] = pool
    row[OFF] = CHECKERS - mover_total(row[None])[0]
    row[OPP_OFF] = CHECKERS - opponent_total(row[None])[0]
    if row[OFF] < 0 or row[OPP_OFF] < 0:
        raise ValueError("more than 15 checkers for one side")
    return validate_boards(row[None], allow_pool=bool(pool[0] or pool[1]))[0]
