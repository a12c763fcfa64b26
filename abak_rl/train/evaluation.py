"""Evaluation during training: the current net (0-ply) against fixed opponents.

Uses the evaluation package's match runner (abak_rl.evaluate.match.run_match: common dice, each
dice sequence from both seats, a confidence interval) when it is installed, else a minimal
stand-in built on the engine's play_games with the same pairing.
"""

from __future__ import annotations

import numpy as np

from ..agents.random_agent import RandomAgent

try:  # imported once, up front: a long run must not depend on files edited while it runs
    from ..evaluate.match import run_match
except ImportError:  # the evaluation package is optional here
    run_match = None
try:
    from ..evaluate.analyze import analyze_files
except ImportError:
    analyze_files = None

JUDGE = "gnubg_judge"   # the results entry of eval.judge=gnubg


class GnubgJudge:
    """eval.judge=gnubg: GNU Backgammon's analysis of `games` games of the net against
    `opponent` (eval.judge_opponent, default pubeval) at `plies`: the net's chequer-play error
    rate in mEMG per unforced move, logged like an opponent's results
    (eval/gnubg_judge/error_rate_memg). Standard backgammon only."""

    def __init__(self, plies: int = 0, games: int = 100, opponent=None):
        from ..agents.gnubg_program import check_plies, require_gnubg
        require_gnubg()
        if int(games) < 2 or int(games) % 2:
            raise ValueError(f"eval.judge_games={games}: expected an even number >= 2")
        self.plies, self.games, self.opponent = check_plies(plies), int(games), opponent

    def judge(self, agent, variant, seed: int) -> dict:
        opponent = self.opponent
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp:
            r = run_match(agent, opponent, variant, games=self.games, seed=seed, progress=False,
                          records=str(Path(tmp) / "judged.sgf"))
            rows = analyze_files(r["records"], self.plies)
        from ..io.records import player_name
        me = player_name(r["agent"])
        mine = next(x for x in rows if x["player"] == me)
        other = next((x for x in rows if x["player"] != me), {})
        return {"error_rate_memg": mine["error_rate_memg"],
                "opponent_error_rate_memg": other.get("error_rate_memg", float("nan")),
                "unforced_moves": mine["unforced_moves"], "plies": self.plies}


def make_opponent(name: str, seed: int, variant: str = "standard"):
    if name == "random":
        return RandomAgent(seed)
    if name == "pubeval":
        from ..agents.pubeval import PubevalAgent
        return PubevalAgent()
    from ..agents.registry import make_agent      # any other agent spec: heuristic, checkpoint:...
    return make_agent(name, variant, seed)


def _paired_match(agent, opponent, variant, games: int, seed: int) -> dict:
    from ..engine.game import play_games
    ids = np.arange(games // 2, dtype=np.int64)
    a = play_games(variant, [agent, opponent], ids.size, seed, game_ids=ids).seat_points(0)
    b = play_games(variant, [opponent, agent], ids.size, seed, game_ids=ids).seat_points(1)
    pair = (a + b) / 2.0
    pts = np.concatenate([a, b])
    ci = 1.96 * pair.std(ddof=1) / np.sqrt(pair.size) if pair.size > 1 else float("nan")
    return {"ppg": float(pts.mean()), "ppg_ci95": float(ci), "win_rate": float((pts > 0).mean())}


def match(agent, opponent, variant, games: int, seed: int) -> dict:
    if run_match is None:
        return _paired_match(agent, opponent, variant, games, seed)
    r = run_match(agent, opponent, variant, games=games, seed=seed, progress=False)
    return {"ppg": float(r["ppg"]), "ppg_ci95": float(r["ppg_ci95"]), "win_rate": float(r["win_rate"])}


def make_opponents(names, seed: int, variant: str = "standard", judge: dict | None = None) -> dict:
    """{name: agent or None when its module is not available}; built once per run. judge:
    {"kind": "none" | "gnubg", "plies", "games"} (eval.judge*) adds the GnubgJudge entry."""
    out = {}
    for name in names:
        try:
            out[name] = make_opponent(name, seed + 1, variant)
        except ImportError:
            out[name] = None
    kind = (judge or {}).get("kind") or "none"
    if kind not in ("none", "gnubg"):
        raise ValueError(f"eval.judge={kind!r}: expected none or gnubg")
    if kind == "gnubg":
        if variant != "standard":
            raise ValueError(f"eval.judge=gnubg judges standard backgammon only, not {variant}")
        opp = make_opponent(judge.get("opponent") or "pubeval", seed + 2, variant)
        out[JUDGE] = GnubgJudge(int(judge.get("plies", 0)), int(judge.get("games", 100)), opp)
    return out


def evaluate(agent, variant, opponents: dict, games: int, seed: int) -> dict:
    """{opponent name: {'ppg', 'ppg_ci95', 'win_rate'}} for the agent against each opponent
    (from make_opponents); one that is not available is skipped and says so."""
    out = {}
    for name, opp in opponents.items():
        if isinstance(opp, GnubgJudge):
            continue
        if opp is None:
            out[name] = {"skipped": f"{name} unavailable"}
            continue
        if hasattr(opp, "rng"):            # the random bot: the same dice and choices every time
            opp.rng = np.random.default_rng(seed + 1)
        out[name] = match(agent, opp, variant, games, seed)
    judge = opponents.get(JUDGE)
    if judge is not None and run_match is not None and analyze_files is not None:
        out[JUDGE] = judge.judge(agent, variant, seed)
    return out
