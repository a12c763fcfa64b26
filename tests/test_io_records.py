"""Game records: JSON lines for every variant, .mat text that GNU Backgammon's importer reads."""

import json
import re

import numpy as np
import pytest

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.game import GameResults, play_games
from abak_rl.engine.variants import get_variant
from abak_rl.io.position_json import rows_from_json
from abak_rl.io.records import (game_records, mat_play, mat_text, player_name, player_names,
                                read_jsonl, session_scores, write_records)
from abak_rl.io.sgf import sgf_text

STD = get_variant("standard")


def _moves(play: str) -> list[tuple[int, int]]:
    """A play as single movements in .mat numbers (bar 25, off 0), in the order listed."""
    out = []
    for part in play.split():
        src, dst = part.rstrip("*").split("/")
        out.append((25 if src in ("bar", "25") else int(src), 0 if dst in ("off", "0") else int(dst)))
    return out


def _play_on(board: np.ndarray, dice, play: str) -> np.ndarray:
    """Apply the movements one by one, checking each the way gnubg's importer does."""
    b = board.astype(np.int16).copy()
    pips = sorted(dice * 2 if dice[0] == dice[1] else dice)
    for src, dst in _moves(play):
        assert b[24] == 0 or src == 25, f"{play}: checkers on the bar must enter first"
        assert (b[24] if src == 25 else b[src - 1]) > 0, f"{play}: no checker on {src}"
        if dst == 0:
            assert (b[6:24] <= 0).all() and b[24] == 0, f"{play}: bearing off with checkers outside"
            higher = (b[src:6] > 0).any()
            die = next(d for d in pips if d == src or (d > src and not higher))
        else:
            die = src - dst
            assert b[dst - 1] >= -1, f"{play}: {dst} is blocked"
            if b[dst - 1] == -1:
                b[dst - 1], b[25] = 0, b[25] + 1
        pips.remove(die)
        b[24 if src == 25 else src - 1] -= 1
        if dst == 0:
            b[26] += 1
        else:
            b[dst - 1] += 1
    return b.astype(np.int8)


def _apply(board, dice, play):
    """Play `play` on `board`, check the result is one of the engine's legal afterstates, and
    return (afterstate, the engine's play string for it)."""
    after = STD.legal_afterstates(board[None], np.array([dice]), with_plays=True)
    mine = _play_on(board, list(dice), play)
    hits = np.flatnonzero((after.boards == mine).all(axis=1))
    assert len(hits) == 1, (play, after.plays)
    return after.boards[hits[0]], after.plays[hits[0]]


def _hand_game():
    """Seat 1 opens 41; eight turns; seat 0 enters two checkers from the bar and (say) wins."""
    script = [(1, (4, 1), "13/9 24/23"), (0, (3, 1), "6/5 8/5"), (1, (4, 1), "6/5 9/5"),
              (0, (3, 1), "24/21 6/5"), (1, (6, 5), "24/18 23/18"), (0, (4, 1), "8/4 5/4"),
              (1, (2, 1), "6/4 18/17"), (0, (2, 1), "bar/23 bar/24")]
    board = STD.initial_boards(1)[0]
    turns = []
    for seat, dice, play in script:
        after, ours = _apply(board, dice, play)
        turns.append({"seat": seat, "dice": list(dice), "before": board.copy(), "play": ours})
        board = STD.flip(after[None])[0]
    return GameResults(winner=np.array([0], np.int8), points=np.array([1], np.int8),
                       turns=np.array([len(turns)]), records=[turns])


def test_mat_of_a_known_game_line_by_line():
    records = game_records(_hand_game(), "standard", players=("alice", "bob"), seed=9)
    # gnubg's `export match mat` layout (the same game's first lines as exported by gnubg, with
    # the movements of each play listed from the highest point down)
    expected = [
        " 0 point match",
        "",
        " Game 1",
        " alice : 0                      bob : 0",
        "  1)                             41: 24/23 13/9 ",
        "  2) 31: 8/5 6/5                 41: 9/5 6/5 ",
        "  3) 31: 24/21 6/5               65: 24/18 23/18 ",
        "  4) 41: 8/4 5/4                 21: 18/17* 6/4* ",
        "  5) 21: 25/24 25/23             ",
        "      Wins 1 point",
        "",
        "",
    ]
    assert mat_text(records).split("\n") == expected


