"""Cubeful play in lockstep: money games with the doubling cube, and matches to N points.

Each of the n "slots" plays one money game (match_length=0) or one whole match. Per turn, for
all live slots at once: the player to move may double (cube centred or theirs, not in the
Crawford game, never before the opening roll); the opponent takes (cube value doubles, the taker
owns it) or drops (the game ends, the doubler wins the cube value); otherwise the roll is played
by the checker-play agents. A finished game in a match that is not over restarts in its slot at
once with a fresh game id, so the batch stays full.

Checker play at a match score: an agent whose choose() takes a `utility` keyword (the neural
agent) is handed one that maps its afterstates' five outcome probabilities to match-winning
chances through the match equity table at the slot's score and cube (cube.mwc_from_probs), so
it plays the move that wins the most matches, not the most points.

Dice come from engine.dice per game id: slot i's k-th game has id `game_ids[i] * 1024 + k`, so a
slot replays the same dice when the seats are swapped (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dice as dice_mod
from .cube import CENTRED, CubeContext, crawford_game, game_points, get_met, match_award, mwc_from_probs
from .deadlock import turn_result
from .game import subset_afterstates

GAMES_PER_SLOT = 1024


@dataclass
class CubefulResults:
    """Per slot: seat 0's signed points (money) or match result (+1 seat 0 won the match, -1
    lost), plus counts of doubles, drops and games played."""

    seat0_points: np.ndarray
    games: np.ndarray
    doubles: np.ndarray
    drops: np.ndarray
    final_cube: np.ndarray
    score: np.ndarray  # [n, 2] match score at the end (zeros in money play)


def play_cubeful(variant, agents, policies, n: int, seed: int, *, match_length: int = 0,
                 jacoby: bool = False, game_ids: np.ndarray | None = None,
                 gammon_rate: float = 0.26, max_turns: int = 20000, met="kazaross-xg2",
                 match_aware_play: bool = True) -> CubefulResults:
    """Money games (match_length=0) or matches to match_length points, with the cube.

    agents: the two checker-play agents (seat 0, seat 1); policies: their two cube policies.
    met: the match equity table (a name from cube.MET_CHOICES or a cube.MatchEquityTable;
    "recursion" uses gammon_rate). match_aware_play: agents that accept a utility choose
    plays by match-winning chance at the score.
    """
    if match_length < 0:
        raise ValueError(f"match_length must be >= 0, got {match_length}")
    base = np.arange(n, dtype=np.int64) if game_ids is None else np.asarray(game_ids, np.int64)
    met = get_met(met, match_length, gammon_rate) if match_length else None
    takes_utility = [bool(match_length and match_aware_play and _accepts_utility(a)) for a in agents]
    score = np.zeros((n, 2), dtype=np.int64)
    crawford_done = np.zeros(n, dtype=bool)
    game_no = np.zeros(n, dtype=np.int64)
    money = np.zeros(n, dtype=np.int64)
    doubles = np.zeros(n, dtype=np.int64)
    drops = np.zeros(n, dtype=np.int64)
    finished = np.zeros(n, dtype=bool)

    boards = np.zeros((n, variant.width), dtype=np.int8)
    mover = np.zeros(n, dtype=np.int8)
    value = np.ones(n, dtype=np.int64)
    owner = np.full(n, CENTRED, dtype=np.int8)
    crawford = np.zeros(n, dtype=bool)
    counter = np.zeros(n, dtype=np.int64)
    first_turn = np.ones(n, dtype=bool)
    dice = np.zeros((n, 2), dtype=np.int8)

    def new_games(slots: np.ndarray) -> None:
        ids = base[slots] * GAMES_PER_SLOT + game_no[slots]
        first, opening, used = dice_mod.opening_rolls(seed, ids)
        boards[slots] = variant.initial_boards(slots.size)
        mover[slots] = first
        dice[slots] = opening
        counter[slots] = used
        value[slots] = 1
        owner[slots] = CENTRED
        first_turn[slots] = True
        if match_length:
            crawford[slots], crawford_done[slots] = crawford_game(match_length - score[slots], crawford_done[slots])

    def end_games(slots: np.ndarray, winner: np.ndarray, pts: np.ndarray) -> None:
        if match_length:
            need = match_length - score[slots, winner]
            score[slots, winner] += match_award(pts, need)
            over = (score[slots] >= match_length).any(axis=1)
            finished[slots[over]] = True
            game_no[slots] += 1
            again = slots[~over]
            if again.size:
                new_games(again)
        else:
            money[slots] += np.where(winner == 0, pts, -pts)
            finished[slots] = True
            game_no[slots] += 1

    new_games(np.arange(n))
    for _ in range(max_turns):
        live = np.flatnonzero(~finished)
        if live.size == 0:
            break
        # ---- cube action before the roll
        rel_owner = np.where(owner[live] == CENTRED, 0, np.where(owner[live] == mover[live], 1, -1))
        can = ~first_turn[live] & (rel_owner >= 0) & ~crawford[live]
        if can.any():
            for seat in (0, 1):
                sel = live[can & (mover[live] == seat)]
                # a game that ended by a drop earlier in this phase (its slot may hold a new game)
                sel = sel[~finished[sel] & ~first_turn[sel]]
                if sel.size == 0:
                    continue
                ctx = _context(sel, seat, value, owner, mover, score, match_length, met, crawford, jacoby)
                offer = np.asarray(policies[seat].offer(variant, boards[sel], ctx), dtype=bool)
                off = sel[offer]
                if off.size == 0:
                    continue
                doubles[off] += 1
                take = np.asarray(policies[1 - seat].accept(
                    variant, boards[off], _context(off, seat, value, owner, mover, score,
                                                   match_length, met, crawford, jacoby)), dtype=bool)
                dropped = off[~take]
                if dropped.size:
                    drops[dropped] += 1
                    end_games(dropped, np.full(dropped.size, seat), value[dropped].copy())
                took = off[take]
                value[took] *= 2
                owner[took] = 1 - seat
        live = np.flatnonzero(~finished)
        if live.size == 0:
            break
        # ---- the roll (the opening roll was drawn when the game started)
        fresh = live[~first_turn[live]]
        if fresh.size:
            ids = base[fresh] * GAMES_PER_SLOT + game_no[fresh]
            dice[fresh] = dice_mod.roll(seed, ids, counter[fresh])
            counter[fresh] += 1
        first_turn[live] = False
        b = boards[live]
        after = variant.legal_afterstates(b, dice[live])
        chosen = np.empty(live.size, dtype=np.int64)
        for seat in (0, 1):
            sel = np.flatnonzero(mover[live] == seat)
            if sel.size:
                sub = subset_afterstates(after, sel, live.size)
                if takes_utility[seat]:
                    slots = live[sel]
                    pick = np.asarray(agents[seat].choose(
                        variant, b[sel], dice[live][sel], sub,
                        utility=match_utility(met, match_length - score[slots, seat],
                                               match_length - score[slots, 1 - seat], value[slots])))
                else:
                    pick = np.asarray(agents[seat].choose(variant, b[sel], dice[live][sel], sub))
                chosen[sel] = sub.index[pick]
        new = after.boards[chosen]
        result = turn_result(variant, b, new)
        done = result != 0
        again = variant.extra_turn(dice[live]) & ~done
        boards[live] = np.where(again[:, None], new, variant.flip(new))
        if done.any():
            slots = live[done]
            pts = game_points(np.abs(result[done]), value[slots], owner[slots],
                              jacoby=jacoby and not match_length)
            winner = np.where(result[done] > 0, mover[slots], 1 - mover[slots])
            end_games(slots, winner, pts)
        cont = live[~done]
        mover[cont] = np.where(again[~done], mover[cont], 1 - mover[cont])
    if not finished.all():
        raise RuntimeError(f"{int((~finished).sum())} games did not finish within {max_turns} turns")
    if match_length:
        seat0 = np.where(score[:, 0] >= match_length, 1, -1)
    else:
        seat0 = money
    return CubefulResults(seat0_points=seat0, games=game_no, doubles=doubles, drops=drops,
                          final_cube=value.copy(), score=score)


def _context(slots, seat, value, owner, mover, score, match_length, met, crawford,
             jacoby=False) -> CubeContext:
    """The cube state of `slots` seen from `seat`, the player to move there."""
    rel = np.where(owner[slots] == CENTRED, 0, np.where(owner[slots] == seat, 1, -1))
    if not match_length:
        return CubeContext(value=value[slots].copy(), owner=rel, jacoby=bool(jacoby))
    return CubeContext(value=value[slots].copy(), owner=rel,
                       away=match_length - score[slots, seat],
                       opp_away=match_length - score[slots, 1 - seat], met=met,
                       crawford=crawford[slots].copy())


def _accepts_utility(agent) -> bool:
    """Whether agent.choose takes a `utility` keyword (match-aware checker play)."""
    import inspect
    try:
        return "utility" in inspect.signature(agent.choose).parameters
    except (TypeError, ValueError):
        return False


def match_utility(met, away, opp_away, cube):
    """utility(probs [m, 5], parent [m]) -> match-winning chance of each afterstate for the
    player who made it, at its position's score (away, opp_away, cube: arrays, one entry per
    position) with a dead cube; what match-aware agents choose by (here and in `abak-rl play`)."""
    def utility(probs, parent):
        return mwc_from_probs(probs, away[parent], opp_away[parent], cube[parent], met)
    return utility
