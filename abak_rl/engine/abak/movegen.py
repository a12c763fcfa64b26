"""Batched legal-move generation for Abak Evolution (rules: shared/rules/DECISIONS.md).

B positions and rolls go in; every distinct legal afterstate comes out (`Afterstates`), with no
Python loop over positions or checkers. How:

* A play is built one movement at a time over a flat array of partial states. A state is a
  W-byte row: the board, two bytes of per-turn state (the General's direction this turn:
  0 not moved, 1 forward, 2 backward = frozen; the point where a Jane waits for its second
  lander), a summary of every column (height, top checker, the checker under it) and the count
  of own checkers outside the home board, all patched per movement for what it touches. Each
  state belongs to a "lane": one position with one order of its dice ((d1, d2) and (d2, d1) for
  a non-double, (d, d, d, d) for a double).
* `_moves` turns the summaries into 24-bit masks (movable tops per class; where a plain
  checker, a Guard, a Druid may land) and finds every legal movement of the next die with a few
  shifts per state, like the classic engine, as (state, candidate) pairs from one 32-bit word
  per state. `_apply` makes them: per child one gather and one scatter of its four board bytes
  and nine summary bytes (a write a movement does not need goes to a scratch byte), the Zobrist
  hash patched from the same old and new bytes. Finished plays get the board part only.
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
  candidate and die, one 2-D scatter instead of many 1-D ones); see docs/benchmarks/abak.md.
"""

from __future__ import annotations

import numpy as np

from ..common import Afterstates, keep_freed_memory, keep_most_dice, unique_rows
from .board import BAR, DRUID, GENERAL, GUARD, OFF, OPP_BAR, OPP_OFF, SLOTS, WIDTH

W = 216                  # internal row width: board, per-turn state, column summaries
GEN, PEND = 134, 135     # General's direction; pending Jane point + 1 (0: none)
H0, T0, C0 = 136, 161, 186   # per column: height, top checker, the checker under the top; each
SCRATCH = 24             # has a 25th "column" that summary writes a movement does not need go to
OUTN, OUTG = 211, 212    # own checkers outside the home board (points 7..24, bar): others, General
SRC_BAR = 24
LIMIT = 20_000           # states expanded at once; more are split by lane
SPLIT_AT = 1_000         # from this many movements on, finished plays are built apart

keep_freed_memory()      # as the classic engine: page faults otherwise cost more than the work

_P = np.arange(24)
_MID = (_P >= 6) & (_P < 18)                    # points 7..18: a Druid traps there
_CLASSES = np.arange(1, 7, dtype=np.int8)[:, None]
MASK24 = np.int64((1 << 24) - 1)
_GATHER8 = np.uint64(0x0102040810204080)
# one random word per (byte position, byte value) of a row, for incremental Zobrist hashes
_ZOBRIST = np.random.default_rng(0xABA4).integers(0, 2**64 - 1, size=(PEND + 1, 256),
                                                  dtype=np.uint64, endpoint=True)
_ZFLAT = _ZOBRIST.reshape(-1)
_GROUP_MIX = np.uint64(0xD6E8FEB86659FD93)
_BAR_BITS = np.int64(1) << np.arange(6, dtype=np.int64)
# classes entering with a plain / Druid / Guard landing rule, as bits of the bar mask
_ENTER_PLAIN, _ENTER_DRUID, _ENTER_GUARD = (np.int64(0b110011), np.int64(0b000100),
                                           np.int64(0b001000))


def _bits(flags: np.ndarray) -> np.ndarray:
    """[..., 24] bool -> int64 bitmask (bit p = column p): a multiply gathers 8 bools per word."""
    w = np.ascontiguousarray(flags).view(np.uint64)
    with np.errstate(over="ignore"):
        p = (w * _GATHER8) >> np.uint64(56)
    return (p[..., 0] | (p[..., 1] << np.uint64(8)) | (p[..., 2] << np.uint64(16))).astype(np.int64)


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
    bar = S[:, BAR:BAR + 6].astype(np.int64)
    S[:, OUTG] = (out == GENERAL).sum(1) + bar[:, GENERAL - 1]
    S[:, OUTN] = ((out > 0) & (out != GENERAL)).sum(1) + bar.sum(1) - bar[:, GENERAL - 1]


