"""Positions from random games: what an export is checked on (torch-free).

sample_positions(variant, n, seed) plays random games in lockstep and keeps every position a
player faced (seen from the player to move) with its roll, until n are collected.
"""

from __future__ import annotations

import numpy as np

from ..agents.random_agent import RandomAgent


class _Recorder(RandomAgent):
    def __init__(self, seed: int):
        super().__init__(seed)
        self.boards: list[np.ndarray] = []
        self.dice: list[np.ndarray] = []

    def choose(self, variant, before, dice, after):
        self.boards.append(np.array(before))
        self.dice.append(np.array(dice))
        return super().choose(variant, before, dice, after)


def sample_positions(variant, n: int, seed: int = 0, games: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(boards [n, W] seen from the player to move, dice [n, 2]) from random games (`games` at
    a time; default about one game per 100 positions)."""
    from ..engine.game import play_games
    if n < 1:
        raise ValueError(f"need at least one position, got n={n}")
    if games is None:
        games = int(min(16, max(2, -(-n // 100))))
    boards, dice = [], []
    have, round_ = 0, 0
    while have < n:
        agents = [_Recorder(seed * 2 + 1 + round_), _Recorder(seed * 2 + 2 + round_)]
        ids = np.arange(games, dtype=np.int64) + round_ * games
        play_games(variant, agents, games, seed, game_ids=ids)
        for a in agents:
            boards += a.boards
            dice += a.dice
        have = sum(b.shape[0] for b in boards)
        round_ += 1
    b, d = np.concatenate(boards)[:n], np.concatenate(dice)[:n]
    return b, d


def sample_afterstates(variant, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(afterstates [n, W], again [n]): one random legal afterstate of each of n sampled
    positions, as the net sees them."""
    boards, dice = sample_positions(variant, n, seed)
    after = variant.legal_afterstates(boards, dice)
    rng = np.random.default_rng(seed)
    counts = after.counts(n)
    pick = after.starts(n) + (rng.random(n) * counts).astype(np.int64)
    return after.boards[pick], variant.extra_turn(dice)
