#!/usr/bin/env python
"""Distil a net's 1-ply search into its 0-ply evaluation: label self-play positions with the
net's own 1-ply values, then fit the net to them (supervised), and write a new checkpoint.

    python scripts/distill_ply1.py CHECKPOINT OUT.pt [--positions 1400000] [--data DIR]
                                   [--epochs 2] [--lr 0.0005] [--batch 256] [--seed 101]
                                   [--all-plays] [--student STUDENT.pt] [--ply 1]
                                   [--label-only] [--data DIR2 ...]

1. Label: the net plays itself (512 games in lockstep, 0-ply, no exploration); every afterstate
   it plays whose value is not exact (finished games and, with the bear-off database, bear-offs
   are skipped) gets its 1-ply value: the next player's 21 rolls, each answered by its best
   0-ply play, averaged (agents/search.py, the search that `ply=1` plays with). With
   `--all-plays` the labels go instead to every legal play of one random roll from each
   position the games meet, the alternatives a net compares when it picks a play. Chunks of 50,000
   afterstates go to DIR (default OUT's name + `.data/`) as .npz files, so a stopped run goes
   on where it stopped; each chunk's games have their own seed.
2. Fit: Adam on 0.5 * sum over the 5 outputs of (net - label)^2, the loss TD learning uses, the
   learning rate falling linearly from --lr to 0 over the epochs; 2% of the labels (at most
   20,000) are held out and their loss is printed before and after each epoch.

Labelling is the slow part (a few hundred labels a second per core), so it can run apart from
the fit: `--label-only` writes DIR's chunks and stops (OUT is not written; run one per core with
its own --seed and DIR), and a later run given `--data` several times fits to all of their
chunks together, in the order given, up to --positions (folders given together must already
hold that many; nothing is labelled then).

`--explore E` makes a share E of the teacher's plays in the labelled games random (its
positions then reach places its own play seldom goes, such as a side closed out with most of
its checkers off); such chunks may be fitted together with the others.

`--student S.pt` fits another net to the labels (another shape, e.g. a wider one made with
`abak-rl train model.hidden=256 train.games=1`; the same variant and feature set), and OUT is
that checkpoint with its fitted weights. The teacher may be an ensemble. `--ply 0` labels with
the teacher's 0-ply values instead (a student that copies the teacher: the control for what
the 1-ply labels add; the same --seed gives the same positions); `--ply 2` with its 2-ply values
(the next player's 21 rolls, each answered by its best play chosen and valued at 1-ply after
the reply filter of agents/search.py), a better teacher at about 40 times the cost of a 1-ply
label: use a smaller `--chunk`, and `--precision bf16` (the teacher's hidden layers in
bfloat16: about 1.5 times as many labels a second, values within about 2e-4). `--reply-k 1`
picks each reply inside the 2-ply value at 0-ply and values only it at 1-ply, as GNU
Backgammon's 2-ply does: about half the cost (each chunk records its reply filter, and a folder
keeps one). `--screen SMALL.pt` lets a small net rank the search's deepest 0-ply choices and
the teacher value only its best `--screen-k` (with `--screen-margin M`, only those within M of
the screen's best; agents/search.Screen; GNU Backgammon's pruning nets): a small net fitted to the teacher's 0-ply with `--ply 0 --student` (docs/training.md).
`--rollout 72x6` labels with the teacher's truncated rollouts instead (agents/rollout.py: 72
trials of 6 half-moves at 0-ply, the first roll stratified, the last afterstate valued by the
net; `4x6vr` with variance reduction; a --screen picks their plays; docs/training.md says what
they cost and how noisy they are).
Each chunk records which of its afterstates are siblings (`group`: one roll's plays from one
position); `--sibling-weight W` adds to the fit's loss W times the error left once each group's
mean error is taken off (measured: no gain at W = 1 or 4; docs/training.md).
Otherwise OUT is the
input checkpoint with the fitted weights (everything else kept), so it plays as
`agent=checkpoint:OUT` and `abak-rl train resume=OUT` continues TD learning from it. This is "learning beyond 0-ply TD" in its
distilled form; docs/BENCHMARKS.md (issue 12) says what it bought the standard net.
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from abak_rl.agents.rollout import rollout_values  # noqa: E402
from abak_rl.model.bf16 import PRECISIONS  # noqa: E402

CHUNK = 50_000


def plays_and_parents(scorer, before: np.ndarray, rng, top: int | None = None,
                      top_margin: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every legal play of one random roll from each position `before` (the mover's view),
    except afterstates whose value is exact (game over; bear-offs with the database); with
    `top`, only each roll's `top` best plays by the teacher's 0-ply equity, the plays a choice
    is really between (so a costly label is spent where it can change a pick), and with
    `top_margin` only those of them within that equity of the roll's best. Also returns each
    play's row in `before`: plays with the same parent are siblings, one roll's alternatives."""
    from abak_rl.agents.search import MoveFilter
    from abak_rl.model.outcomes import equity
    dice = rng.integers(1, 7, size=(len(before), 2)).astype(np.int8)
    after = scorer.variant.legal_afterstates(before, dice)
    live = ~scorer.exact_mask(after.boards)
    b, parent = after.boards[live], after.parent[live]
    if top is not None and len(b):
        eq = equity(scorer.probs(b, np.zeros(len(b), dtype=bool)))
        keep = MoveFilter(top, top_margin).keep(eq, parent, len(before))
        b, parent = b[keep], parent[keep]
    return b, parent


