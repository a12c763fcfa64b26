"""Hand-checked Abak Evolution move-generation cases, as data.

Every case is a position (seen from the mover), a roll, and the complete list of legal plays
worked out by hand -- one play per distinct afterstate -- with the reasoning in `why`. The list
is turned into afterstate rows by `apply_play`, a purely mechanical helper (it moves checkers as
written and checks nothing about legality), so the expected sets do not come from any move
generator. tests/test_abak_rules.py runs every case against every implementation.

Position notation: `points` maps the mover's point number (1..24) to the column, bottom to top,
in the letters of the position JSON format (S soldier, G general, D druid, K guard, O odd wounded,
E even wounded; upper case the mover's, lower case the opponent's). `bar` lists the checkers on
the bar. Each side's borne-off count is whatever makes 15 checkers, unless `off` is given.

Play notation: movements separated by spaces, in the order played, each `from/to` with `from` a
point number or `bar` and `to` a point number or `off`, optionally prefixed `X:` with the class
letter of the moving checker (checked by apply_play: it guards the hand-written data), and
suffixed `*` (a hit: the topmost opposing checker of the landing column goes to the bar -- for a
completed Jane that is the Guard under the first lander) or `^` (a Druid's trap: nothing leaves).
A movement from the bar needs the `X:` prefix when the bar holds more than one class. The empty
play "" means no legal play: the afterstate is the position itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WIDTH, HEIGHT = 134, 5
BAR, OPP_BAR, OFF, OPP_OFF = 120, 126, 132, 133
LETTERS = "SGDKOE"


def code(ch: str) -> int:
    c = LETTERS.index(ch.upper()) + 1
    return c if ch.isupper() else -c


def build_row(points: dict, bar: str = "", off=None) -> np.ndarray:
    """An Abak row (board.py encoding) from {point: column string}, bar letters and off counts."""
    row = np.zeros(WIDTH, dtype=np.int8)
    mine = theirs = 0
    for point, col in points.items():
        assert 1 <= point <= 24 and len(col) <= HEIGHT, (point, col)
        for h, ch in enumerate(col):
            row[(point - 1) * HEIGHT + h] = code(ch)
            mine += ch.isupper()
            theirs += ch.islower()
    for ch in bar:
        row[(BAR if ch.isupper() else OPP_BAR) + LETTERS.index(ch.upper())] += 1
        mine += ch.isupper()
        theirs += ch.islower()
    if off is None:
        off = (15 - mine, 15 - theirs)
    assert mine + off[0] == 15 and theirs + off[1] == 15, (mine, theirs, off)
    row[OFF], row[OPP_OFF] = off
    return row


def _column(row, p):
    return [int(x) for x in row[p * HEIGHT:(p + 1) * HEIGHT] if x != 0]


def _set_column(row, p, col):
    assert len(col) <= HEIGHT, f"point {p + 1} would hold {len(col)} checkers"
    row[p * HEIGHT:(p + 1) * HEIGHT] = col + [0] * (HEIGHT - len(col))


def apply_play(row: np.ndarray, play: str) -> np.ndarray:
    """Carry out a play written in the notation above; no legality check beyond the notation."""
    row = np.array(row, dtype=np.int8)
    for token in play.split():
        cls = None
        if ":" in token:
            letter, token = token.split(":")
            cls = code(letter)
        mark = ""
        if token[-1] in "*^":
            token, mark = token[:-1], token[-1]
        src, dst = token.split("/")
        if src.startswith("bar(") and src.endswith(")"):       # bar(G): the class that enters
            assert cls is None or cls == code(src[4]), token
            src, cls = "bar", code(src[4])
        if src == "bar":
            present = [i + 1 for i in range(6) if row[BAR + i] > 0]
            if cls is None:
                assert len(present) == 1, f"{token}: say which class enters"
                cls = present[0]
            assert row[BAR + cls - 1] > 0, f"{token}: no {LETTERS[cls - 1]} on the bar"
            row[BAR + cls - 1] -= 1
            moving = cls
        else:
            p = int(src) - 1
            col = _column(row, p)
            assert col and col[-1] > 0, f"{token}: no checker of the mover on top of {src}"
            assert cls is None or col[-1] == cls, f"{token}: top of {src} is not {LETTERS[cls - 1]}"
            moving = col.pop()
            _set_column(row, p, col)
        if dst == "off":
            assert mark == ""
            row[OFF] += 1
            continue
        q = int(dst) - 1
        col = _column(row, q)
        if mark == "*":
            idx = max(i for i, c in enumerate(col) if c < 0)
            hit = -col.pop(idx)
            row[OPP_BAR + hit - 1] += 1
        col.append(moving)
        _set_column(row, q, col)
    return row


def describe(row: np.ndarray) -> str:
    """A short readable form of a row: `12:sD 15:S bar:K/s off:13/14`."""
    row = np.asarray(row)
    parts = []
    for p in range(24):
        col = _column(row, p)
        if col:
            parts.append(f"{p + 1}:" + "".join(LETTERS[abs(c) - 1] if c > 0
                                               else LETTERS[abs(c) - 1].lower() for c in col))
    bar = "".join(LETTERS[i] * int(row[BAR + i]) for i in range(6))
    obar = "".join(LETTERS[i].lower() * int(row[OPP_BAR + i]) for i in range(6))
    parts.append(f"bar:{bar}/{obar} off:{row[OFF]}/{row[OPP_OFF]}")
    return " ".join(parts)


@dataclass(frozen=True)
class Case:
    name: str
    rule: str                     # the rule it checks (docs/rules-abak.md names it)
    points: dict
    dice: tuple
    plays: tuple = ()             # every legal play, one per distinct afterstate
    bar: str = ""
    count: int | None = None      # when only the number of afterstates is given
    why: str = ""

    def row(self) -> np.ndarray:
        return build_row(self.points, self.bar)

    def expected(self) -> set[bytes]:
        rows = [apply_play(self.row(), p).tobytes() for p in self.plays]
        assert len(set(rows)) == len(rows), f"{self.name}: two expected plays give one afterstate"
        return set(rows)


START = {1: "ed", 2: "os", 6: "SSSG", 8: "SKS", 12: "ssks", 13: "SSKS", 17: "sks", 19: "sssg",
         23: "OS", 24: "ED"}

CASES = [
    # ------------------------------------------------------------------ starting position
    Case("start_6_5", "start", START, (6, 5), plays=(
        "D:24/18 D:18/13", "D:24/18 S:23/18", "D:24/18 S:13/8", "D:24/18 S:8/3",
        "D:24/18 G:6/11", "S:13/7 S:23/18", "S:13/7 K:13/8", "S:13/7 S:8/3", "S:13/7 G:6/11",
        "S:23/18 D:24/18", "S:13/8 K:13/7"),
        why="Opposing points 1, 2, 12, 17, 19 block. With 6: D 24/18, S 13/7 (8/2, 23/17 blocked; "
            "G back 6/12 blocked, G 6/off not allowed). With 5: S 23/18, S 13/8, S 8/3, G back "
            "6/11 (6/1 blocked; D 24/19 blocked). 6 first: after 24/18 the 5 plays 18/13, 23/18 "
            "(S onto D), 13/8, 8/3, 6/11 (E under D is even: no 5); after 13/7 pt 13 shows its "
            "Guard: 23/18, K 13/8, 8/3, 6/11 (7/2 blocked). 5 first adds only 23/18 then D 24/18 "
            "(D on top of S, unlike S on D) and 13/8 then K 13/7 (K on 7, not S). 11 in all."),
    Case("start_2_1", "start", START, (2, 1), plays=(
        "D:24/22 S:23/22", "D:24/22 D:22/21", "D:24/22 S:8/7", "D:24/22 G:6/5", "D:24/22 G:6/7",
        "S:23/21 D:24/23", "S:23/21 O:23/22", "S:23/21 S:21/20", "S:23/21 S:8/7",
        "S:23/21 G:6/5", "S:23/21 G:6/7",
        "S:13/11 D:24/23", "S:13/11 S:23/22", "S:13/11 S:11/10", "S:13/11 S:8/7",
        "S:13/11 G:6/5", "S:13/11 G:6/7",
        "S:8/6 D:24/23", "S:8/6 S:23/22", "S:8/6 K:8/7", "S:8/6 S:6/5",
        "G:6/4 D:24/23", "G:6/4 S:23/22", "G:6/4 S:8/7", "G:6/4 G:4/3", "G:6/4 S:6/5",
        "G:6/8 D:24/23", "G:6/8 S:23/22", "G:6/8 S:6/5",
        "D:24/23 E:24/22", "S:23/22 D:24/22", "S:8/7 K:8/6", "S:8/7 G:6/8", "G:6/5 S:8/6",
        "G:6/5 S:6/4", "G:6/7 S:8/6", "G:6/7 S:6/4"),
         why="With 2: D 24/22, S 23/21, S 13/11, S 8/6 (onto G), G 6/4, G back 6/8; with 1: D "
             "24/23, S 23/22, S 8/7, G 6/5, G back 6/7 (13/12 blocked). 2 first: after 24/22 -> "
             "23/22, 22/21, 8/7, 6/5, 6/7 (5; E cannot use 1); after 23/21 -> D 24/23 onto O, O "
             "23/22, 21/20, 8/7, 6/5, 6/7 (6); after 13/11 (K now on top, 13/12 blocked) -> 24/23, "
             "23/22, 11/10, 8/7, 6/5, 6/7 (6); after 8/6 (G buried) -> 24/23, 23/22, K 8/7, 6/5 "
             "(4); after G 6/4 -> 24/23, 23/22, 8/7, G 4/3, 6/5 (5, no back after forward); after "
             "G 6/8 (frozen) -> 24/23, 23/22, 6/5 (3): 29. 1 first adds E 24/22 under nothing "
             "(24/23 24/22), D 24/22 on S (23/22 24/22), K 8/6 and G 6/8 after 8/7, 8/6 and 6/4 "
             "after G 6/5, 8/6 and 6/4 after G 6/7: 8 more, 37."),

    Case("start_6_6", "start", START, (6, 6), plays=(
        "S:13/7 K:13/7 S:13/7 S:13/7", "D:24/18 S:13/7 K:13/7 S:13/7",
        "D:24/18 E:24/18 S:13/7 K:13/7"),
        why="Every 6 from 23, 8, 7 and 6 is blocked (17, 2, 1, 12 are theirs; no bearing off). "
            "Point 24 gives at most two: D 24/18, then the Even Wounded 24/18 onto it (18/12 is "
            "blocked). Point 13 gives its checkers to 7 from the top: S, K, S, S. Four 6s: 0+4, "
            "1+3 or 2+2."),

    # ------------------------------------------------------------------ five-checker limit
    Case("limit_counts_both_colours", "limit", {13: "S", 10: "sDSSS", 7: "ss"}, (3, 3), plays=("",),
         why="Point 10 holds 5 (an opposing soldier trapped under our Druid and 3 soldiers): "
             "13/10 is refused though our checkers are on top; 10/7 is blocked. No play."),
    Case("limit_room_allows", "limit", {13: "S", 10: "sDSS", 7: "ss"}, (3, 3), plays=("13/10",),
         why="Point 10 holds 4: 13/10 makes it 5. Then nothing can move (10/7 blocked)."),
    Case("limit_own_stack_full", "limit", {8: "S", 2: "SSSSS", 24: "ss"}, (6, 6), plays=("",),
         why="8/2 would put a 6th checker on point 2; the 2s cannot bear off while 8 is out."),
    Case("limit_own_stack_room", "limit", {8: "S", 2: "SSSS", 24: "ss"}, (6, 6),
         plays=("8/2 2/off 2/off 2/off",),
         why="8/2 makes 5 on point 2; all home now, so the other three 6s bear off from the "
             "highest point, 2."),
    Case("limit_applies_to_entry", "limit", {22: "SSSSS", 1: "ss"}, (3, 3), bar="S", plays=("",),
         why="The checker on the bar can enter only on 22, which is full; nothing else may move."),

    # ------------------------------------------------------------------ stacks
    Case("top_only_buried_waits", "top_only", {10: "KS", 24: "ss"}, (2, 1), plays=(
        "S:10/8 S:8/7", "S:10/8 K:10/9", "S:10/9 K:10/8"),
        why="Only the top soldier may move first; the Guard moves only once it is uncovered. "
            "K 10/7 with S left on 10 is impossible."),
    Case("arrivals_go_on_top", "top_only", {9: "K", 10: "S", 24: "ss"}, (2, 1), plays=(
        "S:10/9 S:9/7", "K:9/8 S:10/8", "K:9/8 K:8/6", "S:10/8 K:9/8", "K:9/7 S:10/9"),
        why="S 10/9 lands on K and must be the one to go on (9/7); K 9/8 then S 10/8 gives 8:KS, "
            "S 10/8 then K 9/8 gives 8:SK -- two positions. K 9/8/6 = K 9/7/6, S 10/8/7 = S "
            "10/9/7. 5 in all."),

    Case("same_position_one_afterstate", "top_only", {7: "SS", 13: "SSK", 23: "OS", 1: "ss"},
         (3, 5), plays=(
        "S:7/4 S:7/2", "S:7/4 K:13/8", "S:7/4 S:23/18", "K:13/10 S:7/2", "K:13/10 K:10/5",
        "K:13/10 S:13/8", "K:13/10 S:23/18", "S:23/20 S:7/2", "S:23/20 K:13/8",
        "S:23/20 S:20/15", "S:23/20 O:23/18", "K:13/8 S:13/10", "S:23/18 O:23/20"),
        why="Tops: S on 7, K on 13, S on 23. 3 first: after 7/4 -> 7/2, K 13/8, 23/18; after K "
            "13/10 -> 7/2, K 10/5, S 13/8, 23/18; after 23/20 -> 7/2, K 13/8, 20/15, O 23/18 "
            "(odd 5): 11. 5 first gives the same positions except K 13/8 then S 13/10 (K on 8, S "
            "on 10) and 23/18 then O 23/20: 13. Each position once, whichever order reached it."),

    # ------------------------------------------------------------------ top run
    Case("single_opposing_on_top_is_blot", "top_run", {12: "Sd", 15: "S", 24: "ss"}, (3, 1),
         plays=("15/12* 12/11", "15/14 14/11"),
         why="Point 12: their Druid alone on top of our trapped soldier is a blot; 15/12* sends it "
             "to the bar and lands on the freed soldier; the 1 then moves the top soldier."),
    Case("two_opposing_on_top_block", "top_run", {12: "Sds", 15: "S", 24: "ss"}, (3, 1),
         plays=("15/14 14/11",),
         why="Point 12's top run is two of theirs: blocked, whatever lies under it."),

    Case("only_the_top_run_counts", "top_run", {12: "sDd", 15: "S", 24: "ss"}, (3, 1),
         plays=("15/12* 12/11", "15/14 14/11"),
         why="Point 12 holds two of theirs, but only their Druid (trapping our Druid, which traps "
             "their soldier) is in the top run: a blot. 15/12* gives 12:sDS; the 1 moves on."),

    # ------------------------------------------------------------------ bar
    Case("bar_choose_class", "bar", {19: "ss"}, (6, 1), bar="SK", plays=("S:bar/24", "K:bar/24"),
         why="Only the 1 enters (19 blocked); either checker on the bar may take it; the other "
             "then cannot enter with the 6, so nothing more moves."),
    Case("bar_enter_before_moving", "bar", {10: "S", 19: "ss"}, (6, 1), bar="S",
         plays=("bar/24 24/18", "bar/24 10/4"),
         why="The 6 cannot enter (19 blocked), so the 1 enters first and only then the 6 moves."),
    Case("bar_blocked_freezes_board", "bar", {10: "S", 19: "ss", 24: "ss"}, (6, 1), bar="S",
         plays=("",),
         why="Neither die enters; the soldier on 10 may not move while one is on the bar."),

    # ------------------------------------------------------------------ General
    Case("general_backward_limits", "general", {5: "G", 10: "S", 24: "ss"}, (2, 1), plays=(
        "G:5/3 G:3/2", "G:5/3 S:10/9", "G:5/7 S:10/9", "S:10/8 S:8/7", "S:10/8 G:5/4",
        "S:10/8 G:5/6"),
        why="G may go back one movement (5/7, 5/6) and then stops; it may go forward twice "
            "(5/3/2). Not allowed: 5/6/8 (moving after going back), 5/3/4 or 5/4/6 (back after "
            "forward), 5/7/6. S 10/9 first then G 5/7 = G 5/7 then 10/9."),
    Case("general_no_backward_when_all_home", "general", {5: "G", 3: "S", 24: "ss"}, (2, 1),
         plays=("G:5/3 G:3/2", "S:3/1 G:5/4", "S:3/1 S:1/off", "S:3/2 G:5/3"),
         why="No other checker is outside home: G only moves forward. 5/3 lands on S (3:SG) then "
             "G goes on to 2; S 3/1 then 1/off (all home); S 3/2 then 2/off is the same as 3/1 "
             "1/off; S 3/2 then G 5/3 gives 3:G 2:S."),
    Case("general_forced_backward", "general",
         {10: "G", 15: "Sd", 5: "ss", 4: "ss", 24: "ss"}, (6, 5), plays=("G:10/16",),
         why="Forward 10/4 and 10/5 are blocked; our trapped soldier on 15 is outside home, so G "
             "may go back: 10/16 or 10/15* (one die only, it cannot move again). Only one die "
             "can be played: the larger, 10/16."),
    Case("general_backward_hits", "general",
         {10: "G", 15: "Sd", 16: "ss", 5: "ss", 4: "ss", 24: "ss"}, (6, 5),
         plays=("G:10/15*",),
         why="As above with 16 blocked: the only play is back 10/15*, hitting their Druid alone on "
             "our soldier; G lands on the freed soldier."),
    Case("general_backward_needs_another_outside", "general",
         {10: "G", 3: "S", 5: "ss", 4: "ss", 24: "ss"}, (6, 5), plays=("",),
         why="Forward blocked; the only other checker is at home, so no backward move either; "
             "S 3 cannot bear off with G on 10. No play."),
    Case("general_outside_checked_mid_turn", "general", {4: "G", 7: "S", 24: "ss"}, (2, 1),
         plays=("G:4/2 G:2/1", "G:4/2 S:7/6", "G:4/6 S:7/6", "S:7/5 S:5/4", "S:7/5 G:4/3",
                "G:4/5 S:7/5"),
         why="G may go back while S is still on 7 (4/6 then 7/6 gives 6:GS; 4/5 then 7/5 gives "
             "5:GS) but not after S came home (7/6 then 4/6 would give 6:SG, 7/5 then 4/5 5:SG)."),
    Case("general_backward_after_entering", "general", {10: "S", 1: "ss"}, (5, 1), bar="G",
         plays=("bar/20 G:20/19", "bar/20 G:20/21", "bar/20 S:10/9", "bar/24 S:10/5"),
         why="Entering is no direction: bar/20 then back 20/21 is fine (S on 10 is outside). "
             "bar/24 then G 24/19 = bar/20 20/19; from 24 it cannot go back."),
    Case("general_not_past_24", "general", {22: "G", 15: "Sd", 21: "ss", 19: "ss"}, (3, 1),
         plays=("G:22/23",),
         why="Forward 22/21 and 22/19 blocked; back 22/23 with the 1; back with the 3 would pass "
             "the 24-point. After going back G is done; the 3 is lost."),

    # ------------------------------------------------------------------ Druid
    Case("druid_traps_in_middle", "druid", {15: "D", 20: "S", 12: "s", 24: "ss"}, (3, 1), plays=(
        "D:15/12^ D:12/11", "D:15/12^ S:20/19", "S:20/17 S:17/16", "S:20/17 D:15/14"),
        why="On 12 the Druid traps: 12:sD, nothing to the bar. Moving on (12/11) frees the "
            "soldier (same as 15/14/11)."),
    Case("druid_hits_in_home", "druid", {8: "D", 20: "S", 4: "s", 24: "ss"}, (4, 1), plays=(
        "D:8/4* D:4/3", "D:8/4* S:20/19", "S:20/16 S:16/15", "S:20/16 D:8/7", "D:8/7 D:7/3"),
        why="On point 4 (our home) the Druid hits like a soldier: the soldier goes to the bar."),
    Case("druid_hits_entering", "druid", {22: "s", 19: "ss"}, (6, 3), bar="D",
         plays=("bar/22* 22/16",),
         why="Entering on 22 (their home board) the Druid hits; 19 is blocked so the 3 enters "
             "first, then the Druid moves on with the 6."),
    Case("druid_stacked_on", "druid", {12: "sD", 15: "S", 10: "ss", 9: "ss"}, (3, 2),
         plays=("15/12",),
         why="S may land on our trapping Druid (12:sDS). Every 2-and-3 play is blocked "
             "(12/10, 12/9, 13/10), so one die: the larger, 15/12."),
    Case("druid_alone_trapped_by_druid", "druid", {15: "D", 20: "S", 12: "Sd", 24: "ss"}, (3, 1),
         plays=("D:15/12^ D:12/11", "D:15/12^ S:20/19", "S:20/17 S:17/16", "S:20/17 D:15/14"),
         why="Their Druid alone on our soldier is trapped by ours: 12:SdD."),
    Case("freed_checker_moves", "druid", {12: "Kd", 15: "S", 24: "ss"}, (3, 3), plays=(
        "S:15/12* S:12/9 S:9/6 S:6/3", "S:15/12* S:12/9 S:9/6 K:12/9",
        "S:15/12* S:12/9 K:12/9 K:9/6"),
        why="Hitting their Druid frees our Guard under it; once the hitter leaves, the Guard may "
            "move. Before that only the soldier can."),
    Case("trapped_cannot_move", "druid", {12: "Sd", 20: "S", 24: "ss"}, (2, 1),
         plays=("20/18 18/17",),
         why="The soldier under their Druid cannot move; 20/18/17 = 20/19/17."),

    # ------------------------------------------------------------------ Guard
    Case("guard_alone_blocks", "guard", {12: "k", 15: "S", 24: "ss"}, (3, 1),
         plays=("15/14 14/11",),
         why="A lone Guard is not a blot for a soldier: 15/12 could only begin a Jane, which no "
             "second checker can complete with the 1."),
    Case("guard_hit_by_guard", "guard", {15: "K", 20: "S", 12: "k", 24: "ss"}, (3, 1), plays=(
        "K:15/12* K:12/11", "K:15/12* S:20/19", "S:20/17 S:17/16", "S:20/17 K:15/14",
        "K:15/14 K:14/11"),
        why="Our Guard hits the lone Guard."),
    Case("guard_with_own_checker_is_point", "guard", {15: "K", 20: "S", 12: "sk", 24: "ss"},
         (3, 1), plays=("S:20/17 S:17/16", "S:20/17 K:15/14", "K:15/14 K:14/11"),
         why="A Guard with an own checker is a made point: not even our Guard may land."),
    Case("jane_two_soldiers", "jane", {15: "S", 14: "S", 12: "k", 24: "ss"}, (3, 2), plays=(
        "15/12 14/12*", "14/11 15/13", "14/11 11/9", "15/13 13/10"),
        why="15/12 waits on the Guard, 14/12* completes it (or 14/12 then 15/12*): 12:SS, the "
            "Guard on the bar."),
    Case("jane_keeps_landing_order", "jane", {15: "S", 14: "E", 12: "k", 24: "ss"}, (3, 2),
         plays=("S:15/12 E:14/12*", "S:15/13 S:13/10", "E:14/12 S:15/12*"),
         why="S first then E gives 12:SE; E first then S gives 12:ES. E moves only with the 2."),
    Case("jane_incomplete_illegal", "jane", {15: "S", 20: "S", 12: "k", 24: "ss"}, (3, 1),
         plays=("20/17 17/16", "20/17 15/14", "15/14 14/11"),
         why="15/12 can never be followed by a second lander with the 1, so it is not part of any "
             "legal play, not even as the last movement (20/19 15/12)."),
    Case("jane_needs_consecutive_landings", "jane", {15: "S", 18: "S", 12: "k", 24: "ss"},
         (3, 3), plays=("18/15 15/12 15/12* 12/9",),
         why="Every way on passes point 12. 15/12 first cannot be completed next (the other "
             "soldier is on 18), so 18/15 comes first; the two then land on 12 one after the "
             "other, and the last 3 moves the top soldier on."),
    Case("jane_general_backward_lander", "jane", {10: "G", 15: "S", 12: "k", 24: "ss"}, (2, 3),
         plays=("G:10/8 G:8/5", "G:10/12 S:15/12*", "S:15/13 S:13/10", "S:15/13 G:10/7",
                "S:15/13 G:10/13", "G:10/13 S:15/13", "S:15/12 G:10/12*"),
         why="G back 10/12 waits on the Guard and S 15/12* completes (12:GS); or S waits and G "
             "back 10/12* completes (12:SG). 10/8 then 15/12 would end half done: not a play. "
             "Other plays: 10/8/5, 15/13/10 (onto G), 15/13 with 10/7 or back 10/13 (13:SG), "
             "back 10/13 then 15/13 (13:GS)."),
    Case("jane_by_entry", "jane", {22: "k", 1: "ss"}, (3, 3), bar="SS", plays=(
        "bar/22 bar/22* 22/19 19/16", "bar/22 bar/22* 22/19 22/19"),
        why="The first entering soldier waits on the Guard, the second entry completes the hit."),
    Case("jane_druid_lander_in_home", "jane", {22: "k", 1: "ss"}, (3, 3), bar="DS", plays=(
        "D:bar/22 S:bar/22* S:22/19 S:19/16", "D:bar/22 S:bar/22* S:22/19 D:22/19",
        "S:bar/22 D:bar/22* D:22/19 D:19/16", "S:bar/22 D:bar/22* D:22/19 S:22/19"),
        why="On 22 (their home board) the Druid does not trap: it may wait on the Guard as a "
            "Jane's first lander, or complete one. Both orders, then the two other 3s move the "
            "top checker twice or each checker once."),
    Case("jane_by_entry_incomplete", "jane", {22: "k", 1: "ss"}, (3, 1), bar="SS",
         plays=("bar/24",),
         why="Entering on 22 first could only be followed by an entry on 24; entering on 24 "
             "first leaves the 3 for an entry on 22 that nothing completes. One soldier enters."),
    Case("druid_traps_lone_guard", "guard", {15: "D", 20: "S", 12: "k", 24: "ss"}, (3, 1), plays=(
        "D:15/12^ D:12/11", "D:15/12^ S:20/19", "S:20/17 S:17/16", "S:20/17 D:15/14"),
        why="On 12 the Druid traps the lone Guard at once (12:kD)."),
    Case("druid_completes_jane", "jane", {15: "S", 14: "D", 12: "k", 24: "ss"}, (3, 2), plays=(
        "S:15/12 D:14/12*", "D:14/11 S:15/13", "D:14/11 D:11/9", "S:15/13 S:13/10",
        "D:14/12^ S:15/12"),
        why="After S waits on the Guard the Druid's landing completes the Jane as a hit (12:SD, "
            "Guard to the bar); landing first, the Druid traps (12:kD) and S may stack on it."),

    # ------------------------------------------------------------------ Wounded
    Case("wounded_parity", "wounded", {15: "O", 20: "E", 24: "ss"}, (2, 1),
         plays=("E:20/18 O:15/14",),
         why="The Odd Wounded takes only the 1, the Even Wounded only the 2."),
    Case("wounded_wrong_parity", "wounded", {15: "O", 24: "ss"}, (4, 2), plays=("",),
         why="The Odd Wounded cannot move with 4 or 2."),
    Case("wounded_enters_any", "wounded", {1: "ss"}, (2, 2), bar="O", plays=("bar/23",),
         why="It enters with a 2, but then cannot move on with the 2s."),
    Case("wounded_bears_off_exact_any", "wounded", {3: "E", 1: "S", 24: "ss"}, (3, 1),
         plays=("E:3/off S:1/off",),
         why="The Even Wounded bears off with the 3 from point 3; it cannot move 3/2 with the 1."),
    Case("wounded_bears_off_larger_any", "wounded", {4: "O", 1: "S", 24: "ss"}, (6, 2),
         plays=("O:4/off S:1/off",),
         why="The 6 bears the Odd Wounded off from the highest point 4; 4/2 with the 2 is not "
             "allowed (even), and the 2 cannot bear S off from 1 while 4 is occupied before."),

    # ------------------------------------------------------------------ bearing off
    Case("bearoff_exact_and_larger", "bearoff", {4: "S", 2: "S", 24: "ss"}, (6, 1),
         plays=("4/off 2/1", "4/3 3/off"),
         why="6 bears off from the highest point; 4/3 then 3/off; 2/1 then 4/off = 4/off 2/1."),
    Case("bearoff_larger_only_from_highest", "bearoff", {6: "S", 2: "S", 1: "ss"}, (5, 5),
         plays=("",),
         why="6/1 is blocked and a 5 may not bear off from 2 while 6 is occupied. No play."),
    Case("bearoff_blocked_by_trapped", "bearoff", {2: "S", 1: "S", 12: "Sd", 24: "ss"}, (2, 1),
         plays=("2/1",),
         why="Our soldier trapped on 12 is outside home: no bearing off. Only 2/1 can be played."),
    Case("bearoff_all_home", "bearoff", {2: "S", 1: "S", 24: "ss"}, (2, 1),
         plays=("2/off 1/off", "2/1 1/off"),
         why="The same without the trapped soldier: both bear off, or 2/1 then 1/off."),
    Case("bearoff_after_coming_home", "bearoff", {7: "S", 1: "S", 24: "ss"}, (6, 1),
         plays=("7/1 1/off",),
         why="7/1 brings the last checker home, then 1/off; 7/6 6/off leaves the same."),
    Case("bearoff_general_back_on_highest", "bearoff", {1: "G", 7: "S", 24: "ss"}, (4, 4),
         plays=("S:7/3 S:3/off G:1/off",),
         why="G back 1/5 then 7/3 leaves G (frozen) on the highest point 5, so S on 3 cannot bear "
             "off with a 4: only 2 dice. 7/3 3/off 1/off uses 3 and is the play."),

    # ------------------------------------------------------------------ use the dice
    Case("must_use_both_dice", "dice", {10: "S", 20: "S", 3: "ss", 14: "ss"}, (6, 1),
         plays=("10/4 20/19", "20/19 19/13"),
         why="10/9 leaves the 6 unplayable (9/3, 20/14 blocked): not allowed when both can be "
             "played."),
    Case("larger_die_when_one", "dice", {10: "S", 3: "ss", 24: "ss"}, (6, 1), plays=("10/4",),
         why="Either die alone (10/4 or 10/9), never both: play the larger."),
    Case("smaller_die_when_larger_impossible", "dice", {10: "S", 4: "ss", 3: "ss"}, (6, 1),
         plays=("10/9",),
         why="The 6 cannot be played at all; the 1 must be."),
    Case("doubles_four_moves", "dice", {20: "S", 24: "ss"}, (2, 2),
         plays=("20/18 18/16 16/14 14/12",)),
    Case("doubles_as_many_as_possible", "dice", {20: "S", 14: "ss"}, (2, 2),
         plays=("20/18 18/16",), why="16/14 is blocked: two of the four 2s."),
]

RULES = sorted({c.rule for c in CASES})
