"""The vectorized Abak Evolution engine (engine/abak/movegen.py, variant.py).

Two kinds of test: targeted positions for single rules (each asserting plays that must or must
not exist), and properties over whole random games, checked by replaying every recorded play
movement by movement with a small independent replayer written here.
"""

from __future__ import annotations

import numpy as np
import pytest

from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.abak import board as ab
from abak_rl.engine.abak.movegen import legal_afterstates
from abak_rl.engine.abak.variant import AbakVariant, row_from_stacks, starting_row
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import get_variant

ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def position(mover: dict, opp: dict | None = None, bar: str = "", off=(0, 0)) -> np.ndarray:
    """A row from {mover's point: letters bottom to top}; opp letters are written in lower case."""
    board = [""] * 24
    for p, s in mover.items():
        board[p - 1] += s.upper()
    for p, s in (opp or {}).items():
        board[p - 1] = s.lower() + board[p - 1] if s.islower() else board[p - 1] + s
    return row_from_stacks(board, bar, off)


def stacked(columns: dict) -> np.ndarray:
    """A row from {mover's point: letters bottom to top}, case = colour, as in position JSON."""
    board = [""] * 24
    for p, s in columns.items():
        board[p - 1] = s
    return row_from_stacks(board)


def plays(row: np.ndarray, dice) -> dict[str, np.ndarray]:
    """Play -> afterstate (every play string names one afterstate: an entry names its class,
    `bar(G)/20`)."""
    a = legal_afterstates(row[None], np.array([dice]), with_plays=True)
    return {p: b for p, b in zip(a.plays, a.boards)}


def afterstates(row: np.ndarray, dice) -> np.ndarray:
    return legal_afterstates(row[None], np.array([dice])).boards


def landings(play: str) -> list[str]:
    return [m.split("/")[1].rstrip("*^") for m in play.split()]


def column(row: np.ndarray, point: int) -> str:
    st = ab.stacks(row)[point - 1]
    return "".join(ab.LETTERS[c - 1] if c > 0 else ab.LETTERS[-c - 1].lower() for c in st if c)


# --- single rules ------------------------------------------------------------------------------

def test_starting_position_matches_the_spec_example():
    row = starting_row()
    spec = ["ed", "os", "", "", "", "SSSG", "", "SKS", "", "", "", "ssks",
            "SSKS", "", "", "", "sks", "", "sssg", "", "", "", "OS", "ED"]
    assert [column(row, p) for p in range(1, 25)] == spec
    AbakVariant().validate(row[None])


def test_only_the_top_checker_moves_and_arrives_on_top():
    row = stacked({13: "SG", 1: "s"})
    got = plays(row, (1, 2))
    assert all(p.startswith("13/") for p in got)          # the General on top goes first
    after = got["13/12 13/11"]
    assert column(after, 12) == "G" and column(after, 11) == "S"
    assert any(column(b, 10) == "G" and column(b, 13) == "S" for b in got.values())


def test_five_checker_limit_counts_both_colours():
    # 8 holds the opponent's trapped soldier under the mover's druid and three soldiers: full
    row = stacked({10: "S", 8: "sDSSS", 6: "ss", 20: "s"})
    a = legal_afterstates(row[None], np.array([[2, 2]]), with_plays=True)
    assert a.plays == [""] and (a.boards[0] == row).all()
    roomy = stacked({10: "S", 8: "sDSS", 6: "ss", 20: "s"})
    assert set(plays(roomy, (2, 2))) == {"10/8"}


def test_top_run_decides_blot_and_block():
    # 8: own soldier under two opposing checkers -> blocked; 9: one opposing over two own -> blot
    row = stacked({12: "S", 8: "Sss", 9: "SSs", 1: "s"})
    got = plays(row, (4, 3))
    assert "12/9* 9/5" in got and got["12/9* 9/5"][ab.OPP_BAR] == 1
    assert column(got["12/9* 9/5"], 9) == "SS"           # the hitter left; the freed two remain
    assert not any("8" in landings(p) for p in got)


