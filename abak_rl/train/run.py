"""`abak-rl train`: self-play TD(lambda) training, readable top to bottom (see train()).

    abak-rl train                                   # short standard run (about ten minutes)
    abak-rl train variant=abak model.hidden=128 train.games=200000
    abak-rl train resume=checkpoints/<run>          # continue a stopped run exactly
Outputs: runs/<run>/ (config.yaml, TensorBoard events), checkpoints/<run>/ (latest.pt, best.pt,
games_<n>.pt). Ctrl-C saves latest.pt and exits; a second Ctrl-C stops at once.
"""

from __future__ import annotations

import math
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from ..agents.neural import NeuralAgent
from ..engine.variants import get_variant
from ..features import feature_set_for
from ..model.net import build_net
from ..model.scorer import Scorer, resolve_device
from . import config as cfgmod
from .checkpoint import (CheckpointError, build_net_from, load_checkpoint, random_states,
                         restore_random_states, save_checkpoint, to_numpy)
from .evaluation import evaluate, make_opponents
from .executors import make_executor
from .selfplay import SelfPlay
from .td import SampleQueue, td_update


@dataclass
class Counters:
    """Everything that counts progress; saved in checkpoints."""
    games: int = 0            # finished self-play games trained on
    steps: int = 0            # lockstep steps (one move in each of batch_games games)
    updates: int = 0          # gradient steps
    states: int = 0           # afterstates trained on
    seconds: float = 0.0      # time spent training (evaluations excluded)
    next_log: int = 0
    next_eval: int = 0
    next_ckpt: int = 0
    best_ppg: float = -math.inf
    best_games: int = -1
    history: list = field(default_factory=list)   # one dict per evaluation


def lr_at(t: DictConfig, games: int) -> float:
    """Learning rate after `games` games: lr -> lr_final over train.games (linear or cosine)."""
    if t.lr_final is None:
        return float(t.lr)
    frac = min(games / t.games, 1.0)
    if t.lr_schedule == "cosine":
        frac = 0.5 * (1 - math.cos(math.pi * frac))
    return float(t.lr + (t.lr_final - t.lr) * frac)


def make_optimizer(net, t: DictConfig):
    if t.optimizer == "adam":
        return torch.optim.Adam(net.parameters(), lr=t.lr)
    return torch.optim.SGD(net.parameters(), lr=t.lr, momentum=t.momentum)


def make_variant(cfg: DictConfig):
    return get_variant(cfg.variant.name, **cfgmod.variant_options(cfg))


class StopFlag:
    """Set by Ctrl-C (SIGINT) or by a test; checked once per step so a stop never splits one."""

    def __init__(self):
        self.set = False

    def __call__(self, *_):
        if self.set:                       # second Ctrl-C: stop now
            raise KeyboardInterrupt
        self.set = True
        print("\nstopping after this step and saving (Ctrl-C again to quit at once)", file=sys.stderr)


