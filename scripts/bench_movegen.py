"""Move-generation speed on positions from real (random-play) games, against GNU Backgammon.

For each batch size, the same positions go through our batched generator (one call per batch)
and through gnubg_nn.moves (one call per position: gnubg has no batch API); medians over
repeats, since shared machines are noisy (the JSON also has CPU-time rates and the best
repeat, which suffer less from other processes' load). Also random-play games per second
(play_games with RandomAgent), and for Acey-deucey the 1-2 roll on mid-game positions.
Ends with one JSON line per measurement.

    .venv/bin/python scripts/bench_movegen.py [--variant standard|nackgammon|acey_deucey|abak]

--variant abak runs scripts/bench_abak.py (Abak's afterstates per second at batch 1, 64, 1024,
its random-play games per second next to the standard variant's, the two alternating in the
same run, and its compiled generator against the NumPy one at batch 256 and 1024), with
--repeats as its --reps and --batches and --games passed on.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.game import play_games, random_play_positions
from abak_rl.engine.variants import get_variant


def sample_positions(variant, n: int, seed: int):
    """At least n (position, roll) pairs from random games, shuffled."""
    boards, dice, games = [], [], 0
    while sum(len(b) for b in boards) < n:
        b, d = random_play_positions(variant, 64, seed + games)
        boards.append(b); dice.append(d); games += 64
    b, d = np.concatenate(boards), np.concatenate(dice)
    order = np.random.default_rng(seed).permutation(len(b))
    return b[order], d[order]


def time_ours(variant, boards, dice, batch: int, total: int):
    """(wall seconds, CPU seconds, afterstates) for `total` positions in batches of `batch`."""
    t, c, n = 0.0, 0.0, 0
    for s in range(0, total, batch):
        b, d = boards[s:s + batch], dice[s:s + batch]
        t0, c0 = time.perf_counter(), time.process_time()
        a = variant.legal_afterstates(b, d)
        t += time.perf_counter() - t0
        c += time.process_time() - c0
        n += len(a)
    return t, c, n


def to_gnubg_lists(boards):
    """Classic rows -> gnubg boards [opponent, player on roll], each 25 long (24 = bar)."""
    r = boards.astype(np.int64)
    g = np.zeros((len(r), 2, 25), np.int64)
    g[:, 1, :24] = np.clip(r[:, :24], 0, None)
    g[:, 0, :24] = np.clip(-r[:, 23::-1], 0, None)
    g[:, 1, 24], g[:, 0, 24] = r[:, 24], r[:, 25]
    return g.tolist()


def time_gnubg(gboards, dice):
    import gnubg_nn

    moves = gnubg_nn.moves
    dl = dice.astype(int).tolist()
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for g, (d1, d2) in zip(gboards, dl):
        n += len(moves(g, d1, d2)) or 1  # a pass is one afterstate for us
    return time.perf_counter() - t0, time.process_time() - c0, n


def one_two(variant, boards, repeats: int, n: int = 40):
    """Acey-deucey's 1-2 (1-2, then any double) on mid-game positions: the expensive roll."""
    import tracemalloc

    mid = boards[(boards[:, 28] == 0) & ((boards[:, :24] > 0).sum(1) >= 5)][:n]
    dice = np.tile(np.array([[1, 2]], np.int8), (len(mid), 1))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        a = variant.legal_afterstates(mid, dice)
        times.append(time.perf_counter() - t0)
    counts = a.counts(len(mid))
    worst = int(np.argmax(counts))
    tracemalloc.start()
    t0 = time.perf_counter()
    variant.legal_afterstates(mid[worst:worst + 1], dice[:1])
    t_worst = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    t = float(np.median(times))
    print(f"1-2 on {len(mid)} mid-game positions: {len(a)} afterstates in {t:.2f} s "
          f"({len(a) / t:.0f}/s); per position median {np.median(counts):.0f}, max {counts.max()} "
          f"(that one alone: {t_worst:.2f} s, peak {peak / 2**20:.0f} MiB of arrays)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--batches", default=None, help="default 1,64,1024,8192 (Abak: 1,64,1024)")
    ap.add_argument("--positions", type=int, default=8192, help="positions timed per batch size")
    ap.add_argument("--small-positions", type=int, default=2048,
                    help="positions timed at batch sizes below 1024 (one call each is slow)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--games", type=int, default=None,
                    help="random-play games for games/s (default 200; Abak: 256 per seed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-gnubg", action="store_true")
    args = ap.parse_args(argv)
    if args.variant == "abak":
        import bench_abak   # the same directory: Abak next to standard, alternating
        return bench_abak.main(["--reps", str(args.repeats), "--batches", args.batches or "1,64,1024"]
                               + (["--games", str(args.games)] if args.games else []))
    args.batches = args.batches or "1,64,1024,8192"
    args.games = args.games or 200

    v = get_variant(args.variant)
    use_gnubg = args.variant == "standard" and not args.no_gnubg
    if use_gnubg:
        try:
            import gnubg_nn  # noqa: F401
        except ImportError:
            use_gnubg = False
    batches = [int(x) for x in args.batches.split(",")]
    boards, dice = sample_positions(v, max(args.positions, max(batches)), args.seed)
    gboards = to_gnubg_lists(boards) if use_gnubg else None
    print(f"variant {args.variant}: {len(boards)} positions sampled from random games; "
          f"median of {args.repeats} repeats")
    results = []
    v.legal_afterstates(boards[:64], dice[:64])  # warm up
    for batch in batches:
        total = args.positions if batch >= 1024 else min(args.positions, args.small_positions)
        total = max(total, batch)
        ours, theirs = [], []
        for _ in range(args.repeats):
            ours.append(time_ours(v, boards, dice, batch, total))
            if use_gnubg:
                theirs.append(time_gnubg(gboards[:total], dice[:total]))
        t = float(np.median([x[0] for x in ours]))
        c = float(np.median([x[1] for x in ours]))
        n = ours[0][2]
        best = min(x[0] for x in ours)
        rec = {"variant": args.variant, "batch": batch, "positions_per_s": round(total / t),
               "afterstates_per_s": round(n / t), "gnubg_afterstates_per_s": None,
               "afterstates_per_cpu_s": round(n / c), "gnubg_afterstates_per_cpu_s": None,
               "afterstates_per_s_best": round(n / best), "gnubg_afterstates_per_s_best": None}
        line = (f"batch {batch:5d}: {total / t:9.0f} positions/s {n / t:10.0f} afterstates/s "
                f"[{n / c:10.0f} per CPU s] ({n / total:.1f} per position, "
                f"{1e3 * t / max(1, total // batch):.3f} ms/call)")
        if use_gnubg:
            tg = float(np.median([x[0] for x in theirs]))
            cg = float(np.median([x[1] for x in theirs]))
            ng = theirs[0][2]
            rec["gnubg_afterstates_per_s"] = round(ng / tg)
            rec["gnubg_afterstates_per_cpu_s"] = round(ng / cg)
            rec["gnubg_afterstates_per_s_best"] = round(ng / min(x[0] for x in theirs))
            line += (f" | gnubg {ng / tg:9.0f}/s [{ng / cg:9.0f} per CPU s]; ours/gnubg "
                     f"{(n / t) / (ng / tg):.2f} [CPU {(n / c) / (ng / cg):.2f}]")
        print(line, flush=True)
        results.append(rec)

    if v.extra_turn(np.array([[1, 2]]))[0]:
        one_two(v, boards, args.repeats)

    t0 = time.perf_counter()
    r = play_games(v, [RandomAgent(1), RandomAgent(2)], args.games, seed=args.seed)
    dt = time.perf_counter() - t0
    print(f"random play: {args.games} games in {dt:.2f} s = {args.games / dt:.1f} games/s "
          f"({int(r.turns.sum()) / dt:.0f} turns/s, {r.turns.mean():.0f} turns per game)")
    for rec in results:
        print(json.dumps(rec))
    print(json.dumps({"variant": args.variant, "random_play_games": args.games,
                      "random_play_games_per_s": round(args.games / dt, 2)}))


if __name__ == "__main__":
    main()
