"""GNU Backgammon figures for docs/gnubg.md: one command each, re-run when the shipped net changes.

    python scripts/gnubg_benchmarks.py judge [--agent SPEC] [--games 100] [--plies 2] [--json F]
    python scripts/gnubg_benchmarks.py match [--agent SPEC] [--ply 0] [--gnubg-plies 2]
                                             [--games 200] [--json F]

judge: the agent plays `games` games against pubeval and `games` against GNU Backgammon at 0 ply
(the program, gnubg:plies=0), common dice, every game recorded as SGF; gnubg analyses them all at
`--plies` and reports each player's chequer-play error rate (mEMG per unforced move). The agent's
rate is given per opponent and over both sets.

match: the agent (at --ply) against GNU Backgammon at --gnubg-plies, cubeless money games with
common dice (evaluate/match.py), and how long it took: wall-clock seconds, and the CPU seconds of
our process and of the gnubg process separately (a shared machine's wall clock mostly measures
the other jobs).

Default agent: the shipped standard net, export:checkpoints/pretrained/standard.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

NET = "export:checkpoints/pretrained/standard"


def _cpu():
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def _close_shared():
    """Stop the shared gnubg process so its CPU time is counted (os.times children)."""
    from abak_rl.agents import gnubg_program
    prog = gnubg_program._SHARED.pop("p", None)
    if prog is not None:
        prog.close()


def judge(agent: str, games: int, plies: int, seed: int) -> dict:
    from abak_rl.evaluate.analyze import analyze_files
    from abak_rl.evaluate.match import run_match
    from abak_rl.io.records import player_name
    out = {"agent": agent, "games_per_opponent": games, "analysis_plies": plies, "seed": seed,
           "by_opponent": {}}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for opp in ("pubeval", "gnubg:plies=0"):
            r = run_match(agent, opp, "standard", games=games, seed=seed, progress=False,
                          records=str(Path(tmp) / f"{opp.replace(':', '_').replace('=', '')}.sgf"))
            files[opp] = r["records"]
            out["by_opponent"][opp] = {"ppg": r["ppg"], "ppg_ci95": r["ppg_ci95"]}
        t0 = time.perf_counter()
        me = player_name(agent)
        for opp, fs in files.items():
            rows = {x["player"]: x for x in analyze_files(fs, plies)}
            out["by_opponent"][opp]["agent"] = rows[me]
            out["by_opponent"][opp]["opponent"] = rows[player_name(opp)]
        rows = [out["by_opponent"][o]["agent"] for o in files]
        unforced = sum(r["unforced_moves"] for r in rows)
        out["agent_over_both"] = {
            "unforced_moves": unforced, "games": sum(r["games"] for r in rows),
            "error_rate_memg": sum(r["error_rate_memg"] * r["unforced_moves"] for r in rows) / unforced,
            **{k: sum(r[k] for r in rows) for k in ("doubtful", "bad", "very_bad")}}
        out["analysis_seconds"] = time.perf_counter() - t0
    return out


def match(agent: str, ply: int, gnubg_plies: int, games: int, seed: int) -> dict:
    from abak_rl.evaluate.match import run_match
    spec = agent + (f",ply={ply}" if ply else "")
    cpu0, child0 = _cpu()
    t0 = time.perf_counter()
    r = run_match(spec, f"gnubg:plies={gnubg_plies}", "standard", games=games, seed=seed,
                  progress=False)
    wall = time.perf_counter() - t0
    _close_shared()
    cpu1, child1 = _cpu()
    keep = ("agent", "opponent", "games", "seed", "ppg", "ppg_ci95", "win_rate", "gammon_rate",
            "lose_gammon_rate", "mean_turns")
    out = {k: r[k] for k in keep if k in r}
    out.update({"wall_seconds": wall, "our_cpu_seconds": cpu1 - cpu0,
                "gnubg_cpu_seconds": child1 - child0})
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    j = sub.add_parser("judge")
    j.add_argument("--agent", default=NET)
    j.add_argument("--games", type=int, default=100)
    j.add_argument("--plies", type=int, default=2, choices=(0, 1, 2))
    m = sub.add_parser("match")
    m.add_argument("--agent", default=NET)
    m.add_argument("--ply", type=int, default=0, choices=(0, 1, 2))
    m.add_argument("--gnubg-plies", type=int, default=2, choices=(0, 1, 2))
    m.add_argument("--games", type=int, default=200)
    for q in (j, m):
        q.add_argument("--seed", type=int, default=0)
        q.add_argument("--json", help="also write the result here")
    a = p.parse_args(argv)
    if "checkpoint:" in a.agent:       # small batched forward passes: one thread is fastest
        import torch
        torch.set_num_threads(1)
    from report import emit
    if a.what == "judge":
        return emit("gnubg_benchmarks", lambda: judge(a.agent, a.games, a.plies, a.seed), a.json)
    return emit("gnubg_benchmarks", lambda: match(a.agent, a.ply, a.gnubg_plies, a.games, a.seed), a.json)


if __name__ == "__main__":
    sys.exit(main())
