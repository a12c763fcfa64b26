"""TD(lambda) targets for finished self-play games, and the update they drive.

Tesauro's online rule changes the weights after every move:
    w += alpha * (Y[t+1] - Y[t]) * sum_{k<=t} lambda^(t-k) * grad Y[k]
(an eligibility trace per game). Summed over a game with the weights held fixed, that is
exactly the forward view (Sutton & Barto, ch. 12):
    w += alpha * sum_t (G[t] - Y[t]) * grad Y[t],
    G[t] = (1 - lambda) * Y[t+1] + lambda * G[t+1],   G at the final position = the real result.
B games in lockstep make per-game traces costly (a gradient per game per step), so abak-rl uses
the forward view: when a game ends, its lambda-returns G[t] are computed from the probabilities
the net gave each afterstate when it was played (exactly the Y[t+1] the online rule would have
used at that moment) and the real result (single/gammon/backgammon, through the 5 outputs); the
(afterstate, G) pairs join a queue, and each gradient step takes the oldest `batch` of them and
minimises 0.5 * sum_outputs (Y - G)^2, averaged over the batch: the same direction as Tesauro's
rule, with a per-sample step of lr / batch for SGD. lambda = 0 gives TD(0) (G[t] = Y[t+1]);
lambda = 1 gives Monte Carlo (G[t] = the result). What differs from the online rule: the weights
move between play and update (by a few steps), and states are averaged in minibatches.

Perspective: each Y[t] is seen from the player who made afterstate t. The next afterstate was
made by the other player (unless this one rolls again), so values are converted with
swap_perspective, an affine involution; since the lambda-weights sum to 1, converting every
value to one fixed player's view, filtering, and converting back is exact. That turns the
backward recursion into one matrix product per batch of finished games.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd.graph import increment_version

from ..model.net import routed, swap_perspective
from . import td_compiled
from .config import LOSSES


@lru_cache(maxsize=1024)
def _return_matrix(lam: float, T: int) -> np.ndarray:
    """M[t, k]: weight of value k in the lambda-return of state t, for a padded game of T
    values whose last column holds the result (every column past the end holds it too)."""
    t, k = np.arange(T)[:, None], np.arange(T)[None, :]
    d = np.maximum(k - t - 1, 0)
    M = np.where(k > t, (1 - lam) * lam ** d, 0.0)
    M[:-1, -1] = lam ** (T - 2 - np.arange(T - 1))   # the result takes all the remaining weight
    return M


def lambda_returns(probs: np.ndarray, again: np.ndarray, length: np.ndarray, lam: float) -> np.ndarray:
    """lambda-returns [G, T, 5] of finished games (valid for t < length - 1).

    probs [G, T, 5]: each afterstate's probabilities from its mover's view, the last one
    (t = length - 1) the exact result; again [G, T]: afterstate t's mover also made t + 1.
    The compiled recursion (train/td_compiled.py) when Numba is there, else the NumPy form.
    """
    if td_compiled.AVAILABLE:
        return td_compiled.lambda_returns(probs, again, length, lam)
    return lambda_returns_numpy(probs, again, length, lam)


def lambda_returns_numpy(probs: np.ndarray, again: np.ndarray, length: np.ndarray, lam: float) -> np.ndarray:
    """lambda_returns as array passes: every value converted to afterstate 0's mover's view,
    one product with the [T, T] weight matrix, converted back."""
    G, T, _ = probs.shape
    t = np.arange(T)
    # view of afterstate t relative to afterstate 0's mover: flips on every change of mover
    changes = np.concatenate([np.zeros((G, 1), np.int64), np.cumsum(~again[:, :-1], axis=1)], axis=1)
    side = (changes % 2).astype(bool)
    last = length - 1
    # pad past the end with the result (and its side)
    idx = np.minimum(t[None, :], last[:, None])
    p = np.take_along_axis(probs, idx[..., None], axis=1).astype(np.float64)
    side = np.take_along_axis(side, idx, axis=1)
    absolute = np.where(side[..., None], swap_perspective(p), p)
    ret = np.einsum("tk,gkc->gtc", _return_matrix(float(lam), T), absolute)
    return np.where(side[..., None], swap_perspective(ret), ret).astype(np.float32)


class SampleQueue:
    """(afterstate, again flag, target) triples waiting for a gradient step, oldest first."""

    def __init__(self, width: int, skip=None):
        self.skip = skip                       # boards -> bool mask of rows not to train on
        self.feats = None                      # [N, F] features of the rows, when all have them
        self.boards = np.zeros((0, width), dtype=np.int8)
        self.again = np.zeros(0, dtype=bool)
        self.target = np.zeros((0, 5), dtype=np.float32)

    def __len__(self) -> int:
        return self.boards.shape[0]

    def push_games(self, games, lam: float) -> None:
        """Add every non-final afterstate of the finished games with its lambda-return."""
        if games.length.size == 0:
            return
        ret = lambda_returns(games.probs, games.again, games.length, lam)
        T = games.probs.shape[1]
        keep = np.arange(T)[None, :] < (games.length - 1)[:, None]
        if self.skip is not None:              # exactly known values (bear-off database)
            keep[keep] = ~self.skip(games.boards[keep])
        if games.feats is not None and (self.feats is not None or len(self) == 0):
            new = games.feats[keep]
            self.feats = new if self.feats is None else np.concatenate([self.feats, new])
        else:                                  # some rows lack features: encode at update time
            self.feats = None
        self.boards = np.concatenate([self.boards, games.boards[keep]])
        self.again = np.concatenate([self.again, games.again[keep]])
        self.target = np.concatenate([self.target, ret[keep]])

    def pop(self, n: int):
        """(boards, again, target, features or None) of the n oldest samples."""
        feats = None if self.feats is None else self.feats[:n]
        out = self.boards[:n], self.again[:n], self.target[:n], feats
        self.boards, self.again, self.target = self.boards[n:], self.again[n:], self.target[n:]
        if self.feats is not None:
            self.feats = self.feats[n:]
        return out

    def state_dict(self) -> dict:
        return {"boards": self.boards.copy(), "again": self.again.copy(), "target": self.target.copy()}

    def load_state_dict(self, d: dict) -> None:
        self.boards = np.asarray(d["boards"], dtype=np.int8)
        self.again = np.asarray(d["again"], dtype=bool)
        self.target = np.asarray(d["target"], dtype=np.float32)
        self.feats = None                      # recomputed from the boards at update time


def ply1_targets(scorer, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    """The current net's 1-ply values of afterstates: every roll of the next player answered by
    its best 0-ply play, averaged (agents/search.py; exact where known, as in play)."""
    from ..agents.search import Search
    return Search(scorer.probs, scorer.variant).values(boards, again, 1).astype(np.float32)


def mix_ply1(scorer, boards: np.ndarray, again: np.ndarray, target: np.ndarray,
             fraction: float, weight: float) -> np.ndarray:
    """Targets with the first round(fraction * N) rows moved toward the net's 1-ply value:
    (1 - weight) * lambda-return + weight * 1-ply. A fixed share of every batch (not a random
    one), so a resumed run picks the same rows."""
    k = int(round(fraction * boards.shape[0]))
    if k <= 0 or weight <= 0:
        return target
    target = target.copy()
    target[:k] = (1 - weight) * target[:k] + weight * ply1_targets(scorer, boards[:k], again[:k])
    return target


def td_update(scorer, optimizer, boards: np.ndarray, again: np.ndarray, target: np.ndarray,
              x: np.ndarray | None = None, *, lr: float, grad_clip: float | None = None,
              ply1: tuple[float, float] = (0.0, 1.0), loss: str = "mse") -> float:
    """One gradient step towards the targets; returns the loss.

    loss (train.loss): "mse", the squared TD error / 2 summed over the five outputs (TD-Gammon's);
    or "bce", the cross-entropy of each output's probability against its target (a soft label
    in [0, 1]), whose gradient at the output's logit is the plain error p - target, without the
    sigmoid's p(1 - p) that shrinks the rare outcomes' (gammons, backgammons) steps under "mse".

    ply1 = (fraction, weight): that share of the batch learns toward the net's 1-ply value
    instead of (weight < 1: as well as) its lambda-return (train.ply1_fraction, ply1_weight).
    x: the samples' features when self-play kept them (else they are encoded here)."""
    if ply1[0] > 0:
        target = mix_ply1(scorer, boards, again, target, float(ply1[0]), float(ply1[1]))
    for group in optimizer.param_groups:
        group["lr"] = lr
    if x is None:
        x = scorer.features_tensor(boards, again)
    else:
        x = torch.from_numpy(scorer.dense(x)).to(scorer.device, non_blocking=True)
    y = routed(scorer.net, x)
    t = torch.from_numpy(target).to(y.device)
    if loss not in LOSSES:
        raise ValueError(f"train.loss must be {' or '.join(LOSSES)}, got {loss!r}")
    if loss == "bce":
        value = F.binary_cross_entropy(y, t.clamp(0.0, 1.0), reduction="none").sum(-1).mean()
    else:
        value = 0.5 * ((y - t) ** 2).sum(-1).mean()
    optimizer.zero_grad(set_to_none=True)
    value.backward()
    if grad_clip:
        torch.nn.utils.clip_grad_norm_(scorer.net.parameters(), grad_clip)
    optimizer.step()
    mark_updated(optimizer)
    return float(value.detach())


def mark_updated(optimizer) -> None:
    """Bump the version counter of every weight the step changed. A fused optimizer writes the
    weights without bumping it, and caches keyed on it (the packed first layer's tables, the
    Ray executor's published weights) would go on serving the old weights."""
    for group in optimizer.param_groups:
        if group.get("fused"):
            for p in group["params"]:
                increment_version(p)
