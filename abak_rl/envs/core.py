"""Many games played one checker movement at a time, in lockstep: the state machine both
environments share (the AEC env is a batch of one, the vector env a batch of many).

Each game is at a decision point of its mover: the legal plays of the turn (actions.TurnTable)
with the movements made so far. A movement narrows the plays to those that continue with it;
when none goes further the turn ends with that play's afterstate, the game is scored with the
engine's own turn_result (bear-offs, gammons, Abak's total deadlock), and the next turn is rolled.
Turns with no legal play pass by themselves. Seats listed in `auto` are played by an Agent
(the project's choose() interface) a whole turn at a time, in one batch. Dice come from
engine.dice's counter-based streams: a game's dice depend only on (seed, game id).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..engine import dice as dice_mod
from ..engine.deadlock import turn_result
from ..engine.movegen import legal_afterstates as classic_afterstates
from .actions import (MAX_MOVES, TurnTable, _parse_classic, apply_actions, n_actions, pass_action,
                      turn_tables)


class Lockstep:
    """N games; `seed` names the dice streams, game ids are given per reset."""

    def __init__(self, variant, n: int, seed: int = 0, auto: dict | None = None, max_turns: int = 5000,
                 one_turn: bool = False):
        self.variant, self.n, self.seed = variant, n, int(seed)
        self.one_turn = one_turn    # stop each game after one turn (MovementAgent): no scoring
        self.auto = dict(auto or {})          # seat -> Agent playing that seat
        self.max_turns = max_turns
        self.n_actions, self.PASS = n_actions(variant), pass_action(variant)
        w = variant.width
        self.board = np.zeros((n, w), np.int8)    # current (mid-turn) board, seen from the mover
        self.start = np.zeros((n, w), np.int8)    # the board when the turn began
        self.mover = np.zeros(n, np.int8)
        self.dice = np.zeros((n, 2), np.int8)
        self.counter = np.zeros(n, np.int64)
        self.ids = np.zeros(n, np.int64)
        self.k = np.zeros(n, np.int64)            # movements made in the current stage
        self.then_double = np.zeros(n, bool)      # Acey-deucey 1-2: a double follows this stage
        self.turns = np.zeros(n, np.int64)
        self.done = np.ones(n, bool)
        self.truncated = np.zeros(n, bool)
        self.winner = np.full(n, -1, np.int8)
        self.points = np.zeros(n, np.int8)
        self.table = TurnTable(np.zeros(0, np.int64), np.zeros((0, MAX_MOVES), np.int16),
                               np.zeros((0, MAX_MOVES), np.int8), np.zeros(0, np.int8),
                               np.zeros((0, w), np.int8))
        self.alive = np.zeros(0, bool)
        self.left = np.zeros((n, 4), np.int8)     # dice still to play this stage (0 = none)
        self._masks = None                        # cached masks: asked for several times a step

    # ------------------------------------------------------------------ games start and end
    def reset(self, games: np.ndarray, game_ids: np.ndarray) -> None:
        """Start new games in slots `games` with dice streams `game_ids`."""
        games = np.asarray(games, np.int64)
        self.ids[games] = game_ids
        first, opening, used = dice_mod.opening_rolls(self.seed, self.ids[games])
        self.board[games] = self.variant.initial_boards(games.size)
        self.mover[games] = first
        self.dice[games] = opening
        self.counter[games] = used
        self.turns[games] = 0
        self.done[games] = False
        self.truncated[games] = False
        self.winner[games] = -1
        self.points[games] = 0
        self._begin_turns(games)
        self._masks = None

    def set_turn(self, games: np.ndarray, boards: np.ndarray, dice: np.ndarray,
                 mover: np.ndarray | int = 0) -> None:
        """Put games at the start of a turn: `boards` seen from the mover (seat `mover`), who
        has rolled `dice`; later rolls continue each game's stream."""
        games = np.asarray(games, np.int64)
        self.board[games] = self.variant.validate(np.asarray(boards, np.int8))
        self.dice[games] = dice
        self.mover[games] = mover
        self.done[games] = self.truncated[games] = False
        self.winner[games], self.points[games] = -1, 0
        self._begin_turns(games)
        self._masks = None

    def _begin_turns(self, games: np.ndarray) -> None:
        """Games whose mover has just rolled: agents' seats play at once, the rest get tables."""
        while games.size:
            self.start[games] = self.board[games]
            seat_auto = np.zeros(games.size, bool)
            for seat in self.auto:
                seat_auto |= self.mover[games] == seat
            ended = [self._auto_turns(games[seat_auto])]
            mine = games[~seat_auto]
            if mine.size:
                d = self.dice[mine]
                self.then_double[mine] = self._one_two(d)
                self._set_left(mine, d)
                if self.then_double[mine].any():   # the 1-2 part first; the double comes after
                    d = np.where(self.then_double[mine][:, None], np.array([1, 2], np.int8), d)
                self._set_tables(mine, turn_tables(self._plain(), self.board[mine], d)
                                 if self.then_double[mine].any() else
                                 turn_tables(self.variant, self.board[mine], d))
                ended.append(self._finish_stages(mine))
            games = np.concatenate(ended)

    def _plain(self):
        """The variant without its 1-2 rule (the 1-2 part of a 1-2 turn is an ordinary roll)."""
        return replace(self.variant, acey_deucey=False)

    def _one_two(self, d: np.ndarray) -> np.ndarray:
        if not getattr(self.variant, "acey_deucey", False):
            return np.zeros(d.shape[0], bool)
        return (d.min(axis=1) == 1) & (d.max(axis=1) == 2)

    def _auto_turns(self, games: np.ndarray) -> np.ndarray:
        if games.size == 0:
            return games
        new = np.empty_like(self.board[games])
        for seat, agent in self.auto.items():
            sel = np.flatnonzero(self.mover[games] == seat)
            if sel.size == 0:
                continue
            g = games[sel]
            after = self.variant.legal_afterstates(self.board[g], self.dice[g])
            pick = np.asarray(agent.choose(self.variant, self.board[g], self.dice[g], after))
            new[sel] = after.boards[pick]
        self.board[games] = new
        return self._end_turns(games)

    def _set_tables(self, games: np.ndarray, t: TurnTable) -> None:
        """Replace the plays of `games` by table t (t.parent indexes into games)."""
        keep = ~np.isin(self.table.parent, games)
        old = self.table
        cat = lambda a, b: np.concatenate([a[keep], b])
        self.table = TurnTable(cat(old.parent, games[t.parent]), cat(old.actions, t.actions),
                               cat(old.marks, t.marks), cat(old.length, t.length),
                               cat(old.boards, t.boards))
        self.alive = np.concatenate([self.alive[keep], np.ones(len(t), bool)])
        self.k[games] = 0

    def _finish_stages(self, games: np.ndarray) -> np.ndarray:
        """Of `games`, end the turns (or 1-2 stages) where no legal play goes further; returns
        the games that start a new turn."""
        out = []
        while games.size:
            t, a = self.table, self.alive
            longer = np.zeros(self.n, bool)
            sel = a & (t.length > self.k[t.parent])
            longer[t.parent[sel]] = True
            fin = games[~longer[games]]
            if fin.size == 0:
                break
            dbl = fin[self.then_double[fin]]
            if dbl.size:   # Acey-deucey: the 1-2 is played; now a double of the mover's choice
                self.then_double[dbl] = False
                self.left[dbl] = 0     # any die: the first movement names the double
                self._set_tables(dbl, _doubles_table(self.variant, self.board[dbl]))
            over = fin[~np.isin(fin, dbl)]
            if over.size:
                self._drop_tables(over)
                out.append(self._end_turns(over))
            games = dbl
        return np.concatenate(out) if out else np.zeros(0, np.int64)

    def _drop_tables(self, games: np.ndarray) -> None:
        keep = ~np.isin(self.table.parent, games)
        t = self.table
        self.table = TurnTable(t.parent[keep], t.actions[keep], t.marks[keep], t.length[keep],
                               t.boards[keep])
        self.alive = self.alive[keep]

    def _end_turns(self, games: np.ndarray) -> np.ndarray:
        """Score the turns just played in `games`; roll for the games that go on (returned)."""
        if games.size == 0:
            return games
        if self.one_turn:
            self.done[games] = True
            return games[:0]
        result = turn_result(self.variant, self.start[games], self.board[games])
        self.turns[games] += 1
        over = result != 0
        g = games[over]
        self.winner[g] = np.where(result[over] > 0, self.mover[g], 1 - self.mover[g])
        self.points[g] = np.abs(result[over])
        self.done[g] = True
        cut = games[~over & (self.turns[games] >= self.max_turns)]
        self.done[cut] = self.truncated[cut] = True
        go = games[~self.done[games]]
        again = self.variant.extra_turn(self.dice[go])
        self.board[go] = np.where(again[:, None], self.board[go], self.variant.flip(self.board[go]))
        self.mover[go] = np.where(again, self.mover[go], 1 - self.mover[go])
        self.dice[go] = dice_mod.roll(self.seed, self.ids[go], self.counter[go])
        self.counter[go] += 1
        return go

    # ------------------------------------------------------------------ decisions
    def masks(self) -> np.ndarray:
        """bool [n, n_actions]: the legal actions of each game's mover (all False when done)."""
        if self._masks is None:     # dropped by every call that changes the games
            self._masks = self._compute_masks()
        return self._masks.copy()

    def _compute_masks(self) -> np.ndarray:
        m = np.zeros((self.n, self.n_actions), bool)
        t = self.table
        kk = self.k[t.parent]
        nxt = self.alive & (t.length > kk)
        m[t.parent[nxt], t.actions[nxt, np.minimum(kk[nxt], MAX_MOVES - 1)]] = True
        full = self.alive & (t.length == kk)
        m[t.parent[full], self.PASS] = True
        return m

    def _set_left(self, games: np.ndarray, d: np.ndarray) -> None:
        """The dice to play this stage, largest first: a double four times; 0 = none left."""
        d = np.sort(np.asarray(d, np.int8), axis=1)[:, ::-1]
        dbl = d[:, 0] == d[:, 1]
        self.left[games] = np.where(dbl[:, None], np.repeat(d[:, :1], 4, axis=1),
                                    np.concatenate([d, np.zeros_like(d)], axis=1))

    def step(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Make one movement (or PASS) in each of `games`; ValueError names an illegal one.
        Returns the games whose turn ended and who are now at a new decision or done."""
        games = np.asarray(games, np.int64)
        actions = np.asarray(actions, np.int64)
        m = self.masks()
        if (self.done[games]).any():
            raise ValueError(f"game {int(games[self.done[games]][0])} is over; reset it first")
        ok = (actions >= 0) & (actions < self.n_actions)
        ok[ok] = m[games[ok], actions[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"action {int(actions[i])} is not legal in game {int(games[i])}")
        t = self.table
        slot = np.full(self.n, -1, np.int64)
        slot[games] = actions
        act = slot[t.parent]
        kk = self.k[t.parent]
        is_pass = act == self.PASS
        cont = np.where(kk < MAX_MOVES, t.actions[np.arange(len(t)), np.minimum(kk, MAX_MOVES - 1)], -1)
        self.alive &= (act < 0) | np.where(is_pass, t.length == kk, (cont == act) & (t.length > kk))
        mv = games[actions != self.PASS]
        if mv.size:
            rows = np.flatnonzero(self.alive & np.isin(t.parent, mv))
            mark = np.zeros(self.n, np.int8)
            mark[t.parent[rows]] = t.marks[rows, np.minimum(self.k[t.parent[rows]], MAX_MOVES - 1)]
            self.board[mv] = apply_actions(self.variant, self.board[mv], slot[mv], mark[mv])
            self.k[mv] += 1
            die = (slot[mv] % 6 + 1).astype(np.int8)
            left = self.left[mv]
            chosen = ~left.any(axis=1)            # Acey-deucey: the first movement of the double
            left[chosen] = die[chosen, None]
            hit = left == die[:, None]
            first = np.argmax(hit, axis=1)
            left[np.arange(mv.size), first] = 0
            self.left[mv] = np.sort(left, axis=1)[:, ::-1]
        pas = games[actions == self.PASS]
        if pas.size:
            self.then_double[pas] = False
        nxt = self._finish_stages(games)
        self._begin_turns(nxt)
        self._masks = None
        return nxt


def _doubles_table(variant, boards: np.ndarray) -> TurnTable:
    """Acey-deucey after a 1-2: the plays of each of the six doubles from the same board."""
    n = boards.shape[0]
    rep = np.repeat(boards, 6, axis=0)
    dbl = np.repeat(np.tile(np.arange(1, 7, dtype=np.int8), n)[:, None], 2, axis=1)
    after = classic_afterstates(rep, dbl, with_plays=True,
                                enter_all_before_moving=variant.enter_all_before_moving)
    # one empty play for all doubles that cannot move (the same afterstate: the board itself)
    empty = np.array([p == "" for p in after.plays])
    keep = ~empty
    seen = set()
    for i in np.flatnonzero(empty):
        g = after.parent[i] // 6
        if g not in seen:
            seen.add(g)
            keep[i] = True
    keep_idx = np.flatnonzero(keep)
    acts = np.full((keep_idx.size, MAX_MOVES), -1, np.int16)
    length = np.zeros(keep_idx.size, np.int8)
    for r, i in enumerate(keep_idx):
        a, _ = _parse_classic(after.plays[i], (int(dbl[after.parent[i], 0]),) * 4)
        acts[r, :len(a)] = a
        length[r] = len(a)
    return TurnTable(after.parent[keep_idx] // 6, acts, np.zeros_like(acts, dtype=np.int8), length,
                     np.ascontiguousarray(after.boards[keep_idx]))
