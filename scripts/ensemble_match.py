#!/usr/bin/env python
"""Play an ensemble of trained nets (their five outputs averaged) against an opponent.

    python scripts/ensemble_match.py CKPT1 CKPT2 [CKPT3 ...] --opponent gnubg \
        [--ply 0|1|2] [--games 10000] [--seed 20261201] [--json OUT.json]

A measurement, not a shipped agent: it answers whether independently trained nets, averaged at
play time (0-ply: every afterstate scored by each member, the probabilities averaged, the best
equity played; with --ply 1 or 2 the search of `ply=N` agents runs over the averaged
probabilities), are stronger than each alone. Members must describe the same variant; each
uses its own inputs (feature sets and phase nets may differ). The bear-off database, where the
first member uses it, overrides all members in bear-off positions, as it does for one net.
The opponent is any agent spec `abak-rl evaluate` accepts (gnubg, pubeval, checkpoint:PATH...).
scripts/combine_nets.py makes the same average (members of one feature set) into a checkpoint
that evaluate, export, hint and play use like one net.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


class EnsembleScorer:
    """The first member's Scorer, with net_probs averaged over all members' nets."""

    def __init__(self, scorers):
        self.members, self._first = scorers, scorers[0]

    def __getattr__(self, name):        # everything not overridden: the first member's
        return getattr(self._first, name)

    def net_probs(self, boards, again, keep=None):
        return np.mean([s.net_probs(boards, again) for s in self.members], axis=0, dtype=np.float64
                       ).astype(np.float32)

    def probs(self, boards, again, keep=None):
        # the first member's exact overrides (finished games, bear-off database), the mean elsewhere
        return type(self._first).probs(self, boards, again, None)


def ensemble_agent(paths, variant, ply: int = 0):
    from abak_rl.agents.neural import NeuralAgent, load_neural_agent
    agents = [load_neural_agent(p, variant) for p in paths]
    return NeuralAgent(EnsembleScorer([a.scorer for a in agents]), ply=ply, name=f"ensemble of {len(paths)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ensemble_match.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--opponent", required=True)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--ply", type=int, default=0, help="search depth of the ensemble: 0, 1 or 2")
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--json", default=None, help="also write the result here")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if len(args.checkpoints) < 2:
        print("ensemble_match: give at least two checkpoints", file=sys.stderr)
        return 2
    if args.games < 2 or args.games % 2:
        print(f"ensemble_match: --games must be an even number >= 2, not {args.games}", file=sys.stderr)
        return 2
    if args.ply not in (0, 1, 2):
        print(f"ensemble_match: --ply must be 0, 1 or 2, not {args.ply}", file=sys.stderr)
        return 2
    if args.json and not Path(args.json).parent.is_dir():
        print(f"ensemble_match: cannot write {args.json}: its folder does not exist", file=sys.stderr)
        return 2
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.match import run_match
    from abak_rl.train.checkpoint import CheckpointError
    try:
        variant = get_variant(args.variant)
        agent = ensemble_agent(args.checkpoints, variant, args.ply)
        opponent = make_agent(args.opponent, variant, seed=args.seed)
    except (CheckpointError, ValueError) as e:
        print(f"ensemble_match: {e}", file=sys.stderr)
        return 2
    result = run_match(agent, opponent, variant, games=args.games, seed=args.seed,
                       progress=False if args.no_progress else None)
    result = {"members": list(args.checkpoints), **{k: v for k, v in result.items() if k != "results"}}
    result["ply"] = args.ply
    print(f"{agent.name} vs {args.opponent} ({args.games} games, seed {args.seed}): "
          f"{result['ppg']:+.3f} ± {result['ppg_ci95']:.3f} ppg, wins {100 * result['win_rate']:.1f}%")
    if args.json:
        tmp = Path(args.json + ".tmp")
        tmp.write_text(json.dumps(result, indent=2) + "\n")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