def test_bar_is_a_multiset_the_mover_picks_the_class():
    row = stacked({10: "S", 1: "s"})
    row[ab.BAR + ab.GENERAL - 1] = 1
    row[ab.BAR + ab.ODD - 1] = 1
    # 2-2: either enters first (a General may go back after entering; the Odd wounded enters
    # with an even number but cannot then move with one)
    firsts = {column(b, 23)[:1] for b in afterstates(row, (2, 2))}
    assert firsts == {"G", "O"}
    # with 6-5: the odd wounded and the General both enter, either one with either die
    tops = {(column(b, 19), column(b, 20)) for b in afterstates(row, (6, 5))}
    assert tops == {("G", "O"), ("O", "G")}


def test_lone_guard_blocks_unless_hit_by_a_guard():
    row = stacked({10: "S", 11: "K", 20: "s", 8: "k"})
    assert any(p.startswith("11/8*") for p in plays(row, (3, 1)))   # a Guard hits a lone Guard
    # a soldier alone cannot land on it (no second lander can follow with a 6)
    assert not any("8" in landings(p) for p in plays(row, (2, 6)))


def test_jane_two_consecutive_landings_hit_a_lone_guard():
    row = stacked({10: "S", 11: "O", 20: "s", 8: "k"})
    got = plays(row, (2, 3))
    assert {"10/8 11/8*", "11/8 10/8*"} <= set(got)
    # the Guard goes to the bar, the two landers stay in landing order
    assert column(got["10/8 11/8*"], 8) == "SO" and column(got["11/8 10/8*"], 8) == "OS"
    assert got["10/8 11/8*"][ab.OPP_BAR + ab.GUARD - 1] == 1
    # the first landing alone is never a legal end of turn
    assert all(not column(b, 8).startswith("k") or column(b, 8) == "k" for b in got.values())


def test_jane_needs_the_very_next_movement():
    # 4-4: 12/8 lands on the guard, the next movement must complete it; a play that lands a
    # checker on 8 and then moves something else is illegal
    row = stacked({12: "SS", 20: "s", 8: "k", 3: "s"})
    for p in plays(row, (4, 4)):
        moves = p.split()
        for i, m in enumerate(moves):
            if m == "12/8":
                assert i + 1 < len(moves) and moves[i + 1].endswith("/8*"), p


def test_druid_traps_in_the_middle_and_hits_at_home():
    row = stacked({12: "D", 23: "S", 9: "s", 20: "s"})
    got = plays(row, (3, 1))
    assert column(got["12/9^ 23/22"], 9) == "sD" and got["12/9^ 23/22"][ab.OPP_BAR] == 0
    # in a home board it hits like a soldier
    row = stacked({8: "D", 23: "S", 3: "s", 20: "s"})
    after = plays(row, (5, 1))["8/3* 23/22"]
    assert column(after, 3) == "D" and after[ab.OPP_BAR] == 1


def test_druid_traps_a_lone_guard_and_trapped_checkers_cannot_move():
    row = stacked({12: "D", 23: "S", 10: "k", 20: "s"})
    # (either order may be the notation shown: both make the same afterstate)
    trap = [b for p, b in plays(row, (2, 1)).items() if sorted(p.split()) == ["12/10^", "23/22"]]
    assert len(trap) == 1 and column(trap[0], 10) == "kD"
    # the mover's soldier under the opponent's druid cannot move (only 17 may move)...
    row = stacked({15: "Sd", 17: "S", 2: "s"})
    assert {p.split()[0] for p in plays(row, (1, 1))} == {"17/16"}
    # ...until the lone druid on top is hit: the hitter sits on its freed soldier
    freed = [b for b in afterstates(row, (2, 2)) if column(b, 15) == ""]
    assert freed and all(b[ab.OPP_BAR + ab.DRUID - 1] == 1 for b in freed)


def test_druid_alone_over_its_prisoner_can_be_trapped_by_the_other_druid():
    row = stacked({18: "D", 15: "Sd", 22: "S", 2: "s"})
    got = plays(row, (3, 5))
    assert any(p.startswith("18/15^") for p in got)
    assert any(column(b, 15) == "SdD" for b in got.values())