def plays_of(scorer, before: np.ndarray, rng, top: int | None = None,
             top_margin: float | None = None) -> np.ndarray:
    """plays_and_parents' plays alone."""
    return plays_and_parents(scorer, before, rng, top, top_margin)[0]


def played_rows(done) -> tuple[np.ndarray, np.ndarray]:
    """The afterstates the finished games of a SelfPlay step played (each game's final row, its
    result, left out) and their `again` flags."""
    T = done.boards.shape[1]
    played = np.arange(T)[None, :] < (done.length - 1)[:, None]
    return done.boards[played], done.again[played]


def every_play(scorer, rows: np.ndarray, rng, top: int | None = None,
               top_margin: float | None = None, parents: bool = False):
    """plays_of the positions that follow `rows` (afterstates of a variant without extra turns:
    the next player's position is the flip), with their `again` flags (all False), and with
    `parents` each play's position (an index among the positions that follow `rows`)."""
    v = scorer.variant
    b, parent = plays_and_parents(scorer, v.flip(rows)[v.winner_points(rows) == 0], rng, top, top_margin)
    again = np.zeros(len(b), dtype=bool)
    return (b, again, parent) if parents else (b, again)


def check_fit_args(prog: str, args, counts=("positions", "epochs", "batch")) -> str | None:
    """The one-line complaint about a bad count or learning rate of a fitting script, or None."""
    for name in counts:
        if getattr(args, name) < 1:
            return f"{prog}: --{name} must be at least 1"
    if not args.lr > 0:
        return f"{prog}: --lr must be > 0"
    return None


def chunk_afterstates(scorer, seed: int, k: int, chunk: int, all_plays: bool = False, explore: float = 0.0,
                      top: int | None = None, top_margin: float | None = None):
    """The afterstates of chunk k (its games' seed from `seed` and k): `chunk` of them, with
    their `again` flags and each one's `group`, the same number for siblings (the plays of one
    roll from one position, with --all-plays; otherwise every afterstate is its own group).
    The same arguments give the same afterstates, so an old chunk's groups can be found again
    (scripts/regroup_chunks.py)."""
    from abak_rl.train.selfplay import SelfPlay
    play = SelfPlay(scorer.variant, 512, seed=seed * 1_000_003 + k)
    rng = np.random.default_rng(seed * 1_000_003 + k)
    boards, again, groups, n, parents = [], [], [], 0, 0
    while n < chunk:
        rows, turn = played_rows(play.step(scorer, explore))
        if all_plays:
            rows, turn, parent = every_play(scorer, rows, rng, top, top_margin, parents=True)
            width = int(parent.max()) + 1 if len(parent) else 0
        else:
            live = ~scorer.exact_mask(rows)
            rows, turn = rows[live], turn[live]
            parent, width = np.arange(len(rows)), len(rows)
        boards.append(rows)
        again.append(turn)
        groups.append(parents + parent)
        parents += width
        n += len(rows)
    b, a, g = np.concatenate(boards), np.concatenate(again), np.concatenate(groups)
    pick = rng.permutation(len(b))[:chunk] if all_plays else np.arange(min(chunk, len(b)))
    return b[pick], a[pick], g[pick].astype(np.int32)


