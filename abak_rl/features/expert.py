"""`expert`: Tesauro's 198 raw units plus the concepts strong players read, for the classic boards.

Raw inputs alone level off far below the strong bots: a net has to rediscover from 24 point
counts what "how many rolls hit my blot" or "can my back checker escape" means. This feature
set hands it those concepts directly (the idea of Berliner's and GNU Backgammon's hand-made
inputs; every definition here is our own, written down below and in docs/training.md).

Layout (version 1, 240 units), for an afterstate seen from the player P who just moved (the
board rows the move generator returns); the opponent O rolls next:

    0..197     td198 (features/classic.py): the raw point counts, bar, off, whose turn
    198..218   P's concepts (21 units, the table below), computed from P's own view
    219..239   O's concepts, the same 21 units computed from O's view (the flipped row)

Per side X (the other side Y), X's points numbered from X's view (X moves 24 -> 1; bar = 25):

    +0   pips         X's pip count / 167
    +1   shot1        of the 36 rolls, how many would let Y, rolling now, hit at least one X blot
                      (/36); exact: Y's checkers on the bar enter first, intermediate points
                      that X has made (2+ checkers) block a checker's path; not modelled: the
                      rule that forces Y to play both dice when it can (a hit that only a
                      one-die play makes is counted)
    +2   shot2        rolls that hit two different X blots (/36), with the same rules; the two
                      hits are assumed to come from different Y checkers or one checker going on
    +3   blots        X's blots (points with exactly one X checker) / 15
    +4   rear         X's rearmost checker's point / 25 (0 when all are off)
    +5   back         X's checkers in Y's home board (X's points 19..24) or on the bar / 15
    +6   escape       rolls (/36) with which X's rearmost checker could move past every point
                      Y has made among the 12 points in front of it (one checker, each landing
                      point open; 1 when nothing blocks; 0 when all are off)
    +7   contain      the least of `escape` over X's points 15..24: how well Y's points hold a
                      checker anywhere in that region
    +8   prime        X's longest run of made points / 6
    +9   home_made    X's made points in its home board (1..6) / 6
    +10  anchors      X's made points in Y's home board (19..24) / 6
    +11  best_anchor  (25 - the lowest such point) / 6 (0 without an anchor): 6 = the 24 point
                      is 1/6, the 19 point (Y's bar point) is 1
    +12  outside      X's checkers outside its home board (points 7..25) / 15
    +13  crossovers   sum over X's checkers of the home-board boundaries still to cross
                      (quadrant: points 1-6 -> 0, 7-12 -> 1, 13-18 -> 2, 19-24 -> 3, bar -> 4) / 60
    +14  timing       sum over X's checkers outside home of (point - 6) / 100: the pips X can
                      play before it must break its home board
    +15  y_closed     points of Y's home board that Y has made / 6 (where X would enter)
    +16  dance        (y_closed / 6)^2: the chance that X, on the bar, fails to enter one checker
    +17  on_bar       min(X's checkers on the bar, 3) / 3
    +18  off          X's checkers borne off / 15
    +19  race         1 when no contact remains (neither side can hit the other again): the
                      position class the race net evaluates; same value for both sides
    +20  lead         (Y's pips - X's pips) / 50, clipped to [-1, 1]

`expert2` (version 1, 248 units) = `expert` + 4 more units per side, after unit 239 (240..243
for P, 244..247 for O), with Y's rearmost checker at X-point t (0 when Y has a checker on the
bar; 26 when Y has none left):

    +0   pip_loss     the sum over the 36 rolls of the most pips X loses to one hit (25 - p for
                      a blot on X-point p) among the blots that roll lets Y hit (shot1's rules),
                      / (36 * 24)
    +1   break        pips X must still move for every checker to pass Y's rearmost: the sum of
                      (p - t + 1) over X's checkers at p >= t (bar = 25), / 167
    +2   free_pip     pips of X's checkers already past all of Y's (p < t), / 167
    +3   mobility     the sum over d = 1..6 of X's points (the bar alone while X is on it) from
                      which a checker moves d pips to a point Y has not made (1..24), / 90

Every unit is computed for a whole batch with array operations: point sets as bitmasks (bit p
for point p), shifts for moves, and lookup tables indexed by 12-point masks (escapes); a plain
per-position reference (features/expert_reference.py) is checked against it in the tests.
Training and play use the same bitmask logic compiled with Numba (expert_compiled.py, about 5x
faster); this NumPy path (encode_numpy) stays as the fallback and as a second check.
"""

