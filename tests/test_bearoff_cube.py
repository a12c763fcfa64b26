"""The exact two-sided bear-off cube table (engine/bearoff_cube.py) against a plain recursion
over the engine's own legal plays, against GNU Backgammon's recorded two-sided bear-off
evaluations, and as the cube policies, hint and the card use it."""

from __future__ import annotations

import json
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from abak_rl.engine import bearoff_cube as bc
from abak_rl.engine import board as cb
from abak_rl.engine.bearoff import ROLL_WEIGHTS, ROLLS
from abak_rl.engine.cube import DOUBLE_TAKE, NO_DOUBLE, CubeContext, exact_bearoff_money
from abak_rl.engine.variants import get_variant
from abak_rl.io import gnubg_id

STD = get_variant("standard")
DATA = Path(__file__).parent / "data" / "gnubg_bearoff2_cases.json"


@pytest.fixture(scope="module")
def db():
    return bc.get_two_sided_cube_db()


def _row(mine: dict, theirs: dict) -> np.ndarray:
    """A bear-off position before the mover's roll: mine {point 1..6: n}, theirs {their point 1..6: n}."""
    row = np.zeros(cb.WIDTH, dtype=np.int8)
    for p, n in mine.items():
        row[p - 1] = n
    for p, n in theirs.items():
        row[24 - p] = -n
    row[cb.OFF] = 15 - sum(mine.values())
    row[cb.OPP_OFF] = 15 - sum(theirs.values())
    return row


# ---------------------------------------------------------------- a plain reference, for small boards

@lru_cache(maxsize=None)
def _ref_roll(key: bytes, state: int) -> float:
    """The mover's expected equity if it rolls now (no double) with the cube in `state`
    (0 centred, 1 owned, 2 the opponent's), every later decision optimal: legal plays from the
    engine's move generator, one position at a time."""
    row = np.frombuffer(key, dtype=np.int8)
    total = 0.0
    for (a, b), w in zip(ROLLS, ROLL_WEIGHTS):
        after = STD.legal_afterstates(row[None], np.array([[a, b]]))
        best = -np.inf
        for k in range(after.boards.shape[0]):
            child = after.boards[k]
            if STD.winner_points(child[None])[0] > 0:
                best = max(best, 1.0)
            else:
                nxt = STD.flip(child[None])[0]
                best = max(best, -_ref_before(nxt.astype(np.int8).tobytes(), (0, 2, 1)[state]))
        total += w * best
    return total


def _ref_before(key: bytes, state: int) -> float:
    nd = _ref_roll(key, state)
    if state == 2:
        return nd
    return max(nd, min(2.0 * _ref_roll(key, 2), 1.0))


def test_the_table_is_the_plain_recursion_on_small_bearoffs(db):
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(12):
        mine, theirs = {}, {}
        for side, n in ((mine, rng.integers(1, 4)), (theirs, rng.integers(1, 4))):
            for p in rng.integers(1, 7, size=n):
                side[int(p)] = side.get(int(p), 0) + 1
        rows.append(_row(mine, theirs))
    rows = np.stack(rows)
    assert bc.covers(rows).all()
    for owner, state in ((0, 0), (1, 1), (-1, 2)):
        eq = db.money(rows, np.full(len(rows), owner))
        want_nd = [_ref_roll(r.tobytes(), state) for r in rows]
        want_dt = [2 * _ref_roll(r.tobytes(), 2) for r in rows]
        np.testing.assert_allclose(eq[:, 0], want_nd, atol=2e-6)
        np.testing.assert_allclose(eq[:, 1], want_dt, atol=2e-6)
        assert (eq[:, 2] == 1.0).all()


def test_known_endings(db):
    # one checker each on the ace points, the mover on roll: it wins at once, whatever the cube
    ace = _row({1: 1}, {1: 1})
    assert db.money(ace[None], 0)[0, 0] == pytest.approx(1.0)
    # the mover needs 6-6 or 5-5 ... : two checkers on the 6 point against one on the opponent's
    # ace point: doubles only (6 of 36 win; 1/6), a last roll: the dead cube's -2/3 and -4/3
    last = gnubg_id.decode("AwAAOAAAAAAAAA")
    nd, dt, dp = db.money(last[None], 0)[0]
    assert (nd, dt, dp) == pytest.approx((-2 / 3, -4 / 3, 1.0), abs=1e-6)
    # values stay within one cube either way, and owning the cube is never worse than centred,
    # centred never worse than the opponent owning it
    r = db.rolled
    assert np.abs(r).max() <= 1 + 1e-6
    assert (r[bc.OWNED] >= r[bc.CENTRED] - 1e-6).all() and (r[bc.CENTRED] >= r[bc.THEIRS] - 1e-6).all()


def test_what_the_table_covers():
    start = STD.initial_boards(1)
    seven = _row({1: 7}, {1: 2})                          # seven checkers left: beyond the table
    contact = _row({1: 2}, {1: 2})
    contact[10], contact[cb.OFF] = 1, contact[cb.OFF] - 1      # one of the mover's checkers outside
    bar = _row({1: 2}, {1: 1})
    bar[cb.OPP_BAR], bar[cb.OPP_OFF] = 1, bar[cb.OPP_OFF] - 1
    ok = _row({6: 3, 2: 3}, {5: 6})
    assert bc.covers(np.stack([start[0], seven, contact, bar, ok])).tolist() == [False, False, False, False, True]
    with pytest.raises(ValueError, match="not a two-sided bear-off"):
        bc.get_two_sided_cube_db().money(start, 0)


