"""Our cube decisions against GNU Backgammon's (cfevaluate, 2-ply by default), money play.

    python scripts/compare_cube_gnubg.py [--agent SPEC] [--positions 1000] [--games 200]
                                         [--plies 2] [--x auto] [--seed 0] [--window LO,HI]
                                         [--json F]

Positions come from our own cubeful money games: the agent against itself with its Janowski cube
(evaluate/cube_records.py records every game, cube actions included); every position before a
roll where the player to move had the cube available is a candidate (its cube value and owner as
they were before any double there; a position where the player doubled counts once, passes
included), and `--positions` of them are drawn evenly. For each we decide with the agent's cube
policy as evaluate plays it (agents/cube_policies.JanowskiCube, cube efficiency --x) and ask
gnubg for its cubeful equities (no double, double-take, double-pass) at --plies:

- double decisions: does the player double? gnubg's verdict is "double" when min(take, pass)
  beats no double. Equity lost when we differ: |no double - min(take, pass)|.
- take decisions (every position, as if doubled): does the opponent take? gnubg takes when
  double-take <= double-pass for the doubler. Equity lost: |take - pass|.

--window LO,HI keeps only candidates whose cubeless win chance for the player on roll, by GNU
Backgammon 0-ply (gnubg-nn), lies in [LO, HI] (e.g. 0.55,0.95: where cube decisions are live)
before drawing. Besides the take decisions on every position, `take_on_gnubg_doubles` counts
them only where gnubg 2-ply doubles (the taker's real decisions).

Reported: agreement rates, mean equity lost per decision (units of the current cube, gnubg's
2-ply money equity) and the split of the disagreements; and the same over the close decisions
only (where gnubg's two answers differ by less than 0.16, the cut gnubg's analysis uses for a
"close" cube decision): most positions of a game are no-double/take for anyone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

NET = "export:checkpoints/pretrained/standard"
CLOSE = 0.16


def positions_from_games(agent, variant, games: int, seed: int, x):
    """(boards, cube value, owner seen from the mover) before rolls with the cube available."""
    from abak_rl.agents.cube_policies import JanowskiCube
    from abak_rl.evaluate.cube_match import probs_fn_for
    from abak_rl.evaluate.cube_records import play_recorded
    if probs_fn_for(agent) is None:
        raise ValueError(f"{agent.name} has no evaluator for Janowski cube decisions; use a "
                         f"checkpoint:, export: or onnx: agent")
    pol = JanowskiCube(probs_fn_for(agent), x)
    _, per_slot = play_recorded(variant, [agent, agent], [pol, pol], np.arange(games), seed,
                                ("a", "b"))
    return candidates(per_slot, variant)


def candidates(per_slot, variant):
    """The cube decisions of recorded games: (boards, cube value, owner seen from the mover)."""
    from abak_rl.io.position_json import rows_from_json
    boards, values, owners = [], [], []
    for slot in per_slot:
        for rec in slot:
            value, owner = 1, -1          # owner: -1 centred, else the seat
            first, doubled = True, None
            for t in rec["turns"]:
                cube = t.get("cube")
                if cube == "double":      # the decision, with the cube as it was before it
                    boards.append(t["position"])
                    values.append(value)
                    owners.append(0 if owner == -1 else 1)
                    doubled = t["mover"]
                elif cube == "take":
                    value, owner = 2 * value, t["mover"]
                elif cube is None:
                    if not first and doubled != t["mover"] and owner in (-1, t["mover"]):
                        boards.append(t["position"])
                        values.append(value)
                        owners.append(0 if owner == -1 else 1)
                    first, doubled = False, None
    _, rows = rows_from_json(boards, variant.name)
    return rows, np.array(values), np.array(owners)


def gnubg_win_chance(rows) -> np.ndarray:
    """GNU Backgammon 0-ply's cubeless win chance for the player on roll of each position."""
    import gnubg_nn

    from abak_rl.agents.gnubg_agent import to_gnubg
    return np.array([gnubg_nn.probabilities(to_gnubg(r), 0)[0] for r in rows])


