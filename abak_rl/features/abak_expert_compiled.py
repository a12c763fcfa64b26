"""abak_expert's column masks and its shot and trap counts compiled with Numba (one loop over
the batch each).

The NumPy version (abak_expert._shots_numpy) builds [rolls, N] arrays of masks for the 36 rolls;
this computes the same two numbers per row from the same 24-bit column masks with the same
rules (abak_expert._shots's docstring), one position at a time in machine code. It was the
largest single part of Abak's encoder; the masks (24 table words summed per row) and the
special slots' place codes (abak_expert._special_codes_numpy) are here too. AVAILABLE is False
where Numba cannot be imported; tests/test_features_abak_expert.py compares the two.
"""

from __future__ import annotations

import numpy as np

from ..jit import AVAILABLE
from ..jit import jit as _jit

M24 = (1 << 24) - 1
HOME_BITS = 0b111111 | (0b111111 << 18)
MID_BITS = 0b111111111111 << 6



@_jit
def _shots_rows(M, on_bar, out_hit, out_trap):
    direct = np.zeros(7, np.bool_)
    trap1 = np.zeros(7, np.bool_)
    plain = np.zeros(7, np.int64)
    for i in range(M.shape[0]):
        blot, lg = M[i, 2], M[i, 3]
        sg, odd, even, dru, gd = M[i, 7], M[i, 8], M[i, 9], M[i, 10], M[i, 11]
        if on_bar[i]:
            enter = 0
            for a in range(1, 7):
                ea = (blot >> (a - 1)) & 1
                enter += ea
                for b in range(a + 1, 7):
                    eb = (blot >> (b - 1)) & 1
                    enter += 2 * (ea | eb)
            out_hit[i] = enter / 36.0
            out_trap[i] = 0.0
            continue
        land = ~(M[i, 0] | M[i, 3] | M[i, 6]) & M24
        via = land & ~blot
        for d in range(1, 7):
            p = sg | (odd if d % 2 == 1 else even)
            plain[d] = p
            direct[d] = ((((p | gd) << d) & blot) | ((gd << d) & lg) | ((dru << d) & blot & HOME_BITS)) != 0
            trap1[d] = ((dru << d) & (blot | lg) & MID_BITS) != 0
        hit = 0
        trap = 0
        for a in range(1, 7):
            for b in range(a + 1, 7):
                h = direct[a] or direct[b]
                t = trap1[a] or trap1[b]
                grp = sg | gd
                if a % 2 == 1 and b % 2 == 1:
                    grp |= odd
                if a % 2 == 0 and b % 2 == 0:
                    grp |= even
                for k in range(2):
                    d1 = a if k == 0 else b
                    d2 = b if k == 0 else a
                    if ((((grp << d1) & via) << d2) & blot) != 0:
                        h = True
                    if ((((gd << d1) & via) << d2) & lg) != 0:
                        h = True
                    dv = ((dru << d1) & via) << d2
                    if (dv & blot & HOME_BITS) != 0:
                        h = True
                    if (dv & (blot | lg) & MID_BITS) != 0:
                        t = True
                if ((plain[a] << a) & (plain[b] << b) & lg) != 0:       # a Jane
                    h = True
                hit += 2 * h
                trap += 2 * t
        for d in range(1, 7):
            hd = direct[d]
            td = trap1[d]
            cur = plain[d] | gd
            cg = gd
            cd = dru
            for _ in range(3):
                cur = (cur << d) & via
                cg = (cg << d) & via
                cd = (cd << d) & via
                if (((cur << d) & blot) | ((cg << d) & lg) | ((cd << d) & blot & HOME_BITS)) != 0:
                    hd = True
                if ((cd << d) & (blot | lg) & MID_BITS) != 0:
                    td = True
            hit += hd
            trap += td
        out_hit[i] = hit / 36.0
        out_trap[i] = trap / 36.0


@_jit
def _mask_rows(codes, table, n_codes, n_props, out):
    n_words = table.shape[0]
    for i in range(codes.shape[0]):
        for w in range(n_words):
            acc = np.uint64(0)
            for p in range(24):
                acc += table[w, p * n_codes + codes[i, p]]
            lo = np.int64(acc & np.uint64(M24))
            hi = np.int64((acc >> np.uint64(24)) & np.uint64(M24))
            out[i, 2 * w] = lo
            out[i, 2 * w + 1] = hi
            if w == 0:
                out[i, n_props] = np.int64((acc >> np.uint64(48)) & np.uint64(255))
                out[i, n_props + 1] = np.int64(acc >> np.uint64(56))


def masks(codes: np.ndarray, table: np.ndarray, n_codes: int, n_props: int) -> np.ndarray:
    """abak_expert._masks: int64 [N, n_props + 2] from column codes [N, 24] and its mask table."""
    out = np.empty((codes.shape[0], n_props + 2), np.int64)
    _mask_rows(np.ascontiguousarray(codes, dtype=np.int64), table, n_codes, n_props, out)
    return out


def shots(M: np.ndarray, on_bar: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hit rolls / 36, trap rolls / 36) float32 [N] from abak_expert's masks M [N, >= 12]."""
    n = M.shape[0]
    hit = np.empty(n, np.float32)
    trap = np.empty(n, np.float32)
    _shots_rows(np.ascontiguousarray(M, dtype=np.int64), np.ascontiguousarray(on_bar, dtype=np.bool_), hit, trap)
    return hit, trap


@_jit
def _special_rows(boards, codes, info, slots, height, slot_of, guard, bar_cols, bar_place, off_place, out):
    on = np.zeros(2, np.int64)
    for r in range(boards.shape[0]):
        on[0] = 0
        on[1] = 0
        written = 0                            # bit k: slot k holds a checker on the board
        for idx in range(slots):
            v = boards[r, idx]
            if -2 < v < 2:
                continue
            theirs = 1 if v < 0 else 0
            cls = -v if v < 0 else v
            p = idx // height
            h = idx % height
            c = codes[r, p]
            other_high = info[c, 8] if theirs else info[c, 9]
            code = p * 20 + h * 4 + (2 if h < other_high else 0) + (1 if h == info[c, 0] - 1 else 0)
            if cls == guard:                   # a side's Guards in board order
                slot = 6 * theirs + 4 + on[theirs]
                on[theirs] += 1
            else:
                slot = slot_of[cls] + 6 * theirs
            out[r, slot] = code
            written |= 1 << slot
        for side in range(2):                  # the others: on the bar if the bar holds them, else off
            for j in range(4):
                if not (written >> (6 * side + j)) & 1:
                    here = boards[r, bar_cols[5 * side + j]] > 0
                    out[r, 6 * side + j] = bar_place * 20 if here else off_place * 20
            for j in range(on[side], 2):       # Guards: after the board ones, the bar, then off
                here = j < on[side] + boards[r, bar_cols[5 * side + 4]]
                out[r, 6 * side + 4 + j] = bar_place * 20 if here else off_place * 20


def special_codes(boards, codes, info, slots, height, slot_of, guard, bar_cols, bar_place, off_place):
    """int16 [N, 12] place codes of the special slots, as abak_expert._special_codes_numpy."""
    out = np.empty((boards.shape[0], 12), np.int16)
    _special_rows(np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(codes, dtype=np.int64),
                  info, slots, height, slot_of, guard, bar_cols, bar_place, off_place, out)
    return out