from __future__ import annotations

import numpy as np

from ..engine import board as cb
from . import FeatureSet, Packing, expert_compiled
from .classic import _encode as _encode_td198
from .classic import _point_tables, _point_units

SIDE_UNITS = 21
SIZE = 198 + 2 * SIDE_UNITS
RACE_UNIT = 198 + 19          # the class unit: 1 = race (the mover's copy; O's copy is equal)
UNIT_NAMES = ("pips", "shot1", "shot2", "blots", "rear", "back", "escape", "contain", "prime",
              "home_made", "anchors", "best_anchor", "outside", "crossovers", "timing", "y_closed",
              "dance", "on_bar", "off", "race", "lead")
assert len(UNIT_NAMES) == SIDE_UNITS

NONDOUBLES = np.array([(a, b) for a in range(1, 7) for b in range(a + 1, 7)], dtype=np.int64)
DOUBLES = np.arange(1, 7, dtype=np.int64)


# ----------------------------------------------------------------------------- tables

def _escape_table() -> np.ndarray:
    """ESCAPES[w]: rolls (of 36) that carry one checker past every blocked point of a 12-point
    window in front of it. Bit j of w = the point at distance 12 - j is blocked."""
    table = np.zeros(1 << 12, dtype=np.int64)
    for w in range(1 << 12):
        blocked = {12 - j for j in range(12) if w >> j & 1}
        if not blocked:
            table[w] = 36
            continue
        far = max(blocked)
        count = 0
        for a in range(1, 7):
            for b in range(1, 7):
                count += _can_pass(a, b, blocked, far)
        table[w] = count
    return table


def _can_pass(a: int, b: int, blocked: set[int], far: int) -> bool:
    """Can one checker, moving with dice a, b (by the usual order rules), land beyond `far`?"""
    if a == b:
        d = 0
        for _ in range(4):
            d += a
            if d in blocked:
                return False
            if d > far:
                return True
        return False
    for first, second in ((a, b), (b, a)):
        if first > far and first not in blocked:
            return True
        if first not in blocked and first + second > far and first + second not in blocked:
            return True
    return False


ESCAPES = _escape_table()


# ----------------------------------------------------------------------------- helpers

I32 = np.int32
VALID = I32((1 << 25) - 2)                      # bits 1..24: the points on the board
LOW6 = I32(0b1111110)                           # points 1..6
HIGH6 = I32(0b111111 << 19)                     # points 19..24
ESC8 = ESCAPES.astype(np.int8)
_BYTE_REV = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=I32)
_POINTS = np.arange(1, 25)
# linear functions of a side's per-point counts, numbered from that side: pips, checkers in the
# other side's home (19..24), outside its own home (7..24), crossovers, timing (point - 6)
_LINEAR = np.stack([_POINTS, _POINTS >= 19, _POINTS >= 7, (_POINTS - 1) // 6,
                    np.maximum(_POINTS - 6, 0)], axis=1).astype(np.float32)
_BAR_LINEAR = np.array([25, 1, 1, 4, 19], dtype=np.float32)     # the same for a checker on the bar


def _any(x: np.ndarray) -> np.ndarray:
    return x != 0


def _two(x: np.ndarray) -> np.ndarray:
    """More than one bit set."""
    return (x & (x - 1)) != 0


def _pop(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x)


def _highest(mask: np.ndarray) -> np.ndarray:
    """Highest set bit of each mask (0 for an empty one)."""
    return np.maximum(np.frexp(mask.astype(np.float64))[1] - 1, 0)


def _lowest(mask: np.ndarray) -> np.ndarray:
    return _highest(mask & -mask)


def shots(src: np.ndarray, bar: np.ndarray, blots: np.ndarray, blocked: np.ndarray):
    """Rolls (of 36) with which the side on roll hits >= 1 and >= 2 of the other side's blots.

    Seen from the side on roll (it moves from high points to low): src = its checkers' point
    mask, bar = its checkers on the bar, blots / blocked = the other side's blots and made
    points (bit p = point p, int32). Returns two int [N] arrays."""
    src, blots, blocked = src.astype(I32), blots.astype(I32), blocked.astype(I32)
    open_ = ~blocked & VALID
    one, two = _shots_free(src, blots, open_)
    on_bar = np.flatnonzero(bar > 0)
    if on_bar.size:
        one[on_bar], two[on_bar] = _shots_bar(src[on_bar], bar[on_bar].astype(I32), blots[on_bar],
                                              open_[on_bar])
    return one, two