def test_exact_values_replace_janowski_where_covered(db):
    # 2 checkers against 2 (gnubg 2-ply: no double 0.1867, double/take 0.3734): a double at a
    # 59% winning chance, which Janowski with the bear-off class's x = 0.6 misses
    from abak_rl.agents.cube_policies import JanowskiCube
    row = gnubg_id.decode("DAAAmAAAAAAAAA")[None]
    probs = lambda variant, boards: np.tile([0.5934, 0, 0, 0, 0], (len(boards), 1))   # noqa: E731
    ctx = CubeContext(value=np.array([1]), owner=np.array([0]))
    auto = JanowskiCube(probs, "auto").decide(STD, row, ctx)
    fixed = JanowskiCube(probs, 0.6).decide(STD, row, ctx)
    assert auto[0][0] == DOUBLE_TAKE and fixed[0][0] == NO_DOUBLE
    assert auto[1][0] == pytest.approx([0.18673, 0.37346, 1.0], abs=1e-4)
    # the opponent owns the cube: no double, whatever the values
    codes, eq, hit = exact_bearoff_money(STD, row, np.array([-1]), np.array([NO_DOUBLE]), np.zeros((1, 3)))
    assert hit.tolist() == [True] and codes[0] == NO_DOUBLE
    # match play keeps the match formula
    from abak_rl.engine.cube import load_met
    mctx = CubeContext(value=np.array([1]), owner=np.array([0]), away=np.array([5]), opp_away=np.array([5]),
                       met=load_met(), crawford=np.array([False]))
    assert JanowskiCube(probs, "auto").decide(STD, row, mctx)[1][0, 2] < 1.0     # an MWC, not a money +1
    # Abak boards are left alone
    abak = get_variant("abak")
    b = abak.initial_boards(1)
    assert exact_bearoff_money(abak, b, np.array([0]), np.array([NO_DOUBLE]), np.zeros((1, 3)))[2].tolist() == [False]


def test_hint_says_when_the_cube_is_exact():
    from abak_rl.export.hint import cube_hint, format_cube
    from abak_rl.inference import load_exported
    model = load_exported(Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained" / "standard")
    h = cube_hint(model, gnubg_id.decode("DAAAmAAAAAAAAA"))
    assert h["cube"]["method"] == "exact two-sided bear-off" and h["cube"]["decision"] == "double, take"
    assert h["cube"]["equities"]["double_take"] == pytest.approx(0.37346, abs=1e-4)
    assert "exact" in format_cube(h)
    h = cube_hint(model, STD.initial_boards(1)[0])
    assert h["cube"]["method"] == "janowski" and "Janowski" in format_cube(h)


@pytest.mark.skipif(not DATA.exists(), reason="no recorded GNU Backgammon bear-off cases")
def test_the_table_gives_gnubgs_two_sided_bearoff_equities(db):
    data = json.loads(DATA.read_text())
    cases = [c for c in data["cases"] if c["class"] == "Bearoff2" and c["match_length"] == 0]
    assert len(cases) >= 100
    rows = np.stack([gnubg_id.decode(c["position_id"]) for c in cases])
    assert bc.covers(rows).all()
    owners = np.array([c["owner"] for c in cases])
    eq = db.money(rows, owners)
    for k, col in (("nd", 0), ("dt", 1), ("dp", 2)):
        have = [i for i, c in enumerate(cases) if k in c]
        assert len(have) >= 50
        err = np.abs(eq[have, col] - np.array([cases[i][k] for i in have]))
        assert err.max() < 2e-4, (k, cases[have[int(err.argmax())]], eq[have[int(err.argmax())]])
    # gnubg's cubeful equity line is the no-double value, the opponent's cube included
    np.testing.assert_allclose(eq[:, 0], [c["cubeful"] for c in cases], atol=2e-4)
    # and so the same decisions (no double/take/pass ties closer than 1e-3 in these cases)
    for i, c in enumerate(cases):
        if {"nd", "dt", "dp"} <= set(c) and abs(min(c["dt"], c["dp"]) - c["nd"]) > 1e-3:
            assert (min(eq[i, 1], eq[i, 2]) > eq[i, 0]) == (min(c["dt"], c["dp"]) > c["nd"]), c


def test_a_damaged_cache_is_rebuilt(tmp_path, db, monkeypatch):
    built = []
    # the build itself is the recursion checked above; here only what the cache does with it
    monkeypatch.setattr(bc.TwoSidedCubeDB, "build", classmethod(lambda cls: built.append(1) or cls(db.rolled)))
    path = tmp_path / "t.npz"
    path.write_bytes(b"not an npz")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        again = bc.load_or_build(path)
    assert any("unreadable" in str(x.message) for x in w)
    np.testing.assert_array_equal(again.rolled, db.rolled)
    np.testing.assert_array_equal(bc.load_or_build(path).rolled, db.rolled)     # now read from the file
    assert built == [1] and not [p for p in tmp_path.iterdir() if p.name != "t.npz"]   # no temporary left
