"""Match equity tables, match-aware cube decisions and checker play, cube efficiency, 1-ply cube.

Numbers are read from the Kazaross-XG2 table (GNU Backgammon's default) or worked out by hand in
the comments.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abak_rl.agents.cube_policies import ROLL_WEIGHTS, JanowskiCube, NeverDouble
from abak_rl.engine import board as cb
from abak_rl.engine import cube
from abak_rl.engine.cube import (DOUBLE_PASS, DOUBLE_TAKE, NO_DOUBLE, CubeContext,
                                 cube_decision_1ply, cube_efficiency, get_met, load_met,
                                 match_cash_points, match_cube_decision, mwc_from_probs)
from abak_rl.engine.variants import get_variant

ROOT = Path(__file__).resolve().parents[1]
GNUBG_XML = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def probs(p, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([[p, wg, wbg, lg, lbg]])


def one(x):
    return np.array([x])


# ----------------------------------------------------------------------------- the table

def test_kazaross_xg2_known_cells_symmetry_and_post_crawford():
    met = load_met()
    assert met.length == 25 and "Kazaross" in met.source
    # the cells quoted in the issue: 2-away/5-away 74.4%, 3-away/5-away 64.8%, 4-away/3-away 42.9%
    assert met.equity(2, 5) == pytest.approx(0.74359)
    assert met.equity(3, 5) == pytest.approx(0.64795)
    assert met.equity(4, 3) == pytest.approx(0.42850)
    pre = met.pre[1:, 1:]
    assert np.allclose(pre + pre.T, 1.0) and np.allclose(np.diag(pre), 0.5)
    assert (np.diff(pre, axis=0) < 0).all()        # needing more points is worse
    # Crawford game 1-away/2-away (pre table) and post-Crawford: the trailer 2-away gets a bit
    # under 1/2 (the leader's free drop), 3-away 0.32264; the leader's view is 1 minus it
    assert met.equity(1, 2) == pytest.approx(0.67736)
    assert met.equity(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert met.equity(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert met.equity(1, 1, post_crawford=True) == pytest.approx(0.5)
    assert met.equity(1, 25, post_crawford=True) == pytest.approx(1 - 0.00123)
    # the match is over at away <= 0
    assert met.equity(np.array([0, -3, 4]), np.array([5, 2, 0])).tolist() == [1.0, 1.0, 0.0]


def test_table_choice_and_length_errors():
    assert get_met("kazaross-xg2", 7) is load_met()
    rec = get_met("recursion", 31)
    assert rec.length == 31 and rec.equity(1, 2) == pytest.approx(0.685)
    with pytest.raises(ValueError, match="longer than the kazaross-xg2 .*met=recursion"):
        get_met("kazaross-xg2", 31)
    with pytest.raises(ValueError, match="unknown match equity table 'woolsey'"):
        get_met("woolsey", 7)


XML = """<?xml version="1.0"?>
<!-- Copyright (C) 2000 Somebody -->
<met><info><name>Tiny</name><description>two points</description><length>2</length></info>
<pre-crawford-table type="explicit"><row><me>0.5</me><me>0.7</me></row>
<row><me>0.3</me><me>0.5</me></row></pre-crawford-table>
<post-crawford-table type="explicit" player="both"><row><me>0.5</me><me>0.49</me><me>0.3</me></row>
</post-crawford-table></met>"""


def test_build_met_converts_and_refuses_bad_input(tmp_path):
    src, out = tmp_path / "tiny.xml", tmp_path / "tiny.json"
    src.write_text(XML)
    script = ROOT / "scripts" / "build_met.py"
    r = subprocess.run([sys.executable, str(script), str(src), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    obj = json.loads(out.read_text())
    assert obj["pre_crawford"] == [[0.5, 0.7], [0.3, 0.5]] and obj["post_crawford"] == [0.5, 0.49]
    assert obj["length"] == 2 and "Copyright (C) 2000 Somebody" in obj["source"]
    src.write_text(XML.replace("<me>0.3</me><me>0.5</me>", "<me>0.3</me>"))
    r = subprocess.run([sys.executable, str(script), str(src), str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and "not square" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not GNUBG_XML.is_file(), reason="GNU Backgammon's tables are not installed")
def test_committed_table_is_the_gnubg_file():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_met
    finally:
        sys.path.pop(0)
    obj = build_met.convert(GNUBG_XML.read_text(), "x")
    stored = json.loads((ROOT / "abak_rl" / "data" / "met_kazaross_xg2.json").read_text())
    assert obj["pre_crawford"] == stored["pre_crawford"]
    assert obj["post_crawford"] == stored["post_crawford"]


# ----------------------------------------------------------------------------- MWC of outcomes

def test_mwc_from_probs_weights_each_outcome_and_caps_at_the_match_end():
    met = load_met()
    p = probs(0.6, wg=0.2, wbg=0.05, lg=0.1, lbg=0.02)
    # 3-away/5-away, cube 1: single win -> 2-away/5-away, gammon -> 1-away/5-away (Crawford),
    # backgammon -> won; single loss -> 3-away/4-away, gammon 3/3, backgammon 3/2
    want = (0.4 * met.equity(2, 5) + 0.15 * met.equity(1, 5) + 0.05 * 1.0
            + 0.3 * met.equity(3, 4) + 0.08 * met.equity(3, 3) + 0.02 * met.equity(3, 2))
    assert mwc_from_probs(p, one(3), one(5), one(1), met)[0] == pytest.approx(want)
    # 2-away with the cube on 2: every win wins the match, every loss of 2+ at 5-away
    want = 0.6 + 0.3 * met.equity(2, 3) + 0.08 * met.equity(2, 1) + 0.02 * met.equity(2, -1)
    assert mwc_from_probs(p, one(2), one(5), one(2), met)[0] == pytest.approx(want)


def test_match_score_prefers_the_play_that_wins_matches_not_points():
    met = load_met()
    # at 1-away/5-away (Crawford game) a gammon is worth no more than a single win
    gammonish = probs(0.60, wg=0.45)     # money equity 0.65
    safe = probs(0.66)                   # money equity 0.32
    from abak_rl.model.outcomes import equity
    both = np.vstack([gammonish, safe])
    assert equity(both).argmax() == 0
    mwc = mwc_from_probs(both, np.ones(2, int), np.full(2, 5), np.ones(2, int), met)
    assert mwc.argmax() == 1


# ----------------------------------------------------------------------------- cash points, decisions

def test_dead_cube_cash_points_by_hand():
    met = load_met()
    # 2-away/3-away, cube 1: doubling to 2 covers what the doubler needs, so the taker would
    # redouble to 4 at once: the doubler's cash point is (DTL - DP) / (DTL - DTW) with DTL = 0,
    # DTW = 1, DP = met(1-away, 3-away) -> 0.75076. The opponent (3-away) doubling to 2: DP =
    # met(2, 2) = 0.5, DTW = met(1, 2) = 0.67736 (no gammons), DTL = 0 -> 0.5 / 0.67736.
    cp_me, cp_opp = match_cash_points(probs(0.6), one(2), one(3), one(1), met)
    assert cp_me[0] == pytest.approx(0.75076, abs=1e-6)
    assert cp_opp[0] == pytest.approx(0.5 / 0.67736, abs=1e-6)


def test_live_cube_cash_point_from_the_level_above():
    met = load_met()
    # 5-away/5-away, cube 1: doubling to 2 leaves a live cube (5 > 4), so the cash point is
    # 1 - cp_opp(cube 2) * (DP - DTW) / (RDP - DTW), with the level above dead
    a, b = one(5), one(5)
    cp_up_me, cp_up_opp = match_cash_points(probs(0.6), a, b, one(2), met)
    dp, dtw, rdp = met.equity(4, 5), met.equity(3, 5), met.equity(5, 3)
    cp_me, _ = match_cash_points(probs(0.6), a, b, one(1), met)
    assert cp_me[0] == pytest.approx(1 - cp_up_opp[0] * (dp - dtw) / (rdp - dtw))
    # a live cube: the taker can take with fewer chances than with a dead one
    assert 1 - cp_me[0] > 1 - cp_up_me[0] - 0.2 and 0.15 < 1 - cp_me[0] < 0.35


def test_crawford_dead_cubes_and_post_crawford():
    met = load_met()
    p = probs(0.8, wg=0.2)
    # Crawford game: no double; the no-double value is the dead-cube MWC
    d, eq = match_cube_decision(p, one(3), one(1), one(1), np.zeros(1), met, crawford=np.array([True]))
    assert d[0] == NO_DOUBLE
    assert eq[0, 0] == pytest.approx(mwc_from_probs(p, one(3), one(1), one(1), met)[0])
    # post-Crawford: the leader at 1-away never doubles; the trailer 4-away doubles an even
    # position at once (a cube of 2 costs it nothing: the leader needs one point either way)
    d, _ = match_cube_decision(p, one(1), one(4), one(1), np.zeros(1), met)
    assert d[0] == NO_DOUBLE
    d, eq = match_cube_decision(probs(0.5), one(4), one(1), one(1), np.zeros(1), met)
    assert d[0] == DOUBLE_TAKE
    # double/pass post-Crawford = trailer 3-away against the leader (post table)
    assert eq[0, 2] == pytest.approx(met.equity(3, 1, post_crawford=True))
    # the cube on 2 at 2-away covers what the player needs: never redoubled
    d, _ = match_cube_decision(p, one(2), one(5), one(2), np.ones(1), met)
    assert d[0] == NO_DOUBLE


def test_match_decisions_lean_with_the_score():
    met = load_met()
    p = probs(0.68, wg=0.12, lg=0.05)
    # the same position: the trailer (5-away vs 3-away, 7-point match at 2-4) doubles it, and its
    # take point is lower for the taker than the leader's at 3-away vs 5-away
    d_trail, _ = match_cube_decision(p, one(5), one(3), one(1), np.zeros(1), met)
    d_lead, _ = match_cube_decision(p, one(3), one(5), one(1), np.zeros(1), met)
    assert d_trail[0] != NO_DOUBLE and d_lead[0] == NO_DOUBLE
    _, cp_opp_t = match_cash_points(p, one(5), one(3), one(1), met)
    _, cp_opp_l = match_cash_points(p, one(3), one(5), one(1), met)
    assert 1 - cp_opp_l[0] < 1 - cp_opp_t[0] + 0.2


# ----------------------------------------------------------------------------- efficiency

def _classic(mine: dict, theirs: dict, bar=0, opp_bar=0):
    """A row from the mover's view: mine {point: n}, theirs {point in the mover's numbering: n}."""
    row = np.zeros(cb.WIDTH, dtype=np.int8)
    for pt, k in mine.items():
        row[pt - 1] = k
    for pt, k in theirs.items():
        row[pt - 1] = -k
    row[cb.BAR], row[cb.OPP_BAR] = bar, opp_bar
    row[cb.OFF] = 15 - sum(mine.values()) - bar
    row[cb.OPP_OFF] = 15 - sum(theirs.values()) - opp_bar
    return row


def test_cube_efficiency_by_position_class():
    v = get_variant("standard")
    rows = np.stack([
        v.initial_boards(1)[0],                  # contact
        _classic({10: 10}, {20: 5}),             # race, 100 pips: 0.55 + 0.125 = 0.675
        _classic({24: 1, 12: 14}, {}),           # no opponent checker left: race, 192 pips -> 0.7
        _classic({6: 5, 1: 5}, {20: 4, 24: 4}),  # both sides in the home boards: 0.6
        _classic({5: 4}, {20: 4}, opp_bar=1),    # the opponent on the bar: contact
        _classic({3: 2}, {4: 2}),                # passed each other? no: 3 < 4 -> race, 6 pips -> 0.6
    ])
    x = cube_efficiency(v, rows)
    assert x.tolist() == pytest.approx([0.68, 0.675, 0.7, 0.6, 0.68, 0.6])
    from abak_rl.engine.cube import BEAROFF, CONTACT, RACE, position_class
    # the class behind each x; 0.6 from a 6-pip race is still a race, not a bear-off
    assert position_class(v, rows).tolist() == [CONTACT, RACE, RACE, BEAROFF, CONTACT, RACE]


def test_janowski_cube_uses_the_class_efficiency():
    v = get_variant("standard")
    race = _classic({10: 10}, {20: 5})[None]
    p = probs(0.72, wg=0.0)
    fixed = JanowskiCube(lambda variant, b: p, x=0.68).decide(v, race, CubeContext(one(1), one(0)))[1]
    auto = JanowskiCube(lambda variant, b: p).decide(v, race, CubeContext(one(1), one(0)))[1]
    want = cube.money_cube_decision(p, one(0), 0.675)[1]
    assert np.allclose(auto, want) and not np.allclose(auto, fixed)
    with pytest.raises(ValueError, match="cube efficiency"):
        JanowskiCube(lambda variant, b: p, x="high")


# ----------------------------------------------------------------------------- 1-ply

def test_one_ply_last_roll_by_hand():
    # money, centred cube: 24 of 36 rolls win at once (the game is over), the rest lose for
    # sure (the opponent then wins on its roll): ND = 24/36 - 12/36 = 1/3, DT = 2/3 < DP = 1
    # -> double, take
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)])
    double = rolls[:, 0] == rolls[:, 1]
    win = (~double & (rolls.sum(1) >= 6)) | (double & (rolls[:, 0] >= 5))
    assert ROLL_WEIGHTS[win].sum() == pytest.approx(24 / 36)
    leaf = np.where(win[:, None], np.array([1.0, 0, 0, 0, 0]), np.zeros(5))[None]
    d, eq = cube_decision_1ply(leaf, np.full((1, 21), 0.6), ROLL_WEIGHTS,
                               CubeContext(one(1), one(0)), win[None])
    assert d[0] == DOUBLE_TAKE
    assert eq[0].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])
    # the same at 2-away/2-away in a match: DT is the winning chance, DP = met(1, 2)
    met = load_met()
    ctx = CubeContext(one(1), one(0), one(2), one(2), met)
    d, eq = cube_decision_1ply(leaf, np.full((1, 21), 0.6), ROLL_WEIGHTS, ctx, win[None])
    assert eq[0, 1] == pytest.approx(24 / 36) and eq[0, 2] == pytest.approx(met.equity(1, 2))
    assert d[0] == DOUBLE_TAKE


def test_one_ply_policy_on_a_real_bearoff():
    v = get_variant("standard")
    # one checker on the 4 point against an opponent who bears off next roll: only 2-1 fails
    row = _classic({4: 1}, {24: 1})[None]

    def afterstate_fn(boards, again):      # exact when over, else the opponent wins for sure
        won = v.winner_points(boards)
        return np.where((won > 0)[:, None], np.array([1.0, 0, 0, 0, 0]), np.zeros(5))

    pol = JanowskiCube(lambda variant, b: probs(0.5), ply=1, afterstate_fn=afterstate_fn)
    d, eq = pol.decide(v, row, CubeContext(one(1), one(0)))
    assert d[0] == DOUBLE_PASS
    assert eq[0].tolist() == pytest.approx([32 / 36, 64 / 36, 1.0])
    with pytest.raises(ValueError, match="afterstate_fn"):
        JanowskiCube(lambda variant, b: probs(0.5), ply=1)


# ----------------------------------------------------------------------------- match play wiring

class GreedyUtility:
    """Plays the first afterstate by equity, or the best by the utility it is handed; records
    what it was handed."""

    name = "stub"

    def __init__(self):
        self.seen = []

    def choose(self, variant, before, dice, after, utility=None):
        from abak_rl.engine.common import segment_argmax
        p = np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(after), 1))
        self.seen.append(utility is not None)
        if utility is None:
            return segment_argmax(np.zeros(len(after)), after.parent, before.shape[0])
        u = utility(p, after.parent)
        assert u.shape == (len(after),) and ((0 <= u) & (u <= 1)).all()
        return segment_argmax(u, after.parent, before.shape[0])


def test_matchplay_hands_match_aware_agents_an_mwc_utility():
    from abak_rl.engine.matchplay import play_cubeful
    v = get_variant("standard")
    a, b = GreedyUtility(), GreedyUtility()
    pol = [NeverDouble(), NeverDouble()]
    r = play_cubeful(v, [a, b], pol, 4, seed=3, match_length=3)
    assert all(a.seen) and a.seen and all(b.seen)
    assert (r.score.max(1) >= 3).all()
    a.seen.clear()
    play_cubeful(v, [a, b], pol, 2, seed=3)                              # money: no utility
    assert a.seen and not any(a.seen)
    a.seen.clear()
    play_cubeful(v, [a, b], pol, 2, seed=3, match_length=3, match_aware_play=False)
    assert a.seen and not any(a.seen)
    with pytest.raises(ValueError, match="longer than"):
        play_cubeful(v, [a, b], pol, 2, seed=3, match_length=30)
    r = play_cubeful(v, [a, b], pol, 2, seed=3, match_length=3, met="recursion")
    assert (r.score.max(1) >= 3).all()


# ----------------------------------------------------------------------------- evaluate's keys

def test_evaluate_takes_the_table_the_cube_ply_and_a_fixed_efficiency(tmp_path, capsys):
    from abak_rl.cli import main
    out = tmp_path / "m.json"
    assert main(["evaluate", "agent=heuristic", "opponent=pubeval", "match_length=3", "games=2",
                 "met=recursion", f"out={out}"]) == 0
    r = json.loads(out.read_text())
    assert r["met"] == "recursion" and r["cube_x"] == "auto" and r["cube_ply"] == 0
    assert main(["evaluate", "agent=heuristic", "opponent=pubeval", "cube=money", "games=2",
                 "cube_x=0.7", f"out={out}"]) == 0
    assert json.loads(out.read_text())["cube_x"] == 0.7
    capsys.readouterr()
    for args, needle in ((["met=woolsey"], "met='woolsey'"), (["cube_ply=3"], "cube_ply=3")):
        assert main(["evaluate", "agent=pubeval", "match_length=3", *args]) == 2
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_evaluate_refuses_cube_keys_that_would_change_nothing(capsys):
    from abak_rl.cli import main
    from abak_rl.evaluate.cube_match import run_cube_match
    # cubeless games (no cube=, no match_length=) have no cube for these keys to act on
    for arg in ("cube_ply=1", "cube_x=0.7", "agent_cube=never", "met=recursion", "jacoby=true"):
        assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=2", arg]) == 2
        err = capsys.readouterr().err
        assert arg.split("=")[0] in err and "cube=money" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
    # a look-ahead for two bots whose cube is not Janowski's (pubeval's threshold) does nothing
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=2", "cube=money",
                 "cube_ply=1"]) == 2
    err = capsys.readouterr().err
    assert "cube_ply=1" in err and "ThresholdCube" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ValueError, match="neither side"):
        run_cube_match("pubeval", "heuristic", games=2, cube_ply=2)


def test_one_ply_cube_runs_on_an_exported_net():
    from abak_rl.evaluate.cube_match import make_policy, run_cube_match
    # a shipped export of one 2 x 128 net (the 1-ply cube reads every export the same way;
    # this one costs less per evaluation than the standard model's 2 x 256)
    spec = "export:" + str(ROOT / "checkpoints" / "pretrained" / "baselines" / "std_l2")
    r = run_cube_match(spec, "pubeval", games=2, cube_ply=1, agent_cube="janowski",
                       opponent_cube="never")
    assert r["cube_ply"] == 1 and r["agent_cube"] == "JanowskiCube"
    with pytest.raises(ValueError, match="1-ply cube needs"):
        make_policy("janowski", type("A", (), {"name": "x", "cube_probs": lambda *a: None})(), ply=1)


def _small_neural_agent(tmp_path, seed: int):
    """(standard variant, a checkpoint agent of an untrained 8-unit net): cheap to search."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from test_export import make_checkpoint
    finally:
        sys.path.pop(0)
    from abak_rl.agents.neural import load_neural_agent
    make_checkpoint(tmp_path / "c.pt", "standard", hidden=8, seed=seed)
    v = get_variant("standard")
    return v, load_neural_agent(tmp_path / "c.pt", v)


