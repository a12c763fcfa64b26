"""Feature encoding speed: microseconds per afterstate, one JSON line per (encoder, batch).

    python scripts/bench_features.py [--batches 64 3000] [--seconds 1.0] [--rounds 3]

Encodes random-game afterstates (export.sample.sample_afterstates, standard) with the `expert`
encoder used in training (compiled with Numba), its NumPy array path (expert.encode_numpy) and
td198 as the reference measured in the same run. Rounds alternate the encoders; each line gives
the median over rounds, and `ratio_to_td198` the encoder's time over td198's from the same
rounds, which is what to compare across runs on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import expert, expert_compiled, get_feature_set


def _time_per_row(fn, boards, again, seconds: float) -> float:
    fn(boards, again)                                  # warm (compiles on the first call)
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn(boards, again)
        reps += 1
    return (time.perf_counter() - t0) / reps / boards.shape[0] * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=int, nargs="+", default=[64, 3000])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    boards, again = sample_afterstates(get_variant("standard"), max(args.batches), 7)
    td198 = get_feature_set("td198").encode
    encoders = {"td198": td198, "expert_numpy": expert.encode_numpy}
    if expert_compiled.AVAILABLE:
        encoders["expert_compiled"] = get_feature_set("expert").encode
    for n in args.batches:
        b, a = boards[:n], again[:n]
        times = {k: [] for k in encoders}
        for _ in range(args.rounds):
            for name, fn in encoders.items():
                times[name].append(_time_per_row(fn, b, a, args.seconds))
        ref = statistics.median(times["td198"])
        for name, ts in times.items():
            med = statistics.median(ts)
            print(json.dumps({"bench": "features", "encoder": name, "batch": n,
                              "us_per_row": round(med, 3), "ratio_to_td198": round(med / ref, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
