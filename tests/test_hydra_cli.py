"""`abak-rl train` as Hydra users know it: --cfg job, --help, --info, -m sweeps, and what
abak-rl does not do refused with one line instead of silently ignored."""

import pytest
import yaml

from abak_rl.train.checkpoint import load_checkpoint
from abak_rl.train.run import main

TINY = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
        "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1",
        "train.games=16"]


def dirs(tmp_path):
    return [f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt"]


def test_cfg_job_prints_the_composed_config_and_starts_nothing(tmp_path, capsys):
    assert main(["--cfg", "job", *dirs(tmp_path), "model.hidden=33", "variant=nackgammon"]) == 0
    cfg = yaml.safe_load(capsys.readouterr().out)
    assert cfg["model"]["hidden"] == 33 and cfg["variant"]["name"] == "nackgammon"
    assert not (tmp_path / "runs").exists() and not (tmp_path / "ckpt").exists()
    assert main(["-c", "job"]) == 0 and "train:" in capsys.readouterr().out
    assert main(["--cfg", "hydra"]) == 2
    assert "use --cfg job" in capsys.readouterr().err


def test_help_and_info(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--multirun" in out and "--cfg job" in out and "keep_last" in out
    assert main(["--info"]) == 0
    out = capsys.readouterr().out
    assert "Config search path" in out and "variant: standard" in out and "abak" in out
    assert main(["--info", "defaults"]) == 0
    assert "Config search path" not in capsys.readouterr().out
    assert main(["--info", "plugins"]) == 2
    assert "--info takes one of" in capsys.readouterr().err


def test_multirun_makes_one_run_per_combination_one_after_another(tmp_path, capsys):
    argv = ["-m", "train.lr=0.01,0.005", "seed=0,1", *dirs(tmp_path), *TINY, "run=sw"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("[multirun] job") == 4
    got = set()
    for i in range(4):
        ck = load_checkpoint(tmp_path / "ckpt" / f"sw-{i}")
        got.add((ck["config"]["train"]["lr"], ck["config"]["seed"]))
        overrides = yaml.safe_load((tmp_path / "runs" / f"sw-{i}" / "overrides.yaml").read_text())
        assert f"seed={ck['config']['seed']}" in overrides
    assert got == {(0.01, 0), (0.01, 1), (0.005, 0), (0.005, 1)}
    assert len({load_checkpoint(tmp_path / "ckpt" / f"sw-{i}")["run_id"] for i in range(4)}) == 4
    # the same sweep again: every name is taken, refused before anything runs
    assert main(argv) == 2
    assert "is taken" in capsys.readouterr().err


def test_multirun_with_automatic_names_and_cfg_job(tmp_path, capsys):
    assert main(["-m", "--cfg", "job", "seed=0,1", *dirs(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "# job 0: seed=0" in out and "# job 1: seed=1" in out
    assert main(["-m", "seed=4,5", *dirs(tmp_path), *TINY]) == 0
    runs = sorted(p.name for p in (tmp_path / "ckpt").iterdir())
    assert len(runs) == 2 and all(r.startswith("standard-") for r in runs)


@pytest.mark.parametrize("argv, needle", [
    (["train.lr=0.01,0.005"], "run it with -m"),
    (["hydra.run.dir=/tmp/elsewhere"], "runs_dir= and checkpoints_dir="),
    (["hydra.job.chdir=true"], "never changes the working directory"),
    (["+train.foo=1"], "cannot be added or deleted"),
    (["++train.lr=1"], "cannot be added or deleted"),
    (["~train.lr"], "cannot be added or deleted"),
    (["train.foo=1"], "unknown config key 'train.foo'"),
    (["resume="], "resume= is empty"),
    (["run="], "run= is empty"),
    (["variant=backgammon2"], "choose one of abak, acey_deucey, nackgammon, standard"),
    (["--frobnicate"], "unknown option '--frobnicate'"),
    (["eval.opponents=[random"], "cannot read override"),
    (["-m", "resume=a,b"], "cannot be combined with a -m sweep"),
])
def test_what_is_not_supported_is_refused_in_one_line(tmp_path, argv, needle, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    argv = [a.replace("resume=a,b", f"resume={tmp_path}/a,{tmp_path}/b") for a in argv]
    assert main([*argv, *dirs(tmp_path)]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("abak-rl train: ") and needle in lines[0], err
    assert "Traceback" not in err and "To append" not in err   # no advice to add keys
    assert not (tmp_path / "runs").exists()


def test_cli_version(capsys):
    from abak_rl.cli import main as cli_main
    assert cli_main(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("abak-rl ") and out.split()[1][0].isdigit()
