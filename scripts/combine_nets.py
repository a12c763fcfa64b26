#!/usr/bin/env python
"""Combine trained nets into one ensemble checkpoint: the nets' five outputs averaged.

    python scripts/combine_nets.py OUT.pt CKPT1 CKPT2 [CKPT3 ...]

Each CKPT is a training checkpoint (.pt), a run folder (its latest.pt), or an exported model
(`export:DIR`, an `abak-rl export` folder with model.safetensors): an exported ensemble gives
each of its members, so a shipped model can take one more net without its members' training
checkpoints; `export:DIR#K` gives its member K alone (0 = the first), to swap one member out.
One exported net alone (`combine_nets.py OUT.pt export:DIR`, or `export:DIR#K`) is written back
as a checkpoint of that one net: a shipped model as a teacher or student for
scripts/distill_ply1.py, or as `checkpoint:` for evaluate.
All must be for the same variant and the same feature set (their hidden sizes, layers and
phases may differ). OUT is a checkpoint like any other (model/net.py EnsembleNet): `abak-rl evaluate
agent=checkpoint:OUT.pt`, `abak-rl export checkpoint=OUT.pt format=all out=DIR`, `abak-rl hint
--model OUT.pt` and `abak-rl play --model OUT.pt` use it as they use one net. It records the
members' checkpoints, runs and games trained (config.ensemble, shown in an export's model card
under training.config) and the total games as counters.games. It holds no optimizer or
self-play state: an ensemble is for play and evaluation, and `abak-rl train resume=OUT.pt` is
refused. OUT is written atomically (a temporary file, then a rename). Bad input (a missing or
corrupt checkpoint, mixed variants or feature sets, one checkpoint alone, an unusable OUT)
prints one line and exits with status 2. docs/training.md ("Ensembles") says why and what it
costs.
"""

from __future__ import annotations

import argparse
import copy
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, resolve_path, save_checkpoint  # noqa: E402

PROG = "combine_nets"
USAGE = "combine_nets.py OUT.pt CKPT1 CKPT2 [CKPT3 ...] (a CKPT may be export:DIR or export:DIR#K)"
EXPORT = "export:"
COMBINE = "the mean of the members' five outputs"


class Parser(argparse.ArgumentParser):
    def error(self, message):           # one line, not argparse's usage block
        print(f"{PROG}: {message} (usage: {USAGE})", file=sys.stderr)
        sys.exit(2)


def check_out(out: Path, members: list[Path]) -> None:
    """A ValueError unless OUT can be written as a checkpoint file."""
    if out.is_dir():
        raise ValueError(f"cannot write {out}: it is a folder (give a file name such as {out / 'ensemble.pt'})")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"cannot write {out}: {parent} is not a folder")
            break
    if out.exists() and any(out.resolve() == m.resolve() for m in members):
        raise ValueError(f"cannot write {out}: it is one of the members")


def load_member(path: str):
    """(checkpoint data, net) of one member, checked to be a single trained net."""
    from abak_rl.features import get_feature_set
    from abak_rl.train.checkpoint import build_net_from
    data = load_checkpoint(path)
    if "ensemble" in data["model"]:
        raise ValueError(f"{data['path']} is already an ensemble; combine its members instead")
    try:
        fs = get_feature_set(data["features"]["name"])
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {data['path']}: bad feature set record {data.get('features')!r}: "
                              f"{e}") from None
    return data, build_net_from(data, fs)


def split_member(spec: str) -> tuple[str, int | None]:
    """("export:DIR", K) for "export:DIR#K", (spec, None) for any other spec."""
    if spec.startswith(EXPORT) and "#" in spec:
        head, _, k = spec.rpartition("#")
        if not k.isdigit():
            raise ValueError(f"{spec}: the member after # must be a number (0 = the first)")
        return head, int(k)
    return spec, None


def load_export_members(spec: str) -> list:
    """[(checkpoint-like data, net)] for each member of an exported model (`export:DIR`): the
    card's variant, feature set and network shape, the safetensors weights; an ensemble's
    members one by one, with what its card recorded of their training."""
    from abak_rl.export.exporters import open_export
    from abak_rl.features import get_feature_set
    from abak_rl.model.net import EnsembleNet
    try:
        card, net = open_export(spec[len(EXPORT):])
        fs = get_feature_set(card["feature_set"]["name"])
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{spec}: {' '.join(str(e).split())[:300]}") from None
    if {k: card["feature_set"].get(k) for k in ("name", "version", "size")} != fs.describe():
        raise ValueError(f"{spec}: exported with feature set {card['feature_set']}, which differs from the "
                         f"current {fs.describe()}")
    training = card.get("training") or {}
    recorded = ((training.get("config") or {}).get("ensemble") or {}).get("members") or []
    nets = list(net.members) if isinstance(net, EnsembleNet) else [net]
    out = []
    for i, m in enumerate(nets):
        rec = recorded[i] if len(recorded) == len(nets) else {}
        shape = dict(m.shape)
        single = len(nets) == 1
        counters = {k: (training.get(k) if single else None) for k in ("games", "updates", "states", "seconds")}
        if not single:
            counters.update(games=rec.get("games"), updates=rec.get("updates"))
        config = rec.get("config") if rec.get("config") else (training.get("config") if single else {})
        where = f"{spec}" + ("" if single else f" member {i}")
        data = {"path": where, "variant": card["variant"], "features": fs.describe(), "model": shape,
                "net": m.state_dict(), "config": dict(config or {}), "counters": counters}
        out.append((data, m))
    return out


