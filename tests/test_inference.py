"""abak_rl.inference: an exported net played without PyTorch, choosing what the checkpoint's
neural agent chooses."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from abak_rl.agents.cube_policies import JanowskiCube
from abak_rl.agents.neural import load_neural_agent
from abak_rl.engine import cube as cube_math
from abak_rl.engine.variants import get_variant
from abak_rl.export.exporters import export_checkpoint
from abak_rl.export.sample import sample_positions
from abak_rl.inference import ExportedAgent, load_exported, load_exported_agent, swap_perspective

from test_export import _abak_ok, make_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    cache = {}

    def get(variant):
        if variant not in cache:
            d = tmp_path_factory.mktemp(f"inf_{variant}")
            make_checkpoint(d / "ckpt.pt", variant, hidden=16, seed=3)
            export_checkpoint(d / "ckpt.pt", "onnx,safetensors", d / "out", verify=0)
            cache[variant] = d
        return cache[variant]
    return get


TORCH_FREE = textwrap.dedent("""
    import json, sys
    sys.modules["torch"] = None          # any `import torch` now fails
    import numpy as np
    from abak_rl.inference import load_exported_agent
    from abak_rl.engine.variants import get_variant
    from abak_rl.export.sample import sample_positions
    from abak_rl.engine.game import play_games
    from abak_rl.agents.random_agent import RandomAgent
    out, variant, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    v = get_variant(variant)
    boards, dice = sample_positions(v, n, seed=5)
    after = v.legal_afterstates(boards, dice)
    res = {}
    for backend in ("safetensors", "onnx"):
        agent = load_exported_agent(out, v, backend=backend)
        res[backend] = agent.choose(v, boards, dice, after).tolist()
        res[backend + "_cube"] = agent.cube_probs(v, boards[:20]).tolist()
    if variant == "standard":  # the exported agent plays whole games in the engine's loop
        games = play_games(v, [agent, RandomAgent(0)], 4, 9)
        res["games_finished"] = int((games.winner >= 0).sum())
        import io
        from abak_rl.export.cli import hint_main, play_main
        buf = io.StringIO()
        res["hint_rc"] = hint_main(["--model", out, "--dice", "3", "1", "--json"], stdout=buf)
        res["hint_plays"] = len(json.loads(buf.getvalue())["plays"])
        buf = io.StringIO()
        res["play_rc"] = play_main(["--model", out, "--seed", "1", "--cube"],
                                   stdin=io.StringIO("\\n1\\n" * 3), stdout=buf)
        res["play_left"] = "Leaving the game" in buf.getvalue()
    res["torch_loaded"] = sys.modules.get("torch") is not None
    print(json.dumps(res))
