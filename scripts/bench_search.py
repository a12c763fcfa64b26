"""Moves per second of the search at play time (agents/search.py), 0-ply as the reference.

    nice -n 10 .venv/bin/python scripts/bench_search.py [--model checkpoints/pretrained/standard]
        [--positions 256] [--batch 64] [--agreement 512] [--no-torch] [--bf16]

Positions (with their rolls) come from random games (export.sample.sample_positions), or with
--source net from the net's own 0-ply games (positions real play meets). Each
setting picks a play for every position, `--batch` positions per call (as a lockstep batch
of games would), through the torch-free exported Model (NumPy forward pass) and, unless
--no-torch, through the torch NeuralAgent running the same weights (an EvalNet loaded from the
export's safetensors). Settings: 0-ply; 1-ply unfiltered; 1-ply with the default root filter;
2-ply with the default filters. One JSON line per setting: moves per wall second and per CPU
second (the figure to quote on a shared machine) and both as ratios to 0-ply of the same
backend in the same run. One thread each for NumPy's BLAS and torch. --bf16 adds the torch
agent with precision=bf16 (model/bf16.py), each setting also as a ratio to the float32 torch
agent of the same run.

--agreement N: on N positions with more than one legal play, how often filtered 1-ply picks
the play unfiltered 1-ply picks, and the mean 1-ply equity given up when it does not.
--agreement2 N: the same for 2-ply with the default reply filter (2 plays, 0.04) against 2-ply
searching 5 replies at any distance (about what GNU Backgammon's pruning keeps).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.agents.search import NO_FILTER, REPLY_FILTER, ROOT_FILTER, MoveFilter  # noqa: E402
from abak_rl.export.sample import sample_positions  # noqa: E402
from abak_rl.inference import ExportedAgent, load_exported  # noqa: E402
from abak_rl.model.outcomes import equity  # noqa: E402

WIDE_REPLY = MoveFilter(5, None)   # about what gnubg's pruning keeps inside an evaluation
SETTINGS = [("0-ply", 0, ROOT_FILTER), ("1-ply unfiltered", 1, NO_FILTER),
            ("1-ply filtered", 1, ROOT_FILTER), ("2-ply filtered", 2, ROOT_FILTER)]


def torch_agent(model, ply: int, root, precision: str = "fp32"):
    """A NeuralAgent on the export's weights (its safetensors), or None with the reason."""
    try:
        import torch

        from abak_rl.agents.neural import NeuralAgent
        from abak_rl.export.exporters import load_export_net
        from abak_rl.model.scorer import Scorer
    except ImportError as e:
        return None, f"torch agent unavailable: {e}"
    torch.set_num_threads(1)
    try:
        _, net = load_export_net(model.source)
    except (KeyError, RuntimeError, OSError) as e:
        return None, f"torch agent unavailable: {e}"
    scorer = Scorer(net, model.features, model.variant, torch.device("cpu"), precision=precision)
    return NeuralAgent(scorer, ply=ply, root=root), ""


class _Recorder:
    """An agent that keeps every position (and roll) it is asked about, then plays `agent`."""

    def __init__(self, agent):
        self.agent, self.boards, self.dice = agent, [], []
        self.name = getattr(agent, "name", "recorder")

    def choose(self, variant, before, dice, after):
        self.boards.append(np.array(before))
        self.dice.append(np.array(dice))
        return self.agent.choose(variant, before, dice, after)


def positions(model, n: int, seed: int, source: str):
    """n (position, roll) pairs from random games, or from the net's own 0-ply games."""
    if source == "random":
        return sample_positions(model.variant, n, seed=seed)
    from abak_rl.engine.game import play_games
    rec = [_Recorder(ExportedAgent(model)), _Recorder(ExportedAgent(model))]
    games = 0
    while sum(b.shape[0] for r in rec for b in r.boards) < n:
        play_games(model.variant, rec, 32, seed, game_ids=np.arange(games, games + 32))
        games += 32
    b = np.concatenate([x for r in rec for x in r.boards])
    d = np.concatenate([x for r in rec for x in r.dice])
    order = np.random.default_rng(seed).permutation(b.shape[0])[:n]
    return b[order], d[order]


def time_choices(agent, variant, boards, dice, batch: int):
    """(wall s, CPU s, chosen rows' boards) for choosing a play in every position. The bear-off
    database and the compiled kernels are loaded first, untimed (a bear-off afterstate and a
    normal batch are scored once): loading them is not a move's cost."""
    from abak_rl.engine.bearoff import get_bearoff_db, is_bearoff
    get_bearoff_db()
    b, d = boards[:batch], dice[:batch]
    agent.choose(variant, b, d, variant.legal_afterstates(b, d))
    home = np.flatnonzero(is_bearoff(boards)) if variant.name in ("standard", "nackgammon") else []
    if len(home):
        b, d = boards[home[:1]], dice[home[:1]]
        agent.choose(variant, b, d, variant.legal_afterstates(b, d))
    wall = cpu = 0.0
    picks = []
    for lo in range(0, boards.shape[0], batch):
        b, d = boards[lo:lo + batch], dice[lo:lo + batch]
        after = variant.legal_afterstates(b, d)          # not timed: the game loop has it already
        t0, c0 = time.perf_counter(), time.process_time()
        k = agent.choose(variant, b, d, after)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        picks.append(after.boards[k])
    return wall, cpu, np.concatenate(picks)


