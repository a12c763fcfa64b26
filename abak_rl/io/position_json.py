"""The public position format (described in docs/io.md) <-> the engine's int8 rows.

Classic variants (standard, nackgammon, acey_deucey) map to engine/board.py rows [30]; Abak to
engine/abak/board.py rows [134]. Both directions work on batches: parsing checks every position
and raises PositionError naming the problem (and which position), serialising renders all rows
at once (io/render.py) because `abak-rl moves --batch` writes hundreds of thousands of them.
"""

from __future__ import annotations

import json

import numpy as np

from ..engine import board as cb
from ..engine.abak import board as ab
from .render import LineTemplate

CLASSIC_VARIANTS = ("standard", "nackgammon", "acey_deucey")
VARIANTS = CLASSIC_VARIANTS + ("abak",)
CHECKERS = 15
CLASS_NAMES = {ab.SOLDIER: "Soldier", ab.GENERAL: "General", ab.DRUID: "Druid",
               ab.GUARD: "Guard", ab.ODD: "Odd Wounded", ab.EVEN: "Even Wounded"}
_CODE = {**{ch: i + 1 for i, ch in enumerate(ab.LETTERS)},
         **{ch.lower(): -(i + 1) for i, ch in enumerate(ab.LETTERS)}}
_TRAP_POINTS = range(6, 18)  # indices of points 7..18, where a Druid traps
_CLASS_LIMITS = np.array([ab.CLASS_COUNTS[c] for c in range(1, 7)])


class PositionError(ValueError):
    """A position that breaks the format; `index` is its place in the batch (None if single)."""

    def __init__(self, message: str, index: int | None = None):
        self.index = index
        self.detail = message
        super().__init__(message if index is None else f"position {index}: {message}")


def width(variant: str) -> int:
    """Row width of the engine encoding for `variant`."""
    check_variant(variant)
    return ab.WIDTH if variant == "abak" else cb.WIDTH


def check_variant(name) -> str:
    if name not in VARIANTS:
        raise PositionError(f"unknown variant {name!r}; expected one of {', '.join(VARIANTS)}")
    return name


# ----------------------------------------------------------------------------- parsing

def rows_from_json(objs: list, variant: str | None = None) -> tuple[str, np.ndarray]:
    """Parse positions that all share one variant -> (variant, int8 rows [N, width]).

    variant: the expected variant (else the first position's). Raises PositionError with
    .index set to the offending position.
    """
    objs = list(objs)
    if variant is None:
        if not objs:
            raise PositionError("no positions given")
        variant = _variant_of(objs[0], 0)
    check_variant(variant)
    parse = _classic_row if variant in CLASSIC_VARIANTS else _abak_row
    rows = np.zeros((len(objs), width(variant)), dtype=np.int8)
    for i, obj in enumerate(objs):
        if _variant_of(obj, i) != variant:
            raise PositionError(f"variant {obj['variant']!r} in a batch of {variant!r}", i)
        try:
            parse(obj, variant, rows[i])
        except PositionError as e:
            raise PositionError(e.detail, i) from None
    (_check_classic if variant in CLASSIC_VARIANTS else _check_abak)(rows)
    return variant, rows


def row_from_json(obj) -> tuple[str, np.ndarray]:
    """Parse one position -> (variant, int8 row)."""
    try:
        variant, rows = rows_from_json([obj])
    except PositionError as e:
        raise PositionError(e.detail) from None
    return variant, rows[0]


def _variant_of(obj, i: int) -> str:
    if not isinstance(obj, dict):
        raise PositionError(f"a position must be a JSON object, got {type(obj).__name__}", i)
    if "variant" not in obj:
        raise PositionError("missing field 'variant'", i)
    try:
        return check_variant(obj["variant"])
    except PositionError as e:
        raise PositionError(e.detail, i) from None


def _check_fields(obj: dict, required: tuple) -> None:
    for key in required:
        if key not in obj:
            raise PositionError(f"missing field {key!r}")
    for key in obj:
        if key not in required:
            if key == "pool":
                raise PositionError(f"field 'pool' is only allowed in acey_deucey positions, "
                                    f"not {obj['variant']}")
            raise PositionError(f"unknown field {key!r}")


def _is_int(v) -> bool:
    return type(v) is int


def _pair(obj: dict, key: str) -> list[int]:
    v = obj[key]
    if not (isinstance(v, list) and len(v) == 2 and all(_is_int(x) for x in v)):
        raise PositionError(f"{key!r} must be a list of 2 integers [mover's, opponent's], got {v!r}")
    if min(v) < 0:
        raise PositionError(f"{key!r} counts must not be negative, got {v!r}")
    if max(v) > CHECKERS:
        raise PositionError(f"{key!r} counts must be at most {CHECKERS}, got {v!r}")
    return v


