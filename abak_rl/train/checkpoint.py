"""Checkpoints: one file holds everything needed to play with a net or to continue its run.

Contents: format tag, variant, feature set (name, version, size), net shape and weights,
optimizer state, the resolved config, counters, every random state (torch's generators; the
self-play dice are counter-based, so their state is the game ids and roll counters), the
in-flight self-play games and the queue of training samples not yet used. Resuming from it
therefore continues the very same run.

Writing is atomic: a temporary file in the same folder, then os.replace, so a crash or Ctrl-C
never leaves a half-written checkpoint under a real name. NumPy arrays are stored as tensors so
the file loads with torch.load(weights_only=True): no arbitrary code runs when reading one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import torch

FORMAT = "abak-rl-checkpoint"
FORMAT_VERSION = 1
REQUIRED = ("format", "format_version", "variant", "features", "model", "net", "config")


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, corrupt or for something else."""


def _to_torch(x):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(x))
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, dict):
        return {k: _to_torch(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    return x


def to_numpy(x):
    """Tensors back to NumPy arrays (recursively), for the self-play and queue state."""
    if isinstance(x, torch.Tensor):
        return x.numpy()
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    return x


def random_states() -> dict:
    st = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        st["cuda"] = torch.cuda.get_rng_state_all()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    st["numpy"] = {"kind": kind, "keys": keys.astype(np.int64), "pos": int(pos), "has_gauss": int(has_gauss),
                   "cached": float(cached)}
    return st


def restore_random_states(st: dict) -> None:
    torch.set_rng_state(st["torch"])
    if "cuda" in st and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(st["cuda"])
    n = st["numpy"]
    np.random.set_state((n["kind"], np.asarray(n["keys"], dtype=np.uint32), n["pos"], n["has_gauss"],
                         n["cached"]))


def save_checkpoint(path: str | Path, payload: dict) -> Path:
    """Write payload (plus the format tag) to path atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _to_torch({"format": FORMAT, "format_version": FORMAT_VERSION, **payload})
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def resolve_path(path: str | Path) -> Path:
    """A checkpoint file, or a run folder (its latest.pt)."""
    p = Path(path)
    if p.is_dir():
        if not (p / "latest.pt").is_file() and (p / "model_card.json").is_file():
            raise CheckpointError(f"{p} is an export folder, not a training checkpoint; give a "
                                  f"checkpoint (.pt) or a checkpoints/<run>/ folder")
        p = p / "latest.pt"
    if not p.is_file():
        raise CheckpointError(f"checkpoint not found: {p}")
    return p


def load_checkpoint(path: str | Path) -> dict:
    """Read and check a checkpoint; CheckpointError says what is wrong with it."""
    p = resolve_path(path)
    try:
        data = torch.load(p, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 - zip, pickle and EOF errors all mean "corrupt"
        # torch's own text spans lines, has colour codes and suggests weights_only=False, which
        # would run code from an untrusted file: never show it, say what the file is instead
        raise CheckpointError(f"{p} is not a readable abak-rl checkpoint (corrupt or truncated, "
                              f"{p.stat().st_size:,} bytes)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{p} is not an abak-rl checkpoint (no {FORMAT!r} tag)")
    if data.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{p} has checkpoint format version {data.get('format_version')}, "
                              f"this abak-rl reads version {FORMAT_VERSION}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise CheckpointError(f"{p} is incomplete: missing {', '.join(missing)}")
    data["path"] = str(p)
    return data


def build_net_from(data: dict, feature_set):
    """The net stored in a loaded checkpoint, checked against the feature set it will read."""
    from ..model.net import net_from_shape
    try:
        feature_set.check_compatible(data["features"], where=f"checkpoint {data['path']}")
    except ValueError as e:
        raise CheckpointError(str(e)) from None
    shape = data["model"]
    if shape.get("n_inputs") != feature_set.size:
        raise CheckpointError(f"checkpoint {data['path']}: net has {shape.get('n_inputs')} inputs, "
                              f"feature set {feature_set.name} has {feature_set.size}")
    try:
        net = net_from_shape(shape)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"checkpoint {data['path']}: bad net shape {shape}: {e}") from None
    if "bearoff" in shape:
        net.shape["bearoff"] = shape["bearoff"]
    try:
        net.load_state_dict(data["net"])
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint {data['path']}: weights do not fit the recorded net "
                              f"shape {shape}: {e}") from None
    return net


EXPORT_PREFIX = "export:"


def _overrides_for(shape: dict, features: str) -> str:
    """The model.* command-line keys that build a net of `shape` on feature set `features`."""
    keys = [f"model.features={features}", f"model.hidden={shape.get('hidden')}",
            f"model.layers={shape.get('layers')}", f"model.activation={shape.get('activation')}",
            f"model.phases={'contact_race' if 'phases' in shape else 'single'}",
            f"model.bearoff={'true' if shape.get('bearoff') else 'false'}"]
    return " ".join(keys)


def init_source(spec: str):
    """(net shape, feature record, state dict) of the weights model.init names: a training
    checkpoint (.pt or a run folder) or an exported model (`export:DIR`)."""
    if spec.startswith(EXPORT_PREFIX):
        from ..export.exporters import open_export
        try:
            card, net = open_export(spec[len(EXPORT_PREFIX):])
            record = {k: card["feature_set"][k] for k in ("name", "version", "size")}
        except (ValueError, KeyError, TypeError) as e:
            raise CheckpointError(f"model.init={spec}: {e}") from None
        return dict(net.shape), record, net.state_dict()
    data = load_checkpoint(spec)
    return dict(data["model"]), dict(data["features"]), data["net"]


def load_initial_weights(spec: str, net, feature_set) -> None:
    """Copy the weights model.init names into `net` (a new run's freshly built net); the source
    must be one net of the same shape on the same feature set."""
    shape, record, state = init_source(spec)
    if "ensemble" in shape:
        raise CheckpointError(f"model.init={spec} is an ensemble of {len(shape['ensemble'])} nets: a run "
                              f"trains one net; start from one of its members")
    if record.get("name") != feature_set.name:
        raise CheckpointError(f"model.init={spec}: its net reads feature set {record.get('name')}, this run's "
                              f"reads {feature_set.name}; give the source's shape: "
                              f"{_overrides_for(shape, record.get('name'))}")
    try:
        feature_set.check_compatible(record, where=f"model.init={spec}")
    except ValueError as e:
        raise CheckpointError(str(e)) from None
    if shape != dict(net.shape):
        raise CheckpointError(f"model.init={spec}: its net is {shape}, this run's model.* builds {dict(net.shape)}; "
                              f"give the source's shape: {_overrides_for(shape, record.get('name'))}")
    try:
        net.load_state_dict(state)
    except RuntimeError as e:
        raise CheckpointError(f"model.init={spec}: weights do not fit the net shape {shape}: "
                              f"{' '.join(str(e).split())[:200]}") from None