def label_chunks(agent, data: Path, positions: int, seed: int, chunk: int = CHUNK, progress: bool = True,
                 all_plays: bool = False, ply: int = 1, explore: float = 0.0,
                 top: int | None = None, top_margin: float | None = None,
                 rollout: tuple[int, int, bool] | None = None) -> list[Path]:
    """Write (or reuse) chunk files until they hold `positions` afterstates labelled with the
    teacher's `ply`-level values, or with `rollout` = (trials, depth, variance reduction) its truncated rollouts
    (agents/rollout.py; chunk k's dice from seed * 1000 + k); a reused chunk of another ply,
    rollout, reply filter, screen or choice of plays is an error, not a silent mix.
    With `explore` > 0 the teacher's games make that share of their plays at random, which takes
    them to positions its own play seldom reaches (recorded in the chunk)."""
    from tqdm import tqdm

    scorer = agent.scorer
    data.mkdir(parents=True, exist_ok=True)
    files, have, k = [], 0, 0
    wanted = teacher_label(ply, rollout)
    bar = tqdm(total=positions, unit="pos", desc=f"{wanted} labels", disable=not progress)
    while have < positions:
        path = data / f"chunk{k:04d}.npz"
        if not path.is_file():
            b, a, group = chunk_afterstates(scorer, seed, k, chunk, all_plays, explore, top, top_margin)
            if rollout is None:
                target = agent.values(b, a, ply).astype(np.float32)
            else:
                trials, depth, vr = rollout
                target = rollout_values(agent.search(), b, a, trials, depth, seed=seed * 1000 + k,
                                        variance_reduction=vr).astype(np.float32)
            tmp = path.with_suffix(".tmp.npz")
            np.savez_compressed(tmp, boards=b, again=a, target=target, group=group, ply=np.int64(ply),   # about half the bytes
                                rollout=np.str_(rollout_label(rollout)),
                                explore=np.float64(explore), top=np.int64(top or 0),
                                top_margin=np.float64(-1.0 if top_margin is None else top_margin),
                                precision=np.str_(scorer.precision), reply=np.str_(agent.reply.label()),
                                screen=np.str_(screen_label(agent)))
            tmp.replace(path)                                # a chunk is whole or absent
        n, _ = chunk_ply(path)
        if chunk_teacher(path) != wanted:
            raise ValueError(f"{path} holds {chunk_teacher(path)} labels, not {wanted}: use another --data folder")
        if ply == 2 and rollout is None and chunk_reply(path) != agent.reply.label():
            raise ValueError(f"{path} holds 2-ply labels with the reply filter {chunk_reply(path)}, "
                             f"not {agent.reply.label()}: use another --data folder")
        if (ply >= 1 or rollout) and chunk_screen(path) != screen_label(agent):
            raise ValueError(f"{path} holds labels searched with the screen {chunk_screen(path)}, "
                             f"not {screen_label(agent)}: use another --data folder")
        if all_plays and chunk_plays(path) != plays_label(top, top_margin):
            raise ValueError(f"{path} holds labels of the plays {chunk_plays(path)}, "
                             f"not {plays_label(top, top_margin)}: use another --data folder")
        files.append(path)
        have += n
        bar.update(min(n, positions - bar.n))
        k += 1
    bar.close()
    return files


