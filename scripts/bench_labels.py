"""Labels per CPU-second of the 2-ply labeller's search (distill_ply1.py --ply 2), against the
plain path in the same run.

    nice -n 10 .venv/bin/python scripts/bench_labels.py [--model checkpoints/pretrained/standard]
        [--labels 400] [--rounds 3] [--screen-k 8] [--ply 2]

The labeller's hot call is NeuralAgent.values(afterstates, ply=2) with the recipe of
scripts/train_standard_student.sh: bfloat16 hidden layers, replies picked at 0-ply (reply
filter k = 1), and a 1 x 32 screen of the same feature set ranking the deepest 0-ply choices
(the full net values its best --screen-k). The afterstates are each roll's top 5 plays of
positions from the net's own 0-ply games, as the labeller draws them. The screen is an
untrained 1 x 32 net: its cost is a trained one's (same shape, same k), and the labels' values
are not what this measures.

Settings, each timed --rounds times, interleaved (A B C A B C ...) so the machine's noise falls
on all of them alike, and reported as the median round:
  plain            the move filters' NumPy sort (engine/common.segment_keep_numpy) and the
                   screen and the full net each encoding the afterstates they score
  compiled filter  the move filters compiled (engine/common_compiled.py)
  shared rows      that, and the screen's encoded rows handed to the full net (Screen.encode):
                   what the labeller runs
One JSON line per setting: labels per CPU second and the ratio to `plain` of the same run; the
values of all settings must agree (the same search), and the largest difference is printed.
One thread for torch.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def agents(model_dir: str, screen_k: int, ply: int):
    """(full NeuralAgent with a screen and shared rows, the same without shared rows)."""
    import torch

    from abak_rl.agents.neural import NeuralAgent, shared_rows
    from abak_rl.agents.search import MoveFilter, Screen
    from abak_rl.export.exporters import load_export_net
    from abak_rl.inference import load_exported
    from abak_rl.model.net import build_net
    from abak_rl.model.scorer import Scorer
    torch.set_num_threads(1)
    model = load_exported(model_dir)
    _, net = load_export_net(model.source)
    cpu = torch.device("cpu")
    full = Scorer(net.eval(), model.features, model.variant, cpu, precision="bf16")
    torch.manual_seed(8)
    small_net = build_net(model.features.size, {"hidden": 32, "layers": 1, "activation": "sigmoid",
                                                "phases": "contact_race", "bearoff": True}, model.features)
    small = Scorer(small_net.eval(), model.features, model.variant, cpu)
    reply = MoveFilter(1, None) if ply == 2 else MoveFilter(2, 0.04)
    shared = NeuralAgent(full, reply=reply, screen=Screen(small.probs, screen_k, encode=shared_rows(small, full)))
    apart = NeuralAgent(full, reply=reply, screen=Screen(small.probs, screen_k))
    return model, shared, apart


def afterstates(model, agent, n: int, seed: int) -> np.ndarray:
    """n afterstates as the labeller draws them: each roll's top 5 plays from its own games."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from distill_ply1 import every_play, played_rows

    from abak_rl.train.selfplay import SelfPlay
    play = SelfPlay(model.variant, 256, seed=seed)
    rng = np.random.default_rng(seed)
    out, have = [], 0
    while have < n:
        rows, _ = played_rows(play.step(agent.scorer, 0.0))
        b, _ = every_play(agent.scorer, rows, rng, 5)
        out.append(b)
        have += len(b)
    b = np.concatenate(out)
    return b[rng.permutation(len(b))[:n]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="checkpoints/pretrained/standard")
    ap.add_argument("--labels", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--screen-k", type=int, default=8)
    ap.add_argument("--ply", type=int, default=2, choices=(1, 2))
    ap.add_argument("--seed", type=int, default=451)
    args = ap.parse_args(argv)
    if args.labels < 1 or args.rounds < 1 or args.screen_k < 1:
        print("bench_labels: --labels, --rounds and --screen-k must be at least 1", file=sys.stderr)
        return 2
    from abak_rl.engine import common_compiled
    try:
        model, shared, apart = agents(args.model, args.screen_k, args.ply)
    except (KeyError, RuntimeError, OSError, ValueError) as e:   # (ExportError is a ValueError)
        print(f"bench_labels: {e}", file=sys.stderr)
        return 2
    boards = afterstates(model, shared, args.labels, args.seed)
    again = np.zeros(len(boards), dtype=bool)
    compiled = common_compiled.AVAILABLE
    settings = [("plain", apart, False), ("compiled filter", apart, compiled), ("shared rows", shared, compiled)]
    for _, agent, comp in settings:                  # warm up: kernels compiled, tables built
        common_compiled.AVAILABLE = comp
        agent.values(boards[:16], again[:16], args.ply)
    cpu = {name: [] for name, _, _ in settings}
    values = {}
    for _ in range(args.rounds):
        for name, agent, comp in settings:
            common_compiled.AVAILABLE = comp
            c0 = time.process_time()
            values[name] = agent.values(boards, again, args.ply)
            cpu[name].append(time.process_time() - c0)
    common_compiled.AVAILABLE = compiled
    ref = float(np.median(cpu["plain"]))
    for name, _, _ in settings:
        c = float(np.median(cpu[name]))
        print(json.dumps({"setting": name, "ply": args.ply, "labels": len(boards), "screen_k": args.screen_k,
                          "labels_per_cpu_s": round(len(boards) / c, 1), "ratio_to_plain": round(ref / c, 3),
                          "cpu_s_rounds": [round(x, 2) for x in cpu[name]]}))
    diff = max(float(np.abs(values[n] - values["plain"]).max()) for n in values)
    print(json.dumps({"largest_value_difference_to_plain": diff, "compiled_kernels": compiled}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
