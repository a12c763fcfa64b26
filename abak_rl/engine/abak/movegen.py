"""Batched legal-move generation for Abak Evolution (rules: docs/rules-abak.md).

B positions and rolls go in; every distinct legal afterstate comes out (`Afterstates`), with no
Python loop over positions or checkers. Where Numba is there and no play notation is asked for,
legal_afterstates and can_move hand the batch to movegen_compiled.py instead (the same rules,
one position at a time in a compiled depth-first search, 2.3-2.7x faster at batch 256-1024):
the same rows in the same order. These array steps remain the path with play notation and
without Numba. How they work:

* A play is built one movement at a time over a flat array of partial states. A state is a
  W-byte row: the board, two bytes of per-turn state (the General's direction this turn:
  0 not moved, 1 forward, 2 backward = frozen; the point where a Jane waits for its second
  lander), a summary of every column (height, top checker, the checker under it), the count
  of own checkers outside the home board, and ten 24-bit masks (bit p = column p: the tops of
  each class, the columns a plain checker, a Guard, a Druid may land on, the lone opposing
  Guards), all computed once for the input positions (`_summarize`) and then patched per
  movement for the two columns it touches. Each state belongs to a "lane": one position with
  one order of its dice ((d1, d2) and (d2, d1) for a non-double, (d, d, d, d) for a double).
* `_moves` finds every legal movement of the next die from the masks with a few shifts per
  state, like the classic engine, as (state, candidate) pairs read from one 32-bit word per
  state (`engine.common.set_bits`). `_apply` makes them: per child one gather of the bytes it
  reads and one scatter of its three or four board bytes and nine summary bytes (a write a
  movement does not need goes to a scratch byte), its two columns' mask bits redone from a
  table, and a Zobrist hash of its changes (0 for the input position: rows are only compared
  within one position). Finished plays get the board part only.
* Stacks make order matter, so every order is explored. Identical partial states (same lane,
  board and per-turn state) are merged after each step of a double, and orders of two
  commuting plain moves that another order is sure to produce are not generated at all (see
  `_moves`). A large set of states is split by lane and expanded piece by piece.
* A state is a finished play when no movement leads on to a state without a waiting Jane; a
  Jane still waiting when the dice run out is illegal (such plays get n_moves -1, which the
  shared use-as-many-dice filter, engine.common.keep_most_dice, never keeps). Deduplication is
  exact: one sort by (position, hash), rows compared where keys meet (`_distinct`).
* Speed: NumPy calls on arrays of a few thousand elements cost a few microseconds each
  whatever they do, so the code keeps the number of calls per step low (tables indexed by
  candidate and die, one 2-D scatter instead of many 1-D ones) and copies rows with `take`
  (several times faster than fancy indexing of rows); see docs/benchmarks/abak.md.
"""

from __future__ import annotations

import numpy as np

from ..common import Afterstates, keep_freed_memory, keep_most_dice, set_bits, unique_rows
from . import movegen_compiled
from .board import BAR, DRUID, GENERAL, GUARD, LETTERS, OFF, OPP_BAR, OPP_OFF, SLOTS, WIDTH

GEN, PEND = 134, 135     # General's direction; pending Jane point + 1 (0: none)
H0, T0, C0 = 136, 161, 186   # per column: height, top checker, the checker under the top; each
SCRATCH = 24             # has a 25th "column" that summary writes a movement does not need go to
OUTN, OUTG = 211, 212    # own checkers outside the home board (points 7..24, bar): others, General
MK0, N_MASKS = 216, 10   # the 24-bit masks of `_masks`, two per int64 (aligned: W % 8 == 0)
W = MK0 + 4 * N_MASKS    # internal row width: board, per-turn state, column summaries, masks
SRC_BAR = 24
LIMIT = 20_000           # states expanded at once; more are split by lane
SPLIT_AT = 1_000         # from this many movements on, finished plays are built apart

keep_freed_memory()      # as the classic engine: page faults otherwise cost more than the work

_P = np.arange(24)
_MID = (_P >= 6) & (_P < 18)                    # points 7..18: a Druid traps there
_CLASSES = np.arange(1, 7, dtype=np.int8)[:, None]
MASK24 = np.int64((1 << 24) - 1)
# one random word per (byte position, byte value) of a row, for incremental Zobrist hashes
_ZOBRIST = np.random.default_rng(0xABA4).integers(0, 2**64 - 1, size=(PEND + 1, 256),
                                                  dtype=np.uint64, endpoint=True)
