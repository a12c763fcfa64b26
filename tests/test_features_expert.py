"""The `expert` feature set: batched units equal the plain reference, known positions, classes."""

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import feature_set_for, get_feature_set
from abak_rl.features import expert, expert_compiled
from abak_rl.features import expert_reference as ref

FS = get_feature_set("expert")


def _unit(x, side, name):
    return x[198 + side * expert.SIDE_UNITS + expert.UNIT_NAMES.index(name)]


ENCODERS = {"compiled": FS.encode, "numpy": expert.encode_numpy}


def test_training_uses_the_compiled_encoder():
    assert expert_compiled.AVAILABLE, "numba is a dependency: the compiled encoder must load"
    boards, again = sample_afterstates(get_variant("standard"), 50, 4)
    assert np.array_equal(FS.encode(boards, again), expert_compiled.encode(boards, again, expert.ESCAPES))


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
@pytest.mark.parametrize("variant,seed", [("standard", 1), ("nackgammon", 2)])
def test_batched_units_equal_the_reference_on_random_game_positions(variant, seed, encoder):
    boards, again = sample_afterstates(get_variant(variant), 2500, seed)
    x = ENCODERS[encoder](boards, again)
    want = np.array([ref.concept_units(b) for b in boards])
    diff = np.abs(x[:, 198:] - want)
    bad = np.flatnonzero(diff.max(1) > 1e-5)
    assert bad.size == 0, (bad[:5], np.flatnonzero(diff[bad[0]] > 1e-5) if bad.size else None)
    assert np.array_equal(x[:, :198], get_feature_set("td198").encode(boards, again))


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_bar_heavy_positions_equal_the_reference(encoder):
    """Checkers on both bars (entering first) in every combination the rules allow."""
    rng = np.random.default_rng(5)
    boards, _ = sample_afterstates(get_variant("standard"), 1500, 9)
    rows = []
    for b in boards:
        b = b.copy()
        for side_col, sign in ((cb.BAR, 1), (cb.OPP_BAR, -1)):
            k = int(rng.integers(0, 4))
            for _ in range(k):
                pts = np.flatnonzero(b[:24] * sign > 0)
                if pts.size == 0:
                    break
                p = rng.choice(pts)
                b[p] -= sign
                b[side_col] += 1
        rows.append(b)
    rows = cb.validate_boards(np.array(rows))
    x = ENCODERS[encoder](rows, np.zeros(len(rows), dtype=bool))
    want = np.array([ref.concept_units(b) for b in rows])
    assert np.abs(x[:, 198:] - want).max() < 1e-5


def test_known_shots_and_escapes():
    # my blot on my 7 point; the opponent's 14 checkers on my 1 are 6 pips away (its single on
    # my 13 moves away from the blot): sixes (11 rolls), 5-1 and 4-2 (2 each), 3-3 and 2-2
    row = cb.row_from_points({7: 1, 6: 14, 13: -1, 1: -14})
    x = FS.encode(row[None])[0]
    assert _unit(x, 0, "shot1") * 36 == pytest.approx(11 + 2 + 2 + 1 + 1)
    assert _unit(x, 0, "shot2") == 0
    assert _unit(x, 0, "blots") * 15 == pytest.approx(1)
    # my points 3 and 5 block 4-2 (1 -> 5 or 1 -> 3) and 2-2 (1 -> 3); 5-1 (1 -> 6 -> 7)
    # and 3-3 (1 -> 4 -> 7) still hit
    row2 = cb.row_from_points({7: 1, 3: 2, 5: 2, 13: 10, 1: -14, 24: -1})
    x2 = FS.encode(row2[None])[0]
    assert _unit(x2, 0, "shot1") * 36 == pytest.approx(11 + 2 + 1)
    # two of the opponent's on the bar, blots of mine on my 3 and 5 (where it enters): only
    # entering checkers can hit; 5-3 hits both, and any roll with a 3 or a 5 hits one (20),
    # and 1-1: both enter on my 1, then one goes on 1 -> 2 -> 3
    row3 = cb.row_from_points({3: 1, 5: 1, 8: 13}, bar=(0, 2))
    row3[cb.OPP_OFF] = 13
    x3 = FS.encode(cb.validate_boards(row3[None]))[0]
    want = ref.concept_units(row3)
    assert _unit(x3, 0, "shot2") * 36 == pytest.approx(want[2] * 36)
    assert _unit(x3, 0, "shot2") * 36 == pytest.approx(2)
    assert _unit(x3, 0, "shot1") * 36 == pytest.approx(21)
    # my rearmost checker (on 7) has the opponent's point 6 pips ahead: it passes with the 18
    # non-doubles summing to 7+ (6-b goes b first) and with 4-4 and 5-5; 6-6, 3-3, 2-2 land on it
    assert _unit(x, 0, "escape") * 36 == pytest.approx(20)
    assert _unit(x, 0, "race") == 0


