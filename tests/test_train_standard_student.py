"""scripts/train_standard_student.sh run small: a teacher already there, a fresh student net,
two labellers side by side, one fit to both folders' labels; run again, it relabels and refits
nothing; with PLY2_POSITIONS, a 2-ply round on top (a screen, the student's own 2-ply labels, a
fine-tune); new 1-ply labels refit the student and discard the old round; counts with a
leading zero are decimal; bad settings are refused in one line."""

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
               **{"POSITIONS": "600", "CHUNK": "150", "HIDDEN": "8", "PLY2_POSITIONS": "0", **extra})
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
    # the same command again: the labels are reused and the finished fit is not redone
    stamp = [c.stat().st_mtime_ns for c in chunks]
    fitted = (stu / "latest.pt").stat().st_mtime_ns
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    assert [c.stat().st_mtime_ns for c in chunks] == stamp
    assert (stu / "latest.pt").stat().st_mtime_ns == fitted
    # a 2-ply round on top: the student's screen, its own 2-ply labels, the student fine-tuned
    r = _run(tmp_path, PLY2_POSITIONS="40", SCREEN_POSITIONS="300", CHUNK="20")
    assert r.returncode == 0, r.stderr + r.stdout
    assert (stu / "latest.pt").stat().st_mtime_ns == fitted           # the 1-ply student kept
    screen = load_checkpoint(stu / "screen32.pt")
    assert screen["model"]["hidden"] == 32 and screen["model"]["layers"] == 1
    assert screen["distilled"]["ply"] == 0 and screen["distilled"]["from"].endswith("std-stu/latest.pt")
    ply2 = sorted(stu.glob("ply2-*/chunk*.npz"))
    assert [c.parent.name for c in ply2] == ["ply2-1", "ply2-2"]
    from abak_rl.agents.search import parse_filter_options
    student = load_neural_agent(stu / "latest.pt", "standard", precision="bf16", screen=stu / "screen32.pt",
                                screen_k=6, screen_margin=0.2, **parse_filter_options({"reply_k": "1"}))
    with np.load(ply2[1]) as z:
        assert int(z["ply"]) == 2 and int(z["top"]) == 5 and str(z["screen"]) == "screen32.pt/6/0.2"
        b, a, target = z["boards"], z["again"], z["target"]
    # (bf16 rounding depends on the batch's make-up: the whole chunk at once, as it was labelled)
    np.testing.assert_allclose(target, student.values(b, a, 2), atol=1e-6)
    assert not np.allclose(target, student.values(b, a, 1), atol=1e-3)   # 2-ply, not 1-ply
    ft2 = load_checkpoint(tmp_path / "ckpt" / "std-stu-ft2" / "latest.pt")
    rep = ft2["distilled"]
    assert rep["ply"] == 2 and rep["samples"] + rep["held_out"] == 40 and rep["student"] is None
    assert rep["screens"] == {"screen32.pt/6/0.2": 40}               # the card says how they were searched
    assert rep["plays"] == {"top5": 40}                               # and which plays (no TOP_MARGIN)
    assert rep["from"].endswith("std-stu/latest.pt") and ft2["model"]["hidden"] == 8
    assert any(not torch.equal(ft2["net"][k], v) for k, v in data["net"].items())   # fine-tuned, not a copy
    # new 1-ply labels: the student is refit and the old student's screen and 2-ply labels go
    os.utime(chunks[0])
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    assert (stu / "latest.pt").stat().st_mtime_ns > fitted
    assert not (stu / "screen32.pt").exists() and not list(stu.glob("ply2-*"))
    again = load_checkpoint(stu / "latest.pt")["net"]
    assert all(torch.equal(again[k], v) for k, v in data["net"].items())   # the same labels, the same net
    # a count with a leading zero is decimal (bash arithmetic alone would read 0800 as octal and
    # fail): 400 labels a labeller, so a third chunk of 150 each, and a refit to the 900 labels
    r = _run(tmp_path, POSITIONS="0800")
    assert r.returncode == 0, r.stderr + r.stdout
    assert len(list(stu.glob("labels-*/chunk*.npz"))) == 6
    rep = load_checkpoint(stu / "latest.pt")["distilled"]
    assert rep["samples"] + rep["held_out"] == 900 and rep["positions"] == 800
    # bad settings: one line, nothing written
    for bad in ({"POSITIONS": "lots"}, {"PLY2_POSITIONS": "-5"}, {"SCREEN_K": "0"}, {"SCREEN_MARGIN": "wide"},
                {"SCREEN_MARGIN": "-0.1"}, {"SCREEN_MARGIN": "0.1.2"}, {"TOP_MARGIN": "-0.05"},
                {"TOP_MARGIN": "close"}):
        r = _run(tmp_path / "bad", **bad)
        assert r.returncode == 2 and r.stderr.strip().startswith(f"train_standard_student.sh: {next(iter(bad))}")
        assert len(r.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "bad").exists()
