#!/usr/bin/env python
"""What a root margin on the 2-ply labels' plays saves and misses (distill_ply1.py --top-margin).

    python scripts/top_margin_check.py CHECKPOINT [--screen SMALL.pt] [--positions 1200]
                                       [--top 5] [--margins 0.02,0.05,0.1,0.2] [--seed 5] [--json F]

Positions from CHECKPOINT's own 0-ply games (as the labeller meets them), one random roll each;
each roll's `--top` best plays by the net's 0-ply equity get their 2-ply values, searched as the
2-ply round searches (bfloat16, replies picked at 0-ply, with `--screen` the screen's best 6
within 0.2). For each margin M it prints, over the rolls with more than one play: the labels a
roll keeps when only plays within M of its 0-ply best are labelled (against `--top`'s), how
often the play with the best 2-ply value is left out, and the 2-ply equity that costs a roll.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def margin_table(parent: np.ndarray, eq0: np.ndarray, eq2: np.ndarray, margins: list[float]) -> list[dict]:
    """Per margin: labels per roll kept, share of rolls whose 2-ply best is dropped, equity lost."""
    rolls = [np.flatnonzero(parent == p) for p in np.unique(parent)]
    rolls = [i for i in rolls if len(i) > 1]
    out = []
    for m in margins:
        kept = missed = 0
        lost = 0.0
        for i in rolls:
            inside = eq0[i] >= eq0[i].max() - m
            kept += int(inside.sum())
            if not inside[np.argmax(eq2[i])]:
                missed += 1
                lost += float(eq2[i].max() - eq2[i][inside].max())
        out.append({"margin": m, "labels_per_roll": kept / len(rolls),
                    "top_labels_per_roll": sum(len(i) for i in rolls) / len(rolls),
                    "best_dropped": missed / len(rolls), "equity_lost_per_roll": lost / len(rolls),
                    "rolls": len(rolls)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="top_margin_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--screen", default=None)
    ap.add_argument("--positions", type=int, default=1200)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--margins", default="0.02,0.05,0.08,0.1,0.15,0.2")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    try:
        margins = [float(x) for x in args.margins.split(",")]
        if any(not m >= 0 for m in margins) or args.positions < 1 or args.top < 2:
            raise ValueError
    except ValueError:
        print("top_margin_check: --margins must be numbers >= 0, --positions >= 1, --top >= 2", file=sys.stderr)
        return 2
    import torch

    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.agents.search import MoveFilter, parse_filter_options
    from abak_rl.model.outcomes import equity
    from abak_rl.train.checkpoint import CheckpointError, load_checkpoint
    from abak_rl.train.selfplay import SelfPlay
    from distill_ply1 import played_rows
    torch.set_num_threads(1)
    try:
        variant = load_checkpoint(args.checkpoint)["variant"]
        screen = {} if args.screen is None else {"screen": args.screen, "screen_k": 6, "screen_margin": 0.2}
        agent = load_neural_agent(args.checkpoint, variant, precision="bf16", **screen,
                                  **parse_filter_options({"reply_k": "1"}))
    except (CheckpointError, ValueError) as e:
        print(f"top_margin_check: {e}", file=sys.stderr)
        return 2
    sc, v = agent.scorer, agent.scorer.variant
    rng = np.random.default_rng(args.seed)
    play, met, n = SelfPlay(v, 512, seed=args.seed), [], 0
    while n < 3 * args.positions:
        rows, _ = played_rows(play.step(sc, 0.0))
        met.append(rows)
        n += len(rows)
    rows = np.concatenate(met)[rng.permutation(n)[:args.positions]]
    before = v.flip(rows)[v.winner_points(rows) == 0]
    dice = rng.integers(1, 7, size=(len(before), 2)).astype(np.int8)
    after = v.legal_afterstates(before, dice)
    live = ~sc.exact_mask(after.boards)
    b, parent = after.boards[live], after.parent[live]
    eq0 = equity(sc.probs(b, np.zeros(len(b), dtype=bool)))
    top = MoveFilter(args.top, None).keep(eq0, parent, len(before))
    b, parent, eq0 = b[top], parent[top], eq0[top]
    t = time.process_time()
    eq2 = equity(agent.values(b, np.zeros(len(b), dtype=bool), 2))
    seconds = time.process_time() - t
    table = margin_table(parent, eq0, eq2, margins)
    print(f"{len(b):,} 2-ply labels of {len(np.unique(parent)):,} rolls in {seconds:.0f} CPU s; "
          f"{table[0]['rolls']:,} rolls with a choice")
    print("margin  labels a roll (top)  2-ply best dropped  equity lost a roll")
    for r in table:
        print(f"{r['margin']:6g}  {r['labels_per_roll']:5.2f} ({r['top_labels_per_roll']:.2f})"
              f"  {r['best_dropped']:17.3%}  {r['equity_lost_per_roll']:.5f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"checkpoint": args.checkpoint, "screen": args.screen,
                                               "positions": args.positions, "top": args.top, "seed": args.seed,
                                               "labels": int(len(b)), "cpu_seconds": seconds,
                                               "margins": table}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
