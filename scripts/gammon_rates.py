#!/usr/bin/env python
"""Does a net know how often its games end in gammons? Predicted against played.

    python scripts/gammon_rates.py [--agent export:checkpoints/pretrained/standard --agent gnubg ...]
                                   [--games 2000] [--seed 7] [--json F]

For each agent: its own cubeless self-play (standard backgammon, `--games` games, each dice
sequence from both seats) gives the share of games ending in a gammon or more and in a
backgammon, with a 95% interval; the agent's probabilities of the start position before the
first roll give what it predicts (gammon = p_wg + p_lg, both sides, and likewise backgammons).
A well-calibrated net predicts its own play's rates; cube decisions lean on these numbers
(docs/BENCHMARKS.md, the match cube). "gnubg" is GNU Backgammon 0-ply (gnubg-nn).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NET = "export:checkpoints/pretrained/standard"


def start_probs(spec: str, agent, variant) -> np.ndarray:
    """The five probabilities of the player on roll at the start, before any roll."""
    start = variant.initial_boards(1)
    if spec == "gnubg":
        import gnubg_nn

        from abak_rl.agents.gnubg_agent import to_gnubg
        return np.asarray(gnubg_nn.probabilities(to_gnubg(start[0]), 0), dtype=np.float64)
    from abak_rl.evaluate.cube_match import probs_fn_for
    fn = probs_fn_for(agent)
    if fn is None:
        raise ValueError(f"{spec} has no evaluator: use a checkpoint:, export: or onnx: agent, or gnubg")
    return np.asarray(fn(variant, start)[0], dtype=np.float64)


def share(hits: np.ndarray) -> dict:
    p = float(hits.mean())
    return {"rate": round(p, 4), "ci95": round(1.96 * float(np.sqrt(p * (1 - p) / hits.size)), 4)}


def measure(spec: str, games: int, seed: int) -> dict:
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.match import run_match
    variant = get_variant("standard")
    agent = make_agent(spec, variant, seed)
    p = start_probs(spec, agent, variant)
    r = run_match(spec, spec, variant, games, seed=seed, keep_results=True, progress=False)
    pts = np.abs(np.concatenate([np.asarray(x).ravel() for x in r["results"]]))
    return {"agent": spec, "games": int(pts.size), "seed": seed,
            "predicted_at_start": {"gammons": round(float(p[1] + p[3]), 4),
                                   "backgammons": round(float(p[2] + p[4]), 4)},
            "played": {"gammons": share(pts >= 2), "backgammons": share(pts >= 3)}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", action="append", help=f"an agent spec (repeatable; default {NET} and gnubg)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", help="also write the results here")
    a = ap.parse_args(argv)
    if a.games < 2 or a.games % 2:
        print(f"gammon_rates: --games {a.games}: expected an even number >= 2", file=sys.stderr)
        return 2
    out = []
    try:
        for spec in a.agent or [NET, "gnubg"]:
            out.append(measure(spec, a.games, a.seed))
            print(json.dumps(out[-1]), flush=True)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"gammon_rates: {exc}", file=sys.stderr)
        return 2
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
