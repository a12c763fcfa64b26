#!/usr/bin/env python
"""Time abak_expert's packed encoder (what Abak self-play runs for every afterstate), the
compiled kernel against the NumPy array code, on random-game afterstates.

    python scripts/bench_abak_encoder.py [--batches 256,2000] [--reps 9]

Prints one JSON line: per batch size, the median milliseconds per pack() call of each path and
their ratio, and the compiled path's microseconds per afterstate; also the special-slot codes
alone, compiled and NumPy. The two paths are timed in alternating blocks and the median block
is kept, so a burst of load on a shared machine falls on both rather than on one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.engine.variants import get_variant  # noqa: E402
from abak_rl.export.sample import sample_afterstates  # noqa: E402
from abak_rl.features import abak_expert as ae  # noqa: E402


def _alternating_ms(fns: dict, reps: int, block_s: float = 0.02) -> dict:
    """Median ms per call of each fn, timed in alternating blocks of about block_s each."""
    calls = {}
    for name, fn in fns.items():
        fn()                                           # compiled and warm before timing
        t = time.perf_counter()
        fn()
        calls[name] = max(1, int(block_s / max(time.perf_counter() - t, 1e-6)))
    times = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            t = time.perf_counter()
            for _ in range(calls[name]):
                fn()
            times[name].append((time.perf_counter() - t) / calls[name] * 1e3)
    return {name: statistics.median(v) for name, v in times.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default="256,2000", help="comma-separated batch sizes")
    ap.add_argument("--reps", type=int, default=9, help="alternating blocks per path (median kept)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    batches = [int(b) for b in args.batches.split(",")]
    pos, _ = sample_afterstates(get_variant("abak"), max(batches), args.seed)
    out = {"bench": "abak_encoder", "positions": "random-game afterstates", "reps": args.reps, "pack": {}}
    for n in batches:
        x = pos[:n]
        ms = _alternating_ms({"compiled": lambda: ae.pack(x), "numpy": lambda: ae._pack_numpy(x)}, args.reps)
        out["pack"][str(n)] = {"compiled_ms": round(ms["compiled"], 4), "numpy_ms": round(ms["numpy"], 4),
                               "numpy_over_compiled": round(ms["numpy"] / ms["compiled"], 2),
                               "compiled_us_per_row": round(ms["compiled"] * 1e3 / n, 3)}
    x = pos[:max(batches)]
    codes = ae._column_codes(x)
    ms = _alternating_ms({"compiled": lambda: ae._special_codes(x, codes),
                          "numpy": lambda: ae._special_codes_numpy(x, codes)}, args.reps)
    out["special_codes_ms"] = {"rows": len(x), **{k: round(v, 4) for k, v in ms.items()}}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
