"""Batched legal-move generation for the classic variants (standard, Nackgammon, Acey-deucey).

B positions and B rolls go in; every distinct legal afterstate of all of them comes out at once
(`Afterstates`), with no Python loop over positions or checkers. How:

* A play is built one movement (one die) at a time over a flat array of partial states. Each
  state carries bitmasks: `own` (sources holding a mover's checker: bits 0..23 for points, bit 24
  for the Acey-deucey pool, bit 25 for the bar) and `open` (points a checker may land on: empty,
  own, or a single opposing blot). `open` cannot change within a turn (a hit blot becomes ours),
  so it is computed once per position. The legal sources for die d are then a few integer ops:
  `own & (open << d)`, plus bar entry, pool entry and bear-off bits.
* A movement is applied by adding a precomputed change row DELTA[source, die, hit] to the
  gathered parent row: one fancy-indexed add for the whole batch.
* A non-double roll is played in both orders (d1 then d2, d2 then d1); a double is played as four
  movements with sources taken in non-increasing order, which still reaches every afterstate
  (any set of movements with one die can be reordered that way) and avoids most repeats.
* States that cannot go on are finished plays. The use-as-many-dice filter and the exact
  deduplication are the shared ones in common.py.

Acey-deucey's 1-2 is a 1-2 play followed by a double of the mover's choice: the afterstates are
the union over the six doubles (the use-as-many-dice rules apply to each part on its own).
"""

from __future__ import annotations

import numpy as np

from .board import BAR, N_POINTS, OFF, OPP_BAR, POOL, WIDTH
from .common import Afterstates, keep_most_dice, unique_rows

PAD = 32  # internal row width: rows are 32 bytes, i.e. four uint64 words for hashing
SRC_POOL, SRC_BAR = 24, 25
N_SRC = 26
_SRC_COL = np.array(list(range(N_POINTS)) + [POOL, BAR])
_MASK24 = np.int64((1 << 24) - 1)
_BITS = np.arange(N_SRC, dtype=np.int64)
# index of the highest set bit of a 6-bit home-board mask (-1 for none)
_HIGH6 = np.array([-1] + [int(i).bit_length() - 1 for i in range(1, 64)], dtype=np.int64)


def _build_delta() -> np.ndarray:
    """DELTA[(src * 7 + die) * 2 + hit] = change to a row when that movement is made."""
    delta = np.zeros((N_SRC, 7, 2, PAD), dtype=np.int8)
    for src in range(N_SRC):
        for die in range(1, 7):
            for hit in (0, 1):
                row = delta[src, die, hit]
                row[_SRC_COL[src]] -= 1
                dest = (24 if src >= 24 else src) - die
                if dest >= 0:
                    row[dest] += 1 + hit
                    row[OPP_BAR] += hit
                else:
                    row[OFF] += 1
    return delta.reshape(N_SRC * 7 * 2, PAD)


_DELTA = _build_delta()


def _pack_bits(flags: np.ndarray) -> np.ndarray:
    """[N, 24] bool -> int64 bitmask per row (bit i = column i)."""
    packed = np.packbits(flags, axis=1, bitorder="little")  # [N, 3] uint8
    return (packed[:, 0].astype(np.int64) | (packed[:, 1].astype(np.int64) << 8)
            | (packed[:, 2].astype(np.int64) << 16))


