"""Finding, composing and checking the training config (Hydra's compose API).

Where the configs are: `configs/` sits at the repository top, next to the `abak_rl` package.
We locate it from the package's own file, not from the working directory, so `abak-rl train`
works from anywhere with the editable install the project uses (abak_rl/__file__ then lies in
the checkout, and configs/ beside it). Looked for, in order:
  1. $ABAK_RL_CONFIG_DIR (an explicit override),
  2. abak_rl/configs/ (where a packaged, non-editable install would carry them as package data),
  3. <checkout>/configs/ (editable install or running from the source tree).
The first folder holding config.yaml wins. Hydra's compose API is used instead of @hydra.main so
that Hydra neither changes the working directory nor takes over logging, and so that `abak-rl`'s
own dispatcher stays in charge of argv.
"""

from __future__ import annotations

import os
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf

import abak_rl


class ConfigError(ValueError):
    """A bad config key or value; the message names both."""


def config_dir() -> Path:
    pkg = Path(abak_rl.__file__).resolve().parent
    candidates = []
    if os.environ.get("ABAK_RL_CONFIG_DIR"):
        candidates.append(Path(os.environ["ABAK_RL_CONFIG_DIR"]))
    candidates += [pkg / "configs", pkg.parent / "configs"]
    for c in candidates:
        if (c / "config.yaml").is_file():
            return c.resolve()
    raise ConfigError("cannot find the training configs (config.yaml); looked in "
                      + ", ".join(str(c) for c in candidates) + "; set ABAK_RL_CONFIG_DIR")


