"""Feature sets: exact units on known positions, symmetry, versioning, Abak's stack encoding."""

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.abak import board as ab
from abak_rl.engine.variants import get_variant
from abak_rl.features import FEATURE_SET_NAMES, feature_set_for, get_feature_set
from abak_rl.features.abak import SIZE as ABAK_SIZE


def test_registry_names_sizes_and_variant_fit():
    sizes = {n: get_feature_set(n).size for n in FEATURE_SET_NAMES}
    assert sizes == {"td198": 198, "td198_pool": 200, "abak_stack": ABAK_SIZE, "expert": 240, "expert2": 248,
                     "abak_expert": 1567}
    assert feature_set_for("standard").name == "expert"
    assert feature_set_for("nackgammon").name == "expert"
    assert feature_set_for("acey_deucey").name == "td198_pool"
    assert feature_set_for("abak").name == "abak_expert"
    with pytest.raises(ValueError, match="cannot describe variant 'abak'"):
        feature_set_for("abak", "td198")
    with pytest.raises(ValueError, match="unknown feature set 'td199'"):
        get_feature_set("td199")


def test_td198_units_on_the_standard_start():
    fs = get_feature_set("td198")
    x = fs.encode(get_variant("standard").initial_boards(1))[0]
    pts = x[:192].reshape(24, 8)
    assert pts[5, :4].tolist() == [1, 1, 1, 1.0]        # five of mine on my 6: (5 - 3) / 2
    assert pts[12, :4].tolist() == [1, 1, 1, 1.0]       # five on 13
    assert pts[7, :4].tolist() == [1, 1, 1, 0]          # three on 8
    assert pts[23, :4].tolist() == [1, 1, 0, 0]         # two on 24
    assert pts[0, 4:].tolist() == [1, 1, 0, 0]          # the opponent's two back checkers on my 1
    assert pts[18, 4:].tolist() == [1, 1, 1, 1.0]       # its five on its 6 = my 19
    assert pts[:, :4].sum() + pts[:, 4:].sum() == 2 * (4 + 4 + 3 + 2)
    assert x[192:196].tolist() == [0, 0, 0, 0]
    assert x[196:].tolist() == [1, 0]
    assert fs.encode(get_variant("standard").initial_boards(1), np.array([True]))[0, 196:].tolist() == [0, 1]


def test_td198_bar_off_and_large_counts():
    row = np.zeros((1, cb.WIDTH), dtype=np.int8)
    row[0, 0] = 9            # nine of mine on my 1
    row[0, cb.BAR] = 2
    row[0, cb.OFF] = 4
    row[0, 10] = -12         # twelve of the opponent's on my 11
    row[0, cb.OPP_BAR] = 1
    row[0, cb.OPP_OFF] = 2
    x = get_feature_set("td198").encode(row)[0]
    assert x[0:4].tolist() == [1, 1, 1, 3.0]
    assert x[10 * 8 + 4:10 * 8 + 8].tolist() == [1, 1, 1, 4.5]
    assert x[192:196].tolist() == pytest.approx([1.0, 0.5, 4 / 15, 2 / 15])


def test_td198_side_blocks_swap_under_flip():
    """The encoding treats both players alike: flipping a position swaps the two blocks."""
    rng = np.random.default_rng(0)
    from abak_rl.agents.random_agent import RandomAgent
    from abak_rl.engine.game import play_games
    recs = play_games(get_variant("standard"), [RandomAgent(1), RandomAgent(2)], 8, seed=4, record=True).records
    boards = np.stack([t["before"] for r in recs for t in r])[rng.permutation(100)]
    fs = get_feature_set("td198")
    a, b = fs.encode(boards), fs.encode(cb.flip(boards))
    pa, pb = a[:, :192].reshape(-1, 24, 2, 4), b[:, :192].reshape(-1, 24, 2, 4)
    assert np.array_equal(pa[:, :, 0], pb[:, ::-1, 1]) and np.array_equal(pa[:, :, 1], pb[:, ::-1, 0])
    assert np.array_equal(a[:, [192, 194]], b[:, [193, 195]])


def test_pool_units_for_acey_deucey():
    v = get_variant("acey_deucey")
    x = get_feature_set("td198_pool").encode(v.initial_boards(2))
    assert x.shape == (2, 200)
    assert x[0, 198:].tolist() == [1.0, 1.0]
    assert x[0, :192].sum() == 0


