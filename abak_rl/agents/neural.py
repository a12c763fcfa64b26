"""The trained net as an Agent: 0-ply (best afterstate by the net), 1-ply or 2-ply search.

0-ply: score every afterstate from the view of the player who moves (model/net.py) and play
the highest equity. 1-ply and 2-ply: agents/search.py, the one search the torch-free exported
model uses too, over this net's Scorer.probs: the next player's 21 rolls (the opponent, or the
same player after Acey-deucey's 1-2), that player's best reply to each (chosen at one ply less),
averaged with weights 1/36 (doubles) and 2/36; GNU Backgammon-style move filters decide which
plays are searched (root: the plays to choose from; reply: the replies inside a 2-ply value),
and an optional screen (a small net's checkpoint) leaves the deepest 0-ply choices' full-net
evaluations to its best few plays.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.common import Afterstates
from ..model.scorer import Scorer, best_afterstates, resolve_device
from .search import REPLY_FILTER, ROLL_WEIGHTS, ROLLS, ROOT_FILTER, Screen, Search, best_of, check_ply, filter_suffix  # noqa: F401


class NeuralAgent:
    def __init__(self, scorer: Scorer, ply: int = 0, name: str = "neural",
                 root=ROOT_FILTER, reply=REPLY_FILTER, screen: Screen | None = None):
        self.scorer, self.ply = scorer, check_ply(ply)
        self.root, self.reply, self.screen = root, reply, screen
        self.name = name if ply == 0 else f"{name}@{ply}ply" + filter_suffix(root, reply)
        if screen is not None and ply > 0:
            self.name += f",screen={screen.name},screen_k={screen.k}"
            if screen.margin is not None:
                self.name += f",screen_margin={format(screen.margin, 'g')}"
        if scorer.precision != "fp32":
            self.name += f",precision={scorer.precision}"

    def search(self) -> Search:
        return Search(self.scorer.probs, self.scorer.variant, root=self.root, reply=self.reply,
                      screen=self.screen)

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates,
               utility=None) -> np.ndarray:
        """Best row of `after` per position by equity, or by utility(probs, parent) -> [m] when
        given (engine/matchplay.py: match-winning chance at the score, engine/cube.py)."""
        n = before.shape[0]
        if variant.name != self.scorer.variant.name:
            raise ValueError(f"agent {self.name} was set up for variant {self.scorer.variant.name!r}, "
                             f"asked to play {variant.name!r}")
        if utility is not None:
            p, searched = self.search().play_values(after, dice, n, self.ply)
            rows = np.flatnonzero(searched)
            return best_of(utility(p[rows], after.parent[rows]), rows, after.parent, n)
        if self.ply == 0:
            return best_afterstates(self.scorer, after, dice, n)[0]
        return self.search().choose(after, dice, n, self.ply)

    def values(self, boards: np.ndarray, again: np.ndarray, ply: int) -> np.ndarray:
        """[N, 5] float64 ply-level probabilities of afterstates (mover's view), every row searched."""
        return self.search().values(boards, again, check_ply(ply))

    def one_ply_probs(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """[N, 5] probabilities of afterstates (mover's view) averaged over the next roll."""
        return self.values(boards, again, 1)


def load_neural_agent(path: str | Path, variant, ply: int = 0, device: str = "cpu",
                      root=ROOT_FILTER, reply=REPLY_FILTER, precision: str = "fp32",
                      screen: str | Path | None = None, screen_k: int = 8,
                      screen_margin: float | None = None) -> NeuralAgent:
    """An Agent playing the net in checkpoint `path` (a file, or a run folder's latest.pt).

    variant: a variant object or name; the checkpoint's feature set must describe it (a net
    trained on standard also plays nackgammon; abak needs an abak-trained net).
    root / reply: the move filters of the search at ply >= 1 (agents/search.py).
    precision: "fp32", or "bf16" for the hidden layers in bfloat16 (model/bf16.py; faster search).
    screen / screen_k: a small net's checkpoint that screens the deepest 0-ply choices of the
    search, the full net valuing only its best screen_k (agents/search.Screen; ply >= 1), and
    with screen_margin only those within that equity of the screen's best.
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
    sieve = None
    if screen is not None:
        small = load_neural_agent(screen, variant, device=device).scorer
        sieve = Screen(small.probs, screen_k, name=str(screen), margin=screen_margin)
    return NeuralAgent(Scorer(net, fs, variant, dev, precision), ply=ply, name=f"checkpoint:{Path(data['path']).stem}",
                       root=root, reply=reply, screen=sieve)