""")


@pytest.mark.parametrize("variant", ["standard", "acey_deucey",
                                     pytest.param("abak", marks=pytest.mark.skipif(not _abak_ok(), reason="no abak"))])
def test_torch_free_agent_picks_the_checkpoints_plays(bots, variant):
    d = bots(variant)
    n = 300 if variant == "standard" else 150
    proc = subprocess.run([sys.executable, "-c", TORCH_FREE, str(d / "out"), variant, str(n)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["torch_loaded"] is False
    assert res.get("games_finished", 4) == 4
    if variant == "standard":   # hint and play (with the cube) run without torch too
        assert (res["hint_rc"], res["hint_plays"], res["play_rc"], res["play_left"]) == (0, 16, 0, True)
    v = get_variant(variant)
    boards, dice = sample_positions(v, n, seed=5)
    after = v.legal_afterstates(boards, dice)
    neural = load_neural_agent(d / "ckpt.pt", v)
    want = neural.choose(v, boards, dice, after)
    assert (after.counts(n) > 1).sum() > n // 2      # most positions offer a real choice
    assert res["safetensors"] == want.tolist()
    assert res["onnx"] == want.tolist()
    # cube probabilities of the player to move = swap(net(flip(position)))
    scorer = neural.scorer
    expect = swap_perspective(scorer.probs(v.flip(boards[:20]), np.zeros(20, dtype=bool)))
    np.testing.assert_allclose(np.array(res["safetensors_cube"]), expect, atol=1e-5)


def test_one_ply_matches_the_neural_agent(bots):
    d = bots("standard")
    v = get_variant("standard")
    boards, dice = sample_positions(v, 12, seed=8)
    after = v.legal_afterstates(boards, dice)
    neural = load_neural_agent(d / "ckpt.pt", v, ply=1)
    mine = load_exported_agent(d / "out", v, ply=1)
    assert mine.choose(v, boards, dice, after).tolist() == neural.choose(v, boards, dice, after).tolist()
    again = v.extra_turn(dice)[after.parent]
    np.testing.assert_allclose(mine.model.one_ply_probs(after.boards, again),
                               neural.one_ply_probs(after.boards, again), atol=1e-5)


def test_janowski_cube_runs_on_the_exported_model(bots):
    d = bots("standard")
    model = load_exported(d / "out")
    v = model.variant
    boards, _ = sample_positions(v, 50, seed=2)
    policy = JanowskiCube(lambda variant, b: model.pre_roll_probs(b))
    ctx = cube_math.CubeContext(value=np.ones(50, dtype=np.int64), owner=np.zeros(50, dtype=np.int64))
    offer = policy.offer(v, boards, ctx)
    decision, _ = cube_math.money_cube_decision(model.pre_roll_probs(boards), ctx.owner)
    assert offer.tolist() == (decision != cube_math.NO_DOUBLE).tolist()
    # cube_decision agrees with the array version for one position
    one = model.cube_decision(boards[0])
    assert one["decision"] == int(decision[0])


def test_rank_plays_is_sorted_and_consistent(bots):
    d = bots("standard")
    model = load_exported(d / "out")
    start = model.variant.initial_boards(1)[0]
    ranked = model.rank_plays(start, (3, 1))
    assert len(ranked) == 16
    eq = [r.equity for r in ranked]
    assert eq == sorted(eq, reverse=True)
    for r in ranked:
        p = r.probs
        assert r.equity == pytest.approx(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4], abs=1e-6)
    with pytest.raises(ValueError, match="dice must be two numbers 1..6"):
        model.rank_plays(start, (7, 1))
    with pytest.raises(ValueError, match="15 checkers"):
        bad = start.copy()
        bad[5] += 1
        model.rank_plays(bad, (3, 1))


def test_agent_refuses_another_variant(bots):
    agent = load_exported_agent(bots("standard") / "out", "standard")
    assert isinstance(agent, ExportedAgent)
    v = get_variant("acey_deucey")
    b = v.initial_boards(1)
    d = np.array([[3, 1]], dtype=np.int8)
    with pytest.raises(ValueError, match="set up for variant 'standard'"):
        agent.choose(v, b, d, v.legal_afterstates(b, d))


def test_torch_is_not_needed_to_import_the_encoders():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import abak_rl.inference, abak_rl.features.classic, abak_rl.features.abak, abak_rl.io.diagram\n"
            "import abak_rl.export.hint, abak_rl.export.play, abak_rl.export.cli\n"
            "print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    assert "torch" in sys.modules and torch.__version__  # (this process has it; the child did not)


def test_exported_agent_plays_by_a_utility_when_given_one():
    """matchplay hands agents a match-winning-chance utility; the torch-free agent obeys it
    like the torch one: a utility that prefers low equity picks the worst play."""
    from abak_rl.inference import load_exported_agent
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "standard"
    from abak_rl.engine.variants import get_variant
    v = get_variant("standard")
    agent = load_exported_agent(root, v)
    boards = v.initial_boards(3)
    dice = np.array([[3, 1], [6, 5], [4, 2]], dtype=np.int8)
    after = v.legal_afterstates(boards, dice)
    best = agent.choose(v, boards, dice, after)
    from abak_rl.model.outcomes import equity
    worst = agent.choose(v, boards, dice, after, utility=lambda p, parent: -equity(p))
    p = agent.model.probs(after.boards)
    eq = equity(p)
    for i in range(3):
        seg = np.flatnonzero(after.parent == i)
        assert best[i] == seg[np.argmax(eq[seg])] and worst[i] == seg[np.argmin(eq[seg])]
