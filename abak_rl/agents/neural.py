"""The trained net as an Agent: 0-ply (best afterstate by the net) or 1-ply (expectimax).

0-ply: score every afterstate from the view of the player who moves (model/net.py) and play
the highest equity. 1-ply: for every afterstate, look at all 21 rolls of the next player (the
opponent, or the same player after Acey-deucey's 1-2), let that player answer each roll with
its own 0-ply best play, and average the resulting probabilities over the rolls (1/36 for a
double, 2/36 for the others); play the highest expected equity. All candidates x 21 rolls go
through the move generator and the net in batches.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.common import Afterstates
from ..model.net import equity, outcome_probs, swap_perspective
from ..model.scorer import Scorer, best_afterstates, resolve_device, segment_best

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1 / 36, 2 / 36)
ONE_PLY_CHUNK = 2048   # afterstates expanded at once (x 21 rolls)


class NeuralAgent:
    def __init__(self, scorer: Scorer, ply: int = 0, name: str = "neural"):
        if ply not in (0, 1):
            raise ValueError(f"ply must be 0 or 1, got {ply!r}")
        self.scorer, self.ply = scorer, ply
        self.name = name if ply == 0 else f"{name}@1ply"

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        n = before.shape[0]
        if variant.name != self.scorer.variant.name:
            raise ValueError(f"agent {self.name} was set up for variant {self.scorer.variant.name!r}, "
                             f"asked to play {variant.name!r}")
        if self.ply == 0:
            return best_afterstates(self.scorer, after, dice, n)[0]
        again = variant.extra_turn(dice)[after.parent]
        return segment_best(equity(self.one_ply_probs(after.boards, again)), after.parent, n)

    def one_ply_probs(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """[N, 5] probabilities of afterstates (mover's view) averaged over the next roll."""
        v = self.scorer.variant
        won = v.winner_points(boards)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        out[won > 0] = outcome_probs(won[won > 0])
        live = np.flatnonzero(won == 0)
        for lo in range(0, live.size, ONE_PLY_CHUNK):
            rows = live[lo:lo + ONE_PLY_CHUNK]
            k = rows.size
            nxt = np.where(again[rows, None], boards[rows], v.flip(boards[rows]))
            pos = np.repeat(nxt, len(ROLLS), axis=0)
            rolls = np.tile(ROLLS, (k, 1))
            ch = v.legal_afterstates(pos, rolls)
            best, p = best_afterstates(self.scorer, ch, rolls, k * len(ROLLS))
            reply = p[best].reshape(k, len(ROLLS), 5).astype(np.float64)
            reply = np.where(again[rows, None, None], reply, swap_perspective(reply))
            out[rows] = (reply * ROLL_WEIGHTS[None, :, None]).sum(1)
        return out


def load_neural_agent(path: str | Path, variant, ply: int = 0, device: str = "cpu") -> NeuralAgent:
    """An Agent playing the net in checkpoint `path` (a file, or a run folder's latest.pt).

    variant: a variant object or name; the checkpoint's feature set must describe it (a net
    trained on standard also plays nackgammon; abak needs an abak-trained net).
    """
    from ..engine.variants import get_variant
    from ..features import get_feature_set
    from ..train.checkpoint import CheckpointError, build_net_from, load_checkpoint
    if isinstance(variant, str):
        variant = get_variant(variant)
    data = load_checkpoint(path)
    rec = data["features"]
    try:
        fs = get_feature_set(rec["name"])
    except ValueError as e:
        raise CheckpointError(f"checkpoint {data['path']}: {e}") from None
    if variant.name not in fs.variants:
        raise CheckpointError(f"checkpoint {data['path']} was trained on {data['variant']!r} with feature "
                              f"set {rec['name']!r}, which cannot describe variant {variant.name!r}")
    net = build_net_from(data, fs)
    dev = resolve_device(device)
    net.to(dev).eval()
    return NeuralAgent(Scorer(net, fs, variant, dev), ply=ply, name=f"checkpoint:{Path(data['path']).stem}")
