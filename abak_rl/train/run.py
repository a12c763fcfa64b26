"""`abak-rl train`: self-play TD(lambda) training, readable top to bottom (see train()).

    abak-rl train                                   # short standard run (about ten minutes)
    abak-rl train variant=abak model.hidden=128 train.games=200000
    abak-rl train resume=checkpoints/<run>          # continue a stopped run exactly
    abak-rl train -m train.lr=0.01,0.005 seed=0,1   # a sweep: four runs, one after another
    abak-rl train --cfg job | --info | --help       # print the config / where it comes from
Outputs: runs/<run>/ (config.yaml, overrides.yaml, launches.yaml, TensorBoard events),
checkpoints/<run>/ (latest.pt, best.pt, games_<n>.pt; .lock while the run is live). A run name
that exists is refused (run=auto makes a fresh one). Ctrl-C finishes the step, saves latest.pt
and exits (an evaluation in progress is abandoned); a second Ctrl-C quits as soon as it can.
"""

from __future__ import annotations

import math
import signal
import sys
import time
import uuid
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
from .checkpoint import (CheckpointError, build_net_from, load_checkpoint, load_initial_weights, random_states,
                         restore_random_states, save_checkpoint, to_numpy)
from .evaluation import evaluate, make_opponents
from .executors import make_executor
from .launch import info, jobs, parse_argv
from .rundir import (AUTO, RunError, RunLock, auto_name, claim, existing, prune_snapshots,
                     release_unused, remove_stale_temp_files, taken_message)
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


class PlainSection(dict):
    """A config section as a plain dict that also reads keys as attributes (T.lr, T["lambda"])."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    @classmethod
    def of(cls, section: DictConfig) -> PlainSection:
        return cls(OmegaConf.to_container(section, resolve=True))


def lr_at(t: DictConfig, games: int) -> float:
    """Learning rate after `games` games: lr -> lr_final over train.games (linear or cosine)."""
    if t.lr_final is None:
        return float(t.lr)
    frac = min(games / t.games, 1.0)
    if t.lr_schedule == "cosine":
        frac = 0.5 * (1 - math.cos(math.pi * frac))
    return float(t.lr + (t.lr_final - t.lr) * frac)


def make_optimizer(net, t: DictConfig):
    """Adam runs fused (one kernel per step for all weights: a third of the update's time at
    these net sizes; the same algorithm, equal to the unfused one to float rounding). A fused
    step does not bump the weights' version counters; td.mark_updated does."""
    if t.optimizer == "adam":
        return torch.optim.Adam(net.parameters(), lr=t.lr, fused=True)
    return torch.optim.SGD(net.parameters(), lr=t.lr, momentum=t.momentum)


def make_variant(cfg: DictConfig):
    return get_variant(cfg.variant.name, **cfgmod.variant_options(cfg))


class EvalInterrupted(KeyboardInterrupt):
    """Ctrl-C during an evaluation: the evaluation is abandoned, the run stops and saves."""


class HardStop(KeyboardInterrupt):
    """The second Ctrl-C: stop at once (saving latest.pt only if the state allows it)."""


class StopFlag:
    """Set by Ctrl-C (SIGINT) or by a test. Training checks it once per step, so a stop never
    splits one; during an evaluation (phase "eval") the first Ctrl-C abandons it at once. A
    second Ctrl-C raises HardStop, except inside a local self-play step (phase "in_step", a
    fraction of a second), which it lets finish so that latest.pt can still be saved."""

    def __init__(self):
        self.set = False
        self.hard = False
        self.phase = "step"

    def __call__(self, *_):
        if self.set:                       # second Ctrl-C: stop now
            self.hard = True
            if self.phase == "in_step":    # the step ends in a moment; then save and quit
                print("\nquitting once this step is done and latest.pt is saved", file=sys.stderr)
                return
            raise HardStop
        self.set = True
        if self.phase == "eval":
            print("\nstopping: the evaluation is abandoned, latest.pt is kept (Ctrl-C again to quit "
                  "at once)", file=sys.stderr)
            raise EvalInterrupted
        print("\nstopping after this step and saving latest.pt (Ctrl-C again to quit at once)",
              file=sys.stderr)


