"""`abak-rl evaluate | tournament | curve`: key=value front ends over the evaluation modules."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .args import REQUIRED, ArgError, parse, usage

EVALUATE = {
    "agent": (str, REQUIRED), "opponent": (str, "pubeval"), "games": (int, 10_000),
    "variant": (str, "standard"), "seed": (int, 0), "batch": (int, 1000), "out": (str, ""),
    # write every game: x.jsonl (any variant), x.sgf (GNU Backgammon's SGF, standard) or x.mat
    # (Jellyfish, standard: matches, and money games under the Jacoby rule)
    "records": (str, ""),
    # GNU Backgammon's analysis of every game (docs/gnubg.md): judge=gnubg, at judge_plies
    "judge": (str, "none"), "judge_plies": (int, 0),
    # the doubling cube (docs/evaluation.md): cube=money, or match_length=N for matches
    "cube": (str, "none"), "match_length": (int, 0), "jacoby": (bool, False),
    "agent_cube": (str, "auto"), "opponent_cube": (str, "auto"),
    # Janowski's cube (docs/cube.md): cube_x=N fixes the efficiency (default: by position
    # class), its look-ahead (0, 1 or 2 ply), and the match equity table
    "cube_x": (float, None), "cube_ply": (int, 0), "met": (str, "kazaross-xg2"),
}
TOURNAMENT = {
    "agents": (list, REQUIRED), "games": (int, 2000), "variant": (str, "standard"),
    "seed": (int, 0), "batch": (int, 1000), "out": (str, "tournament"), "bootstrap": (int, 1000),
    "anchor": (str, ""),
}
CURVE = {
    "run": (str, REQUIRED), "opponents": (list, ["random", "pubeval"]), "games": (int, 2000),
    "variant": (str, ""), "seed": (int, 0), "batch": (int, 1000), "ply": (int, 0),
    "out": (str, ""), "tensorboard": (str, ""),
}


def _run(argv: list[str], spec: dict, command: str, body) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(usage(spec, command))
        return 0
    try:
        args = parse(argv, spec, command)
        if any("checkpoint:" in str(v) for v in args.values()):
            import torch
            torch.set_num_threads(1)   # small batched forward passes: 1 thread is ~4x faster here
        return body(args) or 0
    except (ArgError, ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"abak-rl {command}: error: {exc}", file=sys.stderr)
        return 2


def write_json(path: str, obj) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(obj, indent=2) + "\n")


def format_match(r: dict) -> str:
    return (f"{r['agent']} vs {r['opponent']} ({r['variant']}, {r['games']} games, seed {r['seed']}): "
            f"{r['ppg']:+.3f} ± {r['ppg_ci95']:.3f} ppg, wins {100 * r['win_rate']:.1f}%, "
            f"gammons {100 * r['gammon_rate']:.1f}% won / {100 * r['lose_gammon_rate']:.1f}% lost, "
            f"backgammons {100 * r['backgammon_rate']:.1f}% / {100 * r['lose_backgammon_rate']:.1f}%, "
            f"{r['games_per_s']:.1f} games/s")


def _judge(a: dict, r: dict) -> None:
    """GNU Backgammon's analysis of the games just written (judge=gnubg)."""
    from ..io.records import player_name
    from .analyze import analyze_files, format_table
    rows = analyze_files(r["records"], a["judge_plies"])
    roles = {player_name(r["agent"]): "agent", player_name(r["opponent"]): "opponent"}
    for row in rows:
        row["role"] = roles.get(row["player"], "")
    r["judge"] = {"program": "gnubg", "plies": a["judge_plies"], "players": rows}
    print(format_table(rows))


def _report_records(a: dict, r: dict) -> None:
    if a["keep_records"]:
        files = r.get("records", [])
        for path in files[:4]:
            print(f"game records: {path}")
        if len(files) > 4:
            print(f"game records: ... {len(files)} files in all")
    if a["judge"] == "gnubg":
        _judge(a, r)
    if not a["keep_records"]:
        r.pop("records", None)


