"""The one-sided bear-off database (engine/bearoff.py) against brute force and hand-worked races.

The brute force takes its plays from the project's move generator (legal_afterstates on
synthetic rows), not from the database's own one-die table, and recurses with exact fractions.
"""

import itertools
import json
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from abak_rl.engine import bearoff as bo
from abak_rl.engine.board import OFF, OPP_OFF, WIDTH, validate_boards
from abak_rl.engine.movegen import legal_afterstates

ROLLS = [tuple(int(x) for x in r) for r in bo.ROLLS]
WEIGHT = {r: Fraction(1 if r[0] == r[1] else 2, 36) for r in ROLLS}


@pytest.fixture(scope="module")
def db():
    return bo.BearoffDB.build()


def side_row(mine, theirs=(0, 0, 0, 0, 0, 0)):
    """Afterstate-style row: `mine` on the row's points 1..6, `theirs` on its own points 1..6
    (the row's 24..19); the rest of each side borne off."""
    row = np.zeros(WIDTH, np.int8)
    row[:6] = mine
    row[23:17:-1] = -np.asarray(theirs)
    row[OFF], row[OPP_OFF] = 15 - sum(mine), 15 - sum(theirs)
    return row


def positions_upto(n):
    return [c for c in itertools.product(range(n + 1), repeat=6) if sum(c) <= n]