def read_chunk(path: Path, *names: str) -> dict:
    """The arrays `names` of a chunk file (all of them when none is named; a name the chunk
    lacks is left out); a file that is not a readable chunk with its afterstates and labels is a
    ValueError naming it, not numpy's traceback."""
    try:
        with np.load(path) as z:
            part = {k: z[k] for k in (names or z.files) if k in z.files}
            whole = {"boards", "target"} <= set(z.files)
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path} is not a readable chunk of labels (damaged, or not a .npz archive: "
                         f"{type(e).__name__})") from None
    if not whole:
        raise ValueError(f"{path} is not a chunk of labels: it has no boards or no targets")
    return part


def chunk_ply(path: Path) -> tuple[int, int]:
    """(afterstates, ply) of a chunk file; chunks written before plies were recorded are 1-ply."""
    z = read_chunk(path, "boards", "ply")
    return int(z["boards"].shape[0]), int(z["ply"]) if "ply" in z else 1


def rollout_label(rollout: tuple[int, int, bool] | None) -> str:
    """'72x6' for rollouts of 72 trials of 6 half-moves ('4x6vr' with variance reduction),
    'none' for search labels."""
    return "none" if rollout is None else f"{rollout[0]}x{rollout[1]}" + ("vr" if rollout[2] else "")


def chunk_rollout(path: Path) -> str:
    """rollout_label of a chunk ('none' for search labels and chunks from before rollouts)."""
    z = read_chunk(path, "rollout")
    return str(z["rollout"]) if "rollout" in z else "none"


def teacher_label(ply: int, rollout: tuple[int, int, bool] | None) -> str:
    """What a label is: '2-ply', or 'rollout 72x6' (rollout chunks keep ply 0, the depth of
    the net's own evaluation at their leaves, and say 'rollout' here)."""
    return f"{ply}-ply" if rollout is None else f"rollout {rollout_label(rollout)}"


def chunk_teacher(path: Path) -> str:
    """teacher_label of a chunk: its ply, or its rollout."""
    r = chunk_rollout(path)
    return f"{chunk_ply(path)[1]}-ply" if r == "none" else f"rollout {r}"


def chunk_reply(path: Path) -> str:
    """The reply filter (k/margin) a chunk's 2-ply labels were searched with; chunks written
    before it was recorded used the default, 2/0.04."""
    from abak_rl.agents.search import REPLY_FILTER
    z = read_chunk(path, "reply")
    return str(z["reply"]) if "reply" in z else REPLY_FILTER.label()


def screen_label(agent) -> str:
    """'NAME/k' (or 'NAME/k/margin') of the agent's search screen, 'none' without one."""
    return "none" if agent.screen is None else f"{Path(agent.screen.name).name}/{agent.screen.label()}"


def chunk_screen(path: Path) -> str:
    """The screen a chunk's labels were searched with ('none' for chunks from before screens)."""
    z = read_chunk(path, "screen")
    return str(z["screen"]) if "screen" in z else "none"


def parse_rollout(text: str) -> tuple[tuple[int, int, bool] | None, str | None]:
    """'72x6' -> ((72, 6, False), None), '4x6vr' -> ((4, 6, True), None); anything else ->
    (None, the one-line complaint)."""
    from abak_rl.agents.rollout import check_rollout
    low = text.lower()
    vr = low.endswith("vr")
    trials, sep, depth = (low[:-2] if vr else low).partition("x")
    try:
        if not sep:
            raise ValueError
        return (*check_rollout(int(trials), int(depth)), vr), None
    except ValueError:
        return None, (f"distill_ply1: --rollout takes TRIALSxDEPTH, two whole numbers >= 1, with vr after it "
                      f"for variance reduction (e.g. 72x6, 4x6vr), not {text!r}")


def plays_label(top: int | None, top_margin: float | None) -> str:
    """'all', 'top5' or 'top5/0.05': which of each roll's plays an --all-plays chunk labels."""
    if not top:
        return "all"
    return f"top{top}" if top_margin is None else f"top{top}/{format(top_margin, 'g')}"


def chunk_plays(path: Path) -> str:
    """plays_label of an --all-plays chunk (chunks from before --top-margin have none)."""
    z = read_chunk(path, "top", "top_margin")
    top = int(z["top"]) if "top" in z else 0
    margin = float(z["top_margin"]) if "top_margin" in z else -1.0
    return plays_label(top or None, None if margin < 0 else margin)



