"""model.init: a new run that starts from trained weights (a checkpoint or an export)."""

import pytest
import torch

from abak_rl.export.exporters import export_checkpoint
from abak_rl.train import config as cfgmod
from abak_rl.train.checkpoint import CheckpointError, load_checkpoint
from abak_rl.train.run import main, prepare_config, train

TINY = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
        "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1"]
# a step this small leaves the weights where they started (to 1e-9), so what a run starts from shows
STILL = ["train.optimizer=sgd", "train.lr=1e-12", "train.lr_final=null"]


def args(tmp_path, run, *extra):
    return [f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", f"run={run}", *TINY, *extra]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A tiny trained run and its export."""
    tmp = tmp_path_factory.mktemp("init")
    train(prepare_config(args(tmp, "src", "train.games=40", "seed=3")))
    export_checkpoint(tmp / "ckpt/src/latest.pt", ["safetensors"], tmp / "exp")
    train(prepare_config(args(tmp, "src2", "train.games=16", "seed=4")))
    return tmp


def _close(a: dict, b: dict, atol=1e-7) -> bool:
    return a.keys() == b.keys() and all(torch.allclose(a[k].float(), b[k].float(), atol=atol) for k in a)


@pytest.mark.parametrize("spec", ["ckpt/src/latest.pt", "ckpt/src", "export:exp"])
def test_a_new_run_starts_from_the_weights_model_init_names(source, tmp_path, spec):
    where = f"export:{source}/exp" if spec.startswith("export:") else f"{source}/{spec}"
    want = load_checkpoint(source / "ckpt/src")["net"]
    train(prepare_config(args(tmp_path, "ft", "train.games=16", f"model.init={where}", *STILL)))
    got = load_checkpoint(tmp_path / "ckpt/ft")
    assert _close(got["net"], want)
    assert got["config"]["model"]["init"] == where
    assert got["counters"]["games"] < 40            # a new run: its own counters, not the source's
    # without model.init the same command starts from fresh random weights
    train(prepare_config(args(tmp_path, "fresh", "train.games=16", *STILL)))
    assert not _close(load_checkpoint(tmp_path / "ckpt/fresh")["net"], want)


def _distance(a: dict, b: dict) -> float:
    return max((a[k].float() - b[k].float()).abs().mean().item() for k in a)


def test_a_fine_tune_learns_from_the_source_weights(source, tmp_path):
    want = load_checkpoint(source / "ckpt/src")["net"]
    train(prepare_config(args(tmp_path, "ft", "train.games=32", "train.lr=0.001", f"model.init={source}/ckpt/src")))
    train(prepare_config(args(tmp_path, "fresh", "train.games=32", "train.lr=0.001")))
    got = load_checkpoint(tmp_path / "ckpt/ft")["net"]
    fresh = load_checkpoint(tmp_path / "ckpt/fresh")["net"]
    assert not _close(got, want)                     # it trained, from the source's weights:
    assert _distance(got, want) < 0.25 * _distance(fresh, want)


def test_a_source_of_another_shape_is_one_line_naming_the_keys(source, tmp_path, capsys):
    argv = args(tmp_path, "ft", "train.games=16", f"model.init={source}/ckpt/src")
    assert main([a.replace("model.hidden=8", "model.hidden=9") for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("abak-rl train: model.init=") and "\n" not in err
    assert "model.hidden=8" in err and "model.features=expert" in err
    assert not (tmp_path / "ckpt/ft").exists() and not (tmp_path / "runs/ft").exists()
    assert main(args(tmp_path, "ft", "train.games=16", f"model.init={source}/ckpt/src", "model.features=td198",
                     "model.phases=single", "model.bearoff=false")) == 2
    err = capsys.readouterr().err
    assert "reads feature set expert, this run's reads td198" in err


def test_bad_model_init_values_are_clear_errors(source, tmp_path, capsys):
    assert main(args(tmp_path, "ft", "train.games=16", f"model.init={tmp_path}/nowhere.pt")) == 2
    assert "checkpoint not found" in capsys.readouterr().err
    assert main(args(tmp_path, "ft", "train.games=16", f"model.init=export:{tmp_path}")) == 2
    assert "not an exported model" in capsys.readouterr().err
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"garbage")
    assert main(args(tmp_path, "ft", "train.games=16", f"model.init={bad}")) == 2
    assert "not a readable abak-rl checkpoint" in capsys.readouterr().err
    with pytest.raises(cfgmod.ConfigError, match="model.init"):
        prepare_config(args(tmp_path, "ft", "model.init=' '"))


def test_an_ensemble_is_not_a_starting_point(source, tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[1] / "scripts" / "combine_nets.py"
    ens = tmp_path / "ens.pt"
    subprocess.run([sys.executable, str(script), str(ens), str(source / "ckpt/src"), str(source / "ckpt/src2")],
                   check=True, capture_output=True)
    with pytest.raises(CheckpointError, match="ensemble of 2 nets"):
        train(prepare_config(args(tmp_path, "ft", "train.games=16", f"model.init={ens}")))


def test_resuming_keeps_model_init_as_it_was(source, tmp_path):
    train(prepare_config(args(tmp_path, "ft", "train.games=16", f"model.init={source}/ckpt/src")))
    with pytest.raises(cfgmod.ConfigError, match="model.init cannot change"):
        prepare_config([f"resume={tmp_path}/ckpt/ft", "model.init=null"])
    cfg = prepare_config([f"resume={tmp_path}/ckpt/ft", "train.games=32"])
    assert train(cfg)["games"] >= 32
