"""The lockstep game loop: B games advance together, one turn per step, for any variant.

Each step rolls for every unfinished game, generates all afterstates in one batch, lets each
seat's agent choose for the games where it is to move, and moves on. Games end independently;
finished games drop out of the batch. Dice come from each game's own counter-based stream
(engine.dice), so a game's dice depend only on (seed, game id): the same game id replays the
same dice whoever sits where, which is how the match runner gets common random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from . import dice as dice_mod
from .common import Afterstates, segment_random
from .deadlock import turn_result


class Agent(Protocol):
    """Anything that picks one afterstate per position.

    before: [n, W] positions seen from the mover; dice: [n, 2]; after: their afterstates.
    Returns [n] row indices into `after.boards`, one per position.
    """

    name: str

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray: ...


@dataclass
class GameResults:
    """Per game: winner seat (0 or 1), points won (1 single, 2 gammon, 3 backgammon), turns."""

    winner: np.ndarray
    points: np.ndarray
    turns: np.ndarray
    records: list | None = field(default=None, repr=False)

    def seat_points(self, seat: int) -> np.ndarray:
        """Points per game from `seat`'s side: +points if it won, -points if it lost."""
        return np.where(self.winner == seat, self.points, -self.points).astype(np.int64)


def play_games(variant, agents, n_games: int, seed: int, *, game_ids: np.ndarray | None = None,
               max_turns: int = 5000, record: bool = False, start: np.ndarray | None = None,
               on_turn=None, with_plays: bool = False) -> GameResults:
    """Play n_games between agents[0] (seat 0) and agents[1] (seat 1), all in lockstep.

    record=True keeps, per game, the list of turns (mover seat, dice, play, position before the
    play as seen by the mover) for game records.
    start: a starting row seen from seat 0 (default: the variant's start), not validated, so a
    study may start from a position user input may not hold.
    on_turn(ids, seats, before, chosen, plays, result): called after every lockstep turn with the
    live games' ids, mover seats, positions, chosen afterstates, their plays (with_plays=True or
    record=True, else None) and turn_result.
    """
    ids = np.arange(n_games, dtype=np.int64) if game_ids is None else np.asarray(game_ids, np.int64)
    n = ids.shape[0]
    first, opening, counter = dice_mod.opening_rolls(seed, ids)
    if start is None:
        boards = variant.initial_boards(n)
    else:
        row0 = np.asarray(start, np.int8)
        boards = np.where(first[:, None] == 0, row0, variant.flip(row0[None])[0]).astype(np.int8)
    with_plays = with_plays or record
    mover = first.astype(np.int8)
    winner = np.full(n, -1, dtype=np.int8)
    points = np.zeros(n, dtype=np.int8)
    turns = np.zeros(n, dtype=np.int32)
    records = [[] for _ in range(n)] if record else None
    live = np.arange(n)
    dice = opening
    for _ in range(max_turns):
        if live.size == 0:
            break
        b = boards[live]
        after = variant.legal_afterstates(b, dice, with_plays=with_plays)
        chosen = np.empty(live.size, dtype=np.int64)
        for seat in (0, 1):
            sel = np.flatnonzero(mover[live] == seat)
            if sel.size == 0:
                continue
            sub = subset_afterstates(after, sel, live.size)
            pick = np.asarray(agents[seat].choose(variant, b[sel], dice[sel], sub))
            chosen[sel] = sub.index[pick]
        new = after.boards[chosen]
        if record:
            for j, g in enumerate(live):
                records[g].append({"seat": int(mover[g]), "dice": [int(x) for x in dice[j]],
                                   "before": b[j].copy(), "play": after.plays[chosen[j]]})
        turns[live] += 1
        result = turn_result(variant, b, new)
        if on_turn is not None:
            on_turn(ids[live], mover[live].copy(), b, new,
                    [after.plays[c] for c in chosen] if with_plays else None, result)
        done = result != 0
        winner[live[done]] = np.where(result[done] > 0, mover[live[done]], 1 - mover[live[done]])
        points[live[done]] = np.abs(result[done])
        again = variant.extra_turn(dice) & ~done
        new = np.where(again[:, None], new, variant.flip(new))
        boards[live] = new
        mover[live] = np.where(again, mover[live], 1 - mover[live])
        live = live[~done]
        if live.size:
            dice = dice_mod.roll(seed, ids[live], counter[live])
            counter[live] += 1
    if live.size:
        raise RuntimeError(f"{live.size} games did not finish within {max_turns} turns")
    return GameResults(winner=winner, points=points, turns=turns, records=records)


@dataclass
class SubsetAfterstates(Afterstates):
    index: np.ndarray = None  # row index of each kept row in the full Afterstates


def subset_afterstates(after: Afterstates, positions: np.ndarray, n_positions: int) -> SubsetAfterstates:
    """The afterstates of some positions only, re-numbered 0..len(positions)-1."""
    if positions.size == n_positions:
        return SubsetAfterstates(after.boards, after.parent, after.plays, index=np.arange(len(after)))
    remap = np.full(n_positions, -1, dtype=np.int64)
    remap[positions] = np.arange(positions.size)
    keep = np.flatnonzero(remap[after.parent] >= 0)
    plays = None if after.plays is None else [after.plays[i] for i in keep]
    return SubsetAfterstates(after.boards.take(keep, axis=0), remap[after.parent[keep]], plays, index=keep)


class _RandomRecorder:
    """Plays uniformly at random and keeps every position and roll it is shown."""

    name = "random"

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.boards, self.dice = [], []

    def choose(self, variant, before, dice, after):
        self.boards.append(before)
        self.dice.append(np.asarray(dice))
        return segment_random(self.rng.random(before.shape[0]), after.parent, before.shape[0])


def random_play_positions(variant, n_games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position (seen from the mover) and roll met in n_games of uniformly random play.

    The realistic input for benchmarks and cross-checks: openings, contact, bar, races and
    bear-offs in the proportions that real (if weak) games produce them.
    """
    rec = _RandomRecorder(seed)
    play_games(variant, [rec, rec], n_games, seed)
    return np.concatenate(rec.boards), np.concatenate(rec.dice).astype(np.int8)
