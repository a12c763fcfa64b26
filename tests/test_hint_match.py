"""`abak-rl hint --match-length N --score A B [--crawford]`: cube decisions at a match score."""

import json

import pytest

from abak_rl.cli import main
from abak_rl.engine import cube as cube_math

START = ["--position-id", "4HPwATDgc/ABMA", "--variant", "standard"]


def _hint(capsys, *extra):
    assert main(["hint", *START, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)["cube"]


def test_match_score_decision_in_match_winning_chances(capsys):
    c = _hint(capsys, "--match-length", "7", "--score", "4", "2")
    assert c["match"] == {"length": 7, "score": [4, 2], "away": [3, 5], "crawford": False,
                          "met": cube_math.DEFAULT_MET}
    eq = c["equities_mwc"]
    # a pass gives the doubler the cube's point: 2-away against 5-away, from the table
    met = cube_math.get_met(cube_math.DEFAULT_MET, 7)
    assert eq["double_pass"] == pytest.approx(float(met.equity(2, 5)), abs=1e-6)
    assert 0.5 < eq["no_double"] < eq["double_pass"]        # the leader on roll at the start
    assert c["decision"] == "no double"
    money = _hint(capsys)
    assert "match" not in money and set(money["equities"]) == {"no_double", "double_take", "double_pass"}


def test_no_cube_in_the_crawford_game_or_when_it_is_dead(capsys):
    assert _hint(capsys, "--match-length", "7", "--score", "6", "2", "--crawford")["decision"] == \
        "no double (the Crawford game: no cube)"
    dead = _hint(capsys, "--match-length", "7", "--score", "5", "5", "--cube-value", "2")
    assert dead["decision"].startswith("no double (the cube already covers")


@pytest.mark.parametrize("args,msg", [
    (["--match-length", "7", "--score", "7", "2"], "from 0 to 6"),
    (["--match-length", "7", "--score", "3", "2", "--crawford"], "Crawford game needs a player at 6"),
    (["--match-length", "7"], "needs --score"),
    (["--score", "3", "2"], "need --match-length"),
    (["--match-length", "7", "--score", "1", "1", "--cube-value", "3"], "1, 2, 4"),
])
def test_bad_match_arguments_are_one_line(capsys, args, msg):
    assert main(["hint", *START, *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err


def _plays(capsys, *extra):
    assert main(["hint", *START, "--json", "--dice", "6", "4", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_plays_at_a_match_score_are_ranked_by_match_winning_chance(capsys):
    """With --dice at a match score every play carries its MWC, computed by hand here from its
    five probabilities and the table, and the plays come best MWC first, which at 3-away 2-away
    is not the money order; the money hint has no MWC and keeps its equity order."""
    h = _plays(capsys, "--match-length", "3", "--score", "0", "1")
    assert h["match"] == {"length": 3, "score": [0, 1], "away": [3, 2], "crawford": False, "cube": 1,
                          "met": cube_math.DEFAULT_MET}
    met = cube_math.get_met(cube_math.DEFAULT_MET, 3)
    win = [float(met.equity(3 - m, 2, False)) for m in (1, 2, 3)]
    lose = [float(met.equity(3, 2 - m, False)) for m in (1, 2, 3)]
    for p in h["plays"]:
        w, wg, wbg, lg, lbg = (p["probs"][k] for k in ("p_win", "p_wg", "p_wbg", "p_lg", "p_lbg"))
        by_hand = ((w - wg) * win[0] + (wg - wbg) * win[1] + wbg * win[2]
                   + (1 - w - lg) * lose[0] + (lg - lbg) * lose[1] + lbg * lose[2])
        assert p["mwc"] == pytest.approx(by_hand, abs=2e-5)
    mwc = [p["mwc"] for p in h["plays"]]
    assert mwc == sorted(mwc, reverse=True) and h["plays"][0]["mwc_diff"] == 0
    money = _plays(capsys)
    assert "match" not in money and "mwc" not in money["plays"][0]
    eq = [p["equity"] for p in money["plays"]]
    assert eq == sorted(eq, reverse=True)
    assert [p["play"] for p in money["plays"]] != [p["play"] for p in h["plays"]]
    # the table says what it ranks by
    assert main(["hint", *START, "--dice", "6", "4", "--match-length", "3", "--score", "0", "1"]) == 0
    assert "ranked by match-winning chance" in capsys.readouterr().out


@pytest.mark.parametrize("args,msg", [
    (["--match-length", "7", "--score", "9", "2"], "from 0 to 6"),
    (["--score", "3", "2"], "need --match-length"),
    (["--crawford"], "need --match-length"),
])
def test_bad_match_arguments_with_dice_are_one_line(capsys, args, msg):
    assert main(["hint", *START, "--dice", "3", "1", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err
