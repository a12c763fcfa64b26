"""Play notation details that people read: where the hit mark sits, what an entry names."""

import numpy as np

from abak_rl.engine.variants import get_variant
from abak_rl.io.position_json import row_from_json


def test_hit_mark_is_on_the_first_of_equal_movements():
    """6/2(4) over an opposing blot on 2: the first checker to land hits, so the play reads
    6/2* 6/2 6/2 6/2 (it used to print 6/2 6/2 6/2 6/2*)."""
    board = [0] * 24
    board[5], board[23], board[1], board[22] = 4, 11, -1, -14
    _, row = row_from_json({"variant": "standard", "board": board, "bar": [0, 0], "off": [0, 0]})
    plays = get_variant("standard").legal_afterstates(row[None], np.array([[4, 4]]), with_plays=True).plays
    assert "6/2* 6/2 6/2 6/2" in plays
    assert not any(p.endswith("6/2 6/2*") for p in plays)
    assert "24/20 6/2* 6/2 6/2" in plays
