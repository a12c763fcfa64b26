"""Each classic rule on a hand-checked position: the expected afterstates are worked out by hand
(in the comments) and written as plays, applied by a tiny notation reader independent of the
move generator. Points are the mover's; negative counts are the opponent's checkers."""

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.board import row_from_points as pos
from abak_rl.engine.variants import classic_winner_points, get_variant

STD = get_variant("standard")
ACEY = get_variant("acey_deucey")


def apply(row, play: str) -> tuple:
    """Apply a play written `13/8 8/2*`, `bar/20`, `pool/19`, `4/off` to a row (no rule checks)."""
    r = row.astype(np.int64).copy()
    for move in play.split():
        frm, to = move.rstrip("*").split("/")
        r[int(frm) - 1 if frm.isdigit() else {"bar": cb.BAR, "pool": cb.POOL}[frm]] -= 1
        if to == "off":
            r[cb.OFF] += 1
            continue
        i = int(to) - 1
        if r[i] == -1:  # a blot: hit it
            r[i] = 0
            r[cb.OPP_BAR] += 1
            assert move.endswith("*"), move
        r[i] += 1
    return tuple(int(x) for x in r)


def afterstates(variant, row, dice):
    a = variant.legal_afterstates(row[None], np.array([dice]), with_plays=True)
    boards = [tuple(int(x) for x in b) for b in a.boards]
    assert len(boards) == len(set(boards)), "an afterstate repeats"
    return set(boards), a.plays


def expect(variant, row, dice, plays):
    got, _ = afterstates(variant, row, dice)
    assert got == {apply(row, p) for p in plays}


def test_both_dice_must_be_used_even_if_only_one_order_works():
    # One movable checker on 13 (14 sit on 1, cannot move: not all home). 6-5: 13/7 is blocked,
    # 13/8 then 8/2 works, so the only play is 13/8/2 (13/8 alone would waste the 6).
    row = pos({13: 1, 1: 14, 7: -2, 20: -13})
    expect(STD, row, (6, 5), ["13/8 8/2"])


def test_when_only_one_die_can_be_used_it_must_be_the_larger():
    # 6-5 from 13: 13/7 and 13/8 are each possible, but 2 (13-11) is blocked, so no play uses
    # both; either die alone is possible, so the larger (6) must be played: 13/7 only.
    row = pos({13: 1, 1: 14, 2: -2, 20: -13})
    expect(STD, row, (6, 5), ["13/7"])
    expect(STD, row, (5, 6), ["13/7"])


def test_smaller_die_when_the_larger_cannot_be_played():
    # 6-5 from 13 with 7 blocked and 2 blocked: only 13/8 is possible (8/2 blocked).
    row = pos({13: 1, 1: 14, 7: -2, 2: -2, 20: -11})
    expect(STD, row, (6, 5), ["13/8"])


def test_bear_off_with_a_larger_die_from_the_highest_point():
    # All home: 5, 3, 1 (12 off). 6-4. The 6 bears off from 5 (highest, 6 > 5) or, after 5/1,
    # from 3. The 4: exact point 4 empty; moves 5/1 inside, or (when 3 is the highest) 3/off.
    # Plays: 5/off 3/off; 5/1 3/off. (1/off is never allowed: 1 is not the highest point.)
    row = pos({5: 1, 3: 1, 1: 1, 20: -15})
    expect(STD, row, (6, 4), ["5/off 3/off", "5/1 3/off"])


def test_bear_off_must_move_inside_when_no_checker_can_bear_off():
    # 6 and 5 occupied, 2-1: no exact bear-off (2 and 1 empty) and the dice are smaller than the
    # highest point, so both dice move inside. The checker pairs end on {3,5}, {2,6}, {4,4}
    # (6/4 5/4; 6/3 = 6/5 5/3; 5/2). Three afterstates, with the 6/5 5/3 = 6/4/3 duplicate merged.
    row = pos({6: 1, 5: 1, 20: -15})
    expect(STD, row, (2, 1), ["6/3", "5/2", "6/4 5/4"])


def test_no_bear_off_while_a_checker_is_outside_home():
    # 7 and 1 occupied, 6-1. 1/off first is illegal (7 is outside home). 7/1 brings the last
    # checker home, then the 1 bears off exactly: 7/1 1/off. Or 7/6, then the 6 bears off
    # exactly from 6: 7/6 6/off. Both leave one checker on 1 and one more off: one afterstate.
    row = pos({7: 1, 1: 1, 20: -15})
    expect(STD, row, (6, 1), ["7/1 1/off", "7/6 6/off"])
    got, _ = afterstates(STD, row, (6, 1))
    assert len(got) == 1


