"""Self-play executors: the local one (SelfPlay in this process) and Ray actors (executor=ray).

Three kinds of tests:
  * no Ray needed: the local executor, config checks, the helpers;
  * Ray needed (skipped without it): the RayExecutor driven by a small learner loop written
    here (the same calls as run.py's loop), with an actor killed mid-run;
  * Ray needed: `abak-rl train executor=ray` through the real CLI path, an actor killed
    mid-run, resume.
One local Ray instance with 2 CPUs serves the whole module (started once, about 6-10 s).
"""

from __future__ import annotations


import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from abak_rl.features import feature_set_for
from abak_rl.model.net import build_net
from abak_rl.model.scorer import Scorer
from abak_rl.train import config as cfgmod
from abak_rl.train import executors
from abak_rl.train import run as runmod
from abak_rl.train.checkpoint import load_checkpoint
from abak_rl.train.executors import LocalExecutor, check_config, make_executor
from abak_rl.train.selfplay import SelfPlay
from abak_rl.train.td import SampleQueue, td_update

try:
    import ray
except ImportError:  # pragma: no cover - the optional extra is absent
    ray = None

needs_ray = pytest.mark.skipif(ray is None, reason="Ray is not installed (pip install '.[ray]')")


TINY = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
        "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1"]
# the Ray runs: more games in lockstep per actor, so that the games a test needs finish in fewer
# (overhead-bound) steps
FAST = ["train.batch_games=64"]


def base_cfg(*extra, executor="local", **ray_keys):
    """A composed config with executor keys set directly (works with or without the patch)."""
    cfg = cfgmod.compose([*TINY, *extra])
    OmegaConf.set_struct(cfg, False)
    cfg.executor = executor
    cfg.ray = {"address": None, "workers": 2, "steps_per_task": 8, "cpus_per_worker": 1,
               "num_cpus": None, "wait_timeout_s": 120, **ray_keys}
    return cfg


def learner(cfg):
    torch.set_num_threads(int(cfg.threads))
    variant = runmod.make_variant(cfg)
    fs = feature_set_for(variant.name, cfg.model.features)
    torch.manual_seed(0)
    net = build_net(fs.size, cfg.model, fs)
    return variant, Scorer(net, fs, variant, torch.device("cpu")), runmod.make_optimizer(net, cfg.train)


# -- no Ray needed ------------------------------------------------------------------------------

def test_local_executor_plays_exactly_like_selfplay():
    cfg = base_cfg()
    variant, scorer, _ = learner(cfg)
    play = make_executor(cfg, variant, scorer)
    assert isinstance(play, LocalExecutor) and play.name == "local"
    ref = SelfPlay(variant, 16, 0, int(cfg.train.max_turns))
    for _ in range(25):
        a, b = play.step(scorer, 0.1), ref.step(scorer, 0.1)
        for k in ("boards", "probs", "again", "length", "points"):
            assert np.array_equal(getattr(a, k), getattr(b, k))
    sa, sb = play.state_dict(), ref.state_dict()
    assert sa.keys() == sb.keys() and all(np.array_equal(sa[k], sb[k]) for k in sa)
    play.load_state_dict({"executor": "ray", "seed": 0, "actors_created": 3})   # a Ray run's state
    play.close()


def test_executor_config_errors_name_the_key_and_the_fix(monkeypatch):
    with pytest.raises(cfgmod.ConfigError, match="executor='dask' is invalid"):
        check_config(base_cfg(executor="dask"))
    with pytest.raises(cfgmod.ConfigError, match="ray.workers=0 is invalid"):
        check_config(base_cfg(executor="ray", workers=0))
    with pytest.raises(cfgmod.ConfigError, match=r"ray.address='' is invalid"):
        check_config(base_cfg(executor="ray", address=""))
    check_config(base_cfg(executor="local", workers=0))       # ray.* is ignored when local
    monkeypatch.setattr(executors, "ray_available", lambda: False)
    for call in (lambda c: check_config(c), lambda c: make_executor(c, None)):
        with pytest.raises(cfgmod.ConfigError, match=r"pip install '\.\[ray\]'"):
            call(base_cfg(executor="ray"))


def test_old_configs_without_executor_keys_mean_local():
    cfg = cfgmod.compose(TINY)
    OmegaConf.set_struct(cfg, False)
    cfg.pop("executor", None)
    cfg.pop("ray", None)
    assert executors.executor_name(cfg) == "local"
    assert executors.ray_options(cfg)["workers"] == 2


@needs_ray
def test_concatenated_games_give_the_same_samples():
    from abak_rl.train.ray_executor import concat_games, empty_games
    cfg = base_cfg()
    variant, scorer, _ = learner(cfg)
    play = SelfPlay(variant, 16, 3, 2000)
    parts = [play.step(scorer) for _ in range(100)]
    assert sum(p.length.size for p in parts) > 5
    one, many = SampleQueue(variant.width), SampleQueue(variant.width)
    one.push_games(concat_games(parts + [empty_games(variant.width)], variant.width), 0.7)
    for p in parts:
        many.push_games(p, 0.7)
    assert len(one) == len(many) > 0
    assert np.array_equal(one.boards, many.boards) and np.array_equal(one.again, many.again)
    assert np.allclose(one.target, many.target, atol=1e-6)
    assert concat_games([], variant.width).length.size == 0


@needs_ray
def test_actor_seeds_differ_from_each_other_and_from_the_run_seed():
    from abak_rl.train.ray_executor import actor_seed
    seeds = {actor_seed(s, k) for s in range(3) for k in range(200)}
    assert len(seeds) == 600 and not seeds & {0, 1, 2} and max(seeds) < 2 ** 63


# -- Ray: one local instance with 2 CPUs for the module -----------------------------------------

