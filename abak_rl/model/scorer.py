"""Scores afterstates with a net, in whole batches: features (NumPy) -> one forward pass.

Self-play and the neural agent both go through here, so training and play use one rule:
an afterstate is scored from the player who just moved (see net.py), and an afterstate that
ends the game gets its exact value instead of the net's guess (the result is known, and a net
is never asked to learn it).
"""

from __future__ import annotations

import numpy as np
import torch

from ..engine.common import segment_argmax as segment_best  # one rule for every chooser
from .net import EvalNet, equity, outcome_probs

CHUNK = 65_536  # rows per forward pass: bounds memory on Acey-deucey's huge 1-2 fan-outs


def resolve_device(name: str) -> torch.device:
    """'auto' -> cuda when present, else cpu; otherwise the device named."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(name)
    except RuntimeError as e:
        raise ValueError(f"device={name!r}: {e}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={name!r}: CUDA is not available on this machine")
    return dev


class Scorer:
    def __init__(self, net: EvalNet, feature_set, variant, device: torch.device):
        self.net, self.features, self.variant, self.device = net, feature_set, variant, device

    def features_tensor(self, boards: np.ndarray, again: np.ndarray) -> torch.Tensor:
        x = self.features.encode(boards, again)
        return torch.from_numpy(x).to(self.device, non_blocking=True)

    @torch.no_grad()
    def net_probs(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """The net's [N, 5] probabilities (float32), no terminal override."""
        out = np.empty((boards.shape[0], 5), dtype=np.float32)
        for lo in range(0, boards.shape[0], CHUNK):
            hi = min(lo + CHUNK, boards.shape[0])
            out[lo:hi] = self.net(self.features_tensor(boards[lo:hi], again[lo:hi])).cpu().numpy()
        return out

    def probs(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """[N, 5] outcome probabilities of afterstates, exact where the game is over."""
        won = self.variant.winner_points(boards)
        over = won > 0
        out = np.empty((boards.shape[0], 5), dtype=np.float32)
        live = ~over
        if live.all():
            return self.net_probs(boards, again)
        if live.any():
            out[live] = self.net_probs(boards[live], again[live])
        out[over] = outcome_probs(won[over])
        return out


def best_afterstates(scorer: Scorer, after, dice: np.ndarray, n: int):
    """0-ply choice: (chosen row per position, probabilities of every row)."""
    again = scorer.variant.extra_turn(dice)[after.parent]
    p = scorer.probs(after.boards, again)
    return segment_best(equity(p), after.parent, n), p
