"""Batched legal-move generation for the classic variants (standard, Nackgammon, Acey-deucey).

B positions and B rolls go in; every distinct legal afterstate of all of them comes out at once
(`Afterstates`), with no Python loop over positions or checkers. Why it is fast:

* A partial play is a few integers, not a board: its parent, its last move code, `own` (bitmask
  of sources holding a mover's checker: bits 0..23 points, 24 the Acey-deucey pool, 25 the bar)
  and `blots` (opposing blots not yet hit). `open` (points a checker may land on) cannot change
  within a turn, so it is computed once per position. Legal sources for die d are a handful of
  integer ops (see `_sources`); rows are only built for the plays that are kept.
* Doubles are played with sources in non-increasing order. Every legal play can be reordered
  that way, and two different multisets of same-die moves always leave different boards (the
  moves can be read back from the board change, top down), so doubles need no deduplication.
* A non-double a-b is played a-then-b in full, and b-then-a only where the a-move was not
  already legal at the start (otherwise a-then-b reaches the same play). Two different plays
  can then leave the same board only if one checker moved both dice, both dice bore off, or
  both entered (bar and pool: the dice may swap). Only those "suspects" are deduplicated: one
  sort of a 64-bit hash per row, full rows compared where hashes meet (exact: a real hash
  collision falls back to sorting whole rows).
* Rows are gathered with np.take (several times faster than fancy indexing of 2-D int8), and
  glibc is asked to keep freed memory (common.keep_freed_memory): page faults otherwise cost
  more than the work.

Acey-deucey's 1-2 is a 1-2 play followed by a double of the mover's choice: the afterstates are
the union over the six doubles (the use-as-many-dice rules apply to each part on its own).
"""

from __future__ import annotations

import numpy as np

from .board import BAR, N_POINTS, OFF, OPP_BAR, POOL, WIDTH
from .common import Afterstates, dedup_hashed, keep_freed_memory, set_bits

keep_freed_memory()  # see its docstring: page faults otherwise dominate the run time

PAD = 32  # internal row width in bytes
ONE_TWO_CHUNK = 16  # Acey-deucey 1-2 positions handled together (memory ~ 16 x 10^5 rows)
SRC_POOL, SRC_BAR = 24, 25
N_SRC = 26
_SRC_COL = np.array(list(range(N_POINTS)) + [POOL, BAR])
_POOL_BIT, _BAR_BIT = np.int64(1 << SRC_POOL), np.int64(1 << SRC_BAR)
_MASK24 = np.int64((1 << 24) - 1)


def _code(src, die, hit):
    return (src * 7 + die) * 2 + hit


def _build_tables():
    """DELTA[code]: row change of a movement; DEST[code]: landing index (-1 = off); BEAR."""
    delta = np.zeros((N_SRC * 14, PAD), dtype=np.int8)
    dest = np.full(N_SRC * 14, -1, dtype=np.int64)
    for src in range(N_SRC):
        for die in range(1, 7):
            for hit in (0, 1):
                c = _code(src, die, hit)
                delta[c, _SRC_COL[src]] -= 1
                to = (24 if src >= 24 else src) - die
                if to >= 0:
                    delta[c, to] += 1 + hit
                    delta[c, OPP_BAR] += hit
                    dest[c] = to
                else:
                    delta[c, OFF] += 1
    # BEAR[die * 64 + home mask]: sources that may bear off with that die (exact, or the highest
    # point when the die is larger than it)
    bear = np.zeros(7 * 64, dtype=np.int64)
    for die in range(1, 7):
        for low in range(1, 64):
            m = low & (1 << (die - 1))
            high = low.bit_length() - 1
            if high < die - 1:
                m |= 1 << high
            bear[die * 64 + low] = m
    return delta, dest, bear


_DELTA, _DEST, _BEAR = _build_tables()
_DEST_BIT = np.where(_DEST >= 0, np.int64(1) << np.maximum(_DEST, 0), 0)
_SRC_OF = np.arange(N_SRC * 14) // 14
_TO = np.maximum(_DEST[0::2], 0)  # by src * 7 + die: landing index (0 when off)
_LANDS = (_DEST[0::2] >= 0).astype(np.int64)  # 1 when the movement lands on a point
_LIMIT = (np.int64(2) << np.arange(N_SRC, dtype=np.int64)) - 1  # sources <= s