def test_the_neural_agent_plays_by_the_utility_it_is_handed(tmp_path):
    from abak_rl.engine.common import segment_argmax
    from abak_rl.export.sample import sample_positions
    from abak_rl.model.outcomes import equity
    v, agent = _small_neural_agent(tmp_path, seed=1)
    boards, dice = sample_positions(v, 20, seed=2)
    after = v.legal_afterstates(boards, dice)
    # a utility that prefers the lowest win chance picks other plays than equity does
    seen = {}

    def utility(p, parent):
        seen["probs"] = np.asarray(p)
        return -np.asarray(p)[:, 0]
    pick = agent.choose(v, boards, dice, after, utility=utility)
    assert (pick == segment_argmax(-seen["probs"][:, 0], after.parent, 20)).all()
    plain = agent.choose(v, boards, dice, after)
    assert (plain == segment_argmax(equity(seen["probs"]), after.parent, 20)).all()
    assert (pick != plain).any()
    # at a match score the MWC utility is what play_cubeful hands it
    met = load_met()
    from abak_rl.engine.matchplay import match_utility
    u = match_utility(met, np.full(20, 1), np.full(20, 5), np.ones(20, int))
    mwc_pick = agent.choose(v, boards, dice, after, utility=u)
    want = mwc_from_probs(seen["probs"], np.ones(len(after), int), np.full(len(after), 5),
                          np.ones(len(after), int), met)
    assert (mwc_pick == segment_argmax(want, after.parent, 20)).all()


