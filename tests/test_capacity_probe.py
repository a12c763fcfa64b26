"""scripts/capacity_probe.py (a diagnostic): gnubg-nn labels on every legal play of the net's own
positions, a fit toward them, a checkpoint marked as not for shipping; and
scripts/search_vs_gnubg.py's command line."""

import sys
from pathlib import Path

import numpy as np
import pytest

from abak_rl.agents.neural import load_neural_agent
from abak_rl.train.checkpoint import load_checkpoint

from test_widen_net import _trained_expert_net

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

pytest.importorskip("gnubg_nn")


def test_probe_labels_are_gnubgs_and_the_fit_moves_toward_them(tmp_path, capsys):
    import capacity_probe

    from abak_rl.agents.gnubg_agent import afterstate_probs, to_gnubg
    import gnubg_nn
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "p.pt"
    args = [str(src), str(out), "--positions", "600", "--games", "6", "--epochs", "2", "--lr", "0.02",
            "--batch", "32"]
    assert capacity_probe.main(args) == 0
    with np.load(tmp_path / "p.pt.data" / "chunk0000.npz") as z:
        b, y = z["boards"], z["target"]
    agent = load_neural_agent(src, "standard")
    assert len(b) == 600 and not agent.scorer.exact_mask(b).any()
    assert len(np.unique(b, axis=0)) > 300                          # every legal play, not one per turn
    np.testing.assert_allclose(y[:20], afterstate_probs(b[:20]), atol=1e-6)
    # one label by hand: the side to roll next is gnubg's player on roll, then seen back
    from abak_rl.engine.board import flip
    p = gnubg_nn.probabilities(to_gnubg(flip(b[:1])[0]), 0)
    np.testing.assert_allclose(y[0], [1 - p[0], p[3], p[4], p[1], p[2]], atol=1e-6)
    new = load_checkpoint(out)
    rep = new["capacity_probe"]
    assert rep["teacher"] == "gnubg-nn 0-ply" and rep["loss_epoch2"] < rep["loss_before"]
    # another net fits to the same labels: nothing relabelled
    chunk = tmp_path / "p.pt.data" / "chunk0000.npz"
    stamp = chunk.stat().st_mtime_ns
    assert capacity_probe.main([str(src), str(tmp_path / "q.pt"), "--data", str(tmp_path / "p.pt.data"),
                                "--epochs", "1", "--batch", "32"]) == 0
    assert chunk.stat().st_mtime_ns == stamp and not (tmp_path / "q.pt.data").exists()
    assert load_checkpoint(tmp_path / "q.pt")["capacity_probe"]["labels"] == str(tmp_path / "p.pt.data")
    capsys.readouterr()
    assert capacity_probe.main([str(tmp_path / "missing.pt"), str(out)]) == 2
    assert capacity_probe.main([str(src), str(out), "--games", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("capacity_probe: ") for line in err)


def test_search_vs_gnubg_prints_agreement_and_refuses_bad_plies(tmp_path, capsys):
    import json

    import search_vs_gnubg
    out = tmp_path / "s.json"
    assert search_vs_gnubg.main(["--positions", "30", "--games", "3", "--plies", "0", "--json", str(out)]) == 0
    line = capsys.readouterr().out
    assert line.startswith("ply 0: ")
    r = json.loads(out.read_text())["results"][0]
    assert r["positions_with_a_choice"] > 10 and r["differ"] == r["ties"]     # only ties differ
    assert search_vs_gnubg.main(["--plies", "3"]) == 2
    assert "--plies" in capsys.readouterr().err
