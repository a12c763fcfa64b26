"""A text picture of one position for people (used by `abak-rl play` and in error reports).

The board is drawn from the mover's side, like a physical board: points 13..24 along the top,
12..1 along the bottom, checkers stacked from each edge towards the middle. Classic checkers
show as the mover's and the opponent's symbols (X and O by default; a count replaces the 5th
when a point holds more than 5). Abak columns show each checker's class letter, bottom of the
stack at the edge: upper case the mover's, lower case the opponent's.
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from ..engine.abak import board as ab
from .position_json import check_variant

ROWS = 5  # checker rows drawn per half (Abak's column limit)
TOP = list(range(12, 24))        # point indices 13..24, left to right
BOTTOM = list(range(11, -1, -1))  # 12..1


def diagram(row: np.ndarray, variant: str, *, dice=None, names: tuple[str, str] = ("X", "O")) -> str:
    """Multi-line picture of `row` (seen from the mover, who is names[0])."""
    check_variant(variant)
    row = np.asarray(row)
    me, opp = names
    if variant == "abak":
        columns = [_abak_column(row, p) for p in range(24)]
        legend = f"upper case = {me}, lower case = {opp}"
    else:
        sym = (me[0], opp[0]) if me[:1] != opp[:1] else ("X", "O")  # two distinct symbols
        columns = [_classic_column(int(row[p]), *sym) for p in range(24)]
        legend = (f"{sym[0]} = mover, {sym[1]} = opponent" if (me, opp) == sym
                  else f"{sym[0]} = {me}, the mover; {sym[1]} = {opp}")
    to_move = f"{me} to move" + (f", dice {dice[0]}-{dice[1]}" if dice is not None else "")
    lines = [f" {variant}: {to_move}  ({legend}; points numbered from {me}'s side)"]
    lines.append(" " + _labels(TOP))
    lines.append("+" + "-" * 18 + "+" + "-" * 18 + "+")
    for k in range(ROWS):
        lines.append(_board_line([columns[p][k] for p in TOP]))
    lines.append("|" + " " * 18 + "|" + " " * 18 + "|")
    for k in range(ROWS - 1, -1, -1):
        lines.append(_board_line([columns[p][k] for p in BOTTOM]))
    lines.append("+" + "-" * 18 + "+" + "-" * 18 + "+")
    lines.append(" " + _labels(BOTTOM))
    lines += _side_lines(row, variant, me, opp)
    return "\n".join(lines)


def _labels(points: list[int]) -> str:
    cells = [f"{p + 1:^3}" for p in points]
    return ("".join(cells[:6]) + " " + "".join(cells[6:])).rstrip()


def _board_line(cells: list[str]) -> str:
    return "|" + "".join(f"{c:^3}" for c in cells[:6]) + "|" + "".join(f"{c:^3}" for c in cells[6:]) + "|"


def _classic_column(n: int, me: str, opp: str) -> list[str]:
    sym, count = (me if n > 0 else opp), abs(n)
    cells = [sym if k < count else "" for k in range(ROWS)]
    if count > ROWS:
        cells[ROWS - 1] = str(count)
    return cells


def _abak_column(row: np.ndarray, p: int) -> list[str]:
    stack = row[p * ab.HEIGHT:(p + 1) * ab.HEIGHT]
    return [_letter(int(c)) for c in stack]


def _letter(code: int) -> str:
    if code == 0:
        return ""
    letter = ab.LETTERS[abs(code) - 1]
    return letter if code > 0 else letter.lower()


def _side_lines(row: np.ndarray, variant: str, me: str, opp: str) -> list[str]:
    r = row.astype(np.int64)
    if variant == "abak":
        bar_me = "".join(c * int(n) for c, n in zip(ab.LETTERS, r[ab.BAR:ab.BAR + 6])) or "-"
        bar_opp = "".join(c * int(n) for c, n in zip(ab.LETTERS.lower(), r[ab.OPP_BAR:ab.OPP_BAR + 6])) or "-"
        off = (r[ab.OFF], r[ab.OPP_OFF])
        st = ab.stacks(r)
        idx = np.arange(1, 25)[:, None]
        pips = (int((idx * (st > 0)).sum() + 25 * r[ab.BAR:ab.BAR + 6].sum()),
                int(((25 - idx) * (st < 0)).sum() + 25 * r[ab.OPP_BAR:ab.OPP_BAR + 6].sum()))
        lines = [f" bar: {me} {bar_me}  {opp} {bar_opp}"]
    else:
        pts = r[:24]
        idx = np.arange(1, 25)
        pips = (int((idx * np.clip(pts, 0, None)).sum() + 25 * (r[cb.BAR] + r[cb.POOL])),
                int(((25 - idx) * np.clip(-pts, 0, None)).sum() + 25 * (r[cb.OPP_BAR] + r[cb.OPP_POOL])))
        off = (r[cb.OFF], r[cb.OPP_OFF])
        lines = [f" bar: {me} {r[cb.BAR]}  {opp} {r[cb.OPP_BAR]}"]
        if variant == "acey_deucey":
            lines.append(f" pool (not entered): {me} {r[cb.POOL]}  {opp} {r[cb.OPP_POOL]}")
    lines.append(f" off: {me} {off[0]}  {opp} {off[1]}")
    lines.append(f" pips: {me} {pips[0]}  {opp} {pips[1]}")
    if variant == "abak":
        lines.append(" " + ABAK_LEGEND)
    return lines


ABAK_LEGEND = "classes: S soldier, G general, D druid, K guard, O odd wounded, E even wounded"

