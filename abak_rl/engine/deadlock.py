"""Total deadlock: positions where neither player can ever move again.

In Abak Evolution, 5-checker columns, blocking Guards and traps can freeze a game: the player to
move has no legal play for any roll and neither has the opponent, so the position can never
change (seen in random play, about one game in a thousand). The rule texts are silent; our
decision (docs/rules-abak.md): the game ends at once and the player with the lower pip count wins
a single game; on equal pip counts the player to move wins. The check is exact (can either side
play some roll?) and runs only for games whose last turn passed; the variants answer it
without generating the 21 rolls (classic: some die can move, movegen.can_move_some_die; Abak:
abak.movegen.can_move).
"""

from __future__ import annotations

import numpy as np

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)


def _can_move_somehow(variant, boards: np.ndarray) -> np.ndarray:
    """True where the player to move has a legal play for at least one of the 21 rolls.

    A variant may offer a faster exact answer as `variant.can_move(boards)` (Abak does)."""
    fast = getattr(variant, "can_move", None)
    if fast is not None:
        return np.asarray(fast(boards), dtype=bool)
    n = boards.shape[0]
    rep = np.repeat(boards, len(ROLLS), axis=0)
    after = variant.legal_afterstates(rep, np.tile(ROLLS, (n, 1)))
    changed = (np.ascontiguousarray(after.boards) != rep[after.parent]).any(axis=1)
    moved = np.zeros(rep.shape[0], dtype=bool)
    moved[after.parent[changed]] = True
    return moved.reshape(n, len(ROLLS)).any(axis=1)


def deadlocked(variant, boards: np.ndarray) -> np.ndarray:
    """True where neither side can move whatever the dice (boards seen from the player to move)."""
    boards = np.asarray(boards)
    out = np.zeros(boards.shape[0], dtype=bool)
    if boards.shape[0] == 0:
        return out
    stuck = np.flatnonzero(~_can_move_somehow(variant, boards))
    if stuck.size:
        out[stuck] = ~_can_move_somehow(variant, variant.flip(boards[stuck]))
    return out


def pip_counts(variant, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover's, opponent's) pip counts; a checker on the bar or in the pool counts 25."""
    b = np.asarray(boards)
    if getattr(variant, "kind", "classic") == "abak":
        from .abak import board as ab
        st = ab.stacks(b)
        point = np.arange(1, 25)[:, None]
        own = ((st > 0) * point).sum(axis=(1, 2)) + 25 * b[:, ab.BAR:ab.BAR + 6].sum(1)
        opp = ((st < 0) * (25 - point)).sum(axis=(1, 2)) + 25 * b[:, ab.OPP_BAR:ab.OPP_BAR + 6].sum(1)
        return own.astype(np.int64), opp.astype(np.int64)
    from . import board as cb
    pts = b[:, :cb.N_POINTS].astype(np.int64)
    idx = np.arange(1, cb.N_POINTS + 1)
    own = (np.clip(pts, 0, None) * idx).sum(1) + 25 * (b[:, cb.BAR] + b[:, cb.POOL])
    opp = (np.clip(-pts, 0, None) * (25 - idx)).sum(1) + 25 * (b[:, cb.OPP_BAR] + b[:, cb.OPP_POOL])
    return own, opp


def deadlock_winner_is_mover(variant, boards: np.ndarray) -> np.ndarray:
    """For deadlocked positions: True where the player to move wins (lower or equal pips)."""
    own, opp = pip_counts(variant, boards)
    return own <= opp


def turn_result(variant, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """How each game stands after a turn, for game loops: 0 it goes on; +1/+2/+3 the player who
    just moved won a single/gammon/backgammon; -1 a total deadlock that the opponent wins.

    before: positions seen from the player who just moved, after: its afterstates (not flipped).
    """
    result = variant.winner_points(after).astype(np.int8)
    passed = (result == 0) & (np.asarray(after) == np.asarray(before)).all(axis=1)
    if passed.any():
        idx = np.flatnonzero(passed)
        frozen = idx[deadlocked(variant, before[idx])]
        if frozen.size:
            result[frozen] = np.where(deadlock_winner_is_mover(variant, before[frozen]), 1, -1)
    return result
