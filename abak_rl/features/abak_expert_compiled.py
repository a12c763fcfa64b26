"""abak_expert's packed rows compiled with Numba: the whole row of a position in one loop over
the batch.

Why: the NumPy pack (abak_expert._pack_numpy) is some twenty array passes per batch (column
codes, masks, the 36 rolls' shot masks, each side's units, O's mirrored masks...), each
allocating and re-reading its operands, where one position is a few hundred integer operations.
`pack` computes the same 55 numbers per position from the same tables with the same bitmask
rules, one position at a time in machine code, so its rows are identical to the NumPy ones, not
merely close (a unit's quotient is looked up as the float32 NumPy stores for it). Where a
position's contents would steer a branch (which slots hold special checkers, which columns are
occupied, where a side's top bit is) the code walks set bits, looks up or selects instead:
such branches mispredict, and they cost more than the arithmetic.

The pieces are also offered one by one (`masks`, `shots`, `special_codes`) so the tests can
check each against its NumPy form and point at the one that differs. AVAILABLE is False where
Numba cannot be imported; abak_expert then packs with NumPy. tests/test_features_abak_expert.py
and tests/test_abak_expert_compiled_pack.py compare the two.
"""

from __future__ import annotations

import numpy as np

from ..engine.abak import board as ab
from ..jit import AVAILABLE
from ..jit import jit as _jit

M24 = (1 << 24) - 1
HOME_BITS = 0b111111 | (0b111111 << 18)
MID_BITS = 0b111111111111 << 6
N_MASKS = 20                   # abak_expert's 18 property masks, then the two outside counts
HEIGHT = ab.HEIGHT
BAR, OPP_BAR, OFF, OPP_OFF = ab.BAR, ab.OPP_BAR, ab.OFF, ab.OPP_OFF
GUARD, SOLDIER = ab.GUARD, ab.SOLDIER
N_CODES, N_SLOTS, N_DENSE = 24, 12, 19

_HIGH12 = np.array([-1] + [i.bit_length() - 1 for i in range(1, 4096)], dtype=np.int64)
_DEBRUIJN = 0x077CB531                         # every 5-bit window of it differs
_DB_INDEX = np.zeros(32, dtype=np.int64)
for _i in range(32):
    _DB_INDEX[((_DEBRUIJN << _i) & (2 ** 32 - 1)) >> 27] = _i
_LOW31 = (1 << 31) - 1
# _QUOT[n, k] = n / (2, 3, 6, 15, 36)[k] rounded once to float32: what NumPy stores for the float64
# quotient, read instead of divided (a division costs more than the rest of a unit)
_QUOT = (np.arange(64)[:, None] / np.array([2.0, 3.0, 6.0, 15.0, 36.0])).astype(np.float32)
Q2, Q3, Q6, Q15, Q36 = range(5)


@_jit
def _high(m):
    """Index of the highest set bit of a 24-bit mask (-1 for 0), as abak_expert._bit_index:
    two table halves, not a loop (a loop's exit depends on the data and mispredicts)."""
    t = m >> 12
    return _HIGH12[t] + 12 if t else _HIGH12[m & 4095]


@_jit
def _low31(m):
    """Index of the lowest set bit of 0 < m < 2^31, by a de Bruijn multiply. The product stays
    below 2^58: Numba's integer products overflow into undefined behaviour (LLVM's nsw), not
    wrap, so the usual 64-bit multiply would be miscompiled."""
    return _DB_INDEX[(((m & -m) * _DEBRUIJN) >> 27) & 31]


@_jit
def _low(m):
    """Index of the lowest set bit of 0 < m < 2^62 (both halves looked up, one chosen)."""
    t = m & _LOW31
    return _low31(t) if t else 31 + _low31(m >> 31)


@_jit
def _row_masks(cr, cols, words, p_out, o_out):
    """abak_expert._masks of one position from its 24 column codes cr, as a tuple of 20: bit p
    of mask k is property k of column p; then P's checkers on points 7..24 and O's on points
    1..18. words[9 c + j] holds code c's property 2j at bit 0 and 2j + 1 at bit 24, so a
    column ORs its nine words shifted by p into nine accumulators (written out, and returned
    as values, so they stay in registers). Only the columns in cols are visited, by their
    bits: those whose code has a property or a checker (_live_cols; about half)."""
    w0 = w1 = w2 = w3 = w4 = w5 = w6 = w7 = w8 = np.int64(0)
    n_p = 0
    n_o = 0
    while cols:
        p = _low31(cols)
        cols &= cols - 1
        c = cr[p]
        b = 9 * c
        w0 |= words[b] << p
        w1 |= words[b + 1] << p
        w2 |= words[b + 2] << p
        w3 |= words[b + 3] << p
        w4 |= words[b + 4] << p
        w5 |= words[b + 5] << p
        w6 |= words[b + 6] << p
        w7 |= words[b + 7] << p
        w8 |= words[b + 8] << p
        n_p += p_out[c] * np.int64(p >= 6)
        n_o += o_out[c] * np.int64(p < 18)
    return (w0 & M24, w0 >> 24, w1 & M24, w1 >> 24, w2 & M24, w2 >> 24, w3 & M24, w3 >> 24,
            w4 & M24, w4 >> 24, w5 & M24, w5 >> 24, w6 & M24, w6 >> 24, w7 & M24, w7 >> 24,
            w8 & M24, w8 >> 24, np.int64(n_p), np.int64(n_o))


