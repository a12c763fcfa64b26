"""The GNU Backgammon figure scripts run and report what their docstrings promise (tiny runs;
the figures come from running them, see docs/gnubg.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from abak_rl.agents.gnubg_program import find_gnubg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
pytestmark = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (the gnubg program) "
                                "is not installed: apt-get install gnubg")


def test_compare_cube_reports_agreement_and_equity_lost(capsys):
    import compare_cube_gnubg
    assert compare_cube_gnubg.main(["--agent", "pubeval", "--positions", "20", "--games", "6",
                                    "--plies", "0"]) == 2      # pubeval has no cube evaluator
    capsys.readouterr()
    assert compare_cube_gnubg.main(["--positions", "40", "--games", "6", "--plies", "0"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["positions"] == 40 and r["all"]["decisions"] == 80
    for part in ("double", "take", "all"):
        assert 0 <= r[part]["agreement"] <= 1 and r[part]["mean_equity_lost"] >= 0


def test_gnubg_benchmarks_match_times_both_processes(capsys):
    import gnubg_benchmarks
    assert gnubg_benchmarks.main(["match", "--games", "2", "--gnubg-plies", "0"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2 and r["opponent"] == "gnubg:plies=0"
    assert r["wall_seconds"] > 0 and r["gnubg_cpu_seconds"] >= 0 and r["our_cpu_seconds"] > 0