def movegen_plays(positions):
    """{(counts, roll): [afterstate counts]} from legal_afterstates, the opponent's 15 checkers
    on the mover's 24 point (its own 1 point: no contact)."""
    rows = np.stack([side_row(c, (15, 0, 0, 0, 0, 0)) for c in positions])
    validate_boards(rows)
    rep = np.repeat(rows, len(ROLLS), axis=0)
    after = legal_afterstates(rep, np.tile(np.array(ROLLS), (len(positions), 1)))
    b = np.ascontiguousarray(after.boards)
    assert (b[:, 6:23] == 0).all() and (b[:, 23] == -15).all()  # nothing but the home board moved
    plays = {}
    for k, row in zip(after.parent, b):
        key = (positions[k // len(ROLLS)], ROLLS[k % len(ROLLS)])
        plays.setdefault(key, []).append(tuple(int(x) for x in row[:6]))
    return plays


def brute_force(positions, full=None):
    """Exact (expectation, distribution) per position, each roll played to the afterstate of
    lowest expectation (ties: the lower bear-off index, the database's rule)."""
    plays = movegen_plays(positions)
    memo = {}

    def solve(c):
        if c in memo:
            return memo[c]
        if (sum(c) == 0) if full is None else (sum(c) < full):
            memo[c] = (Fraction(0), {0: Fraction(1)})
            return memo[c]
        e, dist = Fraction(1), {}
        for r in ROLLS:
            kids = plays[(c, r)]
            best = min(kids, key=lambda k: (round(float(solve(k)[0]) * 1e9),
                                            int(bo.bearoff_index(np.array([k]))[0])))
            ek, dk = solve(best)
            e += WEIGHT[r] * ek
            for n, p in dk.items():
                dist[n + 1] = dist.get(n + 1, 0) + WEIGHT[r] * p
        memo[c] = (e, dist)
        return memo[c]

    return {c: solve(c) for c in positions}


def test_index_round_trip_and_range():
    idx = np.arange(bo.N_POSITIONS)
    counts = bo.bearoff_counts(idx)
    assert counts.min() >= 0 and counts.astype(int).sum(1).max() == 15
    assert len({tuple(c) for c in counts}) == bo.N_POSITIONS == 54_264
    assert (bo.bearoff_index(counts) == idx).all()
    assert bo.bearoff_index(np.zeros((1, 6), int))[0] == 0
    with pytest.raises(ValueError, match="at most 15"):
        bo.bearoff_index(np.array([[10, 6, 0, 0, 0, 0]]))
    with pytest.raises(ValueError, match="indices"):
        bo.bearoff_counts(np.array([bo.N_POSITIONS]))


def test_one_die_table_matches_the_move_generator():
    """Composing the one-die table gives exactly legal_afterstates' afterstates of each roll."""
    rng = np.random.default_rng(0)
    idx = np.concatenate([[1, bo.N_POSITIONS - 1], rng.choice(bo.N_POSITIONS, 150, replace=False)])
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    child = bo._one_die_children(counts)
    positions = [tuple(int(x) for x in counts[i]) for i in idx]
    plays = movegen_plays(positions)

    def after(i, dice):
        states = {int(i)}
        for d in dice:
            states = {int(k) for s in states for k in child[s, d] if k >= 0}
        return states

    for i, c in zip(idx, positions):
        for a, b in ROLLS:
            ours = after(i, [a] * 4) if a == b else after(i, [a, b]) | after(i, [b, a])
            theirs = {int(k) for k in bo.bearoff_index(np.array(plays[(c, (a, b))]))}
            assert ours == theirs, (c, a, b)


def test_bear_off_all_matches_brute_force(db):
    positions = positions_upto(4)  # 210 positions
    exact = brute_force(positions)
    idx = bo.bearoff_index(np.array(positions))
    for c, i in zip(positions, idx):
        e, dist = exact[c]
        assert db.expected_off_all[i] == pytest.approx(float(e), abs=1e-12), c
        want = np.zeros(bo.MAX_ROLLS)
        for n, p in dist.items():
            want[n] = float(p)
        np.testing.assert_allclose(db.rolls_off_all[i], want, atol=1e-6, err_msg=str(c))


def test_first_off_recursion_matches_brute_force():
    """The first-off tables are the same recursion stopped at 'fewer than k left'; checked at k=3
    (the database uses k=15, too many for brute force, checked by hand below)."""
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    dist, expect = bo._solve(bo._one_die_children(counts), counts, full=3)
    positions = [c for c in positions_upto(3) if sum(c) == 3]
    exact = brute_force(positions_upto(3), full=3)
    for c in positions:
        i = int(bo.bearoff_index(np.array([c]))[0])
        e, d = exact[c]
        assert expect[i] == pytest.approx(float(e), abs=1e-12), c
        want = np.zeros(bo.MAX_ROLLS)
        for n, p in d.items():
            want[n] = float(p)
        np.testing.assert_allclose(dist[i], want, atol=1e-12, err_msg=str(c))


def test_first_off_by_hand(db):
    fifteen_on_six = int(bo.bearoff_index(np.array([[0, 0, 0, 0, 0, 15]]))[0])
    # one checker off at once with any 6, 5-1, 4-2, 3-3 or 2-2: 11 + 2 + 2 + 1 + 1 of 36
    assert db.rolls_first_off[fifteen_on_six, 1] == pytest.approx(17 / 36, abs=1e-7)
    fifteen_on_ace = int(bo.bearoff_index(np.array([[15, 0, 0, 0, 0, 0]]))[0])
    assert db.rolls_first_off[fifteen_on_ace, 1] == 1.0
    fewer = bo.bearoff_counts(np.arange(bo.N_POSITIONS)).astype(int).sum(1) < 15
    assert (db.rolls_first_off[fewer, 0] == 1).all() and (db.expected_first_off[fewer] == 0).all()


def test_distributions_sum_to_one_and_match_expectations(db):
    for dist, expect in ((db.rolls_off_all, db.expected_off_all),
                         (db.rolls_first_off, db.expected_first_off)):
        assert dist.min() >= 0
        np.testing.assert_allclose(dist.sum(1, dtype=np.float64), 1.0, atol=1e-5)
        np.testing.assert_allclose(dist.astype(np.float64) @ np.arange(bo.MAX_ROLLS), expect,
                                   atol=1e-4)
        assert (dist[:, -1] == 0).all()  # nothing was cut off at the last bin
    assert db.expected_off_all[0] == 0 and db.rolls_off_all[0, 0] == 1


def test_is_bearoff():
    rows = np.stack([
        side_row((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
        side_row((0, 0, 0, 0, 0, 15), (5, 5, 5, 0, 0, 0)),
        side_row((0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),  # the mover has finished
    ])
    outside = rows[1].copy()
    outside[5] -= 1
    outside[6] += 1  # a mover's checker on the 7 point
    opp_out = rows[1].copy()
    opp_out[23] += 1
    opp_out[17] -= 1  # an opponent's checker on the row's 18 point (its own 7)
    on_bar = rows[1].copy()
    on_bar[5] -= 1
    on_bar[24] += 1
    got = bo.is_bearoff(np.stack([*rows, outside, opp_out, on_bar]))
    assert got.tolist() == [True, True, False, False, False, False]
    with pytest.raises(ValueError, match="shape"):
        bo.is_bearoff(np.zeros((2, 29), np.int8))
    assert bo.is_bearoff(np.zeros((0, WIDTH), np.int8)).shape == (0,)


def test_probs_hand_worked_races(db):
    rows = np.stack([
        side_row((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),   # O rolls first and is off
        side_row((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15)),  # O cannot finish before P
        side_row((15, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1)),  # O off at once 27/36, else next roll
        side_row((0, 0, 0, 0, 0, 0), (2, 0, 0, 0, 0, 0)),   # P has just finished
    ])
    p = db.probs(rows)
    assert p.dtype == np.float32 and p.shape == (4, 5)
    np.testing.assert_allclose(p[0], [0, 0, 0, 0, 0], atol=1e-7)
    # P off next roll; a gammon unless O got a checker off with its one roll: 19/36
    np.testing.assert_allclose(p[1], [1, 19 / 36, 0, 0, 0], atol=1e-6)
    # P (15 on its ace) needs 4 rolls; gammoned iff O is off before P's first roll
    np.testing.assert_allclose(p[2], [0, 0, 0, 27 / 36, 0], atol=1e-6)
    np.testing.assert_allclose(p[3], [1, 0, 0, 0, 0], atol=1e-7)
    assert db.probs(np.zeros((0, WIDTH), np.int8)).shape == (0, 5)


def test_probs_lose_gammon_equals_opponent_off_in_one(db):
    """P with 15 on its ace gets a checker off with its first roll, so it is gammoned exactly
    when O bears off all in O's first roll."""
    rng = np.random.default_rng(1)
    counts = bo.bearoff_counts(rng.choice(np.arange(1, bo.N_POSITIONS), 300))
    rows = np.stack([side_row((15, 0, 0, 0, 0, 0), c) for c in counts])
    p = db.probs(rows)
    np.testing.assert_allclose(p[:, 3], db.rolls_off_all[bo.bearoff_index(counts), 1], atol=1e-6)


def test_probs_win_matches_two_sided_brute_force(db):
    """p_win from the two distributions equals an exact two-sided race where each side plays the
    database's best play (the sides are independent: no contact)."""
    positions = positions_upto(2)
    exact = brute_force(positions)
    plays = movegen_plays(positions)
    key = {c: (round(float(exact[c][0]) * 1e9), int(bo.bearoff_index(np.array([c]))[0]))
           for c in positions}
    memo = {}

    def on_roll_wins(m, o):
        if (m, o) not in memo:
            w = Fraction(0)
            for r in ROLLS:
                best = min(plays[(m, r)], key=key.get)
                w += WEIGHT[r] * (1 if sum(best) == 0 else 1 - on_roll_wins(o, best))
            memo[(m, o)] = w
        return memo[(m, o)]

    pairs = [(m, o) for m in positions for o in positions if sum(o) > 0]
    p = db.probs(np.stack([side_row(m, o) for m, o in pairs]))
    want = [1.0 if sum(m) == 0 else float(1 - on_roll_wins(o, m)) for m, o in pairs]
    np.testing.assert_allclose(p[:, 0], want, atol=1e-6)


def test_probs_sanity_on_random_races(db):
    rng = np.random.default_rng(2)
    n = 2000
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    live = counts.astype(int).sum(1) > 0
    pool = np.flatnonzero(live)
    mine = counts[rng.choice(pool, n)]
    theirs = counts[rng.choice(pool, n)]
    rows = np.stack([side_row(a, b) for a, b in zip(mine, theirs)])
    p = db.probs(rows)
    assert (p[:, 0] >= p[:, 1]).all() and (1 - p[:, 0] >= p[:, 3] - 1e-7).all()
    assert (p[:, [2, 4]] == 0).all() and (p >= 0).all() and (p <= 1).all()
    assert ((p[:, 1] > 0) <= (rows[:, OPP_OFF] == 0)).all()
    assert ((p[:, 3] > 0) <= (rows[:, OFF] == 0)).all()
    # one more checker for P (where it fits) never raises P's chances
    more = mine.astype(int).sum(1) < 15
    point = rng.integers(0, 6, n)
    bigger = mine.copy()
    bigger[np.arange(n), point] += 1
    rows2 = np.stack([side_row(a, b) for a, b in zip(bigger[more], theirs[more])])
    assert (db.probs(rows2)[:, 0] <= p[more, 0] + 1e-6).all()
    assert (db.probs(rows2)[:, 0] < p[more, 0] - 1e-3).mean() > 0.3


def test_probs_rejects_rows_outside_the_bear_off(db):
    row = side_row((0, 0, 0, 0, 0, 15), (5, 5, 5, 0, 0, 0))
    row[5] -= 1
    row[10] += 1
    with pytest.raises(ValueError, match="position 1 is not a bear-off afterstate"):
        db.probs(np.stack([side_row((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)), row]))


def test_cache_round_trip_and_corrupt_file(tmp_path, monkeypatch, db):
    monkeypatch.setenv("ABAK_RL_CACHE", str(tmp_path))
    path = bo.cache_path()
    assert path.parent == tmp_path and f"v{bo.VERSION}" in path.name
    monkeypatch.setattr(bo.BearoffDB, "build", classmethod(lambda cls: db))
    built = bo.load_or_build()
    assert path.exists() and not list(tmp_path.glob("*.tmp"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = bo.load_or_build()  # from the file, no warning
    for k, v in built.arrays().items():
        np.testing.assert_array_equal(loaded.arrays()[k], v)
    path.write_bytes(path.read_bytes()[:1000])  # a truncated file
    with pytest.warns(UserWarning, match="unreadable"):
        again = bo.load_or_build()
    np.testing.assert_array_equal(again.rolls_off_all, db.rolls_off_all)
    assert bo._load(path).rolls_off_all.shape == (bo.N_POSITIONS, bo.MAX_ROLLS)  # rewritten


def test_get_bearoff_db_is_process_wide(tmp_path, monkeypatch, db):
    monkeypatch.setenv("ABAK_RL_CACHE", str(tmp_path))
    monkeypatch.setattr(bo, "_DB", None)
    monkeypatch.setattr(bo.BearoffDB, "build", classmethod(lambda cls: db))
    first = bo.get_bearoff_db()
    assert bo.get_bearoff_db() is first
    row = side_row((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15))[None]
    np.testing.assert_array_equal(bo.bearoff_probs(row), db.probs(row))


def test_agrees_with_gnubg_one_sided_database(db):
    """GNU Backgammon's one-sided database (same play rule, 16-bit entries) on a sample."""
    g = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(3)
    idx = rng.choice(np.arange(1, bo.N_POSITIONS), 400, replace=False)
    worst = 0.0
    for i, c in zip(idx, bo.bearoff_counts(idx)):
        theirs = np.array(g.bearoff_probabilities(tuple(int(x) for x in c)))  # n = 1, 2, ...
        ours = db.rolls_off_all[i, 1:]
        worst = max(worst, np.abs(ours[:theirs.size] - theirs).max(), ours[theirs.size:].sum())
        e = theirs @ np.arange(1, theirs.size + 1)
        assert db.expected_off_all[i] == pytest.approx(e, abs=5e-4)
    assert worst < 5e-3


def test_bench_script_reports_its_measurements(capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import bench_bearoff
    bench_bearoff.main(["--reps", "1", "--rows", "50", "--gnubg-rows", "10"])
    rows = {r["what"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["build_s"]["value"] > 0 and rows["movegen_all_pairs_s"]["pairs"] == 54_264 * 21
    assert rows["bearoff_probs_rows_per_s"]["value"] > 0
    with pytest.raises(SystemExit) as e:
        bench_bearoff.main(["--reps", "0"])
    assert e.value.code == 2 and "--reps must be at least 1" in capsys.readouterr().err


def test_chances_before_the_roll_are_the_average_over_the_rolls(db):
    """For the player X to roll, swapping bearoff_probs of the flipped row (X is then the side
    rolling next) gives X's win chance; it must equal the average over the 21 rolls of p_win of
    X's best afterstate (X's rolls distribution is that mixture, shifted by one roll)."""
    from abak_rl.engine.board import flip
    rng = np.random.default_rng(4)
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    rows = np.stack([side_row(a, b) for a, b in zip(counts[rng.integers(1, bo.N_POSITIONS, 40)],
                                                     counts[rng.integers(1, bo.N_POSITIONS, 40)])])
    before = 1 - db.probs(flip(rows))[:, 0]
    rep = np.repeat(rows, len(ROLLS), axis=0)
    after = legal_afterstates(rep, np.tile(np.array(ROLLS), (len(rows), 1)))
    b = np.ascontiguousarray(after.boards)
    idx = bo.bearoff_index(b[:, :6])
    key = np.round(db.expected_off_all[idx] * 1e9) * (1 << 17) + idx
    order = np.lexsort((key, after.parent))
    first = order[np.searchsorted(after.parent[order], np.arange(len(rep)))]
    w = np.array([float(WEIGHT[r]) for r in ROLLS])
    averaged = (db.probs(b[first])[:, 0].reshape(len(rows), len(ROLLS)) * w).sum(1)
    np.testing.assert_allclose(before, averaged, atol=1e-6)


def test_compiled_lookups_equal_the_numpy_ones(db):
    """bearoff_compiled (what self-play runs) against the NumPy path, on random bear-offs and
    on random-game afterstates (mostly not bear-offs)."""
    from abak_rl.engine import bearoff_compiled
    from abak_rl.engine.variants import get_variant
    from abak_rl.export.sample import sample_afterstates
    assert bearoff_compiled.AVAILABLE
    rng = np.random.default_rng(6)
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    pool = np.flatnonzero(counts.astype(int).sum(1) > 0)
    rows = np.stack([side_row(a, b) for a, b in zip(counts[rng.choice(pool, 3000)],
                                                     counts[rng.choice(bo.N_POSITIONS, 3000)])])
    rows = rows[rows[:, OPP_OFF] < 15]
    np.testing.assert_allclose(db.probs(rows), bo.probs_numpy(db, rows), atol=1e-6)
    games, _ = sample_afterstates(get_variant("standard"), 3000, 4)
    both = np.concatenate([games, rows])
    assert np.array_equal(bo.is_bearoff(both), bo.is_bearoff_numpy(both))
    assert bo.is_bearoff(rows).all() and not bo.is_bearoff(games).all()
