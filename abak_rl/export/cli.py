"""`abak-rl export`, `abak-rl hint` and `abak-rl play`.

    abak-rl export checkpoint=checkpoints/<run>/best.pt format=onnx,safetensors out=exports/mybot
    abak-rl hint --model exports/mybot --position-id 4HPwATDgc/ABMA --dice 3 1 [--ply 1|2] [--json]
    abak-rl hint --model exports/mybot --position '{"variant": "standard", ...}'   # cube decision
    abak-rl play --model exports/mybot [--seed 7] [--cube]

--model takes an export folder (model_card.json + weights), a .onnx / .safetensors file with its
model card beside it, or a training checkpoint (.pt, or a run folder holding latest.pt). Export
folders are read without PyTorch (abak_rl.inference); checkpoints need it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .. import inference as inf

EXPORT_HELP = """usage: abak-rl export checkpoint=<file or run folder> format=<formats> out=<folder>

  checkpoint=  a training checkpoint (.pt) or a checkpoints/<run>/ folder (its latest.pt)
  format=      onnx | safetensors | torchscript, comma-separated, or all (default: onnx,safetensors)
  out=         folder to write model_card.json and model.onnx / model.safetensors / model.ts into
  verify=      positions from random games on which every written file is checked against the
               PyTorch net to 1e-5 (default 200; 0 = skip)
  measured=    `abak-rl evaluate ... out=FILE` results, comma-separated, recorded in the card's
               `measured` field (opponent, games, seed, ppg with its 95% interval, win rate; a
               match result by its match wins)

The model card (model_card.json) records the variant, the feature set (name, version, input
size), the meaning and order of the five outputs, the network's shape, the training config,
games trained and the latest evaluation results. See docs/export.md."""


def _parse_kv(argv: list[str], allowed: dict) -> dict:
    out = dict(allowed)
    for a in argv:
        key, eq, value = a.partition("=")
        key = key.lstrip("-")
        if not eq:
            raise ValueError(f"argument {a!r} is not key=value")
        if key not in allowed:
            raise ValueError(f"unknown argument {key!r}; expected {', '.join(allowed)}")
        out[key] = value
    return out


def export_main(argv: list[str]) -> int:
    if any(a in ("-h", "--help", "help") for a in argv):
        print(EXPORT_HELP)
        return 0
    try:
        args = _parse_kv(argv, {"checkpoint": None, "format": "onnx,safetensors", "out": None,
                                "verify": "200", "measured": ""})
        for key in ("checkpoint", "out"):
            if not args[key]:
                raise ValueError(f"missing {key}=...")
        from .exporters import export_checkpoint, parse_formats
        formats = parse_formats(args["format"])
        try:
            verify = int(args["verify"])
        except ValueError:
            raise ValueError(f"verify={args['verify']!r} must be a whole number of positions") from None
        measured = [m for m in args["measured"].split(",") if m]
        card = export_checkpoint(args["checkpoint"], formats, args["out"], verify=verify, measured=measured)
    except (ValueError, OSError) as e:
        print(f"abak-rl export: {e}\n(abak-rl export --help for usage)", file=sys.stderr)
        return 2
    out = Path(args["out"])
    fs = card["feature_set"]
    print(f"exported {card['variant']} net ({fs['name']} v{fs['version']}, {fs['size']} inputs, "
          f"{card['training']['games']} games trained) to {out}/:")
    for fmt, f in card["files"].items():
        print(f"  {f['path']:<20} {fmt:<12} {(out / f['path']).stat().st_size:>10,} bytes")
    print(f"  {inf.CARD_NAME:<20} model card")
    if "verification" in card:
        v = card["verification"]
        print(f"verified on {v['positions']} positions: max |difference| to PyTorch "
              + ", ".join(f"{k} {d:.1e}" for k, d in v["max_abs_diff"].items()))
    return 0


def pretrained_dir(variant: str) -> Path:
    """Where the pretrained bot of a variant lives: $ABAK_RL_PRETRAINED/<variant>, else
    checkpoints/pretrained/<variant> in the checkout (made by scripts/train_pretrained.sh)."""
    from ..engine.variants import VARIANT_NAMES
    if variant not in VARIANT_NAMES:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANT_NAMES)}")
    roots = []
    if os.environ.get("ABAK_RL_PRETRAINED"):
        roots.append(Path(os.environ["ABAK_RL_PRETRAINED"]))
    roots.append(Path(__file__).resolve().parents[2] / "checkpoints" / "pretrained")
    for root in roots:
        if (root / variant / inf.CARD_NAME).is_file():
            return root / variant
    raise ValueError(f"no --model given and no pretrained {variant} bot found (looked in "
                     + ", ".join(str(r / variant) for r in roots)
                     + "); make one with scripts/train_pretrained.sh or pass --model")


TS_ADVICE = ("TorchScript (model.ts) is written for use from PyTorch/C++ and is not run here; "
             "pass the export folder (model_card.json with model.safetensors or model.onnx), the "
             ".onnx or .safetensors file, or the training checkpoint")


def check_model_path(path) -> Path:
    """The path, or a ValueError saying what it lacks (export folder, file or checkpoint)."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"model not found: {p} (expected an export folder, a .onnx or .safetensors "
                         f"file, or a checkpoint .pt file or run folder)")
    if p.is_file() and p.suffix == ".ts":
        raise ValueError(f"{p}: {TS_ADVICE}")
    if p.is_file() and p.suffix in (".onnx", ".safetensors") and not (p.parent / inf.CARD_NAME).is_file():
        raise ValueError(f"{p} has no {inf.CARD_NAME} beside it: the model card abak-rl export "
                         f"writes with the weights is needed to read them")
    if p.is_dir():
        card, latest = (p / inf.CARD_NAME).is_file(), (p / "latest.pt").is_file()
        weights = [n for n in ("model.safetensors", "model.onnx", "model.ts") if (p / n).is_file()]
        if card and weights == ["model.ts"]:
            raise ValueError(f"{p} holds only model.ts: {TS_ADVICE} (export again with "
                             f"format=onnx,safetensors)")
        if not card and not latest:
            if weights:
                raise ValueError(f"{p} has {', '.join(weights)} but no {inf.CARD_NAME}: the model card "
                                 f"abak-rl export writes beside the weights is missing")
            raise ValueError(f"{p} is neither an export folder (no {inf.CARD_NAME}) nor a run folder "
                             f"(no latest.pt)")
    return p


