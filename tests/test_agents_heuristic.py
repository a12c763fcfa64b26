"""The heuristic bot: its shot counting, its preferences, its Abak terms, and its strength."""

import numpy as np
import pytest

from abak_rl.agents import heuristic as H
from abak_rl.engine import board as cb
from abak_rl.engine.variants import get_variant
from abak_rl.evaluate.match import run_match


def _brute_shots(opp_at, open_pts):
    """Rolls of 36 that reach each point from some opposing checker, by enumeration."""
    out = np.zeros(24)
    for p in range(1, 25):
        if not open_pts[p]:
            continue
        for a in range(1, 7):
            for b in range(1, 7):
                hit = False
                for q in np.flatnonzero(opp_at):
                    if a == b:
                        pos = q
                        for _ in range(4):
                            pos += a
                            if pos > 24 or not open_pts[pos]:
                                break
                            hit |= pos == p
                    else:
                        for x, y in ((a, b), (b, a)):
                            if q + x == p or (q + x <= 24 and open_pts[q + x] and q + x + y == p):
                                hit = True
                out[p - 1] += hit
    return out


def test_shots_match_enumeration_of_the_36_rolls():
    rng = np.random.default_rng(0)
    for _ in range(20):
        opp_at = rng.random(25) < 0.15
        open_pts = rng.random(25) < 0.7
        got = H.shots(opp_at[None], open_pts[None])[0]
        np.testing.assert_array_equal(got, _brute_shots(opp_at, open_pts))


def test_direct_shot_counts_are_the_textbook_ones():
    opp_at = np.zeros((1, 25), bool)
    opp_at[0, 0] = True                       # one checker on the bar, everything open
    s = H.shots(opp_at, np.ones((1, 25), bool))[0]
    assert s[0] == 11 and s[5] == 17 and s[6] == 6 and s[10] == 2


def _row(own: dict, opp: dict, **extra):
    r = np.zeros(cb.WIDTH, np.int8)
    for p, n in own.items():
        r[p - 1] = n
    for p, n in opp.items():
        r[p - 1] = -n
    for k, v in extra.items():
        r[getattr(cb, k)] = v
    r[cb.OFF] = 15 - sum(own.values()) - r[cb.BAR]
    r[cb.OPP_OFF] = 15 - sum(opp.values()) - r[cb.OPP_BAR]
    return r


def test_prefers_making_a_point_to_leaving_blots():
    opp = {1: 2, 12: 5, 17: 3, 19: 5}          # the opening layout, in the mover's numbering
    made = _row({6: 4, 5: 2, 8: 2, 13: 5, 24: 2}, opp)          # 3-1: 8/5 6/5
    blots = _row({6: 4, 5: 1, 10: 1, 8: 3, 13: 4, 24: 2}, opp)  # 3-1: 13/10 6/5
    s = H.classic_score(np.stack([made, blots]))
    assert s[0] > s[1]


def test_prefers_hitting_to_not_hitting():
    own = {6: 5, 8: 3, 13: 5, 24: 2}
    hit = _row(own, {12: 5, 17: 3, 19: 5, 1: 1}, OPP_BAR=1)
    quiet = _row(own, {12: 5, 17: 3, 19: 5, 1: 1, 20: 1})
    s = H.classic_score(np.stack([hit, quiet]))
    assert s[0] > s[1]


def test_race_prefers_bearing_off():
    off = _row({1: 3, 2: 3}, {24: 9})
    moved = _row({1: 4, 2: 3}, {24: 9})
    s = H.classic_score(np.stack([off, moved]))
    assert s[0] > s[1]


def test_abak_terms_read_the_classes():
    from abak_rl.engine.abak import board as ab
    base = np.zeros(ab.WIDTH, np.int8)

    def col(b, point, codes):
        b[(point - 1) * 5:(point - 1) * 5 + len(codes)] = codes

    def fill(b):
        b[ab.OFF] = 15 - (b[:ab.SLOTS] > 0).sum() - b[ab.BAR:ab.BAR + 6].sum()
        b[ab.OPP_OFF] = 15 - (b[:ab.SLOTS] < 0).sum() - b[ab.OPP_BAR:ab.OPP_BAR + 6].sum()
        return b

    # Our Druid trapping their soldier on the 10-point, protected by a soldier, vs not trapping.
    trap, free = base.copy(), base.copy()
    col(trap, 10, [-1, ab.DRUID, 1]); col(trap, 6, [1, 1]); col(trap, 20, [-1, -1])
    col(free, 10, [ab.DRUID, 1]); col(free, 6, [1, 1]); col(free, 20, [-1, -1]); col(free, 15, [-1])
    s = H.abak_score(np.stack([fill(trap), fill(free)]))
    assert s[0] > s[1]
    # A lone Guard is a block, not a blot: it scores above a lone soldier in the same spot.
    guard, soldier = base.copy(), base.copy()
    for b, code in ((guard, ab.GUARD), (soldier, ab.SOLDIER)):
        col(b, 5, [code]); col(b, 6, [1, 1]); col(b, 13, [-1, -1]); col(b, 1, [-1])
    s = H.abak_score(np.stack([fill(guard), fill(soldier)]))
    assert s[0] > s[1]
    # Our checker trapped under their Druid costs.
    trapped, clear = base.copy(), base.copy()
    col(trapped, 12, [1, -ab.DRUID]); col(clear, 12, [-ab.DRUID]); col(clear, 11, [1])
    for b in (trapped, clear):
        col(b, 6, [1, 1]); col(b, 20, [-1, -1])
    s = H.abak_score(np.stack([fill(trapped), fill(clear)]))
    assert s[0] < s[1]


def test_rejects_unknown_variant():
    class Odd:
        kind, name = "other", "odd"
    with pytest.raises(ValueError, match="odd"):
        H.HeuristicAgent().score(Odd(), np.zeros((1, 30), np.int8))


def test_beats_random_clearly():
    r = run_match("heuristic", "random", get_variant("standard"), 200, seed=3, progress=False)
    assert r["ppg"] - r["ppg_ci95"] > 1.5 and r["win_rate"] > 0.9


def test_acey_deucey_pool_counts_like_the_bar():
    """A checker left in the pool is as far from home as one on the bar: entering it is better
    than shuffling an entered checker (before this, the bot hoarded its pool and lost
    backgammons)."""
    opp = {}
    enter = _row({24: 1, 20: 1}, opp, POOL=13, OPP_POOL=15)
    shuffle = _row({19: 1}, opp, POOL=14, OPP_POOL=15)
    enter[cb.OFF] = shuffle[cb.OFF] = 0
    enter[cb.OPP_OFF] = shuffle[cb.OPP_OFF] = 0
    s = H.classic_score(np.stack([enter, shuffle]))
    assert s[0] > s[1]
