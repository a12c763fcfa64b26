"""The GNU Backgammon figure scripts run and report what their docstrings promise (tiny runs;
the figures come from running them, see docs/gnubg.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from abak_rl.agents.gnubg_program import find_gnubg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
needs_gnubg = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (the gnubg program) "
                                 "is not installed: apt-get install gnubg")


def test_cube_positions_include_every_decision_to_double():
    # each position where the net doubled is a candidate, with the cube as it was before the
    # double (a regression: the turned cube once hid every one of them)
    import numpy as np
    import compare_cube_gnubg
    from abak_rl.agents.cube_policies import JanowskiCube
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.cube import CubeContext
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import probs_fn_for
    from abak_rl.evaluate.cube_records import play_recorded
    std = get_variant("standard")
    net = make_agent(compare_cube_gnubg.NET, std, 0)
    pol = JanowskiCube(probs_fn_for(net), "auto")
    _, per_slot = play_recorded(std, [net, net], [pol, pol], np.arange(4), 0, ("a", "b"))
    doubles = sum(t.get("cube") == "double" for s in per_slot for r in s for t in r["turns"])
    assert doubles > 0
    rows, values, owners = compare_cube_gnubg.candidates(per_slot, std)
    offers = pol.offer(std, rows, CubeContext(value=values, owner=owners))
    assert offers.sum() == doubles


@needs_gnubg

def test_compare_cube_reports_agreement_and_equity_lost(capsys):
    import compare_cube_gnubg
    assert compare_cube_gnubg.main(["--agent", "pubeval", "--positions", "20", "--games", "2",
                                    "--plies", "0"]) == 2      # pubeval has no cube evaluator
    capsys.readouterr()
    assert compare_cube_gnubg.main(["--positions", "30", "--games", "2", "--plies", "0"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["positions"] == 30 and r["all"]["decisions"] == 60
    for part in ("double", "take", "all"):
        assert 0 <= r[part]["agreement"] <= 1 and r[part]["mean_equity_lost"] >= 0


@needs_gnubg
def test_compare_cube_window_keeps_live_positions(capsys):
    import compare_cube_gnubg
    from abak_rl.engine.variants import get_variant
    start = get_variant("standard").initial_boards(1)
    assert abs(compare_cube_gnubg.gnubg_win_chance(start)[0] - 0.5) < 0.05
    assert compare_cube_gnubg.main(["--window", "0.55"]) == 2
    assert "expected LO,HI" in capsys.readouterr().err
    assert compare_cube_gnubg.main(["--positions", "12", "--games", "8", "--plies", "0",
                                    "--window", "0.55,0.95"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["window"] == [0.55, 0.95] and r["positions"] == 12
    t = r["take_on_gnubg_doubles"]
    assert t["decisions"] == r["double"]["gnubg_doubles"]


@needs_gnubg
def test_gnubg_benchmarks_match_times_both_processes(capsys):
    import gnubg_benchmarks
    assert gnubg_benchmarks.main(["match", "--games", "2", "--gnubg-plies", "0"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2 and r["opponent"] == "gnubg:plies=0"
    assert r["wall_seconds"] > 0 and r["gnubg_cpu_seconds"] >= 0 and r["our_cpu_seconds"] > 0