@_jit
def _live_cols(cr, live):
    """Bit p: column p's code enters the masks (live[c] = 1)."""
    cols = 0
    for p in range(24):
        cols |= live[cr[p]] << p
    return cols


@_jit
def _mask_rows(codes, words, live, p_out, o_out, out):
    for i in range(codes.shape[0]):
        M = _row_masks(codes[i], _live_cols(codes[i], live), words, p_out, o_out)
        for k in range(N_MASKS):
            out[i, k] = M[k]


def masks(codes: np.ndarray, words: np.ndarray, live: np.ndarray, p_out: np.ndarray,
          o_out: np.ndarray) -> np.ndarray:
    """abak_expert._masks: int64 [N, 20] from column codes [N, 24], the per-code property
    words (flat, 9 a code), which codes have any, and the per-code checker counts."""
    out = np.empty((codes.shape[0], N_MASKS), np.int64)
    _mask_rows(np.ascontiguousarray(codes, dtype=np.int64), words, live, p_out, o_out, out)
    return out


@_jit
def _shots_row(M, on_bar):
    """(hit rolls, trap rolls) of 36 for O from one position's masks, the rules of
    abak_expert._shots_numpy; direct and trap1 hold die d's answer at bit d."""
    blot, lg = M[2], M[3]
    sg, odd, even, dru, gd = M[7], M[8], M[9], M[10], M[11]
    if on_bar:
        enter = 0
        for a in range(1, 7):
            ea = (blot >> (a - 1)) & 1
            enter += ea
            for b in range(a + 1, 7):
                eb = (blot >> (b - 1)) & 1
                enter += 2 * (ea | eb)
        return enter, 0
    land = ~(M[0] | M[3] | M[6]) & M24
    via = land & ~blot
    plain_odd = sg | odd
    plain_even = sg | even
    direct = 0
    trap1 = 0
    for d in range(1, 7):
        p = plain_odd if d % 2 == 1 else plain_even
        if ((((p | gd) << d) & blot) | ((gd << d) & lg) | ((dru << d) & blot & HOME_BITS)) != 0:
            direct |= 1 << d
        if ((dru << d) & (blot | lg) & MID_BITS) != 0:
            trap1 |= 1 << d
    hit = 0
    trap = 0
    for a in range(1, 7):
        pa = plain_odd if a % 2 == 1 else plain_even
        for b in range(a + 1, 7):
            pb = plain_odd if b % 2 == 1 else plain_even
            h = ((direct >> a) | (direct >> b)) & 1
            t = ((trap1 >> a) | (trap1 >> b)) & 1
            grp = sg | gd
            if a % 2 == 1 and b % 2 == 1:
                grp |= odd
            if a % 2 == 0 and b % 2 == 0:
                grp |= even
            for k in range(2):
                d1 = a if k == 0 else b
                d2 = b if k == 0 else a
                if ((((grp << d1) & via) << d2) & blot) != 0:
                    h = 1
                if ((((gd << d1) & via) << d2) & lg) != 0:
                    h = 1
                dv = ((dru << d1) & via) << d2
                if (dv & blot & HOME_BITS) != 0:
                    h = 1
                if (dv & (blot | lg) & MID_BITS) != 0:
                    t = 1
            if ((pa << a) & (pb << b) & lg) != 0:       # a Jane
                h = 1
            hit += 2 * h
            trap += 2 * t
    for d in range(1, 7):
        hd = (direct >> d) & 1
        td = (trap1 >> d) & 1
        cur = (plain_odd if d % 2 == 1 else plain_even) | gd
        cg = gd
        cd = dru
        for _ in range(3):
            cur = (cur << d) & via
            cg = (cg << d) & via
            cd = (cd << d) & via
            if (((cur << d) & blot) | ((cg << d) & lg) | ((cd << d) & blot & HOME_BITS)) != 0:
                hd = 1
            if ((cd << d) & (blot | lg) & MID_BITS) != 0:
                td = 1
        hit += hd
        trap += td
    return hit, trap


