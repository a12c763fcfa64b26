"""scripts/label_quality.py (a diagnostic): teachers' values of every legal play judged against
GNU Backgammon 2-ply, and the plies of agents/gnubg_agent.afterstate_probs it relies on."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from test_widen_net import _trained_expert_net

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

pytest.importorskip("gnubg_nn")


def test_judge_rows_by_hand():
    """Two positions of two plays each: the figures worked out by hand."""
    import label_quality
    judge = np.zeros((4, 5))
    judge[:, 0] = [0.6, 0.5, 0.3, 0.4]                      # equities 0.2, 0.0, -0.4, -0.2
    mine = judge.copy()
    mine[:, 0] = [0.5, 0.55, 0.3, 0.4]                      # picks play 1 (judge: play 0), agrees on 3
    parent = np.array([0, 0, 1, 1])
    r = label_quality.judge_rows(mine, judge, parent, 2)
    assert r["agree"] == 0.5
    assert r["pick_loss"] == pytest.approx((0.2 - 0.0) / 2)
    d = np.array([-0.2, 0.1, 0.0, 0.0])
    assert r["bias"] == pytest.approx(d.mean())
    assert r["equity_rmse"] == pytest.approx(np.sqrt((d ** 2).mean()))
    c = np.array([-0.15, 0.15, 0.0, 0.0])                   # each position's mean taken off
    assert r["sibling_rmse"] == pytest.approx(np.sqrt((c ** 2).mean()))
    assert r["loss"] == pytest.approx(0.5 * (0.1 ** 2 + 0.05 ** 2) / 4)


def test_gnubg_plies_and_a_small_run(tmp_path, capsys):
    import label_quality

    import gnubg_nn
    from abak_rl.agents.gnubg_agent import afterstate_probs, to_gnubg
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.engine.board import flip
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "q.json"
    small = ["--net", f"t={src}", "--from", str(src), "--positions", "3", "--cache", str(tmp_path / "g.npz")]
    assert label_quality.main(small + ["--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    # the same positions again: gnubg's values come from the cache, the figures are the same
    capsys.readouterr()
    assert label_quality.main(small + ["--json", str(tmp_path / "again.json")]) == 0
    assert "(from --cache)" in capsys.readouterr().out
    assert json.loads((tmp_path / "again.json").read_text())["teachers"] == rep["teachers"]
    # a --cache that is not one: one line, before any slow work, the file left alone
    for junk in (b"not an archive", b"PK\x03\x04 cut short"):
        bad = tmp_path / "bad.npz"
        bad.write_bytes(junk)
        assert label_quality.main(small[:-1] + [str(bad)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"label_quality: --cache {bad}: not a cache of this script (damaged, or written by "
                       f"something else); delete it or name another file"]
        assert bad.read_bytes() == junk
    assert rep["positions"] == 3 and rep["afterstates"] >= 6
    assert set(rep["teachers"]) == {"t 0-ply", "t 1-ply", "t 0+1", "gnubg 0-ply", "gnubg 1-ply"}
    assert all(0 <= r["agree"] <= 1 and r["pick_loss"] >= 0 for r in rep["teachers"].values())
    # afterstate_probs at 2 plies is gnubg-nn's 2-ply of the side to roll next, seen back
    b = label_quality.sample_positions(load_neural_agent(src, "standard"), 1, 5)[0][:1]
    p = gnubg_nn.probabilities(to_gnubg(flip(b)[0]), 2)
    np.testing.assert_allclose(afterstate_probs(b, plies=2)[0], [1 - p[0], p[3], p[4], p[1], p[2]], atol=1e-6)
    with pytest.raises(ValueError):
        afterstate_probs(b, plies=3)
    # --reply adds 2-ply rows with another reply filter: the default filter's row comes out the
    # same as the plain 2-ply row, GNU Backgammon's (replies picked at 0-ply) is its own row
    two = tmp_path / "two.json"
    assert label_quality.main(small + ["--plies", "0", "--two-ply", "t", "--reply", "2/0.04",
                                       "--reply", "1/0.04", "--json", str(two)]) == 0
    rows = json.loads(two.read_text())["teachers"]
    assert {"t 2-ply", "t 2-ply 2/0.04", "t 2-ply 1/0.04"} <= set(rows)
    assert rows["t 2-ply 2/0.04"] == rows["t 2-ply"]
    # --rollout adds a rollout row with its dice noise from a second seed; 36 trials of one
    # half-move are the 1-ply value, so that row is the 1-ply row and its noise is nil
    ro = tmp_path / "ro.json"
    assert label_quality.main(small + ["--rollout", "t/36/1", "--rollout", "t/5/3", "--rollout", "t/3/1/vr",
                                       "--json", str(ro)]) == 0
    rows = json.loads(ro.read_text())["teachers"]
    for key in ("t rollout 36x1", "t rollout 3x1 vr"):        # with variance reduction, any 3 rolls do
        assert {k: v for k, v in rows[key].items() if "noise" not in k} == pytest.approx(rows["t 1-ply"])
        assert rows[key]["noise_rmse"] == pytest.approx(0, abs=1e-9)
    assert rows["t rollout 36x1"]["noise_rmse"] == 0 and rows["t rollout 5x3"]["noise_rmse"] > 0
    assert 0 <= rows["t rollout 5x3"]["sibling_noise_rmse"] <= 2 * rows["t rollout 5x3"]["noise_rmse"]
    capsys.readouterr()
    assert label_quality.main(["--net", f"t={src}", "--rollout", "u/36/1"]) == 2
    assert label_quality.main(["--net", f"t={src}", "--rollout", "t/36/0"]) == 2
    assert label_quality.main(["--net", "nonsense"]) == 2
    assert label_quality.main(["--net", f"t={src}", "--plies", "2"]) == 2
    assert label_quality.main(["--net", f"t={src}", "--two-ply", "t", "--reply", "1"]) == 2
    assert label_quality.main(["--net", f"t={src}", "--reply", "1/0.04"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 6 and all(line.startswith("label_quality: ") for line in err)
