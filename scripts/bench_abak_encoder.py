#!/usr/bin/env python
"""Time abak_expert's packed encoder (what Abak self-play runs for every afterstate) and its
special-slot codes, compiled against their NumPy forms, on random-game positions.

    python scripts/bench_abak_encoder.py [--rows 3000] [--repeats 30]

Prints one JSON line: milliseconds per call of pack() and of the special-slot codes, each with
the compiled kernels and with the NumPy array code, in the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.features import abak_expert as ae  # noqa: E402
from abak_rl.features import abak_expert_compiled as aec  # noqa: E402
from abak_rl.io.bench import random_positions  # noqa: E402


def _ms(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(3):                       # best of three blocks: the machine is shared
        t = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - t) / repeats * 1e3)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args(argv)
    pos = random_positions("abak", args.rows, seed=1)
    codes = ae._column_codes(pos)
    out = {"bench": "abak_encoder", "rows": len(pos),
           "special_codes_ms": {"compiled": _ms(lambda: ae._special_codes(pos, codes), args.repeats),
                                "numpy": _ms(lambda: ae._special_codes_numpy(pos, codes), args.repeats)},
           "pack_ms": {"compiled": _ms(lambda: ae.pack(pos), args.repeats)}}
    aec.AVAILABLE = False
    out["pack_ms"]["numpy"] = _ms(lambda: ae.pack(pos), args.repeats)
    aec.AVAILABLE = True
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
