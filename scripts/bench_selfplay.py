"""Self-play-with-learning throughput, and where the time goes.

    python scripts/bench_selfplay.py [--games 4000] [--warmup 1000] [--batch-games 256]
                                     [--variant standard] [--threads 1] [--checkpoint PATH]
                                     [--set model.features=td198 ...] [--vs-gnubg [N]] [--json]
                                     [--dense]

--set takes training-config overrides (key=value, as on the `abak-rl train` command line), e.g.
`--set model.features=td198 model.phases=single model.bearoff=false` for the raw-input net.
--vs-gnubg N also plays N games of GNU Backgammon's own 0-ply self-play in the same process
(gnubg_nn best_move for both sides, one thread, random dice; half of them before our games and
half after, so load that drifts during the run falls on both) and prints one JSON line with both
rates per CPU-second and their ratio: the figure issues 12 and 14 quote. --vs-variant V measures
V on its default config in the same process (A, B, A, B) and prints both rates and their ratio,
e.g. `--variant abak --vs-variant standard`.

On a shared machine wall-clock rates mostly measure the other jobs, so the process CPU time is
reported too (with --threads 1, games per CPU-second is what one idle core would do).

Runs exactly the trainer's loop (SelfPlay.step + SampleQueue + td_update, default net and config)
with timers around its parts: move generation, feature encoding, the net's forward passes for
play, the rest of self-play (choice, bookkeeping), lambda-returns, and the gradient steps (their
own features, forward and backward included). Each timer counts its own time only: Acey-deucey's
move generation scores its 1-2 plays (train.one_two_top_k), and that counts as features and
forward. A fresh net plays long, random-looking games, so `--warmup` games are trained first and
not timed; `--checkpoint` starts from a trained net. The per-game record is grown to 512 turns
before the timed games, the size a long run reaches in its first minutes (growing it copies the
whole record: a one-off cost that is not throughput).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict

import torch

from abak_rl.features import feature_set_for
from abak_rl.model.net import build_net, routed
from abak_rl.model.scorer import Scorer
from abak_rl.train import config as cfgmod
from abak_rl.train.checkpoint import build_net_from, load_checkpoint
from abak_rl.train.run import PlainSection, lr_at, make_optimizer, make_variant
from abak_rl.train.selfplay import SelfPlay
from abak_rl.train.td import SampleQueue, td_update

TIMES: dict[str, float] = defaultdict(float)
_PLAIN: dict = {}                    # functions before timing wrappers (measure() may run twice)
PHASE = ["play"]


class Timed:
    """Delegates to `inner`, timing calls of `method` under the current phase."""

    def __init__(self, inner, method: str, label: str):
        self._inner, self._method, self._label = inner, method, label

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        return _timer(attr, self._label) if name == self._method else attr


_NESTED: list[float] = []           # time spent in timed calls inside the running timed call


def _timer(fn, label: str):
    """fn, adding its own time (without the timed calls it makes: Acey-deucey's move generation
    scores the 1-2 plays) to TIMES under the current phase."""
    def timed(*a, **k):
        t = time.perf_counter()
        _NESTED.append(0.0)
        try:
            out = fn(*a, **k)
        finally:
            dt, inner = time.perf_counter() - t, _NESTED.pop()
            TIMES[f"{PHASE[0]}/{label}"] += dt - inner
            if _NESTED:
                _NESTED[-1] += dt
        return out
    return timed


class TimedNet(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.inner = net
        self.shape = net.shape
        if hasattr(net, "nets"):                     # phase nets: time each one (the scorer splits rows)
            self.nets = [TimedNet(sub) for sub in net.nets]

    def forward(self, x):
        return _timer(self.inner, "forward")(x)

    def forward_routed(self, x):
        return _timer(lambda v: routed(self.inner, v), "forward")(x)


def gnubg_selfplay(n_games: int, seed: int = 0) -> dict:
    """GNU Backgammon 0-ply playing itself (gnubg_nn, one position per call): games per CPU-s."""
    import random

    import gnubg_nn as g
    rng = random.Random(seed)
    start = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2
    t0, c0, moves = time.perf_counter(), time.process_time(), 0
    for _ in range(n_games):
        board = [list(start[0]), list(start[1])]
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            _, key = g.best_move(board, d1, d2, b=1)
            moves += 1
            mover, other = g.board_from_position_key(key)
            if sum(mover) == 0:
                break
            board = [list(mover), list(other)]     # [opponent, on roll] for the next turn
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"games": n_games, "seconds": wall, "cpu_seconds": cpu, "games_per_cpu_s": n_games / cpu,
            "moves_per_game": moves / n_games}


def measure(args):
    """One timed measurement (warm-up, then args.games games) of args.variant."""
    TIMES.clear()
    over = [f"variant={args.variant}", f"threads={args.threads}", "device=cpu", *args.set]
    if args.batch_games:
        over.append(f"train.batch_games={args.batch_games}")
    cfg = cfgmod.compose(over)
    cfgmod.validate(cfg)
    T = PlainSection.of(cfg.train)      # plain values, as the trainer's loop reads them
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    variant = make_variant(cfg)
    fs = feature_set_for(variant.name, cfg.model.features)
    if getattr(args, "dense", False):   # the dense first layer even where the set packs
        import dataclasses
        fs = dataclasses.replace(fs, packing=None)
    net = build_net_from(load_checkpoint(args.checkpoint), fs) if args.checkpoint else build_net(fs.size, cfg.model, fs)
    opt = make_optimizer(net, T)
    if fs.packing is not None:       # packed rows: time pack() and the table-sum forward pass
        import dataclasses

        import abak_rl.model.packed as packed_mod
        timed_fs = dataclasses.replace(fs, packing=dataclasses.replace(
            fs.packing, pack=_timer(fs.packing.pack, "features")))
        plain = _PLAIN.setdefault("packed_forward", packed_mod.packed_forward)
        packed_mod.packed_forward = _timer(lambda n, *a: plain(getattr(n, "inner", n), *a), "forward")
        scorer = Scorer(net, Timed(timed_fs, "encode", "features"),
                        Timed(variant, "legal_afterstates", "movegen"), torch.device("cpu"))
        scorer.net = TimedNet(net)   # the update's forward pass is timed too; play goes through packed
        scorer.packing = timed_fs.packing
    else:
        scorer = Scorer(TimedNet(net), Timed(fs, "encode", "features"),
                        Timed(variant, "legal_afterstates", "movegen"), torch.device("cpu"))
    play = SelfPlay(scorer.variant, int(T.batch_games), 0, int(T.max_turns), one_two_k=int(T.one_two_top_k))
    queue = SampleQueue(variant.width, skip=scorer.exact_mask if scorer.bearoff else None)
    games = turns = positions = 0

    def run(n_games: int) -> None:
        nonlocal games, turns, positions
        target = games + n_games
        while games < target:
            PHASE[0] = "play"
            t = time.perf_counter()
            fin = play.step(scorer, float(T.epsilon))
            TIMES["play/total"] += time.perf_counter() - t
            t = time.perf_counter()
            queue.push_games(fin, float(T["lambda"]))
            TIMES["learn/lambda_returns"] += time.perf_counter() - t
            PHASE[0] = "learn"
            t = time.perf_counter()
            while len(queue) >= T.batch_states:
                td_update(scorer, opt, *queue.pop(int(T.batch_states)), lr=lr_at(T, games), grad_clip=T.grad_clip,
                          ply1=(float(T.ply1_fraction), float(T.ply1_weight)), loss=str(T.loss))
            TIMES["learn/update_total"] += time.perf_counter() - t
            games += int(fin.length.size)
            turns += int(fin.length.sum())
            positions += play.B

    run(args.warmup)
    # a long run's per-game record has grown to 512 turns within its first games (the shipped
    # standard run's checkpoint holds [256, 512, 30]); growing it is a one-off, not throughput
    while play.t_boards.shape[1] < 512:
        play._grow()
    TIMES.clear()
    g0, t0, p0, tu0, c0 = games, time.perf_counter(), positions, turns, time.process_time()
    run(args.games)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    n = games - g0
    parts = {
        "move generation": TIMES["play/movegen"],
        "features (play)": TIMES["play/features"],
        "forward (play)": TIMES["play/forward"],
        "rest of self-play (choice, bookkeeping)": TIMES["play/total"] - TIMES["play/movegen"]
        - TIMES["play/features"] - TIMES["play/forward"],
        "lambda-returns + queue": TIMES["learn/lambda_returns"],
        "update: features": TIMES["learn/features"],
        "update: forward": TIMES["learn/forward"],
        "update: backward + optimizer": TIMES["learn/update_total"] - TIMES["learn/features"] - TIMES["learn/forward"],
    }
    report = {"variant": args.variant, "features": fs.name, "model": dict(net.shape),
              "batch_games": int(T.batch_games), "threads": args.threads,
              "games": n, "seconds": wall, "games_per_s": n / wall, "cpu_seconds": cpu,
              "games_per_cpu_s": n / cpu, "turns_per_game": (turns - tu0) / max(n, 1),
              "positions_per_s": (positions - p0) / wall,
              "share": {k: v / wall for k, v in parts.items()}}
    return report, parts, n, wall, cpu, T, fs, net


def compare(args) -> int:
    """args.variant against args.vs_variant in one process: A, B, A, B with half the games each
    (the machine's load falls on both alike); prints one JSON line."""
    import copy
    totals = {}
    for _ in range(2):
        for variant in (args.variant, args.vs_variant):
            a = copy.copy(args)
            a.variant, a.games = variant, max(1, args.games // 2)
            if variant != args.variant:
                a.set, a.checkpoint = [], None          # the other variant on its own defaults
            rep = measure(a)[0]
            g, c, t = totals.get(variant, (0, 0.0, 0.0))
            totals[variant] = (g + rep["games"], c + rep["cpu_seconds"], t + rep["turns_per_game"] * rep["games"])
    rate = {v: g / c for v, (g, c, _) in totals.items()}
    turns = {v: t / g for v, (g, _, t) in totals.items()}
    pos = {v: rate[v] * turns[v] for v in rate}
    print(json.dumps({"bench": "selfplay_vs_variant", "variant": args.variant, "other": args.vs_variant,
                      "games_per_cpu_s": round(rate[args.variant], 1),
                      "other_games_per_cpu_s": round(rate[args.vs_variant], 1),
                      "ratio": round(rate[args.variant] / rate[args.vs_variant], 3),
                      "turns_per_game": {v: round(t, 1) for v, t in turns.items()},
                      "positions_per_cpu_s": {v: round(p) for v, p in pos.items()},
                      "positions_ratio": round(pos[args.variant] / pos[args.vs_variant], 3),
                      "games": {v: g for v, (g, _, _) in totals.items()}, "set": args.set,
                      "batch_games": args.batch_games}))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--batch-games", type=int, default=None)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--dense", action="store_true",
                    help="score with dense feature rows even where the feature set packs (for A/Bs)")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="training-config overrides")
    ap.add_argument("--vs-gnubg", type=int, nargs="?", const=400, default=0, metavar="N",
                    help="also time N games of gnubg_nn's own 0-ply self-play (default 400)")
    ap.add_argument("--vs-variant", default=None, metavar="VARIANT",
                    help="also measure VARIANT (its default config) in the same process, the two "
                         "alternating in two rounds, and print both rates and their ratio")
    args = ap.parse_args(argv)
    if args.vs_variant:
        return compare(args)
    # gnubg's games are split around ours (half before, half after): the machine's load
    # drifts over a run, and a reference timed on one side of it only would catch less of it
    before = gnubg_selfplay(max(1, args.vs_gnubg // 2), seed=0) if args.vs_gnubg else None
    report, parts, n, wall, cpu, T, fs, net = measure(args)
    if args.vs_gnubg:
        after = gnubg_selfplay(max(1, args.vs_gnubg - args.vs_gnubg // 2), seed=1)
        g_games, g_cpu = before["games"] + after["games"], before["cpu_seconds"] + after["cpu_seconds"]
        print(json.dumps({"bench": "selfplay_vs_gnubg", "variant": args.variant, "features": fs.name,
                          "model": dict(net.shape), "ours_games_per_cpu_s": round(report["games_per_cpu_s"], 1),
                          "gnubg_games_per_cpu_s": round(g_games / g_cpu, 1),
                          "gnubg_before_after": [round(before["games_per_cpu_s"], 1), round(after["games_per_cpu_s"], 1)],
                          "ratio": round(report["games_per_cpu_s"] * g_cpu / g_games, 3),
                          "ours_games": n, "gnubg_games": g_games}))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{args.variant}: {n} games in {wall:.1f} s = {n / wall:.0f} games/s "
              f"({report['turns_per_game']:.1f} turns/game, {report['positions_per_s']:.0f} positions/s, "
              f"batch_games={T.batch_games}, threads={args.threads})")
        print(f"  process CPU time {cpu:.1f} s = {n / cpu:.0f} games per CPU-second "
              f"(the rate on an otherwise idle core when threads=1)")
        for k, v in parts.items():
            print(f"  {k:42s} {v:7.2f} s  {100 * v / wall:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
