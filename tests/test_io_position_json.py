"""Position JSON <-> engine rows: the spec's examples, round trips, and every validation error."""

import copy
import json

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.abak import board as ab
from abak_rl.engine.variants import get_variant
from abak_rl.io.bench import random_positions
from abak_rl.io.position_json import (PositionError, dumps_rows, row_from_json, row_to_json,
                                      rows_from_json, rows_to_json)

from start_positions import ABAK_START as ABAK
from start_positions import STANDARD_START as STANDARD


def with_(base, **changes):
    obj = copy.deepcopy(base)
    obj.update(changes)
    return obj


def test_spec_standard_example_is_the_engine_start():
    variant, row = row_from_json(STANDARD)
    assert variant == "standard"
    assert (row == get_variant("standard").initial_boards(1)[0]).all()
    assert row_to_json(row, "standard") == STANDARD
    assert dumps_rows(row[None], "standard")[0] == json.dumps(STANDARD)


def test_spec_abak_example_matches_the_encoding():
    _, row = row_from_json(ABAK)
    st = ab.stacks(row)
    assert list(st[23, :2]) == [ab.EVEN, ab.DRUID]          # own 24-point: E under D
    assert list(st[0, :2]) == [-ab.EVEN, -ab.DRUID]         # opponent's mirror on point 1
    assert list(st[5, :4]) == [ab.SOLDIER] * 3 + [ab.GENERAL]
    assert list(st[11, :4]) == [-1, -1, -ab.GUARD, -1]
    assert row[ab.BAR:].sum() == 0
    assert row_to_json(row, "abak") == ABAK
    assert dumps_rows(row[None], "abak")[0] == json.dumps(ABAK)


def test_abak_start_matches_the_starting_layout_data():
    layout = cb.load_starting_layouts()["abak"]
    _, row = row_from_json(ABAK)
    board = row_to_json(row, "abak")["board"]
    for point, letters in layout.items():
        assert board[int(point) - 1] == letters
        assert board[24 - int(point)] == letters.lower()


@pytest.mark.parametrize("variant", ["standard", "nackgammon", "acey_deucey"])
def test_classic_round_trip_on_random_positions(variant):
    rows = random_positions(variant, 1500, seed=3)
    assert (rows[:, cb.BAR] > 0).any() and (rows[:, cb.OPP_BAR] > 0).any()
    assert (rows[:, cb.POOL if variant == "acey_deucey" else cb.OFF] > 0).any()
    texts = dumps_rows(rows, variant)
    objs = [json.loads(t) for t in texts]
    assert all(("pool" in o) == (variant == "acey_deucey") for o in objs)
    name, back = rows_from_json(objs)
    assert name == variant and back.dtype == np.int8 and (back == rows).all()
    assert texts[:50] == [json.dumps(o) for o in rows_to_json(rows[:50], variant)]


def _random_abak(rng, n):
    """Random same-colour stacks with class counts kept (no engine needed), some borne off."""
    classes = [c for c, k in ab.CLASS_COUNTS.items() for _ in range(k)]
    rows = np.zeros((n, ab.WIDTH), dtype=np.int8)
    for row in rows:
        st = ab.stacks(row)
        for sign, bar, off_col in ((1, ab.BAR, ab.OFF), (-1, ab.OPP_BAR, ab.OPP_OFF)):
            off = int(rng.integers(0, 4))
            row[off_col] = off
            for c in rng.permutation(classes)[off:]:
                if rng.random() < 0.05:
                    row[bar + c - 1] += 1
                    continue
                while True:
                    p = int(rng.integers(0, 24))
                    h = int((st[p] != 0).sum())
                    if h < ab.HEIGHT and (h == 0 or np.sign(st[p, 0]) == sign):
                        st[p, h] = sign * c
                        break
    return rows


def test_abak_round_trip_on_random_positions():
    rows = _random_abak(np.random.default_rng(5), 400)
    objs = rows_to_json(rows, "abak")
    _, back = rows_from_json(objs)
    assert (back == rows).all()


