"""The evaluator net, equity arithmetic, lambda-returns, scoring and the neural agent."""

import numpy as np
import pytest
import torch

from abak_rl.agents.neural import ROLL_WEIGHTS, ROLLS, NeuralAgent
from abak_rl.engine.common import segment_argmax
from abak_rl.engine.variants import get_variant
from abak_rl.features import get_feature_set
from abak_rl.model.net import EvalNet, equity, outcome_probs, swap_perspective
from abak_rl.model.scorer import Scorer, segment_best
from abak_rl.train import td_compiled
from abak_rl.train.td import lambda_returns


def test_equity_counts_gammons_and_backgammons():
    assert equity(outcome_probs(np.array([1, 2, 3]))).tolist() == [1, 2, 3]
    lost_bg = swap_perspective(outcome_probs(np.array(3)))
    assert lost_bg.tolist() == [0, 0, 0, 1, 1] and equity(lost_bg) == -3
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    assert equity(p) == pytest.approx(0.2 + 0.2 - 0.1 + 0.05 - 0.01)


def test_swap_perspective_is_an_involution_that_negates_equity():
    p = np.random.default_rng(0).random((50, 5))
    assert np.allclose(swap_perspective(swap_perspective(p)), p)
    assert np.allclose(equity(swap_perspective(p)), -equity(p))
    t = torch.tensor(p)
    assert torch.allclose(swap_perspective(t), torch.tensor(swap_perspective(p)))


def test_net_shapes_and_bad_settings():
    x = torch.rand(7, 198)
    for layers in (0, 1, 3):
        y = EvalNet(198, hidden=16, layers=layers)(x)
        assert y.shape == (7, 5) and ((y > 0) & (y < 1)).all()
    assert sum(p.numel() for p in EvalNet(198).parameters()) == 198 * 80 + 80 + 80 * 5 + 5
    with pytest.raises(ValueError, match="model.activation='gelu'"):
        EvalNet(198, activation="gelu")
    with pytest.raises(ValueError, match="model.hidden=0"):
        EvalNet(198, hidden=0)


def _reference_returns(probs, again, length, lam):
    """Backward recursion, one game at a time, straight from the definition."""
    out = np.zeros_like(probs, dtype=np.float64)
    for g in range(probs.shape[0]):
        L = length[g]
        G = probs[g, L - 1].astype(np.float64)          # the result, from its mover's view
        for t in range(L - 2, -1, -1):
            nxt = (1 - lam) * probs[g, t + 1] + lam * G if t + 1 < L - 1 else G
            G = nxt if again[g, t] else swap_perspective(nxt)
            out[g, t] = G
    return out


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("lam", [0.0, 0.3, 0.7, 1.0])
def test_lambda_returns_match_the_backward_recursion(lam, compiled, monkeypatch):
    monkeypatch.setattr(td_compiled, "AVAILABLE", compiled and td_compiled.AVAILABLE)
    rng = np.random.default_rng(1)
    G, T = 6, 40
    probs = rng.random((G, T, 5)).astype(np.float32)
    length = rng.integers(2, T + 1, G)
    length[0] = T
    again = rng.random((G, T)) < 0.2
    for g in range(G):
        probs[g, length[g] - 1] = outcome_probs(rng.integers(1, 4))
    got = lambda_returns(probs, again, length, lam)
    ref = _reference_returns(probs, again, length, lam)
    for g in range(G):
        assert np.allclose(got[g, :length[g] - 1], ref[g, :length[g] - 1], atol=1e-5)


def test_lambda_one_gives_the_result_and_zero_the_next_value():
    probs = np.random.default_rng(2).random((1, 4, 5)).astype(np.float32)
    probs[0, 3] = outcome_probs(2)                       # last mover won a gammon
    again = np.zeros((1, 4), bool)
    mc = lambda_returns(probs, again, np.array([4]), 1.0)[0]
    # afterstate 2 was made by the loser, 1 by the winner, 0 by the loser
    assert np.allclose(mc[2], [0, 0, 0, 1, 0]) and np.allclose(mc[1], [1, 1, 0, 0, 0])
    assert np.allclose(mc[0], [0, 0, 0, 1, 0])
    td0 = lambda_returns(probs, again, np.array([4]), 0.0)[0]
    assert np.allclose(td0[0], swap_perspective(probs[0, 1]))


