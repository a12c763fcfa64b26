"""Bad inputs outside training get one clear line and a non-zero exit: models that are not
there or not runnable here, corrupt checkpoints, evaluation values out of range."""

import os
import shutil

import pytest

from abak_rl.cli import main as cli_main
from abak_rl.export.exporters import export_checkpoint

from test_export import make_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    make_checkpoint(d / "ckpt.pt", "standard", hidden=8, seed=1)
    export_checkpoint(d / "ckpt.pt", "all", d / "full", verify=0)
    export_checkpoint(d / "ckpt.pt", "torchscript", d / "ts_only", verify=0)
    shutil.copytree(d / "full", d / "no_card")
    (d / "no_card" / "model_card.json").unlink()
    (d / "empty").mkdir()
    data = (d / "ckpt.pt").read_bytes()
    (d / "cut.pt").write_bytes(data[: len(data) // 2])
    (d / "noise.pt").write_bytes(os.urandom(4096))
    return d


def one_line(capsys, code_expected=2) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "\x1b" not in err and "weights_only" not in err
    return lines[0]


HINT = ["--position-id", "4HPwATDgc/ABMA", "--dice", "3", "1"]


@pytest.mark.parametrize("model, needle", [
    ("no_card", "has model.safetensors, model.onnx, model.ts but no model_card.json"),
    ("empty", "neither an export folder (no model_card.json) nor a run folder (no latest.pt)"),
    ("full/model.ts", "TorchScript (model.ts)"),
    ("ts_only", "holds only model.ts"),
    ("cut.pt", "corrupt or truncated"),
    ("noise.pt", "corrupt or truncated"),
    ("missing", "model not found"),
])
def test_hint_and_play_name_what_is_wrong_with_the_model(models, model, needle, capsys):
    assert cli_main(["hint", "--model", str(models / model), *HINT]) == 2
    line = one_line(capsys)
    assert needle in line and "latest.pt" not in line.replace("no latest.pt", "")
    assert cli_main(["play", "--model", str(models / model)]) == 2
    assert needle in one_line(capsys)


def test_a_good_export_still_works(models, capsys):
    assert cli_main(["hint", "--model", str(models / "full"), *HINT]) == 0
    assert "8/5 6/5" in capsys.readouterr().out          # the plays are ranked


def test_export_from_a_corrupt_checkpoint_is_one_line(models, tmp_path, capsys):
    assert cli_main(["export", f"checkpoint={models / 'noise.pt'}", f"out={tmp_path / 'x'}"]) == 2
    err = capsys.readouterr().err
    assert "corrupt or truncated" in err and "Traceback" not in err and "weights_only" not in err


@pytest.mark.parametrize("argv, needle", [
    (["evaluate", "agent=random", "cube=money", "cube_x=5"], "cube_x=5.0 is out of range: must be in [0.0, 1.0]"),
    (["evaluate", "agent=random", "cube=money", "cube_x=-1"], "cube_x=-1.0 is out of range"),
    (["evaluate", "agent=random", "seed=-1"], "seed=-1 is out of range: must be >= 0"),
    (["tournament", "agents=[random,pubeval]", "seed=-1"], "seed=-1"),
])
def test_evaluation_values_out_of_range_name_the_key(argv, needle, capsys):
    assert cli_main(argv) == 2
    assert needle in one_line(capsys)