RESUME_STATE = ("optimizer", "selfplay", "queue", "rng", "counters")


def refuse_ensemble(data: dict) -> None:
    """An ensemble of nets (scripts/combine_nets.py) is for play, not for training."""
    if "ensemble" in (data.get("model") or {}):
        n = len(data["model"]["ensemble"])
        raise CheckpointError(f"{data['path']} is an ensemble of {n} nets (scripts/combine_nets.py): it is "
                              f"for play and evaluation, not for training; resume one of its members' "
                              f"runs instead")


def check_resumable(data: dict) -> None:
    """A run continues exactly only from a checkpoint with the full state (latest.pt), and
    never from an ensemble."""
    refuse_ensemble(data)
    missing = [k for k in RESUME_STATE if k not in data]
    if missing:
        folder = Path(data["path"]).parent
        raise CheckpointError(f"{data['path']} is a playing snapshot (no {', '.join(missing)}): a run "
                              f"cannot continue from it exactly; resume from {folder / 'latest.pt'} "
                              f"(train.full_snapshots=true keeps the full state in games_*.pt)")


def train(cfg: DictConfig, stop: StopFlag | None = None, on_step=None, command: list[str] | None = None,
          overrides: list[str] | None = None) -> dict:
    """Run (or continue) one training run; returns a summary. on_step(counters) is a test hook
    called after every step; command/overrides (the command line) are saved with the run."""
    stop = stop or StopFlag()
    T, E = cfg.train, cfg.eval
    torch.set_num_threads(int(cfg.threads))
    variant = make_variant(cfg)
    features = feature_set_for(variant.name, cfg.model.features)
    device = resolve_device(str(cfg.device))
    torch.manual_seed(int(cfg.seed))
    resume = load_checkpoint(cfg.resume) if cfg.resume else None
    if resume is not None:
        check_resumable(resume)
    try:
        opponents = make_opponents(list(E.opponents), int(E.seed), variant.name,
                                   judge={"kind": E.get("judge"), "plies": E.get("judge_plies", 0),
                                          "games": E.get("judge_games", 100),
                                          "opponent": E.get("judge_opponent", "pubeval")})
    except (ValueError, RuntimeError) as e:
        raise cfgmod.ConfigError(f"config key eval.opponents: {e}") from None
    # -- the run folder: claimed for this run only, locked while it lives ---------------------
    own_folder = (resume is not None and resume["config"].get("run") == cfg.run
                  and Path(resume["path"]).resolve().parent == (Path(cfg.checkpoints_dir) / cfg.run).resolve())
    auto = cfg.run in (None, AUTO)
    cfg.run = claim(cfg.runs_dir, cfg.checkpoints_dir, auto_name(variant.name) if auto else cfg.run,
                    fresh=not own_folder, auto=auto)
    run_dir = Path(cfg.runs_dir) / cfg.run
    ckpt_dir = Path(cfg.checkpoints_dir) / cfg.run
    lock = RunLock(ckpt_dir).acquire()
    try:
        return _train_locked(cfg, stop, on_step, resume, own_folder, variant, features, device,
                             opponents, run_dir, ckpt_dir, command, overrides)
    except BaseException:
        if not own_folder:                 # a new run that failed before its first checkpoint
            release_unused(run_dir, ckpt_dir)
        raise
    finally:
        lock.release()


