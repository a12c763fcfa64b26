"""Reference Abak Evolution move generator: plain recursive Python, one position at a time.

This module is written from the rules only (docs/rules-abak.md) and on
purpose shares no code with the fast batched generator (movegen.py): the tests run the same
hand-checked cases through both, and random positions through both, so an agreement means
something. It is slow (a few milliseconds a position) and meant for tests and debugging.

Rows use the Abak encoding of board.py: seen from the mover, int8 [134].

Public functions:
    reference_afterstates(row, dice) -> {afterstate row bytes: play string}
    reference_winner_points(row)      -> 0, 1, 2 or 3
    row_from_strings(board, bar, off) / row_to_strings(row): the position JSON's strings
    row_from_position(obj) / position_from_row(row): the whole JSON-like dict
    starting_row(): the Abak starting position seen by the first player to move
    check_row(row): raise ValueError on a malformed row
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .board import (BAR, CLASS_COUNTS, DRUID, EVEN, GENERAL, GUARD, HEIGHT, LETTERS, N_POINTS,
                    ODD, OFF, OPP_BAR, OPP_OFF, SLOTS, WIDTH)

CHECKERS = 15
MIDDLE_LO, MIDDLE_HI = 6, 17          # indices of points 7..18, where the Druid traps
HOME_HI = 5                           # indices 0..5 = the mover's home board (points 1..6)

# General's direction within the current turn
GEN_FREE, GEN_FORWARD, GEN_BACKWARD = 0, 1, 2


class Pos(NamedTuple):
    cols: tuple          # 24 tuples, bottom to top, signed class codes (> 0 the mover's)
    bar: tuple           # mover's bar, count per class (index code - 1)
    obar: tuple          # opponent's bar, count per class
    off: int
    ooff: int


class Turn(NamedTuple):
    pos: Pos
    gen: int             # GEN_FREE / GEN_FORWARD / GEN_BACKWARD
    jane: int            # index of a point where a Jane waits for its second lander, or -1


# ----------------------------------------------------------------------------- encoding

def _decode(row: np.ndarray) -> Pos:
    row = np.asarray(row)
    if row.shape != (WIDTH,):
        raise ValueError(f"an Abak row has shape ({WIDTH},), got {row.shape}")
    cols = tuple(tuple(int(x) for x in row[p * HEIGHT:(p + 1) * HEIGHT] if x != 0)
                 for p in range(N_POINTS))
    return Pos(cols, tuple(int(x) for x in row[BAR:BAR + 6]),
               tuple(int(x) for x in row[OPP_BAR:OPP_BAR + 6]), int(row[OFF]), int(row[OPP_OFF]))


def _encode(pos: Pos) -> np.ndarray:
    row = np.zeros(WIDTH, dtype=np.int8)
    for p, col in enumerate(pos.cols):
        for h, code in enumerate(col):
            row[p * HEIGHT + h] = code
    row[BAR:BAR + 6] = pos.bar
    row[OPP_BAR:OPP_BAR + 6] = pos.obar
    row[OFF] = pos.off
    row[OPP_OFF] = pos.ooff
    return row


def check_row(row: np.ndarray) -> None:
    """Raise ValueError if `row` is not a well-formed Abak position (15 checkers a side, class
    counts within 1 General, 1 Druid, 2 Guards, 9 Soldiers, 1 Odd, 1 Even, columns without
    gaps and at most 5 high)."""
    row = np.asarray(row)
    if row.shape != (WIDTH,):
        raise ValueError(f"an Abak row has shape ({WIDTH},), got {row.shape}")
    st = row[:SLOTS].reshape(N_POINTS, HEIGHT)
    for p in range(N_POINTS):
        col = list(st[p])
        h = sum(1 for x in col if x != 0)
        if any(x == 0 for x in col[:h]):
            raise ValueError(f"point {p + 1}: gap in the column")
        if any(abs(int(x)) > 6 for x in col):
            raise ValueError(f"point {p + 1}: unknown class code")
    for sign, bar_at, off_at, who in ((1, BAR, OFF, "mover"), (-1, OPP_BAR, OPP_OFF, "opponent")):
        bar = row[bar_at:bar_at + 6]
        if (bar < 0).any() or row[off_at] < 0:
            raise ValueError(f"{who}: negative bar or off count")
        total = int(row[off_at])
        for code, limit in CLASS_COUNTS.items():
            n = int((st * sign == code).sum()) + int(bar[code - 1])
            if n > limit:
                raise ValueError(f"{who}: {n} checkers of class {LETTERS[code - 1]} (max {limit})")
            total += n
        if total != CHECKERS:
            raise ValueError(f"{who}: {total} checkers, expected {CHECKERS}")


def _letter(code: int) -> str:
    ch = LETTERS[abs(code) - 1]
    return ch if code > 0 else ch.lower()


def _code(ch: str) -> int:
    code = LETTERS.find(ch.upper()) + 1
    if code == 0:
        raise ValueError(f"unknown checker letter {ch!r}")
    return code if ch.isupper() else -code


def row_from_strings(board: list[str], bar: str = "", off=(0, 0)) -> np.ndarray:
    """A row from the position JSON's fields: 24 column strings (bottom to top, upper case the
    mover's), the bar letters, and [mover's, opponent's] borne-off counts."""
    if len(board) != N_POINTS:
        raise ValueError(f"board needs {N_POINTS} columns, got {len(board)}")
    row = np.zeros(WIDTH, dtype=np.int8)
    for p, s in enumerate(board):
        if len(s) > HEIGHT:
            raise ValueError(f"point {p + 1}: {len(s)} checkers (max {HEIGHT})")
        for h, ch in enumerate(s):
            row[p * HEIGHT + h] = _code(ch)
    for ch in bar:
        code = _code(ch)
        row[(BAR if code > 0 else OPP_BAR) + abs(code) - 1] += 1
    row[OFF], row[OPP_OFF] = int(off[0]), int(off[1])
    return row