def test_prime_anchor_and_race_units():
    row = cb.row_from_points({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 20: 2, 1: 3,
                              24: -2, 23: -2, 22: -2, 2: -9})
    x = FS.encode(row[None])[0]
    assert _unit(x, 0, "prime") * 6 == pytest.approx(5)
    assert _unit(x, 0, "anchors") * 6 == pytest.approx(1)
    assert _unit(x, 0, "best_anchor") * 6 == pytest.approx(5)        # the 20 point
    race = cb.row_from_points({1: 5, 2: 5, 3: 5, 24: -5, 23: -5, 22: -5})
    xr = FS.encode(race[None])[0]
    assert _unit(xr, 0, "race") == 1 and _unit(xr, 1, "race") == 1
    assert xr[expert.RACE_UNIT] == 1 and x[expert.RACE_UNIT] == 0
    assert bool(expert.is_race(race[None])[0]) and not expert.is_race(row[None])[0]


def test_sides_swap_under_flip():
    boards, again = sample_afterstates(get_variant("standard"), 400, 3)
    x = FS.encode(boards)
    y = FS.encode(cb.flip(boards))
    n = expert.SIDE_UNITS
    assert np.allclose(x[:, 198:198 + n], y[:, 198 + n:], atol=1e-6)
    assert np.allclose(x[:, 198 + n:], y[:, 198:198 + n], atol=1e-6)


def test_expert_is_the_default_for_standard_and_nackgammon():
    assert feature_set_for("standard").name == "expert"
    assert feature_set_for("nackgammon").name == "expert"
    assert FS.class_unit == expert.RACE_UNIT
    with pytest.raises(ValueError, match="cannot describe"):
        feature_set_for("abak", "expert")


def test_escape_table_against_the_plain_definition():
    for w in (0, 1, 0b111111 << 6, 0b111111, 0b101010101010, 0xFFF):
        blocked = {12 - j for j in range(12) if w >> j & 1}
        point = 20
        made = {point - d for d in blocked}
        assert expert.ESCAPES[w] == ref._escapes(point, made)


def test_ply1_targets_mix_the_nets_one_ply_value_into_a_fixed_share_of_the_batch():
    import torch
    from abak_rl.agents.search import Search
    from abak_rl.model.net import build_net
    from abak_rl.model.scorer import Scorer
    from abak_rl.train.td import mix_ply1
    v = get_variant("standard")
    torch.manual_seed(0)
    net = build_net(FS.size, {"hidden": 8, "layers": 1, "activation": "sigmoid", "phases": "auto",
                              "bearoff": "auto"}, FS)
    sc = Scorer(net, FS, v, torch.device("cpu"))
    boards, again = sample_afterstates(v, 12, 5)
    target = np.full((12, 5), 0.25, dtype=np.float32)
    mixed = mix_ply1(sc, boards, again, target, fraction=0.25, weight=0.5)
    one_ply = Search(sc.probs, v).values(boards[:3], again[:3], 1)
    np.testing.assert_allclose(mixed[:3], 0.5 * 0.25 + 0.5 * one_ply, atol=1e-6)
    np.testing.assert_array_equal(mixed[3:], target[3:])
    assert not np.allclose(mixed[:3], target[:3])
    np.testing.assert_array_equal(mix_ply1(sc, boards, again, target, 0.0, 1.0), target)


def test_selfplay_keeps_the_features_it_scored_with_for_learning():
    """Learning reuses the features computed when the afterstate was scored: they equal a fresh
    encoding of every trainable afterstate, including after a restore of the self-play state."""
    import torch
    from abak_rl.model.net import build_net
    from abak_rl.model.scorer import Scorer
    from abak_rl.train.selfplay import SelfPlay
    from abak_rl.train.td import SampleQueue
    v = get_variant("standard")
    torch.manual_seed(1)
    net = build_net(FS.size, {"hidden": 8, "layers": 1, "activation": "sigmoid", "phases": "auto",
                              "bearoff": "auto"}, FS)
    sc = Scorer(net, FS, v, torch.device("cpu"))
    play = SelfPlay(v, 16, seed=3)
    queue = SampleQueue(v.width, skip=sc.exact_mask)
    checked = 0
    for step in range(400):
        if step == 60:                                  # restore mid-game: features re-encoded
            state = play.state_dict()
            play = SelfPlay(v, 16, seed=3)
            play.load_state_dict(state)
        fin = play.step(sc)
        queue.push_games(fin, 0.7)
        if len(queue) >= 64:
            boards, again, _, x = queue.pop(len(queue))
            assert x is not None and x.shape[1] == sc.stored_width == FS.packing.size
            np.testing.assert_array_equal(sc.dense(x), FS.encode(boards, again))
            checked += boards.shape[0]
    assert checked > 500



