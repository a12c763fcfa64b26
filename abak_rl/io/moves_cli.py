"""`abak-rl moves`: every distinct legal afterstate of a position and roll, as JSON lines.

One position:  abak-rl moves --variant standard --position '<json>' --dice 3 1
               abak-rl moves --position-id 4HPwATDgc/ABMA --dice 3 1
  -> one line per afterstate: {"position": <afterstate>, "play": "24/21 22/21"}
               abak-rl moves --position @position.json --dice 3 1   (@ reads a file)
Many:          abak-rl moves --batch FILE [--keep-going]   (FILE or - for stdin)
  FILE holds lines {"position": ..., "dice": [d1, d2]}; the answer is one line per input line,
  in order: {"afterstates": [{"position": ..., "play": ...}, ...]}. Positions are grouped by
  variant and each group goes through the move generator in one batched call.
Bad input exits with status 2 and a message naming the problem (and the line, for --batch).
With --keep-going a bad line is answered {"error": "<what is wrong>"} and the others are
answered as usual; the exit status is then 1 when some line was bad. The position format is
described in docs/io.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import numpy as np

from . import gnubg_id
from .position_json import VARIANTS, PositionError, dumps_rows, rows_from_json

_PLAY_SAFE = re.compile(r"^[0-9A-Za-z/*^ ()\x00-]*$")


class InputError(ValueError):
    """Bad command-line input; the message is shown to the user as is."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="abak-rl moves", description=__doc__.split("\n")[0])
    p.add_argument("--variant", choices=VARIANTS, help="variant of --position/--position-id")
    p.add_argument("--position", help="position JSON (docs/io.md), or @file to read it from a file")
    p.add_argument("--position-id", help="GNU Backgammon Position ID (classic variants)")
    p.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"))
    p.add_argument("--batch", metavar="FILE", help="JSON lines {position, dice}; - for stdin")
    p.add_argument("--keep-going", action="store_true",
                   help="with --batch: answer a bad line with {\"error\": ...} and go on (exit 1)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.batch is not None:
            if args.position or args.position_id or args.dice or args.variant:
                raise InputError("--batch takes no --position, --position-id, --dice or --variant "
                                 "(each line names its position, variant and dice)")
            lines = answer_batch(_read(args.batch), keep_going=args.keep_going)
        else:
            if args.keep_going:
                raise InputError("--keep-going goes with --batch")
            lines = answer_single(args)
    except InputError as e:
        print(f"abak-rl moves: {e}", file=sys.stderr)
        return 2
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 1 if any(line.startswith('{"error"') for line in lines) else 0


def _read(path: str) -> str:
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)     # bytes when there are any
            return stream.read().decode("utf-8") if stream is not None else sys.stdin.read()
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{'stdin' if path == '-' else path} is not UTF-8 text (byte 0x{e.object[e.start]:02x} "
                         f"at offset {e.start}); expected JSON lines") from None


def _dice(d, where: str = "") -> list[int]:
    if not (isinstance(d, list) and len(d) == 2 and all(type(x) is int and 1 <= x <= 6 for x in d)):
        raise InputError(f"{where}dice must be two integers from 1 to 6, got {json.dumps(d)}")
    return d


def answer_single(args) -> list[str]:
    if (args.position is None) == (args.position_id is None):
        raise InputError("give exactly one of --position, --position-id (or use --batch)")
    if args.dice is None:
        raise InputError("--dice D1 D2 is required")
    dice = _dice(list(args.dice))
    if args.position_id is not None:
        variant = args.variant or "standard"
        if variant == "abak":
            raise InputError("a Position ID describes a classic position, not abak")
        try:
            row = gnubg_id.decode(args.position_id)
        except gnubg_id.PositionIdError as e:
            raise InputError(str(e)) from None
        obj = json.loads(dumps_rows(row[None], variant)[0])
    else:
        text = args.position
        if text.startswith("@"):
            text = _read(text[1:])
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"--position is not valid JSON: {e}") from None
        if isinstance(obj, dict) and args.variant:
            if "variant" not in obj:
                obj = {"variant": args.variant, **obj}
            elif obj["variant"] != args.variant:
                raise InputError(f"--variant {args.variant} but the position says {obj['variant']!r}")
    try:
        variant, rows = rows_from_json([obj])
    except PositionError as e:
        raise InputError(f"bad position: {e.detail}") from None
    return _afterstate_items(variant, rows, np.array([dice]))[0]


