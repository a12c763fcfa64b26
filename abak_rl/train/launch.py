"""The `abak-rl train` command line as Hydra users know it, on top of Hydra's compose API.

Flags: -h/--help, -c/--cfg job (print the composed config and exit), -i/--info [all | config |
defaults | searchpath], -m/--multirun (each combination of comma-separated values is a run of
its own, run one after another). Everything else is a Hydra override, parsed by Hydra's own
override parser and expanded the way Hydra's basic sweeper does. What abak-rl does not do is
refused with a message rather than silently ignored: `hydra.*` keys (abak-rl never changes the
working directory; runs_dir= and checkpoints_dir= say where outputs go), adding or deleting keys
(`+key=`, `++key=`, `~key`), empty values (`resume=`), and a sweep without -m.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import ConfigError

INFO_TOPICS = ("all", "config", "defaults", "searchpath")
CFG_KINDS = ("job", "all")


@dataclass
class Launch:
    help: bool = False
    cfg: str | None = None           # --cfg job
    info: str | None = None          # --info [topic]
    multirun: bool = False
    overrides: list[str] = field(default_factory=list)


def parse_argv(argv: list[str]) -> Launch:
    """Split flags from overrides; an unknown flag or a bad flag value is a ConfigError."""
    out = Launch()
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("-h", "--help"):
            out.help = True
        elif a in ("-m", "--multirun"):
            out.multirun = True
        elif a in ("-c", "--cfg") or a.startswith("--cfg="):
            kind = a.split("=", 1)[1] if "=" in a else nxt
            if "=" not in a:
                i += 1
            if kind == "hydra":
                raise ConfigError("--cfg hydra: abak-rl uses Hydra's compose API only, there is no "
                                  "Hydra config to show; use --cfg job")
            if kind not in CFG_KINDS:
                raise ConfigError(f"--cfg needs one of {', '.join(CFG_KINDS)}, got {kind!r}")
            out.cfg = kind
        elif a in ("-i", "--info") or a.startswith("--info="):
            if "=" in a:
                topic = a.split("=", 1)[1]
            elif nxt is not None and "=" not in nxt and not nxt.startswith(("-", "~", "+")):
                topic = nxt
                i += 1
            else:
                topic = "all"
            if topic not in INFO_TOPICS:
                raise ConfigError(f"--info takes one of {', '.join(INFO_TOPICS)}, got {topic!r}")
            out.info = topic
        elif a.startswith("-") and "=" not in a:
            raise ConfigError(f"unknown option {a!r}; options are -h/--help, -c/--cfg job, "
                              f"-i/--info, -m/--multirun (everything else is key=value)")
        else:
            out.overrides.append(a)
        i += 1
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split("\n")[0].split())


def jobs(overrides: list[str], multirun: bool) -> list[list[str]]:
    """The override lists of the runs to make: one without -m, every combination with it."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except HydraException as e:
        bad = next((o for o in overrides if _parses_badly(o)), None)
        where = f"{bad!r}: " if bad else ""
        raise ConfigError(f"cannot read override {where}{_one_line(e)} (overrides are key=value)") from None
    sweeps = []
    for o in parsed:
        key, line = o.key_or_group, o.input_line
        if key == "hydra" or key.startswith("hydra.") or key.startswith("hydra/"):
            raise ConfigError(f"{line!r}: Hydra's own settings are not used by abak-rl train (it never "
                              f"changes the working directory); set runs_dir= and checkpoints_dir= "
                              f"to choose where outputs go")
        if o.is_add() or o.is_force_add() or o.is_delete():
            raise ConfigError(f"{line!r}: keys cannot be added or deleted (+, ++, ~); override an "
                              f"existing key as key=value (abak-rl train --help lists them)")
        if o.is_sweep_override():
            sweeps.append(line)
        elif o.value() == "":
            if key == "resume":
                raise ConfigError("resume= is empty: give a checkpoint file or a checkpoints/<run>/ "
                                  "folder to continue, or leave resume out for a new run")
            raise ConfigError(f"{key}= is empty: give it a value (or null)")
    if sweeps and not multirun:
        raise ConfigError(f"{sweeps[0]!r} lists several values: that is a sweep; run it with -m "
                          f"(abak-rl train -m {' '.join(overrides)})")
    if not multirun:
        return [list(overrides)]
    if any(o.key_or_group == "resume" and o.value() is not None for o in parsed):
        raise ConfigError("resume= cannot be combined with a -m sweep: continue runs one at a time")
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    try:
        batches = BasicSweeper.split_arguments(parsed, None)
    except HydraException as e:
        raise ConfigError(f"cannot expand the sweep: {_one_line(e)}") from None
    return [list(job) for batch in batches for job in batch]


def _parses_badly(line: str) -> bool:
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    try:
        OverridesParser.create().parse_overrides([line])
    except HydraException:
        return True
    return False


def info(topic: str, overrides: list[str]) -> str:
    """What --info prints: where configs come from, the defaults, groups and their options."""
    from omegaconf import OmegaConf

    from .config import compose, config_dir
    root = config_dir()
    lines = []
    if topic in ("all", "searchpath"):
        lines += ["Config search path:", f"  {root}  (set ABAK_RL_CONFIG_DIR to use another)"]
    if topic in ("all", "defaults"):
        top = OmegaConf.load(root / "config.yaml")
        lines.append("Defaults list (config.yaml; override a group as group=option):")
        for item in top.get("defaults", []):
            if isinstance(item, str):
                lines.append(f"  {item}")
            else:
                for group, option in item.items():
                    opts = sorted(p.stem for p in (root / group).glob("*.yaml"))
                    lines.append(f"  {group}: {option}    (options: {', '.join(opts)})")
    if topic in ("all", "config"):
        cfg = compose(overrides)
        lines += [f"Composed config (overrides: {' '.join(overrides) or 'none'}):",
                  OmegaConf.to_yaml(cfg).rstrip()]
    return "\n".join(lines)