_A = NONDOUBLES[:, 0:1].astype(I32)
_B = NONDOUBLES[:, 1:2].astype(I32)
_D = DOUBLES[:, None].astype(I32)


def _shots_free(src, blots, open_):
    """shots() for rows whose side on roll has no checker on the bar."""
    S, Bm, Op = src[None, :], blots[None, :], open_[None, :]
    a, b = _A, _B
    sa, sb = S >> a, S >> b
    h_a, h_b = sa & Bm, sb & Bm
    h_ab = ((sa & Op) >> b) & Bm
    h_ba = ((sb & Op) >> a) & Bm
    hit = _any(h_a | h_b | h_ab | h_ba)
    pair = ((_any(h_a) & _any(h_b) & _two(h_a | h_b)) | _any((h_a >> b) & Bm)
            | _any((h_b >> a) & Bm))
    one = 2 * hit.sum(0, dtype=np.int64)
    two = 2 * pair.sum(0, dtype=np.int64)
    d = _D
    reach = S
    hits = []                                   # H_k: blots hit in exactly k steps
    for _ in range(4):
        reach = (reach >> d) & VALID
        hits.append(reach & Bm)
        reach = reach & Op
    u2 = hits[0] | hits[1]
    u3 = u2 | hits[2]
    u4 = u3 | hits[3]
    dpair = ((_any(hits[0]) & _two(hits[0] | u3)) | (_any(hits[1]) & _two(hits[1] | u2)))
    # (x in H_1, y in U_3, x != y) <=> H_1 nonempty and H_1 | U_3 has two bits, as H_1 <= U_3
    one += _any(u4).sum(0, dtype=np.int64)
    two += dpair.sum(0, dtype=np.int64)
    return one, two


def _shots_bar(src, nbar, blots, open_):
    """shots() for rows whose side on roll has checkers on the bar (they enter first)."""
    S, Bm, Op, nb = src[None, :], blots[None, :], open_[None, :], nbar[None, :]
    a, b = _A, _B
    ea, eb = I32(1) << (25 - a), I32(1) << (25 - b)
    ok_a, ok_b = _any(ea & Op), _any(eb & Op)
    hit_ea = np.where(ok_a, ea & Bm, 0)
    hit_eb = np.where(ok_b, eb & Bm, 0)
    then_b = np.where(ok_a, ((S | ea) >> b) & Bm, 0)
    then_a = np.where(ok_b, ((S | eb) >> a) & Bm, 0)
    single = nb == 1                            # one checker on the bar: enter, then any checker
    hit = np.where(single, _any(hit_ea | hit_eb | then_b | then_a), _any(hit_ea | hit_eb))
    pair = np.where(single, (_any(hit_ea) & _any(then_b & ~hit_ea)) | (_any(hit_eb) & _any(then_a & ~hit_eb)),
                    _any(hit_ea) & _any(hit_eb))
    one = 2 * hit.sum(0, dtype=np.int64)
    two = 2 * pair.sum(0, dtype=np.int64)
    d = _D
    e = I32(1) << (25 - d)
    entry_ok = _any(e & Op)
    steps_left = np.where(entry_ok, 4 - np.minimum(nb, 4), -1)       # -1: cannot enter, no move
    reach = np.where(entry_ok, S | e, 0)
    found = np.where(entry_ok, e & Bm, 0)
    for k in range(1, 5):
        reach = (reach >> d) & VALID
        found = found | np.where(steps_left >= k, reach & Bm, 0)
        reach = reach & Op
    one += _any(found).sum(0, dtype=np.int64)
    two += _two(found).sum(0, dtype=np.int64)
    return one, two


