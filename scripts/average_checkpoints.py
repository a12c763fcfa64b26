#!/usr/bin/env python
"""Average the weights of several checkpoints of one run into a new checkpoint.

    python scripts/average_checkpoints.py OUT.pt checkpoints/RUN/games_*.pt [checkpoints/RUN/latest.pt]

Every tensor of the net is the mean of the inputs' (they must be the same net: feature set,
shape and tensor names); everything else (config, counters, optimizer, self-play state) is the
last input's, so OUT evaluates like any checkpoint (`agent=checkpoint:OUT.pt`) and can even be
resumed. Averaging nets from the end of a run at a low learning rate cancels some of the
optimizer's noise; docs/BENCHMARKS.md says what it bought for the standard net (issue 12).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402


def average(payloads: list[dict]) -> dict:
    first = payloads[-1]
    for p in payloads:
        if p["features"] != first["features"] or p["model"] != first["model"] or set(p["net"]) != set(first["net"]):
            raise ValueError(f"{p.get('path', '?')} is not the same net as {first.get('path', '?')}")
    new = {k: v for k, v in first.items() if k != "path"}
    new["net"] = {k: sum(p["net"][k].double() for p in payloads).div(len(payloads)).to(first["net"][k].dtype)
                  for k in first["net"]}
    return new


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 3:
        print("usage: average_checkpoints.py OUT.pt CHECKPOINT CHECKPOINT [...]", file=sys.stderr)
        return 2
    out, paths = argv[0], argv[1:]
    try:
        new = average([load_checkpoint(p) for p in paths])
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(out, new)
    except (CheckpointError, ValueError, KeyError, OSError) as exc:
        print(f"average_checkpoints: {exc}", file=sys.stderr)
        return 2
    print(f"average_checkpoints: {len(paths)} nets -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
