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


def build_net(n_inputs: int, model_cfg) -> EvalNet:
    return EvalNet(n_inputs, hidden=int(model_cfg["hidden"]), layers=int(model_cfg["layers"]),
                   activation=str(model_cfg["activation"]))


def swap_perspective(p):
    """The same outcome probabilities seen from the other player (numpy or torch)."""
    if isinstance(p, torch.Tensor):
        return torch.stack([1 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], dim=-1)
    return swap_perspective_np(p)