def test_mat_play_marks_only_the_first_landing_on_an_opponent_point():
    board = [0] * 24
    board[4] = -1                                   # an opposing blot on our 5-point
    assert mat_play("8/5* 6/5", board) == "8/5* 6/5 "
    assert mat_play("8/5 6/5*", board) == "8/5* 6/5 "
    assert mat_play("bar/22 6/off 5/off 4/off", board) == "25/22 6/0 5/0 4/0"


def test_records_hold_the_game_in_position_json():
    rec = game_records(_hand_game(), "standard", players=("alice", "bob"), seed=9, game_ids=[41])[0]
    assert rec["variant"] == "standard" and rec["players"] == ["alice", "bob"]
    assert rec["seed"] == 9 and rec["game_id"] == 41
    assert rec["result"] == {"winner": 0, "points": 1, "turns": 8}
    assert [t["mover"] for t in rec["turns"]] == [1, 0, 1, 0, 1, 0, 1, 0]
    assert rec["turns"][6]["play"] == "18/17* 6/4*"
    assert rec["turns"][7]["position"]["bar"] == [2, 0]
    _, rows = rows_from_json([t["position"] for t in rec["turns"]], "standard")
    assert (rows == np.stack([t["before"] for t in _hand_game().records[0]])).all()


def _import_mat(text: str):
    """Read .mat the way GNU Backgammon's ImportGame splits lines -> per game [(seat, dice, play)]."""
    games, current = [], None
    for line in text.split("\n"):
        if re.match(r"^ Game \d+$", line):
            current = []
            games.append(current)
            continue
        if current is None or not line.strip() or " : " in line:
            continue
        left, right = line, None
        first = line.find(":")
        second = line.find(":", first + 1) if first >= 0 else -1
        if first >= 0 and second > 3:
            left, right = line[:second - 3], line[second - 2:]
        elif len(line) > 15 and line.find("  ", 15) >= 0:
            k = line.find("  ", 15)
            left, right = line[:k], line[k + 1:]
        left = left[left.index(")") + 1:] if ")" in left else left
        for seat, part in ((0, left), (1, right)):
            part = (part or "").strip()
            m = re.match(r"^([1-6])([1-6]):(.*)$", part)
            if m:
                current.append((seat, (int(m[1]), int(m[2])), m[3].strip()))
            elif part.startswith("Wins"):
                current.append((seat, None, int(part.split()[1])))
    return games


def test_random_games_replay_from_the_mat_text():
    results = play_games(STD, [RandomAgent(1), RandomAgent(2)], 6, seed=4, record=True)
    records = game_records(results, "standard", players=("left player", "right:one"), seed=4)
    text = mat_text(records)
    assert " left_player : 0" in text and "right_one : " in text
    games = _import_mat(text)
    assert len(games) == 6
    for g, moves in enumerate(games):
        *plays, (_, none, points) = moves
        assert none is None and points == results.points[g]
        assert [s for s, _, _ in plays] == [t["mover"] for t in records[g]["turns"]]
        board = STD.initial_boards(1)[0]
        for seat, dice, play in plays:
            after, _ = _apply(board, dice, play)   # each play is legal from its player's view
            board = STD.flip(after[None])[0]
        assert STD.winner_points(after[None])[0] == points and plays[-1][0] == results.winner[g]


def test_write_records_picks_the_format_by_suffix(tmp_path):
    results = play_games(STD, [RandomAgent(1), RandomAgent(2)], 3, seed=2, record=True)
    recs = write_records(results, "standard", tmp_path / "games.jsonl", players=("a", "b"), seed=2)
    assert read_jsonl(tmp_path / "games.jsonl") == json.loads(json.dumps(recs))
    write_records(results, "standard", tmp_path / "games.sgf", players=("a", "b"), seed=2)
    assert (tmp_path / "games.sgf").read_text() == sgf_text(recs)
    assert (tmp_path / "games.sgf").read_text().count("(;FF[4]GM[6]") == 3


