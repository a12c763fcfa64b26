"""Head-to-head matches with common random numbers, played in lockstep batches.

Dice sequence i (game id i) is played twice: once with the agent in seat 0 and once with the
seats swapped. engine.dice gives a game its dice from (seed, game id) alone, so in the second
game the agent is dealt exactly the rolls its opponent had in the first: luck cancels within a
pair and the paired interval (evaluate.stats) is much narrower than for independent games.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..engine.game import play_games
from ..engine.variants import get_variant
from .stats import summarize


def resolve(agent, variant, seed: int):
    """An Agent from an object or a registry spec string."""
    if isinstance(agent, str):
        from ..agents.registry import make_agent
        return make_agent(agent, variant, seed)
    if not callable(getattr(agent, "choose", None)):
        raise TypeError(f"{agent!r} is neither an agent spec nor an object with choose()")
    return agent


def _label(spec, agent) -> str:
    return spec if isinstance(spec, str) else str(getattr(agent, "name", type(agent).__name__))


def play_pairs(agent, opponent, variant, ids: np.ndarray, seed: int, record: bool = False):
    """Agent's points in games `ids` from seat 0 and in the same games from seat 1; total turns;
    and, with record=True, the two GameResults (for game records)."""
    first = play_games(variant, [agent, opponent], ids.size, seed, game_ids=ids, record=record)
    second = play_games(variant, [opponent, agent], ids.size, seed, game_ids=ids, record=record)
    turns = int(first.turns.sum() + second.turns.sum())
    return first.seat_points(0), second.seat_points(1), turns, (first, second)


def write_match_records(path: str, legs: list, variant, names: tuple[str, str], seed: int) -> list[str]:
    """Game records of a match: JSON lines with both seatings in one file, or for `.sgf`
    (standard only) one GNU Backgammon session file per seating (`x.sgf`, `x_swapped.sgf`),
    since such a file keeps its two players in fixed places. `.mat` is refused: gnubg would
    score these cubeless games under its Jacoby setting (io/records.py, mat_refusal).
    Returns the files written."""
    from ..io.records import game_records, write_file, write_jsonl
    from .cube_match import check_records_path
    check_records_path(path, variant)
    per_leg = [[], []]
    for ids, first, second in legs:
        per_leg[0] += game_records(first, variant.name, names, seed, ids)
        per_leg[1] += game_records(second, variant.name, names[::-1], seed, ids)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix in (".mat", ".sgf"):
        other = p.with_name(p.stem + "_swapped" + p.suffix)
        write_file(per_leg[0], p)
        write_file(per_leg[1], other)
        return [str(p), str(other)]
    write_jsonl(per_leg[0] + per_leg[1], p)
    return [str(p)]


def run_match(agent, opponent, variant="standard", games: int = 10_000, seed: int = 0,
              batch: int = 1000, progress: bool | None = None, keep_results: bool = False,
              records: str | None = None) -> dict:
    """Play `games` games (an even number: games/2 dice sequences, each from both seats).

    agent, opponent: Agent objects or registry specs; variant: a variant or its name.
    Returns the summary dict (points per game from the agent's side, etc.; see stats.summarize).
    progress: show a tqdm bar (default: only for runs of 2,000 games or more).
    keep_results: also return "results": (first, second), the agent's points per dice sequence
    from seat 0 and from seat 1 (arrays, for ratings; not JSON).
    records: also write every game as a game record to this file (see write_match_records).
    """
    if isinstance(variant, str):
        variant = get_variant(variant)
    if not isinstance(games, (int, np.integer)) or games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each dice sequence is played "
                         f"from both seats), got {games!r}")
    if not isinstance(batch, (int, np.integer)) or batch < 2:
        raise ValueError(f"batch must be an integer >= 2, got {batch!r}")
    if records is not None:
        from .cube_match import check_records_path
        check_records_path(records, variant)
    a = resolve(agent, variant, seed)
    b = resolve(opponent, variant, seed + 1)
    pairs = games // 2
    step = max(1, batch // 2)
    first, second = np.empty(pairs, np.int64), np.empty(pairs, np.int64)
    turns = 0
    legs: list = []
    bar = None
    if progress or (progress is None and games >= 2000):
        from tqdm import tqdm
        bar = tqdm(total=games, unit="game", desc=f"{a.name} vs {b.name}", leave=False)
    start = time.perf_counter()
    for lo in range(0, pairs, step):
        ids = np.arange(lo, min(lo + step, pairs), dtype=np.int64)
        first[ids], second[ids], t, games_played = play_pairs(a, b, variant, ids, seed,
                                                              record=records is not None)
        turns += t
        if records is not None:
            legs.append((ids, *games_played))
        if bar is not None:
            bar.update(2 * ids.size)
    elapsed = time.perf_counter() - start
    if bar is not None:
        bar.close()
    report = {"agent": _label(agent, a), "opponent": _label(opponent, b), "variant": variant.name, "games": int(games),
              "seed": int(seed)}
    report.update(summarize(first, second))
    report.update({"mean_turns": turns / games, "seconds": elapsed,
                   "games_per_s": games / elapsed if elapsed > 0 else float("inf")})
    if records is not None:
        report["records"] = write_match_records(records, legs, variant,
                                                (report["agent"], report["opponent"]), seed)
    if keep_results:
        report["results"] = (first, second)
    return report
