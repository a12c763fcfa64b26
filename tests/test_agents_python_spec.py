"""Agent spec python:<package.module>:<Class> (user code) in evaluate and tournaments."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from abak_rl.agents.registry import make_agent
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_bots.py").write_text(textwrap.dedent("""
        import numpy as np

        class FirstPlay:
            '''Always the first afterstate of each position.'''
            def __init__(self, variant, seed=0):
                self.variant_name = variant.name
            def choose(self, variant, before, dice, after):
                return after.starts(before.shape[0])

        class NoChoose:
            pass
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_python_spec_builds_the_class_with_variant_and_plays(user_module):
    v = get_variant("standard")
    agent = make_agent("python:my_bots:FirstPlay", v, seed=3)
    assert agent.variant_name == "standard" and agent.name == "python:my_bots:FirstPlay"
    res = play_games(v, [agent, make_agent("random", v)], 20, seed=1)
    assert res.turns.min() > 0
    # the agent really chose: its first-row plays differ from the random bot's in the same games
    other = play_games(v, [make_agent("random", v, seed=9), make_agent("random", v)], 20, seed=1)
    assert not np.array_equal(res.turns, other.turns)


@pytest.mark.parametrize("spec, message", [
    ("python:my_bots", "expected python:<package.module>:<Class>"),
    ("python:no_such_module_xyz:Bot", "cannot import no_such_module_xyz"),
    ("python:my_bots:Missing", "has no class or function 'Missing'"),
    ("python:my_bots:NoChoose", "have no choose"),
])
def test_bad_python_specs_name_the_problem(user_module, spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, get_variant("standard"))


def test_evaluate_cli_runs_a_python_agent_from_the_current_directory(user_module):
    out = subprocess.run([sys.executable, "-m", "abak_rl.cli", "evaluate",
                          "agent=python:my_bots:FirstPlay", "opponent=random", "games=20"],
                         capture_output=True, text=True, cwd=user_module, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "python:my_bots:FirstPlay vs random" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "abak_rl.cli", "evaluate",
                          "agent=python:my_bots:Missing", "games=2"],
                         capture_output=True, text=True, cwd=user_module, timeout=120)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "Missing" in bad.stderr + bad.stdout


def test_tournament_takes_a_python_agent(user_module):
    from abak_rl.evaluate.tournament import run_tournament
    out = run_tournament(["random", "python:my_bots:FirstPlay"], games=4, seed=0)
    assert out["agents"] == ["random", "python:my_bots:FirstPlay"]
