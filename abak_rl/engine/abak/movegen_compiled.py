"""Legal afterstates of Abak Evolution positions, compiled with Numba (rules: docs/rules-abak.md).

The NumPy generator (movegen.py) plays a whole batch a movement at a time in array calls; this
module plays the same rules one position at a time inside one compiled loop, as a depth-first
search over the movements (at most four deep), one node per depth:

* a node is the board, its column heights, the General's direction this turn (0 free,
  1 forward, 2 backward: frozen), the point where a Jane waits for its second lander, the
  counts of own checkers outside the home board (the General apart: it may move backward only
  while another checker is outside; nobody bears off while any is), and 24-bit masks (bit p =
  point p + 1): the mover's tops per class, the points a plain checker, a Guard, a Druid may
  land on, the lone opposing Guards. A movement redoes the bits of the two columns it touches
  (`_column`), so a node's legal movements are a few shifts and ANDs (`_movements`), as in the
  NumPy generator;
* a node is a finished play when no movement leads on to a node without a waiting Jane; one
  with a waiting Jane is never a play (so a Jane still waiting when the dice run out is
  illegal). Only plays using the most dice are kept, and of a non-double's one-die plays the
  larger die's when there are any;
* every order of the dice is searched (stacks make order matter), except that of two plain
  forward movements on four distinct points, neither part of a Jane nor landing on a lone
  Guard, the order another branch is sure to produce is skipped: in a non-double's second
  order (the first order plays them the other way round), and in a double the pair whose
  second movement starts lower (any play sorts into one without such pairs by swapping such
  neighbours, each swap legal and leaving the same boards);
* each node carries the Zobrist hash of its changes to the start position (movegen's table);
  equal plays of a position are merged in a small open-addressing table (rows compared in full
  where hashes meet), and a position's afterstates come out sorted by that hash mixed with the
  position's index: the order of movegen's NumPy path (its last sort is by the same key), so
  callers that sample or break ties by row index get the same rows whichever path ran.

movegen.legal_afterstates uses it wherever no play notation is asked for, and movegen.can_move
uses `can_move` (tests/test_abak_movegen_compiled.py compares both with the NumPy path).
AVAILABLE is False where Numba cannot be imported.
"""

from __future__ import annotations

import numpy as np

from ...jit import AVAILABLE
from ...jit import jit as _jit
from ..movegen_compiled import _DEBRUIJN, _low     # the classic kernel's lowest-set-bit helper
from .board import BAR, DRUID, EVEN, GENERAL, GUARD, HEIGHT, ODD, OFF, OPP_BAR, SOLDIER, WIDTH

__all__ = ["AVAILABLE", "can_move", "generate"]

ROW = 136                  # a node's board: the 134 bytes and two zero bytes (17 words of 8)
WORDS = ROW // 8
DEPTH = 5                  # the start node and up to four movements
ALL24 = (1 << 24) - 1

# what a movement does where it lands
PUSH, HIT, TRAP, JANE_START, JANE_END, BEAR_OFF = range(6)
# a node's scalars: General's direction, waiting Jane's point (-1: none), own checkers outside the
# home board (bar included) other than the General / the General, own checkers on the bar; the
# movement that made the node (source and landing point if a plain forward move between two
# points, else source -1) and whether it completed a Jane; then the masks: the mover's tops of
# class c at TOPS + c - 1, the points a plain checker (Soldier, General, Wounded), a Guard, a
# Druid may land on (no Jane waiting), the lone opposing Guards
GEN, PEND, OUT_OTHERS, OUT_GENERAL, ON_BAR, X_SRC, X_DST, X_JANE_END = range(8)
TOPS = 8
LAND_PLAIN, LAND_GUARD, LAND_DRUID, LONE_GUARD = range(TOPS + 6, TOPS + 10)
N_SCALARS = TOPS + 10
# bits of a node's movement mask: 0..23 forward (or off) from that point, 24 the General
# backward, 24 + c entry of class c
BACKWARD = 24
# which search-order skips apply: none (a non-double's first order), a non-double's second
# order, a double
FIRST_ORDER, SECOND_ORDER, DOUBLE = 0, 1, 2


