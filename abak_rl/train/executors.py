"""Where self-play runs: the one thing `executor=` changes in a training run.

    abak-rl train                                   # executor=local: SelfPlay in this process
    abak-rl train executor=ray ray.workers=4        # self-play in Ray actors (pip install .[ray])

An executor is what run.py calls `play`; it has the SelfPlay interface the loop already uses:
    step(scorer, epsilon) -> FinishedGames   games that ended (plays with scorer's current net)
    state_dict() / load_state_dict(d)        its part of a checkpoint
    close()                                  release workers (a no-op for the local one)
Everything else (config, learner, TD updates, checkpoints, TensorBoard, evaluation) is shared.
"""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf

from .selfplay import SelfPlay

EXECUTORS = ("local", "ray")
RAY_MISSING = ("executor=ray needs Ray, which is not installed: pip install '.[ray]' "
               "(or pip install 'abak-rl[ray]')")

# ray.* key -> (default, check, what it must be); the defaults apply to configs saved before
# these keys existed (an older checkpoint being resumed).
RAY_KEYS = {
    "address": (None, lambda v: v is None or (isinstance(v, str) and v != ""),
                "null (start a local Ray instance), auto, or a cluster address host:port"),
    "workers": (2, lambda v: _int(v) and v >= 1, "an integer >= 1"),
    "steps_per_task": (8, lambda v: _int(v) and v >= 1, "an integer >= 1"),
    "cpus_per_worker": (1, lambda v: _num(v) and v >= 0, "a number >= 0"),
    "num_cpus": (None, lambda v: v is None or (_int(v) and v >= 1), "an integer >= 1 or null"),
    "wait_timeout_s": (600, lambda v: _num(v) and v > 0, "a number > 0"),
}


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def executor_name(cfg: DictConfig) -> str:
    return OmegaConf.select(cfg, "executor", default="local")


def ray_options(cfg: DictConfig) -> dict:
    """The ray.* keys with their defaults filled in."""
    return {k: OmegaConf.select(cfg, f"ray.{k}", default=d) for k, (d, _, _) in RAY_KEYS.items()}


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def check_config(cfg: DictConfig) -> None:
    """Raise ConfigError naming the key for a bad executor or ray.* value, or a missing Ray."""
    from .config import ConfigError
    name = executor_name(cfg)
    if name not in EXECUTORS:
        raise ConfigError(f"config key executor={name!r} is invalid: must be one of {', '.join(EXECUTORS)}")
    if name != "ray":
        return
    for key, value in ray_options(cfg).items():
        _, check, what = RAY_KEYS[key]
        if not check(value):
            raise ConfigError(f"config key ray.{key}={value!r} is invalid: must be {what}")
    if not ray_available():
        raise ConfigError(RAY_MISSING)


class LocalExecutor:
    """The single-process path: a SelfPlay in this process, called as before (so a local run
    and its checkpoints are exactly what they were, and resume exactly)."""

    name = "local"

    def __init__(self, play: SelfPlay):
        self.play = play

    def step(self, scorer, epsilon: float = 0.0):
        return self.play.step(scorer, epsilon)

    def state_dict(self) -> dict:
        return self.play.state_dict()

    def load_state_dict(self, d: dict) -> None:
        if d.get("executor") == "ray":
            # a run that played in Ray actors continues here with fresh games: only the games
            # the actors had in flight are lost (their dice streams used other seeds)
            return
        self.play.load_state_dict(d)

    def close(self) -> None:
        pass

    def __getattr__(self, name):            # B, seed, aborted, ... of the SelfPlay
        if name == "play":
            raise AttributeError(name)
        return getattr(self.play, name)


def make_executor(cfg: DictConfig, variant, scorer=None, local=SelfPlay):
    """The self-play executor the config asks for (`executor: local | ray`).

    scorer is the learner's (unused here: both executors receive it on every step()); local is
    the class the local executor plays with (run.py passes its own SelfPlay name, so a test
    that monkeypatches run.SelfPlay still reaches the loop).
    """
    T = cfg.train
    name = executor_name(cfg)
    if name == "local":
        return LocalExecutor(local(variant, int(T.batch_games), int(cfg.seed), int(T.max_turns),
                                   one_two_k=int(T.one_two_top_k),
                                   random_opening=int(T.get("random_opening", 0))))
    if name == "ray":
        if not ray_available():
            from .config import ConfigError
            raise ConfigError(RAY_MISSING)
        from .ray_executor import RayExecutor
        return RayExecutor.from_config(cfg, variant)
    check_config(cfg)        # raises with the key named
    raise AssertionError(name)