_ZFLAT = _ZOBRIST.reshape(-1)
_GROUP_MIX = np.uint64(0xD6E8FEB86659FD93)
_BAR_BITS = np.int64(1) << np.arange(6, dtype=np.int64)
# classes entering with a plain / Druid / Guard landing rule, as bits of the bar mask
_ENTER_PLAIN, _ENTER_DRUID, _ENTER_GUARD = (np.int64(0b110011), np.int64(0b000100),
                                           np.int64(0b001000))


def _summarize(S: np.ndarray) -> None:
    """Fill in the column summaries (height, top, under-top) and the counts of own checkers
    outside the home board of fresh states, in place.

    Children patch the two columns a movement touches instead (see `_apply`).
    """
    M = S.shape[0]
    st = S[:, :SLOTS].reshape(M, 24, 5)
    o = (st != 0).view(np.int8)
    h = o[:, :, 0] + o[:, :, 1] + o[:, :, 2] + o[:, :, 3] + o[:, :, 4]
    flat = S.reshape(-1)
    base = (np.arange(M) * W)[:, None] + _P * 5
    S[:, H0:H0 + 24] = h
    S[:, T0:T0 + 24] = np.where(h > 0, flat[base + np.maximum(h - 1, 0)], 0)
    S[:, C0:C0 + 24] = np.where(h > 1, flat[base + np.maximum(h - 2, 0)], 0)
    out = S[:, 6 * 5:SLOTS]
    bar = S[:, BAR:BAR + 6]
    general = (out == GENERAL).any(1) + bar[:, GENERAL - 1]     # there is one General
    S[:, OUTG] = general
    S[:, OUTN] = (out > 0).view(np.int8).sum(1, dtype=np.int8) + bar.sum(1, dtype=np.int8) - general
    idx = _COL_BASE[:24] + (h.astype(np.int64) * 13 + S[:, T0:T0 + 24]) * 13 + S[:, C0:C0 + 24]
    # flag i of column p -> bit p of mask i, two masks per word (bits 0..23, 24..47): the
    # columns' bits are disjoint, so the words are sums over the columns of flag * 2**p, one
    # matrix product (exact in float64: below 2**53)
    _masks(S)[:] = (_PAIRED_FLAGS.take(idx, axis=1) @ _POW2).astype(np.int64).T


def _masks(S: np.ndarray) -> np.ndarray:
    """The masks carried in the rows, [M, 5] int64 (a view): mask 2w in bits 0..23 of word w,
    mask 2w + 1 in bits 24..47 (see `_column_flags` for the ten masks)."""
    return S[:, MK0:MK0 + 4 * N_MASKS].view(np.int64)


def _column_flags(h, top, sec, mid) -> np.ndarray:
    """What a column (height, top checker, the one under it; on 7..18 or not) offers the mover,
    as 10 flags on a new axis before the last: its top is of class 1..6 (a movable checker);
    a plain checker, a Guard, a Druid may land there (empty or own top with room; a single
    opposing checker: hit, Jane's first landing on a lone Guard, trap by the Druid on 7..18);
    it holds a lone opposing Guard. Set bit p of flag i is column p in mask i (`_masks`)."""
    h, top, sec = np.broadcast_arrays(h, top, sec)
    room = h < 5
    opp1 = (top < 0) & (sec >= 0)                # exactly one opposing checker in the top run
    free = (top >= 0) & room
    flags = np.empty(top.shape[:-1] + (N_MASKS, top.shape[-1]), dtype=bool)
    np.equal(top[..., None, :], _CLASSES, out=flags[..., :6, :])
    flags[..., 6, :] = free | (opp1 & ((top != -GUARD) | room))
    flags[..., 7, :] = free | opp1
    flags[..., 8, :] = np.where(mid, free | (opp1 & room), flags[..., 6, :])
    flags[..., 9, :] = opp1 & (top == -GUARD)
    return flags


def _flag_tables():
    """A column's flags (`_column_flags`) packed into 10 bits, at index
    ((mid * 6 + h) * 13 + top + 6) * 13 + sec + 6 (one more entry, 0: no column); and per packed
    value its 10 flags as 0/1 int64 (from which `_PAIRED` is built)."""
    mid, h, top, sec = np.meshgrid([0, 1], np.arange(6), np.arange(-6, 7), np.arange(-6, 7),
                                   indexing="ij")
    flags = _column_flags(h.reshape(1, -1), top.reshape(1, -1), sec.reshape(1, -1),
                          mid.reshape(1, -1).astype(bool))[0]
    packed = (flags.astype(np.int64) << np.arange(N_MASKS)[:, None]).sum(0)
    unpacked = (np.arange(1 << N_MASKS)[:, None] >> np.arange(N_MASKS)) & 1
    return np.append(packed, 0).astype(np.int16), unpacked.astype(np.int64)