def _classic_row(obj: dict, variant: str, row: np.ndarray) -> None:
    pool = variant == "acey_deucey"
    _check_fields(obj, ("variant", "board", "bar", "off") + (("pool",) if pool else ()))
    board = obj["board"]
    if not isinstance(board, list) or len(board) != 24:
        got = f"{len(board)} items" if isinstance(board, list) else type(board).__name__
        raise PositionError(f"'board' must be a list of 24 integers, got {got}")
    for i, v in enumerate(board):
        if not _is_int(v):
            raise PositionError(f"board[{i}] must be an integer, got {v!r}")
        if abs(v) > CHECKERS:
            raise PositionError(f"board[{i}] = {v}: a side has only {CHECKERS} checkers")
    row[:24] = board
    row[[cb.BAR, cb.OPP_BAR]] = _pair(obj, "bar")
    row[[cb.OFF, cb.OPP_OFF]] = _pair(obj, "off")
    if pool:
        row[[cb.POOL, cb.OPP_POOL]] = _pair(obj, "pool")


def _first_bad(bad: np.ndarray, message) -> None:
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PositionError(message(i), i)


def _check_classic(rows: np.ndarray) -> None:
    b = rows.astype(np.int16)
    pts = b[:, :24]
    for side, sign, cols in (("mover", 1, (cb.BAR, cb.OFF, cb.POOL)),
                             ("opponent", -1, (cb.OPP_BAR, cb.OPP_OFF, cb.OPP_POOL))):
        on_board = np.clip(sign * pts, 0, None).sum(1)
        total = on_board + b[:, list(cols)].sum(1)
        _first_bad(total != CHECKERS, lambda i: (
            f"the {side} has {total[i]} checkers ({on_board[i]} on the board, {b[i, cols[0]]} on "
            f"the bar, {b[i, cols[1]]} off" + (f", {b[i, cols[2]]} in the pool" if b[i, cols[2]] else "")
            + f"); each side has exactly {CHECKERS}"))
    _first_bad((b[:, cb.OFF] == CHECKERS) & (b[:, cb.OPP_OFF] == CHECKERS),
               lambda i: "both sides have borne off all their checkers")


def _abak_row(obj: dict, variant: str, row: np.ndarray) -> None:
    _check_fields(obj, ("variant", "board", "bar", "off"))
    board = obj["board"]
    if not isinstance(board, list) or len(board) != 24:
        got = f"{len(board)} items" if isinstance(board, list) else type(board).__name__
        raise PositionError(f"'board' must be a list of 24 strings (stacks), got {got}")
    for p, stack in enumerate(board):
        if not isinstance(stack, str):
            raise PositionError(f"board[{p}] must be a string of checker letters, got {stack!r}")
        if len(stack) > ab.HEIGHT:
            raise PositionError(f"board[{p}] {stack!r} holds {len(stack)} checkers; a point "
                                f"holds at most {ab.HEIGHT}")
        codes = [_letter(ch, f"board[{p}]") for ch in stack]
        _check_stack(p, stack, codes)
        row[p * ab.HEIGHT: p * ab.HEIGHT + len(codes)] = codes
    bar = obj["bar"]
    if not isinstance(bar, str):
        raise PositionError(f"'bar' must be a string of checker letters, got {bar!r}")
    for ch in bar:
        c = _letter(ch, "bar")
        row[(ab.BAR if c > 0 else ab.OPP_BAR) + abs(c) - 1] += 1
    row[[ab.OFF, ab.OPP_OFF]] = _pair(obj, "off")


def _letter(ch: str, where: str) -> int:
    code = _CODE.get(ch)
    if code is None:
        raise PositionError(f"{where}: unknown checker letter {ch!r}; letters are "
                            f"{ab.LETTERS} (mover) and {ab.LETTERS.lower()} (opponent)")
    return code


def _check_stack(p: int, stack: str, codes: list[int]) -> None:
    """A checker may sit on an opposing one only as a Druid trapping a lone checker on 7..18."""
    for h in range(1, len(codes)):
        if (codes[h] > 0) == (codes[h - 1] > 0):
            continue
        lone = h == 1 or (codes[h - 1] > 0) != (codes[h - 2] > 0)
        if abs(codes[h]) != ab.DRUID or p not in _TRAP_POINTS or not lone:
            raise PositionError(
                f"board[{p}] {stack!r}: a checker can sit on an opposing one only as a Druid "
                f"trapping a single checker on points 7..18")


