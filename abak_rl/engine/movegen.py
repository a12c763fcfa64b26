"""Batched legal-move generation for the classic variants (standard, Nackgammon, Acey-deucey).

B positions and B rolls go in; every distinct legal afterstate of all of them comes out at once
(`Afterstates`), with no Python loop over positions or checkers. Why it is fast:

* A partial play is a few integers, not a board: its root position, its move codes, `own`
  (bitmask of the sources holding a mover's checker: bits 0..23 points, 24 the bar, 25 the
  Acey-deucey pool) and `blots` (opposing blots not yet hit). `open` (points a checker may land
  on) cannot change within a turn, so it is computed once per position. Legal sources for die d
  are six integer ops and two table reads (`_sources`).
* Doubles and non-doubles go through the same layers (non-doubles first, doubles after, so each
  kind is a slice): one set of NumPy calls per layer for both, which is what costs at small
  batches.
* No board is built while playing. A play's afterstate is its root row plus the change of its
  first two moves, read from one table of move pairs (`_PAIR_DELTA`); doubles of three or four
  moves start from their materialized two-move row. So every output row is made exactly once,
  in output order, by one gather and one add.
* Doubles are played with sources in non-increasing order. Every legal play can be reordered
  that way, and two different multisets of same-die moves always leave different boards (the
  moves can be read back from the board change, top down), so doubles need no deduplication.
* A non-double a-b is played a-then-b in full, and b-then-a only where the a-move was not
  already legal at the start (otherwise a-then-b reaches the same play). Two different plays
  can then leave the same board only if one checker moved both dice, both dice bore off, or
  both entered (bar and pool: the dice may swap); whether a move pair is such a "suspect" is a
  table read. Only suspects are deduplicated: one sort of a 64-bit key made of the hash of the
  pair's board change and the position, pairs compared in full where keys meet (exact: a real
  collision falls back to sorting rows).
* Rows are gathered with np.take (several times faster than fancy indexing of 2-D int8), and
  glibc is asked to keep freed memory (common.keep_freed_memory): page faults otherwise cost
  more than the work.

Without play notation every classic position goes to the compiled generator
(movegen_compiled.py: the same rules one position at a time in one Numba loop, 2-9x faster,
most at small batches); these NumPy layers serve `with_plays` (and run without Numba) and are
checked against it.

Acey-deucey's 1-2 is a 1-2 play followed by a double of the mover's choice: the afterstates are
the union over the six doubles (the use-as-many-dice rules apply to each part on its own).
A chooser may ask for only the part of the union under some of the 1-2 plays (one_two_filter:
self-play scores the 1-2 plays first and expands the doubles under the best few).
"""

from __future__ import annotations

import numpy as np

from .board import BAR, N_POINTS, OFF, OPP_BAR, POOL, WIDTH
from . import movegen_compiled
from .common import Afterstates, dedup_hashed, keep_freed_memory

keep_freed_memory()  # see its docstring: page faults otherwise dominate the run time

PAD = 32  # internal row width in bytes
ONE_TWO_CHUNK = 16  # Acey-deucey 1-2 positions handled together (memory ~ 16 x 10^5 rows)
SRC_BAR, SRC_POOL = 24, 25  # source bits; 0..23 are the points
N_SRC = 26
_SRC_COL = np.array(list(range(N_POINTS)) + [BAR, POOL])
_BAR_BIT, _POOL_BIT = 1 << SRC_BAR, 1 << SRC_POOL
_ALL = (1 << N_SRC) - 1
N_CODES = N_SRC * 14 + 1  # move codes src * 14 + (die - 1) * 2 + hit, and NULL (no move)
NULL = N_CODES - 1
NULL_PAIR = NULL * N_CODES + NULL


def _code(src, die, hit):
    return src * 14 + (die - 1) * 2 + hit


