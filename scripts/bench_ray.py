"""Self-play-with-learning throughput: Ray actors against the single process.

    python scripts/bench_ray.py --executor ray --workers 2 [--games 4000] [--warmup 1000]
    python scripts/bench_ray.py --executor local                 # the single-process figure
    python scripts/bench_ray.py --compare --workers 2            # both, one after the other
    python scripts/bench_ray.py --executor ray --address auto --workers 16   # on a Ray cluster

Runs the trainer's loop (play.step -> SampleQueue.push_games -> td_update whenever
train.batch_states samples wait, default net and config) with the executor from
abak_rl.train.executors, exactly as `abak-rl train executor=...` does, and reports finished
games per second of wall time after `--warmup` games (a fresh net plays long, random-looking
games; with Ray the warm-up also covers starting the actors). The learner's process CPU time
is reported too: with Ray it is the learner's share alone (actors run in other processes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch
from omegaconf import OmegaConf

from abak_rl.features import feature_set_for
from abak_rl.model.net import build_net
from abak_rl.model.scorer import Scorer
from abak_rl.train import config as cfgmod
from abak_rl.train.executors import check_config, make_executor
from abak_rl.train.run import lr_at, make_optimizer, make_variant
from abak_rl.train.td import SampleQueue, td_update


def bench(executor: str, args) -> dict:
    over = [f"variant={args.variant}", f"threads={args.threads}", "device=cpu"]
    if args.batch_games:
        over.append(f"train.batch_games={args.batch_games}")
    cfg = cfgmod.compose(over)
    OmegaConf.set_struct(cfg, False)           # works with or without the executor keys in config.yaml
    cfg.executor = executor
    cfg.ray = {"address": args.address, "workers": args.workers, "steps_per_task": args.steps_per_task,
               "cpus_per_worker": args.cpus_per_worker, "num_cpus": args.num_cpus, "wait_timeout_s": 600}
    cfgmod.validate(cfg)
    check_config(cfg)
    T = cfg.train
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    variant = make_variant(cfg)
    fs = feature_set_for(variant.name, cfg.model.features)
    net = build_net(fs.size, cfg.model, fs)
    opt = make_optimizer(net, T)
    scorer = Scorer(net, fs, variant, torch.device("cpu"))
    play = make_executor(cfg, variant, scorer)
    queue = SampleQueue(variant.width)
    games = turns = updates = 0

    def run(n_games: int) -> None:
        nonlocal games, turns, updates
        target = games + n_games
        while games < target:
            fin = play.step(scorer, float(T.epsilon))
            queue.push_games(fin, float(T["lambda"]))
            while len(queue) >= T.batch_states:
                td_update(scorer, opt, *queue.pop(int(T.batch_states)), lr=lr_at(T, games), grad_clip=T.grad_clip)
                updates += 1
            games += int(fin.length.size)
            turns += int(fin.length.sum())

    t_start = time.perf_counter()
    try:
        run(args.warmup)
        warm = time.perf_counter() - t_start
        g0, tu0, u0, t0, c0 = games, turns, updates, time.perf_counter(), time.process_time()
        run(args.games)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        play.close()
    n = games - g0
    return {"executor": executor, "workers": args.workers if executor == "ray" else 1,
            "variant": args.variant, "batch_games": int(T.batch_games), "threads": args.threads,
            "cpus_on_machine": os.cpu_count(), "warmup_s": warm, "games": n, "seconds": wall,
            "games_per_s": n / wall, "learner_cpu_s": cpu, "updates": updates - u0,
            "turns_per_game": (turns - tu0) / max(n, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--executor", choices=("local", "ray"), default="ray")
    ap.add_argument("--compare", action="store_true", help="run local, then ray, and print the ratio")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps-per-task", type=int, default=8)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray instance (default: all)")
    ap.add_argument("--address", default=None, help="an existing Ray cluster (auto, host:port)")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--batch-games", type=int, default=None)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    reports = [bench(e, args) for e in (("local", "ray") if args.compare else (args.executor,))]
    if args.json:
        print(json.dumps(reports if args.compare else reports[0], indent=1))
    else:
        for r in reports:
            who = f"ray, {r['workers']} workers" if r["executor"] == "ray" else "local, 1 process"
            print(f"{r['variant']} ({who}): {r['games']} games in {r['seconds']:.1f} s = "
                  f"{r['games_per_s']:.0f} games/s (batch_games={r['batch_games']}, "
                  f"{r['turns_per_game']:.1f} turns/game, {r['updates']} updates, learner CPU "
                  f"{r['learner_cpu_s']:.1f} s, warm-up {r['warmup_s']:.1f} s, {r['cpus_on_machine']} CPUs)")
        if args.compare:
            print(f"ray / local: {reports[1]['games_per_s'] / reports[0]['games_per_s']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