_FLAGS, _UNPACK = _flag_tables()
# per packed flags value: the 5 mask words of a column at bit 0 (flag 2w at bit 0 and flag
# 2w + 1 at bit 24 of word w); by `_FLAGS` index, transposed, in float64 for `_summarize`
_PAIRED = (_UNPACK.reshape(-1, 5, 2) << np.array([0, 24])).sum(2)
_PAIRED_FLAGS = np.ascontiguousarray(_PAIRED[_FLAGS].T.astype(np.float64))
# the words with no movable tops (a checker on the bar moves first)
_NOT_TOPS = np.array([0, 0, 0, -1, -1], dtype=np.int64)
_POW2 = 2.0 ** np.arange(24)
_NO_COLUMN = _FLAGS.size - 1
_COL_BASE = np.append(np.where(_MID, 6 * 169, 0), 0) + 6 * 13 + 6   # per column (and SCRATCH)


_N_CODES = (29 * 25 + 25) * 4 + 4     # move codes: sources 0..23 and 24 + class - 1 (the bar)


def _prev_tables():
    """Per move code x + 1 (0: no move) of the movement before, which later forward movements
    may be skipped as commuting with it (see `_moves`): at (x + 1) * 2 + (lane is a double):
    in a non-double's second lane any (if x is a plain forward move between two points), in a
    double those starting below x's source (if x is besides not a Jane's completion); at
    (x + 1) * 8 + die: the sources never skipped with that die: those landing on or leaving
    x's two points, and bearing off."""
    x = np.arange(-1, _N_CODES)
    xs, xd = x // 100, (x // 4) % 25 - 1
    ok = (x >= 0) & (xs < 24) & (xd >= 0) & (xd < xs)
    xs, xd = np.clip(xs, 0, 23), np.clip(xd, 0, 23)
    one = np.int64(1)
    below = np.stack([np.where(ok, MASK24, 0), np.where(ok & (x % 4 != 3), (one << xs) - 1, 0)], 1)
    near = ((one << xs) | (one << xd))[:, None]
    d = np.arange(8)
    return below.reshape(-1), (near | (near << d) | ((one << d) - 1)).reshape(-1)


_X_BELOW, _X_NEAR = _prev_tables()
_LOW = (np.int64(1) << np.arange(8)) - 1           # per die d: the bits under bit d (bearing off)
# bit of the 32-bit candidate word -> candidate j (-1: the General backward, source found apart)
_J32 = np.array(list(range(24)) + list(range(48, 54)) + [-1, -1], dtype=np.int64)


