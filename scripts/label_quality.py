#!/usr/bin/env python
"""A diagnostic for choosing training labels: how close is each candidate teacher's value of an
afterstate to GNU Backgammon 2-ply's, and how good are the plays it would pick?

    python scripts/label_quality.py [--net pair=checkpoints/shipped-pair.pt]
                                    [--net stu=checkpoints/std-stu/latest.pt] [--plies 0,1]
                                    [--two-ply stu] [--positions 300] [--seed 31]
                                    [--from checkpoints/std-stu/latest.pt] [--json F]
                                    [--cache F.npz] [--reply 1/0.04]

Positions before a roll come from the `--from` net's own self-play (0-ply, 512 games in
lockstep); `--positions` of them, with a random roll each and at least two legal plays, are
kept, and every legal play is an afterstate to value. Each teacher -- a net at each of
`--plies`, the average of its 0-ply and 1-ply values ("NAME 0+1"), `--two-ply` nets at 2-ply
too (and at 2-ply with each `--reply K/MARGIN` filter for the replies inside the 2-ply value,
"NAME 2-ply K/MARGIN"; `1/0.04` picks each reply at 0-ply, as GNU Backgammon does) -- values every afterstate (five probabilities, the mover's view); so does GNU Backgammon
(gnubg-nn) at 0, 1 and 2 plies. Judged against gnubg 2-ply, per teacher:

- `loss`: 0.5 * sum over the five outputs of the squared difference (the distillation's loss);
- `equity_rmse`: root mean squared difference of cubeless money equity;
- `sibling_rmse`: the same after subtracting each position's mean over its plays, the part of
  the error that can change which play is picked;
- `bias`: mean equity difference (teacher - judge);
- `pick_loss`: mean equity (by gnubg 2-ply) given up per position by playing the teacher's best
  play instead of gnubg 2-ply's, and `agree`, the share of positions where they are the same.

`--cache F.npz` keeps gnubg's values (the slow part: about 40 afterstates a second at 2-ply) for
the next run on the same positions, so candidate nets can be screened in seconds.

gnubg's own rows are references, not fair rivals: its 0- and 1-ply share the judge's net. The
figures are in docs/BENCHMARKS.md (issue 12, "Which teacher").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))      # distill_ply1, beside this script


def sample_positions(agent, n: int, seed: int):
    """`n` positions before a roll (mover's view) from `agent`'s own 0-ply games, each with a
    random roll that has at least two legal plays, none of them exact (game over, or a bear-off
    the database values): (afterstates, parent index of each, number of positions)."""
    from distill_ply1 import played_rows

    from abak_rl.train.selfplay import SelfPlay
    scorer = agent.scorer
    v = scorer.variant
    rng = np.random.default_rng(seed)
    play = SelfPlay(v, 512, seed=seed)
    pool = []
    while sum(len(p) for p in pool) < 4 * n:
        rows, _ = played_rows(play.step(scorer, 0.0))
        pool.append(v.flip(rows)[v.winner_points(rows) == 0])
    before = np.concatenate(pool)
    before = before[rng.permutation(len(before))]
    boards, parents, k = [], [], 0
    for i in range(0, len(before), 256):                  # batches of positions, until n are kept
        b = before[i:i + 256]
        dice = rng.integers(1, 7, size=(len(b), 2)).astype(np.int8)
        after = v.legal_afterstates(b, dice)
        parent = after.parent
        ok = ~scorer.exact_mask(after.boards)
        counts = np.bincount(parent[ok], minlength=len(b))
        allok = np.bincount(parent, minlength=len(b)) == counts
        good = np.flatnonzero((counts >= 2) & allok)[:n - k]
        sel = np.isin(parent, good)                       # their rows, still grouped by position
        number = np.zeros(len(b), dtype=np.int64)
        number[good] = np.arange(k, k + len(good))
        boards.append(after.boards[sel])
        parents.append(number[parent[sel]])
        k += len(good)
        if k == n:
            break
    return np.concatenate(boards), np.concatenate(parents), k


def sibling_part(d: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """Each row's difference less its position's mean over its plays: the part that can change a pick."""
    return d - (np.bincount(parent, weights=d, minlength=n) / np.bincount(parent, minlength=n))[parent]


def judge_rows(values: np.ndarray, judge: np.ndarray, parent: np.ndarray, n: int) -> dict:
    """The figures of one teacher's values against the judge's (see the module docstring)."""
    from abak_rl.model.outcomes import equity
    from abak_rl.agents.search import best_of
    eq, eqj = equity(values), equity(judge)
    d = eq - eqj
    centred = sibling_part(d, parent, n)
    rows = np.arange(len(parent))
    mine, best = best_of(eq, rows, parent, n), best_of(eqj, rows, parent, n)
    lost = eqj[best] - eqj[mine]
    return {"loss": float(0.5 * ((values - judge) ** 2).sum(-1).mean()),
            "equity_rmse": float(np.sqrt((d ** 2).mean())),
            "sibling_rmse": float(np.sqrt((centred ** 2).mean())),
            "bias": float(d.mean()),
            "pick_loss": float(lost.mean()),
            "agree": float((mine == best).mean())}


def noise_rows(first: np.ndarray, second: np.ndarray, parent: np.ndarray, n: int) -> dict:
    """The dice noise of one rollout value, from two runs on other dice: the rms equity
    difference over sqrt(2), overall and after taking off each position's mean (siblings)."""
    from abak_rl.model.outcomes import equity
    d = equity(first) - equity(second)
    centred = sibling_part(d, parent, n)
    return {"noise_rmse": float(np.sqrt((d ** 2).mean() / 2)),
            "sibling_noise_rmse": float(np.sqrt((centred ** 2).mean() / 2))}


def rollout_spec(text: str, agents: dict) -> tuple[str, int, int, bool]:
    """'NAME/TRIALS/DEPTH[/vr]' -> (name, trials, depth, variance reduction), NAME a --net name."""
    from abak_rl.agents.rollout import check_rollout
    parts = text.split("/")
    vr = len(parts) == 4 and parts[3] == "vr"
    name, trials, depth = parts[:3] if len(parts) == 3 or vr else ("", "", "")
    if name not in agents:
        raise ValueError(f"--rollout takes NAME/TRIALS/DEPTH[/vr] with NAME a --net name, not {text!r}")
    try:
        return (name, *check_rollout(int(trials), int(depth)), vr)
    except ValueError:
        raise ValueError(f"--rollout {text!r}: TRIALS and DEPTH must be whole numbers >= 1") from None


def reply_filter(text: str):
    """'K/MARGIN' (K a whole number or 'all', MARGIN a number or 'none') -> a MoveFilter."""
    from abak_rl.agents.search import parse_filter_options
    k, sep, margin = text.partition("/")
    if not sep:
        raise ValueError(f"--reply takes K/MARGIN (e.g. 1/0.04), not {text!r}")
    return parse_filter_options({"reply_k": k, "reply_margin": margin})["reply"]


def read_cache(path: str) -> dict:
    """The arrays of a --cache file (the afterstates and gnubg's values at 0, 1 and 2 plies); a
    file that is not one is a ValueError naming it, said before any slow work starts."""
    names = ["boards", "gnubg0", "gnubg1", "gnubg2"]
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in names}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        raise ValueError(f"--cache {path}: not a cache of this script (damaged, or written by something "
                         f"else); delete it or name another file") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="label_quality.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--net", action="append", default=None, metavar="NAME=CHECKPOINT")
    ap.add_argument("--plies", default="0,1")
    ap.add_argument("--two-ply", action="append", default=[], metavar="NAME")
    ap.add_argument("--reply", action="append", default=[], metavar="K/MARGIN",
                    help="also value with the --two-ply nets at 2-ply with this reply filter")
    ap.add_argument("--rollout", action="append", default=[], metavar="NAME/TRIALS/DEPTH[/vr]",
                    help="also value with the --net NAME by truncated rollouts (agents/rollout.py): "
                         "TRIALS trials of DEPTH half-moves at 0-ply (/vr: with variance reduction), "
                         "twice (two dice seeds) for the noise")
    ap.add_argument("--rollout-precision", default="fp32", choices=("fp32", "bf16"),
                    help="the rollout nets' hidden layers (bf16: as the labellers run)")
    ap.add_argument("--rollout-screen", default=None, metavar="SMALL.pt",
                    help="a screen for the rollouts' 0-ply choices (agents/search.Screen)")
    ap.add_argument("--rollout-screen-k", type=int, default=6)
    ap.add_argument("--rollout-screen-margin", type=float, default=0.2)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--from", dest="source", default="checkpoints/std-stu/latest.pt")
    ap.add_argument("--json", default=None)
    ap.add_argument("--cache", default=None, metavar="F.npz",
                    help="keep gnubg's values of the positions here and reuse them when the same "
                         "positions come again (same --from, --positions, --seed)")
    args = ap.parse_args(argv)
    from abak_rl.agents.gnubg_agent import afterstate_probs
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.agents.rollout import rollout_values
    from abak_rl.agents.search import Search
    from abak_rl.train.checkpoint import CheckpointError
    import torch
    torch.set_num_threads(1)
    nets = args.net or ["pair=checkpoints/shipped-pair.pt", "stu=checkpoints/std-stu/latest.pt"]
    try:
        plies = [int(p) for p in args.plies.split(",")]
        if not plies or any(p not in (0, 1) for p in plies):
            raise ValueError(f"--plies takes 0 and/or 1, not {args.plies!r}")
        if args.positions < 1:
            raise ValueError("--positions must be at least 1")
        agents, paths = {}, {}
        for spec in nets:
            name, sep, path = spec.partition("=")
            if not sep or not name or not path:
                raise ValueError(f"--net takes NAME=CHECKPOINT, not {spec!r}")
            agents[name], paths[name] = load_neural_agent(path, "standard"), path
        for name in args.two_ply:
            if name not in agents:
                raise ValueError(f"--two-ply {name!r} is not a --net name")
        rollouts = [rollout_spec(r, agents) for r in args.rollout]
        if rollouts:
            rollout_search = {name: load_neural_agent(
                paths[name], "standard",
                precision=args.rollout_precision, screen=args.rollout_screen, screen_k=args.rollout_screen_k,
                screen_margin=args.rollout_screen_margin if args.rollout_screen else None).search()
                for name, _, _, _ in rollouts}
        replies = [reply_filter(r) for r in args.reply]
        if replies and not args.two_ply:
            raise ValueError("--reply needs a --two-ply net")
        source = load_neural_agent(args.source, "standard")
        cache = read_cache(args.cache) if args.cache and Path(args.cache).is_file() else None
    except (CheckpointError, ValueError, OSError) as e:
        print(f"label_quality: {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    boards, parent, n = sample_positions(source, args.positions, args.seed)
    again = np.zeros(len(boards), dtype=bool)
    print(f"label_quality: {n} positions, {len(boards)} afterstates", flush=True)
    values, seconds = {}, {}
    for name, agent in agents.items():
        for ply in plies + ([2] if name in args.two_ply else []):
            t = time.time()
            values[f"{name} {ply}-ply"] = agent.values(boards, again, ply)
            seconds[f"{name} {ply}-ply"] = time.time() - t
            print(f"label_quality: {name} {ply}-ply in {seconds[f'{name} {ply}-ply']:.0f} s", flush=True)
        for f in (replies if name in args.two_ply else []):
            key = f"{name} 2-ply {f.label()}"
            t = time.time()
            values[key] = Search(agent.scorer.probs, agent.scorer.variant, reply=f).values(boards, again, 2)
            seconds[key] = time.time() - t
            print(f"label_quality: {key} in {seconds[key]:.0f} s", flush=True)
        if 0 in plies and 1 in plies:
            values[f"{name} 0+1"] = 0.5 * (values[f"{name} 0-ply"] + values[f"{name} 1-ply"])
    noise = {}
    for name, trials, depth, vr in rollouts:
        key = f"{name} rollout {trials}x{depth}" + (" vr" if vr else "")
        t = time.time()
        values[key] = rollout_values(rollout_search[name], boards, again, trials, depth, seed=args.seed,
                                     variance_reduction=vr)
        seconds[key] = time.time() - t
        again_values = rollout_values(rollout_search[name], boards, again, trials, depth, seed=args.seed + 1,
                                      variance_reduction=vr)
        noise[key] = noise_rows(values[key], again_values, parent, n)
        print(f"label_quality: {key} in {seconds[key]:.0f} s (and again for the noise)", flush=True)
    cached = None
    if cache is not None and cache["boards"].shape == boards.shape and (cache["boards"] == boards).all():
        cached = {ply: cache[f"gnubg{ply}"] for ply in (0, 1, 2)}
    for ply in (0, 1, 2):
        t = time.time()
        values[f"gnubg {ply}-ply"] = cached[ply] if cached else afterstate_probs(boards, plies=ply)
        seconds[f"gnubg {ply}-ply"] = time.time() - t
        print(f"label_quality: gnubg {ply}-ply in {seconds[f'gnubg {ply}-ply']:.0f} s"
              + (" (from --cache)" if cached else ""), flush=True)
    if args.cache and not cached:
        tmp = Path(args.cache).with_suffix(".tmp.npz")
        np.savez(tmp, boards=boards, **{f"gnubg{ply}": values[f"gnubg {ply}-ply"] for ply in (0, 1, 2)})
        tmp.replace(args.cache)
    judge = values["gnubg 2-ply"]
    report = {"positions": n, "afterstates": int(len(boards)), "seed": args.seed, "from": args.source,
              "judge": "gnubg-nn 2-ply", "seconds": {k: round(v, 1) for k, v in seconds.items()},
              "teachers": {k: judge_rows(v, judge, parent, n) for k, v in values.items() if k != "gnubg 2-ply"}}
    for key, figures in noise.items():
        report["teachers"][key].update(figures)
    report["wall_s"] = round(time.time() - t0, 1)
    print(f"{'teacher':<22}{'loss':>10}{'eq rmse':>9}{'sib rmse':>9}{'bias':>8}{'pick loss':>10}{'agree':>7}")
    for k, r in report["teachers"].items():
        print(f"{k:<22}{r['loss']:>10.6f}{r['equity_rmse']:>9.4f}{r['sibling_rmse']:>9.4f}{r['bias']:>8.4f}"
              f"{r['pick_loss']:>10.4f}{r['agree']:>7.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