def row_to_strings(row: np.ndarray) -> tuple[list[str], str, tuple[int, int]]:
    pos = _decode(row)
    board = ["".join(_letter(c) for c in col) for col in pos.cols]
    bar = "".join(LETTERS[i] * n for i, n in enumerate(pos.bar))
    bar += "".join(LETTERS[i].lower() * n for i, n in enumerate(pos.obar))
    return board, bar, (pos.off, pos.ooff)


def row_from_position(obj: dict) -> np.ndarray:
    if obj.get("variant", "abak") != "abak":
        raise ValueError("not an Abak position")
    return row_from_strings(obj["board"], obj.get("bar", ""), obj.get("off", (0, 0)))


def position_from_row(row: np.ndarray) -> dict:
    board, bar, off = row_to_strings(row)
    return {"variant": "abak", "board": board, "bar": bar, "off": list(off)}


START_BOARD = ["ed", "os", "", "", "", "SSSG", "", "SKS", "", "", "", "ssks",
               "SSKS", "", "", "", "sks", "", "sssg", "", "", "", "OS", "ED"]


def starting_row() -> np.ndarray:
    return row_from_strings(START_BOARD, "", (0, 0))


# ----------------------------------------------------------------------------- rules

def _all_home(pos: Pos) -> bool:
    """No checker of the mover on the bar or on points 7..24 (buried or trapped ones too)."""
    if sum(pos.bar):
        return False
    return not any(c > 0 for col in pos.cols[HOME_HI + 1:] for c in col)


def _others_outside(pos: Pos) -> bool:
    """Some checker of the mover other than the General is on the bar or on points 7..24."""
    if any(n for i, n in enumerate(pos.bar) if i != GENERAL - 1):
        return True
    return any(c > 0 and c != GENERAL for col in pos.cols[HOME_HI + 1:] for c in col)


def _highest_own(pos: Pos) -> int:
    for p in range(N_POINTS - 1, -1, -1):
        if any(c > 0 for c in pos.cols[p]):
            return p
    return -1


def _land(pos: Pos, cols: list, obar: list, q: int, code: int, jane: int):
    """Put the mover's checker `code` on point index q of `cols` (already without the checker).
    Mutates cols/obar. Returns (mark, new_jane) or None if the landing is illegal."""
    col = cols[q]
    if jane >= 0:
        # a Jane waits: this movement must land on it, with a non-Guard, and completes the hit
        if q != jane or code == GUARD:
            return None
        assert len(col) >= 2 and col[-1] > 0 and col[-2] == -GUARD
        obar[GUARD - 1] += 1
        cols[q] = col[:-2] + (col[-1], code)
        return "*", -1
    if not col or col[-1] > 0:                      # empty or the mover's on top
        if len(col) >= HEIGHT:
            return None
        cols[q] = col + (code,)
        return "", -1
    run = 0
    for c in reversed(col):
        if c > 0:
            break
        run += 1
    if run >= 2:                                    # two or more opposing on top: blocked
        return None
    target = -col[-1]
    if code == DRUID and MIDDLE_LO <= q <= MIDDLE_HI:   # the Druid traps (a lone Guard too)
        if len(col) >= HEIGHT:
            return None
        cols[q] = col + (code,)
        return "^", -1
    if target == GUARD and code != GUARD:           # a lone Guard: first lander of a Jane
        if len(col) >= HEIGHT:
            return None
        cols[q] = col + (code,)
        return "", q
    obar[target - 1] += 1                           # an ordinary hit
    cols[q] = col[:-1] + (code,)
    return "*", -1