def test_general_backward_limits():
    row = stacked({10: "G", 15: "S", 1: "s"})
    after = afterstates(row, (1, 2))
    placed = {p for b in after for p in range(1, 25) if column(b, p) == "G"}
    # backward moves are moves: back 1 or back 2 (the soldier plays the other die)
    assert any(column(b, 12) == "G" and column(b, 14) == "S" for b in after)
    assert any(column(b, 11) == "G" and column(b, 13) == "S" for b in after)
    # back then again (G on 13), or forward then back (G on 11, soldier still on 15): illegal
    assert 13 not in placed
    assert not any(column(b, 11) == "G" and column(b, 15) == "S" for b in after)
    assert 7 in placed                                   # forward then forward is fine


def test_general_moves_backward_only_while_another_checker_is_outside():
    row = stacked({4: "G", 3: "S", 20: "s"})
    assert not any(column(b, 5) or column(b, 6) for b in afterstates(row, (1, 2)))
    row = stacked({4: "G", 9: "S", 20: "s"})
    assert any(column(b, 6) == "G" for b in afterstates(row, (1, 2)))
    # the one checker outside is the General itself: not enough
    row = stacked({8: "G", 3: "S", 20: "s"})
    assert not any(column(b, 9) or column(b, 10) for b in afterstates(row, (1, 2)))


def test_general_entering_from_the_bar_may_then_go_backward():
    row = stacked({10: "S", 1: "s"})
    row[ab.BAR + ab.GENERAL - 1] = 1
    assert "bar(G)/20 20/21" in plays(row, (5, 1))


def test_entries_of_different_classes_print_different_plays():
    """Two classes on the bar: each entry names its class, so the plays of distinct
    afterstates are distinct strings (`bar/22` alone was printed for both)."""
    row = stacked({1: "s"})
    row[ab.BAR + ab.GENERAL - 1] = 1
    row[ab.BAR + ab.SOLDIER - 1] = 1
    a = legal_afterstates(row[None], np.array([[3, 2]]), with_plays=True)
    assert len(set(a.plays)) == len(a.plays) == len({b.tobytes() for b in a.boards})
    assert {"bar(G)/22 bar(S)/23", "bar(S)/22 bar(G)/23"} <= set(a.plays)


def test_wounded_parity_on_the_board_but_not_entering_or_bearing_off():
    row = stacked({10: "O", 12: "E", 20: "s"})
    assert all(column(b, 10).startswith("O") for b in afterstates(row, (2, 4)))
    assert all(column(b, 12) == "E" for b in afterstates(row, (1, 3)))
    assert any(column(b, 10) == "" for b in afterstates(row, (1, 3)))
    home = stacked({2: "O", 3: "E", 20: "s"})
    home[ab.OFF] = 13
    assert "3/off 2/off" in plays(home, (4, 6)) or "2/off 3/off" in plays(home, (4, 6))


def test_bearing_off_only_the_top_and_larger_die_from_the_highest_point():
    row = stacked({5: "SO", 2: "S", 20: "s"})
    row[ab.OFF] = 12
    got = plays(row, (6, 2))
    assert "5/off 5/3" in got and column(got["5/off 5/3"], 3) == "S"   # the top (O) goes first
    # the 6 bears off from the highest point only: the 2-point soldier never leaves with it
    row = stacked({5: "S", 2: "S", 20: "s"})
    row[ab.OFF] = 13
    after = afterstates(row, (6, 1))
    assert not any(column(b, 5) == "S" and column(b, 2) == "" for b in after)
    assert any(column(b, 4) == "" and column(b, 5) == "" and column(b, 1) == "S" for b in after)
    # a General that moved backward cannot move again, so a larger die cannot bear off below it
    row = stacked({2: "G", 1: "S", 8: "S", 20: "s"})
    row[ab.OFF] = 12
    after = afterstates(row, (3, 6))
    assert any(column(b, 5) == "G" and column(b, 8) == "" and b[ab.OFF] == 12 for b in after)
    assert not any(column(b, 5) == "G" and b[ab.OFF] == 13 for b in after)


