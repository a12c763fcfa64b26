"""Truncated rollouts: the value of an afterstate as the average result of games played on from
it by the net at 0-ply for a few half-moves, the last afterstate valued by the net.

The value of an afterstate A made by player P, with `trials` trials of `depth` half-moves: each
trial rolls dice for the next player (the opponent, or P again after Acey-deucey's 1-2), plays
the 0-ply choice (agents/search.Search.best_rows: the full net, or a screen's best few valued by
it), and so on for `depth` half-moves; a trial that ends the game scores its exact result, any
other scores the net's 0-ply value of its last afterstate. Values are from P's view and averaged
over the trials.

Three things make the few trials go far, as in GNU Backgammon's rollouts:
- the first roll is stratified: each 36 trials roll each of the 36 ordered rolls once (in a
  random order, so that fewer trials are a fair draw), so 36 trials of depth 1 are exactly the
  1-ply value (Search.values(ply=1) with its replies at 0-ply), and the first half-move adds
  no dice noise;
- common random numbers: trial t rolls the same dice at each step for every afterstate of a call,
  so the plays of one roll (siblings, whose difference is what a pick depends on) are compared
  on the same dice and their noise mostly cancels;
- with `variance_reduction`, each half-move's luck is taken off: the mover's 21 rolls are all
  played (0-ply), and the rolled one's value minus their weighted mean is that half-move's luck
  (its expectation is nil, so the mean is unchanged); a trial scores its result minus the sum of
  its luck. It costs 21 times the plays a half-move, and removes most of the dice noise.

Work is batched over afterstates x trials; the loop runs over half-moves only.
`plain_rollout_values` is the one-position-at-a-time reference the tests compare it with.
"""

from __future__ import annotations

import numpy as np

from ..model.outcomes import outcome_probs
from ..model.outcomes import swap_perspective_np as swap_perspective
from .search import ROLL_WEIGHTS, ROLLS

ORDERED_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int8)
CHUNK_ROWS = 8192    # afterstates x trials played at once (x 21 rolls with variance reduction)
ROLL_INDEX = np.full((7, 7), -1, dtype=np.int64)     # ROLL_INDEX[a, b]: the row of ROLLS for dice a, b
for _i, (_a, _b) in enumerate(ROLLS):
    ROLL_INDEX[_a, _b] = ROLL_INDEX[_b, _a] = _i


def check_rollout(trials, depth) -> tuple[int, int]:
    for name, value in (("trials", trials), ("depth", depth)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"rollout {name} must be a whole number >= 1, got {value!r}")
    return int(trials), int(depth)


def rollout_dice(trials: int, depth: int, seed: int) -> np.ndarray:
    """[trials, depth, 2] int8: trial t's dice at each half-move, drawn from `seed`; the first
    roll stratified: trial t rolls the (t mod 36)-th of a random order of the 36 ordered rolls,
    so each 36 trials roll each of them once, and fewer than 36 are a fair draw without
    replacement (not always the same few rolls, which would bias what follows them)."""
    trials, depth = check_rollout(trials, depth)
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(trials, depth, 2)).astype(np.int8)
    dice[:, 0] = ORDERED_ROLLS[rng.permutation(36)[np.arange(trials) % 36]]
    return dice