@_jit
def _column(rows, heights, scalars, k, p):
    """Redo column p's bits in node k's masks from its height and top run."""
    bit = np.int64(1) << p
    for i in range(TOPS, N_SCALARS):
        scalars[k, i] &= ~bit
    _column_bits(rows, heights, scalars, k, p, bit)


@_jit
def _column_bits(rows, heights, scalars, k, p, bit):
    """Set column p's bits (bit = 1 << p, clear in every mask) in node k's masks."""
    h = heights[k, p]
    if h == 0:
        scalars[k, LAND_PLAIN] |= bit
        scalars[k, LAND_GUARD] |= bit
        scalars[k, LAND_DRUID] |= bit
        return
    top = rows[k, p * HEIGHT + h - 1]
    room = h < HEIGHT
    if top > 0:
        scalars[k, TOPS + top - 1] |= bit
        if room:
            scalars[k, LAND_PLAIN] |= bit
            scalars[k, LAND_GUARD] |= bit
            scalars[k, LAND_DRUID] |= bit
        return
    if h >= 2 and rows[k, p * HEIGHT + h - 2] < 0:
        return                                  # two opposing checkers on top: blocked
    lone_guard = top == -GUARD
    if lone_guard:
        scalars[k, LONE_GUARD] |= bit
    scalars[k, LAND_GUARD] |= bit               # a Guard hits any single checker
    if room or not lone_guard:                  # a hit, or a Jane's first lander (needs room)
        scalars[k, LAND_PLAIN] |= bit
    if (room if 6 <= p <= 17 else (room or not lone_guard)):   # the Druid traps on 7..18
        scalars[k, LAND_DRUID] |= bit


@_jit
def _highest_home(rows, heights, k):
    """The highest point index 0..5 holding a checker of the mover's (buried ones too), or -1."""
    for p in range(5, -1, -1):
        for s in range(heights[k, p]):
            if rows[k, p * HEIGHT + s] > 0:
                return p
    return -1


@_jit
def _movements(rows, heights, scalars, k, d, mode):
    """(the legal movements of node k with die d as a mask, see BACKWARD; those of them left to
    another branch of the search, see the module docstring)."""
    sc = scalars[k]
    pend = sc[PEND]
    if sc[ON_BAR] > 0:                          # every movement is an entry
        e = 24 - d
        entries = 0
        for c in range(1, 7):
            if rows[k, BAR + c - 1] == 0:
                continue
            if pend >= 0:
                ok = e == pend and c != GUARD
            else:
                land = LAND_GUARD if c == GUARD else (LAND_DRUID if c == DRUID else LAND_PLAIN)
                ok = (sc[land] >> e) & 1 == 1
            if ok:
                entries |= np.int64(1) << (BACKWARD + c)
        return entries, 0
    general = sc[TOPS + GENERAL - 1] if sc[GEN] != 2 else 0
    wounded = sc[TOPS + (ODD if d % 2 == 1 else EVEN) - 1]
    plain = sc[TOPS + SOLDIER - 1] | general | wounded
    druid = sc[TOPS + DRUID - 1]
    guard = sc[TOPS + GUARD - 1]
    can_back = sc[GEN] == 0 and sc[OUT_OTHERS] > 0
    if pend >= 0:                               # the next movement must land on the Jane
        fwd = (plain | druid) & ((np.int64(1) << (pend + d)) & ALL24)
        if can_back and pend - d >= 0:
            if general & (np.int64(1) << (pend - d)):
                fwd |= np.int64(1) << BACKWARD
        return fwd, 0
    fwd = ((plain & (sc[LAND_PLAIN] << d)) | (druid & (sc[LAND_DRUID] << d))
           | (guard & (sc[LAND_GUARD] << d))) & ALL24
    if sc[OUT_OTHERS] + sc[OUT_GENERAL] == 0:   # bearing off: exact, or larger from the highest
        own = plain | sc[TOPS + ODD - 1] | sc[TOPS + EVEN - 1] | druid | guard
        if (own >> (d - 1)) & 1:
            fwd |= np.int64(1) << (d - 1)
        else:
            high = _highest_home(rows, heights, k)
            if 0 <= high < d - 1 and (own >> high) & 1:
                fwd |= np.int64(1) << high
    if can_back and general & (sc[LAND_PLAIN] >> d):
        fwd |= np.int64(1) << BACKWARD
    skip = 0
    xs = sc[X_SRC]
    if mode != FIRST_ORDER and xs >= 0:
        near = (np.int64(1) << xs) | (np.int64(1) << sc[X_DST])
        kept = near | (near << d) | ((np.int64(1) << d) - 1) | (sc[LONE_GUARD] << d)
        skip = fwd & ALL24 & ~kept
        if mode == DOUBLE:
            skip &= 0 if sc[X_JANE_END] else (np.int64(1) << xs) - 1
    return fwd & ~skip, skip


