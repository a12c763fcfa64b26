"""agents/rollout.py: batched truncated rollouts, checked against a plain one-trial-at-a-time
reference, against the 1-ply and 2-ply search they equal when their dice cover every roll, and
for exact results, extra turns and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

from abak_rl.agents.rollout import ORDERED_ROLLS, plain_rollout_values, rollout_dice, rollout_values
from abak_rl.agents.search import MoveFilter, Screen, Search
from abak_rl.model.outcomes import outcome_probs
from test_search import _model, _positions, _with_a_finish


def _afterstates(variant: str, n: int, seed: int):
    v, boards, dice, after = _positions(variant, n, seed)
    pick = np.unique(np.linspace(0, len(after) - 1, 12).astype(int))
    again = v.extra_turn(dice)[after.parent]
    return v, after.boards[pick], again[pick]


def test_the_first_roll_is_stratified_and_the_rest_come_from_the_seed():
    d = rollout_dice(72, 5, seed=3)
    assert d.shape == (72, 5, 2) and d.dtype == np.int8
    every = sorted(map(tuple, ORDERED_ROLLS))
    assert sorted(map(tuple, d[:36, 0])) == every and np.array_equal(d[36:, 0], d[:36, 0])
    # fewer than 36 trials: not always the same first rolls (those would bias what follows)
    firsts = {tuple(map(tuple, rollout_dice(4, 2, seed=s)[:, 0])) for s in range(20)}
    assert len(firsts) > 10
    assert ((d >= 1) & (d <= 6)).all()
    assert np.array_equal(d, rollout_dice(72, 5, seed=3)) and not np.array_equal(d, rollout_dice(72, 5, seed=4))


def test_batched_rollouts_equal_the_plain_reference():
    """Every afterstate x trial as one batch gives the plain loop's values, a bear-off that
    some trials finish (exact results) included, and with a screen choosing the plays."""
    model, small = _model("standard", seed=2), _model("standard", seed=5)
    v, boards, again = _afterstates("standard", 30, seed=11)
    finish = v.legal_afterstates(_with_a_finish(v), np.array([[2, 1]], np.int8)).boards
    boards = np.concatenate([boards, finish])
    again = np.concatenate([again, np.zeros(len(finish), bool)])
    dice = rollout_dice(7, 6, seed=1)
    for search in (Search(model.probs, v), Search(model.probs, v, screen=Screen(small.probs, 2))):
        got = rollout_values(search, boards, again, dice=dice)
        np.testing.assert_allclose(got, plain_rollout_values(search, boards, again, dice), atol=1e-9)
    won = v.winner_points(boards) > 0
    assert won.any() and np.array_equal(got[won], outcome_probs(v.winner_points(boards[won])))
    assert ((got >= -1e-9) & (got <= 1 + 1e-9)).all()


def test_one_half_move_over_the_36_rolls_is_the_1ply_value():
    model = _model("standard", seed=3)
    v, boards, again = _afterstates("standard", 20, seed=4)
    search = Search(model.probs, v)
    np.testing.assert_allclose(rollout_values(search, boards, again, trials=36, depth=1),
                               search.values(boards, again, 1), atol=1e-12)


def test_two_half_moves_over_every_pair_of_rolls_is_the_2ply_value_with_replies_at_0ply():
    """Trials covering all 36 x 36 pairs of rolls: the opponent's 0-ply reply, then the mover's
    0-ply best, valued by the net, averaged -- GNU Backgammon's 2-ply (Search with reply k = 1)."""
    model = _model("standard", seed=6)
    v, boards, again = _afterstates("standard", 20, seed=8)
    boards, again = boards[:3], again[:3]
    pairs = np.stack([np.repeat(ORDERED_ROLLS, 36, axis=0), np.tile(ORDERED_ROLLS, (36, 1))], axis=1)
    search = Search(model.probs, v, reply=MoveFilter(1, None))
    np.testing.assert_allclose(rollout_values(search, boards, again, dice=pairs),
                               search.values(boards, again, 2), atol=1e-12)


def test_acey_deucey_extra_turns_keep_the_mover():
    model = _model("acey_deucey", seed=4)
    v, boards, dice, _ = _positions("acey_deucey", 30, seed=2)
    after = v.legal_afterstates(boards[10:11], np.array([[1, 2]], np.int8))
    rows = after.boards[:3]
    again = np.ones(len(rows), bool)
    trial_dice = rollout_dice(4, 3, seed=5)
    trial_dice[:, 1] = (1, 2)                            # an extra turn inside every trial too
    search = Search(model.probs, v)
    np.testing.assert_allclose(rollout_values(search, rows, again, dice=trial_dice),
                               plain_rollout_values(search, rows, again, trial_dice), atol=1e-9)
    np.testing.assert_allclose(rollout_values(search, rows, again, trials=36, depth=1),
                               search.values(rows, again, 1), atol=1e-12)


@pytest.mark.parametrize("trials,depth", [(0, 3), (36, 0), (2.5, 3), (True, 3)])
def test_bad_trials_or_depth_are_refused(trials, depth):
    model = _model("standard")
    v, boards, again = _afterstates("standard", 10, seed=1)
    with pytest.raises(ValueError, match="rollout (trials|depth)"):
        rollout_values(Search(model.probs, v), boards, again, trials=trials, depth=depth)


def test_variance_reduction_keeps_the_mean_and_takes_off_the_luck():
    """With variance reduction the batch equals the plain reference; one half-move then scores
    exactly the 1-ply value whatever its dice (its only luck is taken off), and dice covering
    every pair of rolls still give the 2-ply value (the luck's mean is nil)."""
    model = _model("standard", seed=2)
    v, boards, again = _afterstates("standard", 30, seed=11)
    finish = v.legal_afterstates(_with_a_finish(v), np.array([[2, 1]], np.int8)).boards
    rows = np.concatenate([boards[:4], finish[:2]])
    rows_again = np.concatenate([again[:4], np.zeros(2, bool)])
    search = Search(model.probs, v)
    dice = rollout_dice(3, 4, seed=2)
    np.testing.assert_allclose(rollout_values(search, rows, rows_again, dice=dice, variance_reduction=True),
                               plain_rollout_values(search, rows, rows_again, dice, variance_reduction=True),
                               atol=1e-9)
    one = rollout_dice(5, 1, seed=3)
    one[:, 0] = np.random.default_rng(0).integers(1, 7, (5, 2))          # not stratified
    np.testing.assert_allclose(rollout_values(search, boards, again, dice=one, variance_reduction=True),
                               search.values(boards, again, 1), atol=1e-12)
    # over dice that cover every pair of rolls the luck sums to nil: the 2-ply value again
    pairs = np.stack([np.repeat(ORDERED_ROLLS, 36, axis=0), np.tile(ORDERED_ROLLS, (36, 1))], axis=1)
    two = Search(model.probs, v, reply=MoveFilter(1, None))
    np.testing.assert_allclose(rollout_values(two, boards[:2], again[:2], dice=pairs, variance_reduction=True),
                               two.values(boards[:2], again[:2], 2), atol=1e-9)
