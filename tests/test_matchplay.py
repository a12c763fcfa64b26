"""Cubeful lockstep play: take/drop outcomes, ownership, Crawford, match end, Jacoby."""

import numpy as np

from abak_rl.agents.cube_policies import NeverDouble, ThresholdCube
from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.matchplay import play_cubeful
from abak_rl.engine.variants import get_variant

V = get_variant("standard")


class Always:
    """Doubles whenever allowed; takes or drops as told. Records the cube it was offered."""

    def __init__(self, take: bool):
        self.take, self.offered_values = take, []

    def offer(self, variant, boards, ctx):
        assert (ctx.owner >= 0).all()  # only ever asked when the cube is centred or its own
        return ctx.value < 64          # (a cap keeps endless redoubles inside int64)

    def accept(self, variant, boards, ctx):
        self.offered_values.extend(ctx.value.tolist())
        return np.full(boards.shape[0], self.take)


def agents():
    return [RandomAgent(1), RandomAgent(2)]


def test_drop_ends_the_game_for_the_cube_value():
    r = play_cubeful(V, agents(), [Always(False), Always(False)], 40, seed=3)
    # the first chance to double is the second turn; the opponent drops at once: one point
    assert (np.abs(r.seat0_points) == 1).all()
    assert (r.doubles == 1).all() and (r.drops == 1).all()


def test_take_doubles_the_cube_and_points_are_result_times_cube():
    r = play_cubeful(V, agents(), [Always(True), Always(True)], 40, seed=4)
    assert (r.drops == 0).all()
    # each take doubles the value; the owner redoubles on its next turn
    assert (r.final_cube == 2 ** r.doubles).all() and (r.final_cube <= 64).all()
    ratio = np.abs(r.seat0_points) / r.final_cube
    assert set(np.unique(ratio)) <= {1, 2, 3}


def test_ownership_only_the_owner_may_redouble():
    # seat 0 always doubles, seat 1 takes but never doubles: after the first take seat 1 owns
    # the cube, so seat 0 can never double again -> at most one double per game
    r = play_cubeful(V, agents(), [Always(True), NeverDouble()], 40, seed=5)
    assert (r.doubles <= 1).all() and (r.final_cube <= 2).all()


def test_crawford_game_has_no_cube_and_match_ends_exactly_at_length():
    r = play_cubeful(V, agents(), [Always(False), Always(False)], 30, seed=6, match_length=3)
    # every game ends by a drop (1 point) except the Crawford game, played out without cube
    assert (r.games - r.drops == 1).all()
    # the winner's score is capped at the match length; the loser is below it
    assert (r.score.max(axis=1) == 3).all() and (r.score.min(axis=1) < 3).all()
    assert set(np.unique(r.seat0_points)) <= {-1, 1}


def test_jacoby_counts_gammons_single_while_cube_centred():
    plain = play_cubeful(V, agents(), [NeverDouble(), NeverDouble()], 60, seed=7)
    jacoby = play_cubeful(V, agents(), [NeverDouble(), NeverDouble()], 60, seed=7, jacoby=True)
    assert (np.abs(plain.seat0_points) > 1).any()          # random games have gammons
    assert (np.abs(jacoby.seat0_points) == 1).all()         # same games, Jacoby: all single
    assert (np.sign(plain.seat0_points) == np.sign(jacoby.seat0_points)).all()


def test_threshold_policy_doubles_leads_and_drops_lost_positions():
    p = ThresholdCube()
    v = V
    start = v.initial_boards(1)
    far_ahead = start.copy()
    far_ahead[0, :24] = 0
    far_ahead[0, 0] = 15          # all 15 on our 1-point: 15 pips
    far_ahead[0, 1] = -15         # the opponent's all on its 23-point: 345 pips
    # a huge lead -> too good to double, and a take for the opponent is hopeless
    assert not p.offer(v, far_ahead, None)[0]
    assert not p.accept(v, far_ahead, None)[0]
    assert not p.offer(v, start, None)[0]                   # even race at the start: no double


def test_threshold_policy_doubles_a_moderate_race_lead():
    p, v = ThresholdCube(), V
    b = v.initial_boards(1)
    b[0, :24] = 0
    b[0, 3] = 15                  # 15 on our 4-point: 60 pips
    b[0, 19], b[0, 20] = -6, -9   # opponent: 6 on its 5-point, 9 on its 4-point: 66 pips
    # estimate: logistic((66 - 60 + 4) / (0.08*60 + 2)) = logistic(1.47) = 0.81 -> double
    assert p.offer(v, b, None)[0]
    assert not p.accept(v, b, None)[0]   # the taker has 19% < 25%: drop