def _moves(S: np.ndarray, die: np.ndarray, prev: np.ndarray | None = None,
           ordered: np.ndarray | None = None):
    """Every legal movement of `die` from each state: (state index, candidate j), j < 24 forward
    from point j (or off), 24 <= j < 48 the General backward from point j - 24, j >= 48 entry of
    class j - 47 from the bar; and per state whether a legal movement was skipped.

    prev, ordered: per state, the code of the movement that made it (-1: none) and whether the
    lane is a double. A movement y after x is skipped when both are plain forward moves on four
    distinct points, neither starting or ending a Jane (they commute: either order is legal and
    ends in the same state; landings on a lone opposing Guard are never skipped) and
    - in a non-double's second lane, (d2, d1) (not ordered): the first lane plays y then x;
    - in a double, when y starts lower than x (x not the end of a Jane): of all
      ways to reach a partial state, the one whose last movement starts highest is never
      skipped (the other order's first part is a distinct partial state of the step before,
      which by induction was kept), so no distinct state is lost.
    """
    M = S.shape[0]
    pw = _masks(S)
    d = die.astype(np.int64)
    gen = S[:, GEN]
    any_bar = S[:, BAR:BAR + 6].any()
    bar = (S[:, BAR:BAR + 6] > 0) @ _BAR_BITS if any_bar else 0   # classes on the bar, 6 bits
    on_bar = bar > 0
    other_out = S[:, OUTN] > 0
    own_out = other_out | (S[:, OUTG] > 0)
    # the movable tops: none while a checker is on the bar; no General after a backward move
    if any_bar:
        pw = pw & np.where(on_bar[:, None], _NOT_TOPS, -1)
    lo, hi = (pw & MASK24).T, (pw >> 24).T
    sS, sD, sO, Lp, Ld = lo
    sG, sK, sE, Lk, lone_guard = hi
    sG = sG * (gen != 2)
    plain = sS | sG | np.where(d & 1, sO, sE)
    fwd = (plain & (Lp << d)) | (sD & (Ld << d)) | (sK & (Lk << d))
    # bearing off: every own checker home; the exact point, or a larger die from the highest one
    if not own_out.all():
        home = S[:, :30].reshape(M, 6, 5) > 0
        home = home[:, :, 0] | home[:, :, 1] | home[:, :, 2] | home[:, :, 3] | home[:, :, 4]
        high = np.where(home.any(1), 5 - np.argmax(home[:, ::-1], axis=1), -1)
        bear_src = sS | sG | sD | sK | sO | sE
        bear = (np.where(high < d - 1, np.int64(1) << np.maximum(high, 0), 0)
                | (np.int64(1) << (d - 1)))
        fwd |= bear & bear_src & _LOW.take(d) * ~own_out
    # the General backward, while another own checker is outside the home board
    can_back = (gen == 0) & other_out
    back = sG & (Lp >> d) * can_back
    # entries: which classes on the bar may land on the entry point
    e = 24 - d
    entry = bar & (-((Lp >> e) & 1) & _ENTER_PLAIN | -((Ld >> e) & 1) & _ENTER_DRUID
                   | -((Lk >> e) & 1) & _ENTER_GUARD) if any_bar else 0
    # a waiting Jane: the next movement must land on its point, with a non-Guard checker
    waiting = S[:, PEND] > 0
    any_waiting = waiting.any()
    if any_waiting:
        at = np.where(waiting, S[:, PEND].astype(np.int64) - 1, 30)
        fwd = np.where(waiting, (plain | sD) & (np.int64(1) << np.minimum(at + d, 62)), fwd)
        back = np.where(waiting, np.where(can_back & (at - d >= 0),
                                          sG & (np.int64(1) << np.maximum(at - d, 0)), 0), back)
        entry = np.where(waiting, np.where(e == at, bar & ~_ENTER_GUARD, 0), entry)
    skipped = None
    if prev is not None:
        x = prev + 1
        skip = fwd & _X_BELOW.take(x * 2 + ordered) & ~(_X_NEAR.take(x * 8 + d) | (lone_guard << d))
        if any_waiting:
            skip *= ~waiting
        fwd ^= skip
        skipped = skip != 0
    # one 32-bit word per state: forward sources, entering classes at 24..29, bit 30 the
    # General backward (there is one General, so its source is the single bit of `back`)
    any_back = back.any()
    allm = fwd | (entry << 24) if any_bar else fwd
    if any_back:
        allm = allm | ((back != 0) << 30)
    m, bit = set_bits(allm.astype(np.uint32), 31)
    j = _J32.take(bit)
    if any_back:
        b = (j < 0).nonzero()[0]
        j[b] = 24 + np.bitwise_count(back.take(m.take(b)) - 1)
    return m, j, skipped


def _jd_tables():
    """Everything `_apply` needs that depends on the candidate j (see `_moves`) and the die d
    only, at index j * 8 + d; and per j whether it leaves a column, whether it goes backward."""
    jj = np.arange(54)
    src = np.where(jj < 48, jj % 24, SRC_BAR)
    col = jj < 48
    jd_j, jd_d = np.arange(54 * 8) // 8, np.arange(54 * 8) % 8
    s = src[jd_j]
    q = np.where((jd_j >= 24) & (jd_j < 48), s + jd_d, s - jd_d)   # landing point, < 0: off
    q = np.where((jd_d == 0) | (q > 23), 0, q)    # (no such movement is ever listed)
    lands = q >= 0
    scol = np.where(col[jd_j], s, SCRATCH)         # summary columns written (SCRATCH: none)
    dcol = np.where(lands, q, SCRATCH)
    t = dict(
        q=q, mid=lands & _MID[np.clip(q, 0, 23)],
        # an entry's code names its class (source 24 + class - 1): two entries of different
        # classes must never print the same play
        code=(np.where(col, src, SRC_BAR + jj - 48)[jd_j] * 25 + np.where(lands, q + 1, 0)) * 4,
        # the row bytes read first: tops, heights and under-tops of both columns, the Jane
        gather=np.stack([T0 + scol, T0 + dcol, H0 + scol, H0 + dcol, C0 + scol, C0 + dcol,
                         np.full_like(s, PEND)], axis=1),
        p0=np.where(col[jd_j], s * 5 - 1, BAR - 1),   # + height (column) or + class (bar)
        p1=dcol * 5,
        # the summary bytes written: both columns' height, top, under-top; direction; Jane; outside
        q9=np.stack([H0 + scol, T0 + scol, C0 + scol, H0 + dcol, T0 + dcol, C0 + dcol,
                     np.full_like(s, H0 + SCRATCH), np.full_like(s, PEND),
                     np.full_like(s, OUTN)], axis=1),
        out=(lands & (q >= 6)).astype(np.int64) - (s >= 6),   # the bar (24) is outside
        cols=np.stack([scol, dcol], axis=1),
        valid=np.stack([col[jd_j], lands], axis=1),
        base=np.stack([_COL_BASE[scol], _COL_BASE[dcol]], axis=1),
        # both columns' bits in both masks of a word (none for the scratch column)
        clear=~((((np.int64(1) << scol) & MASK24) | ((np.int64(1) << dcol) & MASK24))
                * ((1 << 24) + 1)),
    )
    return np.minimum(src, 23) * 5, col, (jj >= 24) & (jj < 48), t


