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
