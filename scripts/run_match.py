#!/usr/bin/env python
"""Run one match from a checkout without installing: same arguments as `abak-rl evaluate`.

    python scripts/run_match.py agent=pubeval opponent=random games=10000 out=m.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from abak_rl.evaluate.cli import evaluate_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(evaluate_main(sys.argv[1:]))