def _build_tables():
    """Per move code: row change, landing index (-1 off, -2 none), source; bear-off sources."""
    delta = np.zeros((N_CODES, PAD), dtype=np.int8)
    dest = np.full(N_CODES, -2, dtype=np.int64)
    src_of = np.full(N_CODES, -1, dtype=np.int64)
    for src in range(N_SRC):
        for die in range(1, 7):
            for hit in (0, 1):
                c = _code(src, die, hit)
                src_of[c] = src
                delta[c, _SRC_COL[src]] -= 1
                to = (24 if src >= 24 else src) - die
                if to >= 0:
                    delta[c, to] += 1 + hit
                    delta[c, OPP_BAR] += hit
                    dest[c] = to
                else:
                    delta[c, OFF] += 1
                    dest[c] = -1
    # BEAR[die * 65 + own]: sources that may bear off with that die when `own` < 64 (every
    # checker home): the exact point, or the highest point when the die is larger; 0 at own 64
    bear = np.zeros(7 * 65, dtype=np.int64)
    for die in range(1, 7):
        for low in range(1, 64):
            m = low & (1 << (die - 1))
            high = low.bit_length() - 1
            if high < die - 1:
                m |= 1 << high
            bear[die * 65 + low] = m
    return delta, dest, src_of, bear


_DELTA, _DEST, _SRC_OF, _BEAR = _build_tables()
_DEST_BIT = np.where(_DEST >= 0, np.int64(1) << np.maximum(_DEST, 0), 0)
_DELTA_FLAT = _DELTA.reshape(-1)
_ROOT_MASKS = np.array([_ALL >> 1, 0xFFFFFF, 0xFFFFFF, _ALL >> 1], dtype=np.int64)  # own, open,
# blots, single: the points (and the bar for own and single) of the flags of rows > 0 etc.
# _BARSEL[own >> 24]: with a checker on the bar only the bar may move
_BARSEL = np.array([_ALL, _BAR_BIT, _ALL, _BAR_BIT], dtype=np.int64)
# _LIMIT[src]: sources a double may use after a move from src (non-increasing: bar > pool > 24..1)
_LIMIT = np.append((np.int64(2) << np.arange(N_POINTS, dtype=np.int64)) - 1,
                   [_ALL, _ALL & ~_BAR_BIT])


def _pair_tables():
    """Tables over move pairs q = c1 * N_CODES + c2: board change, its hash, "suspect" flag."""
    pair = (_DELTA[:, None, :] + _DELTA[None, :, :]).reshape(-1, PAD)
    h = _row_hash(pair)
    s1, d1 = np.repeat(_SRC_OF, N_CODES), np.repeat(_DEST, N_CODES)
    s2, d2 = np.tile(_SRC_OF, N_CODES), np.tile(_DEST, N_CODES)
    suspect = ((s2 == d1) | (s1 == d2) | ((d1 == -1) & (d2 == -1)) | ((s1 >= 24) & (s2 >= 24)))
    return pair, h, suspect


_WORD_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                       0xD6E8FEB86659FD93], dtype=np.uint64)
_MIX = np.uint64(0xD6E8FEB86659FD93)


def _row_hash(rows: np.ndarray) -> np.ndarray:
    """64-bit hash of [N, PAD] int8 rows, from their four 8-byte words (array ops wrap)."""
    w = rows.view(np.uint64)
    h = (w[:, 0] * _WORD_MULT[0] + w[:, 1] * _WORD_MULT[1] + w[:, 2] * _WORD_MULT[2]
         + w[:, 3] * _WORD_MULT[3])
    return h ^ (h >> np.uint64(31))


_PAIR_DELTA, _PAIR_HASH, _PAIR_SUSPECT = _pair_tables()


def _pair_classes():
    """Per move pair, the id of its board change (equal ids = equal changes), and the number of
    ids. Ids come from the change's hash, checked here against the changes themselves (a hash
    collision between two different changes falls back to sorting the changes)."""
    _, ids = np.unique(_PAIR_HASH, return_inverse=True)
    words = _PAIR_DELTA.view(np.uint64)
    order = np.argsort(ids, kind="stable")
    w, c = words.take(order, axis=0), ids.take(order)
    same = c[1:] == c[:-1]
    if not (w[1:][same] == w[:-1][same]).all():
        order = np.lexsort(words.T[::-1])
        w = words.take(order, axis=0)
        ids = np.empty(order.size, np.int64)
        ids[order] = np.concatenate(([0], np.cumsum((w[1:] != w[:-1]).any(axis=1))))
    return ids.astype(np.int64), int(ids.max()) + 1


