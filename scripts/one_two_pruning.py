"""What pruning Acey-deucey's 1-2 choice costs: the pruned choice (train.one_two_top_k = K)
against the full-union choice, on 1-2 positions from real self-play of a net.

    .venv/bin/python scripts/one_two_pruning.py [--model checkpoints/pretrained/acey_deucey]
        [--positions 1000] [--k 1 2 3 4 6 8] [--seed 0] [--out FILE.json]

The net (a checkpoint .pt, a run folder, or an `abak-rl export` folder) plays itself 0-ply with
the full union (the exact rule), and every position where the mover rolled 1-2 is kept. On each,
the net chooses twice, through the code self-play uses (model.scorer.candidate_afterstates and
best_afterstates): among every legal afterstate, and among those under the K best 1-2 plays.
Per K: how often the two choices are the same afterstate, how often they have the same equity,
the equity the pruned choice gives up (mean, 95th percentile, max; in the net's own cubeless
points per game, scored as the full choice scores it) and the afterstates scored per position
(the K best 1-2 plays' doubles, plus the 1-2 plays themselves). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from abak_rl.engine.movegen import legal_afterstates
from abak_rl.engine.variants import get_variant
from abak_rl.features import feature_set_for, get_feature_set
from abak_rl.model.net import equity
from abak_rl.model.scorer import Scorer, best_afterstates, candidate_afterstates
from abak_rl.train.selfplay import SelfPlay

CHUNK = 32  # 1-2 positions per full-union call (~10^4 afterstates each)


def load_scorer(path: str, variant) -> Scorer:
    """A CPU Scorer for a checkpoint (.pt or run folder) or an export folder (its safetensors)."""
    p = Path(path)
    if (p / "model_card.json").is_file():
        from abak_rl.export.exporters import load_export_net
        card, net = load_export_net(p)
        fs = get_feature_set(card["feature_set"]["name"])
    else:
        from abak_rl.train.checkpoint import build_net_from, load_checkpoint
        data = load_checkpoint(p)
        fs = feature_set_for(variant.name, data["features"]["name"])
        net = build_net_from(data, fs)
    return Scorer(net.eval(), fs, variant, torch.device("cpu"))


def one_two_positions(scorer: Scorer, n: int, seed: int, batch_games: int = 256) -> np.ndarray:
    """n positions (mover's view) where the mover rolled 1-2, from the net's exact self-play."""
    play = SelfPlay(scorer.variant, batch_games, seed)
    found: list[np.ndarray] = []
    while sum(len(f) for f in found) < n:
        found.append(play.boards[scorer.variant.extra_turn(play.dice)].copy())
        play.step(scorer)
    return np.concatenate(found)[:n]


def choices(scorer: Scorer, boards: np.ndarray, k: int):
    """(chosen boards [n, W], afterstates scored per position [n]) of the 0-ply choice with
    one_two_top_k = k (0: the full union), for 1-2 positions."""
    dice = np.tile(np.array([[1, 2]], np.int8), (boards.shape[0], 1))
    after = candidate_afterstates(scorer.variant, scorer, boards, dice, k)
    chosen, _ = best_afterstates(scorer, after, dice, boards.shape[0])
    scored = after.counts(boards.shape[0])
    if k:       # the 1-2 plays scored to pick the K best
        scored = scored + one_two_plays(boards)
    return after.boards[chosen], scored


def one_two_plays(boards: np.ndarray) -> np.ndarray:
    """Distinct 1-2 plays per position (the 1-2 alone: the generator without the 1-2 rule)."""
    n = boards.shape[0]
    return legal_afterstates(boards, np.tile(np.array([[1, 2]]), (n, 1))).counts(n)


def measure(scorer: Scorer, boards: np.ndarray, ks: list[int]) -> dict:
    n = boards.shape[0]
    union = np.zeros(n, np.int64)
    full = np.zeros((n, boards.shape[1]), np.int8)
    for s in range(0, n, CHUNK):
        full[s:s + CHUNK], union[s:s + CHUNK] = choices(scorer, boards[s:s + CHUNK], 0)
    again = np.ones(n, dtype=bool)
    full_eq = equity(scorer.probs(full, again))
    plays = one_two_plays(boards)
    out = {"positions": n, "one_two_plays_per_position": round(float(plays.mean()), 1),
           "union_per_position": {"mean": round(float(union.mean())), "median": int(np.median(union)),
                                  "max": int(union.max())},
           "k": {}}
    for k in ks:
        t = time.process_time()
        got, scored = choices(scorer, boards, k)
        cpu = time.process_time() - t
        loss = np.maximum(full_eq - equity(scorer.probs(got, again)), 0.0)
        out["k"][str(k)] = {
            "same_afterstate": round(float((got == full).all(axis=1).mean()), 4),
            "same_equity": round(float((loss <= 1e-6).mean()), 4),
            "mean_loss": round(float(loss.mean()), 5),
            "p95_loss": round(float(np.quantile(loss, 0.95)), 4),
            "max_loss": round(float(loss.max()), 4),
            "scored_per_position": round(float(scored.mean())),
            "cpu_ms_per_position": round(1000 * cpu / n, 2)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="checkpoints/pretrained/acey_deucey")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--k", type=int, nargs="+", default=[1, 2, 3, 4, 6, 8])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="also write the JSON to this file")
    args = ap.parse_args(argv)
    if args.positions < 1 or any(k < 1 for k in args.k):
        ap.error("--positions and every --k must be >= 1")
    torch.set_num_threads(1)
    variant = get_variant("acey_deucey")
    scorer = load_scorer(args.model, variant)
    boards = one_two_positions(scorer, args.positions, args.seed)
    report = {"bench": "one_two_pruning", "model": args.model, "seed": args.seed,
              **measure(scorer, boards, args.k)}
    text = json.dumps(report)
    print(text)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
