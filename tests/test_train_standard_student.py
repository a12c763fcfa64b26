"""scripts/train_standard_student.sh run small: a teacher already there, a fresh student net,
two labellers side by side, one fit to both folders' labels; run again, it relabels nothing and
fits the same net; bad settings are refused in one line."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abak_rl.train.run import main as train_main

from test_train import TINY

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "train_standard_student.sh"


def _run(tmp_path, **extra):
    env = dict(os.environ, CHECKPOINTS_DIR=str(tmp_path / "ckpt"), RUNS_DIR=str(tmp_path / "runs"),
               PYTHON=sys.executable, ABAK_RL=str(Path(sys.executable).with_name("abak-rl")),
               **{"POSITIONS": "600", "CHUNK": "150", "HIDDEN": "8", **extra})
    return subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_student_command_labels_on_each_core_fits_once_and_resumes(tmp_path):
    import torch
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.train.checkpoint import load_checkpoint
    # the teacher: a tiny net of the shipped recipe's inputs, where the pair would be
    assert train_main([f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=std-ens", *TINY,
                       "train.games=16", "model.features=expert2", "model.phases=contact_race",
                       "model.bearoff=true"]) == 0
    teacher = tmp_path / "ckpt" / "std-ens" / "latest.pt"
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    stu = tmp_path / "ckpt" / "std-stu"
    chunks = sorted(stu.glob("labels-*/chunk*.npz"))
    assert [c.parent.name for c in chunks] == ["labels-1"] * 2 + ["labels-2"] * 2
    with np.load(chunks[0]) as a, np.load(chunks[2]) as b:
        assert (a["boards"] != b["boards"]).any()                 # each labeller its own seed
        agent = load_neural_agent(teacher, "standard")
        np.testing.assert_allclose(b["target"][:10], agent.values(b["boards"][:10], b["again"][:10], 1), atol=1e-6)
    data = load_checkpoint(stu / "latest.pt")
    assert data["model"]["hidden"] == 8 and data["model"]["layers"] == 2
    rep = data["distilled"]
    assert rep["samples"] + rep["held_out"] == 600 and rep["student"] and rep["all_plays"]
    assert rep["loss_epoch8"] < rep["loss_before"]
    # the same command again: the labels are reused and the same fit gives the same net
    stamp = [c.stat().st_mtime_ns for c in chunks]
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    assert [c.stat().st_mtime_ns for c in chunks] == stamp
    again = load_checkpoint(stu / "latest.pt")["net"]
    assert all(torch.equal(again[k], v) for k, v in data["net"].items())
    # a bad setting: one line, nothing written
    r = _run(tmp_path / "bad", POSITIONS="lots")
    assert r.returncode == 2 and r.stderr.strip().startswith("train_standard_student.sh: POSITIONS")
    assert not (tmp_path / "bad").exists()