@_jit
def _movement(rows, heights, scalars, k, bit, d):
    """Movement `bit` of `_movements` for node k and die d: (what it does, source point index
    (-class for an entry), landing point index (-1: off), class)."""
    if bit < BACKWARD:
        src = bit
        q = bit - d
        code = np.int64(rows[k, src * HEIGHT + heights[k, src] - 1])
    elif bit == BACKWARD:
        src = _low(scalars[k, TOPS + GENERAL - 1], _DEBRUIJN)
        q = src + d
        code = np.int64(GENERAL)
    else:
        code = np.int64(bit - BACKWARD)
        src = -code
        q = 24 - d
    if q < 0:
        return BEAR_OFF, src, q, code
    if scalars[k, PEND] >= 0:
        return JANE_END, src, q, code
    h = heights[k, q]
    top = rows[k, q * HEIGHT + h - 1] if h > 0 else 0
    if top >= 0:
        return PUSH, src, q, code
    if code == DRUID and 6 <= q <= 17:
        return TRAP, src, q, code
    if top == -GUARD and code != GUARD:
        return JANE_START, src, q, code
    return HIT, src, q, code


@_jit
def _put(rows, k, i, value, h, zobrist):
    """rows[k, i] = value; returns the hash h with the change folded in."""
    old = np.int64(rows[k, i])
    rows[k, i] = value
    return h ^ zobrist[i, old & 0xFF] ^ zobrist[i, np.int64(value) & 0xFF]


@_jit
def _outside(scalars, k, code, delta):
    """delta more of node k's checkers of class `code` outside the home board."""
    scalars[k, OUT_GENERAL if code == GENERAL else OUT_OTHERS] += delta


