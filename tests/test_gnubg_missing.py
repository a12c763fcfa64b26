"""Without the GNU Backgammon program: one clear line, a non-zero exit, and `gnubg` (the
gnubg-nn net) untouched."""

import pytest

from abak_rl.agents.registry import make_agent
from abak_rl.cli import main
from abak_rl.engine.variants import get_variant


@pytest.fixture
def no_gnubg(monkeypatch, tmp_path):
    monkeypatch.setenv("ABAK_GNUBG", str(tmp_path / "no-such-gnubg"))


def test_program_agent_says_it_is_not_installed(no_gnubg):
    with pytest.raises(RuntimeError, match="GNU Backgammon .the program. is not installed.*apt-get install gnubg"):
        make_agent("gnubg:plies=2", get_variant("standard"))


@pytest.mark.parametrize("spec,msg", [("gnubg:plies=3", "expected 0, 1 or 2"),
                                      ("gnubg:ply=1", "expected gnubg:plies=0, 1 or 2")])
def test_bad_program_specs(spec, msg):
    with pytest.raises(ValueError, match=msg):
        make_agent(spec, get_variant("standard"))


def test_cli_errors_are_one_line(no_gnubg, tmp_path, capsys):
    assert main(["evaluate", "agent=pubeval", "opponent=gnubg:plies=1", "games=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not installed" in err
    assert main(["evaluate", "agent=pubeval", "opponent=random", "games=2", "judge=gnubg"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not installed" in err
    f = tmp_path / "a.sgf"
    f.write_text("(;FF[4]GM[6])\n")
    assert main(["analyze", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not installed" in err


def test_cube_state_as_gnubg_reads_it():
    import numpy as np
    from abak_rl.agents.gnubg_program import cube_fields
    from abak_rl.engine.cube import CubeContext
    money = CubeContext(value=np.array([1, 2, 4]), owner=np.array([0, 1, -1]), jacoby=True)
    assert [cube_fields(money, i)["owner"] for i in range(3)] == [-1, 0, 1]   # centred, on roll, other
    assert cube_fields(money, 1) == {"value": 2, "owner": 0, "jacoby": 1, "cubeful": 1}
    match = CubeContext(value=np.array([2]), owner=np.array([-1]), away=np.array([3]),
                        opp_away=np.array([5]), crawford=np.array([False]))
    assert cube_fields(match, 0, jacoby=True) == {"value": 2, "owner": 1, "jacoby": 0, "cubeful": 1,
                                                  "matchto": 5, "score": [2, 0], "crawford": 0}
