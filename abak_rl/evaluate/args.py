"""key=value command-line arguments (Hydra style) for the evaluation commands.

Each command declares its keys with a type and a default; an unknown key, a missing required key
or a value of the wrong type is an error that names it. Lists are written [a,b,c]; inside a list,
an item "ply=N" belongs to the checkpoint spec before it (checkpoint:<path>,ply=1).
"""

from __future__ import annotations

REQUIRED = object()
LIMITS = {"seed": (0, 2**63 - 1), "cube_x": (0.0, 1.0)}   # checked wherever a command has the key


class ArgError(ValueError):
    """A bad command-line argument; the message names it."""


def split_list(text: str) -> list[str]:
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    items: list[str] = []
    for part in (p.strip() for p in body.split(",")):
        if not part:
            continue
        if part.startswith("ply=") and items and items[-1].startswith("checkpoint:"):
            items[-1] += "," + part
        else:
            items.append(part)
    return items


def _convert(key: str, raw: str, kind):
    if kind is list:
        items = split_list(raw)
        if not items:
            raise ArgError(f"{key}= needs at least one item, e.g. {key}=[random,pubeval]")
        return items
    if kind is bool:
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ArgError(f"{key}={raw!r}: expected true or false")
    if kind is int:
        try:
            return int(raw.replace("_", ""))
        except ValueError:
            raise ArgError(f"{key}={raw!r}: expected an integer") from None
    if kind is float:
        try:
            return float(raw)
        except ValueError:
            raise ArgError(f"{key}={raw!r}: expected a number") from None
    return raw


def parse(argv: list[str], spec: dict[str, tuple[type, object]], command: str) -> dict:
    """Parse key=value arguments against spec {key: (type, default or REQUIRED)}."""
    out: dict = {}
    for arg in argv:
        key, eq, raw = arg.partition("=")
        key = key.strip().lstrip("+")
        if not eq or not key:
            raise ArgError(f"{command}: argument {arg!r} is not key=value "
                           f"(keys: {', '.join(spec)})")
        if key not in spec:
            raise ArgError(f"{command}: unknown key {key!r} (keys: {', '.join(spec)})")
        out[key] = _convert(key, raw.strip(), spec[key][0])
    for key, (lo, hi) in LIMITS.items():
        if key in out and key in spec and not (lo <= out[key] <= hi):
            must = f">= {lo}" if hi == LIMITS["seed"][1] else f"in [{lo}, {hi}]"
            raise ArgError(f"{command}: {key}={out[key]} is out of range: must be {must}")
    for key, (_, default) in spec.items():
        if key not in out:
            if default is REQUIRED:
                raise ArgError(f"{command}: missing required key {key}=...")
            out[key] = default
    return out


def usage(spec: dict[str, tuple[type, object]], command: str) -> str:
    parts = []
    for key, (kind, default) in spec.items():
        shown = "<required>" if default is REQUIRED else default
        parts.append(f"  {key}=  ({kind.__name__}, default {shown})")
    return f"usage: abak-rl {command} key=value ...\n" + "\n".join(parts)