def _train_locked(cfg, stop, on_step, resume, same_run, variant, features, device, opponents, run_dir, ckpt_dir,
                  command, overrides) -> dict:
    T, E = cfg.train, cfg.eval
    remove_stale_temp_files(ckpt_dir)
    net = build_net_from(resume, features) if resume else build_net(features.size, cfg.model, features)
    if resume is None and cfg.model.get("init"):       # a new run that starts from trained weights
        load_initial_weights(str(cfg.model.init), net, features)
    net = net.to(device)
    optimizer = make_optimizer(net, T)
    scorer = Scorer(net, features, variant, device)
    play = make_executor(cfg, variant, scorer, local=SelfPlay)   # executor=local | ray (docs/ray.md)
    queue = SampleQueue(variant.width, skip=scorer.exact_mask if scorer.bearoff else None)
    c = Counters()
    run_id, launches = uuid.uuid4().hex, []
    if resume:
        optimizer.load_state_dict(resume["optimizer"])
        play.load_state_dict(to_numpy(resume["selfplay"]))
        queue.load_state_dict(to_numpy(resume["queue"]))
        c = Counters(**resume["counters"])
        restore_random_states(resume["rng"])
        if same_run:                                        # the same run continues here
            run_id, launches = resume.get("run_id", run_id), list(resume.get("launches", []))
    launches.append({"started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "games": c.games, "command": list(command or []), "overrides": list(overrides or [])})
    for d in (run_dir, ckpt_dir):
        OmegaConf.save(cfg, d / "config.yaml")
    if not same_run:                      # the overrides a run started with (as Hydra keeps them)
        OmegaConf.save(OmegaConf.create(list(overrides or [])), run_dir / "overrides.yaml")
    OmegaConf.save(OmegaConf.create(launches), run_dir / "launches.yaml")
    from torch.utils.tensorboard import SummaryWriter
    # resuming: drop events logged after the checkpoint (a crash may have left some)
    writer = SummaryWriter(str(run_dir), purge_step=c.games + 1 if resume else None)

    def payload(full: bool = True) -> dict:
        """full: everything to continue the run (latest.pt); else what playing needs."""
        out = {"variant": variant.name, "features": features.describe(), "model": net.shape,
               "net": net.state_dict(), "config": OmegaConf.to_container(cfg, resolve=True),
               "counters": asdict(c), "run_id": run_id, "launches": launches}
        if full:
            out.update({"optimizer": optimizer.state_dict(), "rng": random_states(),
                        "selfplay": play.state_dict(), "queue": queue.state_dict()})
        return out

    saved_at = [None]          # c.steps when latest.pt was last written

    def save_latest() -> None:
        save_checkpoint(ckpt_dir / "latest.pt", payload())
        saved_at[0] = c.steps

    def run_eval(games: int) -> dict:
        """One evaluation; Ctrl-C abandons it (EvalInterrupted, nothing recorded)."""
        net.eval()
        stop.phase = "eval"
        try:
            agent = NeuralAgent(scorer, ply=0, name=f"{cfg.run}@{c.games}")
            res = evaluate(agent, variant, opponents, games, int(E.seed))
            if E.get("records"):                       # sampled self-play games as game records
                write_selfplay_records(agent, variant, int(E.records), int(E.seed),
                                       run_dir / f"selfplay_{c.games:09d}.jsonl")
        finally:
            stop.phase = "step"
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
            save_checkpoint(ckpt_dir / "best.pt", payload(full=False))
        return res

    # plain values from here on: an OmegaConf lookup costs microseconds and a step makes ~20
    T, E = PlainSection.of(T), PlainSection.of(E)
    bar = None
    if cfg.progress:
        from tqdm import tqdm
        bar = tqdm(total=int(T.games), initial=min(c.games, int(T.games)), unit="game",
                   desc=cfg.run, dynamic_ncols=True,     # one speed: ours (training only), in the postfix
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
    window = {"loss": [], "turns": [], "points": [], "t0": time.perf_counter(), "g0": c.games}
    start, latest_eval = time.perf_counter(), ""
    stopped, in_step, final = "games", False, {}
    try:
        while c.games < T.games:
            # -- one lockstep move in every game, then learn from the games that ended --------
            in_step = True
            stop.phase = "in_step" if cfg.executor == "local" else "step"   # Ray steps may wait
            t_step = time.perf_counter()
            epsilon = float(T.epsilon)
            finished = play.step(scorer, epsilon)
            queue.push_games(finished, float(T["lambda"]))
            lr = lr_at(T, c.games)
            ply1 = (float(T.get("ply1_fraction") or 0), float(T.get("ply1_weight", 1.0)))
            while len(queue) >= T.batch_states:
                window["loss"].append(td_update(scorer, optimizer, *queue.pop(int(T.batch_states)), lr=lr,
                                                grad_clip=T.grad_clip, ply1=ply1, loss=str(T.get("loss") or "mse")))
                c.updates += 1
            n_done = int(finished.length.size)
            c.games += n_done
            c.steps += 1
            c.states += int((finished.length - 1).sum())
            c.seconds += time.perf_counter() - t_step
            in_step, stop.phase = False, "step"
            window["turns"] += finished.length.tolist()
            window["points"] += finished.points.tolist()
            if bar is not None and n_done:
                bar.update(min(n_done, int(T.games) - bar.n))
            # -- bookkeeping at fixed game counts (so a resumed run does exactly the same) ----
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
                    bar.set_postfix_str(f"{gps:.0f} games/s {latest_eval}".rstrip())
                window = {"loss": [], "turns": [], "points": [], "t0": time.perf_counter(), "g0": c.games}
            if E.every and c.games >= c.next_eval:
                c.next_eval += int(E.every)
                if c.games > 0 and not stop.set:
                    try:
                        res = run_eval(int(E.games))
                    except EvalInterrupted:
                        pass                        # abandoned; the loop ends below and saves
                    else:
                        latest_eval = " ".join(f"{o}:{r['ppg']:+.2f}" for o, r in res.items() if "ppg" in r)
                        if bar is None:
                            print(f"{cfg.run}: {c.games} games, {c.seconds:.0f} s training, eval "
                                  f"{latest_eval}", flush=True)
                    window["t0"], window["g0"] = time.perf_counter(), c.games
            if T.checkpoint_every and c.games >= c.next_ckpt:
                c.next_ckpt += int(T.checkpoint_every)
                if c.games > 0:
                    save_checkpoint(ckpt_dir / f"games_{c.games:09d}.pt", payload(full=bool(T.full_snapshots)))
                    prune_snapshots(ckpt_dir, T.keep_last)
                    save_latest()
            if on_step is not None:
                on_step(c)
            if stop.set:
                stopped = "second ctrl-c" if stop.hard else "ctrl-c"
                break
            if T.max_minutes and (time.perf_counter() - start) / 60 >= T.max_minutes:
                stopped = "max_minutes"
                break
        if bar is not None:
            bar.close()
            bar = None
        save_latest()                                  # before the final evaluation
        if stop.set:                                   # a Ctrl-C during the last bookkeeping
            stopped = "second ctrl-c" if stop.hard else "ctrl-c"
        if not stop.set and E.final_games:
            try:
                final = run_eval(int(E.final_games))
            except EvalInterrupted:
                stopped = "ctrl-c in the final evaluation (abandoned)"
            else:
                save_latest()                          # now with the final evaluation in its history
    except HardStop:
        stopped = "second ctrl-c"
        if not in_step and saved_at[0] != c.steps:    # a consistent state not yet on disk
            previous = _ignore_sigint()
            try:
                save_latest()
            finally:
                _restore_sigint(previous)
    finally:
        if bar is not None:
            bar.close()
        writer.close()
        play.close()
    summary = {"run": cfg.run, "games": c.games, "updates": c.updates,
               "interrupted": stopped not in ("games", "max_minutes"), "stopped": stopped,
               "seconds": c.seconds, "games_per_s": c.games / max(c.seconds, 1e-9),
               "final_eval": final, "best_ppg": c.best_ppg, "best_games": c.best_games,
               "latest": str(ckpt_dir / "latest.pt"), "run_dir": str(run_dir),
               "latest_saved": saved_at[0] == c.steps, "target_games": int(T.games),
               "max_minutes": T.max_minutes}
    return summary


def _ignore_sigint():
    try:
        return signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:                 # not the main thread: signals are not ours to change
        return None


def _restore_sigint(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


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
            data = load_checkpoint(cfg.resume)
            refuse_ensemble(data)
            saved = data["config"]
        except CheckpointError as e:
            raise cfgmod.ConfigError(str(e)) from None
        cfg = cfgmod.resume_config(saved, argv, cfg)
    cfgmod.validate(cfg)
    return cfg                 # run null / auto: train() picks a fresh name when it starts


HELP = __doc__ + """
Options (Hydra's): -h/--help, -c/--cfg job (print the composed config and exit), -i/--info
[all|config|defaults|searchpath], -m/--multirun (sweep comma-separated values: each combination
is a run of its own, run one after another). Keys cannot be added (+key) or deleted (~key);
hydra.* settings are not used (runs_dir= and checkpoints_dir= say where outputs go).

Default config (every key can be overridden as key=value):
"""


def _fail(message) -> int:
    print(f"abak-rl train: {message}", file=sys.stderr)
    return 2


def prepare_jobs(launch, check_names: bool = True) -> list[tuple[list[str], DictConfig]]:
    """(overrides, checked config) of every run the command line asks for; check_names: refuse
    run names that exist (not for --cfg job, which starts nothing)."""
    job_overrides = jobs(launch.overrides, launch.multirun)
    out = [(ov, prepare_config(ov)) for ov in job_overrides]
    if launch.multirun and len(out) > 1:
        named = [cfg.run for _, cfg in out if cfg.run not in (None, AUTO)]
        if len(named) == len(out) and len(set(named)) == len(named):
            pass                                   # run= is swept: the names given
        elif named:                                # one run= for all: <run>-0, <run>-1, ...
            for i, (_, cfg) in enumerate(out):
                cfg.run = f"{cfg.run}-{i}"
    for _, cfg in out:
        if check_names and cfg.run not in (None, AUTO) and not cfg.resume:
            where = existing(cfg.runs_dir, cfg.checkpoints_dir, cfg.run)
            if where is not None:
                raise RunError(taken_message(cfg.run, where, cfg.checkpoints_dir))
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        launch = parse_argv(argv)
        if launch.help:
            print(HELP + OmegaConf.to_yaml(cfgmod.compose([])))
            return 0
        if launch.info:
            print(info(launch.info, jobs(launch.overrides, launch.multirun)[0]))
            return 0
        todo = prepare_jobs(launch, check_names=not launch.cfg)
    except (cfgmod.ConfigError, CheckpointError, RunError) as e:
        return _fail(e)
    if launch.cfg:
        for i, (ov, cfg) in enumerate(todo):
            if len(todo) > 1:
                print(f"# job {i}: {' '.join(ov)}")
            print(OmegaConf.to_yaml(cfg), end="")
        return 0
    stop = StopFlag()
    previous = signal.signal(signal.SIGINT, stop)
    try:
        for i, (ov, cfg) in enumerate(todo):
            if launch.multirun:
                print(f"[multirun] job {i + 1}/{len(todo)}: {' '.join(ov) or '(defaults)'}", flush=True)
            try:
                summary = train(cfg, stop, command=["abak-rl", "train", *argv], overrides=ov)
            except (CheckpointError, RunError, cfgmod.ConfigError) as e:
                return _fail(e)
            except KeyboardInterrupt:                  # Ctrl-C before the first step
                print("abak-rl train: stopped by Ctrl-C before training began; its files are as they were",
                      file=sys.stderr)
                return 130
            print(format_summary(summary), flush=True)
            if summary["interrupted"]:
                if launch.multirun and i + 1 < len(todo):
                    print(f"[multirun] stopped after job {i + 1} of {len(todo)}")
                return 130
    finally:
        signal.signal(signal.SIGINT, previous)
    return 0


def format_summary(s: dict) -> str:
    why = {"games": f"reached train.games={s['target_games']}",
           "max_minutes": f"reached train.max_minutes={s['max_minutes']}",
           "ctrl-c": "Ctrl-C"}.get(s["stopped"], s["stopped"].replace("ctrl-c", "Ctrl-C"))
    lines = [f"run {s['run']}: stopped ({why}) after {s['games']} games, {s['updates']} updates, "
             f"{s['games_per_s']:.0f} games/s of training"]
    for opp, r in s["final_eval"].items():
        if "ppg" in r:
            lines.append(f"  vs {opp}: {r['ppg']:+.3f} ppg (±{r['ppg_ci95']:.3f}), "
                         f"win rate {r['win_rate']:.1%}")
    folder = Path(s["latest"]).parent
    if s["interrupted"] and s["latest_saved"]:
        lines.append(f"interrupted: saved {s['latest']}; continue with abak-rl train resume={folder}")
    elif s["interrupted"]:
        saved = Path(s["latest"]).is_file()
        lines.append(f"interrupted inside a step: latest.pt not updated"
                     + (f"; continue from the last one with abak-rl train resume={folder}" if saved
                        else "; nothing was saved"))
    else:
        lines.append(f"checkpoints: {folder}  logs: {s['run_dir']} (tensorboard --logdir {s['run_dir']})")
    return "\n".join(lines)
