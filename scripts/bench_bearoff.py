"""The bear-off database: build time, bearoff_probs speed, agreement with GNU Backgammon.

Build: BearoffDB.build() (both tables) next to, in the same run, one legal_afterstates pass
over the same 54,264 x 21 (position, roll) pairs (synthetic rows, batches of 8,192): what a
build on the move generator would spend before any dynamic programming. Medians of --reps.
Probabilities: bearoff_probs on --rows random bear-off afterstates (both sides' home boards
drawn uniformly from the database's positions) next to gnubg_nn.probabilities at 0 ply (one
call a position, --gnubg-rows of them), with the largest differences per output. With
--all-one-sided, every one-sided distribution is compared with gnubg_nn.bearoff_probabilities.
Ends with one JSON line per measurement.

    .venv/bin/python scripts/bench_bearoff.py [--reps 3] [--rows 100000] [--gnubg-rows 2000]
                                              [--all-one-sided]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from abak_rl.agents.gnubg_agent import to_gnubg
from abak_rl.engine import bearoff as bo
from abak_rl.engine.board import OFF, OPP_OFF, WIDTH, flip
from abak_rl.engine.movegen import legal_afterstates

OUTPUTS = ("p_win", "p_wg", "p_wbg", "p_lg", "p_lbg")


def rows_from_counts(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Classic rows with `mine` on the row's points 1..6 and `theirs` on the other side's own
    points 1..6 (the row's 24..19), the rest of each side borne off."""
    rows = np.zeros((len(mine), WIDTH), np.int8)
    rows[:, :6] = mine
    rows[:, 23:17:-1] = -theirs
    rows[:, OFF] = 15 - mine.astype(np.int64).sum(1)
    rows[:, OPP_OFF] = 15 - theirs.astype(np.int64).sum(1)
    return rows


def time_build(reps: int) -> tuple[list[float], list[float], bo.BearoffDB]:
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    opp = np.zeros_like(counts)
    opp[:, 0] = 15  # on the mover's 24 point: no contact
    rep = np.repeat(rows_from_counts(counts, opp), len(bo.ROLLS), axis=0)
    dice = np.tile(bo.ROLLS, (bo.N_POSITIONS, 1))
    build, movegen = [], []
    for _ in range(reps):
        t = time.perf_counter()
        db = bo.BearoffDB.build()
        build.append(time.perf_counter() - t)
        t = time.perf_counter()
        for s in range(0, len(rep), 8192):
            legal_afterstates(rep[s:s + 8192], dice[s:s + 8192])
        movegen.append(time.perf_counter() - t)
    return build, movegen, db


def gnubg_view(rows: np.ndarray) -> list:
    """Afterstates (P's view, O to roll) as gnubg boards: O is the player on roll."""
    return [to_gnubg(r) for r in flip(rows)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--gnubg-rows", type=int, default=2000)
    ap.add_argument("--all-one-sided", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    for name in ("reps", "rows", "gnubg_rows"):
        if getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    out = []
    build, movegen, db = time_build(a.reps)
    b, m = statistics.median(build), statistics.median(movegen)
    out.append({"what": "build_s", "value": round(b, 3), "per_rep": [round(x, 3) for x in build]})
    out.append({"what": "movegen_all_pairs_s", "value": round(m, 3), "pairs": bo.N_POSITIONS * 21})
    out.append({"what": "build_over_movegen_ratio", "value": round(b / m, 3)})

    rng = np.random.default_rng(a.seed)
    counts = bo.bearoff_counts(np.arange(bo.N_POSITIONS))
    rows = rows_from_counts(counts[rng.integers(0, bo.N_POSITIONS, a.rows)],
                            counts[rng.integers(1, bo.N_POSITIONS, a.rows)])
    rows = rows[bo.is_bearoff(rows)]
    t = time.perf_counter()
    p = db.probs(rows)
    ours = len(rows) / (time.perf_counter() - t)
    out.append({"what": "bearoff_probs_rows_per_s", "value": round(ours), "rows": len(rows)})
    try:
        import gnubg_nn
    except ImportError:
        gnubg_nn = None
    if gnubg_nn is not None:
        n = min(a.gnubg_rows, len(rows))
        boards = gnubg_view(rows[:n])
        t = time.perf_counter()
        g = np.array([gnubg_nn.probabilities(x, 0) for x in boards])
        theirs = n / (time.perf_counter() - t)
        as_p = np.stack([1 - g[:, 0], g[:, 3], g[:, 4], g[:, 1], g[:, 2]], axis=1)
        diff = np.abs(as_p - p[:n])
        out.append({"what": "gnubg_probabilities_rows_per_s", "value": round(theirs), "rows": n})
        out.append({"what": "probs_over_gnubg_speed_ratio", "value": round(ours / theirs, 2)})
        out.append({"what": "max_abs_diff_vs_gnubg_0ply", "outputs": list(OUTPUTS),
                    "value": [float(f"{x:.3g}") for x in diff.max(0)],
                    "mean": [float(f"{x:.3g}") for x in diff.mean(0)], "rows": n})
        if a.all_one_sided:
            worst, e_worst, above = 0.0, 0.0, 0
            for i in range(1, bo.N_POSITIONS):
                q = np.array(gnubg_nn.bearoff_probabilities(tuple(int(x) for x in counts[i])))
                mine = db.rolls_off_all[i, 1:]
                d = max(np.abs(mine[:q.size] - q).max(), float(mine[q.size:].sum()))
                worst, above = max(worst, d), above + (d > 1e-4)
                e_worst = max(e_worst, abs(q @ np.arange(1, q.size + 1) - db.expected_off_all[i]))
            out.append({"what": "one_sided_vs_gnubg", "positions": bo.N_POSITIONS - 1,
                        "max_abs_diff": float(f"{worst:.3g}"), "over_1e-4": int(above),
                        "max_expected_rolls_diff": float(f"{e_worst:.3g}")})
    for row in out:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
