#!/usr/bin/env python
"""Is our search GNU Backgammon's search? Run ours over gnubg's own net and compare the plays.

    python scripts/search_vs_gnubg.py [--positions 500] [--games 60] [--seed 3] [--plies 0,1]
                                      [--json F]

Positions before a roll come from `--games` games of gnubg-nn's 0-ply self-play, each given a
random roll. For each position with a choice, agents/search.py's Search, fed gnubg-nn's 0-ply
net as its evaluator (agents/gnubg_agent.afterstate_probs) and its default root filter (8
plays within 0.16), picks a play at each ply of `--plies`; gnubg-nn's own `best_move` at the
same ply picks another. Printed per ply: the positions, the share of identical picks, and of
the rest how many are ties (the two plays worth the same to our search, within 1e-5: e.g.
both win for certain) and the mean equity our search says gnubg's pick gives up.

A check that what separates our 1-ply from gnubg's 1-ply is the net, not the search: if the
same net gives the same plays, the strength gap at 1-ply is the evaluator's (docs/BENCHMARKS.md,
"Search at play time").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def positions(games: int, n: int, seed: int):
    from abak_rl.agents.gnubg_agent import GnubgAgent
    from abak_rl.engine.game import play_games
    from abak_rl.engine.variants import get_variant
    v = get_variant("standard")
    g = GnubgAgent(v)
    seen = []
    play_games(v, [g, g], games, seed, on_turn=lambda ids, seats, before, *rest: seen.append(before.copy()))
    rows = np.concatenate(seen)
    rng = np.random.default_rng(seed)
    rows = rows[rng.permutation(len(rows))[:n]]
    dice = rng.integers(1, 7, size=(len(rows), 2)).astype(np.int8)
    return v, rows, dice


def compare(v, rows, dice, ply: int) -> dict:
    import gnubg_nn

    from abak_rl.agents.gnubg_agent import afterstate_probs, from_gnubg, to_gnubg
    from abak_rl.agents.search import Search
    from abak_rl.model.outcomes import equity
    after = v.legal_afterstates(rows, dice)
    n = len(rows)
    starts, counts = after.starts(n), after.counts(n)
    search = Search(afterstate_probs, v)
    t = time.perf_counter()
    ours = search.choose(after, dice, n, ply)
    eq = equity(search.play_values(after, dice, n, ply)[0])
    ours_s = time.perf_counter() - t
    same = ties = 0
    lost = []
    todo = np.flatnonzero(counts > 1)
    for i in todo:
        _, key = gnubg_nn.best_move(to_gnubg(rows[i]), int(dice[i, 0]), int(dice[i, 1]), n=ply, b=1)
        row = from_gnubg(*gnubg_nn.board_from_position_key(key))
        seg = after.boards[starts[i]:starts[i] + counts[i]]
        theirs = starts[i] + int(np.flatnonzero((seg == row).all(axis=1))[0])
        if theirs == ours[i]:
            same += 1
            continue
        d = float(eq[ours[i]] - eq[theirs])
        ties += abs(d) < 1e-5
        lost.append(d)
    k = int(todo.size)
    return {"ply": ply, "positions_with_a_choice": k, "same_play": same,
            "same_share": round(same / k, 4) if k else None, "differ": k - same, "ties": int(ties),
            "mean_equity_gnubg_pick_gives_up": round(float(np.mean(lost)), 5) if lost else 0.0,
            "our_search_seconds": round(ours_s, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--plies", default="0,1", help="comma-separated plies, each 0 or 1")
    ap.add_argument("--json", help="write the results here too")
    a = ap.parse_args(argv)
    try:
        plies = [int(p) for p in a.plies.split(",")]
        if not plies or any(p not in (0, 1) for p in plies):
            raise ValueError
    except ValueError:
        print(f"search_vs_gnubg.py: --plies {a.plies!r}: expected a comma-separated list of 0 and 1", file=sys.stderr)
        return 2
    if a.positions < 1 or a.games < 1:
        print("search_vs_gnubg.py: --positions and --games must be >= 1", file=sys.stderr)
        return 2
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        print("search_vs_gnubg.py: needs GNU Backgammon's net: pip install 'abak-rl[gnubg]' (gnubg-nn)", file=sys.stderr)
        return 2
    v, rows, dice = positions(a.games, a.positions, a.seed)
    out = {"games": a.games, "positions": int(len(rows)), "seed": a.seed, "results": []}
    for ply in plies:
        r = compare(v, rows, dice, ply)
        out["results"].append(r)
        print(f"ply {ply}: {r['same_play']} of {r['positions_with_a_choice']} positions the same play "
              f"({100 * (r['same_share'] or 0):.1f}%); of the {r['differ']} others {r['ties']} are ties; "
              f"gnubg's pick gives up {r['mean_equity_gnubg_pick_gives_up']:+.5f} on average by our search "
              f"({r['our_search_seconds']} s of our search)")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