def explored_labels(files: list[Path]) -> int:
    """How many of the chunks' labels come from games with random plays (--explore)."""
    n = 0
    for path in files:
        z = read_chunk(path, "explore", "boards")
        if "explore" in z and float(z["explore"]) > 0:
            n += int(z["boards"].shape[0])
    return n





def count_labels(files: list[Path], key, ply: int | None = None) -> dict[str, int]:
    """How many of the chunks' labels have each value of key(path) (a chunk's ply, reply
    filter, screen or choice of plays), counting only chunks of `ply` when it is given:
    {"2": 460000}, {"screen32.pt/6/0.2": 460000}, {"top5/0.05": 460000}."""
    out: dict[str, int] = {}
    for path in files:
        n, had = chunk_ply(path)
        if ply is None or (had == ply and chunk_rollout(path) == "none"):
            out[key(path)] = out.get(key(path), 0) + n
    return out


def labelled_chunks(folders: list[Path], positions: int, teacher: str | None) -> list[Path]:
    """The chunks already in `folders` (in that order), up to `positions` afterstates, all of
    one `teacher` ('2-ply', 'rollout 72x6'; None: any, a mix); too few labels is an error, not a smaller fit."""
    files, have = [], 0
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"--data {folder} is not a folder")
        for path in sorted(folder.glob("chunk[0-9][0-9][0-9][0-9].npz")):
            if have >= positions:
                return files
            n, _ = chunk_ply(path)
            if teacher is not None and chunk_teacher(path) != teacher:
                raise ValueError(f"{path} holds {chunk_teacher(path)} labels, not {teacher} (--any-ply fits a mix)")
            files.append(path)
            have += n
    if have < positions:
        raise ValueError(f"the --data folders hold {have:,} labels, fewer than --positions {positions:,}")
    return files


def sibling_loss(err: torch.Tensor, group: np.ndarray) -> torch.Tensor:
    """0.5 * the sum over outputs of the squared error once each group's mean error is taken off,
    averaged over the rows: the part of the error that can change which sibling is picked."""
    inv = torch.from_numpy(np.unique(group, return_inverse=True)[1].reshape(-1))
    mean = torch.zeros(int(inv.max()) + 1, err.shape[1], dtype=err.dtype).index_add_(0, inv, err)
    mean = mean / torch.bincount(inv).unsqueeze(1).to(err.dtype)
    return 0.5 * ((err - mean[inv]) ** 2).sum(-1).mean()


