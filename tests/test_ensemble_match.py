"""scripts/ensemble_match.py: an ensemble scores afterstates with its members' mean probabilities."""

import json
import sys
from pathlib import Path

import numpy as np

from abak_rl.agents.neural import load_neural_agent
from abak_rl.engine.variants import get_variant

from test_widen_net import _trained_expert_net

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def _two_nets(tmp_path):
    """Two different tiny nets: one trained, and a copy of another with its weights scaled."""
    import torch
    paths = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        paths.append(_trained_expert_net(tmp_path / name))
    data = torch.load(paths[1], weights_only=False)
    data["net"] = {k: v * 1.7 for k, v in data["net"].items()}
    torch.save(data, paths[1])
    return paths


def test_ensemble_probabilities_are_the_members_mean_and_it_plays(tmp_path, capsys):
    import ensemble_match
    a, b = _two_nets(tmp_path)
    v = get_variant("standard")
    ens = ensemble_match.ensemble_agent([str(a), str(b)], v)
    pa, pb = load_neural_agent(a, v).scorer, load_neural_agent(b, v).scorer
    rng = np.random.default_rng(3)
    boards = np.repeat(v.initial_boards(1), 40, axis=0)
    after = v.legal_afterstates(boards, rng.integers(1, 7, size=(40, 2)))
    again = np.zeros(after.boards.shape[0], dtype=bool)
    mean = (pa.probs(after.boards, again).astype(np.float64) + pb.probs(after.boards, again)) / 2
    np.testing.assert_allclose(ens.scorer.probs(after.boards, again), mean, atol=1e-6)
    assert np.abs(pa.probs(after.boards, again) - mean).max() > 1e-3     # the members differ
    out = tmp_path / "r.json"
    assert ensemble_match.main([str(a), str(b), "--opponent", "random", "--games", "20",
                                "--no-progress", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["games"] == 20 and r["members"] == [str(a), str(b)] and -3 <= r["ppg"] <= 3
    # at 1-ply the search runs over the averaged probabilities
    ens1 = ensemble_match.ensemble_agent([str(a), str(b)], v, ply=1)
    v1 = ens1.values(after.boards[:5], again[:5], 1)
    for member in (a, b):
        alone = load_neural_agent(member, v, ply=1).values(after.boards[:5], again[:5], 1)
        assert np.abs(v1 - alone).max() > 1e-4
    assert ((v1 >= 0) & (v1 <= 1)).all()
    assert ensemble_match.main([str(a), str(b), "--opponent", "random", "--games", "2", "--ply", "1",
                                "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["ply"] == 1
    capsys.readouterr()
    assert ensemble_match.main([str(a), str(b), "--opponent", "random", "--ply", "3"]) == 2
    assert ensemble_match.main([str(a), "--opponent", "random"]) == 2
    assert ensemble_match.main([str(a), str(tmp_path / "missing.pt"), "--opponent", "random"]) == 2
    assert ensemble_match.main([str(a), str(b), "--opponent", "nobody"]) == 2
    assert ensemble_match.main([str(a), str(b), "--opponent", "random", "--games", "7"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and all(line.startswith("ensemble_match: ") for line in err)
