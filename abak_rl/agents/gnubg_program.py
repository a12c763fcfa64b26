"""GNU Backgammon, the program, as an opponent, a cube policy and a judge.

One long-lived `gnubg -t -q -r -p gnubg_server.py` process per GnubgProgram, spoken to over
pipes in JSON lines (agents/gnubg_server.py): a request carries a whole batch, so a lockstep
step costs one round trip. The embedded Python is used rather than gnubg's `external` socket
protocol: no port to pick, no FIBS board strings, cube decisions and analysis through the same
channel, and the process dies with ours.

- GnubgProgramAgent (spec `gnubg:plies=N`, N = 0, 1, 2): gnubg's best play at N plies; its play
  is mapped back onto our afterstates (an illegal or unknown play is an error).
- GnubgCube: gnubg's cube decisions (cfevaluate at N plies) for money games and matches.
- analyze(): gnubg's own analysis of game records (see abak_rl/evaluate/analyze.py).

The spec `gnubg` alone stays the fast gnubg-nn 0-ply agent (agents/gnubg_agent.py).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..engine import board as cb
from ..engine.common import Afterstates
from .gnubg_agent import to_gnubg

SERVER = Path(__file__).with_name("gnubg_server.py")
CANDIDATES = ("gnubg", "/usr/games/gnubg", "/usr/bin/gnubg", "/usr/local/bin/gnubg")
INSTALL_HINT = "install it with `apt-get install gnubg` or set ABAK_GNUBG to its path"


class GnubgError(RuntimeError):
    """GNU Backgammon is missing, failed, or answered something we cannot use."""


def find_gnubg() -> str | None:
    """The gnubg binary: $ABAK_GNUBG, else gnubg on PATH, else Debian's /usr/games/gnubg."""
    env = os.environ.get("ABAK_GNUBG")
    if env:
        return env if os.access(env, os.X_OK) else None
    for c in CANDIDATES:
        path = shutil.which(c) if "/" not in c else (c if os.access(c, os.X_OK) else None)
        if path:
            return path
    return None


def require_gnubg() -> str:
    path = find_gnubg()
    if path is None:
        where = os.environ.get("ABAK_GNUBG")
        raise GnubgError(f"GNU Backgammon (the program) is not installed"
                         + (f" at ABAK_GNUBG={where}" if where else "") + f"; {INSTALL_HINT}")
    return path


