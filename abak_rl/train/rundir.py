"""Run folders that are never shared: claiming a name, the lock of a live run, leftovers.

A fresh run claims checkpoints_dir/<run>/ by creating it with os.mkdir, which fails when the
folder exists, so two processes can never both claim one name; an explicit name that exists
(in checkpoints_dir or runs_dir) is refused, an automatic name (run=auto or null) gets a suffix
(-2, -3, ...) instead. Every run, fresh or resumed, then holds checkpoints_dir/<run>/.lock (the
pid of the process) until it ends; a second process on the same run is refused while that pid
lives, and a lock left by a dead process (kill -9, a crash) is taken over. A process killed
while writing a checkpoint leaves a hidden `.<name>.*.tmp`; these go when the run next starts.
"""

from __future__ import annotations

import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path

AUTO = "auto"


class RunError(ValueError):
    """A run folder that cannot be used (taken, locked, not creatable); the message says why."""


def auto_name(variant: str, when: datetime | None = None) -> str:
    """<variant>-<UTC date>-<time>: the name run=auto (or null) starts from."""
    return f"{variant}-{(when or datetime.now(timezone.utc)):%Y%m%d-%H%M%S}"


def existing(runs_dir, checkpoints_dir, name: str) -> Path | None:
    """The first of checkpoints_dir/<name>, runs_dir/<name> that exists (None when neither)."""
    for d in (Path(checkpoints_dir) / name, Path(runs_dir) / name):
        if os.path.lexists(d):
            return d
    return None


def taken_message(name: str, where: Path, checkpoints_dir) -> str:
    return (f"run name {name!r} is taken ({where} exists); choose another run=, use run=auto "
            f"for a fresh name, or continue that run with resume={Path(checkpoints_dir) / name}")


def _mkdir(path: Path, key: str, exist_ok: bool) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(exist_ok=exist_ok)
    except FileExistsError:
        raise
    except OSError as e:
        raise RunError(f"cannot create {path} ({key}): {e.strerror or e}") from None


def claim(runs_dir, checkpoints_dir, name: str, *, fresh: bool, auto: bool) -> str:
    """Create the run's two folders and return the run name used (auto names may get a suffix).

    fresh=False (resuming the run's own folder): the folders may exist. fresh and not auto: an
    existing name is a RunError. fresh and auto: the first free name among name, name-2, ...
    """
    runs_dir, checkpoints_dir = Path(runs_dir), Path(checkpoints_dir)
    if not fresh:
        _mkdir(checkpoints_dir / name, "checkpoints_dir", exist_ok=True)
        _mkdir(runs_dir / name, "runs_dir", exist_ok=True)
        return name
    for k in range(1, 1000):
        candidate = name if k == 1 else f"{name}-{k}"
        where = existing(runs_dir, checkpoints_dir, candidate)
        if where is None:
            try:
                _mkdir(checkpoints_dir / candidate, "checkpoints_dir", exist_ok=False)
            except FileExistsError:   # another process claimed it a moment ago
                where = checkpoints_dir / candidate
            else:
                try:
                    _mkdir(runs_dir / candidate, "runs_dir", exist_ok=True)
                except RunError:              # an unusable runs_dir: give the claimed name back
                    (checkpoints_dir / candidate).rmdir()
                    raise
                return candidate
        if not auto:
            raise RunError(taken_message(candidate, where, checkpoints_dir))
    raise RunError(f"no free run name {name}-N (N < 1000) in {checkpoints_dir}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # exists, owned by someone else
        return True
    return True


class RunLock:
    """checkpoints_dir/<run>/.lock holding the owner's pid; see the module docstring."""

    NAME = ".lock"

    def __init__(self, folder):
        self.folder = Path(folder)
        self.path = self.folder / self.NAME
        self.held = False

    def holder(self) -> int | None:
        try:
            text = self.path.read_text().split()
            return int(text[0]) if text else None
        except (OSError, ValueError):
            return None

    def acquire(self) -> "RunLock":
        for _ in range(5):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                pid = self.holder()
                if pid is None and self._age() < 5:        # being written by its taker right now
                    time.sleep(0.2)
                    continue
                if pid is not None and pid != os.getpid() and _alive(pid):
                    raise RunError(f"run folder {self.folder} is in use by process {pid} (lock "
                                   f"{self.path}); wait for that run to end or stop it first") from None
                try:                                        # stale: its process is gone
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass
                continue
            except OSError as e:
                raise RunError(f"cannot create the lock {self.path}: {e.strerror or e}") from None
            with os.fdopen(fd, "w") as f:
                f.write(f"{os.getpid()}\n")
            self.held = True
            return self
        raise RunError(f"cannot take the lock {self.path} (another process keeps replacing it)")

    def _age(self) -> float:
        try:
            return time.time() - self.path.stat().st_mtime
        except OSError:
            return 0.0

    def release(self) -> None:
        if self.held and self.holder() == os.getpid():
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
        self.held = False

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def remove_stale_temp_files(folder) -> list[Path]:
    """Delete the hidden `.*.tmp` files an interrupted checkpoint write left; returns them."""
    return _unlink(Path(folder).glob(".*.tmp"))


_SNAPSHOT = re.compile(r"^games_(\d+)\.pt$")


def prune_snapshots(folder, keep_last: int | None) -> list[Path]:
    """Keep only the newest `keep_last` games_<n>.pt (by n); None or 0 keeps all."""
    if not keep_last:
        return []
    snaps = sorted((int(m.group(1)), f) for f in Path(folder).iterdir()
                   if (m := _SNAPSHOT.match(f.name)))
    return _unlink(f for _, f in snaps[:-keep_last])


def _unlink(files) -> list[Path]:
    """Delete the files that can be deleted; returns those that went."""
    gone = []
    for f in files:
        try:
            f.unlink()
            gone.append(f)
        except OSError:
            pass
    return gone


_UNUSED = re.compile(r"^(config\.yaml|overrides\.yaml|launches\.yaml|\.lock|events\.out\.tfevents\..*)$")


def release_unused(run_dir, ckpt_dir) -> bool:
    """Remove a new run's two folders when it failed before writing any checkpoint (they hold
    only what the start wrote: configs, an empty event file, the lock), so that the name is free
    again; True when removed."""
    folders = [Path(d) for d in (run_dir, ckpt_dir) if Path(d).is_dir()]
    files = [f for d in folders for f in d.iterdir()]
    if any(f.is_dir() or not _UNUSED.match(f.name) for f in files):
        return False
    try:
        for f in files:
            f.unlink(missing_ok=True)
        for d in folders:
            d.rmdir()
    except OSError:
        return False
    return True