def rollout_values(search, boards: np.ndarray, again: np.ndarray, trials: int = 36, depth: int = 12,
                   seed: int = 0, dice: np.ndarray | None = None,
                   variance_reduction: bool = False) -> np.ndarray:
    """[N, 5] float64 truncated-rollout values of afterstates (the view of the player who made
    them). `search`: an agents/search.Search (its evaluator, variant and screen); `dice`:
    [trials, depth, 2] to roll instead of rollout_dice(trials, depth, seed)."""
    boards, again = np.asarray(boards), np.asarray(again, dtype=bool)
    if dice is None:
        dice = rollout_dice(trials, depth, seed)
    dice = np.asarray(dice, dtype=np.int8)
    trials, depth = check_rollout(dice.shape[0], dice.shape[1])
    v = search.variant
    out = np.empty((boards.shape[0], 5), dtype=np.float64)
    won = v.winner_points(boards)
    over = won > 0
    out[over] = outcome_probs(won[over])
    live = np.flatnonzero(~over)
    per = max(1, CHUNK_ROWS // (trials * (len(ROLLS) if variance_reduction else 1)))
    for lo in range(0, live.size, per):
        idx = live[lo:lo + per]
        out[idx] = _rollout_chunk(search, boards[idx], again[idx], dice, variance_reduction)
    return out


def _half_move(search, pos, d, same, variance_reduction):
    """One half-move of every trial: (chosen afterstates, their values from P's view, the luck
    from P's view: zero without variance reduction)."""
    v = search.variant
    m = pos.shape[0]
    if not variance_reduction:
        after = v.legal_afterstates(pos, d)
        rows, probs = search.best_rows(after, d, m)
        mine = np.where(same[:, None], probs, swap_perspective(probs))
        return after.boards[rows], mine, np.zeros_like(mine)
    every = np.tile(ROLLS, (m, 1))
    after = v.legal_afterstates(np.repeat(pos, len(ROLLS), axis=0), every)
    rows, probs = search.best_rows(after, every, m * len(ROLLS))
    probs = probs.reshape(m, len(ROLLS), 5)
    every_mine = np.where(same[:, None, None], probs, swap_perspective(probs))     # P's view
    rolled = ROLL_INDEX[d[:, 0], d[:, 1]]
    mine = every_mine[np.arange(m), rolled]
    luck = mine - np.einsum("mrc,r->mc", every_mine, ROLL_WEIGHTS)
    return after.boards[rows[np.arange(m) * len(ROLLS) + rolled]], mine, luck


def _rollout_chunk(search, boards, again, dice, variance_reduction=False) -> np.ndarray:
    """Rollouts of live afterstates, every trial at once: rows are (afterstate, trial)."""
    v = search.variant
    k, trials, depth = boards.shape[0], dice.shape[0], dice.shape[1]
    trial = np.tile(np.arange(trials), k)
    owner = np.repeat(np.arange(k), trials)
    same = np.repeat(again, trials)                   # the mover to roll is P itself
    pos = np.repeat(boards, trials, axis=0)
    pos = np.where(same[:, None], pos, v.flip(pos))   # the mover's view, about to roll
    total = np.zeros((k, 5), dtype=np.float64)
    luck = np.zeros((pos.shape[0], 5), dtype=np.float64)
    for step in range(depth):
        d = dice[trial, step]
        chosen, mine, step_luck = _half_move(search, pos, d, same, variance_reduction)
        luck += step_luck
        done = (v.winner_points(chosen) > 0) | (step == depth - 1)
        np.add.at(total, owner[done], mine[done] - luck[done])
        keep = ~done
        if not keep.any():
            break
        extra = v.extra_turn(d)
        pos = np.where(extra[:, None], chosen, v.flip(chosen))[keep]
        same = np.where(extra, same, ~same)[keep]
        trial, owner, luck = trial[keep], owner[keep], luck[keep]
    return total / trials


def plain_rollout_values(search, boards: np.ndarray, again: np.ndarray, dice: np.ndarray,
                         variance_reduction: bool = False) -> np.ndarray:
    """The reference: one afterstate, one trial and one roll at a time, the same dice and choices."""
    v = search.variant

    def best(pos, roll, same):
        d = np.asarray(roll, dtype=np.int8)[None]
        after = v.legal_afterstates(pos[None], d)
        row, probs = search.best_rows(after, d, 1)
        return after.boards[row[0]], (probs[0] if same else swap_perspective(probs)[0])

    out = np.empty((len(boards), 5), dtype=np.float64)
    for i, (board, a) in enumerate(zip(np.asarray(boards), np.asarray(again, dtype=bool))):
        won = v.winner_points(board[None])[0]
        if won > 0:
            out[i] = outcome_probs(np.array([won]))[0]
            continue
        results = []
        for trial_dice in dice:
            same = bool(a)
            pos = board if same else v.flip(board[None])[0]
            luck = np.zeros(5)
            for step, roll in enumerate(trial_dice):
                if variance_reduction:
                    rolled = ROLL_INDEX[roll[0], roll[1]]
                    every = [best(pos, r, same) for r in ROLLS]
                    chosen, mine = every[rolled]
                    luck += mine - sum(w * value for w, (_, value) in zip(ROLL_WEIGHTS, every))
                else:
                    chosen, mine = best(pos, roll, same)
                if v.winner_points(chosen[None])[0] > 0 or step == len(trial_dice) - 1:
                    results.append(mine - luck)
                    break
                if v.extra_turn(np.asarray(roll, dtype=np.int8)[None])[0]:
                    pos = chosen
                else:
                    pos, same = v.flip(chosen[None])[0], not same
        out[i] = np.mean(results, axis=0)
    return out
