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
from ..engine.common import segment_top_k
from .net import cumulative, equity, outcome_probs, routed

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
    """net + feature set + variant. With a net whose shape names a bear-off database
    (model.bearoff=true), bear-off positions get the database's exact values, not the net's.
    precision: "fp32", or "bf16" for inference with the hidden layers in bfloat16 (model/bf16.py:
    about twice as fast in deep search, outputs within about 1e-4; never for training)."""

    def __init__(self, net, feature_set, variant, device: torch.device, precision: str = "fp32"):
        from .bf16 import check_precision
        self.net, self.features, self.variant, self.device = net, feature_set, variant, device
        self.precision = check_precision(precision)
        self.bearoff = bool(getattr(net, "shape", {}).get("bearoff")) and variant.name in ("standard", "nackgammon")
        from .packed import supports
        # packed feature rows (features.Packing): the first layer is a sum of table rows
        self.packing = feature_set.packing if feature_set.packing is not None and supports(net) else None

    @property
    def stored_width(self) -> int:
        """Width of the feature rows self-play keeps for learning (packed when it can)."""
        return self.packing.size if self.packing is not None else self.features.size

    def stored_encode(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """The rows self-play keeps: packed when the feature set packs, else dense."""
        if self.packing is not None:
            return self.packing.pack(boards, again)
        return self.features.encode(boards, again)

    def dense(self, stored: np.ndarray) -> np.ndarray:
        """Dense features of rows from stored_encode (what the net is trained on)."""
        return self.packing.unpack(stored) if self.packing is not None else stored

    def exact_mask(self, boards: np.ndarray) -> np.ndarray:
        """Rows whose value is known without the net: the game is over, or (with the database)
        a bear-off position. These are never trained on."""
        over = self.variant.winner_points(boards) > 0
        if self.bearoff:
            from ..engine.bearoff import is_bearoff
            over = over | is_bearoff(boards)
        return over

    def features_tensor(self, boards: np.ndarray, again: np.ndarray) -> torch.Tensor:
        x = self.features.encode(boards, again)
        return torch.from_numpy(x).to(self.device, non_blocking=True)

    @torch.inference_mode()
    def net_probs(self, boards: np.ndarray, again: np.ndarray, keep: list | None = None) -> np.ndarray:
        """The net's [N, 5] probabilities (float32, made cumulative), no exact override.

        keep: a list that receives the features of the rows when they fit in one chunk (self-play
        reuses them for learning instead of encoding the played afterstates again)."""
        out = np.empty((boards.shape[0], 5), dtype=np.float32)
        if self.packing is not None:
            from .packed import packed_forward
            for lo in range(0, boards.shape[0], CHUNK):
                hi = min(lo + CHUNK, boards.shape[0])
                x = self.packing.pack(boards[lo:hi], again[lo:hi])
                if keep is not None and hi - lo == boards.shape[0]:
                    keep.append(x)
                out[lo:hi] = cumulative(packed_forward(self.net, self.packing, x, self.device,
                                                       self.precision == "bf16")).cpu().numpy()
            return out
        unit = getattr(self.net, "shape", {}).get("class_unit") if hasattr(self.net, "nets") else None
        for lo in range(0, boards.shape[0], CHUNK):
            hi = min(lo + CHUNK, boards.shape[0])
            x = self.features.encode(boards[lo:hi], again[lo:hi])
            if keep is not None and hi - lo == boards.shape[0]:
                keep.append(x)
            if unit is None:
                out[lo:hi] = self._forward(self.net, x)
                continue
            race = x[:, unit] > 0.5        # phase nets: split the rows in NumPy (cheaper than torch)
            part = out[lo:hi]
            for k, rows in enumerate((~race, race)):
                if rows.all():
                    part[:] = self._forward(self.net.nets[k], x)
                elif rows.any():              # (np.compress copies the rows faster than x[rows])
                    part[rows] = self._forward(self.net.nets[k], np.compress(rows, x, axis=0))
        return out

    def _forward(self, net, x: np.ndarray) -> np.ndarray:
        # routed: an EnsembleNet (members in .members, no .nets) runs its phase nets on their rows
        x = torch.from_numpy(x).to(self.device, non_blocking=True)
        if self.precision == "bf16":
            from .bf16 import forward_bf16
            y = forward_bf16(net, x)
        else:
            y = routed(net, x)
        return cumulative(y).cpu().numpy()

    def probs(self, boards: np.ndarray, again: np.ndarray, keep: dict | None = None) -> np.ndarray:
        """[N, 5] outcome probabilities of afterstates: exact where the game is over (and in
        bear-off positions when the net uses the database), the net's elsewhere.

        keep: a dict that receives "live" (bool [N], rows the net scored) and "x" (their
        features, or None when they did not fit in one chunk)."""
        won = self.variant.winner_points(boards)
        over = won > 0
        db = np.zeros_like(over)
        if self.bearoff:
            from ..engine.bearoff import is_bearoff
            db = is_bearoff(boards) & ~over
        live = ~(over | db)
        feats: list | None = [] if keep is not None else None
        if keep is not None:
            keep["live"] = live
        if live.all():
            out = self.net_probs(boards, again, feats)
        else:
            out = np.empty((boards.shape[0], 5), dtype=np.float32)
            if live.any():                   # (np.compress copies rows faster than a mask index)
                out[live] = self.net_probs(np.compress(live, boards, axis=0), again[live], feats)
        if keep is not None:
            keep["x"] = feats[0] if feats else None
        if live.all():
            return out
        out[over] = outcome_probs(won[over])
        if db.any():
            from ..engine.bearoff import bearoff_probs
            out[db] = bearoff_probs(boards[db])
        return out


def one_two_filter(scorer: Scorer, k: int):
    """Acey-deucey's 1-2 choice pruned to the k best 1-2 plays (train.one_two_top_k), as an
    engine one_two_filter.

    A 1-2 continues with a double of the mover's choice: the union can reach 10^5 afterstates,
    while the 1-2 plays are tens. They are scored as afterstates after which the mover moves
    again (the turn units say so), the k best kept, and only their six doubles generated and
    scored: about k / (number of 1-2 plays) of the work (docs/training.md has the measured
    agreement with the full choice)."""
    def best_k(boards: np.ndarray, parent: np.ndarray) -> np.ndarray:
        e = equity(scorer.probs(boards, np.ones(boards.shape[0], dtype=bool)))
        return segment_top_k(e, parent, k)
    return best_k


def candidate_afterstates(variant, scorer: Scorer, boards: np.ndarray, dice: np.ndarray,
                          one_two_k: int = 0):
    """The afterstates a 0-ply chooser scores: every legal one, except that with one_two_k > 0
    Acey-deucey's 1-2 offers only those under its one_two_k best 1-2 plays (one_two_filter)."""
    if one_two_k <= 0 or not getattr(variant, "acey_deucey", False):
        return variant.legal_afterstates(boards, dice)
    return variant.legal_afterstates(boards, dice, one_two_filter=one_two_filter(scorer, one_two_k))


def best_afterstates(scorer: Scorer, after, dice: np.ndarray, n: int, keep: dict | None = None):
    """0-ply choice: (chosen row per position, probabilities of every row); keep as in probs()."""
    again = scorer.variant.extra_turn(dice)[after.parent]
    p = scorer.probs(after.boards, again, keep)
    return segment_best(equity(p), after.parent, n), p


def chosen_features(keep: dict, chosen: np.ndarray, n_features: int) -> np.ndarray | None:
    """Features [len(chosen), F] of the chosen rows from a probs(keep=...) call (zeros for rows
    the net did not score: finished games, bear-offs, which are never trained on), or None when
    the features were not kept."""
    if keep.get("x") is None and keep["live"].any():
        return None
    live = keep["live"]
    out = np.zeros((chosen.size, n_features), dtype=np.float32)
    pos = np.cumsum(live) - 1                 # row -> its index among the live rows
    ok = live[chosen]
    if ok.any():
        out[ok] = keep["x"][pos[chosen[ok]]]
    return out
