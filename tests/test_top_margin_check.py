"""scripts/top_margin_check.py: what a root margin on the labelled plays keeps and drops."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from test_widen_net import _trained_expert_net  # noqa: E402


def test_the_margin_table_counts_kept_plays_and_dropped_bests():
    from top_margin_check import margin_table
    # roll 0: 0-ply 0.30 / 0.25 / 0.10, its 2-ply best the third play (0.40 against 0.20, 0.10);
    # roll 1: 0.0 / -0.01, 2-ply best the first; roll 2 has one play and does not count
    parent = np.array([0, 0, 0, 1, 1, 2])
    eq0 = np.array([0.30, 0.25, 0.10, 0.0, -0.01, 0.5])
    eq2 = np.array([0.20, 0.10, 0.40, 0.1, 0.0, 0.5])
    wide, narrow = margin_table(parent, eq0, eq2, [0.25, 0.06])
    assert wide["rolls"] == 2 and wide["labels_per_roll"] == 2.5 and wide["best_dropped"] == 0.0
    assert narrow["labels_per_roll"] == 2.0 and narrow["top_labels_per_roll"] == 2.5
    assert narrow["best_dropped"] == 0.5
    assert abs(narrow["equity_lost_per_roll"] - (0.40 - 0.20) / 2) < 1e-12


def test_a_run_reports_each_margin_and_bad_input_is_one_line(tmp_path, capsys):
    import top_margin_check
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "m.json"
    assert top_margin_check.main([str(src), "--positions", "6", "--top", "3", "--margins", "0,1",
                                  "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    zero, one = rep["margins"]
    assert 0 < rep["labels"] <= 18 and zero["labels_per_roll"] <= one["labels_per_roll"]
    assert one["best_dropped"] <= zero["best_dropped"]
    capsys.readouterr()
    assert top_margin_check.main([str(src), "--margins", "-1"]) == 2
    assert top_margin_check.main([str(tmp_path / "missing.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("top_margin_check: ") for line in err)