_PAIR_CLASS, _N_CLASSES = _pair_classes()


def _masks(flags: np.ndarray) -> np.ndarray:
    """[B, k, 32] bool -> [B, k] int64 bitmasks (bit i = column i): one packbits of the flat
    array (twice as fast as packbits along an axis)."""
    return np.packbits(flags.reshape(-1), bitorder="little").view("<u4").reshape(
        flags.shape[:2]).astype(np.int64)


def _sources(own, open_, die, pool, enter_all):
    """Bitmask of the sources a movement of `die` may start from, per state.

    own & (open << die) is every point and bar source whose landing point is open (the bar's bit
    24 lands on 24 - die); the bear-off table adds bear-offs when every checker is home, the
    bar table keeps only the bar when a checker is on it. The pool (bit 25, Acey-deucey) enters
    like the bar but with no precedence; it is handled only when some state has one.
    """
    m = (own & (open_ << die)) | _BEAR.take(die * 65 + np.minimum(own, 64))
    if pool:
        entry = ((open_ >> (24 - die)) & 1) << SRC_POOL
        m = (m & ~_POOL_BIT) | (own & entry)
        if enter_all:
            m = np.where(own & _POOL_BIT, (own & entry) | (m & _BAR_BIT), m)
    return m & _BARSEL.take(own >> SRC_BAR)


def _hits(blots, die, pool):
    """Per state, a mask whose bit s says that a move of `die` from source s hits a blot."""
    h = blots << die
    if pool:
        h = (h & ~_POOL_BIT) | ((h & _BAR_BIT) << 1)  # the pool lands where the bar does
    return h


def _bits(L: np.ndarray, own=None):
    """(state, source) of every set bit of 26-bit masks, by state then source (common.set_bits
    without its generality: this runs four times a call).

    Large arrays without a pool read three bytes a mask instead of four (nonzero() costs per
    bit scanned): a state with a checker on the bar can only move from the bar, so its bar bit
    is read as bit 23 and put back from `own`.
    """
    if own is None or L.size < 16384:
        idx = np.unpackbits(L.astype(np.uint32).view(np.uint8), bitorder="little").view(bool)
        idx = idx.nonzero()[0]
        return idx >> 5, idx & 31
    L = (L & 0xFFFFFF) | ((L >> 1) & 0x800000)
    u = L.astype(np.uint32).view(np.uint8).reshape(-1, 4)[:, :3]
    idx = np.unpackbits(u, axis=1, bitorder="little").reshape(-1).view(bool).nonzero()[0]
    i = idx // 24
    return i, idx % 24 + (own >> SRC_BAR).take(i)


def _root_masks(rows: np.ndarray, pool: bool):
    """(own, open, blots, single) bitmasks of rows [B, PAD]: the mover's sources, the points it
    may land on, the opposing blots, the sources holding exactly one checker."""
    m = _masks(np.stack([rows > 0, rows >= -1, rows == -1, rows == 1], axis=1)) & _ROOT_MASKS
    own_r, open_r, blots_r, single_r = np.ascontiguousarray(m.T)  # single: one checker there
    if pool:
        own_r |= (rows[:, POOL] > 0).astype(np.int64) << SRC_POOL
        single_r |= (rows[:, POOL] == 1).astype(np.int64) << SRC_POOL
    return own_r, open_r, blots_r, single_r


def can_move_some_die(boards: np.ndarray, enter_all_before_moving: bool = False) -> np.ndarray:
    """True where the player to move can make one movement with some die 1..6.

    That is exactly "some roll has a legal play": every play starts with one movement of one
    of its dice from the position itself (Acey-deucey's 1-2 too: its 1 or its 2, or, with no
    1-2 movement, the first movement of the chosen double), and a die d that can move makes
    the roll d-d playable. Six mask computations, no afterstates: the deadlock check after a
    pass (engine.deadlock) used to generate all 21 rolls. Compiled (movegen_compiled) when Numba
    is there: the NumPy masks cost more than a tenth of a millisecond a call."""
    if movegen_compiled.AVAILABLE:
        return movegen_compiled.can_move_some_die(boards, enter_all_before_moving)
    return can_move_some_die_numpy(boards, enter_all_before_moving)


