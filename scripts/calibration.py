#!/usr/bin/env python
"""Is a net calibrated against its own play? Its five probabilities next to what happened.

    python scripts/calibration.py [--agent export:checkpoints/pretrained/standard]
                                  [--variant standard] [--games 10000] [--seed 7] [--json F]

The agent plays itself (0-ply, `--games` games in lockstep, the dice from `--seed`); every
afterstate it plays that the net scored (not a finished game, and in the classic variants not
a bear-off that the exact database values) is set against the outcome of its game for the
player who made it: won, won a gammon (or backgammon), won a backgammon, lost a gammon, lost a
backgammon. A net whose values are right for its own play predicts on average what then
happens, in every slice of its predictions. Reported per class (all; for standard and
Nackgammon also contact and race, by the nets' own class rule):

- `predicted` and `realised`: the mean of each output and the share of those outcomes;
- `win_bins`: the same for the win chance in ten slices of the prediction (0-0.1, ... 0.9-1);
- `logit_fit`: per output, the recalibration p' = sigmoid(a * logit(p) + b) that fits the
  outcomes best (log loss; fitted on the games whose id is not a multiple of 5), and the log
  loss of the other fifth before and after it. a > 1 means the net is too timid (its
  probabilities lean towards 1/2), a < 1 too sure; a log loss that barely falls means there is
  nothing to gain from recalibrating.

An agent without an evaluator (pubeval, gnubg) is refused: one line, exit status 2. Outcomes
within one game are correlated, so a slice's realised share is less certain than its count
suggests; thousands of games are needed for differences of a point or two of probability.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NET = "export:checkpoints/pretrained/standard"
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
HELD_OUT = 5        # games whose id is a multiple of this are the held-out fifth


def outcomes(winner: np.ndarray, points: np.ndarray, game: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """[N, 5] 0/1 outcomes, per afterstate, for the player who made it (seat) in game `game`."""
    won = winner[game] == seat
    p = points[game]
    return np.stack([won, won & (p >= 2), won & (p >= 3), ~won & (p >= 2), ~won & (p >= 3)], 1).astype(np.float64)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_logit(z: np.ndarray, y: np.ndarray, steps: int = 50) -> tuple[float, float]:
    """(a, b) minimising the log loss of sigmoid(a z + b) against 0/1 outcomes y (Newton's
    method on two parameters; a tiny ridge keeps it defined when y is all one value)."""
    a, b = 1.0, 0.0
    for _ in range(steps):
        s = 1 / (1 + np.exp(-(a * z + b)))
        r, w = s - y, s * (1 - s) + 1e-12
        g = np.array([np.mean(r * z), np.mean(r)])
        h = np.array([[np.mean(w * z * z), np.mean(w * z)], [np.mean(w * z), np.mean(w)]]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(h, g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    return float(a), float(b)


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p) - np.log1p(-p)


def class_report(probs: np.ndarray, real: np.ndarray, held_out: np.ndarray) -> dict:
    """predicted / realised / win_bins / logit_fit of one class's rows."""
    out = {"afterstates": int(len(probs)),
           "predicted": {k: round(float(v), 4) for k, v in zip(OUTPUTS, probs.mean(0))},
           "realised": {k: round(float(v), 4) for k, v in zip(OUTPUTS, real.mean(0))}}
    bins = []
    for lo in np.arange(10) / 10:
        m = (probs[:, 0] >= lo) & ((probs[:, 0] < lo + 0.1) if lo < 0.9 else (probs[:, 0] <= 1))
        if m.any():
            bins.append({"from": round(float(lo), 1), "afterstates": int(m.sum()),
                         "predicted": round(float(probs[m, 0].mean()), 4),
                         "realised": round(float(real[m, 0].mean()), 4)})
    out["win_bins"] = bins
    fits = {}
    train = ~held_out
    for k, name in enumerate(OUTPUTS):
        y = real[:, k]
        if y[train].sum() < 30 or (1 - y[train]).sum() < 30 or not held_out.any():
            fits[name] = None            # too few of this outcome to fit (e.g. race backgammons)
            continue
        z = logit(probs[:, k])
        a, b = fit_logit(z[train], y[train])
        before = log_loss(probs[held_out, k], y[held_out])
        after = log_loss(1 / (1 + np.exp(-(a * z[held_out] + b))), y[held_out])
        fits[name] = {"a": round(a, 4), "b": round(b, 4), "held_out_log_loss": round(before, 5),
                      "after_recalibration": round(after, 5)}
    out["logit_fit"] = fits
    return out


def measure(spec: str, variant_name: str, games: int, seed: int) -> dict:
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.game import play_games
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import afterstate_fn_for
    variant = get_variant(variant_name)
    if variant.name == "acey_deucey":
        # its 1-2 rolls again, which the net reads from a flag; the turn callback has no dice
        raise ValueError("acey_deucey is not supported (a 1-2's extra roll is not recorded per turn)")
    agent = make_agent(spec, variant, seed)
    fn = afterstate_fn_for(agent)
    if fn is None:
        raise ValueError(f"{spec} has no evaluator: use a checkpoint:, export: or onnx: agent")
    boards, game, seat = [], [], []

    def keep(ids, seats, before, chosen, plays, result):
        boards.append(chosen.copy())
        game.append(ids.copy())
        seat.append(seats.copy())
    res = play_games(variant, [agent, agent], games, seed, on_turn=keep)
    boards, game, seat = np.concatenate(boards), np.concatenate(game), np.concatenate(seat)
    again = np.zeros(len(boards), dtype=bool)
    live = variant.winner_points(boards) == 0
    classic = variant.name in ("standard", "nackgammon")
    if classic:
        from abak_rl.engine.bearoff import is_bearoff
        live &= ~is_bearoff(boards)
    boards, game, seat, again = boards[live], game[live], seat[live], again[live]
    probs = np.concatenate([np.asarray(fn(boards[i:i + 8192], again[i:i + 8192]), dtype=np.float64)
                            for i in range(0, len(boards), 8192)]) if len(boards) else np.zeros((0, 5))
    real = outcomes(np.asarray(res.winner), np.asarray(res.points), game, seat)
    held = game % HELD_OUT == 0
    out = {"agent": spec, "variant": variant.name, "games": games, "seed": seed,
           "classes": {"all": class_report(probs, real, held)}}
    if classic:
        from abak_rl.features.expert import is_race
        race = is_race(boards)
        for name, m in (("contact", ~race), ("race", race)):
            out["classes"][name] = class_report(probs[m], real[m], held[m]) if m.any() else {"afterstates": 0}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default=NET)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", help="also write the result here")
    a = ap.parse_args(argv)
    if a.games < 1:
        print("calibration: --games must be >= 1", file=sys.stderr)
        return 2
    from report import emit
    return emit("calibration", lambda: measure(a.agent, a.variant, a.games, a.seed), a.json)


if __name__ == "__main__":
    sys.exit(main())
