"""Reproducible dice for games played in lockstep.

Each game has its own random stream, addressed by (seed, game id, roll counter) and computed by a
counter-based hash (SplitMix64). A game's dice therefore depend only on the seed and its own id
and counter -- not on the batch size, the order games finish, or which other games share the
batch -- so a game replays exactly and two agents can be given the very same dice sequence
(common random numbers) by reusing the game id.
"""

from __future__ import annotations

import numpy as np

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_GAME_MIX = np.uint64(0xD6E8FEB86659FD93)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x + _GOLDEN
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def random_words(seed: int, game_ids: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """One uniform 64-bit word per (game, counter) of the stream named by seed."""
    g = np.asarray(game_ids, dtype=np.uint64)
    c = np.asarray(counters, dtype=np.uint64)
    with np.errstate(over="ignore"):
        s = _splitmix64(np.full(g.shape, np.uint64(seed & 0xFFFFFFFFFFFFFFFF)))
        return _splitmix64(s ^ _splitmix64(g * _GAME_MIX) ^ (c * _GOLDEN))


def roll(seed: int, game_ids: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Two dice per game, int8 [B, 2] with values 1..6."""
    w = random_words(seed, game_ids, counters)
    d1 = (w % np.uint64(6)).astype(np.int8) + 1
    d2 = ((w >> np.uint64(32)) % np.uint64(6)).astype(np.int8) + 1
    return np.stack([d1, d2], axis=-1)


def uniform(seed: int, game_ids: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """A float in [0, 1) per game (used for exploration and tie breaks)."""
    w = random_words(seed ^ 0x5DEECE66D, game_ids, counters)
    return (w >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def opening_rolls(seed: int, game_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Opening roll per game: each player rolls one die, ties roll again.

    Returns (first_player in {0, 1}, dice int8 [B, 2] as (first player's die, other's die), and
    the number of counter values used, so the game's later rolls continue its stream).
    """
    g = np.asarray(game_ids, dtype=np.uint64)
    n = g.shape[0]
    dice = np.zeros((n, 2), dtype=np.int8)
    used = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    counter = 0
    while todo.size:
        d = roll(seed, g[todo], np.full(todo.size, counter))
        dice[todo] = d
        used[todo] = counter + 1
        todo = todo[d[:, 0] == d[:, 1]]
        counter += 1
    first = (dice[:, 1] > dice[:, 0]).astype(np.int8)  # player 0 rolled dice[:,0]
    ordered = np.where(first[:, None] == 0, dice, dice[:, ::-1])
    return first, ordered, used
