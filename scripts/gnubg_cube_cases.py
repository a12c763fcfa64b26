"""Record GNU Backgammon's 0-ply cube equities of sampled positions at several scores, for
tests/test_cube_gnubg.py (which needs no GNU Backgammon: it feeds the recorded probabilities
to engine/cube.py and compares the no double / double-take / double-pass equities).

    python scripts/gnubg_cube_cases.py tests/data/gnubg_cube_cases.json
    python scripts/gnubg_cube_cases.py tests/data/gnubg_bearoff2_cases.json --bearoff 150

With --bearoff N: N random two-sided bear-offs instead (1..6 checkers a side, all home; what
GNU Backgammon reads from its two-sided database, "Bearoff2"), at the money contexts (cube
centred, owned, the opponent's), for tests/test_bearoff_cube.py.

Needs the gnubg program (Debian package gnubg: /usr/games/gnubg). Positions: standard
backgammon from random games (export/sample.py), a mix of contact, race and bear-off
classes; contexts: money (cube centred, owned, the opponent's, Jacoby) and 7-point match
scores (2-4, 4-2, 5-5, post-Crawford both ways, the Crawford game, turned cubes).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

# (label, match length, mover's score, opponent's score, cube, owner from the mover: 1 mover,
#  -1 opponent, 0 centred, Crawford game, Jacoby)
CONTEXTS = [
    ("money centred", 0, 0, 0, 1, 0, False, False),
    ("money owned", 0, 0, 0, 2, 1, False, False),
    ("money theirs", 0, 0, 0, 2, -1, False, False),
    ("money Jacoby", 0, 0, 0, 1, 0, False, True),
    ("7pt 0-0", 7, 0, 0, 1, 0, False, False),
    ("7pt 2-4", 7, 2, 4, 1, 0, False, False),
    ("7pt 4-2", 7, 4, 2, 1, 0, False, False),
    ("7pt 5-5", 7, 5, 5, 1, 0, False, False),
    ("7pt 3-6 post-Crawford", 7, 3, 6, 1, 0, False, False),
    ("7pt 6-3 post-Crawford", 7, 6, 3, 1, 0, False, False),
    ("7pt 3-6 Crawford", 7, 3, 6, 1, 0, True, False),
    ("7pt 4-4 cube 2 owned", 7, 4, 4, 2, 1, False, False),
    ("7pt 3-3 cube 2 theirs", 7, 3, 3, 2, -1, False, False),
    ("7pt 1-0 cube 2 owned", 7, 1, 0, 2, 1, False, False),
]
GNUBG = "/usr/games/gnubg"


def commands(ids: list[str], contexts=None) -> str:
    lines = ["set output digits 5", "set output mwc on", "set confirm new off",
             "set player 0 human", "set player 1 human", "set beavers off",
             "set evaluation chequerplay evaluation plies 0",
             "set evaluation cubedecision evaluation plies 0"]
    for label, length, me, opp, cube, owner, crawford, jacoby in contexts or CONTEXTS:
        for pid in ids:
            # the mover is player 1 (gnubg's "root" here), the opponent player 0
            lines.append(f"set jacoby {'on' if jacoby else 'off'}")
            lines.append(f"new match {length}" if length else "new session")
            if length:
                lines.append(f"set score {opp} {me}")
                lines.append(f"set crawford {'on' if crawford else 'off'}")
            lines += ["set turn 1", f"set board {pid}", f"set cube value {cube}"]
            lines.append({0: "set cube centre", 1: "set cube owner 1", -1: "set cube owner 0"}[owner])
            lines.append("eval")
    return "\n".join(lines) + "\n"


NUM = r"([-+]?\d+\.\d+)%?"


def parse(block: str) -> dict:
    """Probabilities, evaluator class and cube equities of one `eval` output."""
    m = re.search(r"static:\s+" + r"\s+".join([NUM] * 7), block)
    if not m:
        raise ValueError("no static evaluation line in gnubg's output:\n" + block[:400])
    vals = [float(v) for v in m.groups()]
    pct = "%" in block.split("static:")[1].splitlines()[0]
    scale = 0.01 if pct else 1.0
    out = {"probs": vals[:5], "cubeful": vals[6] * scale,
           "class": re.search(r"Evaluator:\s+(\S+)", block).group(1)}
    for key, name in (("nd", "No (?:re)?double"), ("dt", "(?:Re)?[Dd]ouble, take"),
                      ("dp", "(?:Re)?[Dd]ouble, pass")):
        mm = re.search(r"\d\.\s+" + name + r"\s+" + NUM, block)
        if mm:
            out[key] = float(mm.group(1)) * scale
    return out


def pick_positions(n: int, seed: int) -> list[np.ndarray]:
    """n standard positions, about half contact, a third race, the rest bear-off."""
    from abak_rl.engine.cube import cube_efficiency
    from abak_rl.engine.variants import get_variant
    from abak_rl.export.sample import sample_positions
    v = get_variant("standard")
    boards, _ = sample_positions(v, 4000, seed)
    live = (v.winner_points(boards) == 0) & (v.winner_points(v.flip(boards)) == 0)
    boards = boards[live]
    x = cube_efficiency(v, boards)
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(x == 0.68), np.flatnonzero((x > 0.6) & (x != 0.68)), np.flatnonzero(x == 0.6)]
    sizes = [n // 2, n // 3, n - n // 2 - n // 3]
    rows = [boards[i] for g, k in zip(groups, sizes) for i in rng.choice(g, min(k, g.size), replace=False)]
    return rows


def pick_bearoffs(n: int, seed: int) -> list[np.ndarray]:
    """n distinct two-sided bear-offs before the mover's roll, 1..6 checkers a side."""
    from abak_rl.engine import board as cb
    rng = np.random.default_rng(seed)
    rows, seen = [], set()
    while len(rows) < n:
        row = np.zeros(cb.WIDTH, dtype=np.int8)
        for sign, off in ((1, cb.OFF), (-1, cb.OPP_OFF)):
            k = int(rng.integers(1, 7))
            for p in rng.integers(1, 7, size=k):
                row[p - 1 if sign > 0 else 24 - p] += sign
            row[off] = 15 - k
        if row.tobytes() not in seen:
            seen.add(row.tobytes())
            rows.append(row)
    return rows


