"""agents/search.py: batched N-ply search with move filters, checked against a plain
per-position recursion, against the 1-ply the project had before it, and through every
agent, spec and command that plays with it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from abak_rl.agents.search import (NO_FILTER, REPLY_FILTER, ROLL_WEIGHTS, ROLLS, ROOT_FILTER,
                                   MoveFilter, Search, parse_filter_options)
from abak_rl.engine.common import segment_argmax
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_positions
from abak_rl.features import get_feature_set
from abak_rl.inference import ExportedAgent, Model
from abak_rl.model.outcomes import equity, outcome_probs
from abak_rl.model.outcomes import swap_perspective_np as swap


def _model(variant: str, seed: int = 0) -> Model:
    """A torch-free Model with a small random net (two layers, so its choices are not trivial)."""
    v = get_variant(variant)
    fs = get_feature_set("td198_pool" if variant == "acey_deucey" else "td198")
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0, 0.3, (fs.size, 12)).astype(np.float32)
    w2 = rng.normal(0, 1.0, (12, 5)).astype(np.float32)

    def forward(x):
        h = np.tanh(np.einsum("nf,fh->nh", x, w1))          # row by row: no BLAS blocking
        return (1 / (1 + np.exp(-np.einsum("nh,hc->nc", h, w2)))).astype(np.float32)
    return Model(forward, fs, v, source=f"random-{variant}")


def _positions(variant: str, n: int, seed: int):
    v = get_variant(variant)
    boards, dice = sample_positions(v, n, seed=seed)
    return v, boards, dice, v.legal_afterstates(boards, dice)


# ----------------------------------------------------------------------------- move filters

def _keep_loop(eq, parent, n, k, margin):
    keep = np.zeros(len(eq), bool)
    for p in range(n):
        rows = [i for i in range(len(eq)) if parent[i] == p]
        ranked = sorted(rows, key=lambda i: (-eq[i], i))
        best = eq[ranked[0]]
        for r, i in enumerate(ranked):
            keep[i] = (k is None or r < k) and (margin is None or eq[i] >= best - margin)
    return keep


def test_filter_keeps_the_best_k_within_the_margin():
    rng = np.random.default_rng(1)
    # a few long fan-outs (doubles: hundreds of plays) beside the usual few dozen
    parent = np.sort(np.concatenate([np.arange(40), rng.integers(0, 40, 300), np.full(150, 7), np.full(90, 31)]))
    eq = np.round(rng.normal(0, 0.2, parent.size), 2)         # rounded: many ties
    for k, margin in ((8, 0.16), (2, 0.04), (1, None), (None, 0.1), (3, 0.0), (None, None), (6, 0.2)):
        got = MoveFilter(k, margin).keep(eq, parent, 40)
        assert got.tolist() == _keep_loop(eq, parent, 40, k, margin).tolist(), (k, margin)
        # the first best row of every position always passes
        assert got[segment_argmax(eq, parent, 40)].all()
    assert MoveFilter(2, 0.04).keep(eq, parent, 40).sum() < MoveFilter(8, 0.16).keep(eq, parent, 40).sum()


def test_the_compiled_filter_equals_the_numpy_filter():
    """engine/common.segment_keep (compiled, rows of a position contiguous) against its NumPy
    reference on random positions of 1 to 300 plays with ties; rows out of position order go to
    the NumPy path and give the same mask."""
    from abak_rl.engine import common_compiled
    from abak_rl.engine.common import segment_keep, segment_keep_numpy, segment_top_k
    assert common_compiled.AVAILABLE
    rng = np.random.default_rng(7)
    for trial in range(60):
        sizes = rng.integers(1, 300 if trial % 4 == 0 else 30, rng.integers(1, 40))
        parent = np.repeat(np.arange(sizes.size), sizes)
        eq = rng.normal(0, 0.3, parent.size)
        if trial % 2:
            eq = np.round(eq, 1)                                # ties
        for k, margin in ((8, None), (6, 0.2), (1, None), (2, 0.04), (None, 0.1), (5, 0.0), (None, None)):
            want = segment_keep_numpy(eq, parent, k, margin)
            assert (segment_keep(eq, parent, k, margin) == want).all(), (trial, k, margin)
            assert (common_compiled.keep(eq, parent, k, margin) == want).all(), (trial, k, margin)
        order = rng.permutation(parent.size)                   # not contiguous: the NumPy path
        shuffled = segment_top_k(eq[order], parent[order], 3)
        assert (shuffled == segment_keep_numpy(eq[order], parent[order], 3, None)).all()
        if trial % 2 == 0:                                     # no ties: the same rows as in order
            assert (shuffled == segment_keep_numpy(eq, parent, 3, None)[order]).all()


def test_filter_options_parse_and_reject_bad_values():
    assert parse_filter_options({}) == {}
    assert parse_filter_options({"k": "4"}) == {"root": MoveFilter(4, ROOT_FILTER.margin)}
    got = parse_filter_options({"k": "all", "margin": "none", "reply_k": "3", "reply_margin": "0.1"})
    assert got == {"root": NO_FILTER, "reply": MoveFilter(3, 0.1)}
    assert got["root"].off and not got["reply"].off
    for opts, msg in (({"k": "0"}, "k must be a whole number"), ({"k": "x"}, "k='x'"),
                      ({"margin": "-1"}, "margin must be a number >= 0"),
                      ({"depth": "3"}, "unknown search option")):
        with pytest.raises(ValueError, match=msg):
            parse_filter_options(opts)


# ----------------------------------------------------------------------------- today's 1-ply

def _todays_one_ply(model, boards, again):
    """Model.one_ply_probs as it was before agents/search.py (copied verbatim, chunk 512)."""
    variant = model.variant
    n = boards.shape[0]
    won = variant.winner_points(boards)
    out = np.empty((n, 5), dtype=np.float64)
    over = won > 0
    out[over] = outcome_probs(won[over])
    live = np.flatnonzero(~over)
    for lo in range(0, live.size, 512):
        idx = live[lo:lo + 512]
        nxt = np.where(again[idx, None], boards[idx], variant.flip(boards[idx]))
        k = idx.size
        pos = np.repeat(nxt, len(ROLLS), axis=0)
        dice = np.tile(ROLLS, (k, 1))
        after = variant.legal_afterstates(pos, dice)
        p = model.probs(after.boards, variant.extra_turn(dice)[after.parent])
        best = segment_argmax(equity(p).astype(np.float64), after.parent, k * len(ROLLS))
        reply = p[best].astype(np.float64).reshape(k, len(ROLLS), 5)
        avg = np.einsum("krc,r->kc", reply, ROLL_WEIGHTS)
        out[idx] = np.where(again[idx, None], avg, swap(avg))
    return out.astype(np.float32)


@pytest.mark.parametrize("variant", ["standard", "acey_deucey"])
def test_unfiltered_one_ply_equals_the_previous_one_ply_exactly(variant):
    model = _model(variant)
    v, boards, dice, after = _positions(variant, 24 if variant == "standard" else 3, seed=3)
    if variant == "acey_deucey":                 # a 1-2: the mover rolls again
        dice[0] = (1, 2)
        after = v.legal_afterstates(boards, dice)
    again = v.extra_turn(dice)[after.parent]
    assert again.any() == (variant == "acey_deucey")
    if variant == "standard":
        want = _todays_one_ply(model, after.boards, again)
        assert np.array_equal(model.one_ply_probs(after.boards, again), want)
        assert np.array_equal(model.afterstate_probs(after, dice, ply=1), want)
        before = segment_argmax(equity(want), after.parent, boards.shape[0])
        assert np.array_equal(model.choose(boards, dice, after, ply=1, root=NO_FILTER), before)
    else:                                        # a sample of the 1-2's many afterstates, and the rest
        rows = np.concatenate([np.flatnonzero(again)[::15], np.flatnonzero(~again)])
        want = _todays_one_ply(model, after.boards[rows], again[rows])
        assert np.array_equal(model.one_ply_probs(after.boards[rows], again[rows]), want)
    # before the roll: the same average seen from the player to move
    m = min(4, boards.shape[0])
    p = model.pre_roll_probs(boards[:m], ply=1)
    pos = np.repeat(boards[:m], 21, axis=0)
    rolls = np.tile(ROLLS, (m, 1))
    ch = v.legal_afterstates(pos, rolls)
    q = model.probs(ch.boards, v.extra_turn(rolls)[ch.parent])
    reply = q[segment_argmax(equity(q), ch.parent, 21 * m)].astype(np.float64).reshape(m, 21, 5)
    assert np.array_equal(p, np.einsum("krc,r->kc", reply, ROLL_WEIGHTS).astype(np.float32))


# ----------------------------------------------------------------------------- a plain reference

def _ref_keep(eq0, filt):
    ranked = sorted(range(len(eq0)), key=lambda i: (-eq0[i], i))
    best = eq0[ranked[0]]
    return sorted(i for r, i in enumerate(ranked)
                  if (filt.k is None or r < filt.k) and (filt.margin is None or eq0[i] >= best - filt.margin))


def _ref_best(model, pos, roll, ply, reply):
    """(value at `ply`) of the best play of one position and roll, chosen at `ply`."""
    v = model.variant
    after = v.legal_afterstates(pos[None], np.asarray(roll, np.int8)[None])
    again = bool(v.extra_turn(np.asarray(roll)[None])[0])
    p0 = model.probs(after.boards, np.full(len(after), again))
    eq0 = [float(equity(p)) for p in p0]
    if ply == 0:
        return p0[int(np.argmax(eq0))].astype(np.float64)
    vals = {i: _ref_value(model, after.boards[i], again, ply, reply) for i in _ref_keep(eq0, reply)}
    return vals[max(vals, key=lambda i: (equity(vals[i]), -i))]


def _ref_value(model, board, again, ply, reply):
    """The ply-level value of one afterstate by plain recursion, one roll at a time."""
    v = model.variant
    if ply == 0:
        return model.probs(board[None], np.array([again]))[0].astype(np.float64)
    won = v.winner_points(board[None])[0]
    if won > 0:
        return outcome_probs(np.array([won]))[0].astype(np.float64)
    nxt = board if again else v.flip(board[None])[0]
    total = np.zeros(5)
    for roll, w in zip(ROLLS, ROLL_WEIGHTS):
        b = _ref_best(model, nxt, roll, ply - 1, reply)
        total += w * (b if again else swap(b))
    return total


def _ref_choose(model, row, dice, ply, root, reply):
    v = model.variant
    after = v.legal_afterstates(row[None], np.asarray(dice, np.int8)[None])
    again = bool(v.extra_turn(np.asarray(dice)[None])[0])
    p0 = model.probs(after.boards, np.full(len(after), again))
    keep = _ref_keep([float(equity(p)) for p in p0], root)
    vals = {i: _ref_value(model, after.boards[i], again, ply, reply) for i in keep}
    return max(vals, key=lambda i: (equity(vals[i]), -i)), vals


def _with_a_finish(v):
    """A bear-off where some plays win at once (exact values at every depth)."""
    row = np.zeros((1, v.initial_boards(1).shape[1]), np.int8)
    row[0, 0], row[0, 1] = 1, 1
    row[0, 26] = 13                                  # my 13 off, two left on my 1 and 2 points
    row[0, 18], row[0, 27] = -3, 12                  # theirs: three on my 19 point, 12 off
    return v.validate(row)


@pytest.mark.parametrize("ply,root,reply", [(1, NO_FILTER, REPLY_FILTER), (1, MoveFilter(3, 0.2), REPLY_FILTER),
                                            (2, MoveFilter(2, 0.3), MoveFilter(2, 0.1))])
def test_batched_search_equals_a_plain_recursion(ply, root, reply):
    model = _model("standard", seed=2)
    v, boards, dice, _ = _positions("standard", 40, seed=11)
    rows = [boards[7], boards[23]] if ply == 1 else [boards[23]]
    rolls = [dice[7], dice[23]] if ply == 1 else [dice[23]]
    rows.append(_with_a_finish(v)[0])
    rolls.append(np.array([2, 1], np.int8))
    b, d = np.stack(rows), np.stack(rolls).astype(np.int8)
    after = v.legal_afterstates(b, d)
    search = model.search(root, reply)
    p, searched = search.play_values(after, d, b.shape[0], ply)
    pick = search.choose(after, d, b.shape[0], ply)
    for j in range(b.shape[0]):
        best, vals = _ref_choose(model, b[j], d[j], ply, root, reply)
        first = int(np.flatnonzero(after.parent == j)[0])
        assert sorted(i + first for i in vals) == np.flatnonzero(searched & (after.parent == j)).tolist()
        for i, want in vals.items():
            np.testing.assert_allclose(p[first + i], want, rtol=0, atol=1e-9)
        assert pick[j] == first + best
    # the finishing play of the bear-off is searched and worth exactly a single win
    last = np.flatnonzero(after.parent == b.shape[0] - 1)
    won = v.winner_points(after.boards[last]) > 0
    assert won.any() and np.array_equal(p[last[won]], np.tile([1.0, 0, 0, 0, 0], (won.sum(), 1)))


def test_acey_deucey_extra_roll_in_the_recursion():
    """After a 1-2 the same player rolls again: no perspective swap, at 1 and 2 ply."""
    model = _model("acey_deucey", seed=4)
    v, boards, dice, _ = _positions("acey_deucey", 30, seed=2)
    row, roll = boards[10:11], np.array([[1, 2]], np.int8)
    after = v.legal_afterstates(row, roll)
    again = v.extra_turn(roll)[after.parent]
    assert again.all()
    pick = np.unique(np.linspace(0, len(after) - 1, 3).astype(int))
    got = model.search().values(after.boards[pick], again[pick], 1)
    for g, i in zip(got, pick):
        np.testing.assert_allclose(g, _ref_value(model, after.boards[i], True, 1, REPLY_FILTER), atol=1e-9)
    one = after.boards[pick[:1]]
    tight = MoveFilter(1, 0.05)
    got2 = model.search(reply=tight).values(one, again[:1], 2)
    np.testing.assert_allclose(got2[0], _ref_value(model, one[0], True, 2, tight), atol=1e-9)


def test_two_ply_pre_roll_and_chunking():
    model = _model("standard", seed=5)
    v, boards, dice, after = _positions("standard", 6, seed=9)
    a = Search(model.probs, v, chunk=512).pre_roll(boards[:3], 2)
    b = Search(model.probs, v, chunk=1).pre_roll(boards[:3], 2)
    np.testing.assert_allclose(a, b, atol=1e-12)
    # before the roll at N ply = the position as the opponent's afterstate at N ply, swapped
    again = np.zeros(3, bool)
    np.testing.assert_allclose(a, swap(model.search().values(v.flip(boards[:3]), again, 2)), atol=1e-12)
    assert ((a >= -1e-9) & (a <= 1 + 1e-9)).all()


# ----------------------------------------------------------------------------- the agents

def test_torch_and_exported_agents_run_the_same_search():
    torch = pytest.importorskip("torch")
    from abak_rl.agents.neural import NeuralAgent
    from abak_rl.model.net import EvalNet
    from abak_rl.model.scorer import Scorer
    v = get_variant("standard")
    fs = get_feature_set("td198")
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                            # tiny products: a second thread only waits
    net = EvalNet(fs.size, hidden=8).eval()
    neural = NeuralAgent(Scorer(net, fs, v, torch.device("cpu")), ply=2, root=MoveFilter(2, None))
    model = Model(None, fs, v)
    model.probs = neural.scorer.probs                   # the torch net's 0-ply, read by the Model
    exported = ExportedAgent(model, ply=2, root=MoveFilter(2, None))
    _, boards, dice, after = _positions("standard", 3, seed=4)
    again = v.extra_turn(dice)[after.parent]
    assert np.array_equal(neural.values(after.boards[:2], again[:2], 2),
                          model.search().values(after.boards[:2], again[:2], 2))
    assert neural.choose(v, boards, dice, after).tolist() == exported.choose(v, boards, dice, after).tolist()
    # unfiltered 1-ply of the torch agent: the roll-by-roll average it always computed
    one = NeuralAgent(neural.scorer, ply=1, root=NO_FILTER)
    got = one.one_ply_probs(after.boards[:4], again[:4])
    for i in range(4):
        np.testing.assert_allclose(got[i], _ref_value(model, after.boards[i], False, 1, REPLY_FILTER), atol=1e-6)
    assert neural.name == "neural@2ply,k=2,margin=none" and exported.name.endswith(",ply=2,k=2,margin=none")
    for bad in (3, -1, "2", True):
        with pytest.raises(ValueError, match="ply must be 0, 1 or 2"):
            NeuralAgent(neural.scorer, ply=bad)
    torch.set_num_threads(threads)


def test_filters_change_what_is_searched_not_the_best_0ply_candidate():
    model = _model("standard", seed=7)
    v, boards, dice, after = _positions("standard", 30, seed=1)
    p, searched = model.play_values(after, dice, ply=1)
    n = boards.shape[0]
    counts = np.bincount(after.parent[searched], minlength=n)
    assert counts.max() <= ROOT_FILTER.k and counts.min() >= 1
    p0 = model.afterstate_probs(after, dice, ply=0)
    assert searched[segment_argmax(equity(p0), after.parent, n)].all()
    assert np.array_equal(p[~searched], p0[~searched])       # the others keep their 0-ply values
    pick = model.choose(boards, dice, after, ply=1)
    assert searched[pick].all()
    wide = model.choose(boards, dice, after, ply=1, root=MoveFilter(None, 10.0))
    assert np.array_equal(wide, model.choose(boards, dice, after, ply=1, root=NO_FILTER))


def test_rank_plays_at_two_ply_lists_searched_plays_first():
    model = _model("standard", seed=3)
    row = model.variant.initial_boards(1)[0]
    ranked = model.rank_plays(row, (6, 5), ply=2, root=MoveFilter(3, None))
    plies = [r.ply for r in ranked]
    assert plies[:3] == [2, 2, 2] and set(plies[3:]) == {0}
    eqs = [r.equity for r in ranked[:3]]
    assert eqs == sorted(eqs, reverse=True)
    after = model.variant.legal_afterstates(row[None], np.array([[6, 5]], np.int8))
    assert ranked[0].board.tolist() == after.boards[model.choose(row[None], np.array([[6, 5]]), after, 2,
                                                                 root=MoveFilter(3, None))[0]].tolist()
    with pytest.raises(ValueError, match="ply must be 0, 1 or 2"):
        model.rank_plays(row, (6, 5), ply=3)


# ----------------------------------------------------------------------------- specs and commands

PRETRAINED = "checkpoints/pretrained/standard"


def test_export_spec_takes_ply_2_and_filter_options():
    from abak_rl.agents.registry import make_agent, parse_agent_options
    v = get_variant("standard")
    agent = make_agent(f"export:{PRETRAINED},ply=2,k=4,reply_margin=0.02", v)
    assert agent.ply == 2 and agent.root == MoveFilter(4, 0.16) and agent.reply == MoveFilter(2, 0.02)
    assert make_agent(f"export:{PRETRAINED},ply=1", v).root == ROOT_FILTER
    assert parse_agent_options("checkpoint:runs/a,b/x.pt,ply=2,margin=none") == \
        ("runs/a,b/x.pt", 2, {"root": MoveFilter(8, None)})
    for spec, msg in ((f"export:{PRETRAINED},ply=3", "expected 0, 1 or 2"),
                      (f"export:{PRETRAINED},ply=1,k=zero", "k='zero'"),
                      (f"export:{PRETRAINED},k=4", "only with ply=1 or ply=2")):
        with pytest.raises(ValueError, match=msg):
            make_agent(spec, v)


def test_hint_and_play_accept_ply_2(capsys):
    from abak_rl.export.cli import hint_main, play_parser
    assert play_parser().parse_args(["--ply", "2"]).ply == 2
    rc = hint_main(["--model", PRETRAINED, "--dice", "6", "5", "--ply", "2", "--json"])
    h = json.loads(capsys.readouterr().out)
    assert rc == 0 and h["ply"] == 2
    plies = [p["ply"] for p in h["plays"]]
    assert plies[0] == 2 and 0 in plies and plies == sorted(plies, reverse=True)
    assert h["plays"][0]["play"] == "24/18 18/13"      # the opening 6-5 runs a back checker
    rc = hint_main(["--model", PRETRAINED, "--dice", "6", "5", "--ply", "2", "--top", "9"])
    out = capsys.readouterr().out
    assert rc == 0 and "2-ply" in out and "(0-ply)" in out
    # the cube decision before the roll, at 2 ply: the mover's chances averaged over its rolls
    from abak_rl.inference import load_exported
    # a race that is not yet a bear-off (bear-offs are exact at every ply with the database)
    board = [0, 0, 0, 2, 2, 2, 3, 3, 3] + [0] * 6 + [-3, -3, -3, -2, -2, -2, 0, 0, 0]
    race = {"variant": "standard", "board": board, "bar": [0, 0], "off": [0, 0]}
    rc = hint_main(["--model", PRETRAINED, "--position", json.dumps(race), "--ply", "2", "--json"])
    h = json.loads(capsys.readouterr().out)
    model = load_exported(PRETRAINED)
    row = np.array(board + [0] * 6, np.int8)
    want = model.pre_roll_probs(row, ply=2)[0]
    assert rc == 0 and h["ply"] == 2
    assert [h["cube"]["probs"][k] for k in ("p_win", "p_lg")] == [round(float(want[0]), 6), round(float(want[3]), 6)]
    assert abs(want[0] - model.pre_roll_probs(row, ply=0)[0, 0]) > 1e-4     # the search changed it


def test_bench_search_prints_one_line_per_setting(capsys):
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_search", "scripts/bench_search.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--positions", "3", "--batch", "2", "--agreement", "3", "--agreement2", "1",
                       "--no-torch", "--source", "net"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("setting") for x in lines[:4]] == [s[0] for s in bench.SETTINGS]
    assert lines[0]["ratio_to_0ply"] == 1.0 and all(x["moves_per_cpu_s"] > 0 for x in lines[:4])
    assert [x["bench"] for x in lines[4:]] == ["search_agreement"] * 2
    # positions with a choice among the sampled ones (a forced move is not compared)
    assert 0 < lines[4]["positions"] <= 3 and 0 <= lines[4]["same_fraction"] <= 1
    assert bench.main(["--positions", "0"]) == 2


def test_bench_labels_times_the_plain_and_the_new_path_and_they_agree(capsys):
    """scripts/bench_labels.py: one line per setting with its ratio to the plain path of the
    same run, the same values from every setting, bad counts and a missing model in one line."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_labels", "scripts/bench_labels.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--labels", "4", "--rounds", "1", "--ply", "1"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("setting") for x in lines[:3]] == ["plain", "compiled filter", "best 6 within 0.2"]
    assert lines[0]["ratio_to_plain"] == 1.0 and all(x["labels_per_cpu_s"] > 0 and x["labels"] == 4 for x in lines[:3])
    assert all(x["equity_vs_plain"]["max"] < 1e-6 for x in lines[:2])        # the same search, faster
    assert lines[2]["screen"] == "6/0.2" and lines[3]["compiled_kernels"]
    assert bench.main(["--labels", "0"]) == 2
    assert bench.main(["--model", "no/such/model"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("bench_labels: ") for line in err)


# ----------------------------------------------------------------------------- GNU Backgammon as the reference

def _gnubg_positions(n: int, seed: int):
    """Positions before a roll from gnubg-nn's own 0-ply games, with a random roll each."""
    from abak_rl.agents.gnubg_agent import GnubgAgent
    from abak_rl.engine.game import play_games
    v = get_variant("standard")
    g = GnubgAgent(v)
    seen = []
    play_games(v, [g, g], 6, seed, on_turn=lambda ids, seats, before, *rest: seen.append(before.copy()))
    rows = np.concatenate(seen)
    rng = np.random.default_rng(seed)
    rows = rows[rng.permutation(len(rows))[:n]]
    dice = rng.integers(1, 7, size=(len(rows), 2)).astype(np.int8)
    return v, rows, dice, v.legal_afterstates(rows, dice)


@pytest.mark.parametrize("ply", [0, 1])
def test_search_over_gnubgs_net_plays_gnubgs_own_search(ply):
    """Our Search fed GNU Backgammon's 0-ply net (gnubg-nn) picks the play gnubg-nn's own
    search picks at the same depth, with the same move filter (8 plays within 0.16): a
    reference implementation for the recursion, the roll weights, the perspective swaps and
    the filter. Where the picks differ the two plays must be worth the same to us (a tie,
    e.g. two plays that both win for certain)."""
    g = pytest.importorskip("gnubg_nn")
    from abak_rl.agents.gnubg_agent import afterstate_probs, from_gnubg, to_gnubg
    v, rows, dice, after = _gnubg_positions(40, 4)
    search = Search(afterstate_probs, v)
    n = len(rows)
    starts, counts = after.starts(n), after.counts(n)
    ours = search.choose(after, dice, n, ply)
    values, _ = search.play_values(after, dice, n, ply)
    eq = equity(values)
    choices = differ = 0
    for i in np.flatnonzero(counts > 1):
        _, key = g.best_move(to_gnubg(rows[i]), int(dice[i, 0]), int(dice[i, 1]), n=ply, b=1)
        row = from_gnubg(*g.board_from_position_key(key))
        seg = after.boards[starts[i]:starts[i] + counts[i]]
        theirs = starts[i] + np.flatnonzero((seg == row).all(axis=1))[0]
        choices += 1
        if theirs != ours[i]:
            differ += 1
            assert abs(eq[theirs] - eq[ours[i]]) < 1e-5, (i, eq[theirs], eq[ours[i]])
    assert choices >= 25
    assert differ <= choices // 10


# ----------------------------------------------------------------------------- screens

def _ref_screened_value(model, screen, board, k, margin=None):
    """1-ply value of one afterstate, each reply picked by the full net among the screen's best k
    (with a margin, only those of them within it of the screen's best)."""
    v = model.variant
    nxt = v.flip(board[None])[0]
    total = np.zeros(5)
    for roll, w in zip(ROLLS, ROLL_WEIGHTS):
        after = v.legal_afterstates(nxt[None], np.asarray(roll, np.int8)[None])
        no = np.zeros(len(after), bool)
        s = [float(equity(p)) for p in screen.probs(after.boards, no)]
        kept = sorted(range(len(s)), key=lambda i: (-s[i], i))[:k]
        if margin is not None:
            kept = [i for i in kept if s[i] >= max(s) - margin]
        p = model.probs(after.boards[kept], no[kept]).astype(np.float64)
        total += w * swap(p[int(np.argmax([float(equity(x)) for x in p]))])
    return total


def test_a_screen_leaves_the_full_net_only_its_best_k():
    """Search with a Screen equals a plain per-roll recursion that ranks the replies by the
    screen and picks among its best k by the full net; a screen that is the full net, or a k
    that keeps every play, changes nothing; a poor screen can only make the replies worse for
    the player who picks them, so the values come out higher for the afterstate's mover."""
    from abak_rl.agents.search import Screen, Search
    model, other = _model("standard", seed=2), _model("standard", seed=5)
    v, boards, dice, after = _positions("standard", 12, seed=11)
    rows, again = after.boards[::7][:6], np.zeros(len(after.boards[::7][:6]), bool)
    plain = Search(model.probs, v)
    for k in (1, 3):
        got = Search(model.probs, v, screen=Screen(other.probs, k)).values(rows, again, 1)
        for i, row in enumerate(rows):
            np.testing.assert_allclose(got[i], _ref_screened_value(model, other, row, k), atol=1e-9)
        assert (equity(got) >= equity(plain.values(rows, again, 1)) - 1e-12).all()
    for ply in (1, 2):
        want = plain.values(rows[:2], again[:2], ply)
        for screen in (Screen(model.probs, 1), Screen(other.probs, 10_000)):
            np.testing.assert_allclose(Search(model.probs, v, screen=screen).values(rows[:2], again[:2], ply),
                                       want, atol=1e-12)
    assert equity(Search(model.probs, v, screen=Screen(other.probs, 1)).values(rows, again, 1)).sum() > \
        equity(plain.values(rows, again, 1)).sum()                      # a real difference
    with pytest.raises(ValueError, match="screen k"):
        Screen(other.probs, 0)


def test_a_screen_margin_sends_the_full_net_only_plays_near_the_screens_best():
    """Screen(margin=M): of the screen's best k, only those within M of the screen's best equity
    reach the full net (the plain recursion above, with the margin); no margin and a huge one
    are the same search, M = 0 keeps the screen's best play alone, and a bad M is refused."""
    from abak_rl.agents.search import Screen, Search
    model, other = _model("standard", seed=2), _model("standard", seed=5)
    v, boards, dice, after = _positions("standard", 12, seed=11)
    rows, again = after.boards[::7][:6], np.zeros(len(after.boards[::7][:6]), bool)
    for k, margin in ((4, 0.05), (6, 0.2), (3, 0.0)):
        got = Search(model.probs, v, screen=Screen(other.probs, k, margin=margin)).values(rows, again, 1)
        for i, row in enumerate(rows):
            np.testing.assert_allclose(got[i], _ref_screened_value(model, other, row, k, margin), atol=1e-9)
    wide = Search(model.probs, v, screen=Screen(other.probs, 4, margin=1e9)).values(rows, again, 2)
    np.testing.assert_allclose(wide, Search(model.probs, v, screen=Screen(other.probs, 4)).values(rows, again, 2),
                               atol=1e-12)
    np.testing.assert_allclose(Search(model.probs, v, screen=Screen(other.probs, 6, margin=0.0)).values(rows, again, 1),
                               Search(model.probs, v, screen=Screen(other.probs, 1)).values(rows, again, 1), atol=1e-12)
    assert Screen(other.probs, 6, margin=0.2).label() == "6/0.2" and Screen(other.probs, 8).label() == "8"
    for bad in (-0.1, float("nan"), "0.2"):
        with pytest.raises(ValueError, match="margin"):
            Screen(other.probs, 6, margin=bad)


def test_checkpoint_specs_take_a_screen(tmp_path):
    """checkpoint:...,ply=1,screen=S,screen_k=K loads S as the screen of the search (the net as
    its own screen at k=1 values exactly as without one); the option is refused at 0-ply, for
    torch-free agents, with a bad k, or as screen_k alone, each in one ValueError."""
    from test_widen_net import _trained_expert_net

    from abak_rl.agents.registry import make_agent, parse_agent_options
    src = _trained_expert_net(tmp_path)
    v = get_variant("standard")
    agent = make_agent(f"checkpoint:{src},ply=1,screen={src},screen_k=1", v)
    assert agent.screen is not None and agent.screen.k == 1 and f"screen={src},screen_k=1" in agent.name
    plain = make_agent(f"checkpoint:{src},ply=1", v)
    assert plain.screen is None
    _, boards, dice, after = _positions("standard", 8, seed=3)
    again = np.zeros(len(after.boards), bool)
    np.testing.assert_allclose(agent.values(after.boards[:10], again[:10], 1),
                               plain.values(after.boards[:10], again[:10], 1), atol=1e-9)
    assert make_agent(f"checkpoint:{src},ply=2,screen={src}", v).screen.k == 8
    margined = make_agent(f"checkpoint:{src},ply=1,screen={src},screen_k=6,screen_margin=0.2", v)
    assert margined.screen.margin == 0.2 and "screen_k=6,screen_margin=0.2" in margined.name
    for spec, msg in ((f"checkpoint:{src},screen={src}", "only with ply=1 or ply=2"),
                      (f"checkpoint:{src},ply=1,screen_k=3", "needs screen="),
                      (f"checkpoint:{src},ply=1,screen_margin=0.2", "needs screen="),
                      (f"checkpoint:{src},ply=1,screen={src},screen_margin=-1", "screen_margin='-1'"),
                      (f"checkpoint:{src},ply=1,screen={src},screen_margin=wide", "screen_margin='wide'"),
                      (f"checkpoint:{src},ply=1,screen={src},screen_k=0", "screen_k='0'"),
                      (f"export:some/dir,ply=1,screen={src}", "checkpoint: agents")):
        with pytest.raises(ValueError, match=msg):
            parse_agent_options(spec)