def _masks(pts: np.ndarray):
    """Point masks of the mover's view [6, N] int32 (own, own blots, own made, other's
    checkers, other's blots, other's made; bit p = point p) and the same with the numbering
    reversed (point p <-> 25 - p: the other side's view)."""
    cmp = np.stack([pts > 0, pts >= 2, pts < 0, pts <= -2])                           # [4, N, 24]
    by = np.packbits(cmp, axis=2, bitorder="little").astype(I32)                   # [4, N, 3]
    m4 = (by[..., 0] | by[..., 1] << 8 | by[..., 2] << 16) << 1
    rb = _BYTE_REV[by]
    r4 = (rb[..., 2] | rb[..., 1] << 8 | rb[..., 0] << 16) << 1
    # blots = checkers on a point that is not made
    m = np.stack([m4[0], m4[0] & ~m4[1], m4[1], m4[2], m4[2] & ~m4[3], m4[3]])
    rev = np.stack([r4[0], r4[0] & ~r4[1], r4[1], r4[2], r4[2] & ~r4[3], r4[3]])
    return m, rev


def _escape_at(y_made: np.ndarray, point) -> np.ndarray:
    """ESCAPES for a checker at `point` (1..25) given the other side's made points."""
    return ESC8[((y_made.astype(np.int64) << 12) >> point) & 0xFFF]


def _longest_run(mask: np.ndarray) -> np.ndarray:
    run = np.zeros(mask.shape, dtype=np.int64)
    m = mask.copy()
    while True:
        alive = m != 0
        if not alive.any():
            return run
        run += alive
        m &= m >> 1


def _side(out, own, blot, made, y_made, counts, bar, off, y_src, y_bar, y_blot, y_blocked, closed):
    """The concept units of side X into out [N, 21]; masks in X's numbering except the y_src /
    y_blot / y_blocked triple (the shot inputs, in Y's numbering); counts [N, 24] float32 of X's
    checkers in X's numbering. Race and lead are filled by the caller."""
    lin = counts @ _LINEAR + bar[:, None] * _BAR_LINEAR
    out[:, 0] = lin[:, 0] / 167.0
    s1, s2 = shots(y_src, y_bar, y_blot, y_blocked)
    out[:, 1] = s1 / 36.0
    out[:, 2] = s2 / 36.0
    out[:, 3] = _pop(blot) / 15.0
    rear = np.where(bar > 0, 25, _highest(own))
    out[:, 4] = rear / 25.0
    out[:, 5] = lin[:, 1] / 15.0
    out[:, 6] = np.where(rear > 0, _escape_at(y_made, np.maximum(rear, 1)), 0) / 36.0
    wide = y_made.astype(np.int64) << 12
    contain = ESC8[(wide >> 15) & 0xFFF]
    for p in range(16, 25):
        contain = np.minimum(contain, ESC8[(wide >> p) & 0xFFF])
    out[:, 7] = contain / 36.0
    out[:, 8] = _longest_run(made) / 6.0
    out[:, 9] = _pop(made & LOW6) / 6.0
    anchors = made & HIGH6
    out[:, 10] = _pop(anchors) / 6.0
    out[:, 11] = np.where(anchors != 0, 25 - _lowest(anchors), 0) / 6.0
    out[:, 12] = lin[:, 2] / 15.0
    out[:, 13] = lin[:, 3] / 60.0
    out[:, 14] = lin[:, 4] / 100.0
    out[:, 15] = closed / 6.0
    out[:, 16] = (closed / 6.0) ** 2
    out[:, 17] = np.minimum(bar, 3) / 3.0
    out[:, 18] = off / 15.0


def _race(bar, opp_bar, own, opp) -> np.ndarray:
    """No contact: the mover's rearmost checker (bar = 25) is below the opponent's rearmost (its
    bar = 0); own / opp are the two sides' point masks from the mover's view."""
    mine = np.where(bar > 0, 25, _highest(own))
    theirs = np.where(opp_bar > 0, 0, np.where(opp != 0, _lowest(opp), 25))
    return mine < theirs


def is_race(boards: np.ndarray) -> np.ndarray:
    """True where no contact remains: every checker of the mover is past every one of the
    opponent's (counting the bars), or one side has borne off everything."""
    b = np.asarray(boards)
    m, _ = _masks(b[:, :cb.N_POINTS])
    return _race(b[:, cb.BAR], b[:, cb.OPP_BAR], m[0], m[3])