MONEY = [c for c in CONTEXTS if c[1] == 0 and not c[7]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--positions", type=int, default=24)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--bearoff", type=int, default=0, help="record N two-sided bear-offs at money contexts instead")
    a = ap.parse_args(argv)
    if not shutil.which(GNUBG):
        print(f"gnubg_cube_cases: {GNUBG} not found (install the Debian package gnubg)", file=sys.stderr)
        return 2
    from abak_rl.io import gnubg_id
    contexts = MONEY if a.bearoff else CONTEXTS
    rows = pick_bearoffs(a.bearoff, a.seed) if a.bearoff else pick_positions(a.positions, a.seed)
    ids = [gnubg_id.encode(r) for r in rows]
    run = subprocess.run([GNUBG, "-t", "-q"], input=commands(ids, contexts), capture_output=True, text=True,
                         timeout=600)
    blocks = run.stdout.split("Evaluator:")[1:]
    if len(blocks) != len(ids) * len(contexts):
        print(f"gnubg_cube_cases: expected {len(ids) * len(contexts)} evaluations, got {len(blocks)}",
              file=sys.stderr)
        return 2
    cases = []
    for k, (label, length, me, opp, cube, owner, crawford, jacoby) in enumerate(contexts):
        for j, pid in enumerate(ids):
            got = parse("Evaluator:" + blocks[k * len(ids) + j])
            cases.append({"context": label, "position_id": pid, "match_length": length,
                          "away": length - me if length else 0, "opp_away": length - opp if length else 0,
                          "cube": cube, "owner": owner, "crawford": crawford, "jacoby": jacoby, **got})
    version = subprocess.run([GNUBG, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps({"program": version, "plies": 0})[:-1]
    body = ",\n".join(json.dumps(c) for c in cases)
    a.out.write_text(f'{head}, "cases": [\n{body}\n]}}\n')
    print(f"{a.out}: {len(cases)} cases ({len(ids)} positions x {len(contexts)} contexts), {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