def _legal_sources(S: np.ndarray, open_: np.ndarray, die: np.ndarray, max_src: np.ndarray,
                   enter_all: bool) -> np.ndarray:
    """Bitmask of the sources from which a movement of `die` is legal, per state."""
    d = die.astype(np.int64)
    pts = S[:, :N_POINTS]
    own = _pack_bits(pts > 0)
    on_bar = S[:, BAR] > 0
    in_pool = S[:, POOL] > 0
    entry_open = (open_ >> (24 - d)) & 1
    m = own & (open_ << d) & _MASK24
    m |= (entry_open & in_pool) << SRC_POOL
    # bearing off: everything home (no checker on 7..24, the bar or in the pool)
    home = ((own & ~np.int64(63)) == 0) & ~on_bar & ~in_pool
    exact = own & (np.int64(1) << (d - 1))
    high = _HIGH6[own & 63]
    larger = np.where((high >= 0) & (high < d - 1), np.int64(1) << np.maximum(high, 0), 0)
    m |= np.where(home, exact | larger, 0)
    if enter_all:
        m = np.where(in_pool, entry_open << SRC_POOL, m)
    m = np.where(on_bar, entry_open << SRC_BAR, m)
    return m & ((np.int64(2) << max_src) - 1)


def _play_dice(S: np.ndarray, open_: np.ndarray, seq: np.ndarray, ordered: np.ndarray,
               moves: np.ndarray | None, enter_all: bool):
    """Play each state's dice sequence as far as possible; return every finished play.

    S: [M, PAD] states; open_: [M] open-point masks; seq: [M, 4] dice (0 = none); ordered: [M]
    True where sources must be non-increasing (doubles); moves: [M, k] move codes or None.
    Returns (rows, owner index into M, n_moves, moves or None).
    """
    M = S.shape[0]
    owner = np.arange(M)
    last = np.full(M, SRC_BAR, dtype=np.int64)
    done_rows, done_owner, done_n, done_moves = [], [], [], []
    track = moves is not None
    for k in range(4):
        die = seq[owner, k]
        mask = np.zeros(owner.shape[0], dtype=np.int64)
        playing = die > 0
        if playing.any():
            idx = np.flatnonzero(playing)
            mask[idx] = _legal_sources(S[idx], open_[owner[idx]], die[idx], last[idx], enter_all)
        stop = mask == 0
        if stop.any():
            done_rows.append(S[stop]); done_owner.append(owner[stop])
            done_n.append(np.full(int(stop.sum()), k, dtype=np.int8))
            if track:
                done_moves.append(moves[stop])
        bits = ((mask[:, None] >> _BITS) & 1).astype(bool)
        row, src = np.nonzero(bits)
        if row.size == 0:
            owner = owner[:0]
            break
        d = die[row].astype(np.int64)
        base = S[row]
        dest = np.where(src >= 24, 24, src) - d
        hit = (dest >= 0) & (base[np.arange(row.size), np.maximum(dest, 0)] == -1)
        S = base + _DELTA[(src * 7 + d) * 2 + hit]
        owner = owner[row]
        last = np.where(ordered[owner], src, SRC_BAR)
        if track:
            code = (src * 64 + (dest + 1) * 2 + hit).astype(np.int16)
            moves = np.concatenate([moves[row], code[:, None]], axis=1)
    if owner.size:
        done_rows.append(S); done_owner.append(owner)
        done_n.append(np.full(owner.size, 4, dtype=np.int8))
        if track:
            done_moves.append(moves)
    rows = np.concatenate(done_rows)
    own = np.concatenate(done_owner)
    n = np.concatenate(done_n)
    mv = None
    if track:
        width = max(m.shape[1] for m in done_moves)
        mv = np.concatenate([np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=-1)
                             for m in done_moves])
    return rows, own, n, mv


