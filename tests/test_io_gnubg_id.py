"""GNU Backgammon Position IDs: the known start ID, agreement with gnubg_nn, and bad IDs."""

import base64

import numpy as np
import pytest

from abak_rl.engine import board as cb
from abak_rl.engine.variants import get_variant
from abak_rl.io import gnubg_id
from abak_rl.io.bench import random_positions

START = "4HPwATDgc/ABMA"


def test_start_position_id_both_ways():
    start = get_variant("standard").initial_boards(1)[0]
    assert gnubg_id.encode(start) == START
    assert (gnubg_id.decode(START) == start).all()


def _race_row():
    """Mover: 15 checkers on its 24-point; opponent: 13 on its 2-point, 2 borne off."""
    row = np.zeros(cb.WIDTH, np.int8)
    row[23] = 15
    row[22] = -13
    row[cb.OPP_OFF] = 2
    return row


def test_round_trip_keeps_sides_apart():
    row = _race_row()
    assert (gnubg_id.decode(gnubg_id.encode(row)) == row).all()
    assert gnubg_id.to_gnubg_board(row)[1][23] == 15      # on roll: own 24-point
    assert gnubg_id.to_gnubg_board(row)[0][1] == 13       # not on roll: own 2-point


def test_agrees_with_gnubg_nn_on_random_positions():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rows = random_positions("standard", 1500, seed=7)
    assert (rows[:, cb.BAR] > 0).any() and (rows[:, cb.OPP_BAR] > 0).any() and (rows[:, cb.OFF] > 0).any()
    for row in rows:
        pid = gnubg_id.encode(row)
        board = gnubg_id.to_gnubg_board(row)
        assert pid == gnubg_nn.position_id(board)
        assert [list(side) for side in gnubg_nn.board_from_position_id(pid)] == board
        assert (gnubg_id.decode(pid) == row).all()


def test_gnubg_moves_the_player_on_roll():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    board = gnubg_nn.board_from_position_id(gnubg_id.encode(_race_row()))
    move = gnubg_nn.best_move(board, 6, 5)
    assert {src for src, _ in move} == {24}   # our mover's back checkers move, nobody bears off


@pytest.mark.parametrize("bad, message", [
    ("4HPwATDgc/ABM", "14 characters"),
    ("4HPwATDgc/ABMA=", "14 characters"),
    ("4HPwATDgc/AB-A", "14 characters"),
    (None, "14 characters"),
    ("//////////////", "too many checkers"),
    ("4HPwATDgc/ABMB", "stray bits"),   # a bit in the unused padding
])
def test_bad_ids_are_refused_with_a_reason(bad, message):
    with pytest.raises(gnubg_id.PositionIdError, match=message):
        gnubg_id.decode(bad)


def test_bits_after_both_players_are_refused():
    key = bytearray(base64.b64decode(gnubg_id.encode(_race_row()) + "=="))
    key[9] |= 0x80  # bit 79: the race row uses only 78 bits
    with pytest.raises(gnubg_id.PositionIdError, match="stray bits"):
        gnubg_id.decode(base64.b64encode(bytes(key)).decode()[:14])


def test_more_than_15_on_one_side_is_refused():
    # 16 ones then zeros for the first player: a side with 16 checkers
    bits = [1] * 16 + [0] * 25 + [0] * 25
    key = bytes(sum(bits[8 * i + j] << j for j in range(8) if 8 * i + j < len(bits)) for i in range(10))
    pid = base64.b64encode(key).decode()[:14]
    with pytest.raises(gnubg_id.PositionIdError, match="16 checkers"):
        gnubg_id.decode(pid)


def test_pool_cannot_be_encoded():
    row = get_variant("acey_deucey").initial_boards(1)[0]
    with pytest.raises(gnubg_id.PositionIdError, match="pool"):
        gnubg_id.encode(row)
