"""The human-readable diagram: checkers where the position says, stacks in order, side lines."""

import numpy as np

from abak_rl.engine import board as cb
from abak_rl.engine.variants import get_variant
from abak_rl.io.diagram import diagram
from abak_rl.io.position_json import row_from_json

ABAK = {"variant": "abak",
        "board": ["ed", "os", "", "", "", "SSSG", "", "SKS", "", "", "", "ssks",
                  "SSKS", "", "", "", "sks", "", "sssg", "", "", "", "OS", "ED"],
        "bar": "", "off": [0, 0]}


def _grid(text: str):
    """(top rows, bottom rows): for each board line, the 12 cell strings left to right."""
    lines = text.splitlines()
    board = [ln for ln in lines if ln.startswith("|")]
    cells = [[ln[1 + 3 * i: 4 + 3 * i].strip() for i in range(6)]
             + [ln[20 + 3 * i: 23 + 3 * i].strip() for i in range(6)] for ln in board]
    return cells[:5], cells[6:]


def test_standard_start():
    text = diagram(get_variant("standard").initial_boards(1)[0], "standard", dice=(3, 1))
    top, bottom = _grid(text)
    assert "X to move, dice 3-1" in text.splitlines()[0]
    # top: points 13..24; the mover's 5 on 13 and 2 on 24, the opponent's 3 on 17 and 5 on 19
    assert [row[0] for row in top] == ["X"] * 5 and [row[11] for row in top] == ["X", "X", "", "", ""]
    assert [row[4] for row in top] == ["O", "O", "O", "", ""] and [row[6] for row in top] == ["O"] * 5
    # bottom: points 12..1 drawn from the bottom edge up; the mover's 5 on 6, the opponent's 2 on 1
    assert [row[6] for row in bottom] == ["X"] * 5 and [row[11] for row in bottom] == ["", "", "", "O", "O"]
    assert " pips: X 167  O 167" in text and " bar: X 0  O 0" in text and " off: X 0  O 0" in text


def test_tall_point_shows_its_count_and_pool_line():
    row = np.zeros(cb.WIDTH, np.int8)
    row[5], row[cb.POOL] = 9, 6
    row[0], row[cb.OPP_POOL], row[cb.OPP_OFF] = -7, 6, 2
    text = diagram(row, "acey_deucey", names=("Ann", "Bob"))
    _, bottom = _grid(text)
    assert [r[6] for r in bottom] == ["9", "A", "A", "A", "A"]
    assert [r[11] for r in bottom] == ["7", "B", "B", "B", "B"]
    assert " pool (not entered): Ann 6  Bob 6" in text and " off: Ann 0  Bob 2" in text
    assert "A = Ann, the mover; B = Bob" in text


def test_abak_columns_show_classes_bottom_to_top():
    obj = dict(ABAK, board=list(ABAK["board"]), bar="Gs")
    obj["board"][5] = "SSS"
    obj["board"][16] = "ks"
    obj["board"][11] = "sks"
    obj["board"][8] = "sDd"
    obj["board"][23] = "E"
    obj["board"][0] = "e"
    text = diagram(row_from_json(obj)[1], "abak")
    top, bottom = _grid(text)
    assert [r[11] for r in top][:2] == ["E", ""]                       # point 24
    assert [r[4] for r in top][:2] == ["k", "s"]                        # point 17, k at the bottom
    assert [r[0] for r in top][:4] == ["S", "S", "K", "S"]              # point 13
    assert [r[3] for r in bottom][::-1][:3] == ["s", "D", "d"]          # point 9, from the edge
    assert [r[6] for r in bottom][::-1][:3] == ["S", "S", "S"]          # point 6
    assert " bar: X G  O s" in text