def _check_abak(rows: np.ndarray) -> None:
    st = ab.stacks(rows).reshape(rows.shape[0], -1).astype(np.int16)
    for side, sign, bar, off in (("mover", 1, ab.BAR, ab.OFF), ("opponent", -1, ab.OPP_BAR, ab.OPP_OFF)):
        per_class = np.stack([(st == sign * c).sum(1) for c in range(1, 7)], axis=1)
        per_class = per_class + rows[:, bar:bar + 6].astype(np.int16)
        for c in range(1, 7):
            n, limit = per_class[:, c - 1], ab.CLASS_COUNTS[c]
            _first_bad(n > limit, lambda i: (
                f"the {side} has {n[i]} {CLASS_NAMES[c]} checkers ({ab.LETTERS[c - 1]}) on the "
                f"board and bar; each side has {limit}"))
        total = per_class.sum(1) + rows[:, off]
        _first_bad(total != CHECKERS, lambda i: (
            f"the {side} has {total[i]} checkers ({per_class[i].sum()} on the board and bar, "
            f"{rows[i, off]} off); each side has exactly {CHECKERS}"))
    _first_bad((rows[:, ab.OFF] == CHECKERS) & (rows[:, ab.OPP_OFF] == CHECKERS),
               lambda i: "both sides have borne off all their checkers")


# ----------------------------------------------------------------------------- serialising

_NUM = [str(v) for v in range(-CHECKERS, CHECKERS + 1)]  # index = value + 15
_CELL = [ch.lower() for ch in ab.LETTERS[::-1]] + [""] + list(ab.LETTERS)  # index = code + 6
# a column renders as two slots, its 3 lower cells and its 2 upper ones (fewer slots = faster)
_CELL2 = [a + b for a in _CELL for b in _CELL]
_CELL3 = [a + b for a in _CELL for b in _CELL2]


def _classic_template(variant: str) -> LineTemplate:
    parts: list = [f'{{"variant": "{variant}", "board": [']
    for i in range(24):
        parts += [_NUM, ", " if i < 23 else "]"]
    for key in ("bar", "off") + (("pool",) if variant == "acey_deucey" else ()):
        parts += [f', "{key}": [', _NUM, ", ", _NUM, "]"]
    return LineTemplate(parts + ["}"])


def _abak_template() -> LineTemplate:
    parts: list = ['{"variant": "abak", "board": [']
    for p in range(24):
        parts += ['"', _CELL3, _CELL2, '"' if p == 23 else '", ']
    parts += ['], "bar": "']
    for letter in ab.LETTERS + ab.LETTERS.lower():  # a class has at most its count on the bar
        limit = ab.CLASS_COUNTS[ab.LETTERS.index(letter.upper()) + 1]
        parts.append([letter * k for k in range(limit + 1)])
    return LineTemplate(parts + ['", "off": [', _NUM, ", ", _NUM, "]}"])


_TEMPLATES: dict[str, LineTemplate] = {}


def dumps_rows(rows: np.ndarray, variant: str) -> list[str]:
    """Serialise a batch of rows to JSON text, one string per row (json.dumps layout)."""
    check_variant(variant)
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] != width(variant):
        raise PositionError(f"{variant} rows must have shape [N, {width(variant)}], got {list(rows.shape)}")
    if variant not in _TEMPLATES:
        _TEMPLATES[variant] = _abak_template() if variant == "abak" else _classic_template(variant)
    if variant == "abak":
        bar = rows[:, ab.BAR:ab.OPP_BAR + 6].astype(np.int32)
        _first_bad((bar > np.tile(_CLASS_LIMITS, 2)).any(1) | (bar < 0).any(1),
                   lambda i: f"bar counts {bar[i].tolist()} exceed the class counts")
        cells = [ab.stacks(rows)[..., h].astype(np.int32) + 6 for h in range(ab.HEIGHT)]
        low = (cells[0] * 13 + cells[1]) * 13 + cells[2]
        high = cells[3] * 13 + cells[4]
        values = np.concatenate([np.stack([low, high], axis=2).reshape(len(rows), -1), bar,
                                 rows[:, [ab.OFF, ab.OPP_OFF]].astype(np.int32) + CHECKERS], axis=1)
    else:
        cols = list(range(24)) + [cb.BAR, cb.OPP_BAR, cb.OFF, cb.OPP_OFF]
        if variant == "acey_deucey":
            cols += [cb.POOL, cb.OPP_POOL]
        values = rows[:, cols].astype(np.int32) + CHECKERS
    return _TEMPLATES[variant].render(values)


def rows_to_json(rows: np.ndarray, variant: str) -> list[dict]:
    """Serialise a batch of rows to position dicts."""
    return [json.loads(s) for s in dumps_rows(rows, variant)]


def row_to_json(row: np.ndarray, variant: str) -> dict:
    return rows_to_json(np.asarray(row)[None], variant)[0]
