"""scripts/abak_study.py: which class made each movement of a play, the study's game loop, and
the consistency of the figures its main function reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import abak_study as st  # noqa: E402
from abak_rl.agents.heuristic import HeuristicAgent  # noqa: E402
from abak_rl.engine.abak import board as ab  # noqa: E402
from abak_rl.engine.abak.movegen import legal_afterstates  # noqa: E402
from abak_rl.engine.abak.variant import row_from_stacks, starting_row, validate_boards  # noqa: E402
from abak_rl.engine.board import load_starting_layouts  # noqa: E402
from abak_rl.engine.game import play_games  # noqa: E402
from abak_rl.engine.variants import get_variant  # noqa: E402

S, G, D, K, O, E = range(1, 7)


def stacked(columns: dict, bar: str = "") -> np.ndarray:
    """A row from {mover's point: letters bottom to top}, upper case = the mover."""
    board = [""] * 24
    for p, s in columns.items():
        board[p - 1] = s
    return row_from_stacks(board, bar)


def engine_plays(row: np.ndarray, dice) -> dict[str, np.ndarray]:
    a = legal_afterstates(row[None], np.array([dice]), with_plays=True)
    return dict(zip(a.plays, a.boards))


def attribute_all(row, dice) -> dict[str, list]:
    """Every engine play of (row, dice) attributed; each must give its own afterstate."""
    return {p: st.attribute_play(row, p, after) for p, after in engine_plays(row, dice).items()}


def test_general_backward_move_is_the_generals_and_backward():
    plays = attribute_all(stacked({5: "G", 13: "S", 20: "s"}), (2, 1))
    soldier, general = plays["13/12 5/7"]
    assert (soldier.cls, soldier.backward) == (S, False)
    assert (general.cls, general.src, general.dst, general.backward) == (G, 5, 7, True)
    forward = plays["13/11 5/4"][1]
    assert (forward.cls, forward.backward) == (G, False)
    # only the General may go backward: a Soldier on 5 cannot have played 5/7
    with pytest.raises(ValueError):
        st.attribute_play(stacked({5: "S", 13: "S", 20: "s"}), "13/12 5/7")


def test_druid_trap_is_marked_and_is_no_hit():
    row = stacked({13: "D", 10: "s", 3: "S"})
    plays = attribute_all(row, (3, 1))
    trap, other = plays["13/10^ 3/2"]
    assert (trap.cls, trap.trap, trap.hit) == (D, True, 0)
    assert (other.cls, other.trap) == (S, False)
    assert st.trapped_counts(engine_plays(row, (3, 1))["13/10^ 3/2"][None]).tolist() == [1]
    # moving on frees the prisoner: nothing trapped after 13/10^ 10/9
    assert st.trapped_counts(engine_plays(row, (3, 1))["13/10^ 10/9"][None]).tolist() == [0]


def test_jane_second_lander_hits_the_guard():
    plays = attribute_all(stacked({24: "S", 23: "S", 20: "k"}), (4, 3))
    first, second = plays["24/20 23/20*"]
    assert (first.cls, first.hit, first.jane) == (S, 0, False)
    assert (second.cls, second.hit, second.jane) == (S, K, True)
    # a Jane completed by the General, begun by the Even Wounded (a 6)
    plays = attribute_all(stacked({6: "SG", 9: "E", 3: "k"}), (3, 6))
    first, second = plays["9/3 6/3*"]
    assert (first.cls, first.jane) == (E, False)
    assert (second.cls, second.hit, second.jane) == (G, K, True)
    # a plain hit is no Jane
    hit = st.attribute_play(stacked({24: "S", 20: "s"}), "24/20*")[0]
    assert (hit.hit, hit.jane) == (S, False)


def test_bar_entry_with_two_classes_on_the_bar():
    row = stacked({1: "s"}, bar="GS")
    plays = attribute_all(row, (3, 2))
    assert [m.cls for m in plays["bar(G)/22 bar(S)/23"]] == [G, S]
    assert [m.cls for m in plays["bar(S)/22 bar(G)/23"]] == [S, G]
    # a bare `bar` (older notation) is resolved from the afterstate, and is open without it
    for play, after in engine_plays(row, (3, 2)).items():
        bare = play.replace("bar(G)", "bar").replace("bar(S)", "bar")
        assert [m.cls for m in st.attribute_play(row, bare, after)] == [m.cls for m in plays[play]]
    with pytest.raises(ValueError, match="open"):
        st.attribute_play(row, "bar/22 bar/23")
    # both enter the same point on a double: the stack order tells which moved on
    row = stacked({10: "S", 1: "s"}, bar="GS")
    for play, after in engine_plays(row, (4, 4)).items():
        bare = play.replace("bar(G)", "bar").replace("bar(S)", "bar")
        assert ([m.cls for m in st.attribute_play(row, bare, after)]
                == [m.cls for m in st.attribute_play(row, play, after)])
    moved_on = st.attribute_play(row, "bar(G)/21 bar(S)/21 21/17 17/13")
    assert [m.cls for m in moved_on] == [G, S, S, S]


def test_a_play_that_does_not_give_the_afterstate_is_refused():
    row = stacked({5: "G", 13: "S", 20: "s"})
    plays = engine_plays(row, (2, 1))
    with pytest.raises(ValueError, match="afterstate"):
        st.attribute_play(row, "13/12 5/7", plays["13/11 5/4"])


def test_the_study_loop_plays_the_same_games_as_play_games():
    v = get_variant("abak")
    ref = play_games(v, [HeuristicAgent(1), HeuristicAgent(2)], 3, seed=5, record=True)
    rec = st.play_recorded(v, [HeuristicAgent(1), HeuristicAgent(2)], 3, seed=5)
    assert (rec.results.points == ref.points).all() and (rec.results.winner == ref.winner).all()
    assert (rec.results.turns == ref.turns).all()
    for g, game in enumerate(ref.records):
        mine = np.flatnonzero(rec.game == g)
        assert [rec.plays[i] for i in mine] == [t["play"] for t in game]
        # each afterstate is the next position seen from the other side
        for i, t in zip(mine[:-1], game[1:]):
            assert (ab.flip(rec.after[i][None])[0] == t["before"]).all()


def test_a_start_with_ten_soldiers_is_played_though_validation_refuses_it():
    std = load_starting_layouts()["abak"]
    a, point = st.with_soldier(std, "K", 13)
    assert point == 13 and a["13"] == "SSSS" and a["8"] == "SKS"
    row = st.layout_rows((a, std))
    assert (row == starting_row()).sum() == ab.WIDTH - 1     # one slot differs
    with pytest.raises(ValueError, match="too many checkers of a class"):
        validate_boards(row)
    v = get_variant("abak")
    rec = st.play_recorded(v, [HeuristicAgent(0)] * 2, 2, seed=2, start=row, with_plays=False)
    assert (rec.results.points >= 1).all()
    first_turns = [np.flatnonzero(rec.game == g)[0] for g in range(2)]
    for i in first_turns:          # the side with 10 Soldiers is seat 0, whoever starts
        mine = ab.stacks(rec.before[i])
        side = 1 if rec.seat[i] == 0 else -1
        assert (mine == side * S).sum() == 10 and (mine == -side * S).sum() == 9


def test_main_on_a_few_heuristic_games_is_consistent(tmp_path):
    out = tmp_path / "study.json"
    report = st.main(["--agent", "heuristic", "--games", "4", "--seed", "3", "--replace", "2",
                      "--targets", "G,K8", "--batch", "3", "--out", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    assert report["agent"] == "heuristic" and report["seed"] == 3
    assert report["command"].startswith("python scripts/abak_study.py --agent heuristic")
    sp = report["self_play"]
    games, per_class, pg = sp["games"], sp["per_class"], sp["per_game"]
    assert games == 4 and list(per_class) == list("SGDKOE")
    moves = sum(c["movements_per_game"] for c in per_class.values()) * games
    assert moves == pytest.approx(sp["movements"]) == pytest.approx(pg["movements"] * games)
    assert sum(c["share_of_movements"] for c in per_class.values()) == pytest.approx(1.0)
    hits = sum(c["hits_per_game"] for c in per_class.values())
    assert hits == pytest.approx(pg["hits"])
    assert sum(c["hit_by_opponent_per_game"] for c in per_class.values()) == pytest.approx(hits)
    assert pg["jane_hits"] <= per_class["K"]["hit_by_opponent_per_game"] + 1e-9
    assert pg["general_backward_movements"] <= per_class["G"]["movements_per_game"] + 1e-9
    assert per_class["S"]["movements_per_checker_per_game"] == pytest.approx(
        per_class["S"]["movements_per_game"] / 9)
    length = sp["game_length_turns"]
    assert sp["turns"] == pytest.approx(length["mean"] * games)
    assert length["min"] <= length["median"] <= length["max"]
    assert 0 <= sp["backgammon_rate"] <= sp["gammon_rate"] <= 1
    # the same games, counted straight from play_games' records
    # (--batch 3: games 0..2, then game 3)
    h = HeuristicAgent(3)
    ref = play_games(get_variant("abak"), [h, h], 3, seed=3, record=True)
    ref2 = play_games(get_variant("abak"), [h, h], 1, seed=3, record=True, game_ids=np.array([3]))
    tokens = sum(len(t["play"].split()) for r in (ref, ref2) for g in r.records for t in g)
    assert sp["movements"] == tokens
    rep = report["replace"]
    assert set(rep) == {"G", "K8"} and rep["K8"]["point"] == 8 and rep["G"]["point"] == 6
    for r in rep.values():
        assert r["games"] == 2 and r["pairs"] == 1 and -3 <= r["a_ppg"] <= 3
        assert r["a_ppg"] in (-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3)


def test_bad_targets_are_refused():
    with pytest.raises(ValueError):
        st.parse_targets("G,S")
    with pytest.raises(ValueError):
        st.parse_targets("D8")
    assert st.parse_targets("k,K8, e") == [("K13", "K", 13), ("K8", "K", 8), ("E", "E", None)]
