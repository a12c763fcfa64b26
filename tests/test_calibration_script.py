"""scripts/calibration.py: a net's probabilities against the outcomes of its own games."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def test_logit_fit_recovers_a_known_recalibration():
    import calibration
    rng = np.random.default_rng(0)
    z = rng.normal(0, 1.5, 200_000)
    y = (rng.random(z.size) < 1 / (1 + np.exp(-(1.5 * z - 0.3)))).astype(float)
    a, b = calibration.fit_logit(z, y)
    assert a == pytest.approx(1.5, abs=0.03) and b == pytest.approx(-0.3, abs=0.03)
    # calibrated already: the fit is the identity
    y = (rng.random(z.size) < 1 / (1 + np.exp(-z))).astype(float)
    a, b = calibration.fit_logit(z, y)
    assert a == pytest.approx(1.0, abs=0.03) and b == pytest.approx(0.0, abs=0.03)


def test_outcomes_are_the_movers():
    import calibration
    winner, points = np.array([0, 1, 0]), np.array([1, 2, 3])
    game, seat = np.array([0, 0, 1, 1, 2]), np.array([0, 1, 0, 1, 1])
    got = calibration.outcomes(winner, points, game, seat)
    assert got.tolist() == [[1, 0, 0, 0, 0],       # game 0 won single by seat 0
                            [0, 0, 0, 0, 0],       # ... lost single by seat 1
                            [0, 0, 0, 1, 0],       # game 1: seat 1 won a gammon, seat 0 lost one
                            [1, 1, 0, 0, 0],
                            [0, 0, 0, 1, 1]]       # game 2: seat 0's backgammon, seat 1's loss


def test_calibration_reports_a_shipped_net(capsys):
    import calibration
    assert calibration.main(["--agent", "std_l2", "--games", "40", "--seed", "3"]) == 0
    r = json.loads(capsys.readouterr().out)
    c = r["classes"]
    assert set(c) == {"all", "contact", "race"}
    assert c["all"]["afterstates"] == c["contact"]["afterstates"] + c["race"]["afterstates"] > 1000
    for v in c.values():
        assert sum(b["afterstates"] for b in v["win_bins"]) == v["afterstates"]
        for k in calibration.OUTPUTS:
            assert 0 <= v["predicted"][k] <= 1 and 0 <= v["realised"][k] <= 1
    # 40 games: the win chance is fitted, backgammons are too rare to be
    win = c["all"]["logit_fit"]["win"]
    assert 0.3 < win["a"] < 3 and win["held_out_log_loss"] > 0
    assert c["race"]["logit_fit"]["win_backgammon"] is None
    # a net that knows the game predicts about as many wins as happen (each afterstate's mover)
    assert abs(c["all"]["predicted"]["win"] - c["all"]["realised"]["win"]) < 0.1


@pytest.mark.parametrize("args, says", [
    (["--agent", "pubeval", "--games", "2"], "no evaluator"),
    (["--variant", "acey_deucey", "--agent", "random", "--games", "2"], "acey_deucey"),
    (["--games", "0"], "--games"),
])
def test_calibration_refuses_in_one_line(args, says, capsys):
    import calibration
    assert calibration.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
