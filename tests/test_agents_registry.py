"""Agent specs: every name the CLI accepts builds the right bot; bad specs say what is wrong."""

import sys
import types

import numpy as np
import pytest

from abak_rl.agents.gnubg_agent import from_gnubg, to_gnubg
from abak_rl.agents.registry import make_agent, parse_checkpoint_spec
from abak_rl.engine.variants import get_variant

STD = get_variant("standard")


@pytest.mark.parametrize("spec", ["random", "pubeval", "heuristic"])
def test_builtin_specs(spec):
    assert make_agent(spec, STD, seed=0).name == spec


def test_unknown_and_empty_specs_are_named():
    with pytest.raises(ValueError, match="'bogus'"):
        make_agent("bogus", STD)
    with pytest.raises(ValueError, match="non-empty"):
        make_agent("", STD)
    with pytest.raises(ValueError, match="no checkpoint path"):
        make_agent("checkpoint:", STD)
    with pytest.raises(ValueError, match="ply"):
        parse_checkpoint_spec("checkpoint:x.pt,ply=3")
    with pytest.raises(ValueError, match="depth=1"):
        parse_checkpoint_spec("checkpoint:x.pt,depth=1")


def test_checkpoint_spec_goes_to_the_neural_loader(monkeypatch):
    seen = {}
    fake = types.ModuleType("abak_rl.agents.neural")

    def load_neural_agent(path, variant, ply=0):
        seen.update(path=path, variant=variant.name, ply=ply)
        return types.SimpleNamespace(name="", choose=lambda *a: None)

    fake.load_neural_agent = load_neural_agent
    monkeypatch.setitem(sys.modules, "abak_rl.agents.neural", fake)
    agent = make_agent("checkpoint:runs/a,b/step_5.pt,ply=1", STD)
    assert seen == {"path": "runs/a,b/step_5.pt", "variant": "standard", "ply": 1}
    assert agent.name == "checkpoint:runs/a,b/step_5.pt,ply=1"


def test_export_and_onnx_specs_load_through_the_torch_free_loader(monkeypatch):
    seen = []

    def load_exported_agent(path, variant, ply=0, backend="auto"):
        seen.append((path, variant.name, ply, backend))
        return types.SimpleNamespace(name="", choose=lambda *a: None)

    fake = types.ModuleType("abak_rl.inference")
    fake.load_exported_agent = load_exported_agent
    monkeypatch.setitem(sys.modules, "abak_rl.inference", fake)
    make_agent("export:models/std", STD)
    make_agent("onnx:models/std/model.onnx,ply=1", STD)
    assert seen == [("models/std", "standard", 0, "auto"),
                    ("models/std/model.onnx", "standard", 1, "onnx")]
    with pytest.raises(ValueError, match="names no checkpoint path"):
        make_agent("export:", STD)


def test_gnubg_refuses_other_variants():
    pytest.importorskip("gnubg_nn")
    with pytest.raises(ValueError, match="standard backgammon only.*nackgammon"):
        make_agent("gnubg", get_variant("nackgammon"))


def test_gnubg_board_conversion_round_trips():
    rng = np.random.default_rng(0)
    rows = STD.initial_boards(1)
    after = STD.legal_afterstates(np.repeat(rows, 6, 0), rng.integers(1, 7, (6, 2)).astype(np.int8))
    for row in after.boards:
        opp, me = to_gnubg(row)
        assert sum(me) + row[26] == 15 and sum(opp) + row[27] == 15
        np.testing.assert_array_equal(from_gnubg(me, opp), row)


def test_gnubg_nn_search_spec_plays_its_own_lookahead():
    """"gnubg,ply=1" asks gnubg-nn for its 1-ply play; in some position and roll that differs
    from its 0-ply play, and every play is one of our legal afterstates."""
    pytest.importorskip("gnubg_nn")
    from abak_rl.engine.game import play_games
    v = get_variant("standard")
    one, zero = make_agent("gnubg,ply=1", v), make_agent("gnubg", v)
    assert one.name == "gnubg,ply=1" and one.plies == 1 and zero.plies == 0
    boards, dice = [], []

    def keep(ids, seats, before, chosen, plays, result):
        boards.append(before.copy())
    res = play_games(v, [zero, zero], 8, 5, on_turn=keep)
    assert len(res.winner) == 8
    before = np.concatenate(boards)[:400]
    rng = np.random.default_rng(0)
    rolls = rng.integers(1, 7, size=(len(before), 2)).astype(np.int8)
    after = v.legal_afterstates(before, rolls)
    a, b = one.choose(v, before, rolls, after), zero.choose(v, before, rolls, after)
    assert (after.parent[a] == np.arange(len(before))).all()
    assert (a != b).sum() >= 5


@pytest.mark.parametrize("spec", ["gnubg,ply=3", "gnubg,plies=1", "gnubg,ply="])
def test_bad_gnubg_nn_specs_are_named(spec):
    with pytest.raises(ValueError, match="gnubg,ply=0\\|1\\|2"):
        make_agent(spec, get_variant("standard"))
    from abak_rl.train.config import _check_opponent
    assert "gnubg,ply=0|1|2" in _check_opponent(spec)
    assert _check_opponent("gnubg,ply=2") is None


def test_training_accepts_the_gnubg_program_as_an_opponent(monkeypatch, tmp_path):
    """eval.opponents took "gnubg:plies=N" for a checkpoint path and refused it; it is the
    program, checked for its option and for being installed."""
    from abak_rl.train.config import _check_opponent
    fake = tmp_path / "gnubg"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ABAK_GNUBG", str(fake))
    assert _check_opponent("gnubg:plies=0") is None
    assert _check_opponent("gnubg:plies=2") is None
    assert "expected gnubg:plies=0, 1 or 2" in _check_opponent("gnubg:ply=1")
    assert "plies" in _check_opponent("gnubg:plies=5")
    monkeypatch.setenv("ABAK_GNUBG", str(tmp_path / "missing"))
    assert "apt-get install gnubg" in _check_opponent("gnubg:plies=0")
