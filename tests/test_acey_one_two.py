"""Acey-deucey's pruned 1-2 choice (train.one_two_top_k): the rules stay the full union; the
chooser scores the 1-2 plays first and looks at the doubles under the best K only."""

import numpy as np
import pytest
import torch

from abak_rl.engine.common import segment_argmax, segment_top_k
from abak_rl.engine.game import random_play_positions
from abak_rl.engine.movegen import legal_afterstates
from abak_rl.engine.variants import get_variant
from abak_rl.features import feature_set_for
from abak_rl.model.net import EvalNet, equity
from abak_rl.model.packed import packed_forward
from abak_rl.model.scorer import Scorer, best_afterstates, candidate_afterstates
from abak_rl.train import config as cfgmod
from abak_rl.train.run import main
from abak_rl.train.selfplay import SelfPlay

ACEY = get_variant("acey_deucey")
ONE_TWO = np.array([1, 2], np.int8)


@pytest.fixture(scope="module")
def scorer():
    torch.manual_seed(5)
    fs = feature_set_for("acey_deucey")
    return Scorer(EvalNet(fs.size, hidden=16).eval(), fs, ACEY, torch.device("cpu"))


@pytest.fixture(scope="module")
def positions():
    """Mid-game positions from random games (pool, bar, races), each to be played as a 1-2."""
    boards, _ = random_play_positions(ACEY, 4, seed=11)
    pick = np.random.default_rng(0).choice(len(boards), 60, replace=False)
    return boards[np.sort(pick)], np.tile(ONE_TWO, (60, 1))


def rows_of(after, i):
    return {r.tobytes() for r in after.boards[after.parent == i]}


def choose(scorer, boards, dice, k):
    after = candidate_afterstates(ACEY, scorer, boards, dice, k)
    return after, after.boards[best_afterstates(scorer, after, dice, len(boards))[0]]


def test_segment_top_k_matches_a_sort_per_position():
    rng = np.random.default_rng(1)
    parent = np.sort(rng.integers(0, 40, 500))
    scores = rng.integers(0, 6, 500).astype(float)       # many ties: the first ones win
    for k in (1, 2, 5):
        got = segment_top_k(scores, parent, k)
        want = np.zeros(500, bool)
        for p in np.unique(parent):
            rows = np.flatnonzero(parent == p)
            want[rows[np.argsort(-scores[rows], kind="stable")[:k]]] = True
        assert np.array_equal(got, want)


def test_a_large_k_is_the_exact_choice(scorer, positions):
    boards, dice = positions
    exact = ACEY.legal_afterstates(boards, dice)
    full, full_choice = choose(scorer, boards, dice, 0)
    assert np.array_equal(full.boards, exact.boards)          # k = 0: the plain union
    wide, wide_choice = choose(scorer, boards, dice, 10_000)   # more than any position's 1-2 plays
    assert np.array_equal(wide.boards, exact.boards) and np.array_equal(wide_choice, full_choice)


def test_pruned_candidates_and_choices_are_legal_and_fewer(scorer, positions):
    boards, dice = positions
    exact = ACEY.legal_afterstates(boards, dice)
    _, full_choice = choose(scorer, boards, dice, 0)
    differs = 0
    for k in (1, 2, 3):
        pruned, chosen = choose(scorer, boards, dice, k)
        assert len(pruned) < len(exact)
        for i in range(len(boards)):
            legal = rows_of(exact, i)
            assert rows_of(pruned, i) <= legal and chosen[i].tobytes() in legal
        differs += int((chosen != full_choice).any(axis=1).sum())
    assert differs > 0        # the pruning really prunes: some choices are not the full one