def test_segment_best_matches_the_engine_argmax():
    rng = np.random.default_rng(3)
    parent = np.sort(np.concatenate([np.arange(50), rng.integers(0, 50, 400)]))
    vals = rng.integers(0, 5, parent.size).astype(np.float32)     # many ties
    assert np.array_equal(segment_best(vals, parent, 50), segment_argmax(vals, parent, 50))


def _scorer(variant="standard", seed=0):
    torch.manual_seed(seed)
    v = get_variant(variant)
    fs = get_feature_set("td198_pool" if variant == "acey_deucey" else "td198")
    return Scorer(EvalNet(fs.size, hidden=8), fs, v, torch.device("cpu"))


def test_scorer_gives_finished_games_their_exact_value():
    sc = _scorer()
    rows = np.zeros((2, 30), np.int8)
    rows[:, 26] = 15                       # I bore off everything
    rows[0, 27] = 0
    rows[0, 5] = -15                       # their 15 all in my home board... as seen by me: my 6
    rows[1, 27] = 3
    rows[1, 10] = -12
    p = sc.probs(rows, np.zeros(2, bool))
    assert p.tolist() == [[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]]


def test_one_ply_matches_a_roll_by_roll_loop():
    sc = _scorer()
    agent = NeuralAgent(sc, ply=1)
    v = sc.variant
    start = v.initial_boards(1)
    after = v.legal_afterstates(start, np.array([[3, 1]]))
    cand = after.boards[:3]
    got = agent.one_ply_probs(cand, np.zeros(3, bool))
    for i in range(3):
        opp = v.flip(cand[i:i + 1])
        total = np.zeros(5)
        for r, w in zip(ROLLS, ROLL_WEIGHTS):
            ch = v.legal_afterstates(opp, r[None])
            p = sc.probs(ch.boards, np.zeros(len(ch), bool))
            total += w * swap_perspective(p[np.argmax(equity(p))])
        assert np.allclose(got[i], total, atol=1e-6)
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


def test_agents_choose_one_legal_row_per_position():
    sc = _scorer()
    v = sc.variant
    boards = v.initial_boards(4)
    dice = np.array([[3, 1], [6, 6], [5, 2], [4, 4]])
    after = v.legal_afterstates(boards, dice)
    for ply in (0, 1):
        pick = NeuralAgent(sc, ply=ply).choose(v, boards, dice, after)
        assert pick.shape == (4,) and np.array_equal(after.parent[pick], np.arange(4))
    with pytest.raises(ValueError, match="ply must be 0, 1 or 2"):
        NeuralAgent(sc, ply=3)


def test_segment_best_with_rows_out_of_order():
    rng = np.random.default_rng(4)
    parent = rng.permutation(np.concatenate([np.arange(30), rng.integers(0, 30, 200)]))
    vals = rng.integers(0, 4, parent.size).astype(np.float32)
    assert np.array_equal(segment_best(vals, parent, 30), segment_argmax(vals, parent, 30))


def test_play_reads_the_outputs_clamped_to_be_cumulative():
    """A net trained output by output can give p_wbg > p_wg or p_lg > 1 - p_win; the scorer
    (self-play, the neural agent) reads them clamped, the raw net is left as it is."""
    from abak_rl.export.sample import sample_afterstates
    from abak_rl.features import feature_set_for
    from abak_rl.model.net import build_net
    v = get_variant("standard")
    fs = feature_set_for("standard")
    torch.manual_seed(2)
    net = build_net(fs.size, {"hidden": 8, "layers": 1, "activation": "sigmoid", "phases": "auto",
                              "bearoff": False}, fs)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(4.0)
    boards, again = sample_afterstates(v, 500, 3)
    with torch.no_grad():
        raw = net(torch.from_numpy(fs.encode(boards, again))).numpy()
    assert (raw[:, 2] > raw[:, 1]).any() or (raw[:, 3] > 1 - raw[:, 0]).any()   # the raw net breaks it
    p = Scorer(net, fs, v, torch.device("cpu")).net_probs(boards, again)
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 2] <= p[:, 1]).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-7).all() and (p[:, 4] <= p[:, 3]).all()
    np.testing.assert_allclose(p[:, 0], raw[:, 0], atol=1e-6)