def _masks24(*flags: np.ndarray) -> np.ndarray:
    """k arrays [N, 24] of bool -> [N, k] int64 bitmasks (bit i = column i), one packbits."""
    n, k = flags[0].shape[0], len(flags)
    packed = np.packbits(np.stack(flags, axis=1).reshape(-1), bitorder="little")
    buf = np.zeros((n, k, 4), np.uint8)
    buf[:, :, :3] = packed.reshape(n, k, 3)
    return buf.view("<u4")[..., 0].astype(np.int64)


def _sources(own, open_, die, enter_all: bool):
    """Bitmask of the sources a movement of `die` may start from, per state."""
    entry = (open_ >> (24 - die)) & 1
    m = own & (open_ << die) & _MASK24
    m |= own & _POOL_BIT & (entry << SRC_POOL)
    home = own < 64  # nothing on points 7..24, the bar or in the pool
    m |= _BEAR[die * 64 + (own & 63)] * home
    if enter_all:
        m = np.where(own & _POOL_BIT, entry << SRC_POOL, m)
    return np.where(own & _BAR_BIT, entry << SRC_BAR, m)


def _moves(idx, src, die, blots):
    """Move codes of movements src by die from states idx; a landing on a blot hits."""
    base = src * 7 + die
    return base * 2 + ((blots[idx] >> _TO[base]) & _LANDS[base])


