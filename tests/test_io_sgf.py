"""GNU Backgammon's SGF: plays, cube actions and the rules of each game."""

from abak_rl.io.sgf import sgf_play, sgf_text


def test_plays_in_gnubgs_own_letters():
    # from a file gnubg 1.07 wrote (`save match x.sgf`): White 21: 13/11 24/23, Black 41: 6/2* 2/1*,
    # White 32: 25/22 25/23 (two checkers entering), Black 31: 3/0 1/0 (bearing off)
    assert sgf_play("13/11 24/23", [2, 1], 0) == "21mkxw"
    assert sgf_play("6/2* 2/1*", [4, 1], 1) == "41swwx"
    assert sgf_play("bar/22 bar/23", [3, 2], 0) == "32yvyw"
    assert sgf_play("3/off 1/off", [3, 1], 1) == "31vzxz"
    assert sgf_play("", [5, 4], 1) == "54"                 # no legal play: the dice alone


def _rec(winner, points, turns=None, **extra):
    turns = turns or [{"mover": winner, "dice": [3, 1], "play": "8/5 6/5"}]
    return {"variant": "standard", "players": ["a b", "c"], "game_id": 0, "turns": turns,
            "result": {"winner": winner, "points": points, "turns": 1}, **extra}


def test_rules_scores_and_cube_actions():
    money = sgf_text([_rec(0, 2), _rec(1, 1)])
    assert money.count("RU[NoCube]") == 2 and "PW[a_b]PB[c]" in money
    assert "MI[length:0][game:1][ws:2][bs:0]" in money and "RE[B+1]" in money
    jacoby = sgf_text([_rec(0, 1, cube=True, jacoby=True)])
    assert "RU[Jacoby]" in jacoby
    assert "RU[" not in sgf_text([_rec(0, 1, cube=True, jacoby=False)])   # money, cube, no Jacoby
    drop = [{"mover": 1, "cube": "double", "value": 2}, {"mover": 0, "cube": "drop"}]
    m = dict(match_length=3, cube=True)
    match = sgf_text([_rec(0, 2, **m), _rec(1, 1, **m), _rec(1, 1, drop, **m), _rec(0, 1, **m)])
    games = match.split("(;")[1:]
    assert "RU[Crawford]" in games[0] and "[ws:0][bs:0]" in games[0]
    assert "RU[Crawford:CrawfordGame]" in games[1] and "[ws:2][bs:0]" in games[1]
    assert "RU[Crawford]" in games[2] and games[2].endswith(";B[double]\n;W[drop])\n")
    assert "[ws:2][bs:2]" in games[3] and "RE[W+1]" in games[3]