def train(cfg: DictConfig, stop: StopFlag | None = None, on_step=None) -> dict:
    """Run (or continue) one training run; returns a summary. on_step(trainer_state) is a test
    hook called after every step."""
    stop = stop or StopFlag()
    T, E = cfg.train, cfg.eval
    torch.set_num_threads(int(cfg.threads))
    variant = make_variant(cfg)
    features = feature_set_for(variant.name, cfg.model.features)
    device = resolve_device(str(cfg.device))
    torch.manual_seed(int(cfg.seed))
    resume = load_checkpoint(cfg.resume) if cfg.resume else None
    net = (build_net_from(resume, features) if resume else build_net(features.size, cfg.model)).to(device)
    optimizer = make_optimizer(net, T)
    scorer = Scorer(net, features, variant, device)
    play = make_executor(cfg, variant, scorer, local=SelfPlay)   # executor=local | ray (docs/ray.md)
    queue = SampleQueue(variant.width)
    c = Counters()
    if resume:
        optimizer.load_state_dict(resume["optimizer"])
        play.load_state_dict(to_numpy(resume["selfplay"]))
        queue.load_state_dict(to_numpy(resume["queue"]))
        c = Counters(**resume["counters"])
        restore_random_states(resume["rng"])
    run_dir = Path(cfg.runs_dir) / cfg.run
    ckpt_dir = Path(cfg.checkpoints_dir) / cfg.run
    for d in (run_dir, ckpt_dir):
        d.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(cfg, d / "config.yaml")
    opponents = make_opponents(list(E.opponents), int(E.seed))
    from torch.utils.tensorboard import SummaryWriter
    # resuming: drop events logged after the checkpoint (a crash may have left some)
    writer = SummaryWriter(str(run_dir), purge_step=c.games + 1 if resume else None)

    def payload() -> dict:
        return {"variant": variant.name, "features": features.describe(), "model": net.shape,
                "net": net.state_dict(), "optimizer": optimizer.state_dict(),
                "config": OmegaConf.to_container(cfg, resolve=True), "counters": asdict(c),
                "rng": random_states(), "selfplay": play.state_dict(), "queue": queue.state_dict()}

    def run_eval(games: int) -> dict:
        net.eval()
        agent = NeuralAgent(scorer, ply=0, name=f"{cfg.run}@{c.games}")
        res = evaluate(agent, variant, opponents, games, int(E.seed))
        if E.get("records"):                       # sampled self-play games as game records
            write_selfplay_records(agent, variant, int(E.records), int(E.seed),
                                   run_dir / f"selfplay_{c.games:09d}.jsonl")
        net.train()
        for opp, r in res.items():
            for k, val in r.items():
                if k != "skipped":
                    writer.add_scalar(f"eval/{opp}/{k}", val, c.games)
        c.history.append({"games": c.games, **{o: r for o, r in res.items()}})
        best = res.get(E.best_by, {})
        if "ppg" not in best:                      # the chosen opponent is unavailable
            best = next((r for r in res.values() if "ppg" in r), {})
        if best.get("ppg", -math.inf) > c.best_ppg:
            c.best_ppg, c.best_games = best["ppg"], c.games
            save_checkpoint(ckpt_dir / "best.pt", payload())
        return res

    bar = None
    if cfg.progress:
        from tqdm import tqdm
        bar = tqdm(total=int(T.games), initial=min(c.games, int(T.games)), unit="game",
                   desc=cfg.run, dynamic_ncols=True)
    window = {"loss": [], "turns": [], "points": [], "t0": time.perf_counter(), "g0": c.games}
    start, latest_eval = time.perf_counter(), ""
    while c.games < T.games:
        # -- one lockstep move in every game, then learn from the games that ended ------------
        t_step = time.perf_counter()
        epsilon = float(T.epsilon)
        finished = play.step(scorer, epsilon)
        queue.push_games(finished, float(T["lambda"]))
        lr = lr_at(T, c.games)
        while len(queue) >= T.batch_states:
            window["loss"].append(td_update(scorer, optimizer, *queue.pop(int(T.batch_states)), lr=lr,
                                            grad_clip=T.grad_clip))
            c.updates += 1
        n_done = int(finished.length.size)
        c.games += n_done
        c.steps += 1
        c.states += int((finished.length - 1).sum())
        c.seconds += time.perf_counter() - t_step
        window["turns"] += finished.length.tolist()
        window["points"] += finished.points.tolist()
        if bar is not None and n_done:
            bar.update(min(n_done, int(T.games) - bar.n))
        # -- bookkeeping at fixed game counts (so a resumed run does exactly the same) --------
        if c.games >= c.next_log:
            c.next_log += int(T.log_every)
            gps = (c.games - window["g0"]) / max(time.perf_counter() - window["t0"], 1e-9)
            pts = np.asarray(window["points"])
            if window["loss"]:
                writer.add_scalar("td/loss", float(np.mean(window["loss"])), c.games)
            writer.add_scalar("selfplay/games_per_s", gps, c.games)
            if pts.size:
                writer.add_scalar("selfplay/game_length", float(np.mean(window["turns"])), c.games)
                writer.add_scalar("selfplay/gammon_rate", float((pts >= 2).mean()), c.games)
                writer.add_scalar("selfplay/backgammon_rate", float((pts >= 3).mean()), c.games)
            writer.add_scalar("train/lr", lr, c.games)
            writer.add_scalar("train/epsilon", epsilon, c.games)
            if bar is not None:
                bar.set_postfix_str(f"{gps:.0f} games/s {latest_eval}")
            window = {"loss": [], "turns": [], "points": [], "t0": time.perf_counter(), "g0": c.games}
        if E.every and c.games >= c.next_eval:
            c.next_eval += int(E.every)
            if c.games > 0:
                res = run_eval(int(E.games))
                latest_eval = " ".join(f"{o}:{r['ppg']:+.2f}" for o, r in res.items() if "ppg" in r)
                if bar is None:
                    print(f"{cfg.run}: {c.games} games, {c.seconds:.0f} s training, eval {latest_eval}",
                          flush=True)
                window["t0"], window["g0"] = time.perf_counter(), c.games
        if T.checkpoint_every and c.games >= c.next_ckpt:
            c.next_ckpt += int(T.checkpoint_every)
            if c.games > 0:
                save_checkpoint(ckpt_dir / f"games_{c.games:09d}.pt", payload())
                save_checkpoint(ckpt_dir / "latest.pt", payload())
        if on_step is not None:
            on_step(c)
        out_of_time = T.max_minutes and (time.perf_counter() - start) / 60 >= T.max_minutes
        if stop.set or out_of_time:
            break
    if bar is not None:
        bar.close()
    interrupted = stop.set
    final = {}
    if not interrupted and E.final_games:
        final = run_eval(int(E.final_games))
    save_checkpoint(ckpt_dir / "latest.pt", payload())
    writer.close()
    play.close()
    summary = {"run": cfg.run, "games": c.games, "updates": c.updates, "interrupted": interrupted,
               "seconds": c.seconds, "games_per_s": c.games / max(c.seconds, 1e-9),
               "final_eval": final, "best_ppg": c.best_ppg, "best_games": c.best_games,
               "latest": str(ckpt_dir / "latest.pt"), "run_dir": str(run_dir)}
    return summary


