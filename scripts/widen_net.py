#!/usr/bin/env python
"""Widen a trained one-hidden-layer net without changing what it computes, to keep training it.

    python scripts/widen_net.py checkpoints/std-expert/latest.pt checkpoints/std-wide/widened.pt \
        [--factor 2] [--noise 0.01] [--seed 0]

Each hidden unit j becomes `factor` copies (Net2WiderNet: Chen, Goodfellow and Shlens, 2016):
the same incoming weights and bias, the outgoing weights divided by `factor`, so the widened
net gives the same outputs (exactly, with --noise 0). --noise adds Gaussian noise of that
standard deviation, relative to each unit's incoming weights, to the copies' incoming weights
so that they can drift apart. Every phase net of a PhasedNet is widened. The optimizer starts
fresh (Adam moments of the old shape do not fit); self-play, queue, counters and random states
are kept, so `abak-rl train resume=OUT run=NAME` continues from the widened net. Used for the
"does a bigger net break the plateau" A/B in docs/BENCHMARKS.md (issue 12).

    python scripts/widen_net.py checkpoints/std-expert/latest.pt checkpoints/std-e2/start.pt \
        --features expert2

--features NAME instead moves the net to a feature set that extends its own (the old units
first, new ones after them, e.g. expert -> expert2): the first layers get zero weights for the
new inputs, so the net still computes the same thing, and training learns what they are worth.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402

_FIRST = re.compile(r"^(.*body\.)0\.(weight|bias)$")


def widen_state(state: dict, factor: int, noise: float, gen: torch.Generator) -> dict:
    """The net's state dict with every one-hidden-layer MLP's hidden layer `factor` times wider."""
    out = dict(state)
    for key in [k for k in state if _FIRST.match(k) and k.endswith("weight")]:
        prefix = _FIRST.match(key).group(1)
        w1, b1, w2 = state[prefix + "0.weight"], state[prefix + "0.bias"], state[prefix + "2.weight"]
        if prefix + "4.weight" in state:
            raise ValueError("only nets with one hidden layer can be widened (model.layers=1)")
        copies = [w1] + [w1 + noise * w1.std(dim=1, keepdim=True)
                         * torch.randn(w1.shape, generator=gen, dtype=w1.dtype) for _ in range(factor - 1)]
        out[prefix + "0.weight"] = torch.cat(copies, 0)
        out[prefix + "0.bias"] = b1.repeat(factor)
        out[prefix + "2.weight"] = (w2 / factor).repeat(1, factor)
    return out


def widen_checkpoint(data: dict, factor: int, noise: float, seed: int) -> dict:
    """A resumable checkpoint payload of the widened net (fresh optimizer state)."""
    from abak_rl.features import get_feature_set
    from abak_rl.train.checkpoint import build_net_from
    if int(data["model"].get("layers", 1)) != 1:
        raise ValueError("only nets with one hidden layer can be widened (model.layers=1)")
    gen = torch.Generator().manual_seed(seed)
    new = {k: v for k, v in data.items() if k != "path"}
    new["net"] = widen_state(data["net"], factor, noise, gen)
    new["model"] = dict(data["model"], hidden=int(data["model"]["hidden"]) * factor)
    new["config"] = copy.deepcopy(data["config"])
    new["config"]["model"]["hidden"] = new["model"]["hidden"]
    fs = get_feature_set(data["config"]["model"]["features"])
    net = build_net_from(dict(new, path="(widened)"), fs)          # checks that the shapes fit
    lr = float(data["config"]["train"]["lr"])
    opt = (torch.optim.Adam if data["config"]["train"]["optimizer"] == "adam" else torch.optim.SGD)(
        net.parameters(), lr=lr)
    new["optimizer"] = opt.state_dict()
    return new


def add_inputs_checkpoint(data: dict, name: str) -> dict:
    """A resumable checkpoint payload of the same net on feature set `name`, whose first units
    are the old set's: zero weights for the new inputs (fresh optimizer state)."""
    from abak_rl.features import get_feature_set
    from abak_rl.train.checkpoint import build_net_from
    old = get_feature_set(data["config"]["model"]["features"])
    new_fs = get_feature_set(name)
    if new_fs.size <= old.size or data["variant"] not in new_fs.variants:
        raise ValueError(f"feature set {name!r} does not extend {old.name!r} for {data['variant']!r}")
    if new_fs.class_unit != old.class_unit:
        raise ValueError(f"feature set {name!r} reads the position class from another unit than {old.name!r}")
    new = {k: v for k, v in data.items() if k != "path"}
    net = dict(data["net"])
    for key in [k for k in net if _FIRST.match(k) and k.endswith("weight")]:
        w = net[key]
        net[key] = torch.cat([w, torch.zeros(w.shape[0], new_fs.size - w.shape[1], dtype=w.dtype)], 1)
    new["net"] = net
    new["features"] = new_fs.describe()
    new["model"] = dict(data["model"], n_inputs=new_fs.size)
    new["config"] = copy.deepcopy(data["config"])
    new["config"]["model"]["features"] = name
    model = build_net_from(dict(new, path="(new inputs)"), new_fs)
    opt = (torch.optim.Adam if data["config"]["train"]["optimizer"] == "adam" else torch.optim.SGD)(
        model.parameters(), lr=float(data["config"]["train"]["lr"]))
    new["optimizer"] = opt.state_dict()
    return new


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--factor", type=int, default=2)
    ap.add_argument("--noise", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--features", default=None, help="move to this extended feature set instead of widening")
    a = ap.parse_args(argv)
    if a.factor < 2 or a.noise < 0:
        print("widen_net: --factor must be >= 2 and --noise >= 0", file=sys.stderr)
        return 2
    try:
        data = load_checkpoint(a.checkpoint)
        if "ensemble" in (data.get("model") or {}):
            raise ValueError(f"{a.checkpoint} is an ensemble of {len(data['model']['ensemble'])} nets "
                             f"(scripts/combine_nets.py): widen its members' checkpoints and combine them again")
        if a.features:
            new = add_inputs_checkpoint(data, a.features)
        else:
            new = widen_checkpoint(data, a.factor, a.noise, a.seed)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(a.out, new)
    except (CheckpointError, ValueError, KeyError, OSError) as exc:
        print(f"widen_net: {exc}", file=sys.stderr)
        return 2
    if a.features:
        print(f"widen_net: {a.checkpoint} -> {a.out}: inputs {data['model']['n_inputs']} -> {new['model']['n_inputs']}")
    else:
        print(f"widen_net: {a.checkpoint} -> {a.out}: hidden {data['model']['hidden']} -> {new['model']['hidden']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