def test_k_1_offers_the_doubles_under_the_best_scored_1_2_play(scorer, positions):
    boards, dice = positions
    plays = legal_afterstates(boards, dice)                   # the 1-2 alone
    e = equity(scorer.probs(plays.boards, np.ones(len(plays), bool)))
    best = plays.boards[segment_argmax(e, plays.parent, len(boards))]
    doubles = np.repeat(np.arange(1, 7), 2).reshape(6, 2)
    got = candidate_afterstates(ACEY, scorer, boards, dice, 1)
    for i in range(len(boards)):
        under = legal_afterstates(np.repeat(best[i:i + 1], 6, axis=0), doubles)
        assert rows_of(got, i) == {r.tobytes() for r in under.boards}


def test_other_rolls_and_variants_are_not_pruned(scorer):
    boards, dice = random_play_positions(ACEY, 2, seed=3)
    rest = ~ACEY.extra_turn(dice)
    exact = ACEY.legal_afterstates(boards[rest], dice[rest])
    got = candidate_afterstates(ACEY, scorer, boards[rest], dice[rest], 1)
    assert np.array_equal(got.boards, exact.boards) and np.array_equal(got.parent, exact.parent)
    std = get_variant("standard")
    b, d = random_play_positions(std, 1, seed=3)
    assert np.array_equal(candidate_afterstates(std, scorer, b, d, 1).boards, std.legal_afterstates(b, d).boards)


def test_a_filter_must_keep_a_play_of_every_position(positions):
    boards, dice = positions
    with pytest.raises(ValueError, match="at least one 1-2 play per position"):
        legal_afterstates(boards, dice, acey_deucey=True, one_two_filter=lambda b, p: p != 0)


def test_pruned_self_play_plays_only_legal_afterstates(scorer):
    play = SelfPlay(ACEY, 32, seed=4, one_two_k=1)
    seen = 0
    for _ in range(60):
        before, dice = play.boards.copy(), play.dice.copy()
        play.step(scorer)
        legal = ACEY.legal_afterstates(before, dice)
        for g in np.flatnonzero(ACEY.extra_turn(dice) & (play.length > 0)):   # not restarted
            assert play.t_boards[g, play.length[g] - 1].tobytes() in rows_of(legal, g)
            seen += 1
    assert seen > 20


def test_packed_td198_pool_is_the_dense_encoding():
    fs = feature_set_for("acey_deucey")
    boards, dice = random_play_positions(ACEY, 2, seed=9)
    after = ACEY.legal_afterstates(boards[:200], dice[:200])
    again = np.random.default_rng(2).random(len(after)) < 0.3
    packed = fs.packing.pack(after.boards, again)
    assert packed.shape[1] == fs.packing.size == 31
    assert np.array_equal(fs.packing.unpack(packed), fs.encode(after.boards, again))
    torch.manual_seed(0)
    net = EvalNet(fs.size, hidden=12).eval()
    with torch.no_grad():
        dense = net(torch.from_numpy(fs.encode(after.boards, again)))
    got = packed_forward(net, fs.packing, packed, torch.device("cpu"))
    assert torch.allclose(got, dense, atol=1e-5)
    # every bar / off / pool count 0..15 and both again flags go through their own table rows
    # (an encoding is a pure function of the row, so these rows need not be reachable)
    rows = after.boards.copy()
    rows[:, 24:30] = np.random.default_rng(3).integers(0, 16, size=(rows.shape[0], 6))
    packed = fs.packing.pack(rows, again)
    assert np.array_equal(fs.packing.unpack(packed), fs.encode(rows, again))
    with torch.no_grad():
        dense = net(torch.from_numpy(fs.encode(rows, again)))
    assert torch.allclose(packed_forward(net, fs.packing, packed, torch.device("cpu")), dense, atol=1e-5)


def test_the_default_k_is_set_and_validated():
    assert cfgmod.compose([]).train.one_two_top_k == 2
    for bad in ("-1", "1.5", "two", "true"):
        with pytest.raises(cfgmod.ConfigError, match=f"train.one_two_top_k=.*must be an integer >= 0"):
            cfgmod.validate(cfgmod.compose([f"train.one_two_top_k={bad}"]))
    cfgmod.validate(cfgmod.compose(["variant=acey_deucey", "train.one_two_top_k=0"]))