def test_wrong_board_width_is_a_clear_error():
    with pytest.raises(ValueError, match=r"td198.*\[N, 30\].*\[3, 134\]"):
        get_feature_set("td198").encode(np.zeros((3, 134), np.int8))


def test_checkpoint_compatibility_check_names_both():
    fs = get_feature_set("td198")
    fs.check_compatible({"name": "td198", "version": 1, "size": 198})
    with pytest.raises(ValueError, match="version': 0"):
        fs.check_compatible({"name": "td198", "version": 0, "size": 198})


# -- Abak ---------------------------------------------------------------------------------------

S, G, D, K, O, E = ab.SOLDIER, ab.GENERAL, ab.DRUID, ab.GUARD, ab.ODD, ab.EVEN
START = {24: [E, D], 23: [O, S], 13: [S, S, K, S], 8: [S, K, S], 6: [S, S, S, G]}


def abak_row(mine: dict, theirs: dict, mixed: dict | None = None, bar=(), opp_bar=(), off=0, opp_off=0):
    """One Abak row; mine/theirs: own point -> classes bottom-up (theirs in THEIR points);
    mixed: my point -> signed codes bottom-up."""
    row = np.zeros(ab.WIDTH, dtype=np.int8)
    for p, col in mine.items():
        row[(p - 1) * 5:(p - 1) * 5 + len(col)] = col
    for p, col in theirs.items():
        q = 25 - p
        row[(q - 1) * 5:(q - 1) * 5 + len(col)] = [-c for c in col]
    for p, col in (mixed or {}).items():
        row[(p - 1) * 5:(p - 1) * 5 + len(col)] = col
    for c in bar:
        row[ab.BAR + c - 1] += 1
    for c in opp_bar:
        row[ab.OPP_BAR + c - 1] += 1
    row[ab.OFF], row[ab.OPP_OFF] = off, opp_off
    return row


def per_point(x):
    """Split the 840 per-point units into named [24, k] blocks."""
    u = x[:840].reshape(24, 35)
    return {"count": u[:, 0:8], "top": u[:, 8:20], "run": u[:, 20:22], "trapped": u[:, 22:24],
            "full": u[:, 24], "slots": u[:, 25:35].reshape(24, 5, 2)}


def test_abak_start_position_units():
    x = get_feature_set("abak_stack").encode(abak_row(START, START)[None])[0]
    assert x.shape == (ABAK_SIZE,)
    pp = per_point(x)
    top = pp["top"]
    assert top[5].argmax() == G - 1 and top[5].sum() == 1          # my General tops my 6
    assert top[23].argmax() == D - 1                               # my Druid tops my 24
    assert top[0].argmax() == 6 + D - 1                            # its Druid tops my 1
    assert top[12].argmax() == S - 1 and top[11].argmax() == 6 + S - 1
    assert top[1].argmax() == 6 + S - 1 and top[10].sum() == 0
    run = pp["run"]
    assert run[5].tolist() == [1, 0] and run[23].tolist() == [1, 0] and run[0].tolist() == [0, 1]
    assert pp["trapped"].sum() == 0                                 # nobody trapped
    assert pp["full"].sum() == 0                                    # no full column
    mine = x[840:983]
    gen = mine[0:29]
    assert gen[:26].argmax() == 5 and gen[26] == pytest.approx(3 / 4) and gen[28] == 1 and gen[27] == 0
    druid = mine[29:58]
    assert druid[:26].argmax() == 23 and druid[26] == pytest.approx(1 / 4) and druid[28] == 1
    odd, even = mine[58:87], mine[87:116]
    assert odd[:26].argmax() == 22 and odd[26] == 0 and odd[28] == 0
    assert even[:26].argmax() == 23 and even[26] == 0
    guards = mine[116:143]
    assert guards[12] == 0.5 and guards[7] == 0.5 and guards[24:].tolist() == [0, 0, 0]
    theirs = x[983:1126]
    assert theirs[:26].argmax() == 18                               # its General on its 6 = my 19
    assert x[1140:].tolist() == [1, 0]


def test_abak_counts_block_matches_td198_of_the_classic_view():
    """Without mixed columns, the count units are exactly td198's point units."""
    row = abak_row(START, START)[None]
    x = per_point(get_feature_set("abak_stack").encode(row)[0])["count"].ravel()
    y = get_feature_set("td198").encode(ab.to_classic(row))[0, :192]
    assert np.array_equal(x, y)