@_jit
def _make(words, rows, heights, scalars, hashes, k, kind, src, q, code, backward, zobrist, full):
    """Node k + 1 = node k after the movement (kind, src, q, code) of `_movement`. Only its
    board, hash and waiting Jane unless `full` (a last movement's node is only emitted)."""
    for w in range(k * WORDS, (k + 1) * WORDS):
        words[w + WORDS] = words[w]
    h = hashes[k]
    src_height = heights[k, src] if src >= 0 else 0
    q_height = heights[k, q] if q >= 0 else 0
    if full:
        for p in range(24):
            heights[k + 1, p] = heights[k, p]
        for i in range(N_SCALARS):
            scalars[k + 1, i] = scalars[k, i]
    k += 1
    if src >= 0:
        h = _put(rows, k, src * HEIGHT + src_height - 1, 0, h, zobrist)
    else:
        h = _put(rows, k, BAR + code - 1, rows[k, BAR + code - 1] - 1, h, zobrist)
    if kind == BEAR_OFF:
        h = _put(rows, k, OFF, rows[k, OFF] + 1, h, zobrist)
    else:
        top = q * HEIGHT + q_height - 1
        if kind == HIT:
            victim_bar = OPP_BAR - 1 - np.int64(rows[k, top])
            h = _put(rows, k, top, code, h, zobrist)
            h = _put(rows, k, victim_bar, rows[k, victim_bar] + 1, h, zobrist)
        elif kind == JANE_END:          # the Guard under the first lander goes to the bar
            h = _put(rows, k, top - 1, rows[k, top], h, zobrist)
            h = _put(rows, k, top, code, h, zobrist)
            h = _put(rows, k, OPP_BAR + GUARD - 1, rows[k, OPP_BAR + GUARD - 1] + 1, h, zobrist)
        else:
            h = _put(rows, k, top + 1, code, h, zobrist)
    hashes[k] = h
    scalars[k, PEND] = q if kind == JANE_START else -1
    if not full:
        return
    if src >= 0:
        heights[k, src] -= 1
    if kind == PUSH or kind == TRAP or kind == JANE_START:
        heights[k, q] += 1
    if src < 0:
        scalars[k, ON_BAR] -= 1
    if src < 0 or src >= 6:
        _outside(scalars, k, code, -1)
    if q >= 6:
        _outside(scalars, k, code, 1)
    if code == GENERAL and src >= 0:
        scalars[k, GEN] = 2 if backward else 1
    scalars[k, X_SRC] = src if src >= 0 and q >= 0 and not backward else -1
    scalars[k, X_DST] = q
    scalars[k, X_JANE_END] = kind == JANE_END
    if src >= 0:
        _column(rows, heights, scalars, k, src)
    if q >= 0:
        _column(rows, heights, scalars, k, q)


@_jit
def _root(boards, p, rows, heights, scalars):
    """Node 0 from boards[p]."""
    scalars[0, :] = 0
    scalars[0, PEND] = -1
    scalars[0, X_SRC] = -1
    for i in range(WIDTH):
        rows[0, i] = boards[p, i]
    for q in range(24):
        h = 0
        for s in range(HEIGHT):
            v = boards[p, q * HEIGHT + s]
            if v != 0:
                h = s + 1
            if v > 0 and q >= 6:
                _outside(scalars, 0, v, 1)
        heights[0, q] = h
        _column_bits(rows, heights, scalars, 0, q, np.int64(1) << q)
    for c in range(1, 7):
        n = np.int64(boards[p, BAR + c - 1])
        scalars[0, ON_BAR] += n
        _outside(scalars, 0, c, n)


@_jit
def _same(cand_words, j, words, k):
    """Whether candidate row j equals node k's board (as words)."""
    for w in range(WORDS):
        if cand_words[j * WORDS + w] != words[k * WORDS + w]:
            return False
    return True


@_jit
def _find(cand_words, cand_hash, table, stamp, gen, words, k, h):
    """(index of the candidate equal to node k's board or -1, the table slot where it is or
    would go): open addressing on the hash h, slots valid when stamped with `gen`."""
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while stamp[slot] == gen:
        j = table[slot]
        if cand_hash[j] == h and _same(cand_words, j, words, k):
            return j, slot
        slot = (slot + 1) & mask
    return -1, slot


