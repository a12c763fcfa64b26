"""abak_expert's compiled pack (abak_expert_compiled.pack, what Abak self-play runs for every
afterstate) against the NumPy pack it replaced (abak_expert._pack_numpy), bit for bit.

Exact equality, not closeness: the packed rows are what self-play stores, what the packed
first layer sums and what the dense encoding (unpack) is rebuilt from, so a net trained on one
must see the same numbers from the other. The sample is random-game afterstates plus positions
rich in what a random game rarely shows (random layouts, the hand-checked cases and their
afterstates, a total deadlock), and the test first checks that each special case is really in
it."""

import random

import numpy as np
import pytest

from abak_cases import CASES, apply_play
from test_abak_movegen_compiled import DEADLOCK
from test_abak_rules import _random_layout

from abak_rl.engine.abak import board as ab
from abak_rl.engine.abak.variant import validate_boards
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import abak_expert as ae
from abak_rl.features import abak_expert_compiled

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)


def _rich_positions(seed: int = 5, layouts: int = 600) -> np.ndarray:
    """Random layouts (traps, lone Guards, bar checkers, bear-offs), each hand-checked case's
    position and expected afterstates, a total deadlock, and the afterstates of some layouts on
    every roll (entering, trapping, Janes, bearing off as the generator plays them)."""
    rng = random.Random(seed)
    lay = np.stack([_random_layout(rng) for _ in range(layouts)]).astype(np.int8)
    cases = [c.row() for c in CASES] + [apply_play(c.row(), p) for c in CASES for p in c.plays]
    v = get_variant("abak")
    some = lay[:60]
    after = v.legal_afterstates(np.repeat(some, len(ROLLS), axis=0), np.tile(ROLLS, (len(some), 1)))
    return np.concatenate([lay, np.stack(cases).astype(np.int8), DEADLOCK[None].astype(np.int8), after.boards])


@pytest.fixture(scope="module")
def sample():
    games, again = sample_afterstates(get_variant("abak"), 4000, 17)
    rich = _rich_positions()
    boards = np.concatenate([games, rich]).astype(np.int8)
    validate_boards(boards)                       # valid rows: what pack is defined on
    return boards, len(games)


def test_the_sample_holds_the_special_cases(sample):
    boards, n_games = sample
    assert n_games >= 4000 and len(boards) > 6000
    st = ab.stacks(boards).astype(np.int64)
    height = (st != 0).sum(-1)
    codes = ae._column_codes(boards)
    info = ae.INFO[codes].astype(np.int64)        # [N, 24, 10]
    props = ae.PROPS[codes]                       # [N, 24, 18]
    ref = ae._pack_numpy(boards)
    dense = ref[:, ae.N_CODES:]
    counts = {
        "P on the bar": (boards[:, ab.BAR:ab.BAR + 6].sum(1) > 0).sum(),
        "O on the bar": (boards[:, ab.OPP_BAR:ab.OPP_BAR + 6].sum(1) > 0).sum(),
        "special on the bar": (boards[:, ab.BAR + 1:ab.BAR + 6].sum(1) > 0).sum(),
        "Guard on the bar": (boards[:, ab.BAR + ab.GUARD - 1] + boards[:, ab.OPP_BAR + ab.GUARD - 1] > 0).sum(),
        "P borne off": (boards[:, ab.OFF] > 0).sum(),
        "O borne off": (boards[:, ab.OPP_OFF] > 0).sum(),
        "P all home": (dense[:, 0] == 1).sum(),
        "O all home": (dense[:, 6] == 1).sum(),
        "P trapped": (info[..., 5] > 0).any(1).sum(),
        "O trapped": (info[..., 6] > 0).any(1).sum(),
        "trapped under two or more": (ae.COLUMN_UNITS[0][codes][..., [45, 47]] > 0).any((1, 2)).sum(),
        "5-high column": (height == ab.HEIGHT).any(1).sum(),
        "lone P Guard": props[..., 3].any(1).sum(),
        "lone O Guard": props[..., 5].any(1).sum(),
        "Druid holding a prisoner": (ae.COLUMN_UNITS[0][codes][..., 48:50] > 0).any((1, 2)).sum(),
        "General may move back": ((dense[:, 2] == 1) | (dense[:, 8] == 1)).sum(),
        "Wounded may play": ((dense[:, 4:6] > 0) | (dense[:, 10:12] > 0)).any(1).sum(),
        "O shots": (dense[:, 12] > 0).sum(),
        "O traps": (dense[:, 13] > 0).sum(),
        "race": (dense[:, 18] == 1).sum(),
        "contact": (dense[:, 18] == 0).sum(),
    }
    missing = {k: int(v) for k, v in counts.items() if v < 20}
    assert not missing, missing


def test_compiled_pack_equals_the_numpy_pack(sample):
    boards, _ = sample
    assert abak_expert_compiled.AVAILABLE          # numba is a dependency: this is what runs
    want = ae._pack_numpy(boards)
    got = ae.pack(boards)
    assert got.dtype == np.float32 and got.shape == want.shape == (len(boards), ae.PACKED_SIZE)
    if not np.array_equal(got, want):
        bad = np.argwhere(got != want)
        r, u = bad[0]
        raise AssertionError(f"{len(np.unique(bad[:, 0]))} rows differ; row {r} unit {u}: "
                             f"{got[r, u]} != {want[r, u]}; units differing: {np.unique(bad[:, 1]).tolist()}")
    # and so does everything built from it
    np.testing.assert_array_equal(ae.unpack(got), ae.unpack(want))


def test_again_and_the_input_layout_do_not_change_the_rows(sample):
    boards, _ = sample
    boards = boards[:1500]
    want = ae._pack_numpy(boards)
    for again in (np.zeros(len(boards), bool), np.ones(len(boards), bool), None):
        assert np.array_equal(ae.pack(boards, again), want)
    wide = np.asfortranarray(boards.astype(np.int16))   # another dtype and order
    assert np.array_equal(ae.pack(wide), want)
    assert np.array_equal(ae.pack(boards[::-3]), ae._pack_numpy(boards[::-3]))   # a strided view


@pytest.mark.parametrize("n", [0, 1, 7])
def test_small_batches(sample, n):
    boards, _ = sample
    rows = boards[100:100 + n]
    got = ae.pack(rows)
    assert got.shape == (n, ae.PACKED_SIZE) and got.dtype == np.float32
    assert np.array_equal(got, ae._pack_numpy(rows))


def test_without_numba_pack_is_the_numpy_pack(sample, monkeypatch):
    boards, _ = sample
    boards = boards[:500]
    monkeypatch.setattr(abak_expert_compiled, "AVAILABLE", False)
    assert np.array_equal(ae.pack(boards), ae._pack_numpy(boards))
