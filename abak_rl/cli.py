"""The `abak-rl` command: a thin dispatcher; each subcommand lives with the code it drives."""

from __future__ import annotations

import importlib
import sys

# subcommand -> (module, function taking argv)
COMMANDS = {
    "moves": ("abak_rl.io.moves_cli", "main"),
    "train": ("abak_rl.train.run", "main"),
    "evaluate": ("abak_rl.evaluate.cli", "evaluate_main"),
    "tournament": ("abak_rl.evaluate.cli", "tournament_main"),
    "curve": ("abak_rl.evaluate.cli", "curve_main"),
    "export": ("abak_rl.export.cli", "export_main"),
    "hint": ("abak_rl.export.cli", "hint_main"),
    "play": ("abak_rl.export.cli", "play_main"),
    "analyze": ("abak_rl.evaluate.analyze", "main"),
}

USAGE = ("usage: abak-rl {" + ",".join(COMMANDS) + "} [args...]  (abak-rl COMMAND --help for more;"
         " abak-rl --version)")


def version() -> str:
    """The installed distribution's version (pyproject.toml), without importing torch."""
    from importlib.metadata import PackageNotFoundError, version as dist_version
    try:
        return dist_version("abak-rl")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"abak-rl {version()}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"abak-rl: unknown command {name!r}\n{USAGE}", file=sys.stderr)
        return 2
    module, func = COMMANDS[name]
    return int(getattr(importlib.import_module(module), func)(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
