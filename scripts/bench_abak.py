"""Abak move-generation speed: random-play games per second against the standard variant (same
run, same game loop) and afterstates per second at a few batch sizes. One JSON line per
measurement; the figure is the best of --reps runs (CPU time of this process), which is the
least disturbed by other work on a shared machine; the ratio is the median over --reps of
(standard seconds / Abak seconds), the two variants' game sets alternating within each
repetition. Afterstates per second: the same sample of positions met in random games (each
with its own roll), cut into batches of each size. Then the compiled generator
(abak/movegen_compiled.py) against the NumPy steps (its AVAILABLE switched off) at the
--compare batch sizes, the two alternating within each repetition: positions per second (best
of --reps) and the median ratio.

    python scripts/bench_abak.py [--games 256] [--seeds 3] [--reps 3] [--batches 1,64,1024]
                                 [--positions 2048] [--compare 256,1024]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.abak import movegen_compiled
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


def compiled_vs_numpy(v, boards, dice, batch: int, reps: int) -> dict:
    """Positions per second of the compiled generator and of the NumPy steps on the same
    batches, A then B in each repetition (CPU seconds; best of reps), and the median ratio."""
    chunks = [(boards[i:i + batch], dice[i:i + batch]) for i in range(0, len(boards), batch)]
    secs = np.zeros((reps, 2))
    try:
        for rep in range(reps):
            for i, compiled in enumerate((True, False)):
                movegen_compiled.AVAILABLE = compiled
                t = time.process_time()
                for b, d in chunks:
                    v.legal_afterstates(b, d)
                secs[rep, i] = time.process_time() - t
    finally:
        movegen_compiled.AVAILABLE = True
    ratio = secs[:, 1] / secs[:, 0]
    return {"what": "abak_compiled_vs_numpy", "batch": batch, "positions": len(boards),
            "compiled_positions_per_s": round(len(boards) / secs[:, 0].min()),
            "numpy_positions_per_s": round(len(boards) / secs[:, 1].min()),
            "ratio": round(float(np.median(ratio)), 2),
            "per_rep": [round(float(x), 2) for x in ratio]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batches", default="1,64,1024")
    ap.add_argument("--positions", type=int, default=2048, help="positions timed per batch size")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=3, help="game sets of --games games (seeds)")
    ap.add_argument("--compare", default="256,1024",
                    help="batch sizes for compiled against NumPy ('' skips)")
    args = ap.parse_args(argv)
    rows = []
    seeds = range(args.seed, args.seed + args.seeds)
    variants = [get_variant(name) for name in ("standard", "abak")]
    # standard and Abak alternate, set by set, so that a drift in the machine's speed (shared
    # cores) hits both: the ratio is taken per repetition and its median reported
    secs = np.zeros((args.reps, 2))
    turns = np.zeros(2, dtype=np.int64)
    for rep in range(args.reps):
        for seed in seeds:   # lockstep games last as long as the longest: average a few sets
            for i, v in enumerate(variants):
                t = time.process_time()
                r = play_games(v, [RandomAgent(1), RandomAgent(2)], args.games, seed=seed)
                secs[rep, i] += time.process_time() - t
                if rep == 0:
                    turns[i] += int(r.turns.sum())
    n = args.games * len(seeds)
    for i, v in enumerate(variants):
        best = secs[:, i].min()
        rows.append({"what": "random_games_per_s", "variant": v.name, "games": n,
                     "value": round(n / best, 1), "turns_per_s": round(int(turns[i]) / best),
                     "mean_turns": round(int(turns[i]) / n, 1)})
    ratio = secs[:, 0] / secs[:, 1]
    rows.append({"what": "abak_over_standard_games_ratio", "value": round(float(np.median(ratio)), 3),
                 "per_rep": [round(float(x), 3) for x in ratio]})
    v = get_variant("abak")
    boards, dice = sample_positions(args.positions, args.seed)
    n = len(v.legal_afterstates(boards, dice))
    for batch in (int(b) for b in args.batches.split(",")):
        chunks = [(boards[i:i + batch], dice[i:i + batch]) for i in range(0, len(boards), batch)]
        secs = best_of(args.reps, lambda: [v.legal_afterstates(b, d) for b, d in chunks])
        rows.append({"what": "abak_afterstates_per_s", "batch": batch, "positions": len(boards),
                     "afterstates": n, "value": round(n / secs),
                     "positions_per_s": round(len(boards) / secs)})
    if movegen_compiled.AVAILABLE:
        for batch in (int(b) for b in args.compare.split(",") if b):
            rows.append(compiled_vs_numpy(v, boards, dice, batch, args.reps))
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
