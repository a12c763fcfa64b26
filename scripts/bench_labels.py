"""Labels per CPU-second of the 2-ply labeller's search (distill_ply1.py --ply 2), against the
plain path in the same run.

    nice -n 10 .venv/bin/python scripts/bench_labels.py [--model checkpoints/pretrained/standard]
        [--screen SCREEN.pt] [--labels 400] [--rounds 3] [--ply 2]

The labeller's hot call is NeuralAgent.values(afterstates, ply=2) with the recipe of
scripts/train_standard_student.sh: bfloat16 hidden layers, replies picked at 0-ply (reply
filter k = 1), and a 1 x 32 screen of the same feature set ranking the deepest 0-ply choices
(the full net values its best k). The afterstates are each roll's top 5 plays of positions
from the net's own 0-ply games, as the labeller draws them. --screen is the screen's checkpoint
(the round's `std-stu/screen32.pt`, fitted to the net's 0-ply values); without it an untrained
1 x 32 net stands in, which costs what a trained one does at a fixed k but makes the margin's
cut meaningless.

Settings, each timed --rounds times, interleaved (A B C A B C ...) so the machine's noise falls
on all of them alike, and reported as the median round:
  plain              the screen's best 8 and the move filters' NumPy sort
                     (engine/common.segment_keep_numpy): the labeller before 7 December
  compiled filter    the move filters compiled (engine/common_compiled.py)
  best 6 within 0.2  that, with the screen's best 6 within 0.2 equity of its best
                     (Screen.margin): what train_standard_student.sh labels with now
One JSON line per setting: labels per CPU second, the ratio to `plain` of the same run, and the
equity of its values against plain's (mean, rms, max: zero for the compiled filter, the same
search). One thread for torch.
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


def agents(model_dir: str, screen_path: str | None):
    """{setting: NeuralAgent} for the settings above (plain and compiled filter are one agent,
    the kernel switched off for plain)."""
    import torch

    from abak_rl.agents.neural import NeuralAgent, load_neural_agent
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
    if screen_path is None:
        torch.manual_seed(8)
        small_net = build_net(model.features.size, {"hidden": 32, "layers": 1, "activation": "sigmoid",
                                                    "phases": "contact_race", "bearoff": True}, model.features)
        small = Scorer(small_net.eval(), model.features, model.variant, cpu)
    else:
        small = load_neural_agent(screen_path, model.variant).scorer
    reply = MoveFilter(1, 0.04)                     # --reply-k 1 (its margin as distill_ply1 leaves it)
    best8 = NeuralAgent(full, reply=reply, screen=Screen(small.probs, 8))
    return model, {"plain": best8, "compiled filter": best8,
                   "best 6 within 0.2": NeuralAgent(full, reply=reply, screen=Screen(small.probs, 6, margin=0.2))}


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
    ap.add_argument("--screen", default=None, help="the screen's checkpoint (default: an untrained 1 x 32 net)")
    ap.add_argument("--ply", type=int, default=2, choices=(1, 2))
    ap.add_argument("--seed", type=int, default=451)
    args = ap.parse_args(argv)
    if args.labels < 1 or args.rounds < 1:
        print("bench_labels: --labels and --rounds must be at least 1", file=sys.stderr)
        return 2
    from abak_rl.engine import common_compiled
    from abak_rl.model.outcomes import equity
    from abak_rl.train.checkpoint import CheckpointError
    try:
        model, by_name = agents(args.model, args.screen)
    except (KeyError, RuntimeError, OSError, ValueError, CheckpointError) as e:   # (ExportError: a ValueError)
        print(f"bench_labels: {e}", file=sys.stderr)
        return 2
    boards = afterstates(model, by_name["plain"], args.labels, args.seed)
    again = np.zeros(len(boards), dtype=bool)
    compiled = common_compiled.AVAILABLE
    settings = [(name, agent, compiled and name != "plain") for name, agent in by_name.items()]
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
    for name, agent, _ in settings:
        c = float(np.median(cpu[name]))
        d = equity(values[name]) - equity(values["plain"])
        print(json.dumps({"setting": name, "ply": args.ply, "labels": len(boards), "screen": agent.screen.label(),
                          "labels_per_cpu_s": round(len(boards) / c, 1), "ratio_to_plain": round(ref / c, 3),
                          "equity_vs_plain": {"mean": float(d.mean()), "rms": float(np.sqrt((d ** 2).mean())),
                                              "max": float(np.abs(d).max())},
                          "cpu_s_rounds": [round(x, 2) for x in cpu[name]]}))
    print(json.dumps({"screen": args.screen or "untrained 1 x 32", "model": args.model,
                      "compiled_kernels": compiled}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