def test_bar_entry_with_one_point_blocked():
    # On the bar, 5-3: entering with the 3 lands on 22, blocked; with the 5 on 20 (open). Then
    # the 3 is played by 20/17 or 6/3. Checkers on 6 cannot move before the bar checker enters.
    row = pos({6: 14, 22: -2, 12: -13}, bar=(1, 0))
    expect(STD, row, (5, 3), ["bar/20 20/17", "bar/20 6/3"])


def test_everything_enters_before_anything_else_moves():
    # Two on the bar, 6-5: 19 (the 6) is blocked, 20 (the 5) is open. One checker enters with
    # the 5; the other cannot enter with the 6, so the 6 is lost although 13/7 would be open.
    row = pos({13: 13, 19: -2, 12: -13}, bar=(2, 0))
    expect(STD, row, (6, 5), ["bar/20"])


def test_no_legal_move_is_a_pass():
    # On the bar against a closed board: no die enters. One afterstate: the position itself,
    # with an empty play.
    row = pos({19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 24: -2, 12: -3, 6: 14}, bar=(1, 0))
    got, plays = afterstates(STD, row, (4, 4))
    assert got == {tuple(int(x) for x in row)} and plays == [""]


def test_doubles_with_a_block_in_the_way():
    # 3-3, movable checkers on 13 and 8 (13 more on 1, not home). 7 is blocked: the 13 checker
    # can go 13/10 only; the 8 checker 8/5/2 (2-3 < 0 and not all home: no bear-off).
    # At most three of the four 3s are playable: 13/10 8/5 5/2 is the only play.
    row = pos({13: 1, 8: 1, 1: 13, 7: -2, 20: -13})
    expect(STD, row, (3, 3), ["13/10 8/5 5/2"])


def test_doubles_many_ways_merge_to_distinct_boards():
    # Two checkers on 6, the rest off; 2-2. A checker needs three 2s to bear off (6/4/2/off), so
    # the four 2s split 3+1 -> one off and one on 4, or 2+2 -> both on 2 (4+0 is impossible:
    # after 6/4/2/off that checker is gone). Many orders, two distinct afterstates.
    row = pos({6: 2, 20: -15})
    expect(STD, row, (2, 2), ["6/4 4/2 2/off 6/4", "6/4 4/2 6/4 4/2"])


def test_one_checker_using_both_dice_needs_an_open_intermediate_point():
    # 6-5, checkers on 13 and 12 (13 more on 1, not home); 7 and 8 blocked, 2 and 1 open.
    # 13/2 would need 7 or 8 as the intermediate point: both blocked, so it is illegal.
    # The checker on 12: 12/6 (open) then 6/1; 12/7 is blocked. The only play: 12/6/1.
    row = pos({13: 1, 12: 1, 1: 13, 7: -2, 8: -2, 20: -11})
    got, _ = afterstates(STD, row, (6, 5))
    assert got == {apply(row, "12/6 6/1")}


def test_hits_on_intermediate_points_are_distinct_plays():
    # One movable checker on 13, 4-2, blots on 11 and 9: 13/11*/7 and 13/9*/7 hit different
    # blots, so they are two different afterstates (each sends one checker to the bar).
    row = pos({13: 1, 1: 14, 11: -1, 9: -1, 20: -13})
    expect(STD, row, (4, 2), ["13/11* 11/7", "13/9* 9/7"])


def test_a_point_hit_and_left_is_not_hit_again():
    # 2-2, checker on 10, blot on 8: 10/8*/6/4/2 hits once; with checkers on 10 (2): plays
    # 10/8*/6 10/8/6 (the second landing on 8 is no hit: the blot is already on the bar).
    row = pos({10: 2, 1: 13, 8: -1, 20: -14})
    got, plays = afterstates(STD, row, (2, 2))
    for b in got:
        assert b[cb.OPP_BAR] == 1  # exactly one hit in every play
    assert apply(row, "10/8* 8/6 10/8 8/6") in got


def test_gammon_and_backgammon_scoring():
    won = dict(bar=(0, 0))
    single = pos({20: -14}, **won)               # loser bore one off
    gammon = pos({20: -15}, **won)               # loser bore none off, none in winner's home
    bg_home = pos({20: -14, 3: -1}, **won)       # a loser checker in the winner's home board
    bg_bar = pos({20: -14}, bar=(0, 1))          # a loser checker on the bar
    bg_pool = pos({20: -14}, pool=(0, 1))        # Acey-deucey: still waiting to enter
    going = pos({20: -15, 1: 1})                 # the mover has not finished
    b = np.stack([single, gammon, bg_home, bg_bar, bg_pool, going])
    assert list(classic_winner_points(b)) == [1, 2, 3, 3, 3, 0]


