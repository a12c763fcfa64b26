"""abak_expert: the Abak Evolution encoding with Abak knowledge, built to be cheap to evaluate.

Why it is shaped this way: a dense Abak encoding is wide (classes and stack order on 24
columns) and writing ~1,400 floats per afterstate dominated Abak self-play. But almost all of
it is a function of a few small integers: each column's contents (colour pattern and top
class: 373 possible codes) and each special checker's place. So the encoding is defined as

    x = [ COLUMN[p][code of column p] for p = 0..23 ]          (24 blocks of 50 units)
      + [ SPECIAL[code of special slot k] for k = 0..11 ]      (12 blocks of 29 units)
      + [ 19 dense units: shots, traps, primes, General, Wounded, bar, off, race ]

and is also offered PACKED: those 36 codes and the 19 dense units (55 numbers). The dense x
is what nets are trained on and what exports read; self-play keeps packed rows, and the
scorer computes a net's first layer from them as a sum of 36 precomputed rows (COLUMN @ W,
SPECIAL @ W, rebuilt when the weights change) plus the dense part (model/packed.py): the
same numbers as W @ x at a fraction of the cost.

Perspective as every feature set: the afterstate seen from the player P who just moved; O, the
opponent, is on roll (O moves from P's point 1 towards 24). Index p = point - 1. Every rule
below is also written out plainly, position by position, in abak_expert_reference.py.

Column block (50 units, for point p, from the column's contents alone):
     0..34  as abak_stack: P's and O's checker counts (Tesauro's 4 units each), the top
            checker's (side, class) one-hot (12), [P top run >= 2, O top run >= 2], P's / O's
            trapped checkers / 2, column full, the colour of each of the 5 slots (10)
    35..37  P holds it (top run >= 2, or a lone P Guard: O cannot land), P blot (one P
            checker on top, not a Guard: O may hit it), lone P Guard (only a Guard or a Jane)
    38..40  the same for O
        41  four checkers: one more fits
        42  P's Druid may trap here: point 7..18 with one O checker on top
        43  O's Druid may trap here: point 7..18 with one P checker on top
    44..45  P's trapped checkers here / 2, under a single O checker on top (a hit on it, or
            its moving on, frees them) and under two or more
    46..47  the same for O's trapped checkers
    48..49  P's / O's Druid on top holds a prisoner here (the checker under it is the other's)
Special slots (29 units each): slots 0..5 = P's General, Druid, Odd Wounded, Even Wounded,
Guard a, Guard b; 6..11 = O's, the same. A side's two Guards are ordered by place (lower
first) so the encoding does not depend on which Guard is which. Units: the place as a one-hot
over 26 (points 1..24, bar, borne off), its height / 4, trapped, on top of its column.
Dense units (what is not a sum over columns, so the first layer could not build it):
  0..5  P: all home (may bear off); longest run of held points / 6; its General may move
        backward (on top of its column and another P checker outside the home board); the
        General's backward reach (dice 1..6 that land it on a point it may land on) / 6; of
        its Wounded's dice (1, 3, 5 / 2, 4, 6), how many it could play now (move or bear
        off) / 3, Odd then Even
 6..11  the same for O, in O's own direction
    12  O's shots: rolls of 36 on which O can hit at least one P checker (see _shots)
    13  O's traps: rolls of 36 on which O's Druid can trap a P checker on points 7..18
 14,15  P's / O's Soldiers on the bar / 2 (the other classes' bar places are in the slots)
 16,17  P's / O's checkers borne off / 15
    18  race: no contact left (every P checker below every O checker, both bars empty; a
        trapped checker is contact) -- the position class the phase nets read
Landing (for the units above): a non-Guard checker may land on a column with fewer than 5
checkers unless the other side holds it or has a lone Guard on top.
size 24 * 50 + 12 * 29 + 19 = 1567
"""

from __future__ import annotations

import numpy as np

from ..engine.abak import board as ab
from . import FeatureSet, Packing, abak_expert_compiled
from .abak import _UNITS as _STACK_UNITS