class GnubgProgram:
    """A running gnubg process answering batched requests (see gnubg_server.py)."""

    def __init__(self, binary: str | None = None):
        self.binary = binary or require_gnubg()
        read_fd, write_fd = os.pipe()
        self._log = tempfile.TemporaryFile()
        env = dict(os.environ, ABAK_GNUBG_FD=str(write_fd))
        try:
            self.proc = subprocess.Popen(
                [self.binary, "-t", "-q", "-r", "-p", str(SERVER)], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=self._log, env=env, pass_fds=(write_fd,),
                cwd=tempfile.gettempdir())
        except OSError as exc:
            os.close(read_fd)
            os.close(write_fd)
            raise GnubgError(f"cannot start GNU Backgammon ({self.binary}): {exc}") from None
        os.close(write_fd)
        self._answers = os.fdopen(read_fd, "r")
        atexit.register(self.close)
        ready = self._read()
        if ready != "ready":
            raise GnubgError(f"GNU Backgammon did not start its helper: {ready!r}")

    def _read(self):
        line = self._answers.readline()
        if not line:
            self._log.seek(0)
            tail = self._log.read().decode(errors="replace").strip().splitlines()[-3:]
            raise GnubgError("GNU Backgammon stopped answering" + (": " + " | ".join(tail) if tail else ""))
        answer = json.loads(line)
        if not answer.get("ok"):
            raise GnubgError(f"GNU Backgammon: {answer.get('error')}")
        return answer["result"]

    def request(self, op: str, **fields):
        if self.proc.poll() is not None:
            raise GnubgError(f"GNU Backgammon has exited (code {self.proc.returncode})")
        try:
            self.proc.stdin.write((json.dumps({"op": op, **fields}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise GnubgError("GNU Backgammon has exited") from None
        return self._read()

    def close(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.stdin.write(b'{"op": "quit"}\n')
            proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._answers.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_SHARED: dict[str, GnubgProgram] = {}


def shared_program() -> GnubgProgram:
    """One process per interpreter for agents and cube policies (they never run concurrently)."""
    prog = _SHARED.get("p")
    if prog is None or prog.proc.poll() is not None:
        prog = _SHARED["p"] = GnubgProgram()
    return prog


# ----------------------------------------------------------------------------- boards and plays

def apply_gnubg_move(row: np.ndarray, move) -> np.ndarray:
    """Our classic row (mover's view) after gnubg's play: pairs (from, to) in the mover's
    points, 1-based, 25 the bar, 0 (or below) off; a landing on a lone opponent checker hits."""
    r = np.asarray(row, dtype=np.int64).copy()
    for k in range(0, len(move), 2):
        src, dst = int(move[k]), int(move[k + 1])
        if src <= 0:
            break
        if src == 25:
            r[cb.BAR] -= 1
        else:
            r[src - 1] -= 1
        if dst <= 0:
            r[cb.OFF] += 1
        else:
            if r[dst - 1] == -1:
                r[dst - 1] = 0
                r[cb.OPP_BAR] += 1
            r[dst - 1] += 1
    return r.astype(np.int8)


def cube_fields(ctx, i: int, jacoby: bool = False) -> dict:
    """Our CubeContext entry i (player to move's view) as the server's cube dict. A match is
    given by the points each side still needs: length = the larger of the two. The Jacoby rule
    applies when asked here or by the context (money play only)."""
    owner = int(ctx.owner[i])
    jacoby = jacoby or bool(getattr(ctx, "jacoby", False))
    out = {"value": int(ctx.value[i]), "owner": -1 if owner == 0 else (0 if owner > 0 else 1),
           "jacoby": int(jacoby and not ctx.is_match), "cubeful": 1}
    if ctx.is_match:
        a, b = int(ctx.away[i]), int(ctx.opp_away[i])
        n = max(a, b)
        crawford = getattr(ctx, "crawford", None)
        out.update({"matchto": n, "score": [n - a, n - b],
                    "crawford": int(bool(crawford[i])) if crawford is not None else 0})
    return out


def check_plies(plies) -> int:
    try:
        p = int(plies)
    except (TypeError, ValueError):
        p = -1
    if p not in (0, 1, 2):
        raise ValueError(f"gnubg plies={plies!r}: expected 0, 1 or 2")
    return p


class GnubgProgramAgent:
    """The real GNU Backgammon's chequer play at `plies` (standard backgammon only).

    Checker play is cubeless money play (the Agent interface carries no cube state); its cube
    decisions come with GnubgCube, which sees the full cube and match state.
    """

    def __init__(self, variant=None, plies: int = 2, program: GnubgProgram | None = None):
        name = getattr(variant, "name", "standard")
        if name != "standard":
            raise ValueError(f"gnubg:plies=N plays standard backgammon only, not {name!r}")
        self.plies = check_plies(plies)
        self.program = program or shared_program()
        self.name = f"gnubg:plies={self.plies}"

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after: Afterstates) -> np.ndarray:
        if getattr(variant, "name", None) != "standard":
            raise ValueError(f"{self.name} plays standard backgammon only, not {variant.name!r}")
        n = before.shape[0]
        starts, counts = after.starts(n), after.counts(n)
        picks = starts.copy()
        todo = np.flatnonzero(counts > 1)
        if todo.size == 0:
            return picks
        items = [[to_gnubg(before[i]), [int(dice[i, 0]), int(dice[i, 1])], None] for i in todo]
        moves = self.program.request("move", plies=self.plies, items=items)
        for i, move in zip(todo, moves):
            row = apply_gnubg_move(before[i], move)
            seg = after.boards[starts[i]:starts[i] + counts[i]]
            hit = np.flatnonzero((seg == row).all(axis=1))
            if hit.size != 1:
                raise GnubgError(f"gnubg's play {move} is not one of our legal afterstates "
                                 f"(dice {dice[i].tolist()})")
            picks[i] = starts[i] + hit[0]
        return picks

    def cube_policy(self, jacoby: bool = False):
        return GnubgCube(self.plies, self.program, jacoby)


class GnubgCube:
    """GNU Backgammon's cube decisions (cfevaluate, cubeful, at `plies`): double when gnubg's
    best doubled equity beats no double; take when double-take costs the taker less than a pass."""

    name = "gnubg"

    def __init__(self, plies: int = 2, program: GnubgProgram | None = None, jacoby: bool = False):
        self.plies = check_plies(plies)
        self.program = program or shared_program()
        self.jacoby = jacoby

    def evaluate(self, boards: np.ndarray, ctx) -> np.ndarray:
        """[n, 4] equities of the player to move: optimal, no double, double-take, double-pass."""
        if boards.shape[0] == 0:
            return np.zeros((0, 4))
        items = [[to_gnubg(boards[i]), cube_fields(ctx, i, self.jacoby)] for i in range(boards.shape[0])]
        res = self.program.request("cube", plies=self.plies, items=items)
        return np.array([r[:4] for r in res], dtype=np.float64)

    def offer(self, variant, boards, ctx):
        eq = self.evaluate(np.asarray(boards), ctx)
        return np.minimum(eq[:, 2], eq[:, 3]) > eq[:, 1]

    def accept(self, variant, boards, ctx):
        eq = self.evaluate(np.asarray(boards), ctx)
        return eq[:, 2] <= eq[:, 3]


def parse_spec(spec: str) -> int:
    """'gnubg:plies=N' -> N."""
    body = spec[len("gnubg:"):].strip()
    key, eq, value = body.partition("=")
    if key.strip() != "plies" or not eq:
        raise ValueError(f"bad gnubg option {body!r} in {spec!r}; expected gnubg:plies=0, 1 or 2")
    return check_plies(value.strip())


def make_program_agent(spec: str, variant, seed: int = 0) -> GnubgProgramAgent:
    return GnubgProgramAgent(variant, parse_spec(spec))
