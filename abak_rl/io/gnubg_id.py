"""GNU Backgammon Position IDs (14 base64 characters) <-> classic rows.

The key is 80 bits, least significant bit of each byte first. For each of the two players, for
each of that player's points 1..24 and then the bar: as many 1 bits as checkers there, then a 0.
Which player comes first: GNU Backgammon's code (PositionKey over its board, whose second half
is the player on roll) and gnubg_nn both put the player NOT on roll first and the player on roll
second, although the manual's prose says the opposite; we follow the code, so IDs copied from
GNU Backgammon mean the same position with the same player on roll. The player on roll is our
mover. Borne-off checkers are implicit (15 minus those on the board and bar).
"""

from __future__ import annotations

import base64
import binascii
import re

import numpy as np

from ..engine import board as cb

_ID_RE = re.compile(r"^[A-Za-z0-9+/]{14}$")


class PositionIdError(ValueError):
    """A malformed Position ID or a position it cannot express."""


def to_gnubg_board(row: np.ndarray) -> list[list[int]]:
    """Our row -> GNU Backgammon's board [[not on roll x25], [on roll x25]] (own points, bar last)."""
    row = np.asarray(row, dtype=np.int16)
    if row.shape != (cb.WIDTH,):
        raise PositionIdError(f"a classic row has {cb.WIDTH} columns, got shape {list(row.shape)}")
    if row[cb.POOL] or row[cb.OPP_POOL]:
        raise PositionIdError("a Position ID cannot express checkers in the acey_deucey pool")
    mover = [max(int(v), 0) for v in row[:24]] + [int(row[cb.BAR])]
    opp = [max(-int(v), 0) for v in row[23::-1]] + [int(row[cb.OPP_BAR])]
    return [opp, mover]


def from_gnubg_board(board) -> np.ndarray:
    """GNU Backgammon's [[not on roll], [on roll]] board -> our row (off = 15 - the rest)."""
    opp, mover = (list(map(int, side)) for side in board)
    if len(opp) != 25 or len(mover) != 25:
        raise PositionIdError("a GNU Backgammon board is two lists of 25 counts")
    row = np.zeros(cb.WIDTH, dtype=np.int8)
    for i in range(24):
        if mover[i] and opp[23 - i]:
            raise PositionIdError(f"both players have checkers on the mover's point {i + 1}")
        row[i] = mover[i] - opp[23 - i]
    row[cb.BAR], row[cb.OPP_BAR] = mover[24], opp[24]
    for side, counts, col in (("player on roll", mover, cb.OFF), ("opponent", opp, cb.OPP_OFF)):
        if min(counts) < 0 or sum(counts) > cb.CHECKERS:
            raise PositionIdError(f"the {side} has {sum(counts)} checkers on the board and bar; "
                                  f"at most {cb.CHECKERS}")
        row[col] = cb.CHECKERS - sum(counts)
    return row


def encode(row: np.ndarray) -> str:
    """Classic row (mover = player on roll) -> 14-character Position ID."""
    bits: list[int] = []
    for side in to_gnubg_board(row):
        if sum(side) > cb.CHECKERS:
            raise PositionIdError(f"a side has {sum(side)} checkers on the board; at most 15")
        for n in side:
            bits += [1] * n + [0]
    bits += [0] * (80 - len(bits))
    key = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(key).decode("ascii")[:14]


def decode(position_id: str) -> np.ndarray:
    """14-character Position ID -> classic row seen from the player on roll."""
    if not isinstance(position_id, str) or not _ID_RE.match(position_id):
        raise PositionIdError(f"a Position ID is 14 characters of A-Z a-z 0-9 + /, got {position_id!r}")
    try:
        key = base64.b64decode(position_id + "==", validate=True)
    except binascii.Error as e:  # pragma: no cover - the pattern above already rules this out
        raise PositionIdError(f"Position ID {position_id!r} is not valid base64: {e}") from None
    bits = [(byte >> j) & 1 for byte in key for j in range(8)]
    board, pos = [], 0
    for _ in range(2):
        side = []
        for _ in range(25):
            n = 0
            while pos < 80 and bits[pos]:
                n += 1
                pos += 1
            if pos >= 80:
                raise PositionIdError(f"Position ID {position_id!r} has too many checkers")
            pos += 1
            side.append(n)
        board.append(side)
    if any(bits[pos:]) or base64.b64encode(key).decode("ascii")[:14] != position_id:
        raise PositionIdError(f"Position ID {position_id!r} has stray bits after both players")
    try:
        return from_gnubg_board(board)
    except PositionIdError as e:
        raise PositionIdError(f"Position ID {position_id!r}: {e}") from None
