"""Cubeful matches: money play with the doubling cube, or matches to N points.

Like run_match, every dice sequence is played from both seats (common random numbers): slot i
plays its games with the agent in seat 0, then the same game ids with the seats swapped
(engine.matchplay gives a slot's k-th game the same dice either way). Reported from the agent's
side: cubeful points per game (money) or the match-winning rate (matches), each with a paired
95% interval, plus how often each side doubled and dropped.

Cube policies (agents/cube_policies.py): `auto` gives a neural or exported agent Janowski's
cubeful decisions from its own probabilities, pubeval and the heuristic the threshold policy on
a pip-count win estimate, the random bot random cube actions; `janowski`, `threshold`, `random`
and `never` (never doubles, always takes) choose one explicitly. A `gnubg:plies=N` agent brings
GNU Backgammon's own cube decisions (`auto` or `gnubg`; agents/gnubg_program.py).
"""

from __future__ import annotations

import time

import numpy as np

from ..agents.cube_policies import JanowskiCube, NeverDouble, RandomCube, ThresholdCube
from ..engine.matchplay import play_cubeful
from ..engine.variants import get_variant
from .match import _label, resolve
from .stats import paired_ppg

POLICIES = ("auto", "janowski", "threshold", "random", "never", "gnubg")


def probs_fn_for(agent):
    """The pre-roll probabilities function of an agent that has an evaluator, else None."""
    if callable(getattr(agent, "cube_probs", None)):
        return agent.cube_probs
    scorer = getattr(agent, "scorer", None)
    if scorer is None:
        return None
    from ..model.net import swap_perspective

    def probs(variant, boards):
        # the position before the mover's roll is the opponent's afterstate, flipped
        opp = scorer.probs(variant.flip(boards), np.zeros(boards.shape[0], dtype=bool))
        return swap_perspective(opp)
    return probs


def check_records_path(path: str, variant, match_length: int = 0, jacoby: bool = False) -> None:
    """Refuse, before any game is played, a records file that cannot hold these games."""
    from pathlib import Path
    suffix = Path(path).suffix
    name = getattr(variant, "name", variant)
    if suffix in (".mat", ".sgf") and name != "standard":
        raise ValueError(f"records={path}: {suffix} is for standard backgammon; use .jsonl for {name}")
    if suffix == ".mat" and not match_length and not jacoby:
        from ..io.records import mat_refusal
        raise ValueError(f"records={path}: " + mat_refusal([{"match_length": 0}]))


def afterstate_fn_for(agent):
    """The afterstate evaluator (boards, again) -> [m, 5] of a neural or exported agent, else None
    (what an N-ply cube plays each roll with)."""
    scorer = getattr(agent, "scorer", None) or getattr(agent, "model", None)
    return getattr(scorer, "probs", None) if scorer is not None else None


def make_policy(kind: str, agent, x="auto", seed: int = 0, jacoby: bool = False, ply: int = 0):
    if kind not in POLICIES:
        raise ValueError(f"cube policy {kind!r}: expected one of {', '.join(POLICIES)}")
    if kind == "gnubg" or (kind == "auto" and callable(getattr(agent, "cube_policy", None))):
        if not callable(getattr(agent, "cube_policy", None)):
            raise ValueError(f"cube policy gnubg needs a gnubg:plies=N agent, not {agent.name!r}")
        return agent.cube_policy(jacoby)
    fn = probs_fn_for(agent)
    if kind == "auto":
        kind = "janowski" if fn is not None else ("random" if agent.name == "random" else "threshold")
    if kind == "janowski":
        if fn is None:
            raise ValueError(f"cube policy janowski needs an agent with an evaluator, not {agent.name!r}")
        after = afterstate_fn_for(agent) if ply else None
        if ply and after is None:
            raise ValueError(f"a {ply}-ply cube needs an agent with an afterstate evaluator, not {agent.name!r}")
        return JanowskiCube(fn, x, ply=ply, afterstate_fn=after)
    if kind == "threshold":
        return ThresholdCube()
    if kind == "random":
        return RandomCube(seed=seed)
    return NeverDouble()