def combine(datas: list[dict], nets: list, name: str) -> dict:
    """The checkpoint payload of the ensemble of `nets` (loaded from `datas`)."""
    from abak_rl.model.net import EnsembleNet
    first = datas[0]
    for d in datas[1:]:
        if d["variant"] != first["variant"]:
            raise ValueError(f"{d['path']} is a {d['variant']} net, {first['path']} a {first['variant']} net: "
                             f"members must be for the same variant")
        if dict(d["features"]) != dict(first["features"]):
            f, g = d["features"], first["features"]
            raise ValueError(f"{d['path']} reads feature set {f.get('name')} v{f.get('version')}, "
                             f"{first['path']} reads {g.get('name')} v{g.get('version')}: members must "
                             f"read the same feature set")
    net = EnsembleNet(nets)
    members = []
    for d in datas:
        c = dict(d.get("counters") or {})
        cfg = d.get("config") or {}
        members.append({"checkpoint": str(d["path"]), "run": cfg.get("run"), "games": c.get("games"),
                        "updates": c.get("updates"), "best_ppg": c.get("best_ppg"),
                        "latest_evaluation": (c.get("history") or [None])[-1],
                        "network": dict(d["model"]), "config": copy.deepcopy(cfg)})

    def total(key):
        vals = [(d.get("counters") or {}).get(key) for d in datas]
        return sum(vals) if all(isinstance(v, (int, float)) for v in vals) else None

    config = {"run": name,
              "variant": copy.deepcopy((first.get("config") or {}).get("variant") or {"name": first["variant"]}),
              "model": {"features": first["features"]["name"], "ensemble": len(nets)},
              "ensemble": {"combine": COMBINE, "made_by": "scripts/combine_nets.py",
                           "made_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "members": members}}
    counters = {"games": total("games"), "updates": total("updates"), "states": total("states"),
                "seconds": total("seconds"), "history": []}
    return {"variant": first["variant"], "features": dict(first["features"]), "model": net.shape,
            "net": net.state_dict(), "config": config, "counters": counters,
            "run_id": uuid.uuid4().hex, "launches": []}


def one_net(data: dict, net, name: str) -> dict:
    """The checkpoint payload of one exported net: its weights, shape and recorded training, for
    play, evaluation, a teacher or a student of scripts/distill_ply1.py and model.init. It holds no
    optimizer or self-play state, so `abak-rl train resume=` refuses it as a playing snapshot."""
    config = copy.deepcopy(data.get("config") or {})
    config.setdefault("variant", {"name": data["variant"]})
    config["run"] = config.get("run") or name
    config["exported_from"] = data["path"]
    counters = {k: v for k, v in (data.get("counters") or {}).items() if v is not None}
    return {"variant": data["variant"], "features": dict(data["features"]), "model": dict(net.shape),
            "net": net.state_dict(), "config": config, "counters": {**counters, "history": []},
            "run_id": uuid.uuid4().hex, "launches": []}


def main(argv=None) -> int:
    ap = Parser(prog="combine_nets.py", usage=USAGE, description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the ensemble checkpoint to write (.pt)")
    ap.add_argument("checkpoints", nargs="+", help="member checkpoints (.pt) or run folders")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:             # --help (0) or a usage error (2, one line already printed)
        return int(e.code or 0)
    out = Path(args.out)
    try:
        specs = [split_member(p) for p in args.checkpoints]
        paths = [Path(p[len(EXPORT):]) if p.startswith(EXPORT) else resolve_path(p) for p, _ in specs]
        seen = {}                       # (path, member) -> the argument; member None = all of them
        for given, p, (_, k) in zip(args.checkpoints, paths, specs):
            clash = [g for (q, j), g in seen.items() if q == p.resolve() and (j is None or k is None or j == k)]
            if clash:
                raise ValueError(f"{given} is the same checkpoint as {clash[0]}: give each member once")
            seen[(p.resolve(), k)] = given
        check_out(out, paths)
        loaded = []
        for given, p, (spec, k) in zip(args.checkpoints, paths, specs):
            if not spec.startswith(EXPORT):
                loaded.append(load_member(str(p)))
                continue
            members = load_export_members(spec)
            if k is not None:
                if k >= len(members):
                    raise ValueError(f"{given}: {spec} has {len(members)} member net(s), numbered from 0")
                members = [members[k]]
            loaded += members
        if len(loaded) == 1 and specs[0][0].startswith(EXPORT):
            payload = one_net(*loaded[0], out.stem)      # an exported net back into a checkpoint
        elif len(loaded) < 2:
            raise ValueError(f"an ensemble needs at least 2 member nets, got {len(loaded)} (one exported net, "
                             f"export:DIR, alone is turned back into a checkpoint)")
        else:
            payload = combine([d for d, _ in loaded], [n for _, n in loaded], out.stem)
        out.parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(out, payload)
    except (CheckpointError, ValueError, KeyError, TypeError, OSError) as e:
        msg = f"{e.filename or out}: {e.strerror or e}" if isinstance(e, OSError) else str(e)
        print(f"{PROG}: {' '.join(msg.split())}", file=sys.stderr)     # one line, whatever the error
        return 2
    games = payload["counters"].get("games")
    print(f"{PROG}: {len(loaded)} net{'s' if len(loaded) > 1 else ''}"
          + (f" ({games:,} games trained in all)" if games is not None else "") + f" -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
