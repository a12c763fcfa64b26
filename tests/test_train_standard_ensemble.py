"""scripts/train_standard_ensemble.sh, the shipped standard model's one command, run small: two
members (squared error and cross-entropy) trained side by side, combined into one ensemble checkpoint; run again, it resumes the
finished members (training nothing more) and combines them again."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "train_standard_ensemble.sh"


def _run(tmp_path, games):
    env = dict(os.environ, CHECKPOINTS_DIR=str(tmp_path / "ckpt"), RUNS_DIR=str(tmp_path / "runs"),
               GAMES=str(games), PYTHON=sys.executable,
               ABAK_RL=str(Path(sys.executable).with_name("abak-rl")))
    # a tiny budget: no evaluations, small lockstep batches
    return subprocess.run(["bash", str(SCRIPT), "eval.every=0", "eval.final_games=0", "train.batch_games=8",
                           "train.batch_states=32", "train.checkpoint_every=1000"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_one_command_trains_both_members_and_combines_them_and_resumes(tmp_path):
    import torch
    from abak_rl.train.checkpoint import load_checkpoint
    r = _run(tmp_path, 8)
    assert r.returncode == 0, r.stderr + r.stdout
    ens = tmp_path / "ckpt" / "std-ens" / "latest.pt"
    data = load_checkpoint(ens)
    members = data["model"]["ensemble"]
    assert [m["layers"] for m in members] == [2, 2] and all(m["hidden"] == 128 for m in members)
    assert data["features"]["name"] == "expert2" and data["model"]["bearoff"]
    runs = ("std-l2", "std-l2b")
    ckpts = [load_checkpoint(tmp_path / "ckpt" / r / "latest.pt") for r in runs]
    assert [c["config"]["train"]["loss"] for c in ckpts] == ["mse", "bce"]
    games = [c["counters"]["games"] for c in ckpts]
    assert min(games) >= 8 and data["counters"]["games"] == sum(games)
    for r in runs:
        assert "stopped (reached train.games=8)" in (tmp_path / "runs" / f"{r}.log").read_text()
    # the same command again: the members resume, are already done, and the ensemble is rebuilt
    before = {r: torch.load(tmp_path / "ckpt" / r / "latest.pt", weights_only=False)["net"] for r in runs}
    r = _run(tmp_path, 8)
    assert r.returncode == 0, r.stderr + r.stdout
    for r in runs:
        after = torch.load(tmp_path / "ckpt" / r / "latest.pt", weights_only=False)["net"]
        assert all(torch.equal(before[r][n], after[n]) for n in after)
        log = (tmp_path / "runs" / f"{r}.log").read_text()
        assert log.count("stopped (reached train.games=8)") == 2        # appended, not overwritten
    assert load_checkpoint(ens)["counters"]["games"] == sum(games)


def test_a_member_that_fails_stops_the_command_before_combining(tmp_path):
    env = dict(os.environ, CHECKPOINTS_DIR=str(tmp_path / "ckpt"), RUNS_DIR=str(tmp_path / "runs"),
               GAMES="24", PYTHON=sys.executable, ABAK_RL=str(Path(sys.executable).with_name("abak-rl")))
    r = subprocess.run(["bash", str(SCRIPT), "train.lr=-1"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines()[-1].startswith("train_standard_ensemble.sh: a member's training failed")
    assert not (tmp_path / "ckpt" / "std-ens").exists()