class _Roots:
    """The input positions with the per-position masks that never change within a turn."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows
        pts = rows[:, :N_POINTS]
        m = _masks24(pts >= -1, pts == -1, pts > 0)
        self.open, self.blots = m[:, 0], m[:, 1]
        self.own = m[:, 2] | ((rows[:, POOL] > 0) * _POOL_BIT) | ((rows[:, BAR] > 0) * _BAR_BIT)


def _after_departure(own, rows_flat, state, code):
    """`own` after a movement: the source bit clears when it empties, the landing bit sets."""
    src = _SRC_OF[code]
    left = rows_flat[state * PAD + _SRC_COL[src]]  # count at the source after the move
    return (own & ~((left == 0) * (np.int64(1) << src))) | _DEST_BIT[code]


def _non_doubles(R: _Roots, pos, a, b, enter_all, track):
    """All plays of non-double rolls a-b at positions pos (see the module docstring).

    Returns a list of pieces (parent, rows, codes or None); suspects are not yet deduplicated
    but marked in a 4th entry.
    """
    n = pos.size
    # layer 0: each position twice, order 1 (a then b) and order 2 (b then a)
    g_pos = np.repeat(pos, 2)
    first = np.empty(2 * n, np.int64); first[0::2] = a; first[1::2] = b
    second = np.empty(2 * n, np.int64); second[0::2] = b; second[1::2] = a
    own0 = R.own[g_pos]
    open0 = R.open[g_pos]
    L1 = _sources(own0, open0, first, enter_all)
    excl = np.zeros(2 * n, np.int64)
    excl[1::2] = L1[0::2]  # order 2 may not use, second, an a-move legal at the start
    pieces = []
    pas = (L1[0::2] == 0) & (L1[1::2] == 0)
    if pas.any():
        p = pos[pas]
        no_play = np.zeros((p.size, 0), np.int16) if track else None
        pieces.append((p, np.take(R.rows, p, axis=0), no_play, None))
    # layer 1
    g1, src1 = set_bits(L1, 26)
    p1 = g_pos[g1]
    code1 = _moves(p1, src1, first[g1], R.blots)
    rows_flat = R.rows.reshape(-1)
    left = rows_flat[p1 * PAD + _SRC_COL[src1]] - 1
    own1 = (own0[g1] & ~((left == 0) * (np.int64(1) << src1))) | _DEST_BIT[code1]
    blots1 = R.blots[p1] & ~_DEST_BIT[code1]
    d2 = second[g1]
    S1 = R.rows.take(p1, axis=0)
    S1 += _DELTA.take(code1, axis=0)
    L2 = _sources(own1, open0[g1], d2, enter_all)
    has2 = np.zeros(R.rows.shape[0], bool)
    has2[p1[L2 != 0]] = True
    # one-die plays, for positions where no play uses both dice; the larger die when possible
    one = np.flatnonzero((L2 == 0) & ~has2[p1])
    if one.size:
        p = p1[one]
        large = first[g1[one]] > second[g1[one]]
        has_large = np.zeros(R.rows.shape[0], bool)
        has_large[p[large]] = True
        one = one[large | ~has_large[p]]
        p = p1[one]
        rows = S1.take(one, axis=0)
        pieces.append((p, rows, code1[one, None].astype(np.int16) if track else None, None))
    # layer 2
    L2 &= ~excl[g1]
    i2, src2 = set_bits(L2, 26)
    code2 = _moves(i2, src2, d2[i2], blots1)
    c1 = code1[i2]
    p2 = p1[i2]
    dest1 = _DEST[c1]
    src1 = _SRC_OF[c1]
    suspect = ((src2 == dest1) | (src1 == _DEST[code2]) | ((dest1 < 0) & (_DEST[code2] < 0))
               | ((src1 >= 24) & (src2 >= 24)))  # bar + pool entries may swap dice
    rows = S1.take(i2, axis=0)
    rows += _DELTA.take(code2, axis=0)
    codes = np.stack([c1, code2], axis=1).astype(np.int16) if track else None
    pieces.append((p2, rows, codes, suspect))
    return pieces


def _doubles(R: _Roots, pos, die, enter_all, track):
    """All plays of doubles at positions pos: up to four movements, sources non-increasing.

    Returns one piece (parent, rows, codes or None); never any duplicate.
    """
    n = pos.size
    own = R.own[pos]
    open_ = R.open[pos]
    blots = R.blots[pos]
    last = np.full(n, SRC_BAR, np.int64)
    rows = np.take(R.rows, pos, axis=0)
    state_pos = np.arange(n)  # index into pos
    most = np.zeros(n, np.int8)
    layers = []  # per layer k: (state index into pos, rows, stopped here, codes)
    codes = np.zeros((n, 0), np.int16) if track else None
    for k in range(4):
        d = die[state_pos]
        L = _sources(own, open_[state_pos], d, enter_all) & _LIMIT[last]
        stop = L == 0
        layers.append((state_pos, rows, stop, codes))
        most[state_pos[~stop]] = k + 1
        i, src = set_bits(L, 26)
        if i.size == 0:
            break
        code = _moves(i, src, d[i], blots)
        rows = rows.take(i, axis=0)
        rows += _DELTA.take(code, axis=0)
        state_pos = state_pos[i]
        if codes is not None:
            codes = np.concatenate([codes[i], code[:, None].astype(np.int16)], axis=1)
        if k < 3:
            own = _after_departure(own[i], rows.reshape(-1), np.arange(i.size), code)
            blots = blots[i] & ~_DEST_BIT[code]
            last = src
    else:
        layers.append((state_pos, rows, np.ones(state_pos.size, bool), codes))
    out_p, out_r, out_c = [], [], []
    for k, (sp, r, stop, c) in enumerate(layers):
        keep = np.flatnonzero(stop & (most[sp] == k))
        if keep.size == 0:
            continue
        out_p.append(pos[sp[keep]])
        out_r.append(r if keep.size == r.shape[0] else r.take(keep, axis=0))
        if track:
            out_c.append(np.pad(c[keep], ((0, 0), (0, 4 - c.shape[1])), constant_values=-1))
    if len(out_p) == 1:
        return out_p[0], out_r[0], out_c[0] if track else None, None
    return (np.concatenate(out_p), np.concatenate(out_r),
            np.concatenate(out_c) if track else None, None)


def _roll_pieces(R: _Roots, dice, idx, enter_all, track):
    d1 = dice[idx, 0].astype(np.int64)
    d2 = dice[idx, 1].astype(np.int64)
    dbl = d1 == d2
    pieces = []
    if (~dbl).any():
        pieces += _non_doubles(R, idx[~dbl], d1[~dbl], d2[~dbl], enter_all, track)
    if dbl.any():
        pieces.append(_doubles(R, idx[dbl], d1[dbl], enter_all, track))
    return pieces


def _merge(pieces, track):
    """Deduplicate the suspects, concatenate, and order rows by parent (two row copies)."""
    parent = np.concatenate([p for p, _, _, _ in pieces])
    rows = np.concatenate([r for _, r, _, _ in pieces]) if len(pieces) > 1 else pieces[0][1]
    keep, at = [], 0
    for p, r, _, suspect in pieces:
        if suspect is None or not suspect.any():
            keep.append(np.arange(at, at + p.size))
        else:
            s = np.arange(p.size) if suspect.all() else np.flatnonzero(suspect)
            rs = r if s.size == p.size else r.take(s, axis=0)
            drop = np.ones(p.size, bool)
            drop[~suspect] = False
            drop[s[dedup_hashed(p[s], _row_hash(rs), rs)]] = False
            keep.append(np.flatnonzero(~drop) + at)
        at += p.size
    keep = np.concatenate(keep)
    order = keep[_by_parent(parent[keep])]
    codes = None
    if track:
        width = max(c.shape[1] for _, _, c, _ in pieces)
        codes = np.concatenate([np.pad(c, ((0, 0), (0, width - c.shape[1])), constant_values=-1)
                                for _, _, c, _ in pieces])[order]
    if order.size == rows.shape[0] and (order[1:] > order[:-1]).all():
        return parent, rows, codes
    return parent[order], rows.take(order, axis=0), codes


def _by_parent(parent: np.ndarray) -> np.ndarray:
    """Stable order by parent, cheap when each parent's rows already form one block (the usual
    case: every piece is built in parent order and a position's plays all come from one piece)."""
    n = parent.size
    if n == 0:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], parent[1:] != parent[:-1])))
    block_parent = parent[starts]
    blocks = np.argsort(block_parent, kind="stable")
    bp = block_parent[blocks]
    if (bp[1:] == bp[:-1]).any():  # some parent in several blocks
        return np.argsort(parent, kind="stable")
    lengths = np.diff(np.append(starts, n))[blocks]
    shift = starts[blocks] - (lengths.cumsum() - lengths)
    return np.arange(n) + np.repeat(shift, lengths)


