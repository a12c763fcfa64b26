#!/usr/bin/env python
"""Where a net's evaluations differ from GNU Backgammon 0-ply's: by position class.

    python scripts/probs_vs_gnubg.py [--agent export:checkpoints/pretrained/standard]
                                     [--games 400] [--positions 6000] [--seed 11] [--json F]
                                     [--positions-from AGENT]

Positions before a roll come from the agent's own self-play (`--games` games, every turn), or
from another agent's with `--positions-from` (the same positions for every net compared, e.g.
`--positions-from gnubg`), and `--positions` of them are drawn at random. For each, the
agent's five probabilities for the player on roll and gnubg-nn's 0-ply ones give two cubeless
equities; reported per class (contact, race, bear-off: both sides home, valued by the exact
database in both programs) are the count, the mean |difference| of equity and of the win
chance, the mean difference (ours - gnubg), and per output (win, win gammon, win backgammon,
lose gammon, lose backgammon) the mean difference and the mean |difference|. A diagnostic for
the strength issue: which class of positions, and which outputs, hold the gap.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NET = "export:checkpoints/pretrained/standard"
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def classes(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Masks of contact, race (not bear-off) and bear-off positions (the mover's view), by the
    rules the nets themselves route on (features.expert.is_race, engine.bearoff.is_bearoff)."""
    from abak_rl.engine.bearoff import is_bearoff
    from abak_rl.features.expert import is_race
    race, bo = is_race(rows), is_bearoff(rows)
    return {"contact": ~race, "race": race & ~bo, "bearoff": bo}


KIND_RULES = {
    "we_on_bar": "we have a checker on the bar",
    "they_on_bar": "they have a checker on the bar",
    "blitzed": "we are on the bar, they have made 4+ of their home points",
    "blitzing": "they are on the bar, we have made 4+ of our home points",
    "our_back_game": "we have made 2+ points in their home board",
    "their_back_game": "they have made 2+ points in our home board",
    "we_lead_race": "our pip count is more than 30 below theirs",
    "we_trail_race": "our pip count is more than 30 above theirs",
    "crashed": "a side has 6 or fewer checkers left outside its own 1- and 2-points",
}


def kinds(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Masks of KIND_RULES' position kinds, for positions seen by the player on roll (board
    layout: engine/board.py; columns 0..23 our points 1..24, 24/25 the bars, 26/27 off)."""
    from abak_rl.engine.board import BAR, OFF, OPP_BAR, OPP_OFF
    r = rows.astype(np.int64)
    ours, theirs = np.clip(r[:, :24], 0, None), np.clip(-r[:, :24], 0, None)
    point = np.arange(1, 25)
    our_pips = (ours * point).sum(1) + 25 * r[:, BAR]
    their_pips = (theirs * (25 - point)).sum(1) + 25 * r[:, OPP_BAR]
    our_home, their_home = (ours[:, :6] >= 2).sum(1), (theirs[:, 18:] >= 2).sum(1)
    our_anchors, their_anchors = (ours[:, 18:] >= 2).sum(1), (theirs[:, :6] >= 2).sum(1)
    our_loose = 15 - r[:, OFF] - ours[:, 0] - ours[:, 1]
    their_loose = 15 - r[:, OPP_OFF] - theirs[:, 23] - theirs[:, 22]
    return {"we_on_bar": r[:, BAR] > 0, "they_on_bar": r[:, OPP_BAR] > 0,
            "blitzed": (r[:, BAR] > 0) & (their_home >= 4), "blitzing": (r[:, OPP_BAR] > 0) & (our_home >= 4),
            "our_back_game": our_anchors >= 2, "their_back_game": their_anchors >= 2,
            "we_lead_race": their_pips - our_pips > 30, "we_trail_race": our_pips - their_pips > 30,
            "crashed": (our_loose <= 6) | (their_loose <= 6)}


def kind_table(rows: np.ndarray, d_eq: np.ndarray, d_win: np.ndarray) -> dict:
    """Per kind (contact rows only): count, mean |equity diff|, share of the total, mean win diff."""
    total = float(np.abs(d_eq).sum()) or 1.0
    out = {}
    for name, m in kinds(rows).items():
        n = int(m.sum())
        out[name] = {"rule": KIND_RULES[name], "positions": n,
                     "mean_abs_equity_diff": round(float(np.abs(d_eq[m]).mean()), 4) if n else None,
                     "share_of_abs_diff": round(float(np.abs(d_eq[m]).sum()) / total, 4),
                     "mean_win_diff": round(float(d_win[m].mean()), 4) if n else None}
    return out


def measure(spec: str, games: int, n_positions: int, seed: int, positions_from: str | None = None) -> dict:
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.game import play_games
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import probs_fn_for
    from abak_rl.model.outcomes import equity
    from compare_cube_gnubg import gnubg_probs
    variant = get_variant("standard")
    agent = make_agent(spec, variant, seed)
    fn = probs_fn_for(agent)
    if fn is None:
        raise ValueError(f"{spec} has no evaluator: use a checkpoint:, export: or onnx: agent")
    source = agent if positions_from is None else make_agent(positions_from, variant, seed)
    seen = []
    play_games(variant, [source, source], games, seed,
               on_turn=lambda ids, seats, before, chosen, plays, result: seen.append(before.copy()))
    rows = np.concatenate(seen)
    rng = np.random.default_rng(seed)
    rows = rows[rng.permutation(len(rows))[:n_positions]]
    ours, theirs = np.asarray(fn(variant, rows), dtype=np.float64), gnubg_probs(rows)
    d_eq, d_win = equity(ours) - equity(theirs), ours[:, 0] - theirs[:, 0]
    d_out = ours - theirs
    out = {"agent": spec, "positions_from": positions_from or spec, "games": games,
           "positions": int(len(rows)), "seed": seed, "classes": {}}
    for name, m in classes(rows).items():
        if not m.any():
            out["classes"][name] = {"positions": 0}
            continue
        out["classes"][name] = {
            "positions": int(m.sum()),
            "mean_abs_equity_diff": round(float(np.abs(d_eq[m]).mean()), 4),
            "mean_equity_diff": round(float(d_eq[m].mean()), 4),
            "mean_abs_win_diff": round(float(np.abs(d_win[m]).mean()), 4),
            "mean_output_diff": {k: round(float(v), 5) for k, v in zip(OUTPUTS, d_out[m].mean(0))},
            "mean_abs_output_diff": {k: round(float(v), 5) for k, v in zip(OUTPUTS, np.abs(d_out[m]).mean(0))}}
    c = classes(rows)["contact"]
    out["kinds"] = kind_table(rows[c], d_eq[c], d_win[c])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default=NET)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--positions", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", help="also write the result here")
    ap.add_argument("--positions-from", help="draw the positions from this agent's self-play "
                    "instead of the agent's own (the same positions for every net compared)")
    a = ap.parse_args(argv)
    if a.games < 1 or a.positions < 1:
        print("probs_vs_gnubg: --games and --positions must be >= 1", file=sys.stderr)
        return 2
    from report import emit
    return emit("probs_vs_gnubg", lambda: measure(a.agent, a.games, a.positions, a.seed, a.positions_from), a.json)


if __name__ == "__main__":
    sys.exit(main())