@pytest.mark.parametrize("variant", ["abak", "acey_deucey", "nackgammon"])
def test_efficiency_and_one_ply_cube_run_on_every_variant(variant):
    from abak_rl.export.sample import sample_positions
    v = get_variant(variant)
    x = cube_efficiency(v, v.initial_boards(2))
    assert x.tolist() == [0.68, 0.68]                   # the start is contact everywhere
    boards, _ = sample_positions(v, 6, seed=1)

    def afterstate_fn(b, again):                         # a pip-count stand-in for a net
        from abak_rl.agents.cube_policies import pip_win_estimate
        p = 1.0 - pip_win_estimate(v, v.flip(b))
        return np.stack([p, 0.1 * p, 0 * p, 0.1 * (1 - p), 0 * p], 1)
    pol = JanowskiCube(lambda variant, b: None, ply=1, afterstate_fn=afterstate_fn)  # 1-ply: no probs_fn
    met = load_met()
    n = boards.shape[0]
    ctx = CubeContext(np.ones(n, int), np.zeros(n, int), np.full(n, 5), np.full(n, 3), met)
    d, eq = pol.decide(v, boards, ctx)
    assert d.shape == (n,) and np.isfinite(eq).all() and ((0 <= eq) & (eq <= 1)).all()


def test_match_cube_ab_script_runs_and_refuses_bad_input():
    script = ROOT / "scripts" / "match_cube_ab.py"
    r = subprocess.run([sys.executable, str(script), "--matches", "2", "--length", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 matches to 2" in r.stdout and "% ±" in r.stdout
    r = subprocess.run([sys.executable, str(script), "--matches", "3"], capture_output=True, text=True)
    assert r.returncode == 2 and "even" in r.stderr and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- 2-ply

def _two_ply_cube_reference(v, net, boards, ctx, x_of):
    """A plain per-position, per-roll 2-ply cube: each roll's plays that the reply filter keeps
    at 0-ply are valued at 1-ply by hand (every reply of every opponent roll at 0-ply), the best
    by equity (money) or match-winning chance (match) is the leaf, and the next player's 0-ply
    decision is averaged over the rolls (cube_decision_1ply, checked by hand above)."""
    from abak_rl.agents.cube_policies import ROLL_WEIGHTS, ROLLS
    from abak_rl.agents.search import REPLY_FILTER
    from abak_rl.model.outcomes import equity, swap_perspective_np
    codes, eqs = [], []
    for i in range(len(boards)):
        leaves, xs, overs, agains = [], [], [], []
        for d in ROLLS:
            after = v.legal_afterstates(boards[i:i + 1], d[None])
            again = bool(v.extra_turn(d[None])[0])
            p0 = net(after.boards, np.full(len(after), again))
            order = np.argsort(-equity(p0), kind="stable")
            keep = [j for j in order[:REPLY_FILTER.k] if equity(p0)[order[0]] - equity(p0)[j] <= REPLY_FILTER.margin]
            best, best_score = None, -np.inf
            for j in sorted(keep):
                b = after.boards[j]
                if v.winner_points(b[None])[0] > 0:
                    val = net(b[None], np.array([again]))[0]
                else:
                    nxt = b if again else v.flip(b[None])[0]
                    acc = np.zeros(5)
                    for e, w in zip(ROLLS, ROLL_WEIGHTS):
                        rep = v.legal_afterstates(nxt[None], e[None])
                        pr = net(rep.boards, np.full(len(rep), bool(v.extra_turn(e[None])[0])))
                        acc += w * pr[int(np.argmax(equity(pr)))]
                    val = acc if again else swap_perspective_np(acc)
                if ctx.is_match:
                    s = mwc_from_probs(val[None], ctx.away[i:i + 1], ctx.opp_away[i:i + 1],
                                       ctx.value[i:i + 1], ctx.met)[0]
                else:
                    s = equity(val[None])[0]
                if s > best_score:
                    best, best_score = (val, b), s
            val, b = best
            over = v.winner_points(b[None])[0] > 0
            leaves.append(val)
            overs.append(over)
            agains.append(again)
            xs.append(0.0 if over else x_of((b if again else v.flip(b[None])[0])[None])[0])
        sub = CubeContext(ctx.value[i:i + 1], ctx.owner[i:i + 1],
                          *((ctx.away[i:i + 1], ctx.opp_away[i:i + 1], ctx.met) if ctx.is_match else ()))
        c, e = cube_decision_1ply(np.array(leaves)[None], np.array(xs)[None], ROLL_WEIGHTS, sub,
                                  np.array(overs)[None], np.array(agains)[None])
        codes.append(c[0])
        eqs.append(e[0])
    return np.array(codes), np.array(eqs)


def test_two_ply_cube_against_a_plain_reference(tmp_path):
    from abak_rl.evaluate.cube_match import make_policy
    from abak_rl.export.sample import sample_positions
    v, agent = _small_neural_agent(tmp_path, seed=3)
    net = lambda b, again: np.asarray(agent.scorer.probs(b, again), dtype=np.float64)  # noqa: E731
    boards, _ = sample_positions(v, 3, seed=4)
    boards = np.concatenate([boards, _classic({1: 2, 3: 1}, {22: 1, 24: 2})[None]])  # a bear-off: games end
    n = len(boards)
    pol = make_policy("janowski", agent, ply=2)
    x_of = lambda b: cube_efficiency(v, b)  # noqa: E731
    for ctx in (CubeContext(np.ones(n, int), np.zeros(n, int)),
                CubeContext(np.ones(n, int), np.zeros(n, int), np.full(n, 2), np.full(n, 4), load_met())):
        d, eq = pol.decide(v, boards, ctx)
        want_d, want_eq = _two_ply_cube_reference(v, net, boards, ctx, x_of)
        if not ctx.is_match:   # exact two-sided bear-off values replace the last row in money play
            want_d[-1], want_eq[-1] = d[-1], eq[-1]
        assert eq == pytest.approx(want_eq, abs=1e-6)
        assert (d == want_d).all()
    # 2-ply sees further than 1-ply: the decisions' equities differ
    one = make_policy("janowski", agent, ply=1).decide(v, boards[:3], CubeContext(np.ones(3, int), np.zeros(3, int)))[1]
    assert np.abs(one - eq[:3]).max() > 1e-4
    with pytest.raises(ValueError, match="cube ply must be 0, 1 or 2"):
        JanowskiCube(lambda variant, b: None, ply=3, afterstate_fn=net)