_WORD_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                       0xD6E8FEB86659FD93], dtype=np.uint64)


def _row_hash(rows: np.ndarray) -> np.ndarray:
    """64-bit hash of [N, PAD] int8 rows, from their four 8-byte words."""
    w = rows.view(np.uint64)
    with np.errstate(over="ignore"):
        h = (w[:, 0] * _WORD_MULT[0] + w[:, 1] * _WORD_MULT[1] + w[:, 2] * _WORD_MULT[2]
             + w[:, 3] * _WORD_MULT[3])
        return h ^ (h >> np.uint64(31))


def legal_afterstates(boards: np.ndarray, dice: np.ndarray, *, with_plays: bool = False,
                      acey_deucey: bool = False, enter_all_before_moving: bool = False
                      ) -> Afterstates:
    """All distinct legal afterstates for a batch of classic positions and rolls.

    boards: int8 [B, 30] (see board.py), seen from the mover; dice: [B, 2] values 1..6.
    acey_deucey: a roll of 1-2 continues with a double of the mover's choice (union over the six).
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
    R = _Roots(rows)
    idx = np.arange(B)
    is12 = np.zeros(B, bool)
    if acey_deucey:
        is12 = (dice.min(axis=1) == 1) & (dice.max(axis=1) == 2)
    pieces = _roll_pieces(R, dice, idx[~is12], enter_all_before_moving, with_plays)
    twelve = idx[is12]
    for s in range(0, twelve.size, ONE_TWO_CHUNK):  # bounded memory: up to ~10^5 plays each
        pieces.append(_one_two_then_double(R, dice, twelve[s:s + ONE_TWO_CHUNK],
                                           enter_all_before_moving, with_plays))
    parent, out, codes = _merge(pieces, with_plays)
    plays = None if codes is None else [format_play(c) for c in codes]
    return Afterstates(boards=out[:, :WIDTH], parent=parent, plays=plays)


def _one_two_then_double(R: _Roots, dice, idx, enter_all, track):
    """Acey-deucey 1-2: each distinct 1-2 afterstate, then each of the six doubles from it."""
    p, rows, codes = _merge(_roll_pieces(R, dice, idx, enter_all, track), track)
    R2 = _Roots(rows)
    stage = np.repeat(np.arange(rows.shape[0]), 6)
    dbl = np.tile(np.arange(1, 7, dtype=np.int64), rows.shape[0])
    p2, rows2, codes2, _ = _doubles(R2, stage, dbl, enter_all, track)
    parent = p[p2]
    if track:
        codes2 = np.concatenate([codes[p2], codes2], axis=1)
    return parent, rows2, codes2, np.ones(parent.size, bool)


def _point_name(src: int) -> str:
    return {SRC_BAR: "bar", SRC_POOL: "pool"}.get(src, str(src + 1))


def format_play(codes: np.ndarray) -> str:
    """Move codes -> standard notation: `24/18 13/11*`, `bar/22`, `6/off`; '' for no move."""
    parts = []
    # equal movements: the hitting one first (reversed below), since the first landing hits
    moves = sorted((int(c) for c in codes if c >= 0), key=lambda c: (_SRC_OF[c], _DEST[c], c % 2))
    for c in reversed(moves):
        src, dest, hit = int(_SRC_OF[c]), int(_DEST[c]), c % 2
        parts.append(f"{_point_name(src)}/{'off' if dest < 0 else dest + 1}{'*' if hit else ''}")
    return " ".join(parts)