N_COL_UNITS, N_SPECIAL_UNITS, N_DENSE, N_SLOTS = 50, 29, 19, 12
SPECIAL0 = 24 * N_COL_UNITS                          # 1200
DENSE0 = SPECIAL0 + N_SLOTS * N_SPECIAL_UNITS        # 1548
SIZE = DENSE0 + N_DENSE                              # 1567
RACE_UNIT = DENSE0 + 18
N_CODES = 24 + N_SLOTS
PACKED_SIZE = N_CODES + N_DENSE                      # 55
MID = slice(6, 18)                                   # points 7..18
HOME_BITS = np.int32(0b111111 | (0b111111 << 18))    # both home boards (a Druid hits there)
MID_BITS = np.int32(0b111111111111 << 6)
BAR_PLACE, OFF_PLACE = 24, 25


# -- column codes -----------------------------------------------------------------------------
def _column_tables():
    """Every column content -> a small code; per code its facts and its 50 units.

    KEY_CODE [13^5]: key = sum_h (slot_h + 6) * 13^h -> code (-1 for impossible contents).
    INFO [n_codes, 10] int8: height, top side (+1 P, -1 O, 0 empty), top run, P count, O count,
    P trapped, O trapped, top class, highest P slot, highest O slot (-1: none). UNITS [24, n_codes, 50]. PROPS [n_codes, 16] bool: the
    column properties the dense units read as 24-bit masks (see _PROP)."""
    keys = np.arange(13 ** 5)
    slots = np.stack([(keys // 13 ** h) % 13 - 6 for h in range(ab.HEIGHT)], 1)     # [K, 5]
    occ = slots != 0
    height = occ.sum(1)
    gapless = (occ[:, :-1] | ~occ[:, 1:]).all(1)
    colour = (slots > 0) * 1 + (slots < 0) * 2
    pattern = colour @ (3 ** np.arange(ab.HEIGHT))
    top = slots[np.arange(keys.size), np.maximum(height - 1, 0)]
    top_class = np.where(height > 0, np.abs(top), 0)
    pairs = np.where(gapless, pattern * 7 + top_class, -1)
    uniq, inverse = np.unique(pairs[pairs >= 0], return_inverse=True)
    key_code = np.full(keys.size, -1, dtype=np.int16)
    key_code[pairs >= 0] = inverse
    n = uniq.size
    info = np.zeros((n, 10), dtype=np.int8)
    units = np.zeros((24, n, N_COL_UNITS), dtype=np.float32)
    for code, pc in enumerate(uniq):
        pat, cls = divmod(int(pc), 7)
        s = [(pat // 3 ** h) % 3 for h in range(ab.HEIGHT)]
        h = sum(1 for v in s if v)
        side = {0: 0, 1: 1, 2: -1}[s[h - 1] if h else 0]
        run = 0
        for k in range(h - 1, -1, -1):
            if {1: 1, 2: -1}[s[k]] != side:
                break
            run += 1
        mine = [k for k in range(h) if s[k] == 1]
        theirs = [k for k in range(h) if s[k] == 2]
        hm, ht = max(mine, default=-1), max(theirs, default=-1)
        info[code] = (h, side, run, len(mine), len(theirs), sum(k < ht for k in mine),
                      sum(k < hm for k in theirs), cls, hm, ht)
        u = units[:, code]
        u[:, :35] = _STACK_UNITS[pat * 7 + cls]
        for base, who in ((35, 1), (38, -1)):
            if side == who:
                u[:, base] = run >= 2 or cls == ab.GUARD
                u[:, base + 1] = run == 1 and cls != ab.GUARD
                u[:, base + 2] = run == 1 and cls == ab.GUARD
        u[:, 41] = h == ab.HEIGHT - 1
        u[MID, 42] = side == -1 and run == 1
        u[MID, 43] = side == 1 and run == 1
        tr_p, tr_o = sum(k < ht for k in mine), sum(k < hm for k in theirs)
        u[:, 44] = tr_p / 2.0 if side == -1 and run == 1 else 0.0
        u[:, 45] = tr_p / 2.0 if side == -1 and run >= 2 else 0.0
        u[:, 46] = tr_o / 2.0 if side == 1 and run == 1 else 0.0
        u[:, 47] = tr_o / 2.0 if side == 1 and run >= 2 else 0.0
        below = s[h - 2] if h >= 2 else 0
        u[:, 48] = side == 1 and cls == ab.DRUID and below == 2
        u[:, 49] = side == -1 and cls == ab.DRUID and below == 1
    return key_code, info, units


KEY_CODE, INFO, COLUMN_UNITS = _column_tables()
N_COLUMN_CODES = COLUMN_UNITS.shape[1]               # 373
_KEY0 = int(6 * (13 ** ab.HEIGHT - 1) // 12)         # sum_h 6 * 13^h


def _props(info: np.ndarray) -> np.ndarray:
    h, side, run, cls = (info[:, i].astype(np.int64) for i in (0, 1, 2, 7))
    me, them = side == 1, side == -1
    one, guard = run == 1, cls == ab.GUARD
    held = run >= 2
    return np.stack([
        me & (held | guard),                  # 0 P holds
        them & (held | guard),                # 1 O holds
        me & one & ~guard,                    # 2 P blot
        me & one & guard,                     # 3 lone P Guard
        them & one & ~guard,                  # 4 O blot
        them & one & guard,                   # 5 lone O Guard
        h >= ab.HEIGHT,                       # 6 full
        them & np.isin(cls, (ab.SOLDIER, ab.GENERAL)),   # 7 O's Soldier/General on top
        them & (cls == ab.ODD),               # 8
        them & (cls == ab.EVEN),              # 9
        them & (cls == ab.DRUID),             # 10
        them & guard,                         # 11 O's Guard on top
        me & (cls == ab.GENERAL),             # 12 P's General on top
        me & (cls == ab.ODD),                 # 13
        me & (cls == ab.EVEN),                # 14
        them & (cls == ab.GENERAL),           # 15 O's General on top
        info[:, 3] > 0,                       # 16 P occupies
        info[:, 4] > 0,                       # 17 O occupies
    ], 1).astype(np.uint8)


PROPS = _props(INFO)
N_PROPS = PROPS.shape[1]


def _column_codes(boards: np.ndarray) -> np.ndarray:
    """int64 [N, 24] column codes (KEY_CODE of each column's key, by Horner's rule)."""
    n = boards.shape[0]
    st = boards[:, :ab.SLOTS].reshape(n, 24, ab.HEIGHT)
    key = st[..., ab.HEIGHT - 1].astype(np.int32)
    for h in range(ab.HEIGHT - 2, -1, -1):
        key = key * 13 + st[..., h]
    return KEY_CODE[key + _KEY0].astype(np.int64)


def _mask_table() -> np.ndarray:
    """uint64 [W, 24 * n_codes], W = N_PROPS / 2 words: entry (j, p * n_codes + c) holds
    property 2j of code c at bit p and property 2j + 1 at bit 24 + p; word 0 also holds, from
    bit 48 and bit 56, P's checkers there if p >= 6 and O's if p < 18. The sum of a position's
    24 entries is then its masks and both sides' counts outside their home boards (no carries:
    the bits are disjoint and a count is at most 15). Words of two masks halve the gathers."""
    assert N_PROPS % 2 == 0
    props = PROPS.astype(np.uint64)
    table = np.zeros((N_PROPS // 2, 24, N_COLUMN_CODES), dtype=np.uint64)
    for p in range(24):
        for k in range(N_PROPS):
            table[k // 2, p] |= props[:, k] << np.uint64(p + 24 * (k % 2))
        table[0, p] |= (INFO[:, 3] * (p >= 6)).astype(np.uint64) << np.uint64(48)
        table[0, p] |= (INFO[:, 4] * (p < 18)).astype(np.uint64) << np.uint64(56)
    return table.reshape(N_PROPS // 2, -1)


_MASK_TABLE = _mask_table()
_COL_OFFSETS = np.arange(24) * N_COLUMN_CODES
_LOW24, _SHIFT24 = np.uint64((1 << 24) - 1), np.uint64(24)


def _masks(codes: np.ndarray) -> np.ndarray:
    """int64 [N, N_PROPS + 2]: bit p of mask k = property k of column p; then P's and O's
    checkers outside their home boards (bar not included). Compiled where Numba is there (the
    piece pack's kernel uses, offered alone so the tests can compare it with _masks_numpy)."""
    if abak_expert_compiled.AVAILABLE:
        return abak_expert_compiled.masks(codes, _PROP_WORDS, _LIVE, _P_OUT, _O_OUT)
    return _masks_numpy(codes)


def _masks_numpy(codes: np.ndarray) -> np.ndarray:
    """_masks with NumPy array operations."""
    words = np.take(_MASK_TABLE, codes + _COL_OFFSETS, axis=1).sum(-1, dtype=np.uint64)   # [W, N]
    out = np.empty((codes.shape[0], N_PROPS + 2), dtype=np.int64)
    out[:, 0:N_PROPS:2] = (words & _LOW24).T
    out[:, 1:N_PROPS:2] = ((words >> _SHIFT24) & _LOW24).T
    out[:, N_PROPS] = (words[0] >> np.uint64(48)) & np.uint64(255)
    out[:, N_PROPS + 1] = words[0] >> np.uint64(56)
    return out


# -- special-checker codes --------------------------------------------------------------------
def _special_table() -> np.ndarray:
    """SPECIAL_UNITS [26 * 20, 29]: code = place * 20 + height * 4 + trapped * 2 + on top."""
    units = np.zeros((26 * 20, N_SPECIAL_UNITS), dtype=np.float32)
    for place in range(26):
        for h in range(ab.HEIGHT):
            for trapped in range(2):
                for top in range(2):
                    u = units[place * 20 + h * 4 + trapped * 2 + top]
                    u[place] = 1
                    u[26], u[27], u[28] = h / 4.0, trapped, top
    return units


SPECIAL_UNITS = _special_table()
N_SPECIAL_CODES = SPECIAL_UNITS.shape[0]            # 520
_SLOT_OF = np.array([-1, -1, 0, 1, -1, 2, 3])       # General, Druid, Odd, Even -> slots 0..3 (Guards apart)
_H = np.arange(ab.HEIGHT)


def _special_codes(boards: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """int16 [N, 12] place codes of the special slots (module docstring); compiled where Numba
    is there (abak_expert_compiled.special_codes), else _special_codes_numpy."""
    if abak_expert_compiled.AVAILABLE:
        return abak_expert_compiled.special_codes(boards, codes, _SPECIAL_PLACE, _SLOT_BY_VALUE, _SPECIAL_BAR_COLS,
                                                  BAR_PLACE * 20, OFF_PLACE * 20)
    return _special_codes_numpy(boards, codes)


def _special_codes_numpy(boards: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """_special_codes as array passes over the special checkers of the batch."""
    n = boards.shape[0]
    flat = np.ascontiguousarray(boards[:, :ab.SLOTS])
    idx = np.flatnonzero(flat.view(np.uint8) + np.uint8(1) > 2)     # |code| >= 2
    val = np.take(flat, idx).astype(np.int32)
    r, pos = np.divmod(idx, ab.SLOTS)
    theirs = val < 0
    cls = np.abs(val)
    p, h = np.divmod(pos, ab.HEIGHT)
    info = np.take(INFO, np.take(codes, r * 24 + p), axis=0)
    other_high = np.where(theirs, info[:, 8], info[:, 9])
    code = (p * 20 + h * 4 + (h < other_high) * 2 + (h == info[:, 0] - 1)).astype(np.int16)
    # defaults: on the bar if the bar holds that class, else borne off
    bars = boards[:, _SPECIAL_BAR_COLS].astype(np.int64)                 # [N, 10]: G D O E K, both sides
    out = np.where(bars[:, _SLOT_BAR] > _SLOT_BAR_RANK, BAR_PLACE * 20, OFF_PLACE * 20).astype(np.int16, order="C")
    slot = _SLOT_OF[cls] + 6 * theirs                                   # unique specials
    guard = cls == ab.GUARD
    for side in (0, 1):                                                 # Guards: on board first
        g = guard & (theirs == bool(side))
        rg = r[g]
        rank = np.arange(rg.size) - np.searchsorted(rg, rg)
        slot[g] = 6 * side + 4 + rank
        on = np.bincount(rg, minlength=n)
        for j in range(2):                                              # then bar, then off
            col = 6 * side + 4 + j
            out[:, col] = np.where(j < on + bars[:, 4 + 5 * side], BAR_PLACE * 20, OFF_PLACE * 20)
    out.reshape(-1)[r * N_SLOTS + slot] = code
    return out


# bar columns read for the slots' defaults, and which column / rank each slot reads
_SPECIAL_BAR_COLS = np.array([ab.BAR + c - 1 for c in (ab.GENERAL, ab.DRUID, ab.ODD, ab.EVEN, ab.GUARD)]
                             + [ab.OPP_BAR + c - 1 for c in (ab.GENERAL, ab.DRUID, ab.ODD, ab.EVEN, ab.GUARD)])
_SLOT_BAR = np.array([0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 9])
_SLOT_BAR_RANK = np.array([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1])


# -- the dense knowledge units ----------------------------------------------------------------
_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
_POP6 = np.array([bin(i).count("1") for i in range(64)], dtype=np.int64)
_M24 = np.int64((1 << 24) - 1)


def _bit_index(m: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each mask (-1 for 0)."""
    return np.frexp(m.astype(np.float64))[1].astype(np.int64) - 1


def _longest_run(m: np.ndarray) -> np.ndarray:
    longest = np.zeros(m.shape, dtype=np.int64)
    k = 0
    while m.any():
        k += 1
        longest[m != 0] = k
        m = m & (m >> 1)
    return longest


def _shots(M, on_bar):
    """_shots_numpy, compiled where Numba is there (abak_expert_compiled.py)."""
    if abak_expert_compiled.AVAILABLE:
        return abak_expert_compiled.shots(M, on_bar)
    return _shots_numpy(M, on_bar)


def _shots_numpy(M, on_bar):
    """(hit rolls, trap rolls) of 36 for O, the side on roll (masks in P's point order; O moves
    towards higher p). Counted: a checker on top of its column hitting a P blot with one die,
    or one checker using both dice (each step of a double) through points where it may land
    that hold no P blot; a Wounded only with dice of its parity; a Guard also hits a lone P
    Guard (any of those ways); a Jane (two different non-Guard checkers landing on a lone Guard, one die each, in a
    non-double); O's Druid traps on points 7..18 and hits in the home boards. With O checkers
    on the bar only entering hits count (entering with d lands on P's point d). Not counted:
    General backward hits and shots that need another checker to move first. An estimate of
    the danger for the net to refine, not a legality check."""
    M = M.astype(np.int32)           # 24-bit masks shifted by at most 6 at a time: 31 bits suffice
    blot, lg = M[:, 2], M[:, 3]
    sg, odd, even, dru, gd = M[:, 7], M[:, 8], M[:, 9], M[:, 10], M[:, 11]
    land = ~(M[:, 0] | M[:, 3] | M[:, 6]) & np.int32(_M24)     # O may land (non-Guard)
    via = land & ~blot
    D = _DIE[:, None]                                      # [6, 1]: the six dice
    plain = sg | np.where(D % 2 == 1, odd, even)           # [6, N] non-Druid non-Guard movers
    direct = ((((plain | gd) << D) & blot) | ((gd << D) & lg) | ((dru << D) & blot & HOME_BITS)) != 0
    trap1 = ((dru << D) & (blot | lg) & MID_BITS) != 0
    A, B = _ND_A[:, None], _ND_B[:, None]                  # the 15 non-doubles
    h = direct[A[:, 0] - 1] | direct[B[:, 0] - 1]
    t = trap1[A[:, 0] - 1] | trap1[B[:, 0] - 1]
    grp = sg | gd | np.where(_ND_ODD[:, None], odd, 0) | np.where(_ND_EVEN[:, None], even, 0)
    for d1, d2 in ((A, B), (B, A)):                        # one checker, both dice
        h |= ((((grp << d1) & via) << d2) & blot) != 0
        h |= ((((gd << d1) & via) << d2) & lg) != 0
        dv = ((dru << d1) & via) << d2
        h |= (dv & blot & HOME_BITS) != 0
        t |= (dv & (blot | lg) & MID_BITS) != 0
    h |= ((plain[A[:, 0] - 1] << A) & (plain[B[:, 0] - 1] << B) & lg) != 0     # a Jane
    hd, td = direct.copy(), trap1.copy()                   # doubles: 2, 3, 4 steps of one checker
    cur, cg, cd = plain | gd, gd, dru
    for _ in range(3):
        cur = (cur << D) & via
        cg = (cg << D) & via
        cd = (cd << D) & via
        hd |= (((cur << D) & blot) | ((cg << D) & lg) | ((cd << D) & blot & HOME_BITS)) != 0
        td |= ((cd << D) & (blot | lg) & MID_BITS) != 0
    hit = 2.0 * h.sum(0) + hd.sum(0)
    trap = 2.0 * t.sum(0) + td.sum(0)
    eb = ((blot >> (D - 1)) & 1) != 0                       # entering with d lands on P's point d
    enter = 2.0 * (eb[A[:, 0] - 1] | eb[B[:, 0] - 1]).sum(0) + eb.sum(0)
    return (np.where(on_bar, enter, hit) / 36.0).astype(np.float32), \
        (np.where(on_bar, 0.0, trap) / 36.0).astype(np.float32)


_DIE = np.arange(1, 7, dtype=np.int32)
_ND_A = np.array([a for a, b in _ROLLS if a != b], dtype=np.int32)
_ND_B = np.array([b for a, b in _ROLLS if a != b], dtype=np.int32)
_ND_ODD = (_ND_A % 2 == 1) & (_ND_B % 2 == 1)
_ND_EVEN = (_ND_A % 2 == 0) & (_ND_B % 2 == 0)


def _side_units(held, land, gen, odd, even, occ, n_out, bar_total, up: bool):
    """The 6 units of one side (module docstring, dense 0..5 or 6..11). Masks in P's point
    order; up=False for P (moving towards p = 0), True for O (towards p = 23)."""
    if up:      # mirror O's masks into its own point order, then one rule for both sides
        held, land, gen, odd, even, occ = (_reverse24(m) for m in (held, land, gen, odd, even, occ))
    n = held.shape[0]
    u = np.zeros((n, 6), dtype=np.float32)
    all_home = ((occ >> 6) == 0) & (bar_total == 0)
    u[:, 0] = all_home
    u[:, 1] = _longest_run(held) / 6.0
    g = _bit_index(gen)
    g_on = g >= 0
    gi = np.maximum(g, 0)
    outside = n_out + bar_total - np.where(g_on & (gi >= 6), 1, 0)
    may_back = g_on & (outside > 0)
    u[:, 2] = may_back
    u[:, 3] = np.where(may_back, _POP6[(land >> (gi + 1)) & 63], 0) / 6.0
    highest = _bit_index(occ)
    for j, (m, dice_bits) in enumerate(((odd, 0b101010), (even, 0b010101))):
        w = _bit_index(m)
        on = w >= 0
        wi = np.maximum(w, 0)
        window = ((land << 6) >> wi) & 63        # bit 6 - d: point w - d (0 below point 1)
        moves = _POP6[window & dice_bits]
        bear = np.where(all_home, _BEAR[j][wi, (highest == w).astype(np.int64)], 0)
        u[:, 4 + j] = np.where(on, moves + bear, 0) / 3.0
    return u


def _bear_table():
    """_BEAR[j][w, top]: dice of parity j (0 odd, 1 even) that bear a Wounded off from index w
    (exact: d = w + 1; larger: d > w + 1 when w is the highest occupied point)."""
    bear = np.zeros((2, 24, 2), dtype=np.int64)
    for w in range(24):
        for j, dice in enumerate(((1, 3, 5), (2, 4, 6))):
            for top in range(2):
                bear[j, w, top] = sum(1 for d in dice if d == w + 1 or (top and d > w + 1))
    return bear


_BEAR = _bear_table()
_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.int64)


def _reverse24(m: np.ndarray) -> np.ndarray:
    """Bit p -> bit 23 - p of 24-bit masks."""
    return (_REV8[m & 255] << 16) | (_REV8[(m >> 8) & 255] << 8) | _REV8[(m >> 16) & 255]


# -- the tables the compiled pack reads (abak_expert_compiled.py), each derived from the above ---
# [9 c + j]: code c's property 2j at bit 0 and 2j + 1 at bit 24 (a column's 18 masks in 9 words)
_PROP_WORDS = (PROPS[:, 0::2].astype(np.int64) | (PROPS[:, 1::2].astype(np.int64) << 24)).reshape(-1)
_P_OUT, _O_OUT = INFO[:, 3].astype(np.int64), INFO[:, 4].astype(np.int64)   # code -> P's, O's checkers
_LIVE = (PROPS.any(1) | (_P_OUT > 0) | (_O_OUT > 0)).astype(np.int64)        # code -> enters the masks at all


def _key_code_special() -> np.ndarray:
    """int16 [13^5]: KEY_CODE | (bit h: slot h holds a special checker) << 9 | (the code enters
    the masks: _LIVE) << 14, -1 where KEY_CODE is: the compiled pack reads what it needs of a
    column in one lookup."""
    keys = np.arange(13 ** ab.HEIGHT)
    special = sum((np.abs((keys // 13 ** h) % 13 - 6) >= 2).astype(np.int64) << h for h in range(ab.HEIGHT))
    assert N_COLUMN_CODES <= 512
    code = KEY_CODE.astype(np.int64)
    return np.where(code >= 0, code | (special << 9) | (_LIVE[code] << 14), -1).astype(np.int16)


_KEY_CODE_SPECIAL = _key_code_special()

# [(5 c + h) * 2 + theirs]: the place code less 20 p of P's (theirs 0) or O's checker in slot h of a
# column of code c, as _special_codes_numpy works it out (height, trapped, on top)
_SPECIAL_PLACE = np.array([h * 4 + 2 * (h < INFO[c, 8 + (1 - t)]) + (h == INFO[c, 0] - 1)
                           for c in range(N_COLUMN_CODES) for h in range(ab.HEIGHT) for t in (0, 1)], dtype=np.int64)
# slot of checker value v at [v + 6] (a side's first Guard slot for its Guards; 0 for Soldiers)
_SLOT_BY_VALUE = np.array([0 if abs(v) < 2 else (4 if abs(v) == ab.GUARD else _SLOT_OF[abs(v)]) + 6 * (v < 0)
                           for v in range(-6, 7)], dtype=np.int64)


def pack(boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
    """float32 [N, 55]: 24 column codes, 12 special codes, 19 dense units (module docstring).
    One compiled loop over the batch where Numba is there (abak_expert_compiled.pack: the same
    rows, several times faster), else _pack_numpy. `again` does not enter the encoding."""
    if abak_expert_compiled.AVAILABLE:
        return abak_expert_compiled.pack(np.asarray(boards), _KEY_CODE_SPECIAL, _KEY0, _SPECIAL_PLACE, _PROP_WORDS,
                                         _P_OUT, _O_OUT, _SLOT_BY_VALUE, _SPECIAL_BAR_COLS, BAR_PLACE * 20,
                                         OFF_PLACE * 20, _REV8, _POP6, _BEAR)
    return _pack_numpy(boards)


def _pack_numpy(boards: np.ndarray) -> np.ndarray:
    """pack with NumPy array passes over the batch only: the fallback without Numba and the
    reference the compiled pack is tested against."""
    boards = np.asarray(boards)
    n = boards.shape[0]
    codes = _column_codes(boards)
    out = np.empty((n, PACKED_SIZE), dtype=np.float32)
    out[:, :24] = codes
    out[:, 24:N_CODES] = _special_codes_numpy(boards, codes)
    M = _masks_numpy(codes)
    bar_p = boards[:, ab.BAR:ab.BAR + 6].astype(np.int64)
    bar_o = boards[:, ab.OPP_BAR:ab.OPP_BAR + 6].astype(np.int64)
    tp, to = bar_p.sum(1), bar_o.sum(1)
    d = out[:, N_CODES:]
    land_p = ~(M[:, 1] | M[:, 5] | M[:, 6]) & _M24
    land_o = ~(M[:, 0] | M[:, 3] | M[:, 6]) & _M24
    d[:, 0:6] = _side_units(M[:, 0], land_p, M[:, 12], M[:, 13], M[:, 14], M[:, 16], M[:, N_PROPS], tp, up=False)
    d[:, 6:12] = _side_units(M[:, 1], land_o, M[:, 15], M[:, 8], M[:, 9], M[:, 17], M[:, N_PROPS + 1], to, up=True)
    d[:, 12], d[:, 13] = _shots_numpy(M, to > 0)
    d[:, 14] = bar_p[:, ab.SOLDIER - 1] / 2.0
    d[:, 15] = bar_o[:, ab.SOLDIER - 1] / 2.0
    d[:, 16] = boards[:, ab.OFF] / 15.0
    d[:, 17] = boards[:, ab.OPP_OFF] / 15.0
    lowest_o = _bit_index(M[:, 17] & -M[:, 17])
    d[:, 18] = (_bit_index(M[:, 16]) < np.where(M[:, 17] != 0, lowest_o, 24)) & (tp + to == 0)
    return out


def unpack(packed: np.ndarray) -> np.ndarray:
    """The dense float32 [N, 1567] encoding of packed rows."""
    packed = np.asarray(packed, dtype=np.float32)
    n = packed.shape[0]
    out = np.empty((n, SIZE), dtype=np.float32)
    codes = packed[:, :24].astype(np.intp)
    out[:, :SPECIAL0] = COLUMN_UNITS[np.arange(24), codes].reshape(n, SPECIAL0)
    out[:, SPECIAL0:DENSE0] = SPECIAL_UNITS[packed[:, 24:N_CODES].astype(np.intp)].reshape(n, DENSE0 - SPECIAL0)
    out[:, DENSE0:] = packed[:, N_CODES:]
    return out


def encode(boards: np.ndarray, again: np.ndarray) -> np.ndarray:
    return unpack(pack(boards, again))


def first_layer_tables(weight):
    """[24 * 373 + 12 * 520, H] for a first layer W [H, 1567]: row p * 373 + c is W_p @
    COLUMN[p][c], row 24 * 373 + k * 520 + s is W_k @ SPECIAL[s]. A packed row's W @ x is the
    sum of its 36 rows (codes + OFFSETS) plus W[:, DENSE0:] @ its dense units."""
    import torch   # only the scorer calls this; the encoding itself stays NumPy-only
    w = weight.detach()
    hidden = w.shape[0]
    col = torch.bmm(torch.from_numpy(COLUMN_UNITS).to(w.device), w[:, :SPECIAL0].reshape(hidden, 24, N_COL_UNITS).permute(1, 2, 0))
    ws = w[:, SPECIAL0:DENSE0].reshape(hidden, N_SLOTS, N_SPECIAL_UNITS).permute(1, 2, 0)   # [12, 29, H]
    spc = torch.matmul(torch.from_numpy(SPECIAL_UNITS).to(w.device), ws)                                        # [12, 520, H]
    return torch.cat([col.reshape(-1, hidden), spc.reshape(-1, hidden)])


OFFSETS = np.concatenate([np.arange(24) * N_COLUMN_CODES,
                          24 * N_COLUMN_CODES + np.arange(N_SLOTS) * N_SPECIAL_CODES]).astype(np.int64)

ABAK_EXPERT = FeatureSet("abak_expert", 1, SIZE, ("abak",), ab.WIDTH, encode, class_unit=RACE_UNIT,
                         packing=Packing(PACKED_SIZE, N_CODES, pack, unpack, first_layer_tables, OFFSETS))