def test_cannot_bear_off_with_a_checker_outside():
    row = stacked({5: "S", 9: "Sd", 20: "s"})  # trapped on 9: still outside home
    row[ab.OFF] = 13
    assert all("off" not in p for p in plays(row, (6, 5)))


def test_no_legal_play_gives_the_position_itself():
    row = stacked({10: "O", 20: "s"})
    a = legal_afterstates(row[None], np.array([[2, 4]]), with_plays=True)
    assert len(a) == 1 and a.plays == [""] and (a.boards[0] == row).all()


def test_plays_that_differ_only_in_order_of_stacks_are_different_afterstates():
    # two soldiers from different points to the same point: the order on the stack differs
    row = stacked({10: "S", 11: "O", 20: "s"})
    got = plays(row, (2, 3))
    cols = {column(b, 8) for p, b in got.items() if p in ("10/8 11/8", "11/8 10/8")}
    assert cols == {"SO", "OS"}


def test_winner_points_single_gammon_backgammon():
    v = AbakVariant()
    rows = np.zeros((4, ab.WIDTH), dtype=np.int8)
    rows[:, ab.OFF] = 15
    rows[0, ab.OPP_OFF] = 3
    rows[1, 30] = -1                      # loser has none off, a checker on the mover's 7
    rows[2, 0] = -1                       # ... in the winner's home board
    rows[3, ab.OPP_BAR] = 1               # ... on the bar
    assert v.winner_points(rows).tolist() == [1, 2, 3, 3]
    rows[:, ab.OFF] = 14
    assert v.winner_points(rows).tolist() == [0, 0, 0, 0]


def test_validate_names_the_problem():
    v = AbakVariant()
    good = starting_row()
    v.validate(good[None])
    gap = good.copy()
    gap[5 * 5 + 1] = 0                     # hole under the top of the 6-point
    with pytest.raises(ValueError, match="gap"):
        v.validate(gap[None])
    many = good.copy()
    many[ab.BAR + ab.GENERAL - 1] = 1
    with pytest.raises(ValueError, match="class"):
        v.validate(many[None])
    short = good.copy()
    short[23 * 5 + 1] = 0
    with pytest.raises(ValueError, match="15"):
        v.validate(short[None])


def test_dedup_stays_exact_when_hashes_collide():
    from abak_rl.engine.abak.movegen import _distinct
    rows = np.zeros((6, ab.WIDTH), dtype=np.int8)
    rows[[1, 3], 7] = 1                    # rows 0, 2, 4, 5 equal; 1 and 3 equal
    rows[5, 133] = 2                       # ...except row 5, different in the last byte
    group = np.array([0, 0, 0, 0, 0, 1])
    keep = _distinct(group, np.zeros(6, dtype=np.uint64), rows)   # every hash the same
    assert sorted({(int(group[i]), bytes(rows[i])) for i in keep}) == sorted(
        {(int(g), bytes(r)) for g, r in zip(group, rows)}) and len(keep) == 3


def test_large_expansions_are_chunked_and_agree():
    from abak_rl.engine.abak import movegen
    row = starting_row()
    boards = np.repeat(row[None], 21, axis=0)
    dice = np.array(ALL_ROLLS)
    whole = legal_afterstates(boards, dice)
    old = movegen.LIMIT
    movegen.LIMIT = 50
    try:
        parts = legal_afterstates(boards, dice)
    finally:
        movegen.LIMIT = old
    assert len(whole) == len(parts) and (whole.parent == parts.parent).all()
    assert {bytes(b) for b in whole.boards} == {bytes(b) for b in parts.boards}


# --- properties over random games, replayed movement by movement ------------------------------