def agreement(model, boards, dice, n: int, batch: int, ply: int, ref: dict, test: dict) -> dict:
    """How often search `test` picks the play search `ref` picks (both at `ply`), on the first n
    positions with more than one legal play, and the equity (by `ref`'s values) given up."""
    v = model.variant
    after = v.legal_afterstates(boards, dice)
    real = np.flatnonzero(after.counts(boards.shape[0]) > 1)[:n]
    same = total = 0
    loss = []
    for lo in range(0, real.size, batch):
        idx = real[lo:lo + batch]
        b, d = boards[idx], dice[idx]
        a = v.legal_afterstates(b, d)
        p, _ = model.play_values(a, d, ply, **ref)
        want = model.choose(b, d, a, ply, **ref)
        got = model.choose(b, d, a, ply, **test)
        eq = equity(p.astype(np.float64))
        same += int((want == got).sum())
        total += idx.size
        loss += list(eq[want] - eq[got])
    loss = np.asarray(loss)

    def name(kw):
        return {k: f.label() for k, f in kw.items()}
    return {"bench": "search_agreement", "ply": ply, "reference": name(ref), "tested": name(test),
            "positions": total, "same_play": same, "same_fraction": round(same / max(total, 1), 4),
            "mean_loss": round(float(loss.mean()), 5) if loss.size else 0.0,
            "mean_loss_when_different": round(float(loss[loss > 0].mean()), 5) if (loss > 0).any() else 0.0,
            "max_loss": round(float(loss.max()), 5) if loss.size else 0.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="checkpoints/pretrained/standard")
    ap.add_argument("--positions", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--agreement", type=int, default=512, help="positions for the agreement line (0: skip)")
    ap.add_argument("--agreement2", type=int, default=64,
                    help="positions for the 2-ply line: default reply filter vs 5 replies (0: skip)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", choices=("random", "net"), default="random",
                    help="positions from random games (default) or from the net's own 0-ply games")
    ap.add_argument("--no-torch", action="store_true", help="skip the torch NeuralAgent")
    ap.add_argument("--bf16", action="store_true",
                    help="also time the torch NeuralAgent with precision=bf16 (its hidden layers in "
                         "bfloat16), each setting as a ratio to the float32 torch agent of the same run")
    args = ap.parse_args(argv)
    if args.positions < 1 or args.batch < 1 or args.agreement < 0 or args.agreement2 < 0:
        print("bench_search: --positions and --batch must be >= 1, --agreement(2) >= 0", file=sys.stderr)
        return 2
    try:
        model = load_exported(args.model)
    except ValueError as e:
        print(f"bench_search: {e}", file=sys.stderr)
        return 2
    v = model.variant
    boards, dice = positions(model, args.positions, args.seed, args.source)
    backends = ["numpy"] + ([] if args.no_torch else ["torch"] + (["torch-bf16"] if args.bf16 else []))
    torch_fp32 = {}
    for backend in backends:
        ref = None
        for label, ply, root in SETTINGS:
            if backend == "numpy":
                agent = ExportedAgent(model, ply=ply, root=root)
            else:
                agent, why = torch_agent(model, ply, root, "bf16" if backend == "torch-bf16" else "fp32")
                if agent is None:
                    print(json.dumps({"bench": "search", "backend": "torch", "skipped": why}), flush=True)
                    break
            wall, cpu, _ = time_choices(agent, v, boards, dice, args.batch)
            rec = {"bench": "search", "backend": backend, "setting": label, "ply": ply, "source": args.source,
                   "root_filter": root.label() if ply else None,
                   "reply_filter": REPLY_FILTER.label() if ply == 2 else None,
                   "variant": v.name, "model": model.card.get("name", args.model),
                   "positions": int(boards.shape[0]), "batch": args.batch,
                   "moves_per_s": round(boards.shape[0] / wall, 2),
                   "moves_per_cpu_s": round(boards.shape[0] / cpu, 2)}
            if ref is None:
                ref = rec
            rec["ratio_to_0ply"] = round(rec["moves_per_s"] / ref["moves_per_s"], 5)
            rec["cpu_ratio_to_0ply"] = round(rec["moves_per_cpu_s"] / ref["moves_per_cpu_s"], 5)
            if backend == "torch":
                torch_fp32[label] = rec["moves_per_cpu_s"]
            elif backend == "torch-bf16" and label in torch_fp32:
                rec["cpu_ratio_to_torch_fp32"] = round(rec["moves_per_cpu_s"] / torch_fp32[label], 3)
            print(json.dumps(rec), flush=True)
    if args.agreement:
        b, d = positions(model, 2 * args.agreement, args.seed + 1, args.source)
        rec = agreement(model, b, d, args.agreement, args.batch, 1, {"root": NO_FILTER}, {"root": ROOT_FILTER})
        rec["source"] = args.source
        print(json.dumps(rec), flush=True)
    if args.agreement2:
        b, d = positions(model, 2 * args.agreement2, args.seed + 2, args.source)
        rec = agreement(model, b, d, args.agreement2, args.batch, 2, {"reply": WIDE_REPLY}, {"reply": REPLY_FILTER})
        rec["source"] = args.source
        print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
