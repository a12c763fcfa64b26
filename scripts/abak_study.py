#!/usr/bin/env python
"""How a trained Abak Evolution bot plays: which classes it moves, hits and traps with, and what
each special checker is worth at the start (definitions and figures: docs/abak-study.md).

    python scripts/abak_study.py --agent export:checkpoints/pretrained/abak --games 400 \\
        --replace 400 --seed 1 --out runs/abak_study/abak60.json

Part 1: --games games of the agent against itself (0-ply for an exported net, all in one
lockstep batch per --batch games, as the project's game loop plays them). Every movement of
every play is carried out on the board in order, which names the class that moved (the top of
the `from` column; for an entry the class the notation names, or, with a bare `bar`, the one
that gives the afterstate) and what it did: per class, movements and hits per game and share of
all movements; per game, hits, Druid traps (`^`), checkers trapped at the end of a turn, Jane
hits, General backward movements; game length in turns, gammon and backgammon rates.

Part 2 (--replace N2 games per class): the start position with ONE special checker of side A
turned into a Soldier (G, D, K = the Guard on the 13-point, O, E; side B keeps the standard
start). Each dice sequence is played twice with the same dice, A in seat 0 then in seat 1, so A
starts one game of the pair and B the other; reported: A's points per game with the 95%
interval over the pairs (mean +- 1.96 sd / sqrt(pairs)). Such a start has 10 Soldiers, which
`validate_boards` rejects as user input; the study's own game loop (`play_recorded`) starts from
it without validating, as the project's game loop does for its standard start.

Prints a table; --out writes every figure as JSON with the command, the agent spec and the seed.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.engine.abak import board as ab  # noqa: E402
from abak_rl.engine.abak.variant import row_from_stacks  # noqa: E402
from abak_rl.engine.board import load_starting_layouts  # noqa: E402
from abak_rl.engine.game import GameResults, play_games  # noqa: E402
from abak_rl.evaluate.stats import paired_ppg  # noqa: E402

CLASSES = tuple(range(1, 7))                # S G D K O E (abak/board.py codes)
BAR_POINT, OFF_POINT = 25, 0
DEFAULT_TARGETS = "G,D,K,O,E"
GUARD_POINT = 13                            # "K": the Guard of the 13-point stack (S S K S)
_TOKEN = re.compile(r"^(?:(?P<bar>bar)(?:\((?P<cls>[SGDKOE])\))?|(?P<src>\d+))/"
                    r"(?P<dst>off|\d+)(?P<mark>[*^]?)$")


# --- carrying out a play movement by movement ----------------------------------------------

@dataclass(frozen=True)
class Movement:
    """One movement of a play, as carried out on the board (points from the mover's view)."""

    cls: int            # class code 1..6 of the checker that moved
    src: int            # point 1..24, 25 = the bar
    dst: int            # point 1..24, 0 = borne off
    hit: int = 0        # class code of the opposing checker sent to the bar (0: none)
    trap: bool = False  # a Druid's trap (`^`)
    jane: bool = False  # the second landing of a Jane: `hit` is the Guard
    backward: bool = False   # a General going from a lower to a higher point

    @property
    def letter(self) -> str:
        return ab.LETTERS[self.cls - 1]


class _Dead(Exception):
    """This way of carrying out the play breaks a rule of the notation (see attribute_play)."""


def _parse(token: str):
    m = _TOKEN.match(token)
    if m is None:
        raise ValueError(f"bad movement {token!r}")
    named = ab.LETTERS.index(m["cls"]) + 1 if m["cls"] else 0
    src = BAR_POINT if m["bar"] else int(m["src"])
    dst = OFF_POINT if m["dst"] == "off" else int(m["dst"])
    return src, named, dst, m["mark"]


def _row(before: np.ndarray, cols, bar, opp_bar, off) -> np.ndarray:
    row = np.array(before, dtype=np.int8, copy=True)
    row[:ab.SLOTS] = 0
    for p, col in enumerate(cols):
        row[p * ab.HEIGHT:p * ab.HEIGHT + len(col)] = col
    row[ab.BAR:ab.BAR + 6], row[ab.OPP_BAR:ab.OPP_BAR + 6], row[ab.OFF] = bar, opp_bar, off
    return row


def _carry(tokens, i, cols, bar, opp_bar, off, done, out, before):
    """Carry out tokens[i:]; append (movements, afterstate row) of every way that works."""
    if i == len(tokens):
        out.append((done, _row(before, cols, bar, opp_bar, off)))
        return
    src, named, dst, mark = tokens[i]
    if src == BAR_POINT:
        choices = [named] if named else [c for c in CLASSES if bar[c - 1] > 0]
    else:
        choices = [None]
    for cls in choices:
        c2, bar2, opp2, off2 = [c[:] for c in cols], list(bar), list(opp_bar), off
        try:
            if cls is None:
                col = c2[src - 1]
                if not col or col[-1] < 0:
                    raise _Dead(f"{src}: no checker of the mover on top")
                cls = col.pop()
            else:
                if bar2[cls - 1] <= 0:
                    raise _Dead(f"no {ab.LETTERS[cls - 1]} on the bar")
                bar2[cls - 1] -= 1
            backward = src != BAR_POINT and dst != OFF_POINT and dst > src
            if backward and cls != ab.GENERAL:
                raise _Dead(f"{src}/{dst}: only the General moves backward")
            hit, jane = 0, False
            if dst == OFF_POINT:
                if mark:
                    raise _Dead("a bear-off carries no mark")
                off2 += 1
            else:
                col = c2[dst - 1]
                top = col[-1] if col else 0
                if mark == "*" and top < 0:                  # a blot hit
                    hit = -col.pop()
                elif mark == "*":                            # a Jane's second landing
                    prev = done[-1] if done else None
                    if (prev is None or prev.dst != dst or len(col) < 2
                            or col[-2] != -ab.GUARD):
                        raise _Dead(f"{dst}*: neither a blot nor a waiting Jane there")
                    hit, jane = -col.pop(-2), True
                elif mark == "^":
                    if cls != ab.DRUID or top >= 0:
                        raise _Dead(f"{dst}^: a trap needs the Druid landing on an opposing checker")
                elif top < 0 and (top != -ab.GUARD or cls == ab.GUARD):
                    raise _Dead(f"{dst}: lands on an opposing checker without a mark")
                col.append(cls)                              # (a Jane's first lander: no mark)
                if len(col) > ab.HEIGHT:
                    raise _Dead(f"{dst}: more than {ab.HEIGHT} checkers")
                if hit:
                    opp2[hit - 1] += 1
            move = Movement(cls, src, dst, hit, mark == "^", jane, backward)
        except _Dead:
            continue
        _carry(tokens, i + 1, c2, bar2, opp2, off2, done + [move], out, before)


def attribute_play(before: np.ndarray, play: str, after: np.ndarray | None = None) -> list[Movement]:
    """The movements of `play` (engine notation, docs/rules-abak.md) carried out in order on
    `before` (a row seen from the mover): per movement the class that moved (the top checker of
    the `from` column; for `bar(X)` class X; for a bare `bar` every class on the bar is tried
    and the one whose play gives `after` is kept) and what it hit or trapped.

    Raises ValueError when the play cannot be carried out on `before`, when it does not give
    `after` (if given), or when a bare `bar` leaves the class open (no `after` to decide).
    """
    before = np.asarray(before, dtype=np.int8)
    tokens = [_parse(t) for t in play.split()]
    st = ab.stacks(before)
    cols = [[int(c) for c in st[p] if c] for p in range(ab.N_POINTS)]
    ways: list = []
    _carry(tokens, 0, cols, [int(x) for x in before[ab.BAR:ab.BAR + 6]],
           [int(x) for x in before[ab.OPP_BAR:ab.OPP_BAR + 6]], int(before[ab.OFF]), [], ways, before)
    if after is not None:
        after = np.asarray(after, dtype=np.int8)
        ways = [w for w in ways if np.array_equal(w[1], after)]
    if not ways:
        raise ValueError(f"play {play!r} cannot be carried out on this position"
                         + (" to give the afterstate" if after is not None else ""))
    if len({tuple(m.cls for m in w[0]) for w in ways}) > 1:
        raise ValueError(f"play {play!r}: which class entered is open (give the afterstate)")
    return ways[0][0]


def trapped_counts(boards: np.ndarray) -> np.ndarray:
    """Checkers per row with a checker of the other colour anywhere above them in their column."""
    s = np.sign(ab.stacks(np.asarray(boards)).astype(np.int8))
    n = np.zeros(s.shape[0], dtype=np.int64)
    for h in range(ab.HEIGHT - 1):
        above = s[..., h + 1:]
        n += ((s[..., h] > 0) & (above < 0).any(-1)).sum(-1)
        n += ((s[..., h] < 0) & (above > 0).any(-1)).sum(-1)
    return n


# --- the game loop ----------------------------------------------------------------------

def layout_rows(layouts: tuple[dict, dict]) -> np.ndarray:
    """The start seen from seat 0: seat 0's layout on its own points, seat 1's mirrored
    (layouts: own point -> letters bottom to top, as data/starting_positions.json)."""
    board = [""] * ab.N_POINTS
    for p, letters in layouts[0].items():
        board[int(p) - 1] = letters.upper()
    for p, letters in layouts[1].items():
        board[24 - int(p)] = letters.lower()
    return row_from_stacks(board)


def with_soldier(layout: dict, letter: str, point: int | None = None) -> tuple[dict, int]:
    """`layout` with one checker of class `letter` (the one on `point` if given) a Soldier,
    and the point where that checker stands."""
    where = [p for p, s in layout.items() if letter in s and (point is None or int(p) == point)]
    if len(where) != 1:
        raise ValueError(f"no single {letter}{'' if point is None else f' on {point}'} in {layout}")
    p = where[0]
    out = dict(layout)
    out[p] = layout[p].replace(letter, "S", 1)
    return out, int(p)


@dataclass
class Recorded:
    """What play_recorded returns: the results, and per turn the game, mover seat, position
    before (mover's view), afterstate (not flipped) and play (None without plays)."""

    results: GameResults
    deadlocks: int
    game: np.ndarray
    seat: np.ndarray
    before: np.ndarray
    after: np.ndarray
    plays: list | None


def play_recorded(variant, agents, n_games: int, seed: int, *, game_ids=None, start=None,
                  with_plays: bool = True, max_turns: int = 5000) -> Recorded:
    """engine.game.play_games (same loop, dice and agent calls, so the same games), keeping
    every turn's afterstate as well, and starting from `start` (a row seen from seat 0;
    default: the variant's start), which play_games does not validate: a study may start from a
    position user input may not hold (10 Soldiers)."""
    steps = []
    deadlocks = [0]

    def keep(ids, seats, before, chosen, plays, result):
        steps.append((ids, seats, before, chosen, plays))
        deadlocks[0] += int(((result != 0) & (variant.winner_points(chosen) == 0)).sum())

    results = play_games(variant, agents, n_games, seed, game_ids=game_ids, max_turns=max_turns,
                         start=start, on_turn=keep, with_plays=with_plays)
    cat = np.concatenate
    return Recorded(results, deadlocks[0],
                    cat([s[0] for s in steps]), cat([s[1] for s in steps]),
                    cat([s[2] for s in steps]), cat([s[3] for s in steps]),
                    [p for s in steps for p in s[4]] if with_plays else None)


# --- part 1: self-play statistics --------------------------------------------------------

def movement_stats(rec: Recorded) -> dict:
    """Per class and per game figures of recorded games (see the module docstring)."""
    games = rec.results.turns.size
    moves = dict.fromkeys(CLASSES, 0)
    hits = dict.fromkeys(CLASSES, 0)
    victims = dict.fromkeys(CLASSES, 0)
    n_moves = n_tokens = traps = janes = backward = 0
    for before, after, play in zip(rec.before, rec.after, rec.plays):
        n_tokens += len(play.split())
        for m in attribute_play(before, play, after):
            n_moves += 1
            moves[m.cls] += 1
            if m.hit:
                hits[m.cls] += 1
                victims[m.hit] += 1
            traps += m.trap
            janes += m.jane
            backward += m.backward
    if n_moves != n_tokens:
        raise AssertionError(f"{n_moves} movements attributed for {n_tokens} in the plays")
    trapped = trapped_counts(rec.after)

    def per_game(x):
        return x / games

    r = rec.results
    points = r.points.astype(np.int64)
    count = ab.CLASS_COUNTS
    return {
        "games": int(games),
        "turns": int(len(rec.plays)),
        "movements": int(n_moves),
        "per_class": {
            ab.LETTERS[c - 1]: {
                "checkers": count[c],
                "movements_per_game": per_game(moves[c]),
                "movements_per_checker_per_game": per_game(moves[c]) / count[c],
                "share_of_movements": moves[c] / n_moves if n_moves else 0.0,
                "hits_per_game": per_game(hits[c]),
                "hit_by_opponent_per_game": per_game(victims[c]),
            } for c in CLASSES},
        "per_game": {
            "movements": per_game(n_moves),
            "hits": per_game(sum(hits.values())),
            "druid_traps": per_game(traps),
            "jane_hits": per_game(janes),
            "general_backward_movements": per_game(backward),
            "trapped_checkers_at_turn_end": per_game(int(trapped.sum())),
        },
        "turns_ending_with_a_trapped_checker": float((trapped > 0).mean()),
        "game_length_turns": {"mean": float(r.turns.mean()), "median": float(np.median(r.turns)),
                              "min": int(r.turns.min()), "max": int(r.turns.max())},
        "gammon_rate": float((points >= 2).mean()),
        "backgammon_rate": float((points >= 3).mean()),
        "deadlocks": int(rec.deadlocks),
    }


# --- part 2: one special checker replaced by a Soldier ------------------------------------

def parse_targets(text: str) -> list[tuple[str, str, int | None]]:
    """'G,D,K,O,E' -> (label, letter, point); K means the Guard on 13, K8 / K13 name the point."""
    out = []
    for t in (x.strip().upper() for x in text.split(",") if x.strip()):
        letter, point = t[0], t[1:]
        if letter not in "GDKOE" or (point and (letter != "K" or point not in ("8", "13"))):
            raise ValueError(f"bad target {t!r}: expected G, D, K (or K8 / K13), O or E")
        p = int(point) if point else (GUARD_POINT if letter == "K" else None)
        out.append((t if letter != "K" else f"K{p}", letter, p))
    return out


def replacement_study(variant, agent, games: int, seed: int, targets, batch: int) -> dict:
    """Side A's points per game with one special checker a Soldier (module docstring)."""
    if games < 2 or games % 2:
        raise ValueError(f"--replace must be an even number >= 2, got {games}")
    std = load_starting_layouts()["abak"]
    pairs = games // 2
    out = {}
    for label, letter, point in targets:
        a, at = with_soldier(std, letter, point)
        first, second, turns = np.empty(pairs, np.int64), np.empty(pairs, np.int64), 0
        for lo in range(0, pairs, max(1, batch // 2)):
            ids = np.arange(lo, min(lo + max(1, batch // 2), pairs), dtype=np.int64)
            g1 = play_recorded(variant, [agent, agent], ids.size, seed, game_ids=ids,
                               start=layout_rows((a, std)), with_plays=False)
            g2 = play_recorded(variant, [agent, agent], ids.size, seed, game_ids=ids,
                               start=layout_rows((std, a)), with_plays=False)
            first[ids], second[ids] = g1.results.seat_points(0), g2.results.seat_points(1)
            turns += int(g1.results.turns.sum() + g2.results.turns.sum())
        ppg, half = paired_ppg(first, second)
        win, win_half = paired_ppg(first > 0, second > 0)
        pts = np.concatenate([first, second])
        out[label] = {
            "replaced": letter, "point": at,
            "games": int(games), "pairs": int(pairs),
            "a_ppg": ppg, "a_ppg_ci95": half, "a_win_rate": win, "a_win_rate_ci95": win_half,
            "a_gammon_rate": float((pts >= 2).mean()), "a_lose_gammon_rate": float((pts <= -2).mean()),
            "pairs_summing_to_zero": int((first + second == 0).sum()),
            "mean_turns": turns / games,
        }
    return out


# --- the command ---------------------------------------------------------------------------

def study(agent_spec: str, games: int, seed: int, replace: int = 0, targets: str = DEFAULT_TARGETS,
          batch: int = 500) -> dict:
    """Both parts of the study; the figures as a dict (what --out writes, less the command)."""
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.variants import get_variant
    variant = get_variant("abak")
    agent = make_agent(agent_spec, variant, seed)
    report = {"agent": agent_spec, "agent_name": getattr(agent, "name", agent_spec),
              "seed": int(seed), "batch": int(batch)}
    t0 = time.perf_counter()
    if games:
        recs = [play_recorded(variant, [agent, agent], min(games, lo + batch) - lo, seed,
                              game_ids=np.arange(lo, min(games, lo + batch)))
                for lo in range(0, games, batch)]
        rec = recs[0] if len(recs) == 1 else _join(recs)
        report["self_play"] = movement_stats(rec)
    t1 = time.perf_counter()
    if replace:
        report["replace"] = replacement_study(variant, agent, replace, seed,
                                              parse_targets(targets), batch)
    t2 = time.perf_counter()
    report["seconds"] = {"self_play": t1 - t0, "replace": t2 - t1}
    return report


def _join(recs: list[Recorded]) -> Recorded:
    cat = np.concatenate
    res = GameResults(*(cat([getattr(r.results, k) for r in recs]) for k in ("winner", "points", "turns")))
    return Recorded(res, sum(r.deadlocks for r in recs), cat([r.game for r in recs]),
                    cat([r.seat for r in recs]), cat([r.before for r in recs]),
                    cat([r.after for r in recs]), [p for r in recs for p in r.plays])


def table(report: dict) -> str:
    lines = [f"agent {report['agent']}  seed {report['seed']}"]
    sp = report.get("self_play")
    if sp:
        lines += [f"\nself-play: {sp['games']} games, {sp['movements']} movements, "
                  f"{sp['game_length_turns']['mean']:.1f} turns a game (median "
                  f"{sp['game_length_turns']['median']:.0f}), gammons {sp['gammon_rate']:.1%}, "
                  f"backgammons {sp['backgammon_rate']:.1%}, deadlocks {sp['deadlocks']}",
                  f"{'class':>5} {'moves/game':>10} {'/checker':>9} {'share':>7} "
                  f"{'hits/game':>9} {'hit/game':>9}"]
        for letter, c in sp["per_class"].items():
            lines.append(f"{letter:>5} {c['movements_per_game']:10.2f} "
                         f"{c['movements_per_checker_per_game']:9.2f} {c['share_of_movements']:7.1%} "
                         f"{c['hits_per_game']:9.3f} {c['hit_by_opponent_per_game']:9.3f}")
        pg = sp["per_game"]
        lines += ["(hit/game: times a checker of the class was sent to the bar)",
                  f"per game: movements {pg['movements']:.1f}, hits {pg['hits']:.2f}, Druid traps "
                  f"{pg['druid_traps']:.2f}, Jane hits {pg['jane_hits']:.3f}, General backward "
                  f"{pg['general_backward_movements']:.2f}, trapped checkers at turn end "
                  f"{pg['trapped_checkers_at_turn_end']:.2f} (turns ending with one: "
                  f"{sp['turns_ending_with_a_trapped_checker']:.1%})"]
    rep = report.get("replace")
    if rep:
        lines += ["\nside A's start with one special checker a Soldier (B: standard start):",
                  f"{'class':>5} {'games':>6} {'A ppg':>8} {'95% ci':>8} {'A wins':>7}"]
        for label, r in rep.items():
            lines.append(f"{label:>5} {r['games']:6d} {r['a_ppg']:+8.3f} {r['a_ppg_ci95']:8.3f} "
                         f"{r['a_win_rate']:7.1%}")
    lines.append(f"\nseconds: self-play {report['seconds']['self_play']:.0f}, "
                 f"replace {report['seconds']['replace']:.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="export:checkpoints/pretrained/abak",
                    help="agent spec (agents/registry.py), played against itself")
    ap.add_argument("--games", type=int, default=400, help="self-play games (part 1; 0 skips it)")
    ap.add_argument("--replace", type=int, default=0,
                    help="games per replaced class (part 2; even; 0 skips it)")
    ap.add_argument("--targets", default=DEFAULT_TARGETS,
                    help="classes replaced in part 2: G, D, K (the Guard on 13; K8: on 8), O, E")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=500, help="games played in one lockstep batch")
    ap.add_argument("--out", default=None, help="write the figures here as JSON")
    args = ap.parse_args(argv)
    if args.games < 0 or args.replace < 0 or args.batch < 2:
        ap.error("--games and --replace must be >= 0, --batch >= 2")
    if args.replace:
        try:
            parse_targets(args.targets)
        except ValueError as e:
            ap.error(str(e))
        if args.replace % 2:
            ap.error("--replace must be even (each dice sequence is played from both seats)")
    report = study(args.agent, args.games, args.seed, args.replace, args.targets, args.batch)
    words = sys.argv[1:] if argv is None else argv
    report = {"command": " ".join(["python scripts/abak_study.py", *map(shlex.quote, words)]), **report}
    print(table(report))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {out}")
    return report


if __name__ == "__main__":
    main()
