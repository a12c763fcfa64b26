"""Movement-level actions: each legal play of a turn as a sequence of action ids, so that an
environment can let an agent play its turn one checker movement at a time.

Why a sequence per play: the move generators already know every legal play (with the
use-as-many-dice rules, Abak's stacks, Janes and General, Acey-deucey's 1-2); an agent may
only make a movement that is the next movement of some legal play given the movements made so
far this turn, so every legal play is reachable and nothing illegal is, with no rule written
twice. Encoding (fixed per variant; docs/envs.md):

    classic  a = source * 6 + (die - 1); source 0..23 = points 1..24, 24 = pool, 25 = bar;
             PASS = 156 (157 actions)
    abak     a = point * 6 + (die - 1)               forward movement from point 1..24
             a = 144 + point * 6 + (die - 1)         the General moving backward
             a = 288 + (class - 1) * 6 + (die - 1)   entering from the bar (S, G, D, K, O, E)
             PASS = 324 (325 actions)

PASS is offered only where the movements made so far already form a complete legal play and
longer ones exist (Acey-deucey: after a 1-2, a double that cannot be played at all).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from ..engine import board as cb
from ..engine.abak import board as ab
from ..engine.common import unique_rows
from ..engine.movegen import legal_afterstates as classic_afterstates

CLASSIC_PASS, ABAK_PASS = 156, 324
MAX_MOVES = 6            # Acey-deucey's 1-2 plus a double; 4 elsewhere
HIT, TRAP = 1, 2         # Abak movement marks (a Jane's completing landing is a hit)


def n_actions(variant) -> int:
    return ABAK_PASS + 1 if variant.kind == "abak" else CLASSIC_PASS + 1


def pass_action(variant) -> int:
    return ABAK_PASS if variant.kind == "abak" else CLASSIC_PASS


def describe_action(variant, a: int) -> str:
    """Human-readable name of an action id: `13 by 5`, `bar (G) by 3`, `6 back by 2`, `pass`."""
    a = int(a)
    if a == pass_action(variant):
        return "pass"
    if not 0 <= a < pass_action(variant):
        raise ValueError(f"action {a} is not in 0..{pass_action(variant)}")
    die = a % 6 + 1
    if variant.kind == "abak":
        if a >= 288:
            return f"bar ({ab.LETTERS[(a - 288) // 6]}) by {die}"
        return f"{(a % 144) // 6 + 1}{' back' if a >= 144 else ''} by {die}"
    src = a // 6
    return f"{ {24: 'pool', 25: 'bar'}.get(src, str(src + 1)) } by {die}"


@dataclass
class TurnTable:
    """Every legal play of a batch of positions and rolls as action sequences.

    parent [P]: the position each play belongs to (non-decreasing); actions [P, MAX_MOVES] int16,
    -1 after the play's end; marks [P, MAX_MOVES] int8 (Abak: HIT / TRAP per movement);
    length [P]; boards [P, W]: each play's afterstate (seen from the mover, not flipped).
    """

    parent: np.ndarray
    actions: np.ndarray
    marks: np.ndarray
    length: np.ndarray
    boards: np.ndarray

    def __len__(self) -> int:
        return int(self.parent.shape[0])


def _assign_off_dice(moves: list, dice: list[int], where: str) -> list:
    """Dice of the bear-offs: what the other movements leave, exact where possible, else the
    smallest larger die (a bear-off from the highest point)."""
    left = list(dice)
    for m in moves:
        if m[1] is not None:
            left.remove(m[1])
    out = []
    for src_pt, die, rest in moves:
        if die is None:
            bigger = [d for d in left if d >= src_pt]
            if not bigger:
                raise ValueError(f"cannot assign a die to a bear-off in {where!r}")
            die = src_pt if src_pt in left else min(bigger)
            left.remove(die)
        out.append((src_pt, die, rest))
    return out


_CACHE: dict = {}


def _parse_classic(play: str, dice: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    key = ("c", play, dice if "off" in play else None)   # only bear-offs need the roll
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    moves = []
    for token in play.split():
        frm, to = token.rstrip("*").split("/")
        src = {"bar": 25, "pool": 24}.get(frm)
        src = int(frm) - 1 if src is None else src
        src_pt = 25 if src >= 24 else src + 1
        die = None if to == "off" else src_pt - int(to)
        moves.append((src_pt, die, src, 0 if to == "off" else int(to)))
    # an order that can be carried out whatever order the notation lists: the bar, the pool,
    # then from the highest point down (arrivals before departures, outside moves before
    # bear-offs), bear-offs last from a point
    moves.sort(key=lambda m: (-m[2] if m[2] >= 24 else 0, -m[0], -m[3]))
    moves = [m[:3] for m in moves]
    acts = tuple(src * 6 + die - 1 for _, die, src in _assign_off_dice(moves, list(dice), play))
    out = (acts, (0,) * len(acts))
    if len(_CACHE) > 200_000:
        _CACHE.clear()
    _CACHE[key] = out
    return out


def _parse_abak(play: str, dice: tuple) -> tuple[list, tuple[int, ...]]:
    """(movements as (kind, point, die) with kind 'f'/'b'/'bar', marks) in the order played;
    for an entry the "point" is the class when the notation names it, else 0."""
    key = ("a", play, dice if "off" in play else None)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    moves, marks = [], []
    for token in play.split():
        mark = {"*": HIT, "^": TRAP}.get(token[-1], 0)
        frm, to = token.rstrip("*^").split("/")
        if frm.startswith("bar"):   # `bar/22`, or `bar(G)/22` where the notation names the class
            cls = ab.LETTERS.index(frm[4]) + 1 if frm.startswith("bar(") else 0
            moves.append((25, 25 - int(to), ("bar", cls)))
        elif to == "off":
            moves.append((int(frm), None, ("f", int(frm) - 1)))
        else:
            s, t = int(frm), int(to)
            moves.append((s, abs(s - t), ("b" if t > s else "f", s - 1)))
        marks.append(mark)
    out = ([(kind, p, die) for _, die, (kind, p) in _assign_off_dice(moves, list(dice), play)],
           tuple(marks))
    if len(_CACHE) > 200_000:
        _CACHE.clear()
    _CACHE[key] = out
    return out


def _abak_action(kind: str, p: int, die: int, cls: int) -> int:
    if kind == "bar":
        return 288 + (cls - 1) * 6 + die - 1
    return (144 if kind == "b" else 0) + p * 6 + die - 1


def _abak_actions(moves, marks, before: np.ndarray, after: np.ndarray) -> tuple[int, ...]:
    """Action ids of one Abak play. Where the notation does not name an entering checker's
    class (`bar/22`), it is read off the boards: the bar's loss, and where two classes entered,
    the order that carried out gives the afterstate."""
    n_bar = sum(1 for k, _, _ in moves if k == "bar")
    if n_bar == 0 or all(p for k, p, _ in moves if k == "bar"):   # no entry, or classes named
        return tuple(_abak_action(k, p, d, p) for k, p, d in moves)
    lost = before[ab.BAR:ab.BAR + 6].astype(int) - after[ab.BAR:ab.BAR + 6]
    entered = [c + 1 for c in range(6) for _ in range(int(lost[c]))]
    orders = [tuple(entered)] if len(set(entered)) == 1 else sorted(set(permutations(entered)))
    for order in orders:
        acts = tuple(_abak_action(k, p, d, order[i] if k == "bar" else 0)
                     for i, (k, p, d) in enumerate(moves))
        if len(orders) == 1:
            return acts
        row = before[None].copy()
        for a, m in zip(acts, marks):
            row = apply_actions_abak(row, np.array([a]), np.array([m]))
        if (row[0] == after).all():
            return acts
    raise ValueError("no order of the bar entries gives the afterstate")


def turn_tables(variant, boards: np.ndarray, dice: np.ndarray) -> TurnTable:
    """The TurnTable of positions `boards` (seen from the mover) and rolls `dice` [n, 2]."""
    boards = np.asarray(boards, dtype=np.int8)
    dice = np.asarray(dice, dtype=np.int8)
    n = boards.shape[0]
    one_two = np.zeros(n, bool)
    if getattr(variant, "acey_deucey", False):
        one_two = (dice.min(axis=1) == 1) & (dice.max(axis=1) == 2)
    parts = []
    plain = np.flatnonzero(~one_two)
    if plain.size:
        after = variant.legal_afterstates(boards[plain], dice[plain], with_plays=True)
        par = plain[after.parent]
        starts = np.append(after.starts(plain.size), len(after))
        rows, plays = [], after.plays
        abak = variant.kind == "abak"
        for j, i in enumerate(plain):          # one roll per position, then its plays
            d = (int(dice[i, 0]), int(dice[i, 1]))
            d = d * 2 if d[0] == d[1] else d
            lo, hi = int(starts[j]), int(starts[j + 1])
            if abak:
                for r in range(lo, hi):
                    moves, marks = _parse_abak(plays[r], d)
                    rows.append((_abak_actions(moves, marks, boards[i], after.boards[r]), marks))
            else:
                rows += [_parse_classic(p, d) for p in plays[lo:hi]]
        parts.append((par, rows, np.ascontiguousarray(after.boards)))
    if one_two.any():
        parts.append(_one_two_plays(variant, boards, np.flatnonzero(one_two)))
    par = np.concatenate([p for p, _, _ in parts])
    rows = [r for _, rs, _ in parts for r in rs]
    out_boards = np.concatenate([b for _, _, b in parts])
    order = np.argsort(par, kind="stable")
    length = np.fromiter((len(rows[j][0]) for j in order), np.int8, count=par.size)
    acts = np.full((par.size, MAX_MOVES), -1, np.int16)
    marks = np.zeros((par.size, MAX_MOVES), np.int8)
    for k in range(1, MAX_MOVES + 1):       # fill plays of k movements together
        sel = np.flatnonzero(length == k)
        if sel.size:
            acts[sel, :k] = [rows[order[i]][0] for i in sel]
            marks[sel, :k] = [rows[order[i]][1] for i in sel]
    return TurnTable(par[order], acts, marks, length, out_boards[order])


def _one_two_plays(variant, boards, idx):
    """Acey-deucey 1-2 as two parts, each in its own order: the 1-2 play, then a double of
    the mover's choice from its afterstate (the union the engine computes, kept as sequences)."""
    enter_all = variant.enter_all_before_moving
    first = classic_afterstates(boards[idx], np.tile(np.array([[1, 2]], np.int8), (idx.size, 1)),
                                with_plays=True, enter_all_before_moving=enter_all)
    rep = np.repeat(np.ascontiguousarray(first.boards), 6, axis=0)
    dbl = np.repeat(np.tile(np.arange(1, 7, dtype=np.int8), len(first))[:, None], 2, axis=1)
    second = classic_afterstates(rep, dbl, with_plays=True, enter_all_before_moving=enter_all)
    par = idx[first.parent[second.parent // 6]]
    out = np.ascontiguousarray(second.boards)
    keep = unique_rows(out, par)   # one sequence per afterstate (many orders reach most)
    rows = []
    for i in keep:
        j = second.parent[i]
        a1, _ = _parse_classic(first.plays[j // 6], (1, 2))
        a2, _ = _parse_classic(second.plays[i], (j % 6 + 1,) * 4)
        rows.append((a1 + a2, (0,) * (len(a1) + len(a2))))
    return par[keep], rows, out[keep]


def apply_actions(variant, boards: np.ndarray, actions: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """The boards after one movement each (actions are movement ids, not PASS); a new array."""
    if variant.kind == "abak":
        return apply_actions_abak(boards, actions, marks)
    return apply_actions_classic(boards, actions)


def apply_actions_classic(boards: np.ndarray, actions: np.ndarray) -> np.ndarray:
    rows = np.array(boards, dtype=np.int8)
    a = np.asarray(actions, dtype=np.int64)
    idx = np.arange(a.size)
    src, die = a // 6, a % 6 + 1
    col = np.where(src == 25, cb.BAR, np.where(src == 24, cb.POOL, src))
    rows[idx, col] -= 1
    to = np.where(src >= 24, 24, src) - die
    off = to < 0
    rows[idx[off], cb.OFF] += 1
    on, t = idx[~off], to[~off]
    hit = rows[on, t] == -1
    rows[on[hit], t[hit]] = 0
    rows[on[hit], cb.OPP_BAR] += 1
    rows[on, t] += 1
    return rows


def apply_actions_abak(boards: np.ndarray, actions: np.ndarray, marks: np.ndarray) -> np.ndarray:
    rows = np.array(boards, dtype=np.int8)
    a = np.asarray(actions, dtype=np.int64)
    marks = np.asarray(marks)
    n = a.size
    st = rows[:, :ab.SLOTS].reshape(n, ab.N_POINTS, ab.HEIGHT)  # a view: writes go to rows
    idx = np.arange(n)
    die = a % 6 + 1
    bar = a >= 288
    moving = np.zeros(n, np.int8)
    b = idx[bar]
    cls = (a[bar] - 288) // 6 + 1
    rows[b, ab.BAR + cls - 1] -= 1
    moving[b] = cls
    q = idx[~bar]
    p = (a[~bar] % 144) // 6
    h = (st[q, p] != 0).sum(-1)
    moving[q] = st[q, p, h - 1]
    st[q, p, h - 1] = 0
    dest = np.where(bar, 24 - die, np.where(a >= 144, (a % 144) // 6 + die, (a % 144) // 6 - die))
    off = dest < 0
    rows[idx[off], ab.OFF] += 1
    on, d = idx[~off], dest[~off]
    col = st[on, d].copy()
    hit = np.flatnonzero(marks[on] == HIT)
    if hit.size:
        c = col[hit]
        top = ab.HEIGHT - 1 - np.argmax((c < 0)[:, ::-1], axis=1)   # the topmost opposing checker
        rows[on[hit], ab.OPP_BAR - 1 - c[np.arange(hit.size), top].astype(np.int64)] += 1
        s = np.arange(ab.HEIGHT)
        shifted = np.concatenate([c[:, 1:], np.zeros((hit.size, 1), np.int8)], axis=1)
        col[hit] = np.where(s[None] < top[:, None], c, shifted)
    height = (col != 0).sum(-1)
    col[np.arange(on.size), height] = moving[on]
    st[on, d] = col
    return rows
