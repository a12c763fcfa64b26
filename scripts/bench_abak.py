"""Abak move-generation speed: random-play games per second against the standard variant (same
run, same game loop) and afterstates per second at a few batch sizes. One JSON line per
measurement; the figure is the best of --reps runs (CPU time of this process), which is the
least disturbed by other work on a shared machine. Afterstates per second: the same sample of
positions met in random games (each with its own roll), cut into batches of each size.

    python scripts/bench_abak.py [--games 256] [--seeds 3] [--reps 3] [--batches 1,64,1024]
                                 [--positions 2048] [--can-move]

--can-move: the total-deadlock check (engine.deadlock) asks abak.movegen.can_move for Abak
instead of generating all 21 rolls' afterstates (same answers, same games; a proposal for
engine/deadlock.py, patched in here only to measure it).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant


def best_of(reps: int, fn) -> float:
    """Fewest CPU seconds of `reps` calls of fn()."""
    best = float("inf")
    for _ in range(reps):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def sample_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n Abak positions and rolls met in random games (every turn of a few games)."""
    v = get_variant("abak")
    games = max(4, n // 100)
    r = play_games(v, [RandomAgent(seed), RandomAgent(seed + 1)], games, seed=seed, record=True)
    turns = [t for g in r.records for t in g]
    pick = np.random.default_rng(seed).choice(len(turns), n, replace=len(turns) < n)
    return (np.stack([turns[i]["before"] for i in pick]),
            np.array([turns[i]["dice"] for i in pick], dtype=np.int8))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batches", default="1,64,1024")
    ap.add_argument("--positions", type=int, default=2048, help="positions timed per batch size")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=3, help="game sets of --games games (seeds)")
    ap.add_argument("--can-move", action="store_true",
                    help="deadlock check through abak.movegen.can_move (see the docstring)")
    args = ap.parse_args()
    if args.can_move:
        from abak_rl.engine import deadlock
        from abak_rl.engine.abak.movegen import can_move
        full_check = deadlock._can_move_somehow
        deadlock._can_move_somehow = lambda variant, boards: (
            can_move(boards) if variant.kind == "abak" else full_check(variant, boards))
    rows = []
    seeds = range(args.seed, args.seed + args.seeds)
    for name in ("standard", "abak"):
        v = get_variant(name)
        secs = turns = 0
        for seed in seeds:   # lockstep games last as long as the longest: average a few sets
            def games():
                return play_games(v, [RandomAgent(1), RandomAgent(2)], args.games, seed=seed)
            secs += best_of(args.reps, games)
            turns += int(games().turns.sum())
        n = args.games * len(seeds)
        rows.append({"what": "random_games_per_s", "variant": name, "games": n,
                     "value": round(n / secs, 1), "turns_per_s": round(turns / secs),
                     "mean_turns": round(turns / n, 1)})
    rows.append({"what": "abak_over_standard_games_ratio",
                 "value": round(rows[1]["value"] / rows[0]["value"], 3)})
    v = get_variant("abak")
    boards, dice = sample_positions(args.positions, args.seed)
    n = len(v.legal_afterstates(boards, dice))
    for batch in (int(b) for b in args.batches.split(",")):
        chunks = [(boards[i:i + batch], dice[i:i + batch]) for i in range(0, len(boards), batch)]
        secs = best_of(args.reps, lambda: [v.legal_afterstates(b, d) for b, d in chunks])
        rows.append({"what": "abak_afterstates_per_s", "batch": batch, "positions": len(boards),
                     "afterstates": n, "value": round(n / secs),
                     "positions_per_s": round(len(boards) / secs)})
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
