"""Batched legal-move generation for Abak Evolution (rules: shared/rules/DECISIONS.md).

B positions and rolls go in; every distinct legal afterstate comes out (`Afterstates`), with no
Python loop over positions or checkers. How:

* A play is built one movement at a time over a flat array of partial states. A state is the
  board row, two bytes of per-turn state (the General's direction this turn: 0 not moved,
  1 forward, 2 backward = frozen; the point where a Jane waits for its second lander) and a
  summary of every column (height, top checker, the checker under it) that each movement
  patches for the two columns it touches. Each state belongs to a "lane": one position with one
  order of its dice ((d1, d2) and (d2, d1) for a non-double, (d, d, d, d) for a double).
* `_moves` turns the summaries into 24-bit masks (movable tops per class; where a plain
  checker, a Guard, a Druid may land) and finds every legal movement of the next die with a few
  shifts per state, like the classic engine; `_apply` makes them with scatter writes and keeps
  each state's Zobrist hash up to date.
* Stacks make order matter, so every order is explored. Identical partial states (same lane,
  board and per-turn state) are merged after each step of a double, and orders of two
  commuting plain moves that another order is sure to produce are not built at all (see
  `_apply`). A large set of states is split by lane and expanded piece by piece.
* A state is a finished play when no movement leads on to a state without a waiting Jane; a
  Jane still waiting when the dice run out is dropped (illegal). The use-as-many-dice filter and
  the exact deduplication (hash, then rows compared) are the shared ones in engine.common.
"""

from __future__ import annotations

import numpy as np

from ..common import Afterstates, dedup_hashed, keep_most_dice
from .board import BAR, DRUID, EVEN, GENERAL, GUARD, ODD, OFF, OPP_BAR, SLOTS, WIDTH

W = 208                  # internal row width: board, per-turn state, then column summaries
GEN, PEND = 134, 135     # General's direction; pending Jane point + 1 (0: none)
H0, T0, C0 = 136, 160, 184   # per column: height, top checker, the checker under the top
LAND, HIT, TRAP, JANE1, JANE2, BEAR = 1, 2, 3, 4, 5, 6
SRC_BAR = 24
LIMIT = 20_000           # states expanded at once; more are split by lane

_P = np.arange(24)
_MID = (_P >= 6) & (_P < 18)                    # points 7..18: a Druid traps there
_CLASSES = np.arange(1, 7, dtype=np.int8)[:, None]
MASK24 = np.int64((1 << 24) - 1)
_GATHER8 = np.uint64(0x0102040810204080)
# one random word per (byte position, byte value) of a row, for incremental Zobrist hashes
_ZOBRIST = np.random.default_rng(0xABA4).integers(0, 2**64 - 1, size=(PEND + 1, 256),
                                                  dtype=np.uint64, endpoint=True)
