"""Training: config handling, short runs of every variant, checkpoints, exact resume."""

import os

import pytest
import torch

from abak_rl.agents.neural import load_neural_agent
from abak_rl.agents.random_agent import RandomAgent
from abak_rl.engine.variants import get_variant
from abak_rl.train import config as cfgmod
from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from abak_rl.train.evaluation import match
from abak_rl.train.run import StopFlag, main, prepare_config, train

TINY = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
        "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1"]


def tiny(tmp_path, *extra):
    return [f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=t", *TINY, *extra]


def test_config_found_from_any_directory_and_overridable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = prepare_config(["variant=nackgammon", "model.hidden=128", "train.games=200000"])
    assert cfg.variant.name == "nackgammon" and cfg.model.hidden == 128 and cfg.train.games == 200000
    assert cfg.run is None           # the fresh <variant>-<date> name is picked when the run starts
    assert (cfgmod.config_dir() / "train" / "default.yaml").is_file()


@pytest.mark.parametrize("argv, needle", [
    (["model.hiden=3"], "hiden"),
    (["variant=backgammon2"], "backgammon2"),
    (["train.lambda=1.5"], "train.lambda=1.5"),
    (["train.optimizer=rmsprop"], "train.optimizer='rmsprop'"),
    (["train.loss=huber"], "train.loss='huber'"),
    (["eval.games=7"], "eval.games=7"),
    (["model.features=td198", "variant=abak"], "model.features='td198'"),
    (["eval.opponents=[random,nosuchbot]"], "eval.opponents"),
])
def test_config_errors_name_the_key_and_value(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.startswith("abak-rl train:")


def test_training_with_the_cross_entropy_loss(tmp_path):
    cfg = prepare_config(tiny(tmp_path, "train.games=30", "train.loss=bce"))
    s = train(cfg)
    assert s["games"] >= 30 and s["updates"] > 0
    assert load_checkpoint(tmp_path / "ckpt/t")["config"]["train"]["loss"] == "bce"


def test_resolved_config_outputs_and_tensorboard(tmp_path):
    cfg = prepare_config(tiny(tmp_path, "train.games=30", "train.checkpoint_every=20", "train.log_every=10"))
    s = train(cfg)
    assert s["games"] >= 30 and not s["interrupted"] and s["updates"] > 0
    saved = cfgmod.compose([])
    assert (tmp_path / "runs/t/config.yaml").is_file() and (tmp_path / "ckpt/t/config.yaml").is_file()
    assert any(f.name.startswith("events.out.tfevents") for f in (tmp_path / "runs/t").iterdir())
    names = sorted(f.name for f in (tmp_path / "ckpt/t").iterdir())
    assert "latest.pt" in names and any(n.startswith("games_") for n in names)
    ck = load_checkpoint(tmp_path / "ckpt/t")
    assert ck["features"] == {"name": "expert", "version": 1, "size": 240}
    assert ck["model"]["phases"] == ["contact", "race"] and ck["model"]["bearoff"]
    assert ck["config"]["model"]["hidden"] == 8 and ck["counters"]["games"] == s["games"]
    assert saved.model.hidden == 80
    assert not list((tmp_path / "ckpt/t").glob("*.tmp"))   # atomic writes leave no temp files


def _weights(path):
    return load_checkpoint(path)["net"]


def test_stopped_and_resumed_run_ends_with_the_same_weights(tmp_path):
    args = ["train.games=80", "train.lambda=0.6", "train.lr_final=0.0001", "train.epsilon=0.05"]
    straight = tiny(tmp_path / "a", *args)
    train(prepare_config(straight))
    stop = StopFlag()

    def stop_at(c):
        if c.games >= 40:            # mid-run: games in flight, samples queued
            stop.set = True
    s = train(prepare_config(tiny(tmp_path / "b", *args)), stop=stop, on_step=stop_at)
    assert s["interrupted"] and 0 < s["games"] < 80
    resumed = prepare_config([f"resume={tmp_path}/b/ckpt/t"])
    assert resumed.train.games == 80 and resumed.model.hidden == 8
    train(resumed)
    a, b = _weights(tmp_path / "a/ckpt/t"), _weights(tmp_path / "b/ckpt/t")
    assert all(torch.equal(a[k], b[k]) for k in a)
    ca = load_checkpoint(tmp_path / "a/ckpt/t")["counters"]
    cb = load_checkpoint(tmp_path / "b/ckpt/t")["counters"]
    assert ca["games"] == cb["games"] and ca["updates"] == cb["updates"]


def test_resume_may_extend_but_not_change_the_model(tmp_path):
    train(prepare_config(tiny(tmp_path, "train.games=20")))
    cfg = prepare_config([f"resume={tmp_path}/ckpt/t", "train.games=40"])
    assert cfg.train.games == 40
    assert train(cfg)["games"] >= 40
    with pytest.raises(cfgmod.ConfigError, match="model.hidden cannot change"):
        prepare_config([f"resume={tmp_path}/ckpt/t", "model.hidden=9"])
    with pytest.raises(cfgmod.ConfigError, match="cannot change 'variant=abak'"):
        prepare_config([f"resume={tmp_path}/ckpt/t", "variant=abak"])
    with pytest.raises(cfgmod.ConfigError, match="train.batch_games cannot change"):
        prepare_config([f"resume={tmp_path}/ckpt/t", "train.batch_games=17"])
    # the command line that started the run resumes it: its frozen keys keep the same values
    same = prepare_config([f"resume={tmp_path}/ckpt/t", "model.hidden=8", "train.batch_games=16", "seed=0",
                           "train.games=60"])
    assert same.model.hidden == 8 and same.train.batch_games == 16 and same.train.games == 60


def test_corrupt_missing_and_foreign_checkpoints_are_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    assert main([f"resume={bad}"]) == 2
    assert "not a readable abak-rl checkpoint" in capsys.readouterr().err
    assert main([f"resume={tmp_path}/nowhere.pt"]) == 2
    assert "checkpoint not found" in capsys.readouterr().err
    torch.save({"hello": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not an abak-rl checkpoint"):
        load_checkpoint(tmp_path / "other.pt")
    # a truncated real checkpoint
    train(prepare_config(tiny(tmp_path, "train.games=16")))
    data = (tmp_path / "ckpt/t/latest.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        load_neural_agent(tmp_path / "cut.pt", "standard")


def test_checkpoint_refuses_another_feature_set_or_variant(tmp_path):
    train(prepare_config(tiny(tmp_path, "train.games=16")))
    path = tmp_path / "ckpt/t/latest.pt"
    assert load_neural_agent(path, "nackgammon").name.startswith("checkpoint:")
    with pytest.raises(CheckpointError, match="cannot describe variant 'acey_deucey'"):
        load_neural_agent(path, "acey_deucey")
    data = load_checkpoint(path)
    data.pop("path")
    data["features"]["version"] = 99
    save_checkpoint(tmp_path / "v99.pt", {k: v for k, v in data.items() if k not in ("format", "format_version")})
    with pytest.raises(CheckpointError, match="feature set"):
        load_neural_agent(tmp_path / "v99.pt", "standard")


@pytest.mark.parametrize("variant", ["nackgammon", "acey_deucey", "abak"])
def test_every_variant_trains(tmp_path, variant):
    try:
        get_variant(variant)
    except ImportError:
        pytest.skip(f"{variant} engine not available")
    s = train(prepare_config(tiny(tmp_path, f"variant={variant}", "train.games=8", "train.batch_games=8",
                                  "train.batch_states=16")))
    assert s["games"] >= 8 and s["updates"] > 0
    agent = load_neural_agent(tmp_path / "ckpt/t", variant, ply=0)
    r = match(agent, RandomAgent(0), get_variant(variant), games=4, seed=1)
    assert -3 <= r["ppg"] <= 3


def test_a_short_run_learns_to_beat_the_random_bot(tmp_path):
    """Real learning, not just plumbing: 1,500 games of the default net beat random clearly."""
    s = train(prepare_config([f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=l",
                              "progress=false", "threads=1", "train.games=1500", "eval.every=0",
                              "eval.final_games=200", "eval.opponents=[random]", "eval.best_by=random"]))
    r = s["final_eval"]["random"]
    assert r["win_rate"] >= 0.75, r
    assert (tmp_path / "ckpt/l/best.pt").is_file()


def test_ctrl_c_saves_and_exits_cleanly(tmp_path, monkeypatch, capsys):
    """A real SIGINT in the middle of a run: the step finishes, latest.pt is saved, exit 130."""
    import signal

    import abak_rl.train.run as run_mod

    class Interrupted(run_mod.SelfPlay):
        calls = 0

        def step(self, *a, **k):
            Interrupted.calls += 1
            if Interrupted.calls == 30:
                os.kill(os.getpid(), signal.SIGINT)
            return super().step(*a, **k)

    monkeypatch.setattr(run_mod, "SelfPlay", Interrupted)
    before = signal.getsignal(signal.SIGINT)      # default, or ignored when started in the background
    assert main(tiny(tmp_path, "train.games=100000")) == 130
    out = capsys.readouterr()
    assert "interrupted: saved" in out.out and f"resume={tmp_path}/ckpt/t" in out.out
    c = load_checkpoint(tmp_path / "ckpt/t")["counters"]
    assert c["steps"] == 30 and c["games"] < 100000
    assert signal.getsignal(signal.SIGINT) is before   # handler restored


def test_learning_rate_schedules():
    from omegaconf import OmegaConf

    from abak_rl.train.run import lr_at
    t = OmegaConf.create({"lr": 0.01, "lr_final": 0.001, "games": 1000, "lr_schedule": "linear"})
    assert [round(lr_at(t, g), 6) for g in (0, 500, 1000, 5000)] == [0.01, 0.0055, 0.001, 0.001]
    t.lr_schedule = "cosine"
    assert lr_at(t, 500) == pytest.approx(0.0055) and lr_at(t, 250) > 0.0055
    t.lr_final = None
    assert lr_at(t, 700) == 0.01


def test_selfplay_ends_a_deadlocked_game_and_learns_its_result():
    """A total deadlock (found in random Abak play) must end the self-play game, scored by
    engine.deadlock, instead of spinning until max_turns and being dropped unlearned."""
    import numpy as np
    from abak_rl.engine.abak.variant import row_from_stacks
    from abak_rl.features import feature_set_for
    from abak_rl.model.net import EvalNet
    from abak_rl.model.scorer import Scorer
    from abak_rl.train.selfplay import SelfPlay
    v = get_variant("abak")
    frozen = row_from_stacks(["edsss", "SSSSS", "KKSSS", "DS", "sgoss", "GO", "E"] + [""] * 15
                             + ["kks", ""], bar="ss")
    fs = feature_set_for("abak", "auto")
    scorer = Scorer(EvalNet(fs.size), fs, v, torch.device("cpu"))
    play = SelfPlay(v, 2, seed=0)
    play.boards[0] = frozen
    out = play.step(scorer)
    assert out.length.size == 1 and out.points.tolist() == [1]   # 52 pips against 276
    assert out.probs[0, out.length[0] - 1].tolist() == [1, 0, 0, 0, 0]
    assert play.aborted == 0 and not (play.boards[0] == frozen).all()   # the slot restarted


def test_sampled_selfplay_games_are_written_as_game_records(tmp_path):
    import json
    cfg = prepare_config(tiny(tmp_path, "train.games=40", "eval.records=3", "eval.every=0",
                                  "eval.final_games=2"))
    train(cfg)
    files = sorted((tmp_path / "runs" / "t").glob("selfplay_*.jsonl"))
    assert files, "no self-play records written"
    games = [json.loads(x) for x in files[-1].read_text().splitlines()]
    assert len(games) == 3 and all(g["variant"] == "standard" and g["turns"] for g in games)
    assert all(g["players"][0] == g["players"][1] for g in games)     # the net against itself