def compose(overrides: list[str]) -> DictConfig:
    """The config with command-line overrides applied (Hydra syntax: key=value, group=option)."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3", job_name="abak_rl"):
            cfg = hydra_compose(config_name="config", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as e:
        raise ConfigError(f"config error: {_explain(e)}") from None
    return cfg


def _explain(e: Exception) -> str:
    """One line for a Hydra / OmegaConf error (their texts span lines and suggest `+key`)."""
    import re
    text = str(e)
    m = re.search(r"Could not override '([^']+)'", text)
    if m:
        return f"unknown config key {m.group(1)!r} (abak-rl train --help lists the keys)"
    m = re.search(r"Could not find '([^'/]+)/([^']+)'", text)
    if m:
        group, option = m.groups()
        options = sorted(p.stem for p in (config_dir() / group).glob("*.yaml"))
        return (f"{group}={option}: no such {group} config; choose one of {', '.join(options)}"
                if options else f"unknown config group {group!r}")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("See https")]
    return " ".join(lines[:1]) or type(e).__name__


# key -> (check, what it must be)
def _between(lo, hi):
    return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi


def _positive_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _nonneg_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def _optional(check):
    return lambda v: v is None or check(v)


LOSSES = ("mse", "bce")   # train.loss: the squared TD error or the cross-entropy (train/td.py td_update)
CHECKS = {
    "seed": (_nonneg_int, "an integer >= 0"),
    "threads": (_positive_int, "an integer >= 1"),
    "variant.name": (lambda v: v in ("standard", "nackgammon", "acey_deucey", "abak"),
                     "one of standard, nackgammon, acey_deucey, abak"),
    "model.hidden": (_positive_int, "an integer >= 1"),
    "model.layers": (_nonneg_int, "an integer >= 0"),
    "model.activation": (lambda v: v in ("sigmoid", "relu", "tanh"), "one of sigmoid, relu, tanh"),
    "model.phases": (lambda v: v in ("auto", "single", "contact_race"), "one of auto, single, contact_race"),
    "model.bearoff": (lambda v: v in ("auto", True, False), "auto, true or false"),
    "train.games": (_positive_int, "an integer >= 1"),
    "train.max_minutes": (_optional(_positive), "a number > 0 or null"),
    "train.batch_games": (_positive_int, "an integer >= 1"),
    "train.batch_states": (_positive_int, "an integer >= 1"),
    "train.lambda": (_between(0, 1), "a number in [0, 1]"),
    "train.ply1_fraction": (_between(0, 1), "a number in [0, 1]"),
    "train.ply1_weight": (_between(0, 1), "a number in [0, 1]"),
    "train.optimizer": (lambda v: v in ("adam", "sgd"), "adam or sgd"),
    "train.loss": (lambda v: v in LOSSES, " or ".join(LOSSES)),
    "train.lr": (_positive, "a number > 0"),
    "train.lr_final": (_optional(lambda v: _between(0, float("inf"))(v)), "a number >= 0 or null"),
    "train.lr_schedule": (lambda v: v in ("linear", "cosine"), "linear or cosine"),
    "train.momentum": (_between(0, 0.999999), "a number in [0, 1)"),
    "train.epsilon": (_between(0, 1), "a number in [0, 1]"),
    "train.random_opening": (_nonneg_int, "an integer >= 0 (0 = none)"),
    "train.grad_clip": (_optional(_positive), "a number > 0 or null"),
    "train.max_turns": (_positive_int, "an integer >= 1"),
    "train.one_two_top_k": (_nonneg_int, "an integer >= 0 (0 = every 1-2 play, the exact union)"),
    "train.checkpoint_every": (_nonneg_int, "an integer >= 0 (0 = only latest at the end)"),
    "train.log_every": (_positive_int, "an integer >= 1"),
    "train.keep_last": (_optional(_nonneg_int), "an integer >= 0 or null (0 or null = keep all)"),
    "train.full_snapshots": (lambda v: isinstance(v, bool), "true or false"),
    "progress": (lambda v: isinstance(v, bool), "true or false"),
    "eval.every": (_nonneg_int, "an integer >= 0 (0 = only at the end)"),
    "eval.games": (lambda v: _nonneg_int(v) and v % 2 == 0, "an even integer >= 0"),
    "eval.final_games": (lambda v: _nonneg_int(v) and v % 2 == 0, "an even integer >= 0"),
    "eval.seed": (_nonneg_int, "an integer >= 0"),
    "eval.records": (lambda v: v is None or _nonneg_int(v), "an integer >= 0"),
}
OPPONENTS = ("random", "pubeval")   # always there; any other agents.registry spec works too


def _check_opponent(spec) -> str | None:
    """Why `spec` is not an agent spec the registry knows (None when it is one)."""
    from ..agents.registry import BUILTIN, GNUBG_NN, PREFIXES, gnubg_nn_plies, parse_checkpoint_spec
    if not isinstance(spec, str):
        return f"{spec!r} is not an agent spec"
    if spec in OPPONENTS or spec in BUILTIN:
        return None
    if spec.startswith(GNUBG_NN):
        try:
            gnubg_nn_plies(spec)
        except ValueError as e:
            return str(e)
        return None
    if spec.startswith("gnubg:"):          # the program: its options, and that it is installed
        from ..agents.gnubg_program import INSTALL_HINT, find_gnubg, parse_spec
        try:
            parse_spec(spec)
        except ValueError as e:
            return str(e)
        return None if find_gnubg() else f"{spec!r} needs GNU Backgammon (the program); {INSTALL_HINT}"
    if not spec.startswith(PREFIXES):
        return (f"{spec!r} is not an agent spec (one of {', '.join(BUILTIN)}, checkpoint:<path>[,ply=1], "
                f"export:<dir> or onnx:<file>)")
    try:
        path, _ = parse_checkpoint_spec("checkpoint:" + spec.partition(":")[2])
    except ValueError as e:
        return str(e)
    return None if Path(path).exists() else f"{spec!r}: {path} does not exist"


def validate(cfg: DictConfig) -> None:
    """Raise ConfigError naming the first key whose value is wrong."""
    for key, (check, what) in CHECKS.items():
        try:
            value = OmegaConf.select(cfg, key, throw_on_missing=True)
        except Exception as e:  # noqa: BLE001 - reported with the key
            raise ConfigError(f"config key {key}: {e}") from None
        if not check(value):
            raise ConfigError(f"config key {key}={value!r} is invalid: must be {what}")
    init = cfg.model.get("init")
    if init is not None and (not isinstance(init, str) or not init.strip()):
        raise ConfigError(f"config key model.init={init!r} is invalid: must be a checkpoint path, "
                          f"checkpoints/<run>/ or export:DIR, or null")
    for key in ("run", "resume", "runs_dir", "checkpoints_dir"):
        value = cfg.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"config key {key}={value!r} is invalid: must be a non-empty text"
                              + (" or null" if key in ("run", "resume") else ""))
    if cfg.run is not None and ("/" in cfg.run or cfg.run in (".", "..")):
        raise ConfigError(f"config key run={cfg.run!r} is invalid: a run name is one folder name (no /)")
    opps = list(cfg.eval.opponents)
    for o in opps:
        why = _check_opponent(o)
        if why:
            raise ConfigError(f"config key eval.opponents={opps!r} is invalid: {why}")
    from ..engine.variants import get_variant
    try:
        get_variant(cfg.variant.name, **variant_options(cfg))
    except ImportError:
        pass                               # reported when the run starts
    except (ValueError, TypeError, KeyError) as e:
        opts = " ".join(f"variant.{k}={v!r}" for k, v in variant_options(cfg).items())
        raise ConfigError(f"config key {opts or 'variant'} is invalid: {e}") from None
    if cfg.eval.best_by not in opps:
        raise ConfigError(f"config key eval.best_by={cfg.eval.best_by!r} is invalid: must be one of "
                          f"eval.opponents {opps!r}")
    if cfg.device != "auto":
        from ..model.scorer import resolve_device
        try:
            resolve_device(str(cfg.device))
        except ValueError as e:
            raise ConfigError(f"config key {e}") from None
    from ..features import feature_set_for
    try:
        feature_set_for(cfg.variant.name, cfg.model.features)
    except ValueError as e:
        raise ConfigError(f"config key model.features={cfg.model.features!r} is invalid: {e}") from None
    from .executors import check_config
    check_config(cfg)                      # executor, ray.* (and Ray installed when executor=ray)


def variant_options(cfg: DictConfig) -> dict:
    """Keyword options for engine.variants.get_variant from the variant group."""
    opts = {k: v for k, v in OmegaConf.to_container(cfg.variant).items() if k != "name"}
    return {k: v for k, v in opts.items() if v is not None and not (k == "enter_all_before_moving" and v is False)}


# Keys a resumed run may not change: they would make it a different run.
FROZEN_ON_RESUME = ("seed", "variant", "model", "train.batch_games")
# Keys added since a run may have started whose new default would change how it plays: a run
# saved without them resumes with the value that keeps it as it was (the command line may still
# set them). train.one_two_top_k: Acey-deucey self-play chose in the full 1-2 union before.
AS_BEFORE = {("train", "one_two_top_k"): 0}


def _same(a, b) -> bool:
    """Equal config values (plain Python values compared, so 1 == 1 whatever node holds them)."""
    to_plain = lambda v: OmegaConf.to_container(v) if isinstance(v, (DictConfig, ListConfig)) else v  # noqa: E731
    return to_plain(a) == to_plain(b)


def resume_config(saved: dict, overrides: list[str], composed: DictConfig) -> DictConfig:
    """The saved config of a run being resumed, with the command line's key=value overrides.

    Values come from `composed` (the overrides already parsed and typed by Hydra); changing a
    config group or a frozen key is an error.
    """
    cfg = OmegaConf.create(saved)
    for section in (None, "train", "eval"):    # keys added to the project since the run started
        new, old = (composed, cfg) if section is None else (composed[section], cfg.get(section))
        if old is None:
            continue
        for k, v in new.items():
            if k not in old and not (section is None and isinstance(v, DictConfig)):
                old[k] = AS_BEFORE.get((section, k), v)
    for item in overrides:
        key = item.split("=", 1)[0].lstrip("+~")
        if key == "resume":
            continue
        if "=" not in item or "." not in key and key in ("variant", "model", "train", "eval"):
            raise ConfigError(f"cannot change {item!r} when resuming: override single keys "
                              f"(e.g. train.games=...) instead of config groups")
        if any(key == f or key.startswith(f + ".") for f in FROZEN_ON_RESUME):
            if _same(OmegaConf.select(cfg, key), OmegaConf.select(composed, key)):
                continue                # the value it already has: the same command line resumes
            raise ConfigError(f"config key {key} cannot change when resuming a run "
                              f"(it was {OmegaConf.select(cfg, key)!r})")
        OmegaConf.update(cfg, key, OmegaConf.select(composed, key), force_add=True)
    cfg.resume = composed.resume
    return cfg
