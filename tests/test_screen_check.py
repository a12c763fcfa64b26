"""scripts/screen_check.py: a screened search against the full one, on the net's own positions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from test_widen_net import _trained_expert_net  # noqa: E402


def test_a_net_screening_itself_changes_nothing_and_bad_input_is_one_line(tmp_path, capsys):
    import screen_check
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "s.json"
    assert screen_check.main([str(src), str(src), "--positions", "3", "--ply", "1", "--k", "1,4/0",
                              "--precision", "fp32", "--picks", "6", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    none, k1, k4m0 = rep["rows"]
    assert none["k"] is None and k1["k"] == 1 and rep["afterstates"] >= 3
    assert (k4m0["k"], k4m0["margin"]) == (4, 0.0)
    for row in (k1, k4m0):                       # its own best reply, always kept (a margin of 0 too)
        assert abs(row["mean_diff"]) < 1e-9 and row["rms_diff"] < 1e-9
    assert all(p["same"] == 1.0 and p["equity_lost"] == 0.0 for p in rep["picks"])
    capsys.readouterr()
    assert screen_check.main([str(src), str(src), "--k", "0"]) == 2
    assert screen_check.main([str(src), str(src), "--k", "4/-1"]) == 2
    assert screen_check.main([str(src), str(tmp_path / "missing.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("screen_check: ") for line in err)