def _movements(turn: Turn, d: int):
    """Every legal single movement with die d: yields (Turn, text)."""
    pos, gen, jane = turn
    if sum(pos.bar):
        q = N_POINTS - d                            # entering on the mover's point 25 - d
        for i, n in enumerate(pos.bar):
            if not n:
                continue
            cols, obar, bar = list(pos.cols), list(pos.obar), list(pos.bar)
            bar[i] -= 1
            res = _land(pos, cols, obar, q, i + 1, jane)
            if res is None:
                continue
            mark, njane = res
            yield (Turn(Pos(tuple(cols), tuple(bar), tuple(obar), pos.off, pos.ooff), gen, njane),
                   f"bar({LETTERS[i]})/{q + 1}{mark}")
        return
    for p in range(N_POINTS):
        col = pos.cols[p]
        if not col or col[-1] <= 0:
            continue
        code = col[-1]
        if code == GENERAL and gen == GEN_BACKWARD:
            continue
        ngen = GEN_FORWARD if code == GENERAL else gen
        q = p - d
        if q >= 0:
            if not (code == ODD and d % 2 == 0) and not (code == EVEN and d % 2 == 1):
                cols, obar = list(pos.cols), list(pos.obar)
                cols[p] = col[:-1]
                res = _land(pos, cols, obar, q, code, jane)
                if res is not None:
                    mark, njane = res
                    yield (Turn(Pos(tuple(cols), pos.bar, tuple(obar), pos.off, pos.ooff),
                                ngen, njane), f"{p + 1}/{q + 1}{mark}")
        elif jane < 0 and _all_home(pos) and (q == -1 or _highest_own(pos) == p):
            cols = list(pos.cols)
            cols[p] = col[:-1]
            yield (Turn(Pos(tuple(cols), pos.bar, pos.obar, pos.off + 1, pos.ooff), ngen, -1),
                   f"{p + 1}/off")
        if code == GENERAL and gen == GEN_FREE and p + d < N_POINTS and _others_outside(pos):
            cols, obar = list(pos.cols), list(pos.obar)
            cols[p] = col[:-1]
            q = p + d
            res = _land(pos, cols, obar, q, code, jane)
            if res is not None:
                mark, njane = res
                yield (Turn(Pos(tuple(cols), pos.bar, tuple(obar), pos.off, pos.ooff),
                            GEN_BACKWARD, njane), f"{p + 1}/{q + 1}{mark}")


def _plays(start: Turn, dice_seq: list[int]):
    """Finished legal plays for one order of the dice: list of (Pos, dice used, movements)."""
    out = []
    memo: dict = {}

    def search(turn: Turn, i: int, moves: list[str]) -> bool:
        key = (turn, i)
        if key in memo:
            return memo[key]
        found = False
        if i < len(dice_seq):
            for child, text in _movements(turn, dice_seq[i]):
                if search(child, i + 1, moves + [text]):
                    found = True
        if not found and turn.jane < 0:     # a play ending with a Jane half done is illegal
            out.append((turn.pos, i, moves))
            found = True
        memo[key] = found
        return found

    search(start, 0, [])
    return out


def reference_afterstates(row: np.ndarray, dice) -> dict[bytes, str]:
    """Every distinct legal afterstate of `row` (seen from the mover) for `dice`, as
    {afterstate row bytes: one play reaching it}. No legal play: {row bytes: ""}."""
    row = np.asarray(row, dtype=np.int8)
    a, b = int(dice[0]), int(dice[1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"bad dice {dice}")
    start = Turn(_decode(row), GEN_FREE, -1)
    if a == b:
        found = [(pos, n, moves, a) for pos, n, moves in _plays(start, [a] * 4)]
    else:
        found = [(pos, n, moves, a) for pos, n, moves in _plays(start, [a, b])]
        found += [(pos, n, moves, b) for pos, n, moves in _plays(start, [b, a])]
    most = max(n for _, n, _, _ in found)
    if most == 0:
        return {row.tobytes(): ""}
    keep = [f for f in found if f[1] == most]
    if a != b and most == 1:
        # only one die can be played: the larger one if some play uses it
        larger = [f for f in keep if f[3] == max(a, b)]
        if larger:
            keep = larger
    result: dict[bytes, str] = {}
    for pos, _, moves, _ in keep:
        result.setdefault(_encode(pos).tobytes(), " ".join(moves))
    return result


def reference_winner_points(row: np.ndarray) -> int:
    """After the mover's play: 0 while the mover has checkers left; else 1 (single), 2 (gammon:
    the loser bore off none) or 3 (backgammon: besides, the loser has a checker on the bar or in
    the winner's home board)."""
    pos = _decode(np.asarray(row))
    if pos.off < CHECKERS:
        return 0
    if pos.ooff > 0:
        return 1
    if sum(pos.obar) or any(c < 0 for col in pos.cols[:HOME_HI + 1] for c in col):
        return 3
    return 2
