"""Match statistics and ratings: intervals cover the truth, rates count the right games."""

import math

import numpy as np
import pytest

from abak_rl.evaluate import stats
from abak_rl.evaluate.ratings import bootstrap, fit_bradley_terry, wins_matrix


def test_interval_covers_a_known_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    values = np.array([-3, -2, -1, 1, 2, 3])
    probs = np.array([0.02, 0.10, 0.40, 0.30, 0.13, 0.05])
    true_mean = float(values @ probs)
    trials, covered, widths = 2000, 0, []
    for _ in range(trials):
        a = rng.choice(values, size=200, p=probs)
        b = rng.choice(values, size=200, p=probs)
        mean, half = stats.paired_ppg(a, b)
        covered += abs(mean - true_mean) <= half
        widths.append(half)
    assert 0.93 <= covered / trials <= 0.97
    sd = math.sqrt(values**2 @ probs - true_mean**2)
    assert np.mean(widths) == pytest.approx(1.96 * sd / math.sqrt(2) / math.sqrt(200), rel=0.05)


def test_pairing_removes_luck_shared_by_both_games():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 2, 500)               # the dice favour one seat by `luck`
    a, b = 0.3 + luck, 0.3 - luck              # the agent sits once in each seat
    mean, half = stats.paired_ppg(a, b)
    assert mean == pytest.approx(0.3) and half < 1e-9
    _, unpaired = stats.mean_ci(np.concatenate([a, b]))
    assert unpaired > 0.1


def test_summary_rates_from_the_agents_side():
    first = np.array([1, 2, 3, -1, -2, 1])
    second = np.array([-3, 1, 1, 2, -1, 1])
    s = stats.summarize(first, second)
    assert s["ppg"] == pytest.approx(5 / 12)
    assert s["win_rate"] == pytest.approx(8 / 12)
    assert s["gammon_rate"] == pytest.approx(3 / 12)       # 2, 3, 2
    assert s["backgammon_rate"] == pytest.approx(1 / 12)
    assert s["lose_gammon_rate"] == pytest.approx(2 / 12)  # -2, -3
    assert s["lose_backgammon_rate"] == pytest.approx(1 / 12)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_ppg(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="no values"):
        stats.mean_ci(np.array([]))
    with pytest.raises(ValueError, match="square"):
        fit_bradley_terry(np.ones((2, 3)))


def test_bradley_terry_recovers_known_strengths():
    true = np.array([0.0, 200.0, 400.0])
    s = 10 ** (true / 400)
    n = 100_000
    wins = np.array([[n * s[i] / (s[i] + s[j]) if i != j else 0 for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(fit_bradley_terry(wins), true, atol=1.0)


def test_bootstrap_interval_contains_the_fit_and_stays_finite_for_a_shutout():
    rng = np.random.default_rng(2)
    pairs = {(0, 1): (rng.choice([-1, 1], 300, p=[0.3, 0.7]), rng.choice([-1, 1], 300, p=[0.3, 0.7])),
             (0, 2): (np.ones(300), np.ones(300)),               # agent 0 never loses to 2
             (1, 2): (np.ones(300), np.ones(300))}
    fit = fit_bradley_terry(wins_matrix(pairs, 3))
    boots = bootstrap(pairs, 3, n_boot=100, seed=0)
    lo, hi = np.quantile(boots, [0.025, 0.975], axis=0)
    assert np.isfinite(boots).all()
    assert (lo[1:] <= fit[1:] + 1e-6).all() and (fit[1:] <= hi[1:] + 1e-6).all()
    assert fit[1] < 0 and fit[2] < fit[1] - 500