def _replay(before: np.ndarray, play: str, after: np.ndarray) -> list[str]:
    """Replay a recorded play on `before`; return the rule violations seen (empty = fine).

    An entry names its class (`bar(G)/22`); a bare `bar/22` tries every class on the bar.
    """
    st = ab.stacks(before)
    cols0 = [[int(c) for c in st[p] if c] for p in range(24)]
    moves = play.split()

    def go(i, cols, bar, opp_bar, off, gen_back, problems):
        if i == len(moves):
            row = np.zeros(ab.WIDTH, dtype=np.int8)
            for p, col in enumerate(cols):
                row[p * 5:p * 5 + len(col)] = col
            row[ab.BAR:ab.BAR + 6], row[ab.OPP_BAR:ab.OPP_BAR + 6] = bar, opp_bar
            row[ab.OFF], row[ab.OPP_OFF] = off, before[ab.OPP_OFF]
            return problems if (row == after).all() else None
        src, dst = moves[i].split("/")
        mark = dst[-1] if dst[-1] in "*^" else ""
        dst = dst.rstrip("*^")
        if src.startswith("bar("):                 # bar(G): the entry names its class
            src, named = "bar", ab.LETTERS.index(src[4]) + 1
            choices = [named] if bar[named - 1] > 0 else []
        else:
            choices = [c for c in range(1, 7) if bar[c - 1] > 0] if src == "bar" else [None]
        for cls in choices:
            cols2 = [c[:] for c in cols]
            bar2, opp2, probs = list(bar), list(opp_bar), list(problems)
            if cls is None:
                col = cols2[int(src) - 1]
                if not col or col[-1] < 0:
                    probs.append(f"moved from {src} whose top is not the mover's (trapped?)")
                    continue
                cls = col.pop()
                if cls == ab.GENERAL and gen_back:
                    probs.append("General moved again after a backward move")
            else:
                bar2[cls - 1] -= 1
            back = cls == ab.GENERAL and src != "bar" and dst != "off" and int(dst) > int(src)
            off2 = off
            if dst == "off":
                off2 += 1
            else:
                col = cols2[int(dst) - 1]
                if mark == "*":
                    hit = col.pop() if col[-1] < 0 else col.pop(-2)   # Jane: the Guard under
                    opp2[-hit - 1] += 1
                col.append(cls)
                if len(col) > 5:
                    probs.append(f"column {dst} over 5")
            res = go(i + 1, cols2, bar2, opp2, off2, gen_back or back, probs)
            if res is not None:
                return res
        return None

    res = go(0, cols0, list(before[ab.BAR:ab.BAR + 6]), list(before[ab.OPP_BAR:ab.OPP_BAR + 6]),
             int(before[ab.OFF]), False, [])
    return ["replay does not reach the recorded afterstate"] if res is None else res


def test_random_games_keep_every_invariant():
    v = get_variant("abak")
    r = play_games(v, [RandomAgent(3), RandomAgent(4)], 24, seed=3, record=True)
    assert (r.points >= 1).all() and set(np.unique(r.winner)) <= {0, 1}
    n_turns = n_back = n_trapped_tops = 0
    for game in r.records:
        for t, nxt in zip(game, game[1:]):
            before, after = t["before"], ab.flip(nxt["before"][None])[0]
            v.validate(np.stack([before, after]))
            assert _replay(before, t["play"], after) == [], (t["play"], t["dice"])
            n_turns += 1
            n_back += any(m.split("/")[1].rstrip("*^") not in ("off",) and not m.startswith("bar")
                          and int(m.split("/")[1].rstrip("*^")) > int(m.split("/")[0])
                          for m in t["play"].split())
            st = ab.stacks(before)
            n_trapped_tops += int(((st > 0) & (np.cumsum((st < 0)[:, ::-1], 1)[:, ::-1] > 0)).any())
    assert n_turns > 1000 and n_back > 20 and n_trapped_tops > 20


def test_a_total_deadlock_can_happen_and_no_side_can_ever_move():
    """Found in random play (seed 1): both sides blocked for every roll, for ever. The rules
    give no way out; the game loop would run to max_turns (reported to the lead)."""
    cols = ["edsss", "SSSSS", "KKSSS", "DS", "sgoss", "GO", "E"] + [""] * 15 + ["kks", ""]
    row = row_from_stacks(cols, bar="ss")
    AbakVariant().validate(row[None])
    for side in (row, ab.flip(row[None])[0]):
        a = legal_afterstates(np.repeat(side[None], 21, axis=0), np.array(ALL_ROLLS))
        assert len(a) == 21 and (a.boards == side).all()


