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