def answer_batch(text: str, keep_going: bool = False) -> list[str]:
    """Answer every non-blank line of `text`; returns the output lines in input order. A bad
    line is an InputError naming it, or with keep_going the answer {"error": ...}."""
    line_no, positions, dice, variants, errors = [], [], [], [], {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            pos, d = _batch_line(line, n)
        except InputError as e:
            if not keep_going:
                raise
            errors[len(line_no)] = str(e)
            pos, d = None, None
        line_no.append(n)
        positions.append(pos)
        dice.append(d or [1, 1])
        variants.append(pos["variant"] if pos else None)
    out: list[str | None] = [None] * len(positions)
    variants_arr = np.array(variants, dtype=object)
    dice_arr = np.array(dice, dtype=np.int8).reshape(-1, 2)
    for name in dict.fromkeys(v for v in variants if v is not None):
        idx = np.flatnonzero(variants_arr == name)
        while idx.size:
            try:
                _, rows = rows_from_json([positions[i] for i in idx], name)
            except PositionError as e:
                msg = f"line {line_no[idx[e.index]]}: bad position: {e.detail}"
                if not keep_going:
                    raise InputError(msg) from None
                errors[int(idx[e.index])] = msg
                idx = np.delete(idx, e.index)     # answer the others without the bad one
                continue
            for i, items in zip(idx, _afterstate_items(name, rows, dice_arr[idx])):
                out[i] = '{"afterstates": [' + ", ".join(items) + "]}"
            break
    for i, msg in errors.items():
        out[i] = json.dumps({"error": msg})
    return out


def _batch_line(line: str, n: int) -> tuple[dict, list[int]]:
    """(position, dice) of one --batch line, or an InputError naming line n."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"line {n}: malformed JSON: {e}") from None
    if not isinstance(obj, dict) or "position" not in obj or "dice" not in obj:
        raise InputError(f'line {n}: expected an object {{"position": ..., "dice": [d1, d2]}}')
    extra = sorted(set(obj) - {"position", "dice"})
    if extra:
        raise InputError(f"line {n}: unknown field {extra[0]!r}")
    pos = obj["position"]
    if not isinstance(pos, dict) or pos.get("variant") not in VARIANTS:
        got = pos.get("variant") if isinstance(pos, dict) else pos
        raise InputError(f"line {n}: bad position: unknown or missing variant {got!r}; "
                         f"expected one of {', '.join(VARIANTS)}")
    return pos, _dice(obj["dice"], f"line {n}: ")


def _afterstate_items(variant: str, rows: np.ndarray, dice: np.ndarray) -> list[list[str]]:
    """Per input position, its afterstates as JSON texts {"position": ..., "play": ...}."""
    from ..engine.variants import get_variant
    try:
        engine = get_variant(variant)
    except ImportError as e:
        raise InputError(f"the {variant} engine is not available: {e}") from None
    after = engine.legal_afterstates(rows, dice, with_plays=True)
    texts = dumps_rows(after.boards, variant)
    plays = after.plays
    if not _PLAY_SAFE.match("\x00".join(plays)):
        quoted = [json.dumps(p) for p in plays]
    else:
        quoted = ['"' + p + '"' for p in plays]
    items = ['{"position": ' + t + ', "play": ' + q + "}" for t, q in zip(texts, quoted)]
    bounds = np.concatenate([[0], np.cumsum(after.counts(rows.shape[0]))]).tolist()
    return [items[bounds[i]:bounds[i + 1]] for i in range(rows.shape[0])]