_J_SLOT0, _J_COL, _J_BACK, _JD = _jd_tables()


def _landing(c, t, lands, mid):
    """What a checker of class c landing on a column with top t does (no Jane waiting):
    (lands on a lone opposing checker, traps it (a Druid on 7..18), starts a Jane (a non-Guard
    on a lone Guard)); otherwise the landing is a plain move or a hit."""
    opp = (t < 0) & lands
    trap = opp & (c == DRUID) & mid
    return opp, trap, opp & (t == -GUARD) & (c != GUARD) & ~trap


def _apply(S: np.ndarray, H: np.ndarray, m: np.ndarray, j: np.ndarray, die: np.ndarray,
           full: bool = True, codes: bool = True):
    """Make movements (state m, candidate j of `_moves`); return the children: full rows, or
    the board part only (full=False: finished plays).

    Every child gets three or four board writes (source, landing, opposing bar, the first Jane
    lander; the ones a movement does not need rewrite OPP_OFF with its own value) and nine summary,
    outside-count and per-turn writes (those not needed go to a scratch byte), one gather and
    one scatter each, and its two columns' mask bits redone; the Zobrist hash is patched from
    the same old and new board bytes. What depends on (j, die) only comes from tables (`_JD`).
    Returns (child rows [n, W] or [n, WIDTH], child hashes, move codes (None for finished
    plays when codes=False), whether each child waits for a Jane).
    """
    Sf = S.reshape(-1)
    mb = m * W
    jd = j * 8 + die.take(m)
    G = Sf.take(_JD["gather"].take(jd, axis=0) + mb[:, None]).astype(np.int64)
    ts, t, hs, hq, cs, cq, pend = G.T
    col = _J_COL.take(j)
    c = np.where(col, ts, j - 47)
    q = _JD["q"].take(jd)
    lands = q >= 0
    jane2 = pend > 0
    opp, trap, jane1 = _landing(c, t, lands & ~jane2, _JD["mid"].take(jd))
    hit = opp & ~trap & ~jane1
    replace = hit | jane2
    n = m.size
    # the board: source, landing, the opposing bar on a hit, and (only while some state waits
    # for a Jane's second lander) the first lander's slot; a write a movement does not need
    # rewrites OPP_OFF with its own value
    any_jane2 = jane2.any()
    p1 = _JD["p1"].take(jd) + hq
    P = np.empty((n, 3 + any_jane2), dtype=np.int64)
    P[:, 0] = _JD["p0"].take(jd) + np.where(col, hs, c)
    P[:, 1] = np.where(lands, p1 - replace, OFF)
    if any_jane2:
        P[:, 2] = np.where(replace, OPP_BAR - 1 + np.where(jane2, GUARD, -t), OPP_OFF)
        P[:, 3] = np.where(jane2, p1 - 2, OPP_OFF)
    else:
        P[:, 2] = np.where(replace, OPP_BAR - 1 - t, OPP_OFF)
    old = Sf.take(P + mb[:, None])
    V = np.empty_like(old)
    V[:, 0] = (old[:, 0] - 1) * ~col
    V[:, 1] = np.where(lands, c, old[:, 1] + 1)
    V[:, 2] = old[:, 2] + replace
    if any_jane2:
        V[:, 3] = np.where(jane2, t, old[:, 3])
    code = None
    if codes or full:   # mark: 1 hit, 2 trap, 3 hit completing a Jane (jane2 implies replace)
        code = (_JD["code"].take(jd) + replace + 2 * (jane2 | trap)).astype(np.int16)
    w = W if full else WIDTH
    R = S.take(m, axis=0) if full else S[:, :WIDTH].take(m, axis=0)
    Rf = R.reshape(-1)
    rb = np.arange(0, n * w, w)[:, None]
    Rf[P + rb] = V
    P <<= 8
    z = _ZFLAT.take(P + old.view(np.uint8)) ^ _ZFLAT.take(P + V.view(np.uint8))
    hsh = H.take(m) ^ np.bitwise_xor.reduce(z, axis=1)
    if not full:
        return R, hsh, code, jane1
    # column summaries: the source shrinks by one, the destination gets the mover on top;
    # the General's direction and the waiting Jane
    general = c == GENERAL
    Q = _JD["q9"].take(jd, axis=0)
    Q[:, 6] = np.where(general & col, GEN, H0 + SCRATCH)
    Q[:, 8] += general                            # OUTG = OUTN + 1
    U = np.empty((n, 9), dtype=np.int64)
    U[:, 0] = hs - 1
    U[:, 1] = cs
    U[:, 2] = Sf.take(mb + _J_SLOT0.take(j) + np.maximum(hs - 3, 0)) * (hs >= 3)
    U[:, 3] = hq + ~replace
    U[:, 4] = c
    U[:, 5] = np.where(hit, cq, t)
    U[:, 6] = 1 + _J_BACK.take(j)
    U[:, 7] = (q + 1) * jane1
    U[:, 8] = Sf.take(mb + Q[:, 8]) + _JD["out"].take(jd)
    Rf[Q + rb] = U
    # the masks: both columns' bits cleared, then set again from their new summaries
    U3 = U.reshape(n, 3, 3)[:, :2]        # (height, top, under-top) of both columns
    f = _FLAGS.take(np.where(_JD["valid"].take(jd, axis=0),
                             _JD["base"].take(jd, axis=0) + (U3[..., 0] * 13 + U3[..., 1]) * 13
                             + U3[..., 2], _NO_COLUMN))
    pw = _masks(R)
    pw &= _JD["clear"].take(jd)[:, None]
    bits = (_PAIRED.take(f.reshape(-1), axis=0).reshape(n, 2, N_MASKS // 2)
            << _JD["cols"].take(jd, axis=0)[:, :, None])
    pw |= bits[:, 0] | bits[:, 1]
    return R, hsh, code, jane1


def _turn_key(S: np.ndarray, hsh: np.ndarray) -> np.ndarray:
    """A partial state's hash: the board's plus the per-turn state."""
    return hsh ^ _ZOBRIST[GEN, S[:, GEN].view(np.uint8)] ^ _ZOBRIST[PEND, S[:, PEND].view(np.uint8)]


def _same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two int8 row arrays are equal, compared in the widest words the width allows."""
    width = a.shape[1]
    word = next(t for t in (np.uint64, np.uint32, np.uint16, np.uint8) if width % t().itemsize == 0)
    return bool((a.view(word) == b.view(word)).all())


def _distinct(group: np.ndarray, h: np.ndarray, rows: np.ndarray,
              index: np.ndarray | None = None, n_groups: int | None = None) -> np.ndarray:
    """Indices of the distinct (group, row) pairs, ordered by group; h: any 64-bit row hash.
    Row i is rows[i], or rows[index[i]] when index is given (no copy of the rows is made);
    n_groups: any bound above the largest group (found when not given).

    One sort of a key made of the group (high bits) and the hash (low bits); rows whose keys
    meet are compared in full, and if two different rows ever share a key the exact row sort
    (engine.common.unique_rows) decides, so the result is exact.
    """
    if h.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    gb = max(int(group.max() if n_groups is None else n_groups).bit_length(), 1)
    key = (group.astype(np.uint64) << np.uint64(64 - gb)) | (h >> np.uint64(gb))
    order = key.argsort()
    k = key[order]
    same = k[1:] == k[:-1]
    if same.any():
        a, b = order[1:][same], order[:-1][same]
        ia, ib = (a, b) if index is None else (index[a], index[b])
        if not _same_rows(rows.take(ia, axis=0), rows.take(ib, axis=0)):
            own = rows if index is None else rows.take(index, axis=0)
            return unique_rows(own, group)  # a true hash collision: astronomically rare
        keep = np.ones(order.shape[0], dtype=bool)
        keep[1:] = ~same
        return order[keep]
    return order


def _split(lane: np.ndarray) -> int:
    """An index near the middle where the lane changes (0 if all states share one lane)."""
    mid = lane.size // 2
    i = int(np.searchsorted(lane, lane[mid]))
    return i if i > 0 else int(np.searchsorted(lane, lane[mid], side="right")) % lane.size


def _plays(S: np.ndarray, H: np.ndarray, seq: np.ndarray, moves: np.ndarray, rev: np.ndarray,
           plays: bool = True):
    """Play every lane's dice in every order; return the finished plays.

    S: [L, W] start states, one per lane; H: their board hashes; seq: [L, 4] dice per lane
    (0 = none); moves: [L, 4] move codes so far (-1 = none); rev: [L] the second lanes of
    non-doubles (dice played as (d2, d1)).
    Returns (board rows [N, WIDTH], hashes, lane, n_moves, moves) of every candidate play,
    before the dice rules; moves is None unless `plays` (only partial plays need their codes:
    the commuting-order skip reads the last one).
    """
    out = []
    work = [(S, H, np.arange(S.shape[0]), moves, 0)]
    while work:
        S, H, lane, mv, k = work.pop()
        if S.shape[0] > LIMIT:
            i = _split(lane)
            if i:
                work.append((S[i:], H[i:], lane[i:], mv[i:], k))
                work.append((S[:i], H[:i], lane[:i], mv[:i], k))
                continue
        die = seq[:, k].take(lane)
        prev = ordered = None
        if k >= 1:
            ordered = seq[:, 2].take(lane) > 0
            prev = np.where(ordered | rev[lane], mv[:, k - 1], -1)
        m, j, skipped = _moves(S, die, prev, ordered)
        last = (seq[:, k + 1].take(lane) == 0) if k < 3 else np.ones(lane.size, dtype=bool)
        fin = last.take(m)
        mixed = fin.size > SPLIT_AT and fin.any() and not fin.all()
        if mixed:   # finished plays need the board part only: build them apart
            f, g = np.flatnonzero(fin), np.flatnonzero(~fin)
            Rf_, Hf, codef, jf = _apply(S, H, m[f], j[f], die, False, plays)
            mf, m = m[f], m[g]
            R, Hc, code, jane1 = _apply(S, H, m, j[g], die, True)
            fin = np.zeros(m.size, dtype=bool)
            on = np.bincount(m[~jane1], minlength=lane.size) + np.bincount(mf[~jf],
                                                                           minlength=lane.size)
        else:
            full = not fin.all()
            R, Hc, code, jane1 = _apply(S, H, m, j, die, full, plays)
            on = np.bincount(m.compress(~jane1), minlength=lane.size)
        if skipped is not None:
            on += skipped
        done = np.flatnonzero((on == 0) & (S[:, PEND] == 0))
        if done.size:
            out.append((S[:, :WIDTH].take(done, axis=0), H.take(done), lane.take(done),
                        np.full(done.size, k, np.int8), mv.take(done, axis=0) if plays else None))
        # a finished play that leaves a Jane waiting is illegal: n_moves -1 drops it (every
        # position has a legal candidate with n_moves >= 0, so keep_most_dice never keeps it)
        if mixed:
            cmv = None
            if plays:
                cmv = mv.take(mf, axis=0)
                cmv[:, k] = codef
            out.append((Rf_, Hf, lane[mf], np.where(jf, -1, k + 1).astype(np.int8), cmv))
        clane = lane.take(m)
        if not mixed and not full:
            cmv = None
            if plays:
                cmv = mv.take(m, axis=0)
                cmv[:, k] = code
            out.append((R, Hc, clane, np.where(jane1, -1, k + 1).astype(np.int8), cmv))
            continue
        cmv = mv.take(m, axis=0)
        cmv[:, k] = code
        if fin.any():
            f = np.flatnonzero(fin)
            out.append((R.take(f, axis=0)[:, :WIDTH], Hc[f], clane[f],
                        np.where(jane1[f], -1, k + 1).astype(np.int8),
                        cmv.take(f, axis=0) if plays else None))
            f = np.flatnonzero(~fin)
            R, Hc, clane, cmv = R.take(f, axis=0), Hc[f], clane[f], cmv.take(f, axis=0)
        if k >= 1:  # only doubles go on: merge equal partial states first (kept by lane)
            keep = _distinct(clane, _turn_key(R, Hc), R[:, :PEND + 1], n_groups=seq.shape[0])
            R, Hc, clane, cmv = (R.take(keep, axis=0), Hc[keep], clane[keep],
                                 cmv.take(keep, axis=0))
        work.append((R, Hc, clane, cmv, k + 1))
    return tuple(np.concatenate([o[i] for o in out]) for i in range(4 + plays))


def legal_afterstates(boards: np.ndarray, dice: np.ndarray, *,
                      with_plays: bool = False) -> Afterstates:
    """All distinct legal afterstates of a batch of Abak positions and rolls.

    boards: int8 [B, 134] seen from the mover (abak/board.py); dice: [B, 2] values 1..6.
    Without play notation the compiled generator answers (movegen_compiled.py: the same rows in
    the same order), else these array steps.
    """
    boards = np.asarray(boards, dtype=np.int8)
    dice = np.asarray(dice).astype(np.int8)
    if movegen_compiled.AVAILABLE and not with_plays:
        parent, rows = movegen_compiled.generate(boards, dice, _ZOBRIST, _GROUP_MIX)
        return Afterstates(boards=rows, parent=parent)
    B = boards.shape[0]
    d1, d2 = dice[:, 0], dice[:, 1]
    double = d1 == d2
    nd = np.flatnonzero(~double)
    pos = np.concatenate([np.arange(B), nd])
    seq = np.zeros((pos.size, 4), dtype=np.int8)
    seq[:B, 0], seq[:B, 1] = d1, d2
    seq[:B, 2] = seq[:B, 3] = np.where(double, d1, 0)
    seq[B:, 0], seq[B:, 1] = d2[nd], d1[nd]
    S = np.zeros((B, W), dtype=np.int8)
    S[:, :WIDTH] = boards
    _summarize(S)
    S = S.take(pos, axis=0)
    moves = np.full((pos.size, 4), -1, dtype=np.int16)
    rev = np.arange(pos.size) >= B
    # every start hash is 0: rows are only ever compared within one position, where the XOR of
    # the changes a play made identifies its afterstate as well as a hash of the whole row
    hsh0 = np.zeros(pos.size, dtype=np.uint64)
    rows, hsh, lane, n_moves, *mv = _plays(S, hsh0, seq, moves, rev, with_plays)
    group = pos[lane]
    larger = np.where(double, 0, np.maximum(d1, d2))
    keep = np.flatnonzero(keep_most_dice(group, n_moves, seq[:, 0].take(lane), larger, B))
    g = group[keep]   # (the XOR with a constant per group only fixes the order within a position;
    # movegen_compiled orders each position's afterstates by the same key)
    keep = keep[_distinct(g, hsh[keep] ^ (g.astype(np.uint64) * _GROUP_MIX), rows, keep, B)]
    plays = [format_play(x) for x in mv[0].take(keep, axis=0)] if with_plays else None
    return Afterstates(boards=rows.take(keep, axis=0), parent=group[keep], plays=plays)


def can_move(boards: np.ndarray) -> np.ndarray:
    """True where the player to move has a legal play for at least one of the 21 rolls.

    The same answer as legal_afterstates over all 21 rolls (a legal play always changes the
    board), at the cost of one movement step over the six dice: some roll has a play exactly
    when some die has a legal first movement that leaves no Jane waiting, or a first Jane
    landing is completed by the other die; positions with only first Jane landings are settled
    by legal_afterstates over the 21 rolls. Meant for the total-deadlock check (engine.deadlock).
    Compiled (movegen_compiled.can_move) when Numba is there.
    """
    boards = np.asarray(boards, dtype=np.int8)
    if movegen_compiled.AVAILABLE:
        return movegen_compiled.can_move(boards)
    B = boards.shape[0]
    S = np.zeros((B, W), dtype=np.int8)
    S[:, :WIDTH] = boards
    _summarize(S)
    lane = np.arange(6 * B) // 6
    die = (lane * -6 + np.arange(1, 6 * B + 1)).astype(np.int8)
    S = S.take(lane, axis=0)
    m, j, _ = _moves(S, die)
    jd = j * 8 + die.take(m)
    top = S.reshape(-1).take(_JD["gather"][:, :2].take(jd, axis=0) + (m * W)[:, None])
    q = _JD["q"].take(jd)
    *_, jane1 = _landing(np.where(_J_COL.take(j), top[:, 0], j - 47), top[:, 1], q >= 0,
                         _JD["mid"].take(jd))
    out = np.zeros(B, dtype=bool)
    out[lane[m[~jane1]]] = True
    jane = np.zeros(B, dtype=bool)
    jane[lane[m[jane1]]] = True
    jane = np.flatnonzero(jane & ~out)
    if jane.size:
        rolls = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
        rep = np.repeat(boards[jane], len(rolls), axis=0)
        after = legal_afterstates(rep, np.tile(rolls, (jane.size, 1)))
        changed = (np.ascontiguousarray(after.boards) != rep[after.parent]).any(axis=1)
        moved = np.zeros(rep.shape[0], dtype=bool)
        moved[after.parent[changed]] = True
        out[jane] = moved.reshape(jane.size, len(rolls)).any(axis=1)
    return out


def format_play(codes: np.ndarray) -> str:
    """Move codes -> notation in the order played: `24/18 13/11*`, `bar(G)/22`, `6/off`, `^` = trap.

    A code is (source * 25 + destination + 1) * 4 + mark: points 0..23, source 24 + class - 1 =
    the bar (the entering checker's class, letter in brackets),
    destination -1 = off; mark 1 hit, 2 trap, 3 hit completing a Jane (also written `*`).
    """
    parts = []
    for c in (int(c) for c in codes if c >= 0):
        mark, rest = c % 4, c // 4
        src, dest = rest // 25, rest % 25 - 1
        parts.append(f"{f'bar({LETTERS[src - SRC_BAR]})' if src >= SRC_BAR else src + 1}/"
                     f"{'off' if dest < 0 else dest + 1}"
                     f"{' *^*'[mark].strip()}")
    return " ".join(parts)