def test_expert2_equals_the_reference_and_extends_expert():
    fs2 = get_feature_set("expert2")
    boards, again = sample_afterstates(get_variant("standard"), 1500, 8)
    rng = np.random.default_rng(3)
    for b in boards[::3]:                       # put checkers on the bars too
        for side_col, sign in ((cb.BAR, 1), (cb.OPP_BAR, -1)):
            pts = np.flatnonzero(b[:24] * sign > 0)
            if pts.size and rng.random() < 0.5:
                b[rng.choice(pts)] -= sign
                b[side_col] += 1
    boards = cb.validate_boards(boards)
    x2 = fs2.encode(boards, again)
    assert np.array_equal(x2[:, :FS.size], FS.encode(boards, again))
    want = np.array([ref.expert2_units(b) for b in boards])
    assert np.abs(x2[:, 198:] - want).max() < 1e-5
    assert fs2.class_unit == FS.class_unit and (x2[:, FS.size:] != 0).any(axis=0).all()


def test_expert2_known_pip_loss_and_contact():
    # my blot on my 7 point, the opponent's checkers 6 away: every roll that hits (17) costs 18 pips
    row = cb.row_from_points({7: 1, 6: 14, 13: -1, 1: -14})
    x = get_feature_set("expert2").encode(row[None])[0]
    assert x[240] * 864 == pytest.approx(17 * 18)
    # the opponent's rearmost checker is on my 1 point (t = 1): all my checkers must pass it
    assert x[241] * 167 == pytest.approx(7 + 14 * 6)
    assert x[242] == 0


def _bar_afterstates(n, seed):
    """Random-game afterstates, a third of them with checkers moved to the bars."""
    boards, again = sample_afterstates(get_variant("standard"), n, seed)
    rng = np.random.default_rng(seed)
    for b in boards[::3]:
        for side_col, sign in ((cb.BAR, 1), (cb.OPP_BAR, -1)):
            pts = np.flatnonzero(b[:24] * sign > 0)
            if pts.size and rng.random() < 0.5:
                b[rng.choice(pts)] -= sign
                b[side_col] += 1
    again = again.copy()
    again[::7] = True
    return cb.validate_boards(boards), again


@pytest.mark.parametrize("name", ["expert", "expert2"])
def test_packed_rows_unpack_to_the_dense_encoding(name):
    """Self-play keeps packed rows (24 point codes + units 192..): unpacked they are exactly
    the encoding the nets are trained on, and the NumPy fallback packs the same numbers."""
    fs = get_feature_set(name)
    boards, again = _bar_afterstates(1500, 11)
    packed = fs.packing.pack(boards, again)
    assert packed.shape == (boards.shape[0], fs.size - 168) == (boards.shape[0], fs.packing.size)
    np.testing.assert_array_equal(packed[:, :24], boards[:, :24] + 15)
    np.testing.assert_array_equal(fs.packing.unpack(packed), fs.encode(boards, again))
    if name == "expert":
        import unittest.mock as mock
        with mock.patch.object(expert_compiled, "AVAILABLE", False):
            np.testing.assert_allclose(fs.packing.pack(boards, again), packed, atol=1e-5)   # float rounding


@pytest.mark.parametrize("layers", [1, 2])
def test_packed_forward_of_phase_nets_equals_the_dense_net_and_follows_updates(layers):
    """The table-sum first layer gives the dense net's outputs on contact and race rows
    alike, and its cached tables follow an optimiser step (fused Adam included)."""
    import torch
    from abak_rl.model.net import PhasedNet
    from abak_rl.model.packed import packed_forward
    from abak_rl.train.td import mark_updated
    boards, again = _bar_afterstates(1200, 12)
    packed = FS.packing.pack(boards, again)
    race = packed[:, 24 + expert.RACE_UNIT - 192] > 0.5
    assert race.any() and (~race).any()
    torch.manual_seed(0)
    net = PhasedNet(FS.size, expert.RACE_UNIT, hidden=16, layers=layers)
    dense = torch.from_numpy(FS.packing.unpack(packed))
    cpu = torch.device("cpu")
    opt = torch.optim.Adam(net.parameters(), lr=0.1, fused=True)
    for _ in range(2):
        with torch.inference_mode():
            np.testing.assert_allclose(packed_forward(net, FS.packing, packed, cpu).numpy(),
                                       net(dense).numpy(), atol=2e-5)
        loss = net(dense).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        mark_updated(opt)


def test_standard_selfplay_scores_packed_rows_by_default():
    import torch
    from abak_rl.model.net import build_net
    from abak_rl.model.scorer import Scorer
    v = get_variant("standard")
    fs = feature_set_for("standard")
    net = build_net(fs.size, {"hidden": 8, "layers": 1, "activation": "sigmoid", "phases": "auto",
                              "bearoff": "auto"}, fs)
    sc = Scorer(net, fs, v, torch.device("cpu"))
    assert sc.packing is fs.packing and sc.stored_width == 72
    boards, again = _bar_afterstates(300, 13)
    live = ~sc.exact_mask(boards)
    with torch.inference_mode():
        dense = net(torch.from_numpy(fs.encode(boards[live], again[live])))
    from abak_rl.model.net import cumulative
    np.testing.assert_allclose(sc.probs(boards, again)[live], cumulative(dense).numpy(), atol=2e-5)