def encode_numpy(boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    """The encoding with NumPy array operations over the batch (the path without Numba)."""
    n = boards.shape[0]
    out = np.empty((n, SIZE), dtype=np.float32)
    out[:, :198] = _encode_td198(boards, again, pool=False)
    pts = boards[:, :cb.N_POINTS]
    m, rev = _masks(pts)
    p_own, p_blot, p_made, o_own, o_blot, o_made = m
    r_p_own, r_p_blot, r_p_made, r_o_own, r_o_blot, r_o_made = rev
    p_counts = np.maximum(pts, 0).astype(np.float32)
    o_counts = np.maximum(-pts, 0).astype(np.float32)[:, ::-1]          # O's numbering
    bar, opp_bar = boards[:, cb.BAR].astype(np.int64), boards[:, cb.OPP_BAR].astype(np.int64)
    p_home_made, o_home_made = _pop(p_made & LOW6), _pop(o_made & HIGH6)
    mine = np.empty((n, SIDE_UNITS), dtype=np.float32)
    theirs = np.empty((n, SIDE_UNITS), dtype=np.float32)
    # P: O would hit, from O's numbering (the reversed masks); O's home is P's 19..24
    _side(mine, p_own, p_blot, p_made, o_made, p_counts, bar, boards[:, cb.OFF],
          r_o_own, opp_bar, r_p_blot, r_p_made, o_home_made)
    # O, in O's numbering (the reversed masks); P hits from P's own numbering
    _side(theirs, r_o_own, r_o_blot, r_o_made, r_p_made, o_counts, opp_bar, boards[:, cb.OPP_OFF],
          p_own, bar, o_blot, o_made, p_home_made)
    race = _race(bar, opp_bar, p_own, o_own)
    mine[:, 19] = theirs[:, 19] = race
    lead = np.clip((theirs[:, 0] - mine[:, 0]) * (167.0 / 50.0), -1, 1)
    mine[:, 20], theirs[:, 20] = lead, -lead
    out[:, 198:198 + SIDE_UNITS] = mine
    out[:, 198 + SIDE_UNITS:] = theirs
    return out


def _encode(boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    """The compiled encoder (expert_compiled.py) where Numba is there, else encode_numpy."""
    if expert_compiled.AVAILABLE:
        return expert_compiled.encode(boards, again, ESCAPES)
    return encode_numpy(boards, again)


# Packed rows (features.Packing): the 24 point codes (count + 15), then units 192.. as they are
# (72 numbers for expert, 80 for expert2). Self-play keeps these and scores them with the first
# layer as a sum of 24 table rows plus a 48-wide product (model/packed.py) instead of a
# 240-wide one; training and export still see the dense rows (unpack).
N_PACKED_POINTS = cb.N_POINTS


def _packing(width: int, extra: bool) -> Packing:
    def pack(boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
        boards = np.asarray(boards)
        again = np.zeros(boards.shape[0], dtype=bool) if again is None else np.asarray(again, dtype=bool)
        if expert_compiled.AVAILABLE:
            return expert_compiled.encode(boards, again, ESCAPES, extra=extra, packed=True)
        x = encode_numpy(boards, again)          # expert only (expert2 needs Numba)
        out = np.empty((x.shape[0], width - 168), dtype=np.float32)
        out[:, :N_PACKED_POINTS] = boards[:, :N_PACKED_POINTS] + 15
        out[:, N_PACKED_POINTS:] = x[:, 192:]
        return out

    def unpack(packed: np.ndarray) -> np.ndarray:
        packed = np.asarray(packed, dtype=np.float32)
        out = np.empty((packed.shape[0], width), dtype=np.float32)
        _point_units(packed[:, :N_PACKED_POINTS], out)
        out[:, 192:] = packed[:, N_PACKED_POINTS:]
        return out

    return Packing(width - 168, N_PACKED_POINTS, pack, unpack, _point_tables,
                   np.arange(N_PACKED_POINTS, dtype=np.int64) * 31)


EXPERT = FeatureSet("expert", 1, SIZE, ("standard", "nackgammon"), cb.WIDTH, _encode, class_unit=RACE_UNIT,
                    packing=_packing(SIZE, extra=False))

EXTRA_NAMES = ("pip_loss", "break", "free_pip", "mobility")
SIZE2 = SIZE + 2 * len(EXTRA_NAMES)


def _encode2(boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    if not expert_compiled.AVAILABLE:
        raise RuntimeError("feature set 'expert2' needs Numba (pip install numba); 'expert' works without it")
    return expert_compiled.encode(boards, again, ESCAPES, extra=True)


EXPERT2 = FeatureSet("expert2", 1, SIZE2, ("standard", "nackgammon"), cb.WIDTH, _encode2, class_unit=RACE_UNIT,
                     packing=_packing(SIZE2, extra=True))