def open_model(path: str | None, variant: str | None = None, backend: str = "auto") -> inf.Model:
    """An export (no torch needed) or a checkpoint (torch) as an inference.Model; path None =
    the pretrained bot of `variant` (default standard)."""
    if path is None:
        path = pretrained_dir(variant or "standard")
    p = check_model_path(path)
    if (p.is_dir() and (p / inf.CARD_NAME).is_file()) or p.suffix in (".onnx", ".safetensors"):
        return inf.load_exported(p, backend=backend, variant=variant)
    from .exporters import load_model
    return load_model(p, variant=variant, backend=backend)


# ----------------------------------------------------------------------------- hint

def hint_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="abak-rl hint",
        description="Rank the legal plays of a position by equity (with --dice), or give the cube "
                    "decision before the roll (without --dice), like GNU Backgammon's hint.")
    p.add_argument("--model", help="export folder, .onnx/.safetensors file, or checkpoint "
                                   "(default: the pretrained bot of the variant)")
    p.add_argument("--variant", help="standard, nackgammon, acey_deucey or abak (default: the "
                                     "position's, else the model's)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--position", help="position JSON (docs/io.md), or @file.json")
    g.add_argument("--position-id", help="GNU Backgammon Position ID (standard / nackgammon)")
    p.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"), help="the roll; omit for the cube decision")
    p.add_argument("--ply", type=int, choices=(0, 1, 2), default=0,
                   help="look-ahead (default 0); 1 and 2 search the best 0-ply plays (docs/export.md)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    p.add_argument("--top", type=int, help="show only the best N plays")
    p.add_argument("--cube-owner", default="centred", choices=("centred", "mover", "opponent"),
                   help="who owns the cube, for the cube decision (default centred)")
    p.add_argument("--backend", default="auto", choices=("auto", "safetensors", "onnx"),
                   help="which exported weights to run (default: safetensors if present)")
    from .hint import add_match_arguments
    add_match_arguments(p)
    return p


def hint_main(argv: list[str], stdout=None) -> int:
    from .hint import check_dice, cube_hint_for, format_cube_any, format_plays, match_of, play_hint, read_position
    out = stdout or sys.stdout
    args = hint_parser().parse_args(argv)
    try:
        if args.top is not None and args.top < 1:
            raise ValueError(f"--top must be at least 1, got {args.top}")
        dice = check_dice(args.dice)
        if args.variant is not None:
            from ..engine.variants import VARIANT_NAMES
            if args.variant not in VARIANT_NAMES:
                raise ValueError(f"unknown variant {args.variant!r}; expected one of {', '.join(VARIANT_NAMES)}")
        default_variant = args.variant
        if args.model is None and default_variant is None and args.position:
            try:
                default_variant = json.loads(args.position).get("variant")
            except (json.JSONDecodeError, AttributeError):
                default_variant = None          # read_position names the problem below
        model = open_model(args.model, variant=None if args.model else default_variant, backend=args.backend)
        variant, row = read_position(args.position, args.position_id, args.variant, model.variant)
        if variant.name not in model.features.variants:
            raise ValueError(f"the model ({model.features.name}, trained on {model.card.get('variant')}) "
                             f"cannot evaluate {variant.name} positions")
        model.variant = variant
        if dice is None:
            h = cube_hint_for(args, model, row)
        else:
            h = play_hint(model, row, dice, ply=args.ply, top=args.top, match=match_of(args))
    except ValueError as e:   # PositionError, PositionIdError, ExportError, CheckpointError
        print(f"abak-rl hint: {e}", file=sys.stderr)
        return 2
    from ..io.position_json import row_to_json
    h["position"] = row_to_json(row, variant.name)
    if args.json:
        print(json.dumps(h), file=out)
    else:
        from ..io.diagram import diagram
        pic = diagram(row, variant.name, dice=dice)
        print(pic + "\n", file=out)
        print(format_cube_any(h) if dice is None else format_plays(h), file=out)
    return 0


# ----------------------------------------------------------------------------- play

def play_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="abak-rl play", description="Play a game, or a match, against the bot in the terminal.")
    p.add_argument("--model", help="export folder, .onnx/.safetensors file, or checkpoint "
                                   "(default: the pretrained bot of the variant)")
    p.add_argument("--variant", help="variant to play (default: the model's; standard without --model)")
    p.add_argument("--seed", type=int, help="dice seed (default: random; printed so a game can be replayed)")
    p.add_argument("--cube", action="store_true", help="money game with the doubling cube")
    p.add_argument("--match-length", type=int, default=0, metavar="N",
                   help="play a match to N points with the cube (the Crawford rule; the bot plays and "
                        "doubles by match-winning chance)")
    p.add_argument("--ply", type=int, choices=(0, 1, 2), default=0, help="the bot's look-ahead (default 0)")
    p.add_argument("--backend", default="auto", choices=("auto", "safetensors", "onnx"))
    return p


def play_main(argv: list[str], stdin=None, stdout=None) -> int:
    from .play import Quit, TerminalGame
    args = play_parser().parse_args(argv)
    out = stdout or sys.stdout
    try:
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        from ..engine import cube as cube_math
        longest = cube_math.load_met(cube_math.DEFAULT_MET).length
        if not 0 <= args.match_length <= longest:
            raise ValueError(f"--match-length must be from 1 to {longest}, the {cube_math.DEFAULT_MET} match "
                             f"equity table's longest match (0: a money game), got {args.match_length}")
        model = open_model(args.model, variant=args.variant, backend=args.backend)
    except ValueError as e:
        print(f"abak-rl play: {e}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    game = TerminalGame(model, seed, cube=args.cube, ply=args.ply, stdin=stdin, stdout=out,
                        match_length=args.match_length)
    try:
        game.run()
    except Quit as e:
        print(f"\nLeaving the game ({e}). Replay these dice with --seed {seed}.", file=out)
        return 0
    except KeyboardInterrupt:
        print(f"\nInterrupted. Replay these dice with --seed {seed}.", file=out)
        return 130
    return 0
