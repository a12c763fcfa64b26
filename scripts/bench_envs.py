"""Environment steps per second: our Gymnasium vector env and PettingZoo env next to OpenSpiel's
backgammon, all in random play, measured in the same run (alternating, median of repeats).

Counts: a *step* is one decision: in our environments one checker movement (a turn is 1-6 of
them), in OpenSpiel one whole turn (its actions are two-checker plays, and four-checker doubles
take two decisions), in the engine's own lockstep game loop (play_games, for scale) one whole
play chosen among the afterstates; chance nodes are not counted. Games per second compare them
without that difference. Random play: a uniformly random legal action at every decision.

    nice -n 10 .venv/bin/python scripts/bench_envs.py [--seconds 10] [--repeats 3] [--num-envs 64]

The vector env is warmed up first (--warmup steps) so that its games are out of step and
some finish in the timed window. Ends with one JSON line per measurement. OpenSpiel
(pip install '.[bench]', which pins open_spiel==2.0.2) is skipped when it is not installed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def bench_vector(variant: str, num_envs: int, seconds: float, seed: int, warmup: int) -> dict:
    from abak_rl.envs import make_vector
    env = make_vector(variant, num_envs)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(warmup):   # games out of step with each other, so some end in the window
        mask = info["action_mask"]
        obs, r, term, trunc, info = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        mask = info["action_mask"]
        obs, r, term, trunc, info = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
        steps += num_envs
        games += int((term | trunc).sum())
    dt = time.perf_counter() - t0
    return {"what": f"abak-rl make_vector({variant!r}, {num_envs})", "steps_per_s": steps / dt,
            "games_per_s": games / dt, "steps": steps, "games": games}


def bench_aec(variant: str, seconds: float, seed: int) -> dict:
    from abak_rl.envs import make_aec
    env = make_aec(variant)
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = time.perf_counter()
    env.reset(seed=seed)
    while time.perf_counter() - t0 < seconds:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            games += 1
            env.reset()
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    dt = time.perf_counter() - t0
    return {"what": f"abak-rl make_aec({variant!r})", "steps_per_s": steps / dt,
            "games_per_s": games / dt, "steps": steps, "games": games}


def bench_play_games(variant: str, seconds: float, seed: int) -> dict:
    """The engine itself, for scale: random play choosing among whole afterstates (one
    decision a turn), 256 games in lockstep (engine.game.play_games)."""
    from abak_rl.agents.random_agent import RandomAgent
    from abak_rl.engine.game import play_games
    from abak_rl.engine.variants import get_variant
    v = get_variant(variant)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        res = play_games(v, [RandomAgent(seed), RandomAgent(seed + 1)], 256, seed + games)
        steps += int(res.turns.sum())
        games += 256
    dt = time.perf_counter() - t0
    return {"what": f"abak-rl play_games({variant!r}, 256), whole plays", "steps_per_s": steps / dt,
            "games_per_s": games / dt, "steps": steps, "games": games}


def bench_openspiel(seconds: float, seed: int) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = time.perf_counter()
    state = game.new_initial_state()
    while time.perf_counter() - t0 < seconds:
        if state.is_terminal():
            games += 1
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            p = np.array([q for _, q in outcomes])
            state.apply_action(outcomes[rng.choice(len(outcomes), p=p / p.sum())][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    dt = time.perf_counter() - t0
    return {"what": "OpenSpiel 2.0.2 backgammon (one game, Python loop)", "steps_per_s": steps / dt,
            "games_per_s": games / dt, "steps": steps, "games": games}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="environment steps per second vs OpenSpiel backgammon")
    p.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--warmup", type=int, default=150, help="vector steps before timing")
    p.add_argument("--variants", default="standard,abak", help="comma-separated, for our envs")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or args.num_envs < 1:
        p.error("--seconds must be > 0, --repeats and --num-envs at least 1")
    runs = [("openspiel", lambda s: bench_openspiel(args.seconds, s)),
            ("play_games-standard", lambda s: bench_play_games("standard", args.seconds, s))]
    for v in args.variants.split(","):
        runs.append((f"vector-{v}", lambda s, v=v: bench_vector(v, args.num_envs, args.seconds, s, args.warmup)))
        runs.append((f"aec-{v}", lambda s, v=v: bench_aec(v, args.seconds, s)))
    results: dict[str, list] = {k: [] for k, _ in runs}
    for r in range(args.repeats):          # alternate, so load changes hit every measurement
        for key, fn in runs:
            out = fn(args.seed + r)
            if out is not None:
                results[key].append(out)
    ref = results.get("openspiel") or []
    ref_steps = statistics.median(x["steps_per_s"] for x in ref) if ref else None
    ref_games = statistics.median(x["games_per_s"] for x in ref) if ref else None
    print(f"| environment | steps/s | games/s | steps/s vs OpenSpiel | games/s vs OpenSpiel |")
    print("|---|---:|---:|---:|---:|")
    lines = []
    for key, outs in results.items():
        if not outs:
            continue
        st = statistics.median(x["steps_per_s"] for x in outs)
        gm = statistics.median(x["games_per_s"] for x in outs)
        rs = f"{st / ref_steps:.2f}" if ref_steps else "-"
        rg = f"{gm / ref_games:.2f}" if ref_games else "-"
        print(f"| {outs[0]['what']} | {st:,.0f} | {gm:,.1f} | {rs} | {rg} |")
        lines.append({"bench": key, "what": outs[0]["what"], "steps_per_s": st, "games_per_s": gm,
                      "repeats": len(outs), "seconds": args.seconds})
    if not ref:
        print("(OpenSpiel is not installed: pip install open_spiel==2.0.2 for the reference)")
    for line in lines:
        print(json.dumps(line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