def test_mat_refuses_money_games_without_the_jacoby_rule(tmp_path):
    # gnubg reads a .mat money session under its own Jacoby setting (on by default): these
    # cubeless games' gammons would count 1; the .sgf carries the rule
    results = play_games(STD, [RandomAgent(1), RandomAgent(2)], 2, seed=2, record=True)
    with pytest.raises(ValueError, match="Jacoby.*write .sgf"):
        write_records(results, "standard", tmp_path / "games.mat")
    assert not (tmp_path / "games.mat").exists()


def _game(winner, points, players=("a", "b"), **extra):
    turns = [{"mover": winner, "dice": [3, 1], "play": "8/5 6/5",
              "position": {"board": [0] * 24}}]
    return {"variant": "standard", "players": list(players), "game_id": 0, "turns": turns,
            "result": {"winner": winner, "points": points, "turns": 1}, **extra}


def test_long_names_keep_the_names_line_readable():
    # gnubg reads the first name up to ':', the score, then the second name after a blank;
    # names over 31 characters are cut by gnubg itself, so they are shortened here, head and tail
    long = "export:checkpoints/pretrained/standard"
    assert player_name(long) == "export_check..etrained/standard" and len(player_name(long)) == 31
    assert player_name("a b:c[d]") == "a_b_c_d_"
    assert player_names(["x" * 40, "x" * 40])[0] != player_names(["x" * 40, "x" * 40])[1]
    text = mat_text([_game(0, 1, players=(long, "pubeval"), match_length=7, jacoby=False)] * 1,
                    match_length=7)
    line = text.split("\n")[3]
    first, _, rest = line.strip().partition(":")
    assert first.strip() == player_name(long)
    score, _, second = rest.strip().partition(" ")
    assert score == "0" and second.strip().split(" :")[0] == "pubeval"


def test_match_scores_never_pass_the_match_length():
    # a gammon worth 4 at 2-0 in a 5-point match takes only the 3 points the winner needs ...
    games = [_game(0, 2), _game(1, 1), _game(0, 4)]
    assert session_scores(games, 5) == [(0, 0), (2, 0), (2, 1)]
    # ... and no game may follow the end of the match (gnubg would drop it)
    with pytest.raises(ValueError, match="game 4 follows the end of the 5-point match .score 5-1"):
        session_scores(games + [_game(1, 1)], 5)
    with pytest.raises(ValueError, match="follows the end"):
        mat_text(games + [_game(1, 1)], match_length=5)
    assert session_scores(games + [_game(1, 1)], 0)[-1] == (6, 1)     # money: running totals


def test_cube_actions_in_the_mat_columns():
    rec = _game(0, 2, match_length=5)
    rec["turns"] = [
        {"mover": 0, "dice": [3, 1], "play": "8/5 6/5", "position": {"board": [0] * 24}},
        {"mover": 1, "cube": "double", "value": 2},
        {"mover": 0, "cube": "take"},
        {"mover": 1, "dice": [6, 5], "play": "24/13", "position": {"board": [0] * 24}},
        {"mover": 0, "cube": "double", "value": 4},
        {"mover": 1, "cube": "drop"}]
    rec["result"] = {"winner": 0, "points": 2, "turns": 2}
    lines = mat_text([rec]).split("\n")
    assert lines[0] == " 5 point match"
    assert lines[4] == "  1) 31: 8/5 6/5                  Doubles => 2"
    assert lines[5] == "  2)  Takes                      65: 24/13 "
    assert lines[6] == "  3)  Doubles => 4                Drops"
    assert lines[7] == "      Wins 2 points"
    rec["turns"] = rec["turns"][:2]
    with pytest.raises(ValueError, match="not answered|winner"):
        mat_text([rec])


def test_nackgammon_records_as_json_lines_but_not_mat(tmp_path):
    v = get_variant("nackgammon")
    results = play_games(v, [RandomAgent(1), RandomAgent(2)], 2, seed=1, record=True)
    recs = write_records(results, "nackgammon", tmp_path / "n.jsonl")
    assert recs[0]["turns"][0]["position"]["variant"] == "nackgammon"
    with pytest.raises(ValueError, match="standard backgammon only"):
        mat_text(recs)


def test_unrecorded_games_are_refused():
    results = play_games(STD, [RandomAgent(1), RandomAgent(2)], 1, seed=1)
    with pytest.raises(ValueError, match="record=True"):
        game_records(results, "standard")
