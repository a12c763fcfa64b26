"""Cubeful evaluation: money play and matches, with common random numbers."""

import json

import pytest

from abak_rl.cli import main
from abak_rl.evaluate.cube_match import make_policy, run_cube_match
from abak_rl.agents.cube_policies import NeverDouble, RandomCube, ThresholdCube
from abak_rl.agents.registry import make_agent
from abak_rl.engine.variants import get_variant


def test_a_bot_against_itself_with_the_same_cube_scores_exactly_zero():
    # deterministic bot and cube policy on both sides: each dice sequence is played from both
    # seats, so the two games of a pair mirror each other exactly
    r = run_cube_match("pubeval", "pubeval", "standard", games=40, seed=2, agent_cube="threshold",
                       opponent_cube="threshold")
    assert r["ppg"] == 0.0 and r["doubles_per_game"] > 0
    m = run_cube_match("pubeval", "pubeval", "standard", games=20, seed=2, match_length=3,
                       agent_cube="threshold", opponent_cube="threshold")
    assert m["match_win_rate"] == 0.5 and m["games_played"] >= 20 * 2


def test_doubling_against_a_never_doubler_changes_the_result():
    plain = run_cube_match("pubeval", "pubeval", "standard", games=60, seed=3,
                           agent_cube="never", opponent_cube="never")
    cube = run_cube_match("pubeval", "pubeval", "standard", games=60, seed=3,
                          agent_cube="threshold", opponent_cube="never")
    assert plain["ppg"] == 0.0 and plain["doubles_per_game"] == 0
    assert cube["ppg"] != 0.0 and cube["doubles_per_game"] > 0


def test_auto_policies_follow_the_agent():
    v = get_variant("standard")
    assert isinstance(make_policy("auto", make_agent("pubeval", v), 0.68), ThresholdCube)
    assert isinstance(make_policy("auto", make_agent("random", v), 0.68), RandomCube)
    assert isinstance(make_policy("never", make_agent("random", v), 0.68), NeverDouble)
    with pytest.raises(ValueError, match="janowski needs an agent with an evaluator"):
        make_policy("janowski", make_agent("pubeval", v), 0.68)
    with pytest.raises(ValueError, match="cube policy 'sometimes'"):
        make_policy("sometimes", make_agent("pubeval", v), 0.68)


def test_cli_cube_money_and_match_write_json(tmp_path, capsys):
    out = tmp_path / "money.json"
    assert main(["evaluate", "agent=heuristic", "opponent=pubeval", "cube=money", "games=20",
                 f"out={out}"]) == 0
    r = json.loads(out.read_text())
    assert r["cube"] == "money" and {"ppg", "ppg_ci95", "doubles_per_game"} <= set(r)
    out = tmp_path / "match.json"
    assert main(["evaluate", "agent=heuristic", "opponent=pubeval", "match_length=3", "games=10",
                 f"out={out}"]) == 0
    r = json.loads(out.read_text())
    assert r["match_length"] == 3 and 0 <= r["match_win_rate"] <= 1


@pytest.mark.parametrize("args, needle", [
    (["cube=sometimes"], "cube='sometimes'"),
    (["cube=match"], "cube=match needs match_length"),
    (["match_length=-1"], "match_length=-1"),
    (["cube=money", "cube_x=high"], "cube_x='high'"),
])
def test_cli_cube_errors_name_the_problem(args, needle, capsys):
    assert main(["evaluate", "agent=pubeval", *args]) == 2
    assert needle in capsys.readouterr().err