@pytest.fixture(scope="module")
def ray_cluster():
    if ray is None:
        pytest.skip("Ray is not installed (pip install '.[ray]')")
    from abak_rl.train.ray_executor import live_executors
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, configure_logging=False, log_to_driver=False)
    yield ray
    for ex in live_executors():
        ex.close()
    if started:
        ray.shutdown()


def test_ray_learner_loop_trains_and_replaces_a_killed_actor(ray_cluster):
    """run.py's calls (step, push_games, td_update) against the RayExecutor, ~150 games."""
    from abak_rl.train.ray_executor import RayExecutor
    cfg = base_cfg(*FAST, executor="ray")
    variant, scorer, opt = learner(cfg)
    play = make_executor(cfg, variant, scorer)
    assert isinstance(play, RayExecutor) and not play.started_ray
    before = {k: v.clone() for k, v in scorer.net.state_dict().items()}
    queue, games, updates, killed = SampleQueue(variant.width), 0, 0, None
    try:
        while games < 150:
            fin = play.step(scorer, 0.05)
            queue.push_games(fin, 0.7)
            while len(queue) >= 32:
                td_update(scorer, opt, *queue.pop(32), lr=0.01, grad_clip=None)
                updates += 1
            games += int(fin.length.size)
            assert fin.boards.shape[:2] == fin.probs.shape[:2] == fin.again.shape
            if killed is None and games >= 50:
                killed = play.actors[0]
                ray.kill(killed)
        assert play.replaced >= 1 and play.created >= 3 and play.actors[0] != killed
        assert updates > 0 and play.version > 1          # new weights were published as they changed
        assert play.last_info["version"] >= 1             # actors play with the learner's weights
        after = scorer.net.state_dict()
        assert any(not torch.equal(before[k], after[k]) for k in before)
        st = play.state_dict()
        assert st == {"executor": "ray", "seed": 0, "actors_created": play.created}
    finally:
        play.close()
    assert not play.actors and not play.tasks


def test_weights_are_published_only_when_they_change(ray_cluster):
    from abak_rl.train.ray_executor import RayExecutor
    cfg = base_cfg(executor="ray", workers=1)
    variant, scorer, opt = learner(cfg)
    play = RayExecutor.from_config(cfg, variant)
    try:
        assert play.publish(scorer.net) and play.version == 0
        assert not play.publish(scorer.net) and play.version == 0
        with torch.no_grad():
            next(scorer.net.parameters()).add_(1.0)
        assert play.publish(scorer.net) and play.version == 1
        got = ray.get(play.weights_ref)
        assert all(np.array_equal(got[k], v.numpy()) for k, v in scorer.net.state_dict().items())
        # a resumed run continues the actors' numbering (so their seeds are new)
        play.load_state_dict({"executor": "ray", "seed": 0, "actors_created": 7})
        play.load_state_dict(SelfPlay(variant, 4, 0).state_dict())      # a local run's state
        assert play.created == 7 and not play.actors
    finally:
        play.close()


# -- Ray through the real CLI path -------------------------------------------------------------

def _cli(tmp_path, *extra):
    return [f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=r", *TINY, *extra]


def test_cli_default_is_local_and_bad_executor_is_a_clear_error(capsys, monkeypatch):
    assert runmod.prepare_config([]).executor == "local"
    assert runmod.main(["executor=dask"]) == 2
    assert "executor='dask' is invalid" in capsys.readouterr().err
    monkeypatch.setattr(executors, "ray_available", lambda: False)
    assert runmod.main(["executor=ray"]) == 2
    assert "pip install '.[ray]'" in capsys.readouterr().err


def test_cli_train_executor_ray_survives_a_killed_actor_and_resumes(ray_cluster, tmp_path, capsys):
    from abak_rl.train.ray_executor import live_executors
    cfg = runmod.prepare_config(_cli(tmp_path, *FAST, "executor=ray", "ray.workers=2", "train.games=300",
                                     "train.checkpoint_every=100", "train.epsilon=0.05"))
    seen = {}

    def kill_one(c):
        if "ex" not in seen and c.games >= 100:
            ex = live_executors()[0]
            seen["ex"], seen["actor"] = ex, ex.actors[0]
            ray.kill(ex.actors[0])
    s = runmod.train(cfg, on_step=kill_one)
    ex = seen["ex"]
    assert not s["interrupted"] and s["games"] >= 300 and s["updates"] > 0
    assert ex.replaced >= 1 and ex.created >= 3 and not ex.actors      # replaced, then closed
    assert "replacing it" in capsys.readouterr().err
    ck = load_checkpoint(tmp_path / "ckpt/r")
    assert ck["config"]["executor"] == "ray" and ck["counters"]["games"] == s["games"]
    assert ck["selfplay"]["executor"] == "ray" and int(ck["selfplay"]["actors_created"]) == ex.created
    assert list((tmp_path / "ckpt/r").glob("games_*.pt")) and not list((tmp_path / "ckpt/r").glob("*.tmp"))
    # resume through the CLI (still on Ray), then once more in a single process
    assert runmod.main([f"resume={tmp_path}/ckpt/r", "train.games=400"]) == 0
    ck2 = load_checkpoint(tmp_path / "ckpt/r")
    assert ck2["counters"]["games"] >= 400 and ck2["counters"]["updates"] > ck["counters"]["updates"]
    assert int(ck2["selfplay"]["actors_created"]) >= ex.created + 2     # new actors, new seeds
    assert runmod.main([f"resume={tmp_path}/ckpt/r", "train.games=450", "executor=local"]) == 0
    ck3 = load_checkpoint(tmp_path / "ckpt/r")
    assert ck3["counters"]["games"] >= 450 and "boards" in ck3["selfplay"]
