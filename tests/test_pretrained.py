"""The shipped pretrained nets load (torch-free path), describe their variant, and play."""

import json
from pathlib import Path

import numpy as np
import pytest

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import VARIANT_NAMES, get_variant

ROOT = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained"
SHIPPED = [v for v in VARIANT_NAMES if (ROOT / v / "model_card.json").exists()]


def _baseline_plays(name, variant="standard", games=16):
    """The named baseline `name` loads by its agent spec and beats the random bot; returns it."""
    from abak_rl.agents.registry import make_agent
    v = get_variant(variant)
    agent = make_agent(name, v)
    assert agent.name == name
    r = play_games(v, [agent, RandomAgent(3)], games, seed=5)
    assert (r.winner == 0).mean() >= 0.75
    return agent


def test_the_classic_variants_ship_a_net():
    assert {"standard", "nackgammon", "acey_deucey"} <= set(SHIPPED)


@pytest.mark.parametrize("variant", SHIPPED)
def test_pretrained_net_loads_and_beats_random(variant):
    pytest.importorskip("onnxruntime")
    from abak_rl.inference import load_exported_agent
    card = json.loads((ROOT / variant / "model_card.json").read_text())
    assert card["variant"] == variant and card["outputs"]["order"][0] == "p_win"
    v = get_variant(variant)
    agent = load_exported_agent(ROOT / variant, v)
    games = 4 if variant == "acey_deucey" else 16
    r = play_games(v, [agent, RandomAgent(3)], games, seed=5)
    assert (r.winner == 0).mean() >= 0.75


def test_the_standard_net_is_the_2x256_student_fine_tuned_on_its_own_2_ply_values():
    card = json.loads((ROOT / "standard" / "model_card.json").read_text())
    assert card["name"] == "std-stu-ft2" and card["feature_set"]["name"] == "expert2"
    net = card["network"]
    assert net["type"] == "phased_mlp" and net["phases"] == ["contact", "race"] and net["bearoff"]
    assert net["layers"] == 2 and net["hidden"] == 256
    # the student (baselines/std_stu) fine-tuned on 460,000 of its own 2-ply values of each roll's
    # top plays (scripts/train_standard_student.sh, the 2-ply round)
    d = card["training"]["distilled"]
    assert d["ply"] == 2 and d["labels_by_ply"] == {"2": 460_000} and d["student"] is None
    assert d["samples"] + d["held_out"] == 460_000
    assert (d["epochs"], d["lr"], d["seed"]) == (8, 0.001, 509)
    assert d["loss_epoch8"] < d["loss_before"] < 2e-4
    assert {m["opponent"] for m in card["measured"]} >= {"gnubg", "pubeval"}


def test_the_student_shipped_before_is_kept_as_a_named_baseline_opponent():
    pytest.importorskip("onnxruntime")
    base = json.loads((ROOT / "baselines" / "std_stu" / "model_card.json").read_text())
    assert base["name"] == "std-stu" and base["network"]["hidden"] == 256
    d = base["training"]["distilled"]
    assert d["ply"] == 1 and d["samples"] + d["held_out"] == 4_800_000
    assert _baseline_plays("std_stu").model.features.name == "expert2"


def test_the_teacher_pair_shipped_before_is_kept_as_a_named_baseline_opponent():
    pytest.importorskip("onnxruntime")
    base = json.loads((ROOT / "baselines" / "std_ens2" / "model_card.json").read_text())
    net = base["network"]
    assert net["type"] == "ensemble" and net["n_members"] == 2 and net["bearoff"]
    members = base["training"]["config"]["ensemble"]["members"]
    assert [m["run"] for m in members] == ["std-l2", "std-l2b"]
    assert [m["config"]["train"].get("loss", "mse") for m in members] == ["mse", "bce"]
    _baseline_plays("std_ens2")


def test_the_ensemble_shipped_before_that_is_kept_as_a_named_baseline_opponent():
    pytest.importorskip("onnxruntime")
    base = json.loads((ROOT / "baselines" / "std_l2l3" / "model_card.json").read_text())
    assert base["network"]["type"] == "ensemble"
    assert [m["layers"] for m in base["network"]["members"]] == [2, 3]
    _baseline_plays("std_l2l3")


def test_the_abak_net_uses_abak_expert_inputs_and_phase_nets_and_records_its_figures():
    card = json.loads((ROOT / "abak" / "model_card.json").read_text())
    assert card["feature_set"]["name"] == "abak_expert"
    assert card["network"]["type"] == "phased_mlp" and card["network"]["phases"] == ["contact", "race"]
    assert not card["network"].get("bearoff")
    assert {m["opponent"] for m in card["measured"]} == {"pubeval", "heuristic", "abak60"}


def test_std60_is_kept_as_a_named_baseline_opponent():
    pytest.importorskip("onnxruntime")
    assert _baseline_plays("std60").model.features.name == "td198"


@pytest.mark.parametrize("name,features,layers", [("std_expert", "expert", 1), ("std_e2z", "expert2", 1),
                                                   ("std_l2", "expert2", 2)])
def test_earlier_standard_nets_are_kept_as_named_baseline_opponents(name, features, layers):
    pytest.importorskip("onnxruntime")
    assert _baseline_plays(name).model.features.name == features
    base = json.loads((ROOT / "baselines" / name / "model_card.json").read_text())
    assert base["network"]["layers"] == layers


def test_abak60_is_kept_as_a_named_baseline_opponent():
    from abak_rl.agents.registry import make_agent
    v = get_variant("abak")
    agent = make_agent("abak60", v)
    assert agent.name == "abak60" and agent.model.features.name == "abak_stack"
    r = play_games(v, [agent, RandomAgent(3)], 12, seed=5)
    assert (r.winner == 0).mean() >= 0.75


def test_acey_pre_is_kept_as_a_named_baseline_opponent():
    from abak_rl.agents.registry import make_agent
    v = get_variant("acey_deucey")
    agent = make_agent("acey_pre", v)
    assert agent.name == "acey_pre" and agent.model.features.name == "td198_pool"
    assert agent.model.card["training"]["games"] == 5151
    r = play_games(v, [agent, RandomAgent(3)], 8, seed=5)
    assert (r.winner == 0).mean() >= 0.75