def _roll_plays(S: np.ndarray, dice: np.ndarray, moves: np.ndarray | None, enter_all: bool):
    """All plays of one roll per state, filtered by the use-as-many-dice rules (not deduped).

    Returns (rows, group = index of the input state, moves or None).
    """
    n = S.shape[0]
    d1 = dice[:, 0].astype(np.int8)
    d2 = dice[:, 1].astype(np.int8)
    double = d1 == d2
    # inputs: each position once in order (d1, d2) [or (d, d, d, d)], non-doubles again as (d2, d1)
    nd = np.flatnonzero(~double)
    group = np.concatenate([np.arange(n), nd])
    seq = np.zeros((group.size, 4), dtype=np.int8)
    seq[:n, 0] = d1
    seq[:n, 1] = d2
    seq[:n, 2] = np.where(double, d1, 0)
    seq[:n, 3] = np.where(double, d1, 0)
    seq[n:, 0] = d2[nd]
    seq[n:, 1] = d1[nd]
    ordered = double[group]
    open_ = _pack_bits(S[:, :N_POINTS] >= -1)[group]
    mv = None if moves is None else moves[group]
    rows, owner, n_moves, mv = _play_dice(S[group], open_, seq, ordered, mv, enter_all)
    g = group[owner]
    larger = np.where(double, 0, np.maximum(d1, d2))
    keep = keep_most_dice(g, n_moves, seq[owner, 0], larger, n)
    return rows[keep], g[keep], None if mv is None else mv[keep]


def legal_afterstates(boards: np.ndarray, dice: np.ndarray, *, with_plays: bool = False,
                      acey_deucey: bool = False, enter_all_before_moving: bool = False
                      ) -> Afterstates:
    """All distinct legal afterstates for a batch of classic positions and rolls.

    boards: int8 [B, 30] (see board.py), seen from the mover; dice: [B, 2] values 1..6.
    acey_deucey: a roll of 1-2 continues with a double of the mover's choice (union over the six).
    """
    boards = np.asarray(boards, dtype=np.int8)
    dice = np.asarray(dice)
    B = boards.shape[0]
    S = np.zeros((B, PAD), dtype=np.int8)
    S[:, :WIDTH] = boards
    moves = np.zeros((B, 0), dtype=np.int16) if with_plays else None
    rows, parent, mv = _roll_plays(S, dice, moves, enter_all_before_moving)
    if acey_deucey:
        is12 = np.sort(dice, axis=1)
        is12 = (is12[:, 0] == 1) & (is12[:, 1] == 2)
        if is12.any():
            rows, parent, mv = _add_chosen_double(rows, parent, mv, is12, enter_all_before_moving)
    keep = unique_rows(rows, parent)
    out = rows[keep, :WIDTH]
    plays = None if mv is None else [format_play(m) for m in mv[keep]]
    return Afterstates(boards=out, parent=parent[keep], plays=plays)


def _add_chosen_double(rows, parent, mv, is12, enter_all):
    """Replace the 1-2 plays of Acey-deucey by 1-2 followed by each of the six doubles."""
    first = is12[parent]
    stage = np.flatnonzero(first)
    base = np.repeat(stage, 6)
    dbl = np.tile(np.arange(1, 7, dtype=np.int8), stage.size)
    r2, g2, m2 = _roll_plays(rows[base], np.stack([dbl, dbl], axis=1),
                             None if mv is None else mv[base], enter_all)
    rest = ~first
    rows = np.concatenate([rows[rest], r2])
    new_parent = np.concatenate([parent[rest], parent[base[g2]]])
    if mv is not None:
        width = max(mv.shape[1], m2.shape[1])
        mv = np.concatenate([np.pad(mv[rest], ((0, 0), (0, width - mv.shape[1])), constant_values=-1),
                             np.pad(m2, ((0, 0), (0, width - m2.shape[1])), constant_values=-1)])
    return rows, new_parent, mv


def _point_name(src: int) -> str:
    return {SRC_BAR: "bar", SRC_POOL: "pool"}.get(src, str(src + 1))


def format_play(codes: np.ndarray) -> str:
    """Move codes -> standard notation: `24/18 13/11*`, `bar/22`, `6/off`; '' for no move."""
    parts = []
    for c in sorted((int(c) for c in codes if c >= 0), reverse=True):
        src, dest, hit = c // 64, (c % 64) // 2 - 1, c % 2
        parts.append(f"{_point_name(src)}/{'off' if dest < 0 else dest + 1}{'*' if hit else ''}")
    return " ".join(parts)