def fit(scorer, files: list[Path], epochs: int, lr: float, batch: int, seed: int, log=print,
        sibling_weight: float = 0.0) -> dict:
    """Supervised steps toward the labels; returns the held-out loss before and after.
    With `sibling_weight` W > 0 the loss adds W times the same squared error taken after each
    roll's mean is taken off within its siblings (the chunks' `group`), and a batch holds whole
    groups: a play is picked by its value's difference from its siblings', which the plain
    loss weighs no more than the error they share."""
    from abak_rl.model.net import routed
    parts = [read_chunk(f) for f in files]
    if sibling_weight > 0:
        for f, p in zip(files, parts):
            if "group" not in p:
                raise ValueError(f"{f} records no groups (labelled before they were kept): "
                                 f"scripts/regroup_chunks.py finds them, or fit without --sibling-weight")
    boards = np.concatenate([p["boards"] for p in parts])
    again = np.concatenate([p["again"] for p in parts])
    target = torch.from_numpy(np.concatenate([p["target"] for p in parts]))
    x = torch.from_numpy(np.concatenate([scorer.features.encode(boards[i:i + CHUNK], again[i:i + CHUNK])
                                         for i in range(0, len(boards), CHUNK)]))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(boards))
    n_val = min(20_000, len(boards) // 50)
    val, train = torch.from_numpy(order[:n_val]), order[n_val:]
    sibling_group = None
    if sibling_weight > 0:
        chunk_of = np.concatenate([np.full(len(p["boards"]), i, dtype=np.int64) for i, p in enumerate(parts)])
        sibling_group = np.unique(chunk_of << 32 | np.concatenate([p["group"] for p in parts]).astype(np.int64),
                          return_inverse=True)[1].reshape(-1)
    net = scorer.net

    def held_out() -> float:
        with torch.no_grad():
            return float(0.5 * ((routed(net, x[val]) - target[val]) ** 2).sum(-1).mean())

    report = {"samples": int(len(train)), "held_out": int(n_val), "loss_before": held_out(),
              "sibling_weight": float(sibling_weight)}
    log(f"distill_ply1: {len(train):,} labels, {n_val:,} held out; held-out loss {report['loss_before']:.6f}")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = max(len(train) // batch, 1 if len(train) else 0)   # fewer labels than a batch: one smaller step, not none
    total = max(epochs * steps, 1)
    net.train()
    for epoch in range(epochs):
        perm = rng.permutation(train)
        if sibling_group is not None:                # whole groups in a random order, kept together
            key = rng.permutation(int(sibling_group.max()) + 1)[sibling_group[perm]]
            perm = perm[np.argsort(key, kind="stable")]
        for s in range(steps):
            for group in opt.param_groups:
                group["lr"] = lr * (1 - (epoch * steps + s) / total)
            rows = perm[s * batch:(s + 1) * batch]
            idx = torch.from_numpy(rows)
            err = routed(net, x[idx]) - target[idx]
            loss = 0.5 * (err ** 2).sum(-1).mean()
            if sibling_group is not None:
                loss = loss + sibling_weight * sibling_loss(err, sibling_group[rows])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        report[f"loss_epoch{epoch + 1}"] = held_out()
        log(f"distill_ply1: epoch {epoch + 1}/{epochs}, held-out loss {report[f'loss_epoch{epoch + 1}']:.6f}")
    net.eval()
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="distill_ply1.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--positions", type=int, default=1_400_000)
    ap.add_argument("--data", action="append", default=None,
                    help="folder of the labelled chunks (default OUT.data/); given several times, "
                         "the fit uses the chunks of all of them (already labelled)")
    ap.add_argument("--label-only", action="store_true",
                    help="write the labelled chunks and stop, without fitting (OUT is not written)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.0005)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--chunk", type=int, default=CHUNK,
                    help="afterstates per chunk file, the unit a stopped labeller resumes from "
                         "(default 50,000; smaller for the slow 2-ply labels)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--ply", type=int, default=1, choices=(0, 1, 2),
                    help="the teacher's values to learn: 1-ply (default), 2-ply (about 40 times the "
                         "cost of a 1-ply label) or 0-ply (a plain copy, for comparison)")
    ap.add_argument("--all-plays", action="store_true",
                    help="label every legal play of a random roll from each position met, not only the play made")
    ap.add_argument("--explore", type=float, default=0.0,
                    help="share of the teacher's plays made at random in the labelled games (0 to 1): "
                         "positions its own play seldom reaches")
    ap.add_argument("--any-ply", action="store_true",
                    help="fit to the --data folders' chunks whatever their ply (e.g. 2-ply labels "
                         "with 1-ply ones); the checkpoint records how many of each")
    ap.add_argument("--top", type=int, default=None,
                    help="with --all-plays: label only each roll's TOP best plays by the teacher's "
                         "0-ply equity (the plays a choice is between), not every legal play")
    ap.add_argument("--top-margin", type=float, default=None,
                    help="with --top: of each roll's TOP best plays, label only those within this 0-ply "
                         "equity of the best (more positions for the same labels; recorded in each chunk)")
    ap.add_argument("--precision", default="fp32", choices=PRECISIONS,
                    help="the teacher's arithmetic while labelling: bf16 runs its hidden layers in "
                         "bfloat16, about 1.5 times the 2-ply labels a second, values within about 2e-4 "
                         "(recorded in each chunk); the fit is always float32")
    ap.add_argument("--reply-k", default=None,
                    help="with --ply 2: the reply filter's k, the replies searched at 1-ply inside a "
                         "2-ply value (default 2; 1 picks each reply at 0-ply, as GNU Backgammon's "
                         "2-ply does, at about half the cost; recorded in each chunk)")
    ap.add_argument("--reply-margin", default=None,
                    help="with --ply 2: the reply filter's margin (default 0.04; 'none' for any)")
    ap.add_argument("--screen", default=None,
                    help="with --ply 1 or 2: a small net's checkpoint that screens the search's deepest "
                         "0-ply choices, the teacher valuing only its best --screen-k (agents/search.Screen; "
                         "recorded in each chunk, and a folder keeps one)")
    ap.add_argument("--screen-k", type=int, default=8)
    ap.add_argument("--screen-margin", type=float, default=None,
                    help="with --screen: of the screen's best --screen-k, the teacher values only those within "
                         "this equity of the screen's best (about 1.3 times the labels a second at "
                         "--screen-k 6 --screen-margin 0.2; docs/training.md)")
    ap.add_argument("--rollout", default=None, metavar="TRIALSxDEPTH[vr]",
                    help="label with the teacher's truncated rollouts instead of its search: TRIALS trials "
                         "(the first roll stratified over the 36) of DEPTH half-moves at 0-ply, the last "
                         "afterstate valued by the net (agents/rollout.py; e.g. 72x6; 4x6vr: with variance "
                         "reduction; with --ply 0; a --screen picks the rollouts' plays; recorded in each chunk)")
    ap.add_argument("--sibling-weight", type=float, default=0.0,
                    help="weight of the error in each play's difference from its siblings' mean (the "
                         "plays of one roll; chunks that record groups), added to the plain loss; 0: off")
    ap.add_argument("--student", default=None,
                    help="fit this checkpoint's net (e.g. a wider fresh one) to CHECKPOINT's labels; OUT is it")
    args = ap.parse_args(argv)
    bad = check_fit_args("distill_ply1", args, ("positions", "epochs", "batch", "chunk"))
    if bad is None and not 0 <= args.sibling_weight < float("inf"):
        bad = "distill_ply1: --sibling-weight must be a number >= 0"
    if bad is None and not 0 <= args.explore <= 1:
        bad = "distill_ply1: --explore must be between 0 and 1"
    if bad is None and args.any_ply and (args.label_only or not args.data or len(args.data) < 2):
        bad = "distill_ply1: --any-ply fits several --data folders already labelled (not with --label-only)"
    if bad is None and args.top is not None and (args.top < 1 or not args.all_plays):
        bad = "distill_ply1: --top must be at least 1, and needs --all-plays"
    if bad is None and args.top_margin is not None and (args.top is None or not 0 <= args.top_margin < float("inf")):
        bad = "distill_ply1: --top-margin needs --top, and must be a number >= 0"
    reply = {}
    if bad is None and (args.reply_k is not None or args.reply_margin is not None):
        from abak_rl.agents.search import parse_filter_options
        try:
            if args.ply != 2:
                raise ValueError("--reply-k and --reply-margin apply only with --ply 2")
            reply = parse_filter_options({k: v for k, v in (("reply_k", args.reply_k),
                                                             ("reply_margin", args.reply_margin)) if v is not None})
        except ValueError as e:
            bad = f"distill_ply1: {e}"
    rollout = None
    if bad is None and args.rollout is not None:
        rollout, bad = parse_rollout(args.rollout)
        if bad is None and (args.ply != 0 or reply):
            bad = "distill_ply1: --rollout labels by rollouts, not search: give it with --ply 0 and no reply filter"
    if bad is None and args.screen is not None and ((args.ply < 1 and rollout is None) or args.screen_k < 1):
        bad = "distill_ply1: --screen applies only with --ply 1 or 2 or --rollout, and --screen-k must be at least 1"
    if bad is None and args.screen_margin is not None and (
            args.screen is None or not 0 <= args.screen_margin < float("inf")):
        bad = "distill_ply1: --screen-margin needs --screen, and must be a number >= 0"
    if bad:
        print(bad, file=sys.stderr)
        return 2
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
    torch.set_num_threads(1)
    out = Path(args.out)
    try:
        data = load_checkpoint(args.checkpoint)
        agent = load_neural_agent(args.checkpoint, data["variant"], precision=args.precision,
                                  screen=args.screen, screen_k=args.screen_k,
                                  screen_margin=args.screen_margin, **reply)
        student_data, student = data, agent
        if args.student:
            student_data = load_checkpoint(args.student)
            student = load_neural_agent(args.student, student_data["variant"])
            for what, a, b in (("variant", data["variant"], student_data["variant"]),
                               ("feature set", agent.scorer.features.name, student.scorer.features.name)):
                if a != b:
                    raise ValueError(f"--student {args.student} plays {what} {b!r}, the teacher {a!r}")
        if args.all_plays and agent.scorer.variant.name == "acey_deucey":
            raise ValueError("--all-plays needs a variant without extra turns (not acey_deucey)")
        if not out.parent.is_dir():
            raise CheckpointError(f"cannot write {out}: {out.parent} is not a folder")
    except (CheckpointError, ValueError) as e:
        print(f"distill_ply1: {e}", file=sys.stderr)
        return 2
    folders = [Path(d) for d in args.data] if args.data else [out.with_name(out.name + ".data")]
    try:
        if len(folders) > 1 and args.label_only:
            raise ValueError("--label-only writes one --data folder, not several")
        if len(folders) == 1:
            files = label_chunks(agent, folders[0], args.positions, args.seed, args.chunk, not args.no_progress,
                                 all_plays=args.all_plays, ply=args.ply, explore=args.explore, top=args.top,
                                 top_margin=args.top_margin, rollout=rollout)
        else:
            files = labelled_chunks(folders, args.positions, None if args.any_ply else teacher_label(args.ply, rollout))
    except ValueError as e:
        print(f"distill_ply1: {e}", file=sys.stderr)
        return 2
    if args.label_only:
        print(f"distill_ply1: {len(files)} chunks of {teacher_label(args.ply, rollout)} labels in {folders[0]}")
        return 0
    try:
        report = fit(student.scorer, files, args.epochs, args.lr, args.batch, args.seed,
                     sibling_weight=args.sibling_weight)
    except ValueError as e:
        print(f"distill_ply1: {e}", file=sys.stderr)
        return 2
    new = {k: v for k, v in student_data.items() if k != "path"}
    new["net"] = student.scorer.net.state_dict()
    # a new net, a student or a fine-tune: named after OUT (its folder for a run's latest.pt), not
    # the fresh run or the teacher it came from (an export's card takes its name from here)
    new["config"] = {**(new.get("config") or {}), "run": out.parent.name if out.name == "latest.pt" else out.stem}
    by_ply = count_labels(files, lambda path: str(chunk_ply(path)[1]))
    teachers = count_labels(files, chunk_teacher)
    if len(teachers) > 1:
        kind = "mixed"
    elif chunk_rollout(files[0]) != "none":
        kind = "rollout"
    else:
        kind = int(next(iter(by_ply)))
    # the fits this net went through before (a fine-tune of a student keeps the student's own
    # record, so its card says every step: the teacher's 1-ply labels, then its own 2-ply ones)
    before = student_data.get("distilled")
    earlier = [] if not before else [{k: v for k, v in before.items() if k != "earlier"},
                                     *before.get("earlier", [])]
    new["distilled"] = {"from": str(data["path"]), "ply": kind,
                        "labels_by_ply": by_ply, "labels_by_teacher": teachers,
                        "rollouts": count_labels(files, chunk_rollout),
                        "two_ply_replies": count_labels(files, chunk_reply, ply=2),
                        "screens": count_labels(files, chunk_screen),
                        "plays": count_labels(files, chunk_plays), "positions": args.positions, "epochs": args.epochs,
                        "lr": args.lr, "batch": args.batch, "seed": args.seed, "all_plays": args.all_plays,
                        "explored_labels": explored_labels(files),
                        "student": str(student_data["path"]) if args.student else None, **report,
                        **({"earlier": earlier} if earlier else {})}
    save_checkpoint(out, new)
    print(f"distill_ply1: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
