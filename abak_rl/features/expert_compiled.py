"""The `expert` encoding compiled with Numba: one pass over the batch in machine code.

The NumPy encoder (expert.py) builds each concept from [rolls, N] arrays: about 80 array
operations per batch, each allocating and re-reading its operands, so it spends 1.8 us an
afterstate where the arithmetic is a few hundred integer operations. This module computes the
same 240 units with the same bitmask logic, one position at a time inside one compiled loop
(no Python per position): about 5x faster at self-play's batch sizes (scripts/bench_features.py).

Numba is a dependency; if it cannot be imported (a platform without its wheels), `AVAILABLE` is
False and expert.py keeps its NumPy path. The two are checked against the plain reference
(expert_reference.py) and against each other in tests/test_features_expert.py.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit

from ..engine import board as cb
from .classic import POINT_TABLE

SIDE_UNITS = 21
SIZE = 198 + 2 * SIDE_UNITS
EXTRA_UNITS = 4                          # expert2: pip_loss, break_contact, free_pip, mobility
SIZE2 = SIZE + 2 * EXTRA_UNITS
VALID = (1 << 25) - 2                    # bits 1..24
LOW6 = 0b1111110
HIGH6 = 0b111111 << 19
BAR, OPP_BAR, OFF, OPP_OFF = cb.BAR, cb.OPP_BAR, cb.OFF, cb.OPP_OFF



@_jit
def _pop(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@_jit
def _highest(x):
    """Highest set bit (0 for an empty mask)."""
    h = 0
    x >>= 1
    while x:
        h += 1
        x >>= 1
    return h


@_jit
def _lowest(x):
    if x == 0:
        return 0
    return _highest(x & -x)


@_jit
def _two(x):
    return (x & (x - 1)) != 0


@_jit
def _shots(src, nbar, blots, blocked):
    """(rolls hitting >= 1 blot, rolls hitting >= 2, pip loss) of 36: expert.shots for one
    position; pip loss = the sum over the 36 rolls of the highest point (in the hitter's
    numbering: the pips the hit side loses) among the blots that roll can hit."""
    op = ~blocked & VALID
    one = 0
    two = 0
    loss = 0
    if nbar == 0:
        for a in range(1, 7):
            for b in range(a + 1, 7):
                sa = src >> a
                sb = src >> b
                h_a = sa & blots
                h_b = sb & blots
                h_ab = ((sa & op) >> b) & blots
                h_ba = ((sb & op) >> a) & blots
                if (h_a | h_b | h_ab | h_ba) != 0:
                    one += 2
                    loss += 2 * _highest(h_a | h_b | h_ab | h_ba)
                if ((h_a != 0 and h_b != 0 and _two(h_a | h_b)) or ((h_a >> b) & blots) != 0
                        or ((h_b >> a) & blots) != 0):
                    two += 2
        for d in range(1, 7):
            reach = src
            h0 = h1 = h2 = h3 = 0
            for k in range(4):
                reach = (reach >> d) & VALID
                hk = reach & blots
                if k == 0:
                    h0 = hk
                elif k == 1:
                    h1 = hk
                elif k == 2:
                    h2 = hk
                else:
                    h3 = hk
                reach &= op
            u2 = h0 | h1
            u3 = u2 | h2
            u4 = u3 | h3
            if u4 != 0:
                one += 1
                loss += _highest(u4)
            if (h0 != 0 and _two(h0 | u3)) or (h1 != 0 and _two(h1 | u2)):
                two += 1
        return one, two, loss
    single = nbar == 1
    for a in range(1, 7):
        for b in range(a + 1, 7):
            ea = 1 << (25 - a)
            eb = 1 << (25 - b)
            ok_a = (ea & op) != 0
            ok_b = (eb & op) != 0
            hit_ea = ea & blots if ok_a else 0
            hit_eb = eb & blots if ok_b else 0
            then_b = ((src | ea) >> b) & blots if ok_a else 0
            then_a = ((src | eb) >> a) & blots if ok_b else 0
            if single:
                hit = (hit_ea | hit_eb | then_b | then_a) != 0
                pair = ((hit_ea != 0 and (then_b & ~hit_ea) != 0)
                        or (hit_eb != 0 and (then_a & ~hit_eb) != 0))
            else:
                hit = (hit_ea | hit_eb) != 0
                pair = hit_ea != 0 and hit_eb != 0
            if hit:
                one += 2
                loss += 2 * _highest((hit_ea | hit_eb | then_b | then_a) if single else (hit_ea | hit_eb))
            if pair:
                two += 2
    for d in range(1, 7):
        e = 1 << (25 - d)
        if (e & op) == 0:
            continue
        steps_left = 4 - min(nbar, 4)
        reach = src | e
        found = e & blots
        for k in range(1, 5):
            reach = (reach >> d) & VALID
            if steps_left >= k:
                found |= reach & blots
            reach &= op
        if found != 0:
            one += 1
            loss += _highest(found)
        if _two(found):
            two += 1
    return one, two, loss


@_jit
def _escape(y_made, point, esc):
    return esc[((y_made << 12) >> point) & 0xFFF]


@_jit
def _side(out, base, own, blot, made, y_made, counts, nbar, noff, y_src, y_bar, y_blot,
          y_blocked, closed, esc):
    """The 21 concept units of side X into out[base:base + 21] (expert._side for one position).
    counts[p - 1] = X's checkers on X-point p."""
    pips = 25 * nbar
    back = nbar
    outside = nbar
    cross = 4 * nbar
    timing = 19 * nbar
    for p in range(1, 25):
        c = counts[p - 1]
        pips += p * c
        if p >= 19:
            back += c
        if p >= 7:
            outside += c
            timing += (p - 6) * c
        cross += ((p - 1) // 6) * c
    out[base + 0] = pips / 167.0
    s1, s2, loss = _shots(y_src, y_bar, y_blot, y_blocked)
    out[base + 1] = s1 / 36.0
    out[base + 2] = s2 / 36.0
    out[base + 3] = _pop(blot) / 15.0
    rear = 25 if nbar > 0 else _highest(own)
    out[base + 4] = rear / 25.0
    out[base + 5] = back / 15.0
    out[base + 6] = (_escape(y_made, rear, esc) if rear > 0 else 0) / 36.0
    contain = 36
    for p in range(15, 25):
        contain = min(contain, _escape(y_made, p, esc))
    out[base + 7] = contain / 36.0
    run = 0
    m = made
    while m:
        run += 1
        m &= m >> 1
    out[base + 8] = run / 6.0
    out[base + 9] = _pop(made & LOW6) / 6.0
    anchors = made & HIGH6
    out[base + 10] = _pop(anchors) / 6.0
    out[base + 11] = (25 - _lowest(anchors) if anchors != 0 else 0) / 6.0
    out[base + 12] = outside / 15.0
    out[base + 13] = cross / 60.0
    out[base + 14] = timing / 100.0
    out[base + 15] = closed / 6.0
    out[base + 16] = (closed / 6.0) ** 2
    out[base + 17] = min(nbar, 3) / 3.0
    out[base + 18] = noff / 15.0
    return pips, loss


@_jit
def _extra(out, base, own, nbar, counts, y_occ, y_bar, y_made, loss):
    """expert2's 4 units of side X into out[base:base + 4] (X's numbering; y_occ / y_made: the
    other side Y's occupied and made points in X's numbering)."""
    out[base + 0] = loss / 864.0
    if y_bar > 0:
        t = 0
    elif y_occ != 0:
        t = _lowest(y_occ)
    else:
        t = 26
    brk = (25 - t + 1) * nbar if t <= 25 else 0
    free = 0
    for p in range(1, 25):
        c = counts[p - 1]
        if p >= t:
            brk += (p - t + 1) * c
        else:
            free += p * c
    out[base + 1] = brk / 167.0
    out[base + 2] = free / 167.0
    src = (1 << 25) if nbar > 0 else own
    land = ~y_made & VALID
    mob = 0
    for d in range(1, 7):
        mob += _pop((src >> d) & land)
    out[base + 3] = mob / 90.0


@_jit
def _encode_rows(boards, again, table, esc, out, extra, packed):
    """packed: each point as one code (count + 15) at out[:, j] and the other units from
    out[:, 24] on (features.Packing's layout), instead of its 8 table units."""
    n = boards.shape[0]
    o = 24 if packed else 192          # where the units after the point units start
    p_counts = np.zeros(24, dtype=np.int64)
    o_counts = np.zeros(24, dtype=np.int64)
    for i in range(n):
        row = out[i]
        own = blot = made = 0          # P's, in P's numbering (bit p = P-point p)
        opp = oblot = omade = 0        # O's, in P's numbering
        r_own = r_blot = r_made = 0    # P's, in O's numbering (P-point p = O-point 25 - p)
        r_opp = r_oblot = r_omade = 0  # O's, in O's numbering
        for j in range(24):
            c = np.int64(boards[i, j])
            if packed:
                row[j] = c + 15
            else:
                for k in range(8):
                    row[8 * j + k] = table[c + 15, k]
            p = j + 1
            q = 25 - p
            if c > 0:
                p_counts[j] = c
                o_counts[q - 1] = 0
                own |= 1 << p
                r_own |= 1 << q
                if c >= 2:
                    made |= 1 << p
                    r_made |= 1 << q
                else:
                    blot |= 1 << p
                    r_blot |= 1 << q
            else:
                p_counts[j] = 0
                o_counts[q - 1] = -c
                if c < 0:
                    opp |= 1 << p
                    r_opp |= 1 << q
                    if c <= -2:
                        omade |= 1 << p
                        r_omade |= 1 << q
                    else:
                        oblot |= 1 << p
                        r_oblot |= 1 << q
        bar = np.int64(boards[i, BAR])
        obar = np.int64(boards[i, OPP_BAR])
        row[o] = bar / 2.0
        row[o + 1] = obar / 2.0
        row[o + 2] = boards[i, OFF] / 15.0
        row[o + 3] = boards[i, OPP_OFF] / 15.0
        row[o + 4] = 0.0 if again[i] else 1.0
        row[o + 5] = 1.0 if again[i] else 0.0
        p_home_made = _pop(made & LOW6)
        o_home_made = _pop(omade & HIGH6)
        # P: O hits from O's numbering; O's home is P's 19..24
        p_pips, p_loss = _side(row, o + 6, own, blot, made, omade, p_counts, bar, np.int64(boards[i, OFF]),
                       r_opp, obar, r_blot, r_made, o_home_made, esc)
        # O, in O's numbering; P hits from P's own numbering
        o_pips, o_loss = _side(row, o + 6 + SIDE_UNITS, r_opp, r_oblot, r_omade, r_made, o_counts, obar,
                       np.int64(boards[i, OPP_OFF]), own, bar, oblot, omade, p_home_made, esc)
        mine = 25 if bar > 0 else _highest(own)
        theirs = 0 if obar > 0 else (_lowest(opp) if opp != 0 else 25)
        race = 1.0 if mine < theirs else 0.0
        row[o + 6 + 19] = race
        row[o + 6 + SIDE_UNITS + 19] = race
        lead = (o_pips - p_pips) / 50.0
        lead = min(1.0, max(-1.0, lead))
        row[o + 6 + 20] = lead
        row[o + 6 + SIDE_UNITS + 20] = -lead
        if extra:
            _extra(row, o + 6 + 2 * SIDE_UNITS, own, bar, p_counts, opp, obar, omade, p_loss)
            _extra(row, o + 6 + 2 * SIDE_UNITS + EXTRA_UNITS, r_opp, obar, o_counts, r_own, bar, r_made, o_loss)


def encode(boards: np.ndarray, again: np.ndarray, escapes: np.ndarray, extra: bool = False,
           packed: bool = False) -> np.ndarray:
    """float32 [N, 240]: the `expert` encoding (expert.py's layout) of classic board rows;
    extra: [N, 248], `expert2` (expert + 4 units per side). packed: [N, 72] / [N, 80], the 24
    point codes (count + 15) and then units 192.. as they are (features.Packing)."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    width = SIZE2 if extra else SIZE
    out = np.empty((boards.shape[0], width - (168 if packed else 0)), dtype=np.float32)
    _encode_rows(boards, np.ascontiguousarray(again, dtype=np.bool_), POINT_TABLE,
                 np.ascontiguousarray(escapes, dtype=np.int64), out, bool(extra), bool(packed))
    return out