_ZFLAT = _ZOBRIST.reshape(-1)
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
    """Fill in the column summaries (height, top, under-top) of fresh states, in place.

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


def _masks(S: np.ndarray) -> np.ndarray:
    """24-bit masks per state, [M, 9]: tops of class 1..6 (the mover's movable checkers), then
    where a plain checker, a Guard and a Druid may land (empty or own top with room; a single
    opposing checker: hit, Jane's first landing on a lone Guard, trap by the Druid on 7..18)."""
    M = S.shape[0]
    h, top, sec = S[:, H0:H0 + 24], S[:, T0:T0 + 24], S[:, C0:C0 + 24]
    room = h < 5
    opp1 = (top < 0) & (sec >= 0)                # exactly one opposing checker in the top run
    free = (top >= 0) & room
    flags = np.empty((M, 9, 24), dtype=bool)
    np.equal(top[:, None, :], _CLASSES, out=flags[:, :6])
    flags[:, 6] = free | (opp1 & ((top != -GUARD) | room))
    flags[:, 7] = free | opp1
    flags[:, 8] = np.where(_MID, free | (opp1 & room), flags[:, 6])
    return _bits(flags)


def _moves(S: np.ndarray, die: np.ndarray):
    """Every legal movement of `die` from each state: (state index, candidate j), j < 24 forward
    from point j (or off), 24 <= j < 48 the General backward from point j - 24, j >= 48 entry of
    class j - 47 from the bar."""
    M = S.shape[0]
    mk = _masks(S)
    d = die.astype(np.int64)
    gen = S[:, GEN]
    pend = S[:, PEND].astype(np.int64) - 1
    bar = (S[:, BAR:BAR + 6] > 0) @ _BAR_BITS     # classes on the bar, as a 6-bit mask
    on_bar = bar > 0
    out = S[:, 6 * 5:SLOTS]
    own_outside = out > 0
    own_out = own_outside.any(axis=1)
    other_out = (own_outside & (out != GENERAL)).any(axis=1)
    odd = (d & 1) == 1
    sS, sG, sD, sK, sO, sE = mk.T[:6]
    sG = np.where(gen == 2, 0, sG)
    plain = sS | sG | np.where(odd, sO, sE)
    Lp, Lk, Ld = mk[:, 6], mk[:, 7], mk[:, 8]
    fwd = (plain & (Lp << d)) | (sD & (Ld << d)) | (sK & (Lk << d))
    # bearing off: every own checker home; the exact point, or a larger die from the highest one
    home = S[:, :30].reshape(M, 6, 5) > 0
    home = home[:, :, 0] | home[:, :, 1] | home[:, :, 2] | home[:, :, 3] | home[:, :, 4]
    high = np.where(home.any(1), 5 - np.argmax(home[:, ::-1], axis=1), -1)
    bear_src = sS | sG | sD | sK | sO | sE
    bear = np.where(high < d - 1, np.int64(1) << np.maximum(high, 0), 0) | (np.int64(1) << (d - 1))
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
    allm = fwd | (back << 24) | (entry << 48)
    idx = np.flatnonzero(np.unpackbits(allm.view(np.uint8), bitorder="little"))
    return idx >> 6, idx & 63


def _apply(S: np.ndarray, H: np.ndarray, m: np.ndarray, j: np.ndarray, die: np.ndarray,
           final: bool, prev: np.ndarray | None = None, ordered: np.ndarray | None = None):
    """Make movements (state m, candidate j of `_moves`); return the children.

    final: the dice are used up, so the children are finished plays: a waiting Jane is dropped
    (illegal) and only the board part of the row is built.
    prev, ordered: per state, the code of the movement that made it (-1: none) and whether the
    lane is a double. A last movement y after x is skipped when both are plain forward moves on
    four distinct points, neither starting or ending a Jane (they commute: either order is
    legal and ends in the same state) and
    - in a non-double's second lane, (d2, d1) (not ordered): the first lane plays y then x;
    - in a double, when y starts lower than x (x not the end of a Jane): of all
      ways to reach a partial state, the one whose last movement starts highest is never
      skipped (the other order's first part is a distinct partial state of the step before,
      which by induction was kept), so no distinct state is lost.
    Returns (m, child rows, child hashes, move codes, child waits for a Jane, parent of every
    legal child, the skipped ones included).
    """
    Sf = S.reshape(-1)
    mb = m * W
    dm = die[m].astype(np.int64)
    src = np.where(j < 48, j % 24, SRC_BAR)
    col = src < 24
    srcc = np.minimum(src, 23)
    c = np.where(col, Sf[mb + T0 + srcc], j - 47).astype(np.int8)
    q = np.where(j < 24, src - dm, np.where(j < 48, src + dm, 24 - dm))
    qc = np.maximum(q, 0)                      # q <= 23 always; q < 0 is bearing off
    t = Sf[mb + T0 + qc]
    k = np.where(t >= 0, LAND, np.where((c == DRUID) & _MID[qc], TRAP,
                 np.where((t == -GUARD) & (c != GUARD), JANE1, HIT)))
    k = np.where(Sf[mb + PEND] > 0, JANE2, k)
    k = np.where(q < 0, BEAR, k)
    live = m[k != JANE1]
    ok = (k != JANE1) if final else np.ones(m.size, dtype=bool)
    if prev is not None:
        x, dbl = prev[m], ordered[m]
        xs, xd = x // 100, (x // 4) % 25 - 1
        ok &= ~((x >= 0) & (xs < 24) & (xd >= 0) & (xd < xs) & (j < 24) & (q >= 0)
                & (k != JANE1) & (k != JANE2)
                & (src != xs) & (src != xd) & (q != xs) & (q != xd)
                & (~dbl | ((src < xs) & (x % 4 != 3))))
    if not ok.all():
        ok = np.flatnonzero(ok)
        m, mb, j, src, col, srcc, c, q, qc, t, k = (
            a[ok] for a in (m, mb, j, src, col, srcc, c, q, qc, t, k))
    lands = k != BEAR
    replace = (k == HIT) | (k == JANE2)
    hq = Sf[mb + H0 + qc]
    n = m.size
    w = WIDTH if final else W
    R = S[m, :w]
    Rf = R.reshape(-1)
    rb = np.arange(n) * w
    hsh = H[m]
    # take the checker from its source
    sc = np.flatnonzero(col)
    rs, ss = rb[sc], srcc[sc]
    hs = Sf[mb[sc] + H0 + ss]
    _put(Rf, hsh, sc, rs, ss * 5 + hs - 1, 0)
    sb = np.flatnonzero(~col)
    pos = BAR - 1 + c[sb].astype(np.int64)
    _put(Rf, hsh, sb, rb[sb], pos, Rf[rb[sb] + pos] - 1)
    # put it down: on top (land, trap, Jane's first), in the top's place (hit), or off
    pos = np.where(lands, qc * 5 + hq - replace, OFF)
    _put(Rf, hsh, slice(None), rb, pos, np.where(lands, c, R[:, OFF] + 1))
    sel = np.flatnonzero(replace)
    pos = OPP_BAR - 1 + np.where(k[sel] == JANE2, GUARD, -t[sel].astype(np.int64))
    _put(Rf, hsh, sel, rb[sel], pos, Rf[rb[sel] + pos] + 1)
    sel = np.flatnonzero(k == JANE2)         # the first lander takes the Guard's slot
    _put(Rf, hsh, sel, rb[sel], qc[sel] * 5 + hq[sel] - 2, t[sel])
    if not final:
        # column summaries: the source shrinks by one, the destination gets the mover on top
        Rf[rs + H0 + ss] = hs - 1
        Rf[rs + T0 + ss] = Rf[rs + C0 + ss]
        Rf[rs + C0 + ss] = np.where(hs >= 3, Rf[rs + ss * 5 + np.maximum(hs - 3, 0)], 0)
        sl = np.flatnonzero(lands)
        rl, ql = rb[sl], qc[sl]
        Rf[rl + H0 + ql] = hq[sl] + ~replace[sl]
        Rf[rl + T0 + ql] = c[sl]
        Rf[rl + C0 + ql] = np.where(k[sl] == HIT, Rf[rl + C0 + ql], t[sl])
        # per-turn state
        gmove = (c == GENERAL) & col
        R[:, GEN] = np.where(gmove, np.where(j >= 24, 2, 1), R[:, GEN])
        R[:, PEND] = np.where(k == JANE1, q + 1, 0)
    mark = np.where(replace, np.where(k == JANE2, 3, 1), np.where(k == TRAP, 2, 0))
    code = ((src * 25 + np.where(lands, q + 1, 0)) * 4 + mark).astype(np.int16)
    return m, R, hsh, code, k == JANE1, live


def _put(Rf: np.ndarray, hsh: np.ndarray, sel, base: np.ndarray, pos: np.ndarray, new) -> None:
    """Write board bytes Rf[base + pos] = new and update the rows' Zobrist hashes hsh[sel]."""
    old = Rf[base + pos]
    new = np.asarray(new).astype(np.int8)
    Rf[base + pos] = new
    at = pos * 256
    hsh[sel] ^= _ZFLAT[at + old.view(np.uint8)] ^ _ZFLAT[at + new.view(np.uint8)]


def _hash(rows: np.ndarray) -> np.ndarray:
    """Zobrist hash of whole board rows (XOR of one random word per byte position and value)."""
    return np.bitwise_xor.reduce(_ZOBRIST[np.arange(WIDTH), rows[:, :WIDTH].view(np.uint8)], axis=1)


def _turn_key(S: np.ndarray, hsh: np.ndarray) -> np.ndarray:
    """A partial state's hash: the board's plus the per-turn state."""
    return hsh ^ _ZOBRIST[GEN, S[:, GEN].view(np.uint8)] ^ _ZOBRIST[PEND, S[:, PEND].view(np.uint8)]


def _distinct(group: np.ndarray, h: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices of the distinct (group, row) pairs: the shared exact `dedup_hashed`."""
    return dedup_hashed(group, h, rows)


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
        m, j = _moves(S, die)
        last = (seq[lane, k + 1] == 0) if k < 3 else np.ones(lane.size, dtype=bool)
        fin = last[m]
        prev = ordered = None
        if k >= 1:
            ordered = seq[lane, 2] > 0
            prev = np.where(ordered | rev[lane], mv[:, k - 1], -1)
        m1 = m2 = live = np.zeros(0, dtype=np.int64)
        if fin.any():
            m1, R1, H1, code1, _, live = _apply(S, H, m[fin], j[fin], die, True, prev, ordered)
        if not fin.all():
            m2, R2, H2, code2, waits, live2 = _apply(S, H, m[~fin], j[~fin], die, False, prev,
                                                     ordered)
            live = np.concatenate([live, live2])
        on = np.bincount(live, minlength=lane.size)
        done = np.flatnonzero((on == 0) & (S[:, PEND] == 0))
        out.append((S[done, :WIDTH], H[done], lane[done], np.full(done.size, k, np.int8), mv[done]))
        if m1.size:
            cmv = mv[m1]
            cmv[:, k] = code1
            out.append((R1, H1, lane[m1], np.full(m1.size, k + 1, np.int8), cmv))
        if m2.size:
            cmv = mv[m2]
            cmv[:, k] = code2
            clane = lane[m2]
            if k >= 1:  # only doubles go on: merge equal partial states first
                keep = np.sort(_distinct(clane, _turn_key(R2, H2), R2[:, :PEND + 1]))
                R2, H2, clane, cmv = R2[keep], H2[keep], clane[keep], cmv[keep]
            work.append((R2, H2, clane, cmv, k + 1))
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
    keep = keep[_distinct(group[keep], hsh[keep], rows[keep])]
    keep = keep[np.argsort(group[keep], kind="stable")]
    plays = [format_play(x) for x in mv[keep]] if with_plays else None
    return Afterstates(boards=rows[keep], parent=group[keep], plays=plays)


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
