"""eval.judge=gnubg: GNU Backgammon's analysis of the net's games in the trainer's evaluation."""

import pytest

from abak_rl.agents.gnubg_program import find_gnubg
from abak_rl.agents.heuristic import HeuristicAgent
from abak_rl.engine.variants import get_variant
from abak_rl.train.evaluation import JUDGE, evaluate, make_opponents


def test_judge_is_off_by_default_and_checked():
    assert JUDGE not in make_opponents(["random"], 1)
    with pytest.raises(ValueError, match="eval.judge='xg'"):
        make_opponents(["random"], 1, judge={"kind": "xg"})


@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (the gnubg program) is not "
                    "installed: apt-get install gnubg")
def test_judge_reports_the_nets_error_rate():
    std = get_variant("standard")
    opps = make_opponents(["random"], 1, "standard", judge={"kind": "gnubg", "plies": 0, "games": 4,
                                                            "opponent": "random"})
    res = evaluate(HeuristicAgent(0), std, opps, games=2, seed=5)
    j = res[JUDGE]
    assert set(res) == {"random", JUDGE}
    # the heuristic bot errs, but much less than the random bot it played
    assert 0 < j["error_rate_memg"] < j["opponent_error_rate_memg"] and j["unforced_moves"] > 20
    with pytest.raises(ValueError, match="standard backgammon only"):
        make_opponents(["random"], 1, "abak", judge={"kind": "gnubg"})
