"""One way for the figure scripts to finish: run the measurement, print its JSON, keep a copy.

A known failure (bad agent, missing program, unreadable file) becomes one line naming the
script, and exit status 2; nothing is written then."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def emit(script: str, measure, json_path: str | None = None) -> int:
    """Print measure()'s result as JSON (and write it to json_path); 0, or 2 on a known error."""
    try:
        res = measure()
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"{script}: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(res, indent=2)
    print(text)
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(text + "\n")
    return 0