@_jit
def _shots_rows(M, on_bar, out_hit, out_trap):
    for i in range(M.shape[0]):
        hit, trap = _shots_row(M[i], on_bar[i])
        out_hit[i] = hit / 36.0
        out_trap[i] = trap / 36.0


def shots(M: np.ndarray, on_bar: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hit rolls / 36, trap rolls / 36) float32 [N] from abak_expert's masks M [N, >= 12]."""
    n = M.shape[0]
    hit = np.empty(n, np.float32)
    trap = np.empty(n, np.float32)
    _shots_rows(np.ascontiguousarray(M, dtype=np.int64), np.ascontiguousarray(on_bar, dtype=np.bool_), hit, trap)
    return hit, trap


@_jit
def _special_bits(row, p):
    """Bit h: slot h of column p holds a special checker (any class but the Soldier)."""
    sp = 0
    for h in range(HEIGHT):
        v = row[p * HEIGHT + h]
        sp |= np.int64((v > 1) | (v < -1)) << h
    return sp


@_jit
def _special_row(row, cr, sp_lo, sp_hi, place, slot_by_value, bar_cols, bar_code, off_code, out, base):
    """The 12 special slots' place codes of one position into out[base:base + 12], as
    abak_expert._special_codes_numpy. sp_lo, sp_hi: the slots of its special checkers on the
    board, 0..59 and 60..119, as bits (_special_bits of points 1..12 and 13..24), visited in
    slot order, so a side's Guards are numbered in board order. place[(5 c + h) * 2 + theirs]:
    a checker's code less 20 p in slot h of a column of code c (height, trapped, on top: looked
    up, not worked out); slot_by_value[v + 6]: the slot of checker value v (a side's first
    Guard slot for a Guard). The defaults (on the bar if the bar holds that class, else borne
    off) are written first and the board's checkers over them; a Guard slot not taken on the
    board is filled after."""
    for side in range(2):
        for j in range(4):
            k = 6 * side + j
            out[base + k] = bar_code if row[bar_cols[5 * side + j]] > 0 else off_code
    guards = 0                                 # Guards met on the board: P's at bit 0, O's at bit 4
    for half in range(2):
        m = sp_hi if half else sp_lo
        while m:
            idx = _low(m) + 60 * half
            m &= m - 1
            v = row[idx]
            p = idx // HEIGHT
            h = idx - p * HEIGHT
            theirs = np.int64(v < 0)
            code = p * 20 + place[(HEIGHT * cr[p] + h) * 2 + theirs]
            shift = 4 * theirs
            guard = np.int64((v == GUARD) | (v == -GUARD))
            slot = slot_by_value[v + 6] + guard * ((guards >> shift) & 15)
            guards += guard << shift
            out[base + slot] = code
    for side in range(2):                      # Guard slots after the board's: bar, then off
        on = (guards >> (4 * side)) & 15
        on_bar = row[bar_cols[5 * side + 4]]
        for j in range(2):
            k = base + 6 * side + 4 + j
            out[k] = out[k] if j < on else (bar_code if j < on + on_bar else off_code)


@_jit
def _special_rows(boards, codes, place, slot_by_value, bar_cols, bar_code, off_code, out):
    for r in range(boards.shape[0]):
        row = boards[r]
        lo = 0
        hi = 0
        for p in range(12):
            lo |= _special_bits(row, p) << (HEIGHT * p)
            hi |= _special_bits(row, 12 + p) << (HEIGHT * p)
        _special_row(row, codes[r], lo, hi, place, slot_by_value, bar_cols, bar_code, off_code, out[r], 0)


def special_codes(boards, codes, place, slot_by_value, bar_cols, bar_code, off_code):
    """int16 [N, 12] place codes of the special slots, as abak_expert._special_codes_numpy."""
    out = np.empty((boards.shape[0], N_SLOTS), np.int16)
    _special_rows(np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(codes, dtype=np.int64),
                  place, slot_by_value, bar_cols, bar_code, off_code, out)
    return out


@_jit
def _rev24(m, rev8):
    return (rev8[m & 255] << 16) | (rev8[(m >> 8) & 255] << 8) | rev8[(m >> 16) & 255]


