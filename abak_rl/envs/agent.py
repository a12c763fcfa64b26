"""MovementAgent: a policy over movement actions (what the environments train) as an Agent with
the project's choose() interface, so `abak-rl evaluate` and tournaments can play it."""

from __future__ import annotations

import numpy as np

from ..features import feature_set_for
from .core import Lockstep


class MovementAgent:
    """policy(obs, mask) -> actions, for a batch: obs as the vector environment gives it
    ({"observation", "board", "dice", "seat"}, arrays over the batch), mask bool [n, actions].
    Each turn is played movement by movement from the masks; the afterstate reached is returned
    as the row of `after` it equals."""

    def __init__(self, policy, name: str = "movement-policy", feature_set: str = "auto"):
        self.policy, self.name, self.feature_set = policy, name, feature_set

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after) -> np.ndarray:
        n = before.shape[0]
        core = Lockstep(variant, n, one_turn=True)
        fs = feature_set_for(variant.name, self.feature_set)
        core.set_turn(np.arange(n), before, dice)
        for _ in range(16):           # a turn is at most 6 movements (Acey-deucey's 1-2) + a pass
            live = np.flatnonzero(~core.done)
            if live.size == 0:
                break
            obs = {"observation": fs.encode(core.board[live]).astype(np.float32),
                   "board": core.board[live].copy(), "dice": core.left[live].copy(),
                   "seat": np.zeros(live.size, np.int64)}
            acts = np.asarray(self.policy(obs, core.masks()[live]), dtype=np.int64)
            core.step(live, acts)
        rows = np.ascontiguousarray(after.boards)
        same = (rows == core.board[after.parent]).all(axis=1)
        pick = np.full(n, -1, np.int64)
        hits = np.flatnonzero(same)
        pick[after.parent[hits[::-1]]] = hits[::-1]       # the first matching row of each position
        if (pick < 0).any():
            raise RuntimeError("a movement sequence ended outside the legal afterstates")
        return pick