def _masks(S: np.ndarray) -> np.ndarray:
    """24-bit masks per state, [M, 9]: tops of class 1..6 (the mover's movable checkers), then
    where a plain checker, a Guard and a Druid may land (empty or own top with room; a single
    opposing checker: hit, Jane's first landing on a lone Guard, trap by the Druid on 7..18)."""
    M = S.shape[0]
    h, top, sec = S[:, H0:H0 + 24], S[:, T0:T0 + 24], S[:, C0:C0 + 24]
    room = h < 5
    opp1 = (top < 0) & (sec >= 0)                # exactly one opposing checker in the top run
    free = (top >= 0) & room
    flags = np.empty((M, 10, 24), dtype=bool)
    np.equal(top[:, None, :], _CLASSES, out=flags[:, :6])
    flags[:, 6] = free | (opp1 & ((top != -GUARD) | room))
    flags[:, 7] = free | opp1
    flags[:, 8] = np.where(_MID, free | (opp1 & room), flags[:, 6])
    flags[:, 9] = opp1 & (top == -GUARD)
    return _bits(flags)


def _prev_tables():
    """Per move code + 1 (0: no move): whether it is a plain forward move between two points
    (and, for doubles, not a Jane's completion), its two points as bits, the points below its
    source as bits."""
    x = np.arange(-1, 2504)
    xs, xd = x // 100, (x // 4) % 25 - 1
    ok = (x >= 0) & (xs < 24) & (xd >= 0) & (xd < xs)
    xs, xd = np.clip(xs, 0, 23), np.clip(xd, 0, 23)
    one = np.int64(1)
    return ok, ok & (x % 4 != 3), (one << xs) | (one << xd), (one << xs) - 1


_X_OK, _X_OK_DOUBLE, _X_NEAR, _X_BELOW = _prev_tables()
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
    mk = _masks(S)
    d = die.astype(np.int64)
    gen = S[:, GEN]
    pend = S[:, PEND].astype(np.int64) - 1
    bar = (S[:, BAR:BAR + 6] > 0) @ _BAR_BITS     # classes on the bar, as a 6-bit mask
    on_bar = bar > 0
    other_out = S[:, OUTN] > 0
    own_out = other_out | (S[:, OUTG] > 0)
    odd = (d & 1) == 1
    sS, sG, sD, sK, sO, sE = mk.T[:6]
    sG = np.where(gen == 2, 0, sG)
    plain = sS | sG | np.where(odd, sO, sE)
    Lp, Lk, Ld = mk[:, 6], mk[:, 7], mk[:, 8]
    fwd = (plain & (Lp << d)) | (sD & (Ld << d)) | (sK & (Lk << d))
    # bearing off: every own checker home; the exact point, or a larger die from the highest one
    if not own_out.all():
        home = S[:, :30].reshape(M, 6, 5) > 0
        home = home[:, :, 0] | home[:, :, 1] | home[:, :, 2] | home[:, :, 3] | home[:, :, 4]
        high = np.where(home.any(1), 5 - np.argmax(home[:, ::-1], axis=1), -1)
        bear_src = sS | sG | sD | sK | sO | sE
        bear = (np.where(high < d - 1, np.int64(1) << np.maximum(high, 0), 0)
                | (np.int64(1) << (d - 1)))
        fwd |= np.where(own_out | on_bar, 0, bear & bear_src & ((np.int64(1) << d) - 1))
    # the General backward, while another own checker is outside the home board
    can_back = (gen == 0) & other_out
    back = np.where(can_back, sG & (Lp >> d), 0)
    # entries: which classes on the bar may land on the entry point
    e = 24 - d
    entry = bar & (-((Lp >> e) & 1) & _ENTER_PLAIN | -((Ld >> e) & 1) & _ENTER_DRUID
                   | -((Lk >> e) & 1) & _ENTER_GUARD)
    # a waiting Jane: the next movement must land on its point, with a non-Guard checker
    waiting = pend >= 0
    if waiting.any():
        at = np.where(waiting, pend, 30)
        fwd = np.where(waiting, (plain | sD) & (np.int64(1) << np.minimum(at + d, 62)), fwd)
        back = np.where(waiting, np.where(can_back & (at - d >= 0),
                                          sG & (np.int64(1) << np.maximum(at - d, 0)), 0), back)
        entry = np.where(waiting, np.where(e == at, bar & ~_ENTER_GUARD, 0), entry)
    fwd = np.where(on_bar, 0, fwd) & MASK24
    back = np.where(on_bar, 0, back) & MASK24
    skipped = None
    if prev is not None:
        x = prev + 1
        okx = np.where(ordered, _X_OK_DOUBLE[x], _X_OK[x]) & (pend < 0)
        near = _X_NEAR[x]
        near |= near << d
        below = np.where(ordered, _X_BELOW[x], MASK24)
        skip = np.where(okx, fwd & below & ~near & ~((np.int64(1) << d) - 1) & ~(mk[:, 9] << d), 0)
        fwd ^= skip
        skipped = skip != 0
    # one 32-bit word per state: forward sources, entering classes at 24..29, bit 30 the
    # General backward (there is one General, so its source is the single bit of `back`)
    allm = (fwd | (entry << 24) | ((back != 0) << 30)).astype(np.uint32)
    idx = np.flatnonzero(np.unpackbits(allm.view(np.uint8), bitorder="little"))
    m, j = idx >> 5, _J32[idx & 31]
    if back.any():
        b = np.flatnonzero(j < 0)
        j[b] = 24 + np.bitwise_count(back[m[b]] - 1)
    return m, j, skipped


