"""`abak-rl play`: a whole game against the bot driven through stdin."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import numpy as np

import pytest

from abak_rl.export.cli import play_main
from abak_rl.export.exporters import export_checkpoint
from abak_rl.export.play import match_play

from test_export import _abak_ok, make_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    d = tmp_path_factory.mktemp("play")
    make_checkpoint(d / "ckpt.pt", "standard", hidden=8, seed=2)
    export_checkpoint(d / "ckpt.pt", "safetensors", d / "out", verify=0)
    return d / "out"


class Human(io.StringIO):
    """stdin that answers each prompt the game wrote last: a scripted list first, then a
    default answer per kind of prompt; stops (EOF) after `limit` lines."""

    def __init__(self, out: io.StringIO, script=(), play="1", roll="", cube="take", limit=2000):
        super().__init__()
        self.out, self.script, self.limit = out, list(script), limit
        self.answers = {"Your play": play, "press Enter to roll": roll, "take or pass": cube}
        self.asked = 0

    def readline(self, *_):
        self.asked += 1
        if self.asked > self.limit:
            return ""
        if self.script:
            return self.script.pop(0) + "\n"
        last = self.out.getvalue().rsplit("\n", 1)[-1]
        for key, answer in self.answers.items():
            if key in last:
                return answer + "\n"
        raise AssertionError(f"unexpected prompt {last!r}")


def play(model, args=(), **human):
    out = io.StringIO()
    rc = play_main(["--model", str(model), *args], stdin=Human(out, **human), stdout=out)
    return rc, out.getvalue()


def test_a_whole_game_ends_with_a_result(bot):
    rc, out = play(bot, ["--seed", "4"])
    assert rc == 0
    assert "Opening roll" in out and "+------------------+" in out
    assert ("You win" in out) != ("The bot wins" in out)
    assert out.count("the bot rolled") >= 3 and out.count("you played") >= 3
    # the same seed replays the same game
    assert play(bot, ["--seed", "4"])[1] == out


def test_bad_input_asks_again_with_a_reason(bot):
    rc, out = play(bot, ["--seed", "1"], script=["foo", "99", "24/1 1/off", "hint", "board"], limit=12)
    assert rc == 0
    assert "Not accepted: 'foo' is neither a play number nor a play" in out
    assert "Not accepted: there is no play number 99" in out
    assert "Not accepted: '24/1 1/off' is not a legal play" in out
    assert "equity" in out                                  # the hint was shown
    assert "Leaving the game (end of input)" in out         # EOF after 12 answers: clean exit


def test_quit_and_eof_leave_cleanly(bot):
    rc, out = play(bot, ["--seed", "2"], script=["quit"])
    assert rc == 0 and "Leaving the game (quit)" in out and "--seed 2" in out
    rc, out = play(bot, ["--seed", "2"], limit=0)
    assert rc == 0 and "Leaving the game (end of input)" in out


def constant_bot(tmp_path, p_win):
    """A bot whose net says every afterstate wins p_win for the player who made it, no gammons:
    the player to move then always has 1 - p_win before its roll (cube decisions are known)."""
    make_checkpoint(tmp_path / "c.pt", "standard", hidden=4, constant=[p_win, 1e-6, 1e-6, 1e-6, 1e-6])
    export_checkpoint(tmp_path / "c.pt", "safetensors", tmp_path / "out", verify=0)
    return tmp_path / "out"


def test_cube_the_bot_doubles_and_the_human_passes(tmp_path):
    # 75% for the player to move: Janowski says double, take (seed 6: the human opens, the bot
    # has the first cube decision)
    rc, out = play(constant_bot(tmp_path, 0.25), ["--seed", "6", "--cube"], cube="pass")
    assert rc == 0
    assert "The bot doubles to 2.\ntake or pass? pass" in out
    assert out.rstrip().endswith("The bot wins 1 point (the double was passed) after "
                                 + out.rstrip().rsplit("after ", 1)[1])


def test_cube_the_human_doubles_and_the_bot_takes_then_redoubles(tmp_path):
    # seed 5: the bot opens, so the human has the first cube decision
    rc, out = play(constant_bot(tmp_path, 0.25), ["--seed", "5", "--cube"], roll="double", cube="take")
    assert rc == 0
    assert "You double to 2. The bot takes." in out
    assert "cube 2 (the bot's)" in out
    assert "The bot doubles to 4.\ntake or pass? take" in out
    assert "cube 4 (yours)" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith(("You win", "The bot wins"))
    points = int(last.split()[2 if last.startswith("You") else 3])
    cube = int(out.rsplit("; cube ", 1)[1].split()[0])
    result = {"a single game": 1, "a gammon": 2, "a backgammon": 3}[last.split("(")[1].split(")")[0]]
    assert points == cube * result


def test_cube_the_bot_passes_a_double_when_too_far_behind(tmp_path):
    # 95% for the player to move: the bot passes the human's double
    rc, out = play(constant_bot(tmp_path, 0.05), ["--seed", "5", "--cube"], roll="double")
    assert rc == 0
    assert "You double to 2. The bot passes." in out
    assert out.rstrip().splitlines()[-1].startswith("You win 1 point (the double was passed)")


@pytest.mark.skipif(not _abak_ok(), reason="abak engine unavailable")
def test_abak_board_shows_classes(tmp_path):
    make_checkpoint(tmp_path / "a.pt", "abak", hidden=4)
    export_checkpoint(tmp_path / "a.pt", "onnx", tmp_path / "out", verify=0)
    rc, out = play(tmp_path / "out", ["--seed", "5"], limit=6)
    assert rc == 0
    board = out.split("starting position")[1]
    assert "G" in board and "D" in board and "g" in board and "d" in board
    assert "Leaving the game" in out


def test_match_play_understands_notation():
    plays = ["24/21 24/21 8/5 6/3", "13/10 13/10 8/5 8/5", "8/5 6/3", "bar/22 6/3*", "6/3 8/5"]
    assert match_play("2", plays) == 1
    assert match_play(" 8/5   6/3 ", plays) == 2
    assert match_play("13/10(2) 8/5(2)", plays) == 1
    assert match_play("8/5 24/21 6/3 24/21", plays) == 0    # any order
    assert match_play("6/3 bar/22", plays) == 3              # hit mark optional
    with pytest.raises(ValueError, match=r"fits several legal plays \(1, 2\)"):
        match_play("8/5* 6/3", ["8/5 6/3", "6/3 8/5"])   # Abak: move order can matter
    with pytest.raises(ValueError, match="no play number 6"):
        match_play("6", plays)


def test_command_line_entry_point(bot):
    proc = subprocess.run([sys.executable, "-m", "abak_rl.cli", "play", "--model", str(bot), "--seed", "9"],
                          input="1\n1\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Leaving the game (end of input)" in proc.stdout and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "abak_rl.cli", "play", "--model", str(bot.parent / "nope")],
                          input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not found" in proc.stderr


def test_one_checkers_moves_may_be_joined():
    plays = ["18/16 16/13", "24/21 13/11", "18/15 13/11"]
    assert match_play("18/13", plays) == 0                  # one checker, both dice
    assert match_play("18/16/13", plays) == 0
    assert match_play("13/11 18/15", plays) == 2
    hits = ["18/16* 16/13", "18/15 15/13", "24/21 13/11"]   # two ways there, two afterstates
    with pytest.raises(ValueError, match=r"fits several legal plays \(1\. 18/16\* 16/13; 2\. 18/15"):
        match_play("18/13", hits)
    assert match_play("18/16*/13", hits) == 0               # the path names which one
    assert match_play("bar(S)/22 22/16", ["bar(G)/22 6/1", "bar(S)/22 22/16"]) == 1
    with pytest.raises(ValueError, match="not a legal play"):
        match_play("18/10", plays)


def test_dice_high_low_and_long_lists_are_cut(bot):
    from abak_rl.export.play import LIST_MAX, TerminalGame, dice_text
    from abak_rl.inference import load_exported
    assert dice_text((1, 6)) == "6-1" and dice_text([4, 4]) == "4-4"
    out = io.StringIO()
    game = TerminalGame(load_exported(bot), 1, stdout=out)
    game.list_plays([f"{p}/1" for p in range(2, 86)])
    lines = out.getvalue().splitlines()
    assert len(lines) == LIST_MAX + 1 and "... and 64 more" in lines[-1]
    rc, text = play(bot, ["--seed", "3"], limit=40)
    import re
    rolls = re.findall(r"(?:You rolled|the bot rolled) (\d)-(\d)", text)
    assert rolls and all(a >= b for a, b in rolls)
    assert all(len(re.findall(r"^ +\d+\. ", chunk, re.M)) <= LIST_MAX
               for chunk in text.split("Legal plays:")[1:])


def test_abak_board_has_a_legend_of_the_classes():
    from abak_rl.engine.variants import get_variant
    from abak_rl.io.diagram import diagram
    pic = diagram(get_variant("abak").initial_boards(1)[0], "abak")
    assert "S soldier, G general, D druid, K guard, O odd wounded, E even wounded" in pic
    assert "soldier" not in diagram(get_variant("standard").initial_boards(1)[0], "standard")


def test_a_match_is_played_to_its_length_with_the_crawford_rule(bot):
    """--match-length 3 (seed 8: 2-0, then 2-1, then 3-1): games until one side has 3 points, each
    game's points added to the score shown, the Crawford game (the first at 1-away) without the
    cube, after it a leader at 1-away never offered the cube; a new game id per game, so the seed
    replays the match."""
    rc, out = play(bot, ["--seed", "8", "--match-length", "3"], roll="")
    assert rc == 0
    assert "3-point match with the cube" in out.splitlines()[0]
    scores = [tuple(int(x) for x in re.match(r"Score: you (\d+), the bot (\d+)", line).groups())
              for line in out.splitlines() if line.startswith("Score: you ")]
    assert scores == [(2, 0), (2, 1), (3, 1)]
    assert out.rstrip().splitlines()[-1] == "You win the match 3-1 after 3 games."
    games = out.split("\nGame ")[1:]
    assert [g.splitlines()[0] for g in games] == [
        "1: you 0, the bot 0 (3-point match)",
        "2: you 2, the bot 0 (3-point match, the Crawford game: no cube)",
        "3: you 2, the bot 1 (3-point match)"]
    assert "press Enter to roll" in games[0]                 # the human may double in game 1
    for g in games[1:]:                                      # Crawford, then the human at 1-away
        assert "press Enter to roll" not in g
    assert "doubles" not in games[1]
    assert play(bot, ["--seed", "8", "--match-length", "3"], roll="")[1] == out


def test_in_a_match_the_bot_plays_and_hints_by_match_winning_chance(bot):
    """The hint in a match gives match-winning chances; a bad length is one line."""
    rc, out = play(bot, ["--seed", "1", "--match-length", "5"], script=["", "hint"], limit=4)
    assert rc == 0 and "match-winning chance" in out and "Leaving the game" in out
    for bad in ("-1", "26"):
        err = io.StringIO()
        sys_err, sys.stderr = sys.stderr, err
        try:
            assert play_main(["--model", str(bot), "--match-length", bad]) == 2
        finally:
            sys.stderr = sys_err
        assert err.getvalue().count("\n") == 1 and "--match-length must be from 1 to 25" in err.getvalue()


def test_a_dead_cube_is_not_offered_in_a_match(bot):
    """In a match the cube may be turned only when match_cube_available says so: not in the
    Crawford game, and not once its value covers what the player to move needs."""
    from abak_rl.engine.cube import CubeState
    from abak_rl.export.play import BOT, HUMAN, TerminalGame
    from abak_rl.inference import load_exported
    game = TerminalGame(load_exported(str(bot)), 1, match_length=3, stdin=io.StringIO(), stdout=io.StringIO())
    game.score = [1, 0]                                  # the human 2-away, the bot 3-away
    assert game.may_double(HUMAN) and game.may_double(BOT)
    game.cube = CubeState.centred(1)
    game.cube.take(np.array([0]), np.array([HUMAN]))     # the human owns a 2-cube: dead for it at 2-away
    assert not game.may_double(HUMAN) and not game.may_double(BOT)
    game.cube = CubeState.centred(1)
    game.cube.take(np.array([0]), np.array([BOT]))       # the bot owns it at 3-away: it may redouble
    assert game.may_double(BOT) and not game.may_double(HUMAN)
    game.cube, game.score, game.crawford = CubeState.centred(1), [2, 0], True
    assert not game.may_double(HUMAN) and not game.may_double(BOT)
    money = TerminalGame(load_exported(str(bot)), 1, cube=True, stdin=io.StringIO(), stdout=io.StringIO())
    money.cube.take(np.array([0]), np.array([HUMAN]))
    assert money.may_double(HUMAN)                       # money play has no dead cube


def test_the_bots_play_in_a_match_is_the_hints_best_by_match_winning_chance(bot):
    """bot_play at a match score picks the play that play_hint ranks first by MWC at that score
    (seen from the bot), and in a money game the one ranked first by equity."""
    from abak_rl.export.hint import play_hint
    from abak_rl.export.play import TerminalGame
    from abak_rl.inference import load_exported
    model = load_exported(str(bot))
    v = model.variant
    board = v.flip(v.legal_afterstates(v.initial_boards(1), np.array([[6, 4]], np.int8)).boards[:1])[0]
    for dice in ([3, 1], [4, 2], [5, 3]):               # rolls whose best play differs from money's here
        d = np.array(dice, np.int8)
        after = v.legal_afterstates(board[None], d[None], with_plays=True)
        game = TerminalGame(model, 1, match_length=5, stdin=io.StringIO(), stdout=io.StringIO())
        game.score = [3, 0]                                  # the bot trails 0-3: 5-away against 2-away
        best = play_hint(model, board, dice, match={"length": 5, "score": [0, 3], "cube": 1})["plays"][0]
        assert after.plays[game.bot_play(board, d, after)] == best["play"]
        money = TerminalGame(model, 1, stdin=io.StringIO(), stdout=io.StringIO())
        by_equity = play_hint(model, board, dice)["plays"][0]["play"]
        assert after.plays[money.bot_play(board, d, after)] == by_equity != best["play"]