def test_a_total_deadlock_ends_the_game_by_pip_count():
    """Our decision (docs/rules-abak.md): a total deadlock ends the game at once; the lower pip
    count wins a single game (equal: the player to move). Pip counts worked out by hand below."""
    from abak_rl.engine.deadlock import deadlocked, pip_counts, turn_result
    v = AbakVariant()
    cols = ["edsss", "SSSSS", "KKSSS", "DS", "sgoss", "GO", "E"] + [""] * 15 + ["kks", ""]
    row = row_from_stacks(cols, bar="ss")[None]
    assert deadlocked(v, row)[0] and deadlocked(v, ab.flip(row))[0]
    # mover (upper case): point 2: 5 x 2 = 10;
    # point 3: K K S S S = 15; point 4: D S = 8; point 5: "sgoss" all opponent; point 6: G O = 12;
    # point 7: E = 7 -> 52 pips. Opponent (its point = 25 - ours): point 1 "edsss" 5 x 24 = 120,
    # point 5 "sgoss" 5 x 20 = 100, point 23 "kks" 3 x 2 = 6, bar 2 x 25 = 50 -> 276 pips.
    own, opp = pip_counts(v, row)
    assert (int(own[0]), int(opp[0])) == (52, 276)
    assert turn_result(v, row, row)[0] == 1                       # the mover wins a single game
    assert turn_result(v, ab.flip(row), ab.flip(row))[0] == -1    # seen from the other side
    start = v.initial_boards(1)
    assert not deadlocked(v, start)[0] and turn_result(v, start, start)[0] == 0


def test_fast_can_move_agrees_with_all_21_rolls():
    """The deadlock check's fast path (one movement step over the six dice) must give the
    same answer as generating all 21 rolls, on positions from random games and their flips."""
    from abak_rl.engine.deadlock import _can_move_somehow
    from abak_rl.engine.game import random_play_positions
    v = AbakVariant()
    rows = random_play_positions(v, 24, 5)[0]
    rows = np.concatenate([rows, ab.flip(rows)])
    slow = type("Plain", (), {"legal_afterstates": v.legal_afterstates})()   # no fast path
    fast = v.can_move(rows)
    assert (fast == _can_move_somehow(slow, rows)).all()
    assert fast.any() and (~fast).any()   # the sample holds both answers


def test_summaries_and_masks_patched_per_movement_equal_a_fresh_summary():
    """A child state's column summaries, outside counts and 24-bit masks are patched from its
    parent's by `_apply`; they must be exactly what `_summarize` computes from the child's board
    (checked over every first and second movement of positions from random games)."""
    from abak_rl.engine.abak import movegen as mg
    from abak_rl.engine.game import random_play_positions
    rows = random_play_positions(AbakVariant(), 32, 11)[0]
    S = np.zeros((rows.shape[0], mg.W), dtype=np.int8)
    S[:, :ab.WIDTH] = rows
    mg._summarize(S)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(2):
        die = rng.integers(1, 7, S.shape[0]).astype(np.int8)
        m, j, _ = mg._moves(S, die)
        R, *_ = mg._apply(S, np.zeros(S.shape[0], np.uint64), m, j, die, True)
        fresh = np.zeros_like(R)
        fresh[:, :ab.WIDTH] = R[:, :ab.WIDTH]
        mg._summarize(fresh)
        for first, last in ((mg.H0, mg.H0 + 24), (mg.T0, mg.T0 + 24), (mg.C0, mg.C0 + 24),
                            (mg.OUTN, mg.OUTG + 1)):
            assert (R[:, first:last] == fresh[:, first:last]).all()
        assert (mg._masks(R) == mg._masks(fresh)).all()
        checked += R.shape[0]
        S = R[R[:, mg.PEND] == 0]       # go on from children without a waiting Jane
    assert checked > 1000
