"""scripts/bench_envs.py runs and reports every environment it measures (a fraction of a second each)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
ROOT = Path(__file__).resolve().parents[1]


def test_bench_envs_smoke():
    run = subprocess.run([sys.executable, "scripts/bench_envs.py", "--seconds", "0.2", "--repeats", "1",
                          "--num-envs", "4", "--warmup", "2", "--variants", "standard"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    benches = {r["bench"] for r in rows}
    assert {"play_games-standard", "vector-standard", "aec-standard"} <= benches
    assert all(r["steps_per_s"] > 0 for r in rows)


def test_bench_envs_refuses_bad_arguments():
    run = subprocess.run([sys.executable, "scripts/bench_envs.py", "--seconds", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "Traceback" not in run.stderr and "--seconds" in run.stderr
