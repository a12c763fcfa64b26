"""GNU Backgammon, the program: records it imports exactly, its analysis, it as an opponent.

These tests drive the real gnubg (Debian's package; `make test` installs it when it can) and
skip, saying why, when it is not installed.
"""

import json

import numpy as np
import pytest

from abak_rl.agents.cube_policies import ThresholdCube
from abak_rl.agents.gnubg_program import GnubgCube, GnubgProgram, GnubgProgramAgent, find_gnubg
from abak_rl.agents.heuristic import HeuristicAgent
from abak_rl.agents.pubeval import PubevalAgent
from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.cube import CubeContext
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant
from abak_rl.evaluate.cube_records import play_recorded
from abak_rl.io.records import game_records, player_name, write_file

STD = get_variant("standard")
pytestmark = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (the gnubg program) "
                                "is not installed: apt-get install gnubg")
LONG = "export:checkpoints/pretrained/standard"


@pytest.fixture(scope="module")
def gnubg():
    with GnubgProgram() as prog:
        yield prog


def _pairs(play: str) -> list[tuple[int, int]]:
    out = []
    for part in (play or "").split():
        src, dst = part.rstrip("*").split("/")
        out.append((25 if src == "bar" else int(src), 0 if dst == "off" else int(dst)))
    return sorted(out)


def _check_imported(gnubg, path, records):
    """gnubg's import of `path` holds exactly the records' games: every play and cube action
    by the right player, the score before each game, the winner and the points."""
    got = gnubg.request("read", file=str(path))
    names = [player_name(p) for p in records[0]["players"]]
    assert sorted(got["names"].values()) == sorted(names)
    side_seat = {side: names.index(name) for side, name in got["names"].items()}
    assert len(got["games"]) == len(records)
    for rec, game in zip(records, got["games"]):
        ours = [(t["mover"], t.get("cube") or "move",
                 None if "cube" in t else (sorted(t["dice"]), _pairs(t["play"])))
                for t in rec["turns"]]
        theirs = []
        for side, action, dice, move in game["plays"]:
            if action == "move":
                theirs.append((side_seat[side], "move",
                               (sorted(dice), sorted((a, max(b, 0)) for a, b in move))))
            elif action in ("double", "take", "drop"):
                theirs.append((side_seat[side], action, None))
        assert theirs == ours, f"game {rec['game_id']}"
        assert side_seat[game["winner"]] == rec["result"]["winner"], f"game {rec['game_id']}"
        assert game["points"] == rec["result"]["points"], f"game {rec['game_id']}"
        if "score" in rec:
            by_seat = {side_seat["X"]: game["score"][0], side_seat["O"]: game["score"][1]}
            assert [by_seat[0], by_seat[1]] == rec["score"]


def test_cubeless_games_import_exactly_as_sgf(gnubg, tmp_path):
    results = play_games(STD, [PubevalAgent(0), RandomAgent(1)], 8, seed=0, record=True)
    recs = game_records(results, "standard", players=(LONG, "random"), seed=0)
    assert {1, 2, 3} <= {r["result"]["points"] for r in recs}, "the test wants (back)gammons"
    write_file(recs, tmp_path / "g.sgf")
    _check_imported(gnubg, tmp_path / "g.sgf", recs)


def _cubeful(match_length=0, jacoby=False, slots=4, seed=5):
    agents = [PubevalAgent(0), HeuristicAgent(1)]
    policies = [ThresholdCube(double_at=0.62), ThresholdCube(take_at=0.3)]
    _, per_slot = play_recorded(STD, agents, policies, np.arange(slots), seed, (LONG, "heuristic"),
                                match_length=match_length, jacoby=jacoby)
    return per_slot


@pytest.mark.parametrize("suffix,jacoby", [(".sgf", False), (".sgf", True), (".mat", True)])
def test_cubeful_money_sessions_import_exactly(gnubg, tmp_path, suffix, jacoby):
    recs = [r for slot in _cubeful(jacoby=jacoby, slots=6) for r in slot]
    turns = [t for r in recs for t in r["turns"]]
    assert {"double", "take", "drop"} <= {t.get("cube") for t in turns}, "the test wants cube actions"
    path = tmp_path / f"money{suffix}"
    write_file(recs, path)
    _check_imported(gnubg, path, recs)


@pytest.mark.parametrize("suffix", [".sgf", ".mat"])
def test_matches_import_exactly_with_scores_and_crawford(gnubg, tmp_path, suffix):
    matches = _cubeful(match_length=5, slots=3)
    assert any(r["crawford"] for m in matches for r in m), "the test wants a Crawford game"
    for i, m in enumerate(matches):
        assert max(m[-1]["score"]) < 5 and len(m) >= 2
        path = tmp_path / f"match{i}{suffix}"
        write_file(m, path)
        _check_imported(gnubg, path, m)


def test_program_agent_plays_legal_and_beats_pubeval(gnubg):
    agent = GnubgProgramAgent(STD, plies=0, program=gnubg)
    r1 = play_games(STD, [agent, PubevalAgent(0)], 10, seed=1)
    r2 = play_games(STD, [PubevalAgent(0), agent], 10, seed=1)
    assert (r1.seat_points(0).sum() + r2.seat_points(1).sum()) > 0


def test_program_cube_follows_gnubgs_own_recommendation(gnubg):
    from abak_rl.engine.game import random_play_positions
    boards, _ = random_play_positions(STD, 6, seed=4)
    boards = boards[(STD.winner_points(boards) == 0) & (STD.winner_points(STD.flip(boards)) == 0)][:150]
    cube = GnubgCube(plies=0, program=gnubg)
    ctx = CubeContext(value=np.ones(len(boards), np.int64), owner=np.zeros(len(boards), np.int64))
    from abak_rl.agents.gnubg_agent import to_gnubg
    from abak_rl.agents.gnubg_program import cube_fields
    raw = gnubg.request("cube", plies=0, items=[[to_gnubg(b), cube_fields(ctx, i)]
                                                 for i, b in enumerate(boards)])
    text = [r[5].lower() for r in raw]
    offer, accept = cube.offer(STD, boards, ctx), cube.accept(STD, boards, ctx)
    clear = [i for i, t in enumerate(text) if "optional" not in t]
    assert any(t.startswith("double") for t in text) and any(t.startswith("no double") for t in text)
    assert [offer[i] for i in clear] == [text[i].startswith("double") for i in clear]
    assert [accept[i] for i in clear] == [text[i].endswith("take") for i in clear]


def test_analyze_cli_json_one_entry_per_player(tmp_path, capsys):
    from abak_rl.cli import main
    results = play_games(STD, [PubevalAgent(0), HeuristicAgent(1)], 4, seed=2, record=True)
    write_file(game_records(results, "standard", players=("pubeval", "heuristic")), tmp_path / "a.sgf")
    assert main(["analyze", str(tmp_path / "a.sgf"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["player"] for r in rows] == ["pubeval", "heuristic"]
    for r in rows:
        assert r["games"] == 4 and r["unforced_moves"] > 10 and r["error_rate_memg"] > 0
        assert r["rating"] and r["doubtful"] + r["bad"] + r["very_bad"] >= 0
    assert main(["analyze", str(tmp_path / "missing.sgf")]) == 2
    assert "no such record file" in capsys.readouterr().err
