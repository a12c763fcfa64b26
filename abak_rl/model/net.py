"""The evaluator: features of an afterstate -> five outcome probabilities.

Perspective (one rule everywhere in the project): the net scores an AFTERSTATE, the position
right after a play, seen from the player P who just made it (the move generator's rows, not
flipped). That is TD-Gammon's choice with the side to move flipped: the mover compares its
candidate plays by their values and no search over the opponent's reply is needed at 0-ply.

Outputs (sigmoids, each a probability from P's view; "gammon" includes backgammons):
    0 p_win   P wins the game
    1 p_wg    P wins a gammon or a backgammon
    2 p_wbg   P wins a backgammon
    3 p_lg    P loses a gammon or a backgammon
    4 p_lbg   P loses a backgammon
Equity in points per game (cubeless):
    E = p_win - (1 - p_win) + p_wg - p_lg + p_wbg - p_lbg
since a single win is worth 1, a gammon 2 (= 1 + 1) and a backgammon 3 (= 1 + 1 + 1).
The same probabilities seen from the opponent are swap_perspective(): (1 - p_win, p_lg, p_lbg,
p_wg, p_wbg).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .outcomes import OUTPUTS, equity, outcome_probs, swap_perspective_np  # noqa: F401 (re-exported)

ACTIVATIONS = {"sigmoid": nn.Sigmoid, "relu": nn.ReLU, "tanh": nn.Tanh}


class EvalNet(nn.Module):
    """An MLP: `layers` hidden layers of `hidden` units, then 5 sigmoid outputs.

    The default (one hidden layer of 80 sigmoid units) is TD-Gammon's shape.
    """

    def __init__(self, n_inputs: int, hidden: int = 80, layers: int = 1, activation: str = "sigmoid"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"model.activation={activation!r}: expected one of {', '.join(ACTIVATIONS)}")
        if hidden < 1 or layers < 0:
            raise ValueError(f"model.hidden={hidden}, model.layers={layers}: need hidden >= 1, layers >= 0")
        mods: list[nn.Module] = []
        width = n_inputs
        for _ in range(layers):
            mods += [nn.Linear(width, hidden), ACTIVATIONS[activation]()]
            width = hidden
        mods.append(nn.Linear(width, len(OUTPUTS)))
        self.body = nn.Sequential(*mods)
        self.shape = {"n_inputs": n_inputs, "hidden": hidden, "layers": layers, "activation": activation}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """[N, n_inputs] -> [N, 5] probabilities."""
        return torch.sigmoid(self.body(x))


PHASES = {"single": ("all",), "contact_race": ("contact", "race")}


class PhasedNet(nn.Module):
    """One net per position class, picked per afterstate by the feature set's class unit.

    Class rule (features/expert.py): unit `class_unit` is 1 in a race (no contact left), 0
    otherwise; phases = ("contact", "race") and net k evaluates the rows of class k. The class is
    read from the features themselves, so every consumer of the [N, F] -> [N, 5] interface
    (ONNX, TorchScript, the NumPy inference) picks the same net without extra inputs.
    `forward` evaluates both nets and selects (simple to export); `forward_routed` runs each
    net on its own rows only (self-play and training use it: half the work).
    """

    def __init__(self, n_inputs: int, class_unit: int, hidden: int = 80, layers: int = 1,
                 activation: str = "sigmoid", phases=("contact", "race")):
        super().__init__()
        if tuple(phases) != PHASES["contact_race"]:
            raise ValueError(f"model.phases={list(phases)}: only {list(PHASES['contact_race'])} is known")
        if not 0 <= int(class_unit) < n_inputs:
            raise ValueError(f"class unit {class_unit} is not an input of a {n_inputs}-input net")
        self.class_unit = int(class_unit)
        self.nets = nn.ModuleList([EvalNet(n_inputs, hidden, layers, activation) for _ in phases])
        self.shape = {"n_inputs": n_inputs, "hidden": hidden, "layers": layers, "activation": activation,
                      "phases": list(phases), "class_unit": self.class_unit}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        race = (x[:, self.class_unit] > 0.5).unsqueeze(1)
        outs = [net(x) for net in self.nets]
        return torch.where(race, outs[1], outs[0])

    def forward_routed(self, x: torch.Tensor) -> torch.Tensor:
        race = x[:, self.class_unit] > 0.5
        n_race = int(race.sum())
        if n_race == 0:
            return self.nets[0](x)
        if n_race == x.shape[0]:
            return self.nets[1](x)
        out = x.new_empty((x.shape[0], len(OUTPUTS)))
        idx_r = torch.nonzero(race).squeeze(1)
        idx_c = torch.nonzero(~race).squeeze(1)
        out = out.index_copy(0, idx_c, self.nets[0](x[idx_c]))
        return out.index_copy(0, idx_r, self.nets[1](x[idx_r]))


class EnsembleNet(nn.Module):
    """Several trained nets scoring as one: the output is the mean of the members' outputs,
    each made cumulative first (cumulative(): what play reads of a single net, so the ensemble
    is the average of what its members would play by, and its mean is cumulative already).

    Members are EvalNets or PhasedNets reading the same inputs (same n_inputs; their hidden
    sizes, layers and phases may differ). Averaging independently trained nets cuts the part
    of their errors that is independent, at N times the forward passes. `forward` runs every
    member's forward (what ONNX / TorchScript export); `forward_routed` every member's routed
    pass (each phase net on its own rows). The members live in `members`, not `nets`: code that
    recognises a PhasedNet by its `nets` must not take an ensemble for one.
    shape: {"ensemble": [member shapes], "n_inputs": n} plus "bearoff" when a member uses the
    bear-off database (a member that learnt no bear-off values must not be asked for them).
    """

    def __init__(self, members):
        super().__init__()
        members = list(members)
        if len(members) < 2:
            raise ValueError(f"an ensemble needs at least 2 member nets, got {len(members)}")
        for m in members:
            if not isinstance(m, (EvalNet, PhasedNet)):
                raise ValueError(f"ensemble members must be EvalNet or PhasedNet, not {type(m).__name__}")
        widths = [int(m.shape["n_inputs"]) for m in members]
        if len(set(widths)) != 1:
            raise ValueError(f"ensemble members must read the same inputs; their n_inputs are {widths}")
        tags = sorted({m.shape["bearoff"] for m in members if m.shape.get("bearoff")})
        if len(tags) > 1:
            raise ValueError(f"ensemble members use different bear-off databases: {', '.join(tags)}")
        self.members = nn.ModuleList(members)
        self.n_members = len(members)
        self.shape = {"ensemble": [dict(m.shape) for m in members], "n_inputs": widths[0]}
        if tags:
            self.shape["bearoff"] = tags[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """[N, n_inputs] -> [N, 5]: the mean of the members' (cumulative) outputs."""
        total = torch.zeros(x.shape[0], 5, dtype=x.dtype, device=x.device)
        for m in self.members:
            total = total + cumulative(m(x))
        return total / self.n_members

    def forward_routed(self, x: torch.Tensor) -> torch.Tensor:
        """The same mean, each member's phase nets run on their own rows only."""
        return mean_cumulative(routed(m, x) for m in self.members)