def _judged_records(a: dict, tmp: str) -> str:
    """Where the games go: the user's records=, or (judge only) a temporary .sgf file."""
    if a["judge"] not in ("none", "gnubg"):
        raise ArgError(f"evaluate: judge={a['judge']!r}: expected none or gnubg")
    if a["judge"] == "none":
        return a["records"]
    if a["judge_plies"] not in (0, 1, 2):
        raise ArgError(f"evaluate: judge_plies={a['judge_plies']}: expected 0, 1 or 2")
    if a["variant"] != "standard":
        raise ArgError("evaluate: judge=gnubg judges standard backgammon only")
    from ..agents.gnubg_program import require_gnubg
    require_gnubg()
    if not a["records"]:
        return str(Path(tmp) / "judged.sgf")
    if Path(a["records"]).suffix not in (".sgf", ".mat"):
        raise ArgError(f"evaluate: judge=gnubg reads .sgf or .mat records, not {a['records']}")
    return a["records"]


def _evaluate(a: dict) -> int:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        a = dict(a, records=_judged_records(a, tmp), keep_records=bool(a["records"]))
        return _evaluate_games(a)


# the cube's keys and their defaults: set in games without a cube they would change nothing
CUBE_KEYS = {"cube_ply": 0, "cube_x": "auto", "agent_cube": "auto", "opponent_cube": "auto",
             "met": "kazaross-xg2", "jacoby": False}


def _refuse_cube_keys_in_cubeless_games(a: dict) -> None:
    given = [f"{k}={a[k]}" for k, default in CUBE_KEYS.items() if a[k] != default]
    if given:
        raise ArgError(f"evaluate: {', '.join(given)} applies to games with the cube only: "
                       f"add cube=money or match_length=N")


def _evaluate_games(a: dict) -> int:
    if a["cube"] not in ("none", "money", "match"):
        raise ArgError(f"evaluate: cube={a['cube']!r}: expected none, money or match")
    if a["match_length"] < 0:
        raise ArgError(f"evaluate: match_length={a['match_length']}: expected 0 (money) or more")
    if a["cube"] == "match" and not a["match_length"]:
        raise ArgError("evaluate: cube=match needs match_length=N")
    a = dict(a, cube_x="auto" if a["cube_x"] is None else a["cube_x"])
    if a["cube_ply"] not in (0, 1, 2):
        raise ArgError(f"evaluate: cube_ply={a['cube_ply']}: expected 0, 1 or 2")
    from ..engine.cube import MET_CHOICES
    if a["met"] not in MET_CHOICES:
        raise ArgError(f"evaluate: met={a['met']!r}: expected one of {', '.join(MET_CHOICES)}")
    if a["cube"] == "none" and not a["match_length"]:
        _refuse_cube_keys_in_cubeless_games(a)
    if a["cube"] != "none" or a["match_length"]:
        from .cube_match import format_cube_match, run_cube_match
        r = run_cube_match(a["agent"], a["opponent"], a["variant"], a["games"], a["seed"],
                           match_length=a["match_length"], jacoby=a["jacoby"],
                           agent_cube=a["agent_cube"], opponent_cube=a["opponent_cube"],
                           cube_x=a["cube_x"], batch=a["batch"], records=a["records"] or None,
                           met=a["met"], cube_ply=a["cube_ply"])
        print(format_cube_match(r))
        _report_records(a, r)
        if a["out"]:
            write_json(a["out"], r)
        return 0
    from .match import run_match
    r = run_match(a["agent"], a["opponent"], a["variant"], a["games"], a["seed"], batch=a["batch"],
                  records=a["records"] or None)
    print(format_match(r))
    _report_records(a, r)
    if a["out"]:
        write_json(a["out"], r)
    return 0


def _tournament(a: dict) -> int:
    from .tournament import run_tournament, write_outputs
    result = run_tournament(a["agents"], a["variant"], a["games"], a["seed"], batch=a["batch"],
                            bootstrap=a["bootstrap"], anchor=a["anchor"] or None)
    for line in write_outputs(result, a["out"]):
        print(line)
    return 0


def _curve(a: dict) -> int:
    from .curve import run_curve
    for line in run_curve(a["run"], a["opponents"], games=a["games"], variant=a["variant"] or None,
                          seed=a["seed"], batch=a["batch"], ply=a["ply"], out=a["out"] or None,
                          tensorboard=a["tensorboard"] or None):
        print(line)
    return 0


def evaluate_main(argv: list[str]) -> int:
    return _run(argv, EVALUATE, "evaluate", _evaluate)


def tournament_main(argv: list[str]) -> int:
    return _run(argv, TOURNAMENT, "tournament", _tournament)


def curve_main(argv: list[str]) -> int:
    return _run(argv, CURVE, "curve", _curve)
