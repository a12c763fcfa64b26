#!/usr/bin/env python
"""Give chunks labelled before they recorded `group` (which afterstates are one roll's plays
from one position) their groups, found by making each chunk's afterstates again.

    python scripts/regroup_chunks.py TEACHER.pt DIR --seed S [--precision bf16] [--all-plays]

TEACHER, --seed, --precision and --all-plays (implied by chunks of a roll's top plays) must be those the chunks were labelled with
(scripts/distill_ply1.py): the teacher's games and its 0-ply pick of each roll's top plays make
the same afterstates again, and a chunk is changed only when they are exactly its own; a chunk
they do not match (or a file that is not a readable chunk) is reported and left as it was. Labels are not recomputed (seconds a chunk).
The groups let a fit weigh the differences between siblings (`distill_ply1.py --sibling-weight`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from abak_rl.model.bf16 import PRECISIONS  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="regroup_chunks.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("teacher")
    ap.add_argument("data")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--precision", default="fp32", choices=PRECISIONS)
    ap.add_argument("--all-plays", action="store_true",
                    help="the chunks label every play of a roll (distill_ply1.py --all-plays without --top)")
    args = ap.parse_args(argv)
    import torch

    from distill_ply1 import chunk_afterstates, read_chunk

    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.train.checkpoint import CheckpointError, load_checkpoint
    torch.set_num_threads(1)
    folder = Path(args.data)
    files = sorted(folder.glob("chunk[0-9][0-9][0-9][0-9].npz")) if folder.is_dir() else []
    if not files:
        print(f"regroup_chunks: {folder} holds no chunk files", file=sys.stderr)
        return 2
    try:
        data = load_checkpoint(args.teacher)
        scorer = load_neural_agent(args.teacher, data["variant"], precision=args.precision).scorer
    except (CheckpointError, ValueError) as e:
        print(f"regroup_chunks: {e}", file=sys.stderr)
        return 2
    done = failed = 0
    for path in files:
        try:
            part = read_chunk(path)
        except ValueError as e:
            print(f"regroup_chunks: {e}; left as it was")
            failed += 1
            continue
        if "group" in part:
            continue
        k = int(path.stem[len("chunk"):])
        top = int(part.get("top", 0)) or None
        margin = float(part.get("top_margin", -1.0))
        b, a, group = chunk_afterstates(scorer, args.seed, k, len(part["boards"]),
                                        all_plays=args.all_plays or top is not None,
                                        explore=float(part.get("explore", 0.0)), top=top,
                                        top_margin=None if margin < 0 else margin)
        if not (np.array_equal(b, part["boards"]) and np.array_equal(a, part["again"])):
            print(f"regroup_chunks: {path}: its afterstates are not made again by this teacher and seed; left as it was")
            failed += 1
            continue
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **part, group=group)
        tmp.replace(path)                                    # a chunk is whole or as it was
        done += 1
    print(f"regroup_chunks: {done} chunks given their groups, {failed} left as they were, "
          f"{len(files) - done - failed} had them already")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