def test_abak_trapped_checkers_bar_off_and_full_columns():
    # on my 10: their soldier at the bottom, my Druid on it, my soldier on top (their checker trapped)
    # on my 4: five of mine (full); their Guard on the bar; my General borne off
    mixed = {10: [-S, D, S], 4: [S, S, S, K, S]}
    row = abak_row({}, {}, mixed=mixed, opp_bar=[K], off=1)
    x = get_feature_set("abak_stack").encode(row[None])[0]
    pp = per_point(x)
    assert pp["trapped"][9].tolist() == [0, 0.5]                    # one of theirs trapped on my 10
    assert pp["full"][3] == 1 and pp["full"].sum() == 1             # my 4 is full
    slots = pp["slots"]
    assert slots[9, :, 0].tolist() == [0, 1, 1, 0, 0] and slots[9, :, 1].tolist() == [1, 0, 0, 0, 0]
    assert pp["top"][9].argmax() == S - 1 and pp["run"][9].tolist() == [1, 0]   # my S on my D
    cnt = pp["count"].reshape(24, 2, 4)
    assert cnt[9, 0].tolist() == [1, 1, 0, 0] and cnt[9, 1].tolist() == [1, 0, 0, 0]
    mine, theirs = x[840:983], x[983:1126]
    assert mine[0:26].argmax() == 25 and mine[26] == 0               # General borne off
    assert mine[29 + 9] == 1 and mine[29 + 26] == pytest.approx(1 / 4) and mine[29 + 27] == 0
    assert theirs[116 + 24] == 0.5 and theirs[116 + 25] == 0.5       # Guards: one on bar, one "off"
    assert x[1132 + K - 1] == 0.5
    # now bury my Druid: their checker lands on top of the column -> my Druid and soldier trapped
    mixed2 = {10: [-S, D, S, -S]}
    y = get_feature_set("abak_stack").encode(abak_row({}, {}, mixed=mixed2)[None])[0]
    assert per_point(y)["trapped"][9].tolist() == [1.0, 0.5]
    assert y[840 + 29 + 27] == 1                                     # my Druid is trapped


def test_abak_boards_from_the_engine_when_present():
    try:
        v = get_variant("abak")
    except ImportError:
        pytest.skip("Abak engine not available yet")
    b = v.initial_boards(3)
    x = get_feature_set("abak_stack").encode(b)
    assert x.shape == (3, ABAK_SIZE) and np.isfinite(x).all()
    assert np.array_equal(x[0], get_feature_set("abak_stack").encode(abak_row(START, START)[None])[0])


def test_abak_units_are_consistent_on_played_positions():
    """On positions from real (random) Abak games: counts, slot colours, special checkers and
    the bar/off units all account for each side's 15 checkers exactly once."""
    try:
        v = get_variant("abak")
    except ImportError:
        pytest.skip("Abak engine not available yet")
    from abak_rl.agents.random_agent import RandomAgent
    from abak_rl.engine.game import play_games
    recs = play_games(v, [RandomAgent(3), RandomAgent(4)], 6, seed=2, record=True).records
    boards = np.stack([t["before"] for r in recs for t in r])
    x = get_feature_set("abak_stack").encode(boards)
    n = boards.shape[0]
    u = x[:, :840].reshape(n, 24, 35)
    cnt = u[:, :, 0:8].reshape(n, 24, 2, 4)
    on_board = (cnt[..., 0] + cnt[..., 1] + cnt[..., 2] + 2 * cnt[..., 3]).sum(1)       # [n, 2]
    slots = u[:, :, 25:35].reshape(n, 24, 5, 2).sum((1, 2))
    assert np.array_equal(on_board, slots)
    bar = x[:, 1126:1138].reshape(n, 2, 6).sum(-1) * 2
    off = np.round(x[:, 1138:1140] * 15)
    assert np.array_equal(on_board + bar + off, np.full((n, 2), 15))
    for side in range(2):
        sp = x[:, 840 + 143 * side:840 + 143 * (side + 1)]
        for j in range(4):
            assert np.array_equal(sp[:, 29 * j:29 * j + 26].sum(1), np.ones(n))   # exactly one place
        assert np.allclose(sp[:, 116:142].sum(1), 1.0)                               # 2 Guards / 2
    # the top one-hot marks exactly the non-empty points
    assert np.array_equal(u[:, :, 8:20].sum(-1), (u[:, :, 25:35].sum(-1) > 0).astype(np.float32))
