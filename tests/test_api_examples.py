"""Every python block of docs/api.md (and docs/envs.md) runs, in order, from the repository root."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks(page="api.md"):
    text = (ROOT / "docs" / page).read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_docs_api_has_the_examples_it_promises():
    code = "\n".join(_blocks())
    for call in ("legal_afterstates", "play_games", "run_match", "load_exported", "make_aec", "make_vector"):
        assert call in code, call


def test_docs_api_examples_run(monkeypatch, capsys):
    pytest.importorskip("pettingzoo")
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for i, block in enumerate(_blocks()):
        exec(compile(block, f"docs/api.md block {i + 1}", "exec"), namespace)
    assert "best opening 3-1" in capsys.readouterr().out


def test_docs_envs_example_plays_a_whole_game():
    pytest.importorskip("pettingzoo")
    namespace: dict = {}
    for i, block in enumerate(_blocks("envs.md")):
        exec(compile(block, f"docs/envs.md block {i + 1}", "exec"), namespace)
    env = namespace["env"]
    assert all(env.terminations.values()) or all(env.truncations.values())
