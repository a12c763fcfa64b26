"""Check the vectorized Abak generator against the plain-Python reference on many positions
from random games (more than CI runs): prints one JSON line with the positions compared, how
many disagreed, and how many positions' plays included each rule family.

    python scripts/check_abak_reference.py [--games 22] [--seeds 10] [--first-seed 100]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_abak_agreement import compare, sample  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=22)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=100)
    args = ap.parse_args(argv)
    seen, compared, mismatches = Counter(), 0, []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        boards, dice = sample(args.games, seed)
        bad, kinds = compare(boards, dice)
        mismatches += [{"seed": seed, "position": i} for i, *_ in bad]
        seen += kinds
        compared += len(boards)
    print(json.dumps({"positions": compared, "mismatches": len(mismatches),
                      "first_mismatches": mismatches[:10], "positions_with": dict(seen)}))


if __name__ == "__main__":
    main()
