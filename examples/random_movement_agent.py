"""A user-code agent for `abak-rl evaluate agent=python:examples.random_movement_agent:RandomMovements`.

Any class whose objects have choose(variant, before, dice, after) works (engine.game.Agent); its
constructor may take variant= and seed=. This one plays each turn one checker movement at a time,
uniformly among the legal movements (envs.MovementAgent): a different distribution over plays
than the `random` bot's uniform choice among afterstates.
"""

import numpy as np

from abak_rl.envs.agent import MovementAgent


class RandomMovements(MovementAgent):
    def __init__(self, seed: int = 0):
        rng = np.random.default_rng(seed)
        super().__init__(lambda obs, mask: (rng.random(mask.shape) * mask).argmax(axis=1),
                         name="random-movements")
