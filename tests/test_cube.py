"""Cube rules and equity formulas against values worked out by hand (see comments)."""

import numpy as np
import pytest

from abak_rl.engine.cube import (CENTRED, DOUBLE_PASS, DOUBLE_TAKE, NO_DOUBLE, CubeState,
                                 game_points, match_award, match_cube_decision,
                                 match_equity_table, money_cube_decision, money_equity,
                                 recursion_met, take_decision_money)


def probs(p, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([[p, wg, wbg, lg, lbg]])


def test_who_may_double_and_take_transfers_ownership():
    c = CubeState.centred(3)
    mover = np.array([0, 1, 0])
    assert c.may_double(mover).all()                       # centred: anyone
    c.take(np.array([0]), np.array([1]))                   # game 0: seat 1 took
    assert c.value.tolist() == [2, 1, 1] and c.owner.tolist() == [1, CENTRED, CENTRED]
    assert c.may_double(np.array([0, 1, 0])).tolist() == [False, True, True]
    assert c.may_double(np.array([1, 1, 0])).tolist() == [True, True, True]
    crawford = np.array([False, True, False])
    assert c.may_double(np.array([1, 1, 0]), crawford).tolist() == [True, False, True]


def test_gammons_times_the_cube_and_jacoby():
    # gammon (2) with the cube on 4 -> 8; backgammon on 2 -> 6; single on 1 -> 1
    assert game_points([2, 3, 1], [4, 2, 1], [0, 1, CENTRED]).tolist() == [8, 6, 1]
    # Jacoby: a centred cube makes gammons single; a turned cube does not
    assert game_points([2, 3], [1, 2], [CENTRED, 0], jacoby=True).tolist() == [1, 6]


def test_match_award_is_capped_by_what_the_winner_needs():
    assert match_award(np.array([8, 2, 1]), np.array([3, 5, 1])).tolist() == [3, 2, 1]


def test_money_equity_no_gammons_by_hand():
    # W = L = 1: take point 0.5/2.5 = 0.2, cash point 2/2.5 = 0.8
    # p = 0.5, centred: live = -1 + (0.3/0.6)*2 = 0, dead = 0 -> 0
    assert money_equity(probs(0.5), np.zeros(1))[0] == pytest.approx(0.0)
    # p = 0.8, centred: live = 1, dead = 0.6 -> 0.68 + 0.32*0.6 = 0.872
    assert money_equity(probs(0.8), np.zeros(1))[0] == pytest.approx(0.872)
    # p = 0.8, opponent owns: live = -1 + (0.6/0.8)*2 = 0.5 -> 0.68*0.5 + 0.32*0.6 = 0.532
    assert money_equity(probs(0.8), -np.ones(1))[0] == pytest.approx(0.532)


def test_money_decisions_by_hand():
    # p = 0.75: ND = .68*(−1 + .55/.6*2) + .32*.5 = .72667; DT = 2*(.68*(−1 + .55/.8*2) + .32*.5)
    # = 0.83 -> double (0.83 > 0.727), take (0.83 < 1)
    d, eq = money_cube_decision(probs(0.75), np.zeros(1))
    assert d[0] == DOUBLE_TAKE
    assert eq[0].tolist() == pytest.approx([0.726667, 0.83, 1.0], abs=1e-5)
    # p = 0.5: DT = 2*(.68*(−0.25)) = −0.34 < ND = 0 -> no double
    assert money_cube_decision(probs(0.5), np.zeros(1))[0][0] == NO_DOUBLE
    # p = 0.9: ND = .68*1 + .32*.8 = .936; DT = 2*(.68*.75 + .32*.8) = 1.532 > 1 -> double, pass
    assert money_cube_decision(probs(0.9), np.zeros(1))[0][0] == DOUBLE_PASS
    # the opponent owns the cube: the mover may not double, but the formula for owner=-1 is
    # what the taker uses; a take at p = 0.75 (doubler's view) is right, at 0.9 it is not
    assert take_decision_money(np.vstack([probs(0.75), probs(0.9)])).tolist() == [True, False]


def test_too_good_to_double_with_many_gammons():
    # p = 0.8 with 40% of all games gammons won: W = (0.8 + 0.4)/0.8 = 1.5, L = 1
    # dead = 0.8*1.5 - 0.2 = 1.0; cash point 2/3; live = 1 + (0.8-2/3)/(1/3)*0.5 = 1.2
    # ND = 0.68*1.2 + 0.32*1.0 = 1.136 > DP = 1 -> no double (play on for the gammon)
    d, eq = money_cube_decision(probs(0.8, wg=0.4), np.zeros(1))
    assert d[0] == NO_DOUBLE and eq[0, 0] == pytest.approx(1.136)


def test_match_equity_table_by_recursion():
    met, post = match_equity_table(7, gammon_rate=0.26)
    # symmetric: the two players' chances add up to one
    assert np.allclose(met[1:, 1:] + met[1:, 1:].T, 1.0)
    # post-Crawford, 1-away vs 2-away: the trailer doubles, one game decides -> 1/2
    assert post[2] == pytest.approx(0.5)
    # Crawford game, 1-away vs 2-away: win it (1/2) or lose a single (0.74) into 1-away/1-away
    # (the leader then wins half): 0.5 + 0.5*0.74*0.5 = 0.685
    assert met[1, 2] == pytest.approx(0.685)
    # leading is better: more needed, less chance
    assert (np.diff(met[1:, 1:], axis=0) < 0).all()
    with pytest.raises(ValueError, match="gammon_rate"):
        match_equity_table(5, gammon_rate=1.5)


def test_match_decision_two_away_two_away_by_hand():
    met = recursion_met(7)
    # 2-away/2-away, cube 1 centred, p = 0.75, no gammons (the recursion's table). Double/take:
    # the cube on 2 decides the match -> DT = 0.75; pass: 1-away/2-away Crawford -> DP =
    # met[1,2] = 0.685. ND: at 2-away/2-away the cube is valued dead (as GNU Backgammon does):
    # .75*.685 + .25*.315 = .5925. min(DT, DP) = .685 > .5925 -> double; DT > DP -> pass.
    d, eq = match_cube_decision(probs(0.75), np.array([2]), np.array([2]), np.array([1]),
                                np.zeros(1), met)
    assert d[0] == DOUBLE_PASS
    assert eq[0].tolist() == pytest.approx([0.5925, 0.75, 0.685], abs=1e-4)
    # a cube that already covers what the player to move needs is dead for it: no double
    d, _ = match_cube_decision(probs(0.75), np.array([2]), np.array([3]), np.array([2]),
                               np.ones(1), met)
    assert d[0] == NO_DOUBLE
