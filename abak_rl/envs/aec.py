"""A PettingZoo AEC environment for one game of any variant, played a movement at a time.

Two agents, `player_0` and `player_1` (seats 0 and 1); chance (the dice) is inside the
environment, from engine.dice's streams: reset(seed=s) plays game id 0 of stream s, and each
later reset() without a seed the next game id, so a run replays exactly. Layout of actions and
observations: docs/envs.md.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.variants import get_variant
from ..features import feature_set_for
from .actions import describe_action
from .core import Lockstep


def observation_space(variant, fs, n_actions: int) -> spaces.Dict:
    """Per agent: features, the raw board row and the dice left (all seen from that agent),
    and the mask of legal actions (all zero while the other agent is to move)."""
    return spaces.Dict({
        "observation": spaces.Box(-np.inf, np.inf, (fs.size,), np.float32),
        "board": spaces.Box(-128, 127, (variant.width,), np.int8),
        "dice": spaces.Box(0, 6, (4,), np.int8),
        "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
    })


class BackgammonAEC(AECEnv):
    """make_aec(variant, **options): see the module docstring and docs/envs.md."""

    metadata = {"render_modes": ["ansi", "human"], "name": "abak_rl_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "standard", render_mode: str | None = None,
                 max_turns: int = 5000, feature_set: str = "auto", **variant_options):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.variant = get_variant(variant, **variant_options)
        self.features = feature_set_for(self.variant.name, feature_set)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"abak_rl_{variant}_v0",
                             variant=variant, feature_set=self.features.describe())
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        self._core = Lockstep(self.variant, 1, max_turns=max_turns)
        self._action_space = spaces.Discrete(self._core.n_actions)
        self._obs_space = observation_space(self.variant, self.features, self._core.n_actions)
        self._seed, self._game = None, -1
        self._features_of: dict = {}

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed, self._game = int(seed), -1
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().entropy % (1 << 63))
        self._game += 1
        self._core.seed = self._seed
        self._core.reset(np.array([0]), np.array([self._game]))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self._core.mover[0])]

    def observe(self, agent):
        c = self._core
        seat = self.possible_agents.index(agent)
        mine = seat == int(c.mover[0]) and not c.done[0]
        board = c.board[:1] if seat == int(c.mover[0]) else self.variant.flip(c.board[:1])
        key = board.tobytes()
        if key not in self._features_of:   # observe() is asked several times per position
            if len(self._features_of) > 8:
                self._features_of.clear()
            self._features_of[key] = self.features.encode(board)[0].astype(np.float32)
        return {
            "observation": self._features_of[key].copy(),
            "board": board[0].copy(),
            "dice": c.left[0].copy() if mine else np.zeros(4, np.int8),
            "action_mask": (c.masks()[0] if mine else np.zeros(c.n_actions, bool)).astype(np.int8),
        }

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        c = self._core
        c.step(np.array([0]), np.array([int(action)]))
        if c.done[0]:
            if c.truncated[0]:
                self.truncations = {a: True for a in self.agents}
            else:
                win = int(c.winner[0])
                for s, a in enumerate(self.possible_agents):
                    self.rewards[a] = int(c.points[0]) * (1 if s == win else -1)
                self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[int(c.mover[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def legal_actions(self) -> list[str]:
        """The legal actions of the agent to move, by name (for people and debugging)."""
        m = self._core.masks()[0]
        return [describe_action(self.variant, a) for a in np.flatnonzero(m)]

    def render(self):
        from ..io.diagram import diagram
        c = self._core
        names = ("player_0", "player_1") if c.mover[0] == 0 else ("player_1", "player_0")
        dice = None if c.done[0] else tuple(int(x) for x in c.dice[0])
        return diagram(c.board[0], self.variant.name, dice=dice, names=names)

    def close(self):
        pass


def make_aec(variant: str = "standard", **options) -> BackgammonAEC:
    """A PettingZoo AEC environment for `variant` (standard, nackgammon, acey_deucey, abak).

    options: render_mode ('ansi' or 'human'), max_turns (truncation; default 5000),
    feature_set (default 'auto': the variant's default) and the variant's own options
    (start=<layout>, enter_all_before_moving=<bool>)."""
    return BackgammonAEC(variant, **options)