@_jit
def _side_row(held, land, gen, odd, even, occ, n_out, bar_total, up, rev8, pop6, bear, out, base):
    """The 6 units of one side into out[base:base + 6], as abak_expert._side_units (the same
    mirroring of O's masks; the quotients from _QUOT)."""
    if up:
        held = _rev24(held, rev8)
        land = _rev24(land, rev8)
        gen = _rev24(gen, rev8)
        odd = _rev24(odd, rev8)
        even = _rev24(even, rev8)
        occ = _rev24(occ, rev8)
    all_home = ((occ >> 6) == 0) & (bar_total == 0)
    out[base] = np.float64(all_home)
    run = 0
    for _ in range(8):                         # a side holds at most 8 points: no loop exit to guess
        run += np.int64(held != 0)
        held &= held >> 1
    while held:                                # (not in a real position)
        run += 1
        held &= held >> 1
    out[base + 1] = _QUOT[run, Q6]
    g = _high(gen)
    outside = n_out + bar_total - np.int64(g >= 6)
    may_back = (g >= 0) & (outside > 0)
    out[base + 2] = np.float64(may_back)
    reach = pop6[(land >> (g + 1)) & 63]       # g = -1 reads land's low bits: discarded
    out[base + 3] = _QUOT[reach if may_back else 0, Q6]
    highest = _high(occ)
    for j in range(2):
        w = _high(odd if j == 0 else even)
        wi = max(w, 0)
        window = ((land << 6) >> wi) & 63      # bit 6 - d: point w - d (0 below point 1)
        moves = pop6[window & (0b101010 if j == 0 else 0b010101)]
        b = bear[j, wi, np.int64(highest == w)] if all_home else 0
        out[base + 4 + j] = _QUOT[moves + b if w >= 0 else 0, Q3]


@_jit
def _pack_rows(boards, key_special, key0, place, words, p_out, o_out, slot_by_value, bar_cols, bar_code,
               off_code, rev8, pop6, bear, out):
    cr = np.empty(24, np.int64)
    d = N_CODES + N_SLOTS
    for i in range(boards.shape[0]):
        row = boards[i]
        o = out[i]
        sp_lo = 0
        sp_hi = 0
        cols = 0
        for p in range(24):                    # column codes: the key by Horner's rule
            key = np.int64(0)
            for h in range(HEIGHT - 1, -1, -1):
                key = key * 13 + row[p * HEIGHT + h]
            t = np.int64(key_special[key + key0])
            c = t & 511 if t >= 0 else -1      # -1: not a column (as KEY_CODE)
            sp = (t >> 9) & 31 if t >= 0 else 0   # _special_bits(row, p)
            if p < 12:
                sp_lo |= sp << (HEIGHT * p)
            else:
                sp_hi |= sp << (HEIGHT * (p - 12))
            cols |= ((t >> 14) & 1) << p       # _live_cols
            cr[p] = c
            o[p] = c
        _special_row(row, cr, sp_lo, sp_hi, place, slot_by_value, bar_cols, bar_code, off_code, o, N_CODES)
        M = _row_masks(cr, cols, words, p_out, o_out)
        tp = 0
        to = 0
        for k in range(6):
            tp += row[BAR + k]
            to += row[OPP_BAR + k]
        land_p = ~(M[1] | M[5] | M[6]) & M24
        land_o = ~(M[0] | M[3] | M[6]) & M24
        _side_row(M[0], land_p, M[12], M[13], M[14], M[16], M[18], tp, False, rev8, pop6, bear, o, d)
        _side_row(M[1], land_o, M[15], M[8], M[9], M[17], M[19], to, True, rev8, pop6, bear, o, d + 6)
        hit, trap = _shots_row(M, to > 0)
        o[d + 12] = _QUOT[hit, Q36]
        o[d + 13] = _QUOT[trap, Q36]
        o[d + 14] = _QUOT[row[BAR + SOLDIER - 1], Q2]
        o[d + 15] = _QUOT[row[OPP_BAR + SOLDIER - 1], Q2]
        o[d + 16] = _QUOT[row[OFF], Q15]
        o[d + 17] = _QUOT[row[OPP_OFF], Q15]
        lowest_o = _low(M[17]) if M[17] != 0 else 24
        o[d + 18] = np.float64((_high(M[16]) < lowest_o) & (tp + to == 0))


def pack(boards, key_special, key0, place, words, p_out, o_out, slot_by_value, bar_cols, bar_code, off_code,
         rev8, pop6, bear) -> np.ndarray:
    """abak_expert.pack: float32 [N, 55] from Abak rows [N, 134] and abak_expert's tables (valid
    rows: the tables are read without bounds checks)."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.empty((boards.shape[0], N_CODES + N_SLOTS + N_DENSE), np.float32)
    _pack_rows(boards, key_special, key0, place, words, p_out, o_out, slot_by_value, bar_cols, bar_code,
               off_code, rev8, pop6, bear, out)
    return out
