"""The examples run: the PPO script trains for a moment and its match through python: starts."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parents[1]


def test_ppo_example_trains_saves_and_evaluates(tmp_path):
    out = tmp_path / "policy.pt"
    run = subprocess.run([sys.executable, "examples/train_ppo.py", "--seconds", "1", "--num-envs", "4",
                          "--steps", "4", "--eval-games", "4", "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert out.exists()
    assert "python:examples.ppo_agent:PPOAgent vs random (standard, 4 games" in run.stdout


def test_random_movement_agent_example_plays_through_the_python_spec():
    run = subprocess.run([sys.executable, "-m", "abak_rl.cli", "evaluate", "variant=abak",
                          "agent=python:examples.random_movement_agent:RandomMovements",
                          "opponent=random", "games=10"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "RandomMovements vs random (abak, 10 games" in run.stdout