def _jd_tables():
    """Per candidate j (see `_moves`) and die d, at j * 8 + d: source, landing point, and the
    move code without its mark; per j: whether it leaves a column, whether it goes backward."""
    jj = np.arange(54)
    src = np.where(jj < 48, jj % 24, SRC_BAR)
    q = np.zeros(54 * 8, dtype=np.int64)
    for j in range(54):
        for d in range(1, 7):
            q[j * 8 + d] = src[j] + d if 24 <= j < 48 else src[j] - d
    code = (np.repeat(src, 8) * 25 + np.where(q >= 0, q + 1, 0)) * 4
    return src, np.minimum(src, 23), jj < 48, (jj >= 24) & (jj < 48), q, np.maximum(q, 0), code


_J_SRC, _J_SRCC, _J_COL, _J_BACK, _JD_Q, _JD_QC, _JD_CODE = _jd_tables()
_J_OUT = (_J_SRC >= 6).astype(np.int64)                 # the source is outside the home board
_SUM = np.array([H0, T0, C0], dtype=np.int64)      # a column's summary bytes, less its index


def _apply(S: np.ndarray, H: np.ndarray, m: np.ndarray, j: np.ndarray, die: np.ndarray,
           full: bool = True):
    """Make movements (state m, candidate j of `_moves`); return the children: full rows, or
    the board part only (full=False: finished plays).

    Every child gets four board writes (source, landing, opposing bar, the first Jane lander;
    the ones a movement does not need rewrite OPP_OFF with its own value) and nine summary,
    outside-count and per-turn writes (those not needed go to a scratch byte), one gather and
    one scatter each; the Zobrist hash is patched from the same old and new bytes.
    Returns (child rows [n, W] or [n, WIDTH], child hashes, move codes, whether each child
    waits for a Jane).
    """
    Sf = S.reshape(-1)
    mb = m * W
    jd = j * 8 + die[m]
    col = _J_COL[j]
    srcc = _J_SRCC[j]
    c = np.where(col, Sf[mb + T0 + srcc], j - 47)
    q = _JD_Q[jd]
    qc = _JD_QC[jd]
    lands = q >= 0
    t = Sf[mb + T0 + qc].astype(np.int64)
    jane2 = Sf[mb + PEND] > 0
    opp = (t < 0) & lands & ~jane2
    trap = opp & (c == DRUID) & _MID[qc]
    jane1 = opp & (t == -GUARD) & (c != GUARD) & ~trap
    hit = opp & ~trap & ~jane1
    replace = hit | jane2
    n = m.size
    hs = Sf[mb + H0 + srcc].astype(np.int64)
    hq = Sf[mb + H0 + qc].astype(np.int64)
    # the board: four writes per child
    P = np.empty((n, 4), dtype=np.int64)
    P[:, 0] = np.where(col, srcc * 5 + hs - 1, BAR - 1 + c)
    P[:, 1] = np.where(lands, qc * 5 + hq - replace, OFF)
    P[:, 2] = np.where(replace, OPP_BAR - 1 + np.where(jane2, GUARD, -t), OPP_OFF)
    P[:, 3] = np.where(jane2, qc * 5 + hq - 2, OPP_OFF)
    old = Sf[P + mb[:, None]]
    V = np.empty((n, 4), dtype=np.int8)
    V[:, 0] = np.where(col, 0, old[:, 0] - 1)
    V[:, 1] = np.where(lands, c, old[:, 1] + 1)
    V[:, 2] = old[:, 2] + replace
    V[:, 3] = np.where(jane2, t, old[:, 3])
    code = (_JD_CODE[jd] + np.where(replace, 1 + 2 * jane2, 2 * trap)).astype(np.int16)
    w = W if full else WIDTH
    R = S.take(m, axis=0) if full else S[m, :WIDTH]
    Rf = R.reshape(-1)
    rb = np.arange(0, n * w, w)[:, None]
    Rf[P + rb] = V
    P <<= 8
    z = _ZFLAT[P + old.view(np.uint8)] ^ _ZFLAT[P + V.view(np.uint8)]
    hsh = H[m] ^ z[:, 0] ^ z[:, 1] ^ z[:, 2] ^ z[:, 3]
    if not full:
        return R, hsh, code, jane1
    # column summaries: the source shrinks by one, the destination gets the mover on top;
    # the General's direction and the waiting Jane
    Q = np.empty((n, 9), dtype=np.int64)
    Q[:, :3] = np.where(col, srcc, SCRATCH)[:, None] + _SUM
    Q[:, 3:6] = np.where(lands, qc, SCRATCH)[:, None] + _SUM
    Q[:, 6] = np.where((c == GENERAL) & col, GEN, H0 + SCRATCH)
    Q[:, 7] = PEND
    Q[:, 8] = np.where(c == GENERAL, OUTG, OUTN)
    U = np.empty((n, 9), dtype=np.int8)
    U[:, 0] = hs - 1
    U[:, 1] = Sf[mb + C0 + srcc]
    U[:, 2] = np.where(hs >= 3, Sf[mb + srcc * 5 + np.maximum(hs - 3, 0)], 0)
    U[:, 3] = hq + ~replace
    U[:, 4] = c
    U[:, 5] = np.where(hit, Sf[mb + C0 + qc], t)
    U[:, 6] = 1 + _J_BACK[j]
    U[:, 7] = np.where(jane1, q + 1, 0)
    U[:, 8] = Sf[mb + Q[:, 8]] + (q >= 6) - _J_OUT[j]
    Rf[Q + rb] = U
    return R, hsh, code, jane1