def mean_cumulative(outputs) -> torch.Tensor:
    """The ensemble rule outside `forward` (which stays TorchScript-able): the mean of the
    members' outputs, each made cumulative first (forward_routed, the packed path)."""
    total, n = None, 0
    for y in outputs:
        c = cumulative(y)
        total, n = (c if total is None else total + c), n + 1
    return total / n


def net_from_shape(shape: dict) -> nn.Module:
    """The (untrained) net a recorded shape describes: EvalNet, PhasedNet or EnsembleNet."""
    shape = dict(shape)
    shape.pop("bearoff", None)
    if "ensemble" in shape:
        specs = shape.pop("ensemble")
        n_inputs = shape.pop("n_inputs", None)
        if shape:
            raise ValueError(f"unexpected ensemble shape keys: {', '.join(sorted(shape))}")
        if not isinstance(specs, (list, tuple)):
            raise ValueError("an ensemble shape lists its members' shapes")
        members = []
        for spec in specs:
            if not isinstance(spec, dict) or "ensemble" in spec:
                raise ValueError(f"ensemble member shape {spec!r} is not an EvalNet or PhasedNet shape")
            m = net_from_shape(spec)
            if spec.get("bearoff"):
                m.shape["bearoff"] = spec["bearoff"]
            members.append(m)
        net = EnsembleNet(members)
        if n_inputs is not None and int(n_inputs) != net.shape["n_inputs"]:
            raise ValueError(f"ensemble shape says {n_inputs} inputs, its members read {net.shape['n_inputs']}")
        return net
    if "phases" in shape:
        return PhasedNet(**shape)
    return EvalNet(**shape)