def write_selfplay_records(agent, variant, games: int, seed: int, path: Path) -> None:
    """`games` games of the current net against itself, written as JSON-lines game records."""
    from ..engine.game import play_games
    from ..io.records import write_records
    results = play_games(variant, [agent, agent], games, seed, record=True)
    write_records(results, variant.name, path, players=(agent.name, agent.name), seed=seed)


def prepare_config(argv: list[str]) -> DictConfig:
    """Compose the config from argv (or from the checkpoint being resumed) and check it."""
    cfg = cfgmod.compose(argv)
    if cfg.resume:
        try:
            saved = load_checkpoint(cfg.resume)["config"]
        except CheckpointError as e:
            raise cfgmod.ConfigError(str(e)) from None
        cfg = cfgmod.resume_config(saved, argv, cfg)
    cfgmod.validate(cfg)
    if not cfg.run:
        cfg.run = f"{cfg.variant.name}-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}"
    return cfg


HELP = __doc__ + "\nDefault config (every key can be overridden as key=value):\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a in ("-h", "--help") for a in argv):
        print(HELP + OmegaConf.to_yaml(cfgmod.compose([])))
        return 0
    try:
        cfg = prepare_config(argv)
    except (cfgmod.ConfigError, CheckpointError) as e:
        print(f"abak-rl train: {e}", file=sys.stderr)
        return 2
    stop = StopFlag()
    previous = signal.signal(signal.SIGINT, stop)
    try:
        summary = train(cfg, stop)
    except CheckpointError as e:
        print(f"abak-rl train: {e}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGINT, previous)
    print(format_summary(summary))
    return 130 if summary["interrupted"] else 0


def format_summary(s: dict) -> str:
    lines = [f"run {s['run']}: {s['games']} games, {s['updates']} updates, "
             f"{s['games_per_s']:.0f} games/s of training"]
    for opp, r in s["final_eval"].items():
        if "ppg" in r:
            lines.append(f"  vs {opp}: {r['ppg']:+.3f} ppg (±{r['ppg_ci95']:.3f}), "
                         f"win rate {r['win_rate']:.1%}")
    if s["interrupted"]:
        lines.append(f"interrupted: saved {s['latest']}; continue with "
                     f"abak-rl train resume={Path(s['latest']).parent}")
    else:
        lines.append(f"checkpoints: {Path(s['latest']).parent}  logs: {s['run_dir']} "
                     f"(tensorboard --logdir {s['run_dir']})")
    return "\n".join(lines)