@_jit
def _plays(rows, words, heights, scalars, hashes, todo, cont, seq, a, b, zobrist,
           cand_words, cand_hash, cand_larger, table, stamp, gen):
    """Search node 0's plays with dice a, b; returns (candidates, most dice used, next stamp),
    or candidates -1 when more than the buffers hold. The candidates are the distinct finished
    plays using the most dice (rows in cand_words, hashes, whether a play reaching each starts
    with the larger die); the table's slots count when stamped `gen` (never cleared). words:
    rows as uint64."""
    most = -1
    c = 0
    for lane in range(1 if a == b else 2):
        if a == b:
            seq[:] = a
            n_dice = 4
            mode = DOUBLE
        else:
            seq[0], seq[1] = (a, b) if lane == 0 else (b, a)
            n_dice = 2
            mode = FIRST_ORDER if lane == 0 else SECOND_ORDER
        first_is_larger = a != b and seq[0] == max(a, b)
        k = 0
        todo[0], skipped = _movements(rows, heights, scalars, 0, seq[0], mode)
        cont[0] = skipped != 0
        while k >= 0:
            if k == n_dice or todo[k] == 0:
                if scalars[k, PEND] < 0 and not cont[k] and k >= most:     # a finished play
                    if k > most:                  # more dice used: the earlier plays are out
                        most = k
                        c = 0
                        gen += 1
                    found, slot = _find(cand_words, cand_hash, table, stamp, gen, words, k,
                                        hashes[k])
                    if found >= 0:
                        cand_larger[found] |= first_is_larger
                    elif c == cand_hash.shape[0]:
                        return -1, most, gen + 1
                    else:
                        for w in range(WORDS):
                            cand_words[c * WORDS + w] = words[k * WORDS + w]
                        cand_hash[c] = hashes[k]
                        cand_larger[c] = first_is_larger
                        stamp[slot] = gen
                        table[slot] = c
                        c += 1
                k -= 1
                continue
            m = todo[k]
            bit = _low(m, _DEBRUIJN)
            todo[k] = m & (m - 1)
            kind, src, q, code = _movement(rows, heights, scalars, k, bit, seq[k])
            last = k + 1 == n_dice
            _make(words, rows, heights, scalars, hashes, k, kind, src, q, code,
                  bit == BACKWARD, zobrist, not last)
            k += 1
            if scalars[k, PEND] < 0:
                cont[k - 1] = True
            cont[k] = False
            if not last:
                todo[k], skipped = _movements(rows, heights, scalars, k, seq[k], mode)
                cont[k] = skipped != 0
    return c, most, gen + 1


@_jit
def _sort_by_key(keys, values, m):
    """Sort keys[:m] ascending, values[:m] along (insertion sort for the usual few dozen)."""
    if m > 64:
        order = np.argsort(keys[:m])
        keys[:m] = keys[:m][order]
        values[:m] = values[:m][order]
        return
    for i in range(1, m):
        key = keys[i]
        value = values[i]
        j = i - 1
        while j >= 0 and keys[j] > key:
            keys[j + 1] = keys[j]
            values[j + 1] = values[j]
            j -= 1
        keys[j + 1] = key
        values[j + 1] = value


