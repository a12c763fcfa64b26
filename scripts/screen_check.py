#!/usr/bin/env python
"""What a screen (agents/search.Screen: a small net ranking the deepest 0-ply choices) costs
and saves: N-ply values of afterstates from the net's own games, with and without the screen,
CPU time of each and how far the screened values are from the full search's.

    python scripts/screen_check.py NET.pt SCREEN.pt [--positions 200] [--ply 1,2] [--k 5,8,6/0.2]
                                   [--reply-k 1] [--precision bf16] [--seed 41] [--json F]

Each --k entry is a screen's k, or k/M: its best k within M equity of its best (Screen.margin,
what `distill_ply1.py --screen-k K --screen-margin M` labels with).

The afterstates are each position's best five plays of a random roll by the net's 0-ply (the
plays `distill_ply1.py --top 5` labels). Reported per setting: afterstates per CPU-second, the
speed-up over the unscreened search in the same run, and the equity difference (screened -
full): its mean (positive: the screen missed replies) and root mean square. `--picks N` also
plays N positions' rolls at 1-ply with and without the screen (the default root filter): the
share of the same picks, and the equity the screened pick gives up by the full 1-ply search.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="screen_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("net")
    ap.add_argument("screen")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--ply", default="1,2")
    ap.add_argument("--k", default="5,8")
    ap.add_argument("--reply-k", default="1")
    ap.add_argument("--precision", default="bf16")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--picks", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch
    from distill_ply1 import every_play, played_rows

    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.agents.search import Screen, Search, parse_filter_options, parse_screen_margin
    from abak_rl.model.outcomes import equity
    from abak_rl.train.checkpoint import CheckpointError
    from abak_rl.train.selfplay import SelfPlay
    torch.set_num_threads(1)
    try:
        plies = [int(p) for p in args.ply.split(",")]
        ks = [(int(k.partition("/")[0]), parse_screen_margin(k.partition("/")[2]) if "/" in k else None)
              for k in args.k.split(",")]
        if any(p not in (1, 2) for p in plies) or any(k < 1 for k, _ in ks) or args.positions < 1:
            raise ValueError("--ply takes 1 and/or 2, --k whole numbers >= 1 (or k/margin, margin >= 0), "
                             "--positions >= 1")
        reply = parse_filter_options({"reply_k": args.reply_k})["reply"]
        agent = load_neural_agent(args.net, "standard", precision=args.precision)
        small = load_neural_agent(args.screen, "standard").scorer
        screens = {(k, m): Screen(small.probs, k, margin=m) for k, m in ks}
    except (CheckpointError, ValueError) as e:
        print(f"screen_check: {e}", file=sys.stderr)
        return 2
    sc = agent.scorer
    play, rng = SelfPlay(sc.variant, 512, seed=args.seed), np.random.default_rng(args.seed)
    rows = []
    while sum(len(r) for r in rows) < max(args.positions, args.picks):
        r, _ = played_rows(play.step(sc, 0.0))
        rows.append(r)
    b, a = every_play(sc, np.concatenate(rows)[:args.positions], rng, 5)
    report = {"net": args.net, "screen": args.screen, "afterstates": int(len(b)), "reply": reply.label(),
              "precision": args.precision, "rows": []}
    for ply in plies:
        t = time.process_time()
        full = Search(sc.probs, sc.variant, reply=reply).values(b, a, ply)
        base = time.process_time() - t
        report["rows"].append({"ply": ply, "k": None, "per_cpu_s": len(b) / base})
        for k, m in ks:
            t = time.process_time()
            got = Search(sc.probs, sc.variant, reply=reply, screen=screens[k, m]).values(b, a, ply)
            s = time.process_time() - t
            d = equity(got) - equity(full)
            report["rows"].append({"ply": ply, "k": k, "margin": m, "per_cpu_s": len(b) / s, "speedup": base / s,
                                   "mean_diff": float(d.mean()), "rms_diff": float(np.sqrt((d ** 2).mean())),
                                   "max_abs_diff": float(np.abs(d).max())})
    if args.picks > 0:
        pos = np.concatenate(rows)
        pos = sc.variant.flip(pos[sc.variant.winner_points(pos) == 0])[-args.picks:]
        dice = rng.integers(1, 7, size=(len(pos), 2)).astype(np.int8)
        after = sc.variant.legal_afterstates(pos, dice)
        full = Search(sc.probs, sc.variant, reply=reply)
        p, searched = full.play_values(after, dice, len(pos), 1)
        eq = np.where(searched, equity(p), -np.inf)
        for k, m in ks:
            pick = Search(sc.probs, sc.variant, reply=reply, screen=screens[k, m]).choose(
                after, dice, len(pos), 1)
            best = full.choose(after, dice, len(pos), 1)
            report.setdefault("picks", []).append({"k": k, "margin": m, "positions": int(len(pos)),
                                                   "same": float((pick == best).mean()),
                                                   "equity_lost": float((eq[best] - eq[pick]).mean())})
    print(f"screen_check: {len(b)} afterstates, reply filter {reply.label()}, {args.precision}")
    print(f"{'ply':>4}{'k':>8}{'per CPU-s':>11}{'speed-up':>10}{'mean diff':>11}{'rms diff':>10}{'max':>8}")
    for r in report["rows"]:
        k = "none" if r["k"] is None else f"{r['k']}" + ("" if r.get("margin") is None else f"/{r['margin']:g}")
        extra = (f"{r['speedup']:>9.2f}x{r['mean_diff']:>11.5f}{r['rms_diff']:>10.5f}{r['max_abs_diff']:>8.4f}"
                 if r["k"] else "")
        print(f"{r['ply']:>4}{k:>8}{r['per_cpu_s']:>11.1f}{extra}")
    for r in report.get("picks", []):
        margin = "" if r.get("margin") is None else f", margin {r['margin']:g}"
        print(f"1-ply picks, k={r['k']}{margin}: {r['same']:.3f} the same over {r['positions']} positions, "
              f"{r['equity_lost']:.5f} equity given up a position")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
