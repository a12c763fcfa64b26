"""Strength curve of a training run: every checkpoint against fixed opponents.

The trainer writes checkpoints/<run>/games_<n>.pt (plus latest.pt and best.pt, which repeat
one of them and are skipped). Each is loaded through agents.neural.load_neural_agent; the
number of games trained comes from the checkpoint's counters (else from the file name). The
curve goes to <out>.json, <out>.png and TensorBoard (eval_curve/ppg_vs_<opponent>).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .match import run_match

SKIP = {"latest.pt", "best.pt"}


def find_checkpoints(run: str) -> list[Path]:
    """Checkpoint files of a run, given its folder or its name under checkpoints/."""
    p = Path(run)
    if not p.is_dir() and Path("checkpoints", run).is_dir():
        p = Path("checkpoints", run)
    if not p.is_dir():
        raise FileNotFoundError(f"no run folder {run!r} (nor checkpoints/{run})")
    files = [f for f in p.glob("*.pt") if f.name not in SKIP]
    if not files:
        raise FileNotFoundError(f"no checkpoints (*.pt other than latest/best) in {p}")
    return same_run(files, p)


def run_identity(path: Path):
    """The run a checkpoint belongs to: the run id the trainer records in it (older checkpoints:
    their run name and seed); None when it cannot be read."""
    try:
        from ..train.checkpoint import load_checkpoint
        data = load_checkpoint(path)
    except Exception:  # noqa: BLE001 - unreadable: the curve reports it when it loads the file
        return None
    cfg = data.get("config") or {}
    return data.get("run_id") or (cfg.get("run"), cfg.get("seed"))


def same_run(files: list[Path], folder: Path) -> list[Path]:
    """Only the checkpoints of the run the folder's latest.pt (else its newest file) belongs to:
    a folder reused by another run, or a file copied in, must not mix into one curve."""
    ref = folder / "latest.pt"
    if not ref.is_file():
        ref = max(files, key=lambda f: f.stat().st_mtime)
    want = run_identity(ref)
    if want is None:
        return files
    keep = [f for f in files if run_identity(f) == want]
    if len(keep) < len(files):
        import sys
        print(f"curve: skipping {len(files) - len(keep)} checkpoint(s) in {folder} that belong to "
              f"another run than {ref.name}", file=sys.stderr)
    return keep


def checkpoint_info(path: Path) -> tuple[int, str | None]:
    """(games trained, variant) of a checkpoint file."""
    games, variant = None, None
    try:
        from ..train.checkpoint import load_checkpoint
        data = load_checkpoint(path)
        games = data.get("counters", {}).get("games")
        variant = data.get("variant")
    except ImportError:
        pass
    if games is None:
        digits = re.findall(r"\d+", path.stem)
        if not digits:
            raise ValueError(f"cannot tell how many games {path} was trained on")
        games = int(digits[-1])
    return int(games), variant


def _load(path: Path, variant: str, ply: int):
    from ..agents.registry import make_agent
    return make_agent(f"checkpoint:{path},ply={ply}", variant)


def run_curve(run: str, opponents: list[str], games: int = 2000, variant: str | None = None,
              seed: int = 0, batch: int = 1000, ply: int = 0, out: str | None = None,
              tensorboard: str | None = None) -> list[str]:
    """Evaluate every checkpoint of `run`; write JSON, PNG and TensorBoard; return summary lines."""
    files = find_checkpoints(run)
    info = sorted(((checkpoint_info(f), f) for f in files), key=lambda x: x[0][0])
    variant = variant or info[0][0][1] or "standard"
    rows = []
    for (trained, _), path in info:
        agent = _load(path, variant, ply)
        for opp in opponents:
            r = run_match(agent, opp, variant, games, seed, batch=batch, progress=False)
            rows.append({"checkpoint": str(path), "games_trained": trained, "opponent": opp,
                         **{k: r[k] for k in ("ppg", "ppg_ci95", "win_rate", "gammon_rate",
                                              "backgammon_rate", "games", "games_per_s")}})
    folder = Path(files[0]).parent
    stem = Path(out) if out else folder / "curve"
    stem.parent.mkdir(parents=True, exist_ok=True)
    result = {"run": str(folder), "variant": variant, "ply": ply, "games_per_match": games,
              "seed": seed, "points": rows}
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    tb = tensorboard or str(_default_tb(folder))
    _tensorboard(rows, tb)
    png = _chart(result, stem.with_suffix(".png"))
    lines = [f"{r['games_trained']:>10} games  vs {r['opponent']:<10} {r['ppg']:+.3f} ± "
             f"{r['ppg_ci95']:.3f} ppg  wins {100 * r['win_rate']:.1f}%" for r in rows]
    lines.append(f"wrote {stem.with_suffix('.json')}" + (f", {png}" if png else "")
                 + f", TensorBoard {tb}")
    return lines


def _default_tb(folder: Path) -> Path:
    """runs/<run>/eval_curve beside the training logs when they are there, else in the run."""
    logs = Path("runs", folder.name)
    return (logs if logs.is_dir() else folder) / "eval_curve"


def _tensorboard(rows: list[dict], logdir: str) -> None:
    from torch.utils.tensorboard import SummaryWriter
    with SummaryWriter(logdir) as w:
        for r in rows:
            w.add_scalar(f"eval_curve/ppg_vs_{r['opponent']}", r["ppg"], r["games_trained"])
            w.add_scalar(f"eval_curve/win_rate_vs_{r['opponent']}", r["win_rate"], r["games_trained"])


def _chart(result: dict, path: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in dict.fromkeys(r["opponent"] for r in result["points"]):
        pts = [r for r in result["points"] if r["opponent"] == opp]
        x = [r["games_trained"] for r in pts]
        y = [r["ppg"] for r in pts]
        e = [r["ppg_ci95"] for r in pts]
        ax.errorbar(x, y, yerr=e, marker="o", capsize=3, label=f"vs {opp}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("games trained")
    ax.set_ylabel("points per game (95% interval)")
    ax.set_title(f"{Path(result['run']).name} ({result['variant']}, {result['games_per_match']} games per point)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