def test_acey_deucey_one_two_then_any_double_blocked_or_not():
    # Mover: 10 (1) and 1 (14); 5 is blocked. 1-2: 10/9/7 = 10/8/7 (the 1s cannot move, 7 is out
    # of home), so after the 1-2 the checker is on 7. Then the chosen double:
    #  1-1: 7/6, now all home: 6/5 blocked, 1/off x3 -> {6, 1x11, off 3}
    #  2-2: 7/5 blocked, nothing else can move -> the 1-2 result itself (the double is lost)
    #  3-3: 7/4/1, then 3 > highest (1): 1/off x2 -> {1x13, off 2}
    #  4-4: 7/3, 3/off (4 > 3), 1/off x2; 5-5: 7/2 2/off 1/off x2; 6-6: 7/1 1/off x3
    #       -> all three give {1x12, off 3}
    # Four distinct afterstates, for 1-2 and 2-1 alike.
    row = pos({10: 1, 1: 14, 5: -2, 20: -13})
    want = ["10/7 7/6 1/off 1/off 1/off", "10/7", "10/7 7/4 4/1 1/off 1/off",
            "10/7 7/3 3/off 1/off 1/off"]
    expect(ACEY, row, (1, 2), want)
    expect(ACEY, row, (2, 1), want)


def test_acey_deucey_one_two_gives_an_extra_roll():
    dice = np.array([[1, 2], [2, 1], [3, 4], [1, 1], [2, 2]])
    assert list(ACEY.extra_turn(dice)) == [True, True, False, False, False]
    assert not STD.extra_turn(dice).any()
    assert not get_variant("nackgammon").extra_turn(dice).any()


def test_acey_deucey_pool_entry_while_other_checkers_move():
    # 14 in the pool, one checker on 10, 6-4. Entries land on 19 (6) and 21 (4). Plays:
    # pool/19 pool/21; pool/19 10/6; pool/21 10/4; pool/19/15 = pool/21/15; no bear-off.
    row = pos({10: 1}, pool=(14, 15))
    expect(ACEY, row, (6, 4), ["pool/19 pool/21", "pool/19 10/6", "pool/21 10/4",
                               "pool/19 19/15"])


def test_acey_deucey_enter_all_before_moving_option():
    # The same position with the stricter option: while the pool is not empty only entries.
    row = pos({10: 1}, pool=(14, 15))
    strict = get_variant("acey_deucey", enter_all_before_moving=True)
    expect(strict, row, (6, 4), ["pool/19 pool/21"])


def test_acey_deucey_a_hit_checker_on_the_bar_still_enters_first():
    # Bar 1, pool 13, one checker on 10, 6-4. The bar checker enters first (bar/19 or bar/21),
    # then anything: bar/19/15 = bar/21/15; bar/19 pool/21 = bar/21 pool/19; bar/19 10/6;
    # bar/21 10/4. Pool entry or 10/x before the bar checker enters is illegal.
    row = pos({10: 1}, bar=(1, 0), pool=(13, 15))
    expect(ACEY, row, (6, 4), ["bar/19 19/15", "bar/19 pool/21", "bar/19 10/6", "bar/21 10/4"])


@pytest.mark.parametrize("start, layout", [
    (None, {24: 4, 23: 1, 13: 2, 8: 3, 6: 5}),
    ("nackgammon_gnubg", {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}),
])
def test_nackgammon_layouts(start, layout):
    v = get_variant("nackgammon") if start is None else get_variant("nackgammon", start=start)
    points = dict(layout)
    points.update({25 - p: -c for p, c in layout.items()})
    assert (v.initial_boards(2) == pos(points)[None]).all()
    # 1-1 from either layout: every afterstate keeps 15 checkers a side and at least one exists
    a = v.legal_afterstates(v.initial_boards(1), np.array([[1, 1]]))
    assert len(a) > 1 and (cb.mover_total(a.boards) == 15).all()


def test_bad_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match="shape"):
        STD.legal_afterstates(np.zeros((2, 29), np.int8), np.ones((2, 2), int))
    with pytest.raises(ValueError, match="dice"):
        STD.legal_afterstates(STD.initial_boards(1), np.array([[0, 3]]))
    with pytest.raises(ValueError, match="dice"):
        STD.legal_afterstates(STD.initial_boards(2), np.array([[1, 3]]))
    with pytest.raises(ValueError, match="point"):
        pos({25: 1})
