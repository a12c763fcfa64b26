"""abak_expert: the batched encoder against the plain reference, the packed rows, and the packed
first layer against the dense net."""

import random

import numpy as np
import pytest
import torch

from abak_rl.engine.abak import board as ab
from abak_rl.engine.abak.variant import row_from_stacks, starting_row
from abak_rl.features import abak_expert as ae
from abak_rl.features import abak_expert_reference as ref
from abak_rl.features import get_feature_set
from abak_rl.io.bench import random_positions
from abak_rl.model.net import EvalNet, PhasedNet, cumulative
from abak_rl.model.packed import packed_forward
from test_abak_rules import _random_layout


@pytest.fixture(scope="module")
def positions():
    games = random_positions("abak", 700, seed=11, max_turns=400)
    rng = random.Random(7)
    layouts = np.stack([_random_layout(rng) for _ in range(350)])
    return np.concatenate([games, layouts])


def test_encoder_matches_the_reference(positions):
    x = ae.encode(positions, None)
    want = ref.encode(positions)
    bad = np.flatnonzero(np.abs(x - want).max(1) > 1e-6)
    assert bad.size == 0, f"{bad.size} positions differ, first {bad[0]}: units " \
                          f"{np.flatnonzero(np.abs(x[bad[0]] - want[bad[0]]) > 1e-6)}"
    dense = x[:, ae.DENSE0:]
    # the knowledge units are exercised, not constant
    assert (dense.std(0) > 0).all()


def test_packed_rows_unpack_to_the_encoding(positions):
    fs = get_feature_set("abak_expert")
    packed = fs.packing.pack(positions, None)
    assert packed.shape == (positions.shape[0], ae.PACKED_SIZE)
    np.testing.assert_array_equal(fs.packing.unpack(packed), fs.encode(positions))
    assert fs.size == ae.SIZE and fs.class_unit == ae.RACE_UNIT
    codes = packed[:, :ae.N_CODES]
    assert (codes >= 0).all() and (codes[:, :24] < ae.N_COLUMN_CODES).all()
    assert (codes[:, 24:] < ae.N_SPECIAL_CODES).all()


def test_start_position_units():
    x = ae.encode(starting_row()[None], None)[0]
    d = x[ae.DENSE0:]
    # both sides: not home, held points 6, 8, 13 and 23-24 (longest run 2), General on 6 free to
    # move back to 7..11 but not 12 (O's 13-point), both Wounded buried
    np.testing.assert_allclose(d[0:6], [0, 2 / 6, 1, 5 / 6, 0, 0], atol=1e-6)
    np.testing.assert_allclose(d[6:12], [0, 2 / 6, 1, 5 / 6, 0, 0], atol=1e-6)
    assert d[12] == 0 and d[13] == 0 and d[18] == 0          # no blots, no race
    gen = x[ae.SPECIAL0:ae.SPECIAL0 + ae.N_SPECIAL_UNITS]     # P's General: point 6, height 3, top
    assert gen[5] == 1 and gen[26] == 0.75 and gen[27] == 0 and gen[28] == 1


def _two_checker_row(p_col: str, p_point: int, o_col: str, o_point: int) -> np.ndarray:
    board = [""] * 24
    board[p_point - 1] = p_col
    board[o_point - 1] = o_col
    return row_from_stacks(board, "", (14, 14))


def test_shots_count_direct_and_combined_rolls():
    # a P Soldier on 5, an O Soldier on P's 2: any 3 (11 rolls), 1-2 (2), 1-1 (1) hit
    row = _two_checker_row("S", 5, "s", 2)
    d = ae.encode(row[None], None)[0, ae.DENSE0:]
    assert d[12] == pytest.approx(14 / 36)
    # the same with an Odd Wounded hitter: only odd dice: any 3 (11), 1-1 (1); 1-2 mixes parities
    row = _two_checker_row("S", 5, "o", 2)
    assert ae.encode(row[None], None)[0, ae.DENSE0 + 12] == pytest.approx(12 / 36)
    # O's Druid traps on 7..18 instead of hitting: P blot on 10, O Druid on 7 -> trap rolls
    row = _two_checker_row("S", 10, "d", 7)
    d = ae.encode(row[None], None)[0, ae.DENSE0:]
    assert d[12] == 0 and d[13] == pytest.approx(14 / 36)
    # a lone Guard is hit only by a Guard
    assert ae.encode(_two_checker_row("K", 5, "s", 2)[None], None)[0, ae.DENSE0 + 12] == 0
    assert ae.encode(_two_checker_row("K", 5, "k", 2)[None], None)[0, ae.DENSE0 + 12] == pytest.approx(14 / 36)


