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


def test_mat_records_one_file_per_seating_standard_only(tmp_path, capsys):
    rec = tmp_path / "games.mat"
    assert main(["evaluate", "agent=pubeval", "opponent=heuristic", "games=4", f"records={rec}"]) == 0
    swapped = tmp_path / "games_swapped.mat"
    for path in (rec, swapped):
        text = path.read_text()
        assert "point match" in text and "Game 1" in text and "Game 2" in text
        assert "pubeval" in text and "heuristic" in text
    assert main(["evaluate", "agent=pubeval", "opponent=random", "games=2", "variant=nackgammon",
                 f"records={tmp_path / 'n.mat'}"]) == 2
    assert ".mat is for standard backgammon" in capsys.readouterr().err
