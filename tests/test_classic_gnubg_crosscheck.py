"""Our afterstate sets equal GNU Backgammon's move generator (gnubg_nn.moves), exactly, on
thousands of positions from random games of standard backgammon and both Nackgammon layouts.

Orientation (found empirically, see test_gnubg_orientation): a gnubg board is two 25-lists
[opponent, player on roll], each from its owner's view (index = own point - 1, index 24 = bar);
gnubg_nn.moves answers position keys of that same board after the play (not swapped), and an
empty tuple when the roll cannot be played.
"""

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.game import random_play_positions
from abak_rl.engine.variants import get_variant

gnubg = pytest.importorskip("gnubg_nn")


def to_gnubg(rows: np.ndarray) -> np.ndarray:
    """[B, 30] rows -> [B, 2, 25] gnubg boards (opponent first, player on roll second)."""
    rows = rows.astype(np.int64)
    g = np.zeros((rows.shape[0], 2, 25), np.int64)
    g[:, 1, :24] = np.clip(rows[:, :24], 0, None)
    g[:, 0, :24] = np.clip(-rows[:, 23::-1], 0, None)
    g[:, 1, 24] = rows[:, cb.BAR]
    g[:, 0, 24] = rows[:, cb.OPP_BAR]
    return g


def gnubg_keys(rows, dice) -> list[set]:
    out = []
    for g, (d1, d2), row in zip(to_gnubg(rows).tolist(), dice.tolist(), rows):
        keys = set(gnubg.moves(g, d1, d2))
        out.append(keys or {gnubg.key_of_board(g)})  # no legal play: the position itself
    return out


def our_keys(variant, rows, dice) -> list[list]:
    a = variant.legal_afterstates(rows, dice)
    keys = [gnubg.key_of_board(g) for g in to_gnubg(a.boards).tolist()]
    starts, counts = a.starts(len(rows)), a.counts(len(rows))
    return [keys[s:s + c] for s, c in zip(starts, counts)]


def test_gnubg_orientation():
    # standard start, 3-1: gnubg's keys decode to the player on roll having made its 8 and 6.
    start = get_variant("standard").initial_boards(1)
    keys = gnubg.moves(to_gnubg(start).tolist()[0], 3, 1)
    boards = [gnubg.board_from_position_key(k) for k in keys]
    made = [b for b in boards if b[1][4] == 2 and b[1][7] == 2]  # 8/5 6/5
    assert len(made) == 1 and made[0][0] == tuple(to_gnubg(start)[0, 0])


@pytest.mark.parametrize("name, start, n_games, min_positions", [
    ("standard", None, 40, 2000),
    ("nackgammon", None, 6, 300),
    ("nackgammon", "nackgammon_gnubg", 6, 300),
])
def test_afterstates_equal_gnubg(name, start, n_games, min_positions):
    v = get_variant(name) if start is None else get_variant(name, start=start)
    rows, dice = random_play_positions(v, n_games, seed=2026)
    # every opening roll from the start, then everything the random games met
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], np.int8)
    rows = np.concatenate([v.initial_boards(36), rows])
    dice = np.concatenate([rolls, dice])
    assert len(rows) >= min_positions
    if name == "standard":  # the sample covers the hard cases
        assert (rows[:, cb.BAR] > 0).sum() >= 100
        assert ((rows[:, 6:24] <= 0).all(1) & (rows[:, cb.BAR] == 0)).sum() >= 100  # bear-offs
        assert (dice[:, 0] == dice[:, 1]).sum() >= 300
    ours = our_keys(v, rows, dice)
    theirs = gnubg_keys(rows, dice)
    bad = [i for i in range(len(rows))
           if len(ours[i]) != len(set(ours[i])) or set(ours[i]) != theirs[i]]
    assert not bad, (f"{len(bad)} positions differ, first: {rows[bad[0]].tolist()} "
                     f"{dice[bad[0]].tolist()}")
