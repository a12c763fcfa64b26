"""The compiled Abak generator (engine/abak/movegen_compiled.py) against the NumPy one.

legal_afterstates answers from the compiled search unless play notation is asked for;
with_plays=True still runs the NumPy steps (themselves checked against the plain reference in
test_abak_rules.py and test_abak_agreement.py), so the two can be compared on the same input.
They must agree row for row: the same distinct afterstates in the same order, since callers
sample afterstates or break ties by their index."""

import random

import numpy as np
import pytest

from abak_cases import CASES
from test_abak_agreement import play_kinds
from test_abak_rules import _random_layout

from abak_rl.engine.abak import board as ab
from abak_rl.engine.abak import movegen, movegen_compiled
from abak_rl.engine.abak.variant import row_from_stacks
from abak_rl.engine.game import random_play_positions
from abak_rl.engine.variants import get_variant

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
# both sides blocked for every roll (test_abak_engine.py's total deadlock)
DEADLOCK = row_from_stacks(["edsss", "SSSSS", "KKSSS", "DS", "sgoss", "GO", "E"] + [""] * 15
                           + ["kks", ""], bar="ss")


def _positions(games: int = 12, seed: int = 11, layouts: int = 200) -> np.ndarray:
    """Positions from random games, random layouts rich in traps, lone Guards, bar checkers and
    bear-offs (test_abak_rules.py), every hand-checked case's position and a total deadlock."""
    boards = random_play_positions(get_variant("abak"), games, seed)[0]
    boards = boards[np.random.default_rng(seed).permutation(len(boards))[:500]]
    rng = random.Random(seed)
    extra = [_random_layout(rng) for _ in range(layouts)] + [c.row() for c in CASES] + [DEADLOCK]
    return np.concatenate([boards, np.stack(extra)]).astype(np.int8)


def _distinct_per_position(after) -> bool:
    keys = {(int(p), bytes(row)) for p, row in zip(after.parent, after.boards)}
    return len(keys) == len(after)


def test_compiled_is_available():
    assert movegen_compiled.AVAILABLE     # numba is a dependency: the fast path is what runs


def test_compiled_equals_numpy_row_for_row_on_every_roll():
    pos = _positions()
    boards = np.repeat(pos, len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(pos), 1))
    fast = movegen.legal_afterstates(boards, dice)
    slow = movegen.legal_afterstates(boards, dice, with_plays=True)
    assert fast.plays is None and slow.plays is not None
    assert np.array_equal(fast.parent, slow.parent)
    assert np.array_equal(fast.boards, slow.boards)
    assert _distinct_per_position(fast)
    # the sample exercises every rule family, the dice rules and the corner cases
    seen = {kind: 0 for kind in ("trap", "jane", "backward", "entry", "bearoff")}
    for play in slow.plays:
        for kind in play_kinds(play):
            seen[kind] += 1
    assert all(n >= 20 for n in seen.values()), seen
    moves = np.array([len(p.split()) for p in slow.plays])
    double = (dice[:, 0] == dice[:, 1])[slow.parent]
    assert (moves[double] == 4).sum() > 1000 and (moves[double] == 1).any()
    assert ((moves == 1) & ~double).sum() > 100          # one die only: the larger-die rule
    assert (moves == 0).sum() > 50                       # no legal play: the position itself
    assert (boards[:, ab.BAR:ab.BAR + 6].sum(1) > 0).sum() > 500
    heights = (ab.stacks(boards) != 0).sum(-1)
    assert (heights == 5).any(1).sum() > 1000            # five-high columns
    stuck = slice((len(pos) - 1) * len(ROLLS), None)     # the deadlock: every roll passes
    assert (fast.parent >= stuck.start).sum() == len(ROLLS)


def test_compiled_equals_numpy_on_random_rolls_and_batch_sizes():
    """Batches of any size, row for row (a position's order mixes in its index in the batch)."""
    boards = _positions(games=6, seed=3, layouts=100)
    dice = np.random.default_rng(3).integers(1, 7, (len(boards), 2)).astype(np.int8)
    for batch, n in ((1, 60), (7, 300), (256, len(boards))):
        for s in range(0, n, batch):
            b, d = boards[s:s + batch], dice[s:s + batch]
            fast = movegen.legal_afterstates(b, d)
            slow = movegen.legal_afterstates(b, d, with_plays=True)
            assert np.array_equal(fast.parent, slow.parent)
            assert np.array_equal(fast.boards, slow.boards)


def test_empty_batch():
    after = movegen.legal_afterstates(np.zeros((0, ab.WIDTH), np.int8), np.zeros((0, 2), np.int8))
    assert after.boards.shape == (0, ab.WIDTH) and after.parent.shape == (0,)


def test_compiled_can_move_equals_numpy_and_the_21_rolls(monkeypatch):
    pos = _positions(games=6, seed=7, layouts=200)
    pos = np.concatenate([pos, ab.flip(pos)])
    fast = movegen.can_move(pos)
    monkeypatch.setattr(movegen_compiled, "AVAILABLE", False)
    slow = movegen.can_move(pos)
    monkeypatch.undo()
    assert np.array_equal(fast, slow)
    assert fast.any() and (~fast).sum() >= 2        # the deadlock's two sides at least
    # and what the 21 rolls say: some roll changes the position
    boards = np.repeat(pos, len(ROLLS), axis=0)
    after = movegen.legal_afterstates(boards, np.tile(ROLLS, (len(pos), 1)))
    moved = np.zeros(len(boards), bool)
    moved[after.parent[(after.boards != boards[after.parent]).any(axis=1)]] = True
    assert np.array_equal(fast, moved.reshape(len(pos), len(ROLLS)).any(axis=1))


@pytest.mark.parametrize("case", [c for c in CASES if "jane" in c.name], ids=lambda c: c.name)
def test_jane_cases_can_move_as_their_rolls_say(case):
    """A first Jane lander alone is no play: can_move must ask whether some die completes it."""
    row = case.row()[None]
    after = movegen.legal_afterstates(np.repeat(row, len(ROLLS), axis=0), ROLLS)
    moved = (after.boards != row).any(axis=1).any()
    assert movegen_compiled.can_move(row)[0] == moved
