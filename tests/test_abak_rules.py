"""Abak Evolution rules, one hand-checked case at a time (tests/abak_cases.py), run against both
move generators: the reference (abak_rl/engine/abak/reference.py, plain recursive Python) and
the vectorized one (get_variant('abak'), skipped while it cannot be imported). Then the two are
compared on positions from random games, and scoring is checked."""

from __future__ import annotations

import random

import numpy as np
import pytest

from abak_cases import CASES, START, apply_play, build_row, code, describe

from abak_rl.engine.abak import reference as ref

IMPLS = ["reference", "vectorized"]


def _vectorized_variant():
    try:
        from abak_rl.engine.abak.variant import AbakVariant  # noqa: F401
    except ImportError as e:
        pytest.skip(f"vectorized Abak generator not available: {e}")
    from abak_rl.engine.variants import get_variant
    return get_variant("abak")


def vectorized_batch(rows: np.ndarray, dice: np.ndarray) -> list[list[bytes]]:
    v = _vectorized_variant()
    out = v.legal_afterstates(np.ascontiguousarray(rows, dtype=np.int8), np.asarray(dice),
                              with_plays=False)
    parent = np.asarray(out.parent)
    assert (np.diff(parent) >= 0).all()
    res: list[list[bytes]] = [[] for _ in range(len(rows))]
    for b, p in zip(np.asarray(out.boards), parent):
        res[int(p)].append(np.asarray(b, dtype=np.int8).tobytes())
    return res


def afterstates(impl: str, row: np.ndarray, dice) -> list[bytes]:
    """The afterstate rows an implementation returns (a list: duplicates must not appear)."""
    if impl == "reference":
        return list(ref.reference_afterstates(row, tuple(dice)))
    return vectorized_batch(row[None], np.array([dice]))[0]


def _show(rows) -> str:
    return "\n  ".join(sorted(describe(np.frombuffer(r, dtype=np.int8)) for r in rows))


def assert_same(got: list[bytes], expected: set[bytes], what: str):
    dups = {r for r in got if got.count(r) > 1}
    assert not dups, f"{what}\n the same afterstate more than once:\n  {_show(dups)}"
    missing, extra = expected - set(got), set(got) - expected
    assert not missing and not extra, (f"{what}\n missing:\n  {_show(missing)}\n"
                                       f" unexpected:\n  {_show(extra)}")


# ------------------------------------------------------------------------------ the cases

@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, impl):
    row = case.row()
    ref.check_row(row)
    got = afterstates(impl, row, case.dice)
    if case.count is not None:
        assert len(got) == len(set(got)) == case.count, f"{case.name}: {len(got)} afterstates"
    else:
        assert_same(got, case.expected(), f"{case.name} ({case.rule}) dice {case.dice}: {case.why}")


@pytest.mark.parametrize("impl", IMPLS)
def test_plays_reach_their_afterstates(impl):
    """Each play an implementation reports, carried out mechanically, gives its afterstate
    (the notation of docs/io.md: from/to, bar, off, `*` hit, `^` trap)."""
    for case in CASES:
        row = case.row()
        if impl == "reference":
            pairs = list(ref.reference_afterstates(row, case.dice).items())
        else:
            out = _vectorized_variant().legal_afterstates(row[None], np.array([case.dice]),
                                                          with_plays=True)
            assert out.plays is not None and len(out.plays) == len(out)
            pairs = [(np.asarray(b, dtype=np.int8).tobytes(), p)
                     for b, p in zip(out.boards, out.plays)]
            assert {b for b, _ in pairs} == set(afterstates(impl, row, case.dice)), case.name
        for key, play in pairs:
            assert apply_play(row, play).tobytes() == key, (case.name, play)


def test_reference_dice_order_and_types_do_not_matter():
    for case in CASES:
        row = case.row()
        a, b = case.dice
        one = ref.reference_afterstates(row, (a, b))
        two = ref.reference_afterstates(row, np.array([b, a], dtype=np.int8))
        assert set(one) == set(two), case.name