def _nets():
    torch.manual_seed(0)
    return [EvalNet(ae.SIZE, 24), PhasedNet(ae.SIZE, ae.RACE_UNIT, hidden=16)]


@pytest.mark.parametrize("which", [0, 1])
def test_packed_forward_equals_the_dense_net_and_follows_weight_updates(positions, which):
    fs = get_feature_set("abak_expert")
    net = _nets()[which]
    packed = fs.packing.pack(positions, None)
    race = packed[:, ae.N_CODES + 18] > 0.5
    assert race.any() and (~race).any()          # both phase nets are exercised
    dense = torch.from_numpy(fs.packing.unpack(packed))
    with torch.inference_mode():
        np.testing.assert_allclose(packed_forward(net, fs.packing, packed, torch.device("cpu")).numpy(),
                                   net(dense).numpy(), atol=2e-5)
    # an optimiser step changes the weights in place: the cached tables must follow
    opt = torch.optim.Adam(net.parameters(), lr=0.1)
    loss = net(dense).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.inference_mode():
        np.testing.assert_allclose(packed_forward(net, fs.packing, packed, torch.device("cpu")).numpy(),
                                   net(dense).numpy(), atol=2e-5)


def test_abak_trains_on_packed_rows_by_default():
    from abak_rl.engine.variants import get_variant
    from abak_rl.model.scorer import Scorer
    from abak_rl.train.selfplay import SelfPlay
    fs = get_feature_set("abak_expert")
    net = PhasedNet(ae.SIZE, ae.RACE_UNIT, hidden=8)
    scorer = Scorer(net, fs, get_variant("abak"), torch.device("cpu"))
    assert scorer.packing is fs.packing and scorer.stored_width == ae.PACKED_SIZE
    play = SelfPlay(scorer.variant, 8, seed=3)
    for _ in range(3):
        play.step(scorer)
    rows = play.t_boards[:, :3].reshape(-1, ab.WIDTH)
    kept = play.t_feats[:, :3].reshape(-1, ae.PACKED_SIZE)
    np.testing.assert_array_equal(scorer.dense(kept), fs.encode(rows))


def test_compiled_masks_and_shots_equal_the_numpy_ones(positions):
    """The pieces of abak_expert_compiled's pack (its per-row masks, shots and special codes),
    each alone against the NumPy array code it replaces (the whole pack:
    test_abak_expert_compiled_pack.py)."""
    from abak_rl.features import abak_expert_compiled
    assert abak_expert_compiled.AVAILABLE
    codes = ae._column_codes(positions)
    M = ae._masks(codes)
    assert np.array_equal(M, ae._masks_numpy(codes))
    on_bar = positions[:, ab.OPP_BAR:ab.OPP_BAR + 6].sum(1) > 0
    assert on_bar.any() and (~on_bar).any()
    for got, want in zip(ae._shots(M, on_bar), ae._shots_numpy(M, on_bar)):
        assert np.array_equal(got, want)
    assert (ae._shots(M, on_bar)[0] > 0).mean() > 0.3       # real positions have shots
    special = ae._special_codes(positions, codes)
    assert np.array_equal(special, ae._special_codes_numpy(positions, codes))
    assert (special < ae.BAR_PLACE * 20).any() and (special >= ae.BAR_PLACE * 20).any()   # board and bar/off


def test_a_trainer_update_refreshes_the_packed_tables():
    """The trainer's Adam is fused, which writes the weights without bumping their version
    counters; td_update bumps them, or the packed first layer would keep serving old tables."""
    from abak_rl.engine.variants import get_variant
    from abak_rl.model.scorer import Scorer
    from abak_rl.train import config as cfgmod
    from abak_rl.train.run import make_optimizer
    from abak_rl.train.td import td_update
    fs = get_feature_set("abak_expert")
    net = PhasedNet(ae.SIZE, ae.RACE_UNIT, hidden=8)
    scorer = Scorer(net, fs, get_variant("abak"), torch.device("cpu"))
    boards = random_positions("abak", 64, seed=5)
    again = np.zeros(len(boards), dtype=bool)
    before = scorer.net_probs(boards, again)              # builds and caches the tables
    opt = make_optimizer(net, cfgmod.compose([]).train)
    td_update(scorer, opt, boards, again, np.ones((len(boards), 5), np.float32), lr=0.5)
    with torch.inference_mode():
        dense = cumulative(net(torch.from_numpy(fs.encode(boards, again)))).numpy()
    after = scorer.net_probs(boards, again)
    assert np.abs(dense - before).max() > 1e-3            # the step moved the outputs
    np.testing.assert_allclose(after, dense, atol=2e-5)