def compare(agent_spec: str, n_positions: int, games: int, plies: int, x, seed: int,
            window: tuple[float, float] | None = None) -> dict:
    from abak_rl.agents.cube_policies import JanowskiCube
    from abak_rl.agents.gnubg_program import GnubgCube, GnubgProgram
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.cube import CubeContext
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import probs_fn_for
    variant = get_variant("standard")
    agent = make_agent(agent_spec, variant, seed)
    t0 = time.perf_counter()
    rows, values, owners = positions_from_games(agent, variant, games, seed, x)
    if window is not None:
        win = gnubg_win_chance(rows)
        keep = (win >= window[0]) & (win <= window[1])
        rows, values, owners = rows[keep], values[keep], owners[keep]
    if len(rows) < n_positions:
        raise ValueError(f"only {len(rows)} candidate positions in {games} games; raise --games")
    pick = np.linspace(0, len(rows) - 1, n_positions).round().astype(int)
    rows, values, owners = rows[pick], values[pick], owners[pick]
    ctx = CubeContext(value=values, owner=owners)
    ours = JanowskiCube(probs_fn_for(agent), x)
    offer = ours.offer(variant, rows, ctx)
    take = ours.accept(variant, rows, ctx)
    t1 = time.perf_counter()
    with GnubgProgram() as prog:
        eq = GnubgCube(plies, prog).evaluate(rows, ctx)       # optimal, nd, dt, dp
    t2 = time.perf_counter()
    nd, dt, dp = eq[:, 1], eq[:, 2], eq[:, 3]
    g_offer = np.minimum(dt, dp) > nd
    g_take = dt <= dp
    d_loss = np.where(offer != g_offer, np.abs(nd - np.minimum(dt, dp)), 0.0)
    t_loss = np.where(take != g_take, np.abs(dt - dp), 0.0)
    n = len(rows)
    # gnubg's own closeness cut: the other action would cost less than 0.16
    close_d = np.abs(nd - np.minimum(dt, dp)) < CLOSE
    close_t = np.abs(dt - dp) < CLOSE
    close = {"double_decisions": int(close_d.sum()), "take_decisions": int(close_t.sum()),
             "double_agreement": float((offer == g_offer)[close_d].mean()) if close_d.any() else None,
             "take_agreement": float((take == g_take)[close_t].mean()) if close_t.any() else None,
             "mean_equity_lost": float((d_loss[close_d].sum() + t_loss[close_t].sum())
                                       / max(1, close_d.sum() + close_t.sum()))}
    return {
        "agent": agent_spec, "cube_efficiency": x, "gnubg_plies": plies, "positions": int(n),
        "window": list(window) if window else None,
        "games": games, "seed": seed,
        "double": {"agreement": float((offer == g_offer).mean()),
                   "mean_equity_lost": float(d_loss.mean()),
                   "gnubg_doubles": int(g_offer.sum()), "we_double": int(offer.sum()),
                   "we_double_gnubg_not": int((offer & ~g_offer).sum()),
                   "gnubg_doubles_we_not": int((~offer & g_offer).sum())},
        "take": {"agreement": float((take == g_take).mean()),
                 "mean_equity_lost": float(t_loss.mean()),
                 "we_take_gnubg_passes": int((take & ~g_take).sum()),
                 "we_pass_gnubg_takes": int((~take & g_take).sum())},
        "take_on_gnubg_doubles": {
            "decisions": int(g_offer.sum()),
            "agreement": float((take == g_take)[g_offer].mean()) if g_offer.any() else None,
            "mean_equity_lost": float(t_loss[g_offer].mean()) if g_offer.any() else None},
        "all": {"decisions": 2 * n,
                "agreement": float(((offer == g_offer).sum() + (take == g_take).sum()) / (2 * n)),
                "mean_equity_lost": float((d_loss.sum() + t_loss.sum()) / (2 * n))},
        "close": close,
        "seconds": {"games_and_ours": t1 - t0, "gnubg": t2 - t1},
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default=NET)
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--games", type=int, default=200, help="self-play money games to draw from")
    p.add_argument("--plies", type=int, default=2, choices=(0, 1, 2))
    p.add_argument("--x", default="auto", help="our cube efficiency: auto (per position class) or a number")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", default=None, help="LO,HI: keep positions with gnubg 0-ply's cubeless "
                                                  "win chance in [LO, HI] (e.g. 0.55,0.95)")
    p.add_argument("--json", help="also write the result here")
    a = p.parse_args(argv)
    x = a.x if a.x == "auto" else float(a.x)
    window = None
    if a.window:
        try:
            lo, hi = (float(v) for v in a.window.split(","))
        except ValueError:
            print(f"compare_cube_gnubg: --window {a.window!r}: expected LO,HI (two numbers)", file=sys.stderr)
            return 2
        window = (lo, hi)
    if "checkpoint:" in a.agent:       # small batched forward passes: one thread is fastest
        import torch
        torch.set_num_threads(1)
    try:
        res = compare(a.agent, a.positions, a.games, a.plies, x, a.seed, window)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"compare_cube_gnubg: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(res, indent=2)
    print(text)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