def test_no_play_returns_the_position_with_empty_play():
    row = build_row({10: "S", 19: "ss", 24: "ss"}, bar="S")
    assert ref.reference_afterstates(row, (6, 1)) == {row.tobytes(): ""}


# ------------------------------------------------------------------------------ helpers

def test_strings_round_trip_and_starting_position():
    row = ref.starting_row()
    ref.check_row(row)
    assert row.tobytes() == build_row(START).tobytes()
    board, bar, off = ref.row_to_strings(row)
    assert board == ref.START_BOARD and bar == "" and off == (0, 0)
    pos = {"variant": "abak", "board": board, "bar": "SGkk", "off": [1, 0]}
    r2 = ref.row_from_position(pos)
    assert ref.position_from_row(r2) == {"variant": "abak", "board": board, "bar": "SGkk",
                                         "off": [1, 0]}
    assert list(r2[120:126]) == [1, 1, 0, 0, 0, 0] and list(r2[126:132]) == [0, 0, 0, 2, 0, 0]


def test_variant_starts_from_the_official_position():
    start = np.asarray(_vectorized_variant().initial_boards(2))
    assert start.shape == (2, 134)
    assert start[0].astype(np.int8).tobytes() == build_row(START).tobytes()


def test_check_row_rejects_malformed():
    good = build_row({10: "S", 24: "ss"})
    ref.check_row(good)
    bad = good.copy()
    bad[132] += 1                                   # 16 checkers
    with pytest.raises(ValueError):
        ref.check_row(bad)
    bad = build_row({10: "GG", 24: "ss"}, off=(13, 13))  # two Generals
    with pytest.raises(ValueError):
        ref.check_row(bad)
    bad = good.copy()
    bad[45], bad[46] = 0, 1                         # gap in column 10
    with pytest.raises(ValueError):
        ref.check_row(bad)


# ------------------------------------------------------------------------------ scoring

@pytest.mark.parametrize("impl", IMPLS)
def test_winner_points(impl):
    cases = [
        (build_row({24: "ss"}, off=(15, 13)), 1),
        (build_row({20: "sssss", 16: "ssss", 15: "kkged", 14: "o"}, off=(15, 0)), 2),
        (build_row({3: "s", 16: "sssss", 15: "kkged", 14: "ssso"}, off=(15, 0)), 3),
        (build_row({16: "sssss", 15: "kkged", 14: "ssso"}, bar="s", off=(15, 0)), 3),
        (build_row({13: "S", 24: "ss"}, off=(14, 13)), 0),
    ]
    rows = np.stack([r for r, _ in cases])
    want = [w for _, w in cases]
    if impl == "reference":
        got = [ref.reference_winner_points(r) for r in rows]
    else:
        got = list(np.asarray(_vectorized_variant().winner_points(rows)))
    assert got == want


# ------------------------------------------------------------------------------ cross-check

def _random_positions(n_games: int, plies: int, seed: int):
    """Positions (and rolls) met in random reference games from the start."""
    from abak_rl.engine.abak.board import flip
    rng = random.Random(seed)
    rows, dice = [], []
    for _ in range(n_games):
        row = ref.starting_row()
        for _ in range(plies):
            d = (rng.randint(1, 6), rng.randint(1, 6))
            rows.append(row)
            dice.append(d)
            after = ref.reference_afterstates(row, d)
            row = np.frombuffer(rng.choice(sorted(after)), dtype=np.int8)
            if ref.reference_winner_points(row):
                break
            row = flip(row[None])[0]
    return rows, dice


def test_reference_random_games_keep_positions_valid():
    rows, _ = _random_positions(6, 60, seed=1)
    for r in rows:
        ref.check_row(r)
    assert len(rows) > 100


def test_reference_afterstates_are_valid_and_conserve_checkers():
    rng = random.Random(99)
    for _ in range(150):
        row = _random_layout(rng)
        d = (rng.randint(1, 6), rng.randint(1, 6))
        for key in ref.reference_afterstates(row, d):
            after = np.frombuffer(key, dtype=np.int8)
            ref.check_row(after)
            assert after[132] >= row[132] and after[133] == row[133]   # off counts
            assert (after[120:126] <= row[120:126]).all()               # our bar only empties
            assert (after[126:132] >= row[126:132]).all()               # theirs only fills