def test_abak_traps_and_bar_round_trip():
    obj = with_(ABAK, board=list(ABAK["board"]), bar="Gs", off=[0, 0])
    # mover's General and the opponent's soldier of point 17 sit on the bar
    obj["board"][5] = "SSS"
    obj["board"][16] = "ks"
    obj["board"][11] = "sks"      # that soldier is the one trapped on point 9
    obj["board"][8] = "sDd"       # point 9: a soldier trapped by our Druid, itself trapped
    obj["board"][23] = "E"
    obj["board"][18] = "sssg"
    obj["board"][0] = "e"
    _, row = row_from_json(obj)
    assert list(ab.stacks(row)[8, :3]) == [-1, ab.DRUID, -ab.DRUID]
    assert row[ab.BAR + ab.GENERAL - 1] == 1 and row[ab.OPP_BAR + ab.SOLDIER - 1] == 1
    assert row_to_json(row, "abak") == obj


def test_abak_class_counts_are_at_most_when_checkers_are_off():
    obj = with_(ABAK, board=list(ABAK["board"]), off=[1, 0])
    obj["board"][5] = "SSS"  # the General is gone: fine, one checker is off (class unknown)
    row_from_json(obj)
    obj["board"][5] = "SSSK"  # now 3 Guards
    with pytest.raises(PositionError, match="3 Guard checkers"):
        row_from_json(obj)


@pytest.mark.parametrize("obj, message", [
    (with_(STANDARD, board=STANDARD["board"][:23]), "24 integers, got 23 items"),
    (with_(STANDARD, board=[-2, 0, 0, 0, 0, 6] + STANDARD["board"][6:]), "mover has 16 checkers"),
    (with_(STANDARD, bar=[0, 1]), "opponent has 16 checkers"),
    (with_(STANDARD, variant="hypergammon"), "unknown variant 'hypergammon'"),
    (with_(STANDARD, pool=[0, 0]), "'pool' is only allowed in acey_deucey"),
    (with_(STANDARD, off=[-1, 0]), "must not be negative"),
    (with_(STANDARD, bar=[0]), "list of 2 integers"),
    (with_(STANDARD, board=["2"] + STANDARD["board"][1:]), r"board\[0\] must be an integer"),
    (with_(STANDARD, board=[16] + STANDARD["board"][1:]), "only 15 checkers"),
    (with_(STANDARD, colour="white"), "unknown field 'colour'"),
    ({k: v for k, v in STANDARD.items() if k != "off"}, "missing field 'off'"),
    ({k: v for k, v in STANDARD.items() if k != "variant"}, "missing field 'variant'"),
    (with_(STANDARD, variant="acey_deucey"), "missing field 'pool'"),
    ([1, 2], "must be a JSON object"),
    (with_(ABAK, board=ABAK["board"][:-1]), "24 strings"),
    (with_(ABAK, board=["eX"] + ABAK["board"][1:]), "unknown checker letter 'X'"),
    (with_(ABAK, board=ABAK["board"][:5] + ["SSSSSG"] + ABAK["board"][6:]), "holds 6 checkers"),
    (with_(ABAK, board=ABAK["board"][:5] + ["SSSGK"] + ABAK["board"][6:]), "3 Guard"),
    (with_(ABAK, off=[1, 0]), "mover has 16 checkers"),
    (with_(ABAK, bar="S"), "10 Soldier checkers"),
    (with_(ABAK, bar=3), "'bar' must be a string"),
    (with_(ABAK, pool=[0, 0]), "'pool' is only allowed"),
    (with_(ABAK, board=["edS"] + ABAK["board"][1:], off=[0, 0]), "only as a Druid"),
])
def test_validation_messages_name_the_problem(obj, message):
    with pytest.raises(PositionError, match=message):
        row_from_json(obj)


def test_batch_error_says_which_position():
    objs = [STANDARD, STANDARD, with_(STANDARD, off=[0, 1]), STANDARD]
    with pytest.raises(PositionError) as e:
        rows_from_json(objs)
    assert e.value.index == 2 and "position 2" in str(e.value)
    with pytest.raises(PositionError, match="variant 'abak' in a batch of 'standard'"):
        rows_from_json([STANDARD, ABAK])


def test_dumps_rejects_wrong_width():
    with pytest.raises(PositionError, match=r"shape \[N, 134\]"):
        dumps_rows(np.zeros((2, 30), np.int8), "abak")