def run_cube_match(agent, opponent, variant="standard", games: int = 10_000, seed: int = 0, *,
                   match_length: int = 0, jacoby: bool = False, agent_cube: str = "auto",
                   opponent_cube: str = "auto", cube_x="auto", batch: int = 1000,
                   records: str | None = None, met: str = "kazaross-xg2", cube_ply: int = 0) -> dict:
    """Cubeful money games (match_length=0) or matches; `games` counts games or matches (even).

    records: also write every game, cube actions included (evaluate/cube_records.py; the slots
    are then played one at a time: the same games, without the batching)."""
    if isinstance(variant, str):
        variant = get_variant(variant)
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each dice sequence is played from "
                         f"both seats), got {games!r}")
    if records:
        check_records_path(records, variant, match_length, jacoby)
        if match_length and met != "kazaross-xg2":
            raise ValueError(f"records= plays matches with the default match equity table; "
                             f"met={met} is not supported with records")
    a = resolve(agent, variant, seed)
    b = resolve(opponent, variant, seed + 1)
    pa = make_policy(agent_cube, a, cube_x, seed, jacoby, cube_ply)
    pb = make_policy(opponent_cube, b, cube_x, seed + 1, jacoby, cube_ply)
    if cube_ply and not (isinstance(pa, JanowskiCube) or isinstance(pb, JanowskiCube)):
        raise ValueError(f"cube_ply={cube_ply} is the look-ahead of Janowski's cube, and neither side "
                         f"uses it here ({type(pa).__name__} against {type(pb).__name__}): "
                         f"it would change nothing")
    legs: list = [[], []]
    pairs = games // 2
    first, second = np.empty(pairs, np.int64), np.empty(pairs, np.int64)
    doubles = drops = played = 0   # totals over both sides
    step = max(1, batch // 2)
    start = time.perf_counter()
    for lo in range(0, pairs, step):
        ids = np.arange(lo, min(lo + step, pairs), dtype=np.int64)
        if records:
            names = (_label(agent, a), _label(opponent, b))
            from .cube_records import play_recorded
            p1, recs1 = play_recorded(variant, [a, b], [pa, pb], ids, seed, names,
                                      match_length=match_length, jacoby=jacoby)
            p2, recs2 = play_recorded(variant, [b, a], [pb, pa], ids, seed, names[::-1],
                                      match_length=match_length, jacoby=jacoby)
            first[ids], second[ids] = p1, -p2
            legs[0] += recs1
            legs[1] += recs2
            for slot in recs1 + recs2:
                played += len(slot)
                doubles += sum(t.get("cube") == "double" for r in slot for t in r["turns"])
                drops += sum(t.get("cube") == "drop" for r in slot for t in r["turns"])
            continue
        r1 = play_cubeful(variant, [a, b], [pa, pb], ids.size, seed, match_length=match_length,
                          jacoby=jacoby, game_ids=ids, met=met)
        r2 = play_cubeful(variant, [b, a], [pb, pa], ids.size, seed, match_length=match_length,
                          jacoby=jacoby, game_ids=ids, met=met)
        first[ids], second[ids] = r1.seat0_points, -r2.seat0_points
        doubles += int(r1.doubles.sum() + r2.doubles.sum())
        drops += int(r1.drops.sum() + r2.drops.sum())
        played += int(r1.games.sum() + r2.games.sum())
    elapsed = time.perf_counter() - start
    report = {"agent": _label(agent, a), "opponent": _label(opponent, b), "variant": variant.name,
              "seed": int(seed), "cube": "match" if match_length else "money",
              "match_length": int(match_length), "jacoby": bool(jacoby),
              "agent_cube": type(pa).__name__, "opponent_cube": type(pb).__name__,
              "cube_x": cube_x, "cube_ply": int(cube_ply), "met": met if match_length else None,
              "games_played": played, "doubles_per_game": doubles / played,
              "drops_per_game": drops / played, "seconds": elapsed}
    if records:
        from .cube_records import write_cubeful_records
        report["records"] = write_cubeful_records(records, legs, match_length)
    if match_length:
        mwc, half = paired_ppg(first > 0, second > 0)
        report.update({"matches": int(games), "match_win_rate": mwc, "match_win_rate_ci95": half,
                       "matches_per_s": games / elapsed if elapsed > 0 else float("inf")})
    else:
        ppg, half = paired_ppg(first, second)
        win, win_half = paired_ppg(first > 0, second > 0)
        report.update({"games": int(games), "ppg": ppg, "ppg_ci95": half, "win_rate": win,
                       "win_rate_ci95": win_half,
                       "games_per_s": games / elapsed if elapsed > 0 else float("inf")})
    return report


def format_cube_match(r: dict) -> str:
    head = f"{r['agent']} ({r['agent_cube']}) vs {r['opponent']} ({r['opponent_cube']}), {r['variant']}"
    if r["match_length"]:
        return (f"{head}, {r['matches']} matches to {r['match_length']}: match wins "
                f"{100 * r['match_win_rate']:.1f}% ± {100 * r['match_win_rate_ci95']:.1f}, "
                f"{r['doubles_per_game']:.2f} doubles and {r['drops_per_game']:.2f} drops per game")
    return (f"{head}, {r['games']} money games{' (Jacoby)' if r['jacoby'] else ''}: "
            f"{r['ppg']:+.3f} ± {r['ppg_ci95']:.3f} cubeful ppg, wins {100 * r['win_rate']:.1f}%, "
            f"{r['doubles_per_game']:.2f} doubles and {r['drops_per_game']:.2f} drops per game, "
            f"{r['games_per_s']:.1f} games/s")