def test_vectorized_agrees_with_reference_on_random_positions():
    _vectorized_variant()
    rows, dice = _random_positions(12, 80, seed=7)
    got = vectorized_batch(np.stack(rows), np.array(dice))
    bad = []
    for r, d, g in zip(rows, dice, got):
        want = set(ref.reference_afterstates(r, d))
        if set(g) != want or len(g) != len(set(g)):
            bad.append((describe(r), d, len(want), len(g)))
    assert not bad, f"{len(bad)} of {len(rows)} positions differ, e.g. {bad[:3]}"


def _random_layout(rng: random.Random) -> np.ndarray:
    """A random valid position that exercises the class rules more than games from the start
    do: mixed columns (Druid traps on 7..18), lone Guards, checkers on the bar, bear-offs."""
    while True:
        board: list[list[int]] = [[] for _ in range(24)]
        bar, off, druids = "", [0, 0], []
        home_only = rng.random() < 0.25              # the mover may be bearing off
        for sign in (1, -1):
            pool = list("SSSSSSSSSGDKKOE")
            rng.shuffle(pool)
            n_off = rng.choice([0, 0, 0, 2, 5, 9]) if sign > 0 or rng.random() < 0.5 else 0
            off[0 if sign > 0 else 1] = n_off
            pool = pool[n_off:]
            if rng.random() < 0.25:
                for _ in range(min(rng.choice([1, 1, 2]), len(pool))):
                    ch = pool.pop()
                    bar += ch if sign > 0 else ch.lower()
            if "D" in pool and rng.random() < 0.6:   # this Druid will try to trap something
                pool.remove("D")
                druids.append(sign)
            for ch in pool:
                if sign > 0 and home_only:
                    spots = range(0, 6)
                elif sign < 0 and home_only and rng.random() < 0.7:
                    spots = range(18, 24)
                else:
                    spots = range(24)
                spots = [q for q in spots if len(board[q]) < 5
                         and (not board[q] or board[q][-1] * sign > 0)]
                board[rng.choice(spots)].append(code(ch) * sign)
        for sign in druids:
            prey = [q for q in range(6, 18) if 0 < len(board[q]) < 5 and board[q][-1] * sign < 0
                    and (len(board[q]) == 1 or board[q][-2] * sign > 0)]
            if sign > 0 and home_only:
                prey = []
            spots = prey or [q for q in (range(0, 6) if sign > 0 and home_only else range(24))
                             if len(board[q]) < 5 and (not board[q] or board[q][-1] * sign > 0)]
            q = rng.choice(spots)
            board[q].append(code("D") * sign)
            if q in prey and rng.random() < 0.3:      # stack an own checker on the trapping Druid
                for r in range(24):
                    if r != q and board[r] and board[r][-1] * sign > 0 and abs(board[r][-1]) != 3:
                        if len(board[q]) < 5 and not (home_only and sign > 0):
                            board[q].append(board[r].pop())
                        break
        if home_only and any(c > 0 for col in board[6:] for c in col):
            continue
        strings = ["".join("SGDKOE"[abs(c) - 1] if c > 0 else "sgdkoe"[abs(c) - 1] for c in col)
                   for col in board]
        row = ref.row_from_strings(strings, bar, off)
        ref.check_row(row)
        return row


def test_vectorized_agrees_with_reference_on_random_layouts():
    _vectorized_variant()
    rng = random.Random(2024)
    rows = [_random_layout(rng) for _ in range(500)]
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in rows]
    got = vectorized_batch(np.stack(rows), np.array(dice))
    bad = []
    for r, d, g in zip(rows, dice, got):
        want = set(ref.reference_afterstates(r, d))
        if set(g) != want or len(g) != len(set(g)):
            bad.append((describe(r), d, len(want), len(set(g)), len(g)))
    assert not bad, f"{len(bad)} of {len(rows)} positions differ, e.g. {bad[:3]}"
