"""The vectorized Abak engine against the independent plain-Python reference (reference.py):
the same afterstate sets, byte for byte, on thousands of positions met in random games.

The sample is checked to contain every rule family that makes Abak hard (traps, Jane hits,
General backward moves, bar entries, bear-offs, doubles), so agreement means something.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.abak import reference
from abak_rl.engine.abak.movegen import legal_afterstates
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant


def play_kinds(play: str) -> set[str]:
    """Rule families a play exercises, read from its notation."""
    kinds, prev = set(), None
    for move in play.split():
        src, dst = move.split("/")
        src = "bar" if src.startswith("bar") else src      # bar(G): an entry, class named
        to = dst.rstrip("*^")
        if dst.endswith("^"):
            kinds.add("trap")
        if src == "bar":
            kinds.add("entry")
        if to == "off":
            kinds.add("bearoff")
        if src != "bar" and to != "off" and int(to) > int(src):
            kinds.add("backward")
        if dst.endswith("*") and to == prev:   # a hit where the previous movement landed
            kinds.add("jane")
        prev = to
    return kinds


def sample(n_games: int, seed: int):
    """Every position of some random games, each with a fresh random roll."""
    r = play_games(get_variant("abak"), [RandomAgent(seed), RandomAgent(seed + 1)], n_games,
                   seed=seed, record=True)
    boards = np.stack([t["before"] for g in r.records for t in g])
    dice = np.random.default_rng(seed).integers(1, 7, size=(len(boards), 2)).astype(np.int8)
    return boards, dice


def compare(boards: np.ndarray, dice: np.ndarray) -> tuple[list[tuple[int, int, int]], Counter]:
    """Both generators on every position: the mismatches (position, rows only ours have, rows
    only the reference has) and how many positions' plays include each rule family."""
    a = legal_afterstates(boards, dice, with_plays=True)
    starts, counts = a.starts(len(boards)), a.counts(len(boards))
    seen = Counter()
    mismatches = []
    for i in range(len(boards)):
        rows = range(starts[i], starts[i] + counts[i])
        mine = {bytes(a.boards[r]) for r in rows}
        ref = set(reference.reference_afterstates(boards[i], (int(dice[i, 0]), int(dice[i, 1]))))
        if mine != ref:
            mismatches.append((i, len(mine - ref), len(ref - mine)))
        for kind in set().union(*(play_kinds(a.plays[r]) for r in rows)):
            seen[kind] += 1
        seen["double"] += int(dice[i, 0] == dice[i, 1])
    return mismatches, seen


def test_vectorized_and_reference_agree_on_afterstate_sets():
    boards, dice = sample(22, seed=5)
    assert len(boards) >= 2000
    mismatches, seen = compare(boards, dice)
    assert mismatches == [], mismatches[:10]
    # positions whose legal plays include each rule family
    for kind, at_least in (("trap", 50), ("jane", 5), ("backward", 300), ("entry", 200),
                           ("bearoff", 50), ("double", 200)):
        assert seen[kind] >= at_least, (kind, seen)
