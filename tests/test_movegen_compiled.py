"""The compiled generator (engine/movegen_compiled.py) against the NumPy one, position by position.

legal_afterstates sends every classic row to the compiled loop unless play notation is asked
for; with_plays=True still runs the NumPy layers, so the two can be compared on the same input
(the NumPy path itself is checked against the plain reference and GNU Backgammon elsewhere)."""

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine import movegen, movegen_compiled
from abak_rl.engine.game import random_play_positions
from abak_rl.engine.variants import get_variant

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)])


def _by_position(after, n):
    sets = [set() for _ in range(n)]
    for p, row in zip(after.parent.tolist(), after.boards):
        key = row.tobytes()
        assert key not in sets[p], "an afterstate repeated within a position"
        sets[p].add(key)
    return sets


def _positions(variant, games, seed):
    boards, _ = random_play_positions(get_variant(variant), games, seed)
    return np.asarray(boards, dtype=np.int8)


def _with_bars(boards, seed):
    """The same positions with checkers moved to both bars (entering comes first)."""
    rng = np.random.default_rng(seed)
    out = boards.copy()
    for b in out:
        for col, sign in ((cb.BAR, 1), (cb.OPP_BAR, -1)):
            for _ in range(int(rng.integers(0, 3))):
                pts = np.flatnonzero(b[:24] * sign > 0)
                if pts.size:
                    b[rng.choice(pts)] -= sign
                    b[col] += 1
    return cb.validate_boards(out, allow_pool=bool(out[:, cb.POOL].any() or out[:, cb.OPP_POOL].any()))


@pytest.mark.parametrize("variant,seed,enter_all", [("standard", 3, False), ("nackgammon", 4, False),
                                                    ("acey_deucey", 5, False), ("acey_deucey", 6, True)])
def test_compiled_equals_numpy_on_every_roll(variant, seed, enter_all):
    assert movegen_compiled.AVAILABLE
    n = 60 if variant == "acey_deucey" else 300          # Acey-deucey's 1-2 fans out widely
    pos = _positions(variant, 24, seed)
    pos = pos[np.random.default_rng(seed).permutation(len(pos))[:n]]
    pos = np.concatenate([pos, _with_bars(pos[:n // 3], seed)])
    boards = np.repeat(pos, len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(pos), 1))
    rules = dict(acey_deucey=variant == "acey_deucey", enter_all_before_moving=enter_all)
    fast = movegen.legal_afterstates(boards, dice, **rules)
    slow = movegen.legal_afterstates(boards, dice, with_plays=True, **rules)
    if variant == "acey_deucey":
        assert (boards[:, cb.POOL] > 0).any()              # the pool is exercised
    assert fast.plays is None and np.all(np.diff(fast.parent) >= 0)
    assert len(fast.boards) == len(slow.boards)
    assert _by_position(fast, len(boards)) == _by_position(slow, len(boards))


def test_compiled_bear_offs_and_blocked_positions():
    # a bear-off with gaps (larger dice from the highest point), a closed-out checker on the bar,
    # and back checkers behind a blockade (many rolls play one die or none)
    rows = [cb.row_from_points({1: 3, 3: 2, 5: 1, 19: -5, 20: -5, 21: -5}),
            cb.row_from_points({6: 14, 19: -2, 20: -2, 21: -2, 22: -3, 23: -3, 24: -3}, bar=(1, 0)),
            cb.row_from_points({24: 2, 6: 13, 18: -2, 17: -2, 13: -2, 12: -9})]
    boards = np.repeat(np.array(rows, dtype=np.int8), len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (len(rows), 1))
    fast = movegen.legal_afterstates(boards, dice)
    slow = movegen.legal_afterstates(boards, dice, with_plays=True)
    assert _by_position(fast, len(boards)) == _by_position(slow, len(boards))
    # the closed-out checker cannot enter: every roll leaves the position as it is
    closed = slice(len(ROLLS), 2 * len(ROLLS))
    assert np.all(np.bincount(fast.parent, minlength=len(boards))[closed] == 1)


def test_empty_and_single_batches():
    v = get_variant("standard")
    a = movegen.legal_afterstates(v.initial_boards(0), np.zeros((0, 2), dtype=np.int64))
    assert a.boards.shape == (0, cb.WIDTH)
    one = movegen.legal_afterstates(v.initial_boards(1), np.array([[3, 1]]))
    assert len(one.boards) == len(movegen.legal_afterstates(v.initial_boards(1), np.array([[3, 1]]),
                                                            with_plays=True).boards)


@pytest.mark.parametrize("variant,enter_all", [("standard", False), ("acey_deucey", False), ("acey_deucey", True)])
def test_compiled_can_move_equals_numpy_and_the_generator(variant, enter_all):
    pos = _positions(variant, 24, 9)
    pos = np.concatenate([pos, _with_bars(pos, 10)])
    closed = cb.row_from_points({6: 14, 19: -2, 20: -2, 21: -2, 22: -3, 23: -3, 24: -3}, bar=(1, 0))
    pos = np.concatenate([pos, np.array([closed], dtype=np.int8)])
    fast = movegen_compiled.can_move_some_die(pos, enter_all)
    assert np.array_equal(fast, movegen.can_move_some_die_numpy(pos, enter_all))
    assert not fast[-1] and fast.any()                 # the closed-out checker cannot move
    # and it is what generating the 21 rolls says: some roll changes the position (a sample
    # for Acey-deucey, whose 1-2 unions are large; the blocked ones always)
    some = np.concatenate([np.arange(0, len(pos), 1 if variant == "standard" else 12), np.flatnonzero(~fast)])
    boards = np.repeat(pos[some], len(ROLLS), axis=0)
    after = movegen.legal_afterstates(boards, np.tile(ROLLS, (len(some), 1)),
                                      acey_deucey=variant == "acey_deucey", enter_all_before_moving=enter_all)
    moved = np.zeros(len(boards), bool)
    moved[after.parent[(after.boards != boards[after.parent]).any(axis=1)]] = True
    assert np.array_equal(fast[some], moved.reshape(len(some), len(ROLLS)).any(axis=1))
