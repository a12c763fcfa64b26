"""Gymnasium environments over the lockstep engine: num_envs games stepped at once, one checker
movement per game per step, with array operations over the batch (envs.core.Lockstep).

Two ways to fill the second seat (docs/envs.md):
  opponent=None      self-play: the learner plays both seats; each observation is seen from the
                     player to move (info["seat"]), and a game's reward goes to the player whose
                     action ended it (+points won, -points lost).
  opponent=<agent>   the learner is seat 0; seat 1 is any agent with the project's choose()
                     interface, or a spec such as "random" or "pubeval" (agents.registry), and
                     plays its whole turns inside step(). Rewards are seat 0's.
Finished games restart in the same step (Gymnasium's SAME_STEP autoreset): the observation is
the new game's, the finished one's is in info["final_obs"] where info["_final_obs"] is True.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..engine.variants import get_variant
from ..features import feature_set_for
from .core import Lockstep


def _spaces(variant, fs, n_actions):
    obs = spaces.Dict({
        "observation": spaces.Box(-np.inf, np.inf, (fs.size,), np.float32),
        "board": spaces.Box(-128, 127, (variant.width,), np.int8),
        "dice": spaces.Box(0, 6, (4,), np.int8),
        "seat": spaces.Discrete(2),
    })
    return obs, spaces.Discrete(n_actions)


class _Games:
    """What both environments share: the lockstep core, observations, rewards, restarts."""

    def _setup(self, variant, n, opponent, max_turns, variant_options, seed):
        feature_set = variant_options.pop("feature_set", "auto")
        self.variant = get_variant(variant, **variant_options)
        self.features = feature_set_for(self.variant.name, feature_set)
        auto = {}
        self._opponent_spec = opponent if isinstance(opponent, str) else None
        if opponent is not None:
            if isinstance(opponent, str):
                from ..agents.registry import make_agent
                opponent = make_agent(opponent, self.variant, seed=seed)
            auto = {1: opponent}
        self.opponent = opponent
        self.core = Lockstep(self.variant, n, seed=seed, auto=auto, max_turns=max_turns)
        self._next_id = 0

    def _obs(self, games=None):
        c = self.core
        g = np.arange(c.n) if games is None else games
        return {"observation": self.features.encode(c.board[g]).astype(np.float32),
                "board": c.board[g].copy(), "dice": c.left[g].copy(),
                "seat": c.mover[g].astype(np.int64)}

    def _start(self, games, seed=None):
        if seed is not None:
            self.core.seed, self._next_id = int(seed), 0
            if self._opponent_spec is not None:   # a named opponent restarts its own stream too
                from ..agents.registry import make_agent
                self.opponent = make_agent(self._opponent_spec, self.variant, seed=int(seed))
                self.core.auto[1] = self.opponent
        ids = self._next_id + np.arange(games.size)
        self._next_id += games.size
        self.core.reset(games, ids)

    def _play(self, actions):
        """One movement per game; returns (rewards, terminated, truncated, final_obs or None)."""
        c = self.core
        actions = np.asarray(actions, dtype=np.int64).reshape(c.n)
        actor = c.mover.copy()
        c.step(np.arange(c.n), actions)
        ended = np.flatnonzero(c.done)
        view = np.zeros(c.n, np.int8) if self.opponent is not None else actor
        reward = np.where(c.winner == view, c.points, -c.points).astype(np.float32)
        reward[~c.done | c.truncated] = 0.0
        term, trunc = c.done & ~c.truncated, c.truncated.copy()
        final = self._obs(ended) if ended.size else None
        info = {"winner": c.winner.copy(), "points": c.points.copy(), "turns": c.turns.copy()}
        if ended.size:
            self._start(ended)
        return reward, term, trunc, (ended, final), info


class BackgammonVectorEnv(_Games, VectorEnv):
    """make_vector(variant, num_envs, opponent=None, ...): see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(self, variant: str = "standard", num_envs: int = 16, *, opponent=None,
                 max_turns: int = 5000, render_mode: str | None = None, **variant_options):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = int(num_envs)
        self._setup(variant, self.num_envs, opponent, max_turns, variant_options, seed=0)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, variant=variant,
                             feature_set=self.features.describe())
        self.single_observation_space, self.single_action_space = _spaces(
            self.variant, self.features, self.core.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and self._next_id == 0:
            seed = 0
        self._start(np.arange(self.num_envs), seed)
        return self._obs(), self._info({})

    def _info(self, info):
        info["action_mask"] = self.core.masks()
        info["seat"] = self.core.mover.astype(np.int64)
        return info

    def step(self, actions):
        reward, term, trunc, (ended, final), info = self._play(actions)
        if ended.size:
            info["final_obs"] = np.full(self.num_envs, None, dtype=object)
            for j, g in enumerate(ended):
                info["final_obs"][g] = {k: v[j] for k, v in final.items()}
            info["_final_obs"] = np.isin(np.arange(self.num_envs), ended)
        return self._obs(), reward, term, trunc, self._info(info)

    def render(self):
        from ..io.diagram import diagram
        return diagram(self.core.board[0], self.variant.name,
                       dice=tuple(int(x) for x in self.core.dice[0]))


class BackgammonEnv(_Games, gym.Env):
    """One game against a fixed opponent as a plain gymnasium.Env (for gymnasium's check_env and
    single-environment code); the action mask is also in the observation. on_illegal="random"
    replaces an illegal action by a random legal one (what gymnasium's checker needs: it steps
    with unmasked samples); the default raises ValueError."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant: str = "standard", *, opponent="random", max_turns: int = 5000,
                 render_mode: str | None = None, on_illegal: str = "raise", **variant_options):
        if on_illegal not in ("raise", "random"):
            raise ValueError(f"on_illegal must be 'raise' or 'random', got {on_illegal!r}")
        self.on_illegal = on_illegal
        if opponent is None:
            raise ValueError("BackgammonEnv needs an opponent; use make_vector for self-play")
        self._setup(variant, 1, opponent, max_turns, variant_options, seed=0)
        self.render_mode = render_mode
        obs, self.action_space = _spaces(self.variant, self.features, self.core.n_actions)
        self.observation_space = spaces.Dict(dict(obs.spaces, action_mask=spaces.Box(
            0, 1, (self.core.n_actions,), np.int8)))

    def _single(self):
        o = {k: v[0] for k, v in self._obs().items()}
        o["seat"] = int(o["seat"])
        o["action_mask"] = self.core.masks()[0].astype(np.int8)
        return o

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(1 << 62)) if self._next_id == 0 else None
        self._start(np.array([0]), seed)
        return self._single(), {}

    def step(self, action):
        c = self.core
        mask = c.masks()[0]
        if self.on_illegal == "random" and not (0 <= int(action) < mask.size and mask[int(action)]):
            action = int(self.np_random.choice(np.flatnonzero(mask)))   # a random legal movement
        c.step(np.array([0]), np.array([int(action)]))
        reward = 0.0
        if c.done[0] and not c.truncated[0]:
            reward = float(c.points[0] if c.winner[0] == 0 else -c.points[0])
        return self._single(), reward, bool(c.done[0] and not c.truncated[0]), bool(c.truncated[0]), {}

    def render(self):
        from ..io.diagram import diagram
        return diagram(self.core.board[0], self.variant.name,
                       dice=None if self.core.done[0] else tuple(int(x) for x in self.core.dice[0]))


def make_vector(variant: str = "standard", num_envs: int = 16, **options) -> BackgammonVectorEnv:
    """A Gymnasium VectorEnv of num_envs games of `variant` (options: opponent, max_turns,
    render_mode, feature_set (default 'auto') and the variant's own)."""
    return BackgammonVectorEnv(variant, num_envs, **options)


def make_env(variant: str = "standard", **options) -> BackgammonEnv:
    """One game against `opponent` (default "random") as a gymnasium.Env."""
    return BackgammonEnv(variant, **options)
