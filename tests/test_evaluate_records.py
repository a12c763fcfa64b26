"""`abak-rl evaluate records=...`: every game of a match written as a game record."""

import json

from abak_rl.cli import main
import numpy as np

from abak_rl.engine.variants import get_variant
from abak_rl.io.position_json import row_from_json


def test_jsonl_records_hold_both_seatings_and_the_results(tmp_path, capsys):
    out, rec = tmp_path / "m.json", tmp_path / "games.jsonl"
    assert main(["evaluate", "agent=pubeval", "opponent=random", "games=6", "variant=abak",
                 f"out={out}", f"records={rec}"]) == 0
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert len(lines) == 6
    # the same dice sequences (game ids 0..2) from both seats
    assert [r["game_id"] for r in lines] == [0, 1, 2, 0, 1, 2]
    assert {tuple(r["players"]) for r in lines} == {("pubeval", "random"), ("random", "pubeval")}
    report = json.loads(out.read_text())
    wins = sum((r["result"]["winner"] == r["players"].index("pubeval")) for r in lines)
    assert wins / 6 == report["win_rate"]
    start = get_variant("abak").initial_boards(1)[0]
    for r in lines:
        assert r["variant"] == "abak" and len(r["turns"]) == r["result"]["turns"]
        _, first = row_from_json(r["turns"][0]["position"])
        assert np.array_equal(first, start)          # every game starts from the start


def test_sgf_records_one_file_per_seating_standard_only(tmp_path, capsys):
    rec = tmp_path / "games.sgf"
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=4", f"records={rec}"]) == 0
    swapped = tmp_path / "games_swapped.sgf"
    for path, first in ((rec, "pubeval"), (swapped, "heuristic")):
        text = path.read_text()
        assert text.count("(;FF[4]GM[6]") == 2 and "RU[NoCube]" in text
        assert f"PW[{first}]" in text
    assert main(["evaluate", "agent=pubeval", "opponent=random", "games=2", "variant=nackgammon",
                 f"records={tmp_path / 'n.sgf'}"]) == 2
    assert ".sgf is for standard backgammon" in capsys.readouterr().err


def test_mat_refused_for_cubeless_games_before_any_game_is_played(tmp_path, capsys):
    rec = tmp_path / "games.mat"
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=4", f"records={rec}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Jacoby" in err and ".sgf" in err
    assert not rec.exists()


def test_cubeful_records_for_money_and_matches(tmp_path, capsys):
    # money with the Jacoby rule: one .mat session per seating, cube actions included
    rec = tmp_path / "money.mat"
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=4", "cube=money",
                 "jacoby=true", f"records={rec}", f"out={tmp_path / 'r.json'}"]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["records"] == [str(rec), str(tmp_path / "money_swapped.mat")]
    text = rec.read_text() + (tmp_path / "money_swapped.mat").read_text()
    assert "Doubles => 2" in text and text.count(" Game ") == report["games_played"]
    # matches: one file per match and seating; JSON lines hold the score and the Crawford flag
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=2", "match_length=3",
                 f"records={tmp_path / 'm.jsonl'}"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert all(r["match_length"] == 3 and max(r["score"]) < 3 for r in lines)
    assert lines[0]["score"] == [0, 0]
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=2", "match_length=3",
                 f"records={tmp_path / 'm.sgf'}"]) == 0
    assert sorted(p.name for p in tmp_path.glob("m_*.sgf")) == ["m_0001.sgf", "m_0001_swapped.sgf"]
    assert "MI[length:3]" in (tmp_path / "m_0001.sgf").read_text()
