"""B self-play games in lockstep, one net playing both sides.

Each step() rolls for all B games (each game's dice come from its own (seed, game id) stream,
engine.dice), generates every afterstate in one batch, scores them in one forward pass, plays
the best one per game (with probability epsilon a uniformly random one instead) and records it.
With random_opening K each new game first plays 0..K plies (drawn per game) uniformly at random
and records none of them: its learning starts from wherever they led (more varied positions
than a strong net's own openings reach, with targets untouched by the random plays).
A game that ends is handed back whole and its slot restarts at once with a new game id, so the
batch stays full and the games drift out of phase (a steady trickle of finished games).

Per game the record is the sequence of afterstates played, each seen from the player who made
it, with the net's probabilities at the time of play and whether that same player rolls again.
All of this state is plain arrays (state_dict) so a checkpoint can resume mid-game exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import dice as dice_mod
from ..engine.common import segment_random
from ..engine.deadlock import turn_result
from ..model.net import outcome_probs
from ..model.scorer import best_afterstates, candidate_afterstates, chosen_features

_EXPLORE_SEED = 0x5EED_E4B1
_OPENING_SEED = 0x0BE2_1A6D


@dataclass
class FinishedGames:
    """Games that ended in one step, padded to the longest: boards [G, T, W], probs [G, T, 5]
    (the terminal afterstate's row holds its exact outcome), again [G, T], length [G], points [G];
    feats [G, T, F]: the features each afterstate was scored with (learning reuses them; None
    when not kept, e.g. from Ray workers)."""
    boards: np.ndarray
    probs: np.ndarray
    again: np.ndarray
    length: np.ndarray
    points: np.ndarray
    feats: np.ndarray | None = None


class SelfPlay:
    """one_two_k (train.one_two_top_k): Acey-deucey's 1-2 is chosen among the afterstates under
    its one_two_k best 1-2 plays only (model.scorer.one_two_filter; 0 = the full union). Every
    play is legal; epsilon's random plays are drawn from the same candidates."""

    def __init__(self, variant, n_games: int, seed: int, max_turns: int = 2000, one_two_k: int = 0,
                 random_opening: int = 0):
        self.variant, self.B, self.seed, self.max_turns = variant, n_games, seed, max_turns
        self.one_two_k = int(one_two_k)
        self.random_opening = int(random_opening)
        self.prefix = np.zeros(n_games, dtype=np.int64)     # random plies still to play, per game
        self.next_id = 0
        self.aborted = 0
        W = variant.width
        self.boards = np.zeros((n_games, W), dtype=np.int8)
        self.ids = np.zeros(n_games, dtype=np.int64)
        self.counter = np.zeros(n_games, dtype=np.int64)
        self.dice = np.zeros((n_games, 2), dtype=np.int8)
        self.length = np.zeros(n_games, dtype=np.int64)
        self.t_boards = np.zeros((n_games, 64, W), dtype=np.int8)
        self.t_probs = np.zeros((n_games, 64, 5), dtype=np.float32)
        self.t_again = np.zeros((n_games, 64), dtype=bool)
        self.t_feats = None      # [B, T, F] float32, made at the first step (not checkpointed:
        self._start(np.arange(n_games))   # features are a pure function of the boards)

    def _start(self, slots: np.ndarray) -> None:
        """New games (new ids) in these slots: starting position and opening roll."""
        ids = self.next_id + np.arange(slots.size, dtype=np.int64)
        self.next_id += slots.size
        _, opening, used = dice_mod.opening_rolls(self.seed, ids)
        self.ids[slots], self.counter[slots], self.dice[slots] = ids, used, opening
        self.boards[slots] = self.variant.initial_boards(slots.size)
        self.length[slots] = 0
        if self.random_opening:
            u = dice_mod.uniform(self.seed ^ _OPENING_SEED, ids, np.zeros_like(ids))
            self.prefix[slots] = np.minimum((u * (self.random_opening + 1)).astype(np.int64), self.random_opening)

    def _grow(self) -> None:
        T = self.t_boards.shape[1]
        pad = lambda a: np.concatenate([a, np.zeros_like(a)], axis=1)  # noqa: E731
        self.t_boards, self.t_probs, self.t_again = pad(self.t_boards), pad(self.t_probs), pad(self.t_again)
        if self.t_feats is not None:
            self.t_feats = pad(self.t_feats)
        assert self.t_boards.shape[1] == 2 * T

    def step(self, scorer, epsilon: float = 0.0) -> FinishedGames:
        v, B = self.variant, self.B
        after = candidate_afterstates(v, scorer, self.boards, self.dice, self.one_two_k)
        keep: dict = {}
        chosen, probs = best_afterstates(scorer, after, self.dice, B, keep)
        opening = self.prefix > 0              # a random opening ply: played, not recorded
        if epsilon > 0 or opening.any():
            u = dice_mod.uniform(self.seed ^ _EXPLORE_SEED, self.ids, self.counter)
            pick = dice_mod.uniform(self.seed ^ _EXPLORE_SEED ^ 1, self.ids, self.counter)
            explore = (u < epsilon) | opening
            chosen = np.where(explore, segment_random(pick, after.parent, B), chosen)
        new = after.boards[chosen]
        # +1/+2/+3: the mover won; -1: a total deadlock the opponent wins (engine.deadlock);
        # outcome_probs(-1) is all zeros, i.e. a single loss from the mover's view
        won = turn_result(v, self.boards, new)
        done = won != 0
        again = v.extra_turn(self.dice) & ~done
        if self.length.max() >= self.t_boards.shape[1]:
            self._grow()
        self._features_ready(scorer)
        feats = chosen_features(keep, chosen, scorer.stored_width)
        if feats is None:                      # too many rows to keep: encode the played ones
            feats = scorer.stored_encode(new, again)
        rows = np.arange(B)
        t = self.length
        self.t_feats[rows, t] = feats
        self.t_boards[rows, t] = new
        self.t_probs[rows, t] = np.where(done[:, None], outcome_probs(won), probs[chosen])
        self.t_again[rows, t] = again
        self.length += ~opening                # an opening ply's row is overwritten by the next
        self.prefix -= opening
        # games that run too long are dropped unlearned (never seen in classic play; a guard), as
        # is one that ends within its random opening (it has nothing to learn from)
        stuck = ~done & (self.length >= self.max_turns)
        self.aborted += int(stuck.sum())
        fin = np.flatnonzero(done & ~opening)
        T = int(self.length[fin].max()) if fin.size else 0
        out = FinishedGames(self.t_boards[fin, :T].copy(), self.t_probs[fin, :T].copy(),
                            self.t_again[fin, :T].copy(), self.length[fin].copy(), won[fin].astype(np.int64),
                            self.t_feats[fin, :T].copy())
        # the rest move on: the next player sees the position from its side
        self.boards = np.where(again[:, None], new, v.flip(new))
        restart = np.flatnonzero(done | stuck)
        go = np.flatnonzero(~(done | stuck))
        self.dice[go] = dice_mod.roll(self.seed, self.ids[go], self.counter[go])
        self.counter[go] += 1
        if restart.size:
            self._start(restart)
        return out

    def _features_ready(self, scorer) -> None:
        """Allocate the feature records, encoding the moves already made (after a resume)."""
        F = scorer.stored_width
        if self.t_feats is not None and self.t_feats.shape[2] == F:
            return
        self.t_feats = np.zeros(self.t_boards.shape[:2] + (F,), dtype=np.float32)
        made = np.arange(self.t_boards.shape[1])[None, :] < self.length[:, None]
        if made.any():
            self.t_feats[made] = scorer.stored_encode(self.t_boards[made], self.t_again[made])

    # -- checkpointing ---------------------------------------------------------------------------
    _ARRAYS = ("boards", "ids", "counter", "dice", "length", "t_boards", "t_probs", "t_again", "prefix")
    _ADDED = ("prefix",)        # absent from checkpoints saved before it existed: all zeros then

    def state_dict(self) -> dict:
        d = {k: getattr(self, k).copy() for k in self._ARRAYS}
        d.update(next_id=self.next_id, aborted=self.aborted, seed=self.seed, B=self.B)
        return d

    def load_state_dict(self, d: dict) -> None:
        if int(d["B"]) != self.B or int(d["seed"]) != self.seed:
            raise ValueError(f"self-play state is for {int(d['B'])} games with seed {int(d['seed'])}, "
                             f"not {self.B} games with seed {self.seed}")
        for k in self._ARRAYS:
            if k in self._ADDED and k not in d:
                setattr(self, k, np.zeros_like(getattr(self, k)))
                continue
            setattr(self, k, np.array(d[k], dtype=getattr(self, k).dtype))
        self.t_feats = None
        self.next_id, self.aborted = int(d["next_id"]), int(d["aborted"])