@_jit
def _generate(boards, dice, zobrist, mix):
    B = boards.shape[0]
    out = np.empty((max(64, 32 * B) * WORDS), np.uint64)     # afterstates, ROW bytes each
    parent = np.empty(out.shape[0] // WORDS, np.int64)
    n = 0
    rows = np.zeros((DEPTH, ROW), np.int8)
    words = rows.reshape(-1).view(np.uint64)
    heights = np.zeros((DEPTH, 24), np.int64)
    scalars = np.zeros((DEPTH, N_SCALARS), np.int64)
    hashes = np.zeros(DEPTH, np.uint64)
    todo = np.zeros(DEPTH, np.int64)         # per depth: the movements not yet searched
    cont = np.zeros(DEPTH, np.bool_)         # per depth: some movement leads on (no Jane waiting)
    seq = np.zeros(4, np.int64)
    capacity = 256                           # candidate plays a position (doubled when short)
    gen = 1
    p = 0
    while True:
        cand_words = np.empty(capacity * WORDS, np.uint64)
        cand_hash = np.empty(capacity, np.uint64)
        cand_larger = np.zeros(capacity, np.bool_)
        keys = np.empty(capacity, np.uint64)
        picked = np.empty(capacity, np.int64)
        table = np.zeros(2 * capacity, np.int64)
        stamp = np.zeros(2 * capacity, np.int64)
        while p < B:
            _root(boards, p, rows, heights, scalars)
            a = np.int64(dice[p, 0])
            b = np.int64(dice[p, 1])
            c, most, gen = _plays(rows, words, heights, scalars, hashes, todo, cont, seq, a, b,
                                  zobrist, cand_words, cand_hash, cand_larger, table, stamp, gen)
            if c < 0:
                break
            # the larger-die rule, then the position's afterstates in the NumPy path's order
            only_larger = False
            if a != b and most == 1:
                for j in range(c):
                    only_larger |= cand_larger[j]
            m = 0
            for j in range(c):
                if not only_larger or cand_larger[j]:
                    keys[m] = cand_hash[j] ^ (np.uint64(p) * mix)
                    picked[m] = j
                    m += 1
            _sort_by_key(keys, picked, m)
            if (n + m) * WORDS > out.shape[0]:
                size = out.shape[0]
                while (n + m) * WORDS > size:
                    size *= 2
                grown = np.empty(size, np.uint64)
                grown[:n * WORDS] = out[:n * WORDS]
                out = grown
                grown_parent = np.empty(size // WORDS, np.int64)
                grown_parent[:n] = parent[:n]
                parent = grown_parent
            for i in range(m):
                j = picked[i]
                for w in range(WORDS):
                    out[n * WORDS + w] = cand_words[j * WORDS + w]
                parent[n] = p
                n += 1
            p += 1
        if p == B:
            break
        capacity *= 2                        # a position with more plays: redo it with room
    return parent[:n], out[:n * WORDS].view(np.int8).reshape(n, ROW)


def generate(boards: np.ndarray, dice: np.ndarray, zobrist: np.ndarray,
             mix: np.uint64) -> tuple[np.ndarray, np.ndarray]:
    """(parent int64 [N] non-decreasing, afterstates int8 [N, 134]) of Abak rows [B, 134] seen
    from the mover and dice [B, 2]. zobrist (uint64 [>= 134, 256], a word per byte position and
    value) and mix order each position's afterstates, by the hash of their changes ^ position
    index * mix: pass movegen's, and the order is movegen's."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if boards.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros((0, WIDTH), np.int8)
    parent, rows = _generate(boards, np.ascontiguousarray(dice, dtype=np.int64),
                             np.ascontiguousarray(zobrist, dtype=np.uint64), np.uint64(mix))
    return parent, rows[:, :WIDTH]


@_jit
def _can_move(boards, out):
    rows = np.zeros((DEPTH, ROW), np.int8)
    words = rows.reshape(-1).view(np.uint64)
    heights = np.zeros((DEPTH, 24), np.int64)
    scalars = np.zeros((DEPTH, N_SCALARS), np.int64)
    hashes = np.zeros(DEPTH, np.uint64)
    zobrist = np.zeros((WIDTH, 256), np.uint64)        # (no hashes needed here)
    for p in range(boards.shape[0]):
        _root(boards, p, rows, heights, scalars)
        for d in range(1, 7):
            m = _movements(rows, heights, scalars, 0, d, FIRST_ORDER)[0]
            while m and not out[p]:
                bit = _low(m, _DEBRUIJN)
                m &= m - 1
                kind, src, q, code = _movement(rows, heights, scalars, 0, bit, d)
                if kind != JANE_START:
                    out[p] = True
                    break
                # a first Jane lander: some roll plays it when some die completes the Jane
                _make(words, rows, heights, scalars, hashes, 0, kind, src, q, code,
                      bit == BACKWARD, zobrist, True)
                for second in range(1, 7):
                    if _movements(rows, heights, scalars, 1, second, FIRST_ORDER)[0] != 0:
                        out[p] = True
                        break
            if out[p]:
                break


def can_move(boards: np.ndarray) -> np.ndarray:
    """True where the player to move has a legal play for some roll: some die has a first
    movement that leaves no Jane waiting, or starts a Jane that some die then completes (the
    other die of a non-double, or the same one of a double). movegen.can_move's answer."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.zeros(boards.shape[0], dtype=np.bool_)
    if boards.shape[0]:
        _can_move(boards, out)
    return out
