"""Move counts from the standard start (published by other engines) and a game-loop smoke test."""

import numpy as np

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.board import flip
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)])


def test_perft_depth_1_and_2_from_standard_start():
    v = get_variant("standard")
    start = v.initial_boards(21)
    a1 = v.legal_afterstates(start, ROLLS)
    assert len(a1) == 447
    nxt = flip(a1.boards)
    a2 = v.legal_afterstates(np.repeat(nxt, 21, axis=0), np.tile(ROLLS, (len(nxt), 1)))
    assert len(a2) == 202_782


def test_random_games_finish_and_conserve_checkers():
    for name in ("standard", "nackgammon"):
        r = play_games(get_variant(name), [RandomAgent(1), RandomAgent(2)], 64, seed=3)
        assert set(np.unique(r.winner)) <= {0, 1}
        assert set(np.unique(r.points)) <= {1, 2, 3}
        assert (r.turns > 0).all()


def test_same_seed_same_games():
    v = get_variant("standard")
    r1 = play_games(v, [RandomAgent(5), RandomAgent(6)], 16, seed=11)
    r2 = play_games(v, [RandomAgent(5), RandomAgent(6)], 16, seed=11)
    assert (r1.turns == r2.turns).all() and (r1.winner == r2.winner).all()


def test_random_play_positions_are_valid_and_reproducible():
    from abak_rl.engine.game import random_play_positions

    for name in ("standard", "acey_deucey"):
        v = get_variant(name)
        b1, d1 = random_play_positions(v, 4, seed=9)
        b2, d2 = random_play_positions(v, 4, seed=9)
        assert (b1 == b2).all() and (d1 == d2).all() and len(b1) == len(d1) > 40
        v.validate(b1)  # raises on any malformed position
        assert d1.min() >= 1 and d1.max() <= 6