def test_a_bad_k_on_the_command_line_is_one_line(capsys):
    assert main(["variant=acey_deucey", "train.one_two_top_k=-2"]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("abak-rl train: ")
    assert "train.one_two_top_k=-2" in lines[0] and "Traceback" not in lines[0]


class _Generic:
    """A variant without can_move: engine.deadlock then tries the 21 rolls with the full rules."""

    def __init__(self, variant):
        self.legal_afterstates = variant.legal_afterstates


def blocked_positions(n: int, seed: int) -> np.ndarray:
    """Mover's checkers on the bar, in the pool and on a few points; the opponent holding 3 to 6
    of the entry points: many positions where some or every roll is blocked."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 30), np.int8)
    for row in out:
        held = rng.choice(np.arange(18, 24), rng.integers(3, 7), replace=False)
        row[held] = -2
        row[27] = 15 - 2 * held.size                         # the opponent's others are off
        row[24], row[28] = rng.integers(0, 2), rng.integers(0, 4)
        for p in rng.choice(np.arange(0, 18), rng.integers(0, 3), replace=False):
            row[p] = 1
        row[26] = 15 - row[24] - row[28] - (row[:24] > 0).sum()
    return out


@pytest.mark.parametrize("enter_all", [False, True])
def test_can_move_is_the_full_rules_answer(enter_all):
    v = get_variant("acey_deucey", enter_all_before_moving=enter_all)
    boards = np.concatenate([blocked_positions(300, 1), random_play_positions(v, 2, seed=5)[0][::5]])
    v.validate(boards)
    from abak_rl.engine.deadlock import _can_move_somehow
    want = _can_move_somehow(_Generic(v), boards)
    assert 20 < (~want).sum() < len(boards) - 20           # both answers are tested
    assert np.array_equal(v.can_move(boards), want)


def test_the_pruning_script_reports_every_k(capsys):
    import json
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import one_two_pruning
    assert one_two_pruning.main(["--positions", "6", "--k", "1", "1000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["positions"] == 6 and set(out["k"]) == {"1", "1000"}
    assert out["k"]["1000"]["same_equity"] == 1.0 and out["k"]["1000"]["mean_loss"] == 0.0
    assert out["k"]["1"]["scored_per_position"] < out["union_per_position"]["mean"]


@pytest.mark.parametrize("name", ["standard", "nackgammon"])
def test_can_move_is_the_full_rules_answer_in_the_other_classic_variants(name):
    v = get_variant(name)
    blocked = blocked_positions(300, 2)
    blocked[:, 26] += blocked[:, 28]            # no pool outside Acey-deucey: count those as off
    blocked[:, 28] = 0
    boards = np.concatenate([blocked, random_play_positions(v, 2, seed=6)[0][::3]])
    v.validate(boards)
    from abak_rl.engine.deadlock import _can_move_somehow
    want = _can_move_somehow(_Generic(v), boards)
    assert 20 < (~want).sum() < len(boards) - 20
    assert np.array_equal(v.can_move(boards), want)


def test_a_run_saved_before_the_pruning_resumes_with_the_full_union():
    # a checkpoint's config without train.one_two_top_k chose in the full union: resuming it
    # must not switch to the new default (K = 2) unless the command line says so
    composed = cfgmod.compose(["variant=acey_deucey"])
    assert composed.train.one_two_top_k == 2
    saved = cfgmod.OmegaConf.to_container(composed)
    del saved["train"]["one_two_top_k"]
    assert cfgmod.resume_config(saved, [], composed).train.one_two_top_k == 0
    asked = cfgmod.compose(["variant=acey_deucey", "train.one_two_top_k=3"])
    assert cfgmod.resume_config(saved, ["train.one_two_top_k=3"], asked).train.one_two_top_k == 3