def can_move_some_die_numpy(boards: np.ndarray, enter_all_before_moving: bool = False) -> np.ndarray:
    """can_move_some_die as six mask computations over the batch."""
    boards = np.asarray(boards, dtype=np.int8)
    rows = np.zeros((boards.shape[0], PAD), dtype=np.int8)
    rows[:, :WIDTH] = boards
    pool = bool(rows[:, POOL].any())
    own, open_, _, _ = _root_masks(rows, pool)
    movable = np.zeros(boards.shape[0], dtype=bool)
    for die in range(1, 7):
        movable |= _sources(own, open_, np.int64(die), pool, enter_all_before_moving) != 0
    return movable


def _generate(rows: np.ndarray, dice: np.ndarray, enter_all: bool, track: bool):
    """All distinct afterstates of rows [B, PAD] and dice [B, 2] (no Acey-deucey 1-2 rule).

    Returns (parent, out rows [N, PAD], codes [N, 4] or None), parent non-decreasing. Without
    play notation the compiled generator answers (movegen_compiled.py), else these layers.
    """
    if movegen_compiled.AVAILABLE and not track:
        parent, out = movegen_compiled.generate(rows, dice, enter_all)
        return parent, out, None
    return _generate_layers(rows, dice, enter_all, track)


def _generate_layers(rows: np.ndarray, dice: np.ndarray, enter_all: bool, track: bool):
    """_generate with NumPy array layers (play notation; the path without Numba)."""
    B = rows.shape[0]
    rows_flat = rows.reshape(-1)
    pool = bool(rows[:, POOL].any())
    own_r, open_r, blots_r, single_r = _root_masks(rows, pool)
    src_col = _SRC_COL if pool else None

    # layer 0: a non-double is two states (a then b, b then a), a double one; non-doubles first
    d = dice.astype(np.int64)
    dbl = d[:, 0] == d[:, 1]
    perm = np.argsort(dbl, kind="stable")
    n = B - int(np.count_nonzero(dbl))
    ds = d.take(perm, axis=0)
    n_nd = 2 * n
    par0 = np.concatenate([perm[:n].repeat(2), perm[n:]])
    die0 = np.concatenate([ds[:n].reshape(-1), ds[n:, 0]])
    nxt0 = np.concatenate([ds[:n, ::-1].reshape(-1), ds[n:, 0]])  # die of the next movement
    own0 = own_r.take(par0)
    open0 = open_r.take(par0)
    L0 = _sources(own0, open0, die0, pool, enter_all)
    lim0 = np.full(par0.size, _ALL, np.int64)
    lim0[1:n_nd:2] = ~L0[0:n_nd:2]  # b then a may not use, second, an a-move legal at the start
    most = np.zeros(B, np.int8)  # most movements any play of the position makes

    # layer 1: one movement made
    i, src = _bits(L0, None if pool else own0)
    par1 = par0.take(i)
    most[par1] = 1
    split1 = int(np.searchsorted(i, n_nd))  # non-double states come first
    c1 = src * 14 + ((die0 - 1) * 2).take(i) + ((_hits(blots_r.take(par0), die0, pool).take(i)
                                                 >> src) & 1)
    dest_bit = _DEST_BIT.take(c1)
    own1 = (own0.take(i) & ~(single_r.take(par1) & (1 << src))) | dest_bit
    blots1 = blots_r.take(par1) & ~dest_bit
    die1 = nxt0.take(i)
    lim1 = lim0.take(i)
    lim1[split1:] = _LIMIT.take(src[split1:])
    open1 = open_r.take(par1)
    L1 = _sources(own1, open1, die1, pool, enter_all) & lim1

    # layer 2: non-doubles end here (pairs q = c1 * N_CODES + c2); doubles go on
    j, src2 = _bits(L1, None if pool else own1)
    par2 = par1.take(j)
    most[par2] = 2
    split2 = int(np.searchsorted(j, split1))
    # the pair code c1 * N_CODES + c2 with c2 = src2 * 14 + (die - 1) * 2 + hit, the part
    # known per state added before the gather
    q2 = ((c1 * N_CODES + (die1 - 1) * 2).take(j) + src2 * 14
          + ((_hits(blots1, die1, pool).take(j) >> src2) & 1))

    finals = []  # (parent, base row index, pair, first pair of a long double) per group
    # one-movement plays
    stop1 = np.flatnonzero(L1 == 0)
    if stop1.size:
        stop1 = stop1[most.take(par1.take(stop1)) == 1]
        n1 = int(np.searchsorted(stop1, split1))
        if n1:  # non-doubles: the larger die when some play can use it
            s = stop1[:n1]
            p = par1.take(s)
            large = d[p].max(axis=1) == die0.take(i.take(s))
            has_large = np.zeros(B, bool)
            has_large[p[large]] = True
            stop1 = np.concatenate([s[large | ~has_large[p]], stop1[n1:]])
        p = par1.take(stop1)
        finals.append((p, p, c1.take(stop1) * N_CODES + NULL, None))

    # non-double pairs, the suspects deduplicated
    pn, qn = par2[:split2], q2[:split2]
    sus = np.flatnonzero(_PAIR_SUSPECT.take(qn))
    if sus.size > 1:
        drop = _duplicates(pn.take(sus), qn.take(sus))
        if drop.size:
            keep = np.ones(split2, bool)
            keep[sus.take(drop)] = False
            keep = np.flatnonzero(keep)
            pn, qn = pn.take(keep), qn.take(keep)
    finals.append((pn, pn, qn, None))

    pre = rows
    if split2 < j.size:  # doubles: up to two more movements
        k2 = j[split2:]
        par2d = par2[split2:]
        q12 = q2[split2:]
        c2d = q12 % N_CODES
        s2 = src2[split2:]
        col = s2 if src_col is None else src_col.take(s2)
        cnt = rows_flat.take(par2d * PAD + col) + _DELTA_FLAT.take(c1.take(k2) * PAD + col)
        db = _DEST_BIT.take(c2d)
        own2 = (own1.take(k2) & ~((cnt == 1).astype(np.int64) << s2)) | db
        blots2 = blots1.take(k2) & ~db
        die2 = die1.take(k2)
        L2 = _sources(own2, open1.take(k2), die2, pool, enter_all) & _LIMIT.take(s2)
        # the two-movement rows of doubles, for their third and fourth movements
        n2 = par2d.size
        pre = np.empty((B + n2, PAD), np.int8)
        pre[:B] = rows
        np.take(rows, par2d, axis=0, out=pre[B:])
        pre[B:] += _PAIR_DELTA.take(q12, axis=0)
        pre_flat = pre.reshape(-1)
        # layer 3
        k3, s3 = _bits(L2, None if pool else own2)
        par3 = par2d.take(k3)
        most[par3] = 3
        stop2 = np.flatnonzero(L2 == 0)
        if stop2.size:
            stop2 = stop2[most.take(par2d.take(stop2)) == 2]
            p = par2d.take(stop2)
            finals.append((p, p, q12.take(stop2), None))
        die3 = die2.take(k3)
        c3 = s3 * 14 + (die3 - 1) * 2 + ((_hits(blots2, die2, pool).take(k3) >> s3) & 1)
        base3 = B + k3
        col = s3 if src_col is None else src_col.take(s3)
        cnt = pre_flat.take(base3 * PAD + col)
        db = _DEST_BIT.take(c3)
        own3 = (own2.take(k3) & ~((cnt == 1).astype(np.int64) << s3)) | db
        blots3 = blots2.take(k3) & ~db
        L3 = _sources(own3, open_r.take(par3), die3, pool, enter_all) & _LIMIT.take(s3)
        # layer 4
        k4, s4 = _bits(L3, None if pool else own3)
        if k4.size:
            most[par3.take(k4)] = 4
        stop3 = np.flatnonzero(L3 == 0)
        if stop3.size:
            stop3 = stop3[most.take(par3.take(stop3)) == 3]
            finals.append((par3.take(stop3), base3.take(stop3), c3.take(stop3) * N_CODES + NULL,
                           q12.take(k3.take(stop3)) if track else None))
        if k4.size:
            q34 = ((c3 * N_CODES + (die3 - 1) * 2).take(k4) + s4 * 14
                   + ((_hits(blots3, die3, pool).take(k4) >> s4) & 1))
            finals.append((par3.take(k4), base3.take(k4), q34,
                           q12.take(k3.take(k4)) if track else None))
    # positions with no legal movement: the position itself
    none = np.flatnonzero(most == 0)
    if none.size:
        finals.append((none, none, np.full(none.size, NULL_PAIR), None))

    # every position's plays form one block of one group: order the blocks by parent
    order = None
    finals = [f for f in finals if f[0].size] or finals[:1]
    parent = np.concatenate([f[0] for f in finals])
    base = np.concatenate([f[1] for f in finals])
    pair = np.concatenate([f[2] for f in finals])
    if len(finals) > 1 or (parent[1:] < parent[:-1]).any():
        # each group is a few sorted runs: a stable sort (timsort) merges them
        order = np.argsort(parent, kind="stable")
        parent, base, pair = parent.take(order), base.take(order), pair.take(order)
    out = pre.take(base, axis=0)
    out += _PAIR_DELTA.take(pair, axis=0)
    codes = None
    if track:
        first = np.concatenate([np.full(f[0].size, NULL_PAIR) if f[3] is None else f[3]
                                for f in finals])
        if order is not None:
            first = first.take(order)
        long = first != NULL_PAIR
        lead = np.where(long, first, pair)
        tail = np.where(long, pair, NULL_PAIR)
        codes = np.stack([lead // N_CODES, lead % N_CODES, tail // N_CODES, tail % N_CODES], 1)
        codes[codes == NULL] = -1
    return parent, out, codes


def _duplicates(parent: np.ndarray, pair: np.ndarray) -> np.ndarray:
    """Indices of the (parent, pair) entries whose afterstate an earlier entry already has.

    Equal afterstates of one parent are equal pair changes, so (parent, change id) is an exact
    key. The entries come grouped by parent, which a stable sort (timsort) exploits: ~4x faster
    than quicksort here.
    """
    key = parent * _N_CLASSES + _PAIR_CLASS.take(pair)
    order = np.argsort(key, kind="stable")
    k = key.take(order)
    return order.take(np.flatnonzero(k[1:] == k[:-1]) + 1)


def legal_afterstates(boards: np.ndarray, dice: np.ndarray, *, with_plays: bool = False,
                      acey_deucey: bool = False, enter_all_before_moving: bool = False,
                      one_two_filter=None) -> Afterstates:
    """All distinct legal afterstates for a batch of classic positions and rolls.

    boards: int8 [B, 30] (see board.py), seen from the mover; dice: [B, 2] values 1..6.
    acey_deucey: a roll of 1-2 continues with a double of the mover's choice (union over the six).
    one_two_filter: None (the full union), or a function (boards [M, 30] of the distinct 1-2 plays'
    positions, parent [M] non-decreasing) -> bool mask [M] of those under which the six doubles
    are generated, at least one per parent: the 1-2 rows are then the part of the union under
    them (a chooser's pruning, model.scorer.one_two_filter; the rules are unchanged).
    """
    boards = np.asarray(boards, dtype=np.int8)
    dice = np.asarray(dice)
    if boards.ndim != 2 or boards.shape[1] != WIDTH:
        raise ValueError(f"boards must have shape [B, {WIDTH}], got {list(boards.shape)}")
    if dice.shape != (boards.shape[0], 2):
        raise ValueError(f"dice must have shape [{boards.shape[0]}, 2], got {list(dice.shape)}")
    if dice.size and (dice.min() < 1 or dice.max() > 6):
        raise ValueError("dice values must be in 1..6")
    B = boards.shape[0]
    if B == 0:
        return Afterstates(boards=boards.copy(), parent=np.zeros(0, np.int64),
                           plays=[] if with_plays else None)
    rows = np.zeros((B, PAD), dtype=np.int8)
    rows[:, :WIDTH] = boards
    is12 = None
    if acey_deucey:
        is12 = (dice.min(axis=1) == 1) & (dice.max(axis=1) == 2)
    if is12 is None or not is12.any():
        parent, out, codes = _generate(rows, dice, enter_all_before_moving, with_plays)
    else:
        rest = np.flatnonzero(~is12)
        parts = []
        if rest.size:
            p, r, c = _generate(rows.take(rest, axis=0), dice.take(rest, axis=0),
                                enter_all_before_moving, with_plays)
            parts.append((rest.take(p), r, c))
        twelve = np.flatnonzero(is12)
        for s in range(0, twelve.size, ONE_TWO_CHUNK):  # bounded memory: ~10^5 plays each
            t = twelve[s:s + ONE_TWO_CHUNK]
            p, r, c = _one_two_then_double(rows.take(t, axis=0), enter_all_before_moving,
                                           with_plays, one_two_filter)
            parts.append((t.take(p), r, c))
        parent = np.concatenate([p for p, _, _ in parts])
        order = np.argsort(parent, kind="stable")
        parent = parent.take(order)
        out = np.concatenate([r for _, r, _ in parts]).take(order, axis=0)
        codes = None
        if with_plays:
            w = max(c.shape[1] for _, _, c in parts)
            codes = np.concatenate([np.pad(c, ((0, 0), (0, w - c.shape[1])), constant_values=-1)
                                    for _, _, c in parts])[order]
    plays = None if codes is None else [format_play(c) for c in codes]
    return Afterstates(boards=out[:, :WIDTH], parent=parent, plays=plays)


def _one_two_then_double(rows, enter_all, track, select=None):
    """Acey-deucey 1-2: each distinct 1-2 afterstate (those `select` keeps, when given), then
    each of the six doubles from it; the union deduplicated per position."""
    n = rows.shape[0]
    p, r, codes = _generate(rows, np.tile(np.array([[1, 2]]), (n, 1)), enter_all, track)
    if select is not None:
        sel = np.flatnonzero(select(r[:, :WIDTH], p))
        if np.unique(p.take(sel)).size != n:
            raise ValueError("one_two_filter must keep at least one 1-2 play per position")
        p, r = p.take(sel), r.take(sel, axis=0)
        codes = None if codes is None else codes.take(sel, axis=0)
    dbl = np.tile(np.arange(1, 7), r.shape[0])
    p2, r2, codes2 = _generate(np.repeat(r, 6, axis=0), np.stack([dbl, dbl], 1), enter_all, track)
    parent = p.take(p2 // 6)
    if movegen_compiled.AVAILABLE:
        keep = movegen_compiled.first_of_each(parent, r2)
    else:
        keep = np.sort(dedup_hashed(parent, _row_hash(r2), r2))
    if track:
        codes2 = np.concatenate([codes.take(p2 // 6, axis=0), codes2], axis=1).take(keep, axis=0)
    return parent.take(keep), r2.take(keep, axis=0), codes2


def _point_name(src: int) -> str:
    return {SRC_BAR: "bar", SRC_POOL: "pool"}.get(src, str(src + 1))


def format_play(codes: np.ndarray) -> str:
    """Move codes -> standard notation: `24/18 13/11*`, `bar/22`, `6/off`; '' for no move."""
    parts = []
    # equal movements: the hitting one first (reversed below), since the first landing hits
    moves = sorted((int(c) for c in codes if 0 <= c < NULL),
                   key=lambda c: (_SRC_OF[c], _DEST[c], c % 2))
    for c in reversed(moves):
        src, dest, hit = int(_SRC_OF[c]), int(_DEST[c]), c % 2
        parts.append(f"{_point_name(src)}/{'off' if dest < 0 else dest + 1}{'*' if hit else ''}")
    return " ".join(parts)
