#!/usr/bin/env python
"""A diagnostic, never a shipped net: can our net's shape and inputs hold GNU Backgammon's
0-ply evaluation? Fit a checkpoint to gnubg-nn's outputs and see how it plays.

    python scripts/capacity_probe.py CHECKPOINT OUT.pt [--positions 1400000] [--games 30000]
                                     [--epochs 2] [--lr 0.0005] [--batch 256] [--seed 303]
                                     [--data DIR]

The strength issue's nets learn from self-play alone; GNU Backgammon only measures them. This
script asks where that leaves the gap: it labels afterstates with gnubg-nn's 0-ply
probabilities (agents/gnubg_agent.afterstate_probs) and fits the net to them with the same
supervised step as scripts/distill_ply1.py. If the fitted net then plays level with gnubg 0-ply
(`abak-rl evaluate agent=checkpoint:OUT opponent=gnubg`), the net's shape and inputs can hold
gnubg's evaluation and what TD self-play lacks is the quality of its targets; if it stays well
behind, the inputs or the shape are the limit. OUT is marked `capacity_probe` in the checkpoint
and must not be shipped: it learned from another program.

Positions: the checkpoint plays itself (`--games` games, 0-ply); for every position it met, one
random roll and then every legal play of it (not only the chosen one: a net picks its play by
comparing the alternatives); afterstates whose value is exact (game over, bear-offs with the
database) are skipped; `--positions` of them are drawn at random. `--data DIR` fits to the
labels an earlier probe wrote there instead, so nets of other shapes meet the same positions
(start such a net with `abak-rl train model.hidden=... train.games=1`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402


def afterstates(agent, games: int, positions: int, seed: int):
    from distill_ply1 import plays_of

    from abak_rl.engine.game import play_games
    seen = []
    play_games(agent.scorer.variant, [agent, agent], games, seed,
               on_turn=lambda ids, seats, before, *rest: seen.append(before.copy()))
    rng = np.random.default_rng(seed)
    boards = plays_of(agent.scorer, np.concatenate(seen), rng)
    return boards[rng.permutation(len(boards))[:positions]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="capacity_probe.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--positions", type=int, default=1_400_000)
    ap.add_argument("--games", type=int, default=30_000)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.0005)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=303)
    ap.add_argument("--data", default=None,
                    help="labelled chunks of an earlier probe to fit to (default: label new ones in OUT.data/)")
    args = ap.parse_args(argv)
    from distill_ply1 import check_fit_args
    bad = check_fit_args("capacity_probe", args, ("positions", "games", "epochs", "batch"))
    if bad:
        print(bad, file=sys.stderr)
        return 2
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        print("capacity_probe: needs GNU Backgammon's net: pip install 'abak-rl[gnubg]' (gnubg-nn)", file=sys.stderr)
        return 2
    from distill_ply1 import CHUNK, fit

    from abak_rl.agents.gnubg_agent import afterstate_probs
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
    torch.set_num_threads(1)
    out = Path(args.out)
    try:
        data = load_checkpoint(args.checkpoint)
        agent = load_neural_agent(args.checkpoint, data["variant"])
        if data["variant"] != "standard":
            raise ValueError(f"gnubg evaluates standard backgammon only, not {data['variant']}")
        if not out.parent.is_dir():
            raise CheckpointError(f"cannot write {out}: {out.parent} is not a folder")
    except (CheckpointError, ValueError) as e:
        print(f"capacity_probe: {e}", file=sys.stderr)
        return 2
    data_dir = Path(args.data) if args.data else out.with_name(out.name + ".data")
    files = sorted(data_dir.glob("chunk*.npz")) if args.data else []
    if files:                      # another probe's labels: the same positions for every net compared
        print(f"capacity_probe: reusing the {len(files)} labelled chunks in {data_dir}")
    else:
        boards = afterstates(agent, args.games, args.positions, args.seed)
        print(f"capacity_probe: {len(boards):,} afterstates from {args.games:,} games; labelling with gnubg-nn 0-ply")
        data_dir.mkdir(parents=True, exist_ok=True)
        for k, lo in enumerate(range(0, len(boards), CHUNK)):
            b = boards[lo:lo + CHUNK]
            path = data_dir / f"chunk{k:04d}.npz"
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, boards=b, again=np.zeros(len(b), bool), target=afterstate_probs(b).astype(np.float32))
            tmp.replace(path)                                # a chunk is whole or absent
            files.append(path)
    report = fit(agent.scorer, files, args.epochs, args.lr, args.batch, args.seed,
                 log=lambda s: print(s.replace("distill_ply1", "capacity_probe")))
    new = {k: v for k, v in data.items() if k != "path"}
    new["net"] = agent.scorer.net.state_dict()
    new["capacity_probe"] = {"from": str(data["path"]), "teacher": "gnubg-nn 0-ply", "labels": str(data_dir),
                             "games": args.games, "epochs": args.epochs, "lr": args.lr, "batch": args.batch,
                             "seed": args.seed, **report}
    save_checkpoint(out, new)
    print(f"capacity_probe: wrote {out} (a diagnostic: it learned from GNU Backgammon, do not ship it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