def build_net(n_inputs: int, model_cfg, feature_set=None) -> nn.Module:
    """The net model_cfg asks for (model.phases: single | contact_race; model.bearoff)."""
    hidden, layers = int(model_cfg["hidden"]), int(model_cfg["layers"])
    activation = str(model_cfg["activation"])
    phases = str(model_cfg.get("phases", "single") or "single")
    has_class = getattr(feature_set, "class_unit", None) is not None
    if phases == "auto":
        phases = "contact_race" if has_class else "single"
    if phases not in PHASES:
        raise ValueError(f"model.phases={phases!r}: expected one of {', '.join(PHASES)}")
    if phases == "single":
        net = EvalNet(n_inputs, hidden=hidden, layers=layers, activation=activation)
    else:
        unit = getattr(feature_set, "class_unit", None)
        if unit is None:
            name = getattr(feature_set, "name", "?")
            raise ValueError(f"model.phases={phases}: feature set {name!r} has no position-class unit "
                             f"(use model.features=expert)")
        net = PhasedNet(n_inputs, unit, hidden=hidden, layers=layers, activation=activation)
    bearoff = model_cfg.get("bearoff", False)
    fits = feature_set is not None and set(feature_set.variants) <= {"standard", "nackgammon"}
    if bearoff == "auto":
        bearoff = fits
    if bearoff:
        if not fits:
            raise ValueError("model.bearoff=true needs a standard/nackgammon feature set")
        net.shape["bearoff"] = BEAROFF_TAG
    return net


BEAROFF_TAG = "onesided-15x6-v1"   # exact one-sided bear-off database (engine/bearoff.py)


def weights_key(layer: nn.Linear) -> tuple:
    """What identifies the current values of a layer's weight and bias: their storage and their
    version counters (an optimiser step changes them in place and moves the counters). Caches
    of values derived from a layer (packed tables, bfloat16 copies) are keyed by it."""
    w, b = layer.weight, layer.bias
    return (w._version, w.data_ptr(), b._version, b.data_ptr())


def routed(net: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """net(x), each phase net on its own rows when the net has phases."""
    f = getattr(net, "forward_routed", None)
    return f(x) if f is not None else net(x)


def cumulative(p: torch.Tensor) -> torch.Tensor:
    """Outputs made consistent: p_wbg <= p_wg <= p_win and p_lbg <= p_lg <= 1 - p_win (a net
    trained output by output can break these slightly; play reads the clamped values)."""
    win = p[..., 0]
    wg = torch.minimum(p[..., 1], win)
    wbg = torch.minimum(p[..., 2], wg)
    lg = torch.minimum(p[..., 3], 1 - win)
    lbg = torch.minimum(p[..., 4], lg)
    return torch.stack([win, wg, wbg, lg, lbg], dim=-1)


def swap_perspective(p):
    """The same outcome probabilities seen from the other player (numpy or torch)."""
    if isinstance(p, torch.Tensor):
        return torch.stack([1 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], dim=-1)
    return swap_perspective_np(p)
