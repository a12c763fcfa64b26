"""Match runner: common random numbers really pair the games, and the report is consistent."""

import numpy as np
import pytest

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant
from abak_rl.evaluate.match import run_match

STD = get_variant("standard")
KEYS = {"agent", "opponent", "variant", "games", "ppg", "ppg_ci95", "win_rate", "gammon_rate",
        "backgammon_rate", "games_per_s"}


def test_swapped_seats_replay_the_same_dice():
    ids = np.arange(40, 52)
    a, b = RandomAgent(1), RandomAgent(2)
    first = play_games(STD, [a, b], ids.size, 7, game_ids=ids, record=True)
    second = play_games(STD, [b, a], ids.size, 7, game_ids=ids, record=True)
    for r1, r2 in zip(first.records, second.records):
        assert r1[0]["seat"] == r2[0]["seat"]          # the same seat opens: the other agent
        k = min(len(r1), len(r2))
        assert [t["dice"] for t in r1[:k]] == [t["dice"] for t in r2[:k]]
        assert [t["seat"] for t in r1[:k]] == [t["seat"] for t in r2[:k]]
    # and different game ids give different dice
    other = play_games(STD, [a, b], ids.size, 7, game_ids=ids + 1000, record=True)
    assert [t["dice"] for t in other.records[0][:5]] != [t["dice"] for t in first.records[0][:5]]


def test_deterministic_bot_against_itself_scores_exactly_zero():
    r = run_match("pubeval", "pubeval", STD, 40, seed=3, progress=False)
    assert r["ppg"] == 0 and r["ppg_ci95"] == 0 and r["win_rate"] == 0.5


def test_report_has_the_documented_keys_and_is_batch_independent():
    r1 = run_match("heuristic", "pubeval", STD, 16, seed=5, batch=4, progress=False)
    r2 = run_match("heuristic", "pubeval", STD, 16, seed=5, batch=100, progress=False)
    assert KEYS <= r1.keys()
    assert (r1["agent"], r1["opponent"], r1["variant"], r1["games"]) == ("heuristic", "pubeval", "standard", 16)
    for k in ("ppg", "ppg_ci95", "win_rate", "gammon_rate", "backgammon_rate"):
        assert r1[k] == r2[k]
    assert r1["games_per_s"] > 0 and 0 <= r1["backgammon_rate"] <= r1["gammon_rate"] <= 1


def test_keep_results_gives_the_paired_points():
    r = run_match("pubeval", "random", STD, 20, seed=1, progress=False, keep_results=True)
    first, second = r["results"]
    assert first.shape == second.shape == (10,)
    assert r["ppg"] == pytest.approx((first.sum() + second.sum()) / 20)


@pytest.mark.parametrize("games", [0, 7, -2, 3.0])
def test_bad_game_counts_are_refused(games):
    with pytest.raises(ValueError, match="games must be an even number"):
        run_match("random", "random", STD, games)


def test_bad_agent_object_is_refused():
    with pytest.raises(TypeError, match="choose"):
        run_match(object(), "random", STD, 2)
