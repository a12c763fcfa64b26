"""The random bot: a uniformly random legal play (the weakest baseline)."""

from __future__ import annotations

import numpy as np

from ..engine.common import Afterstates, segment_random


class RandomAgent:
    def __init__(self, seed: int = 0):
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        n = before.shape[0]
        return segment_random(self.rng.random(n), after.parent, n)
