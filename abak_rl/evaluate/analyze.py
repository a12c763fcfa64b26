"""`abak-rl analyze FILES [--plies 0|1|2] [--json]`: GNU Backgammon's own analysis of game
records (.sgf or .mat), headless, as a judge of the players' decisions.

Per player, summed over every file it appears in (players are matched by name):
- error_rate_memg: chequer-play error per unforced move in milli-EMG (normalised money equity,
  gnubg's "Error rate mEMG"), the field's usual yardstick; lower is better (0 = gnubg agrees
  with every play at the analysis depth).
- doubtful / bad / very_bad: moves gnubg marks so.
- cube_errors, cube_error_rate_memg (per close cube decision), doubles, takes, drops.
- overall_error_rate_memg (chequer and cube errors per decision) and gnubg's rating label for
  it (Supernatural, World class, Expert, ...), computed by gnubg itself.

Analysis uses the program's defaults apart from the depth: cubeful, deterministic, no noise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

FIELDS = ("files", "games", "moves", "unforced_moves", "error_rate_memg", "doubtful", "bad",
          "very_bad", "cube_decisions", "close_cube_decisions", "cube_errors",
          "cube_error_rate_memg", "doubles", "takes", "drops", "overall_error_rate_memg", "rating")


def analyze_files(files, plies: int = 0, program=None) -> list[dict]:
    """One dict per player (see the module docstring), in order of first appearance."""
    from ..agents.gnubg_program import GnubgProgram, check_plies
    plies = check_plies(plies)
    files = [str(Path(f).resolve()) for f in files]
    for f in files:
        if not Path(f).is_file():
            raise FileNotFoundError(f"no such record file: {f}")
        if Path(f).suffix not in (".sgf", ".mat"):
            raise ValueError(f"{f}: expected a .sgf or .mat record (write them with "
                             f"evaluate records=x.sgf)")
    own = program is None
    prog = GnubgProgram() if own else program
    try:
        totals: dict[str, dict] = {}
        for f in files:
            res = prog.request("analyze", file=f, plies=plies)
            if not res["games"]:
                raise ValueError(f"{f}: GNU Backgammon found no games in it")
            for p in res["players"]:
                t = totals.setdefault(p["name"], {"player": p["name"], "files": 0, "games": 0,
                                                  "_raw": {}})
                t["files"] += 1
                t["games"] += len(res["games"])
                for k, v in p.items():
                    if isinstance(v, (int, float)):
                        t["_raw"][k] = t["_raw"].get(k, 0) + v
                    elif isinstance(v, dict):
                        d = t["_raw"].setdefault(k, {})
                        for kk, vv in v.items():
                            d[kk] = d.get(kk, 0) + vv
        out = [_summary(t) for t in totals.values()]
        labels = prog.request("ratings", values=[o["overall_error_rate_memg"] / 1000 for o in out])
        for o, label in zip(out, labels):
            o["rating"] = label if o["unforced_moves"] + o["close_cube_decisions"] else "n/a"
            o["plies"] = plies
        return out
    finally:
        if own:
            prog.close()


def _summary(t: dict) -> dict:
    r = t["_raw"]
    unforced, close = int(r.get("unforced", 0)), int(r.get("close_cube", 0))
    checker, cube = abs(r.get("checker_skill", 0.0)), abs(r.get("cube_skill", 0.0))
    marked = r.get("marked", {})
    return {"player": t["player"], "files": t["files"], "games": t["games"],
            "moves": int(r.get("moves", 0)), "unforced_moves": unforced,
            "error_rate_memg": 1000 * checker / unforced if unforced else 0.0,
            "doubtful": int(marked.get("doubtful", 0)), "bad": int(marked.get("bad", 0)),
            "very_bad": int(marked.get("very bad", 0)),
            "cube_decisions": int(r.get("cube_decisions", 0)), "close_cube_decisions": close,
            "cube_errors": int(r.get("cube_errors", 0)),
            "cube_error_rate_memg": 1000 * cube / close if close else 0.0,
            "doubles": int(r.get("doubles", 0)), "takes": int(r.get("takes", 0)),
            "drops": int(r.get("drops", 0)),
            "overall_error_rate_memg": (1000 * (checker + cube) / (unforced + close)
                                        if unforced + close else 0.0)}


def format_table(rows: list[dict]) -> str:
    width = max([len("player")] + [len(r["player"]) for r in rows])
    plies = rows[0]["plies"] if rows else 0
    lines = [f"GNU Backgammon analysis at {plies}-ply (error rates in mEMG; lower is better)",
             f"{'player':<{width}}  games  unforced  err/move  doubtful  bad  v.bad  "
             f"cube dec.  cube err  overall  rating"]
    for r in rows:
        lines.append(f"{r['player']:<{width}}  {r['games']:>5}  {r['unforced_moves']:>8}  "
                     f"{r['error_rate_memg']:>8.1f}  {r['doubtful']:>8}  {r['bad']:>3}  "
                     f"{r['very_bad']:>5}  {r['close_cube_decisions']:>9}  {r['cube_errors']:>8}  "
                     f"{r['overall_error_rate_memg']:>7.1f}  {r['rating']}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="abak-rl analyze",
        description="GNU Backgammon's analysis of game records (.sgf or .mat): per player the "
                    "chequer-play error rate (mEMG per unforced move), marked moves, cube errors "
                    "and gnubg's rating. Needs the gnubg program (apt-get install gnubg).")
    p.add_argument("files", nargs="+", help="record files (evaluate ... records=x.sgf writes them)")
    p.add_argument("--plies", type=int, choices=(0, 1, 2), default=0,
                   help="gnubg's analysis depth (default 0; 2 = its 'world class' setting)")
    p.add_argument("--json", action="store_true", help="JSON: a list with one entry per player")
    return p


def main(argv: list[str], stdout=None) -> int:
    out = stdout or sys.stdout
    args = parser().parse_args(argv)
    try:
        rows = analyze_files(args.files, args.plies)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"abak-rl analyze: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(rows, indent=2) if args.json else format_table(rows), file=out)
    return 0