def _hash(rows: np.ndarray) -> np.ndarray:
    """Zobrist hash of whole board rows (XOR of one random word per byte position and value)."""
    return np.bitwise_xor.reduce(_ZOBRIST[np.arange(WIDTH), rows[:, :WIDTH].view(np.uint8)], axis=1)


def _turn_key(S: np.ndarray, hsh: np.ndarray) -> np.ndarray:
    """A partial state's hash: the board's plus the per-turn state."""
    return hsh ^ _ZOBRIST[GEN, S[:, GEN].view(np.uint8)] ^ _ZOBRIST[PEND, S[:, PEND].view(np.uint8)]


def _distinct(group: np.ndarray, h: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices of the distinct (group, row) pairs, ordered by group; h: any 64-bit row hash.

    One sort of a key made of the group (high bits) and the hash (low bits); rows whose keys
    meet are compared in full, and if two different rows ever share a key the exact row sort
    (engine.common.unique_rows) decides, so the result is exact.
    """
    if h.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    gb = max(int(group.max()).bit_length(), 1)
    key = (group.astype(np.uint64) << np.uint64(64 - gb)) | (h >> np.uint64(gb))
    order = np.argsort(key)
    k = key[order]
    same = k[1:] == k[:-1]
    if same.any():
        a, b = order[1:][same], order[:-1][same]
        if not (rows.take(a, axis=0) == rows.take(b, axis=0)).all():
            return unique_rows(rows, group)  # a true hash collision: astronomically rare
        keep = np.ones(order.shape[0], dtype=bool)
        keep[1:] = ~same
        return order[keep]
    return order


def _split(lane: np.ndarray) -> int:
    """An index near the middle where the lane changes (0 if all states share one lane)."""
    mid = lane.size // 2
    i = int(np.searchsorted(lane, lane[mid]))
    return i if i > 0 else int(np.searchsorted(lane, lane[mid], side="right")) % lane.size


def _plays(S: np.ndarray, H: np.ndarray, seq: np.ndarray, moves: np.ndarray, rev: np.ndarray):
    """Play every lane's dice in every order; return the finished plays.

    S: [L, W] start states, one per lane; H: their board hashes; seq: [L, 4] dice per lane
    (0 = none); moves: [L, 4] move codes so far (-1 = none); rev: [L] the second lanes of
    non-doubles (dice played as (d2, d1)).
    Returns (board rows [N, WIDTH], hashes, lane, n_moves, moves) of every candidate play,
    before the dice rules.
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
        die = seq[lane, k]
        prev = ordered = None
        if k >= 1:
            ordered = seq[lane, 2] > 0
            prev = np.where(ordered | rev[lane], mv[:, k - 1], -1)
        m, j, skipped = _moves(S, die, prev, ordered)
        last = (seq[lane, k + 1] == 0) if k < 3 else np.ones(lane.size, dtype=bool)
        fin = last[m]
        mixed = fin.size > SPLIT_AT and fin.any() and not fin.all()
        if mixed:   # finished plays need the board part only: build them apart
            f, g = np.flatnonzero(fin), np.flatnonzero(~fin)
            Rf_, Hf, codef, jf = _apply(S, H, m[f], j[f], die, False)
            mf, m = m[f], m[g]
            R, Hc, code, jane1 = _apply(S, H, m, j[g], die, True)
            fin = np.zeros(m.size, dtype=bool)
            on = np.bincount(m[~jane1], minlength=lane.size) + np.bincount(mf[~jf],
                                                                           minlength=lane.size)
        else:
            full = not fin.all()
            R, Hc, code, jane1 = _apply(S, H, m, j, die, full)
            on = np.bincount(m[~jane1], minlength=lane.size)
        if skipped is not None:
            on += skipped
        done = np.flatnonzero((on == 0) & (S[:, PEND] == 0))
        if done.size:
            out.append((S[done, :WIDTH], H[done], lane[done],
                        np.full(done.size, k, np.int8), mv[done]))
        # a finished play that leaves a Jane waiting is illegal: n_moves -1 drops it (every
        # position has a legal candidate with n_moves >= 0, so keep_most_dice never keeps it)
        if mixed:
            cmv = mv[mf]
            cmv[:, k] = codef
            out.append((Rf_, Hf, lane[mf], np.where(jf, -1, k + 1).astype(np.int8), cmv))
        cmv = mv[m]
        cmv[:, k] = code
        clane = lane[m]
        if not mixed and not full:
            out.append((R, Hc, clane, np.where(jane1, -1, k + 1).astype(np.int8), cmv))
            continue
        if fin.any():
            f = np.flatnonzero(fin)
            out.append((R.take(f, axis=0)[:, :WIDTH], Hc[f], clane[f],
                        np.where(jane1[f], -1, k + 1).astype(np.int8), cmv[f]))
            f = np.flatnonzero(~fin)
            R, Hc, clane, cmv = R.take(f, axis=0), Hc[f], clane[f], cmv[f]
        if k >= 1:  # only doubles go on: merge equal partial states first (kept by lane)
            keep = _distinct(clane, _turn_key(R, Hc), R[:, :PEND + 1])
            R, Hc, clane, cmv = R.take(keep, axis=0), Hc[keep], clane[keep], cmv[keep]
        work.append((R, Hc, clane, cmv, k + 1))
    return tuple(np.concatenate([o[i] for o in out]) for i in range(5))


def legal_afterstates(boards: np.ndarray, dice: np.ndarray, *,
                      with_plays: bool = False) -> Afterstates:
    """All distinct legal afterstates of a batch of Abak positions and rolls.

    boards: int8 [B, 134] seen from the mover (abak/board.py); dice: [B, 2] values 1..6.
    """
    boards = np.asarray(boards, dtype=np.int8)
    dice = np.asarray(dice).astype(np.int8)
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
    S = S[pos]
    moves = np.full((pos.size, 4), -1, dtype=np.int16)
    rev = np.arange(pos.size) >= B
    rows, hsh, lane, n_moves, mv = _plays(S, _hash(boards)[pos], seq, moves, rev)
    group = pos[lane]
    larger = np.where(double, 0, np.maximum(d1, d2))
    keep = np.flatnonzero(keep_most_dice(group, n_moves, seq[lane, 0], larger, B))
    g = group[keep]   # hash mixed with the group: each position's rows in the earlier order
    keep = keep[_distinct(g, hsh[keep] ^ (g.astype(np.uint64) * _GROUP_MIX),
                          rows.take(keep, axis=0))]
    plays = [format_play(x) for x in mv[keep]] if with_plays else None
    return Afterstates(boards=rows.take(keep, axis=0), parent=group[keep], plays=plays)


def can_move(boards: np.ndarray) -> np.ndarray:
    """True where the player to move has a legal play for at least one of the 21 rolls.

    The same answer as legal_afterstates over all 21 rolls (a legal play always changes the
    board), at the cost of one movement step over the six dice: some roll has a play exactly
    when some die has a legal first movement that leaves no Jane waiting, or a first Jane
    landing is completed by the other die; positions with only first Jane landings are settled
    by legal_afterstates over the 21 rolls. Meant for the total-deadlock check (engine.deadlock).
    """
    boards = np.asarray(boards, dtype=np.int8)
    B = boards.shape[0]
    S = np.zeros((B, W), dtype=np.int8)
    S[:, :WIDTH] = boards
    _summarize(S)
    lane = np.repeat(np.arange(B), 6)
    die = np.tile(np.arange(1, 7, dtype=np.int8), B)
    S = S.take(lane, axis=0)
    m, j, _ = _moves(S, die)
    *_, jane1 = _apply(S, np.zeros(lane.size, dtype=np.uint64), m, j, die, False)
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
    """Move codes -> notation in the order played: `24/18 13/11*`, `bar/22`, `6/off`, `^` = trap.

    A code is (source * 25 + destination + 1) * 4 + mark: points 0..23, source 24 = the bar,
    destination -1 = off; mark 1 hit, 2 trap, 3 hit completing a Jane (also written `*`).
    """
    parts = []
    for c in (int(c) for c in codes if c >= 0):
        mark, rest = c % 4, c // 4
        src, dest = rest // 25, rest % 25 - 1
        parts.append(f"{'bar' if src == SRC_BAR else src + 1}/{'off' if dest < 0 else dest + 1}"
                     f"{' *^*'[mark].strip()}")
    return " ".join(parts)
