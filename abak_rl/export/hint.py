"""`abak-rl hint`: the legal plays of a position ranked by equity, or its cube decision.

Like GNU Backgammon's hint: with dice, every legal play with its cubeless equity, the difference
to the best play and the five outcome probabilities of the player to move (at a match score,
--match-length N --score A B, ranked by match-winning chance as evaluate and play choose); without dice, the
cube decision before the roll (no double / double, take / double, pass) with the cubeful
equities (Janowski, engine/cube.py): money play, or with --match-length N --score A B
[--crawford] at a match score, in match-winning chances from the match equity table.
Output as a table or, with --json, as one JSON object.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..inference import OUTPUTS, Model

OWNERS = {"centred": 0, "centered": 0, "mover": 1, "opponent": -1}
HEADS = ("Win", "W g", "W bg", "L g", "L bg")


def read_position(text: str | None, position_id: str | None, variant_name: str | None,
                  model_variant) -> tuple[object, np.ndarray]:
    """(variant object, row) from --position JSON (or @file) / --position-id / neither (start)."""
    from ..engine.variants import get_variant
    from ..io import position_json as pj

    def pick_variant(name):
        if name is None:
            return model_variant
        if name == model_variant.name:
            return model_variant
        return get_variant(name)

    if text is not None and position_id is not None:
        raise ValueError("give either --position or --position-id, not both")
    if text is not None:
        if text.startswith("@"):
            try:
                text = Path(text[1:]).read_text()
            except OSError as e:
                raise ValueError(f"--position {text}: cannot read the file: {e}") from None
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"--position is not valid JSON: {e}") from None
        vname, row = pj.row_from_json(obj)
        if variant_name is not None and variant_name != vname:
            raise ValueError(f"--variant {variant_name} but the position is a {vname} position")
        variant = pick_variant(vname)
    elif position_id is not None:
        from ..io import gnubg_id
        variant = pick_variant(variant_name)
        if variant.name not in ("standard", "nackgammon"):
            raise ValueError(f"a GNU Backgammon Position ID describes standard or nackgammon positions, "
                             f"not {variant.name}; use --position JSON")
        row = gnubg_id.decode(position_id)
    else:
        variant = pick_variant(variant_name)
        row = variant.initial_boards(1)[0]
    row = variant.validate(np.asarray(row, dtype=np.int8)[None])[0]
    if (variant.winner_points(variant.flip(row[None])) > 0).any():
        raise ValueError("the game in this position is over (the opponent has borne off all its checkers)")
    if (variant.winner_points(row[None]) > 0).any():
        raise ValueError("the game in this position is over (the player to move has borne off all its checkers)")
    return variant, row


def check_dice(dice) -> tuple[int, int]:
    if dice is None:
        return None
    if len(dice) != 2 or not all(1 <= int(d) <= 6 for d in dice):
        raise ValueError(f"--dice takes two numbers from 1 to 6, got {' '.join(map(str, dice))}")
    return int(dice[0]), int(dice[1])


def play_hint(model: Model, row: np.ndarray, dice, ply: int = 0, top: int | None = None,
              match: dict | None = None) -> dict:
    """The ranked plays as a JSON-ready dict. With `match` ({"length", "score", "crawford",
    "cube"}: the player to move's points first) the plays are ranked as evaluate and play choose
    them at that score: by match-winning chance, the five outcomes mapped through the match
    equity table with the cube's value (engine/cube.mwc_from_probs), the plays searched at `ply`
    first; each play keeps its cubeless equity beside its MWC."""
    from ..io.position_json import rows_to_json
    ranked = model.rank_plays(row, dice, ply=ply)
    mwc = []
    if match is not None:
        from ..engine import cube as cube_math
        length, score, cube = match["length"], match["score"], match.get("cube", 1)
        check_match_args(length, score, match.get("crawford", False), cube)
        met = cube_math.get_met(cube_math.DEFAULT_MET, length)
        values = cube_math.mwc_from_probs(np.stack([r.probs for r in ranked]), length - score[0],
                                          length - score[1], cube, met) if ranked else []
        order = sorted(range(len(ranked)), key=lambda i: (ranked[i].ply != ply, -values[i]))
        ranked, mwc = [ranked[i] for i in order], [float(values[i]) for i in order]
    if top is not None:
        ranked, mwc = ranked[:top], mwc[:top]
    best = ranked[0].equity if ranked else 0.0
    positions = rows_to_json(np.stack([r.board for r in ranked]), model.variant.name) if ranked else []
    plays = [{"rank": i + 1, "play": r.play, "equity": round(r.equity, 6),
              "diff": round(r.equity - best, 6), "ply": r.ply,
              "probs": {k: round(float(v), 6) for k, v in zip(OUTPUTS, r.probs)},
              "afterstate": pos}
             for i, (r, pos) in enumerate(zip(ranked, positions))]
    h = {"variant": model.variant.name, "dice": list(dice), "ply": ply, "model": model.source, "plays": plays}
    if match is not None:
        from ..engine.cube import DEFAULT_MET
        for play, value in zip(plays, mwc):
            play["mwc"] = round(value, 6)
            play["mwc_diff"] = round(value - mwc[0], 6)
        length, score = match["length"], match["score"]
        h["match"] = {"length": int(length), "score": [int(x) for x in score],
                      "away": [int(length - score[0]), int(length - score[1])],
                      "crawford": bool(match.get("crawford", False)), "cube": int(match.get("cube", 1)),
                      "met": DEFAULT_MET}
    return h


def cube_hint(model: Model, row: np.ndarray, owner: str = "centred", ply: int = 0,
              x: float | None = None) -> dict:
    """The money cube decision before the roll as a JSON-ready dict; x: the cube efficiency,
    by default GNU Backgammon's by position class, as evaluate and play decide (and then the
    exact values in a short two-sided bear-off: cube.method says which)."""
    from ..engine import cube as cube_math
    if owner not in OWNERS:
        raise ValueError(f"--cube-owner must be centred, mover or opponent, got {owner!r}")
    d = model.cube_decision(row, owner=OWNERS[owner], x="auto" if x is None else x, ply=ply)
    x = d["efficiency"]
    return {"variant": model.variant.name, "dice": None, "ply": ply, "model": model.source,
            "cube": {"owner": "centred" if owner == "centered" else owner, "efficiency": round(x, 6),
                     "method": d["method"],
                     "probs": {k: round(float(v), 6) for k, v in zip(OUTPUTS, d["probs"])},
                     "cubeless_equity": round(d["cubeless_equity"], 6),
                     "equities": {k: round(v, 6) for k, v in d["equities"].items()},
                     "decision": d["decision_name"]}}


def match_cube_hint(model: Model, row: np.ndarray, length: int, score, crawford: bool = False,
                    owner: str = "centred", cube: int = 1, ply: int = 0, x: float | None = None) -> dict:
    """The cube decision at a match score (score: the player to move's points first) as a
    JSON-ready dict; equities are match-winning chances (MWC) of the player to move."""
    from ..engine import cube as cube_math
    if owner not in OWNERS:
        raise ValueError(f"--cube-owner must be centred, mover or opponent, got {owner!r}")
    check_match_args(length, score, crawford, cube)
    away, opp_away = length - score[0], length - score[1]
    auto = x is None
    if auto:
        x = float(cube_math.cube_efficiency(model.variant, row[None])[0])
    own = OWNERS[owner]
    ctx = cube_math.CubeContext(value=np.array([cube]), owner=np.array([own]), away=np.array([away]),
                                opp_away=np.array([opp_away]),
                                met=cube_math.get_met(cube_math.DEFAULT_MET, length),
                                crawford=np.array([crawford]))
    policy = model.cube_policy("auto" if auto else x, ply)     # as evaluate decides a match cube
    decision, eq = policy.decide(model.variant, np.asarray(row)[None], ctx)
    probs = policy.last_probs
    available = bool(cube_math.match_cube_available(away, opp_away, cube, own, crawford))
    if not available:
        why = ("the Crawford game: no cube" if crawford else "the opponent owns the cube" if own < 0
               else "the cube already covers what the player to move needs")
        name = f"no double ({why})"
    else:
        name = cube_math.DECISION_NAMES[int(decision[0])]
    return {"variant": model.variant.name, "dice": None, "ply": ply, "model": model.source,
            "cube": {"owner": "centred" if owner == "centered" else owner, "efficiency": round(x, 6),
                     "value": int(cube), "match": {"length": int(length), "score": [int(s) for s in score],
                                                   "away": [int(away), int(opp_away)],
                                                   "crawford": bool(crawford),
                                                   "met": cube_math.DEFAULT_MET},
                     "probs": {k: round(float(v), 6) for k, v in zip(OUTPUTS, probs[0])},
                     "equities_mwc": {"no_double": round(float(eq[0, 0]), 6),
                                      "double_take": round(float(eq[0, 1]), 6),
                                      "double_pass": round(float(eq[0, 2]), 6)},
                     "decision": name}}


def add_match_arguments(p) -> None:
    """The hint parser's match options (export/cli.py)."""
    p.add_argument("--match-length", type=int, metavar="N",
                   help="at a match score: a match to N points (with --score); the cube decision, or "
                        "with --dice the plays ranked by match-winning chance")
    p.add_argument("--score", nargs=2, type=int, metavar=("MOVER", "OPPONENT"),
                   help="the match score, the player to move's points first")
    p.add_argument("--crawford", action="store_true", help="this is the Crawford game")
    p.add_argument("--cube-value", type=int, default=1, help="the cube's value (default 1)")


def match_of(args) -> dict | None:
    """The match state the parsed arguments give (None: money play); --score, --crawford and
    --cube-value without --match-length are an error, not silently dropped."""
    if args.match_length is None:
        if args.score is not None or args.crawford or args.cube_value != 1:
            raise ValueError("--score, --crawford and --cube-value need --match-length N")
        return None
    return {"length": args.match_length, "score": args.score, "crawford": args.crawford,   # checked by the hints
            "cube": args.cube_value}


def cube_hint_for(args, model: Model, row: np.ndarray) -> dict:
    """The cube hint the parsed arguments ask for: money, or at a match score."""
    if match_of(args) is None:
        return cube_hint(model, row, owner=args.cube_owner, ply=args.ply)
    return match_cube_hint(model, row, args.match_length, args.score, args.crawford,
                           owner=args.cube_owner, cube=args.cube_value, ply=args.ply)


def format_cube_any(h: dict, header: str = "") -> str:
    return format_match_cube(h, header) if "match" in h["cube"] else format_cube(h, header)


def check_match_args(length: int, score, crawford: bool, cube: int = 1) -> None:
    """One clear error for an impossible match state."""
    if length < 1:
        raise ValueError(f"--match-length must be at least 1, got {length}")
    if score is None or len(score) != 2:
        raise ValueError("--match-length needs --score A B (the player to move's points first)")
    a, b = score
    if not (0 <= a < length and 0 <= b < length):
        raise ValueError(f"--score {a} {b}: each score must be from 0 to {length - 1} in a "
                         f"{length}-point match (a player at {length} has won it)")
    if crawford and length - 1 not in (a, b):
        raise ValueError(f"--crawford: the Crawford game needs a player at {length - 1} "
                         f"({length - 1}-{b} or {a}-{length - 1}), not {a}-{b}")
    if cube < 1 or cube & (cube - 1):
        raise ValueError(f"--cube-value must be 1, 2, 4, ..., got {cube}")


def format_match_cube(h: dict, header: str = "") -> str:
    c = h["cube"]
    m = c["match"]
    lines = [header] if header else []
    lines.append(f"{h['variant']}, before the roll, {h['ply']}-ply; {m['length']}-point match, score "
                 f"{m['score'][0]}-{m['score'][1]} ({m['away'][0]}-away, {m['away'][1]}-away)"
                 + (", Crawford game" if m["crawford"] else "")
                 + f"; cube {c['value']} {c['owner']} (Janowski in match-winning chances, "
                 f"{m['met']} table, cube efficiency {c['efficiency']:.3f})")
    lines.append("  chances of the player to move: " + "  ".join(
        f"{name} {c['probs'][k]:.3f}" for name, k in zip(HEADS, OUTPUTS)))
    eq = c["equities_mwc"]
    best = max(eq["no_double"], min(eq["double_take"], eq["double_pass"]))
    lines.append("  match-winning chances of the player to move:")
    for i, (name, key) in enumerate((("No double", "no_double"), ("Double, take", "double_take"),
                                     ("Double, pass", "double_pass")), 1):
        diff = eq[key] - best
        lines.append(f"  {i}. {name:<13} {100 * eq[key]:6.2f}%" + (f"  ({100 * diff:+.2f}%)" if abs(diff) > 5e-7 else ""))
    lines.append(f"  Proper cube action: {c['decision'][0].upper() + c['decision'][1:]}")
    return "\n".join(lines)


def _probs_cells(p: dict) -> str:
    return " ".join(f"{p[k]:6.3f}" for k in OUTPUTS)


def format_plays(h: dict, header: str = "") -> str:
    lines = [header] if header else []
    m = h.get("match")
    what = ("equity and probabilities of the player to move" if m is None else
            f"{m['length']}-point match, score {m['score'][0]}-{m['score'][1]} ({m['away'][0]}-away, "
            f"{m['away'][1]}-away)" + (", Crawford game" if m["crawford"] else "") + f", cube {m['cube']}; "
            f"ranked by match-winning chance ({m['met']} table), cubeless equity beside it")
    lines.append(f"{h['variant']}, dice {h['dice'][0]}-{h['dice'][1]}, {h['ply']}-ply, "
                 f"{len(h['plays'])} play(s) shown; {what}")
    width = max([len("Play")] + [len(p["play"] or "(no play)") for p in h["plays"]])
    value = "   MWC     Diff   Equity " if m is not None else "  Equity    Diff   "
    lines.append(f"  #  {'Play':<{width}}{value}" + " ".join(f"{c:>6}" for c in HEADS))
    for p in h["plays"]:
        lower = f"  ({p['ply']}-ply)" if p.get("ply", h["ply"]) != h["ply"] else ""   # dropped by the move filter
        if m is None:
            diff = "" if p["rank"] == 1 else f"{p['diff']:+.3f}"
            cells = f"{p['equity']:+.3f}  {diff:>6}"
        else:
            diff = "" if p["rank"] == 1 else f"{100 * p['mwc_diff']:+.2f}%"
            cells = f"{100 * p['mwc']:6.2f}%  {diff:>7}  {p['equity']:+.3f}"
        lines.append(f"{p['rank']:>3}  {p['play'] or '(no play)':<{width}}  {cells}   {_probs_cells(p['probs'])}{lower}")
    return "\n".join(lines)


def format_cube(h: dict, header: str = "") -> str:
    c = h["cube"]
    lines = [header] if header else []
    how = ("exact: a two-sided bear-off of at most six checkers a side" if c.get("method", "").startswith("exact")
           else f"Janowski, cube efficiency {c['efficiency']}")
    lines.append(f"{h['variant']}, before the roll, {h['ply']}-ply; cube {c['owner']}, money play ({how})")
    lines.append("  chances of the player to move: " + "  ".join(
        f"{name} {c['probs'][k]:.3f}" for name, k in zip(HEADS, OUTPUTS)))
    lines.append(f"  cubeless equity {c['cubeless_equity']:+.3f}")
    eq = c["equities"]
    best = max(eq["no_double"], min(eq["double_take"], eq["double_pass"]))
    lines.append("  cubeful equities:")
    for i, (name, key) in enumerate((("No double", "no_double"), ("Double, take", "double_take"),
                                     ("Double, pass", "double_pass")), 1):
        diff = eq[key] - best
        lines.append(f"  {i}. {name:<13} {eq[key]:+.3f}" + (f"  ({diff:+.3f})" if abs(diff) > 5e-7 else ""))
    lines.append(f"  Proper cube action: {c['decision'][0].upper() + c['decision'][1:]}")
    return "\n".join(lines)
