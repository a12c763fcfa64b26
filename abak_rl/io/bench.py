"""Make a `moves --batch` input of realistic positions (random play) for benchmarks and tests.

    python -m abak_rl.io.bench --n 10000 --variant standard --seed 1 > positions.jsonl
    python -m abak_rl.io.bench --stages positions.jsonl     # CPU seconds per stage of a batch

Positions come from games of uniformly random plays, sampled at every turn, so they cover
openings, contact, races and bear-offs; dice are uniform (while generating Acey-deucey positions
a 1-2 is played as 3-4: its union over six doubles is costly and adds nothing to the sample).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from ..engine.variants import get_variant
from .position_json import dumps_rows


def random_positions(variant: str, n: int, seed: int = 0, max_turns: int = 120) -> np.ndarray:
    """n positions (seen from the mover) reached by random play from the start."""
    v = get_variant(variant)
    rng = np.random.default_rng(seed)
    games = max(1, n // 20)
    boards = v.initial_boards(games)
    seen = []
    for _ in range(max_turns):
        seen.append(boards)
        dice = rng.integers(1, 7, size=(boards.shape[0], 2))
        if variant == "acey_deucey":  # a 1-2 plays on with any double: too costly to sample
            is12 = np.sort(dice, axis=1) == [1, 2]
            dice[is12.all(axis=1)] = [3, 4]
        after = v.legal_afterstates(boards, dice)
        counts = after.counts(boards.shape[0])
        pick = after.starts(boards.shape[0]) + (rng.random(boards.shape[0]) * counts).astype(np.int64)
        new = after.boards[pick]
        boards = v.flip(new[v.winner_points(new) == 0])
        if boards.shape[0] == 0:
            break
    pool = np.concatenate(seen)
    return pool[rng.choice(pool.shape[0], size=n, replace=pool.shape[0] < n)]


def batch_lines(variant: str, n: int, seed: int = 0) -> list[str]:
    rows = random_positions(variant, n, seed)
    dice = np.random.default_rng(seed + 1).integers(1, 7, size=(n, 2))
    return [f'{{"position": {p}, "dice": [{a}, {b}]}}'
            for p, (a, b) in zip(dumps_rows(rows, variant), dice.tolist())]


def stages(path: str) -> dict[str, float]:
    """CPU seconds of each stage of answering a one-variant batch file, and the whole answer."""
    from .moves_cli import answer_batch
    from .position_json import rows_from_json
    text = open(path, encoding="utf-8").read()
    out, clock = {}, time.process_time
    t = clock()
    objs = [json.loads(line) for line in text.splitlines() if line.strip()]
    out["json.loads"] = clock() - t
    t = clock()
    variant, rows = rows_from_json([o["position"] for o in objs])
    out["parse+validate"] = clock() - t
    dice, v = np.array([o["dice"] for o in objs]), get_variant(variant)
    t = clock()
    v.legal_afterstates(rows, dice)
    out["engine"] = clock() - t
    t = clock()
    after = v.legal_afterstates(rows, dice, with_plays=True)
    out["engine with plays"] = clock() - t
    t = clock()
    dumps_rows(after.boards, variant)
    out["serialise afterstates"] = clock() - t
    t = clock()
    answer_batch(text)
    out["whole answer (no I/O)"] = clock() - t
    out["afterstates"] = len(after)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m abak_rl.io.bench", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--variant", default="standard")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stages", metavar="FILE", help="time the stages of answering FILE instead")
    a = p.parse_args(argv)
    if a.stages:
        for name, value in stages(a.stages).items():
            print(f"{name:>24}: {value:.2f}" if isinstance(value, float) else f"{name:>24}: {value}")
        return 0
    sys.stdout.write("\n".join(batch_lines(a.variant, a.n, a.seed)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
