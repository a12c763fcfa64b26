#!/usr/bin/env python
"""Matches between two cube set-ups of the same net: what the match cube is worth.

    python scripts/match_cube_ab.py --matches 1000 --length 7

Side A ("gnubg model"): the Kazaross-XG2 match equity table, GNU Backgammon's match cube model
with the cube efficiency by position class, checker plays by match-winning chance at the score
(engine/cube.py). Side B ("old"): the same net and cube formulas fed our recursion table (26%
gammons), a fixed efficiency 0.68 and plays by money equity, as the project did before. Every
dice sequence is played from both seats (common random numbers); prints A's match-winning rate
with a paired 95% interval, doubles and drops per game, and the seconds taken.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.agents.cube_policies import JanowskiCube  # noqa: E402
from abak_rl.engine.common import segment_argmax  # noqa: E402
from abak_rl.engine.cube import get_met  # noqa: E402
from abak_rl.engine.matchplay import play_cubeful  # noqa: E402
from abak_rl.evaluate.stats import paired_ppg  # noqa: E402
from abak_rl.inference import load_exported  # noqa: E402
from abak_rl.model.outcomes import equity  # noqa: E402


class ModelAgent:
    """0-ply checker play of an exported net: by equity, or by the utility matchplay hands it."""

    def __init__(self, model, name, match_aware: bool):
        self.model, self.name, self.match_aware = model, name, match_aware

    def choose(self, variant, before, dice, after, utility=None):
        p = np.asarray(self.model.afterstate_probs(after, dice, 0), dtype=np.float64)
        score = utility(p, after.parent) if (utility is not None and self.match_aware) else equity(p)
        return segment_argmax(score, after.parent, np.asarray(before).shape[0])


class TableCube(JanowskiCube):
    """JanowskiCube deciding with its own match equity table (the game's context swapped)."""

    def __init__(self, probs_fn, x, met):
        super().__init__(probs_fn, x)
        self.met = met

    def decide(self, variant, boards, ctx):
        return super().decide(variant, boards, replace(ctx, met=self.met) if ctx.is_match else ctx)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(Path(__file__).resolve().parents[1] / "checkpoints/pretrained/standard"))
    ap.add_argument("--matches", type=int, default=1000, help="matches (even: each dice sequence twice)")
    ap.add_argument("--length", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=500)
    a = ap.parse_args(argv)
    if a.matches < 2 or a.matches % 2 or a.length < 1:
        print("match_cube_ab: --matches must be even and >= 2, --length >= 1", file=sys.stderr)
        return 2
    model = load_exported(a.model)
    v = model.variant
    probs = lambda variant, boards: model.pre_roll_probs(boards)
    new = (ModelAgent(model, "A", True), TableCube(probs, "auto", get_met("kazaross-xg2", a.length)))
    old = (ModelAgent(model, "B", False), TableCube(probs, 0.68, get_met("recursion", a.length)))
    pairs = a.matches // 2
    first, second = np.empty(pairs), np.empty(pairs)
    doubles = drops = games = 0
    start = time.perf_counter()
    for lo in range(0, pairs, a.batch):
        ids = np.arange(lo, min(lo + a.batch, pairs), dtype=np.int64)
        r1 = play_cubeful(v, [new[0], old[0]], [new[1], old[1]], ids.size, a.seed,
                          match_length=a.length, game_ids=ids)
        r2 = play_cubeful(v, [old[0], new[0]], [old[1], new[1]], ids.size, a.seed,
                          match_length=a.length, game_ids=ids)
        first[ids], second[ids] = r1.seat0_points > 0, r2.seat0_points < 0
        doubles += int(r1.doubles.sum() + r2.doubles.sum())
        drops += int(r1.drops.sum() + r2.drops.sum())
        games += int(r1.games.sum() + r2.games.sum())
    secs = time.perf_counter() - start
    rate, half = paired_ppg(first, second)
    print(f"{a.matches} matches to {a.length} ({a.model}): gnubg-model cube wins "
          f"{100 * rate:.1f}% ± {100 * half:.1f} against the old set-up; "
          f"{doubles / games:.2f} doubles and {drops / games:.2f} drops per game, {secs:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
