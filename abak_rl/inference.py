"""Torch-free play with an exported net: NumPy (+ safetensors or onnxruntime) only.

An export folder (made by `abak-rl export`, see docs/export.md) holds a model card
(model_card.json) and the weights in one or more formats (model.safetensors, model.onnx,
model.ts). This module loads the card and either the safetensors weights (a plain NumPy MLP
forward pass) or the ONNX file (onnxruntime), computes the features with the project's NumPy
feature encoders and picks plays at 0-, 1- or 2-ply (abak_rl.agents.search, with move filters).
Nothing here imports torch.

    from abak_rl.inference import load_exported, load_exported_agent
    model = load_exported("checkpoints/pretrained/standard")        # or a .onnx / .safetensors file
    ranked = model.rank_plays(position_row, (3, 1))                  # every legal play, best first
    agent = load_exported_agent("checkpoints/pretrained/standard", variant)  # for the game loop

Perspective (the project's one rule, model/net.py): the net scores an AFTERSTATE seen from the
player who just moved; its five outputs are (p_win, p_wg, p_wbg, p_lg, p_lbg), cumulative
("gammon" includes backgammons), equity = 2 p_win - 1 + p_wg - p_lg + p_wbg - p_lbg.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .agents.search import NO_FILTER, REPLY_FILTER, ROLL_WEIGHTS, ROLLS, ROOT_FILTER  # noqa: F401 (re-exported)
from .agents.search import Search, best_of, check_ply, filter_suffix
from .engine.common import segment_argmax as segment_best
from .model.outcomes import OUTPUTS, cumulative_np, equity, outcome_probs
from .model.outcomes import swap_perspective_np as swap_perspective
CARD_NAME = "model_card.json"
CARD_FORMAT = "abak-rl-model-card"
CARD_FORMAT_VERSION = 1
WEIGHT_FILES = {"safetensors": "model.safetensors", "onnx": "model.onnx", "torchscript": "model.ts"}
INPUT_NAME, OUTPUT_NAME = "features", "probs"
CHUNK = 65_536  # rows per forward pass (Acey-deucey's 1-2 fans out to many afterstates)
# ROLLS / ROLL_WEIGHTS (the 21 rolls the search averages over) come from agents.search.


class ExportError(ValueError):
    """An export folder or file that is missing, malformed, or does not fit what it claims."""


# ----------------------------------------------------------------------------- forward passes

_ACTIVATIONS = {
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0),
    "tanh": np.tanh,
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of a large positive argument overflows to inf, which still gives the right 0.
    with np.errstate(over="ignore"):
        return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


class NumpyMLP:
    """The evaluator's MLP (model/net.py EvalNet) as NumPy matrix products.

    weights: the EvalNet state dict as arrays: body.{2i}.weight [out, in], body.{2i}.bias [out]
    for the hidden layers i = 0..layers-1, then body.{2*layers}.weight/bias (5 outputs).
    """

    def __init__(self, weights: dict, n_inputs: int, hidden: int, layers: int, activation: str):
        if activation not in _ACTIVATIONS:
            raise ExportError(f"unknown activation {activation!r}; expected one of {', '.join(_ACTIVATIONS)}")
        self.n_inputs, self.activation = int(n_inputs), activation
        self.layers: list[tuple[np.ndarray, np.ndarray]] = []
        width = self.n_inputs
        for i in range(int(layers) + 1):
            out = 5 if i == int(layers) else int(hidden)
            w, b = weights.get(f"body.{2 * i}.weight"), weights.get(f"body.{2 * i}.bias")
            if w is None or b is None:
                raise ExportError(f"weights lack layer body.{2 * i} (expected {int(layers)} hidden "
                                  f"layer(s) of {hidden} units and an output layer)")
            if tuple(w.shape) != (out, width) or tuple(b.shape) != (out,):
                raise ExportError(f"layer body.{2 * i} has shape {list(w.shape)} / {list(b.shape)}, "
                                  f"expected {[out, width]} / {[out]}")
            self.layers.append((np.ascontiguousarray(w.T, dtype=np.float32), np.asarray(b, np.float32)))
            width = out
        extra = sorted(set(weights) - {f"body.{2 * i}.{k}" for i in range(int(layers) + 1)
                                       for k in ("weight", "bias")})
        if extra:
            raise ExportError(f"unexpected tensors in the weights: {', '.join(extra)}")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        act = _ACTIVATIONS[self.activation]
        h = np.asarray(x, dtype=np.float32)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                with np.errstate(over="ignore"):
                    h = act(h).astype(np.float32)
        return _sigmoid(h)


class NumpyPhased:
    """PhasedNet (model/net.py) in NumPy: one NumpyMLP per position class, the class read from
    feature unit `class_unit` (1 = race -> the second net, 0 = contact -> the first).

    weights: nets.{k}.body.{2i}.weight / .bias for net k (the PhasedNet state dict)."""

    def __init__(self, weights: dict, n_inputs: int, hidden: int, layers: int, activation: str,
                 phases, class_unit: int):
        if list(phases) != ["contact", "race"]:
            raise ExportError(f"unknown network phases {list(phases)}; expected ['contact', 'race']")
        if not 0 <= int(class_unit) < int(n_inputs):
            raise ExportError(f"class unit {class_unit} is not one of the {n_inputs} inputs")
        self.n_inputs, self.class_unit = int(n_inputs), int(class_unit)
        self.nets = []
        for k in range(len(phases)):
            prefix = f"nets.{k}."
            sub = {name[len(prefix):]: w for name, w in weights.items() if name.startswith(prefix)}
            self.nets.append(NumpyMLP(sub, n_inputs, hidden, layers, activation))
        extra = sorted(n for n in weights if not any(n.startswith(f"nets.{k}.") for k in range(len(phases))))
        if extra:
            raise ExportError(f"unexpected tensors in the weights: {', '.join(extra)}")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float32)
        race = x[:, self.class_unit] > 0.5
        if not race.any():
            return self.nets[0](x)
        if race.all():
            return self.nets[1](x)
        out = np.empty((x.shape[0], len(OUTPUTS)), dtype=np.float32)
        out[~race] = self.nets[0](x[~race])
        out[race] = self.nets[1](x[race])
        return out


class NumpyEnsemble:
    """EnsembleNet (model/net.py) in NumPy: the mean of its members' outputs, each made
    cumulative first (cumulative_np), each member a NumpyMLP or NumpyPhased as the card's
    `network.members[i]` describes.

    weights: members.{i}.<member i's tensor names> (the EnsembleNet state dict)."""

    def __init__(self, weights: dict, members: list):
        if not isinstance(members, list) or len(members) < 2:
            raise ExportError(f"model card network of type ensemble needs a list of at least 2 members, "
                              f"got {members!r}")
        self.members = []
        for i, member in enumerate(members):
            if not isinstance(member, dict) or member.get("type") == "ensemble" or "members" in member:
                raise ExportError(f"ensemble member {i} is not an mlp or phased_mlp network: {member!r}")
            prefix = f"members.{i}."
            sub = {name[len(prefix):]: w for name, w in weights.items() if name.startswith(prefix)}
            if not sub:
                raise ExportError(f"weights lack the tensors of ensemble member {i} ({prefix}...)")
            self.members.append(numpy_forward(sub, member))
        widths = {int(m.n_inputs) for m in self.members}
        if len(widths) != 1:
            raise ExportError(f"ensemble members read different numbers of inputs: {sorted(widths)}")
        self.n_inputs = widths.pop()
        extra = sorted(n for n in weights if not any(n.startswith(f"members.{i}.") for i in range(len(members))))
        if extra:
            raise ExportError(f"unexpected tensors in the weights: {', '.join(extra)}")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float32)
        total = cumulative_np(self.members[0](x))
        for m in self.members[1:]:
            total = total + cumulative_np(m(x))
        return (total / np.float32(len(self.members))).astype(np.float32)


def numpy_forward(weights: dict, network: dict):
    """The NumPy forward pass that a model card's `network` section describes."""
    if network.get("type") == "ensemble" or "members" in network:
        return NumpyEnsemble(weights, network.get("members"))
    args = [network.get(k) for k in ("n_inputs", "hidden", "layers", "activation")]
    if None in args:
        raise ExportError(f"model card network lacks one of n_inputs, hidden, layers, activation: {network}")
    if network.get("phases"):
        if "class_unit" not in network:
            raise ExportError("model card network has phases but no class_unit")
        return NumpyPhased(weights, *args, phases=network["phases"], class_unit=network["class_unit"])
    return NumpyMLP(weights, *args)


def uses_bearoff(network: dict, variant) -> bool:
    """True when bear-off positions are valued by the exact database (engine/bearoff.py)."""
    return bool((network or {}).get("bearoff")) and getattr(variant, "name", None) in ("standard", "nackgammon")


class OnnxRunner:
    """An exported ONNX file run by onnxruntime (CPU): float32 [N, F] 'features' -> [N, 5] 'probs'."""

    def __init__(self, path: str | Path):
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise ExportError("reading an ONNX model needs onnxruntime (pip install onnxruntime)") from e
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
            raise ExportError(f"{path} is not a readable ONNX model: {e}") from None
        names = [i.name for i in self.session.get_inputs()]
        if names != [INPUT_NAME]:
            raise ExportError(f"{path}: expected one input named {INPUT_NAME!r}, found {names}")
        shape = self.session.get_inputs()[0].shape
        self.n_inputs = shape[1] if len(shape) == 2 and isinstance(shape[1], int) else None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        return self.session.run([OUTPUT_NAME], {INPUT_NAME: x})[0]


# ----------------------------------------------------------------------------- the model

def _feature_set(card: dict, where: str):
    from .features import get_feature_set
    rec = card.get("feature_set")
    if not isinstance(rec, dict) or not {"name", "version", "size"} <= set(rec):
        raise ExportError(f"{where}: model card lacks feature_set {{name, version, size}}")
    rec = {"name": rec["name"], "version": rec["version"], "size": rec["size"]}
    try:
        fs = get_feature_set(rec["name"])
        fs.check_compatible(rec, where=where)
    except ValueError as e:
        raise ExportError(str(e)) from None
    return fs


def read_card(path: str | Path) -> dict:
    """Read and check a model card (a model_card.json file or the folder holding one)."""
    p = Path(path)
    if p.is_dir():
        p = p / CARD_NAME
    if not p.is_file():
        raise ExportError(f"model card not found: {p}")
    try:
        card = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ExportError(f"{p} is not a readable JSON model card: {e}") from None
    if not isinstance(card, dict) or card.get("format") != CARD_FORMAT:
        raise ExportError(f"{p} is not an abak-rl model card (no format {CARD_FORMAT!r})")
    if card.get("format_version") != CARD_FORMAT_VERSION:
        raise ExportError(f"{p} has model card version {card.get('format_version')}; this abak-rl "
                          f"reads version {CARD_FORMAT_VERSION}")
    for key in ("variant", "feature_set", "network", "outputs"):
        if key not in card:
            raise ExportError(f"{p}: model card lacks {key!r}")
    if list(card["outputs"].get("order", [])) != list(OUTPUTS):
        raise ExportError(f"{p}: outputs.order is {card['outputs'].get('order')}, expected {list(OUTPUTS)}")
    return card


@dataclass
class RankedPlay:
    """One legal play of a position with its afterstate and its value for the mover."""

    play: str
    board: np.ndarray          # the afterstate, seen from the mover (not flipped)
    probs: np.ndarray          # [5] float, the mover's outcome probabilities
    equity: float
    ply: int = 0               # the depth it was valued at (0 where the root filter dropped it)


class Model:
    """A net plus its feature set and variant: scores afterstates, ranks plays, evaluates
    positions before the roll. `forward` is any callable float32 [N, F] -> [N, 5] (the NumPy MLP,
    onnxruntime, or -- from abak_rl.export -- a PyTorch net)."""

    def __init__(self, forward, feature_set, variant, card: dict | None = None, source: str = ""):
        self.forward, self.features, self.variant = forward, feature_set, variant
        self.card = card or {}
        self.source = source
        self.bearoff = uses_bearoff(self.card.get("network"), variant)

    # -- scoring ----------------------------------------------------------------------------------
    def net_probs(self, boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
        """The net's [N, 5] probabilities of afterstates (float32), made cumulative
        (p_wbg <= p_wg <= p_win, p_lbg <= p_lg <= 1 - p_win), no exact override."""
        boards = np.asarray(boards)
        if again is None:
            again = np.zeros(boards.shape[0], dtype=bool)
        out = np.empty((boards.shape[0], 5), dtype=np.float32)
        for lo in range(0, boards.shape[0], CHUNK):
            hi = min(lo + CHUNK, boards.shape[0])
            out[lo:hi] = cumulative_np(self.forward(self.features.encode(boards[lo:hi], again[lo:hi])))
        return out

    def probs(self, boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
        """[N, 5] probabilities of afterstates, from the player who just moved; exact where the
        play ended the game, and from the bear-off database in bear-off positions when the
        model card's network names it (model/scorer.py does the same in training)."""
        boards = np.asarray(boards)
        if again is None:
            again = np.zeros(boards.shape[0], dtype=bool)
        won = self.variant.winner_points(boards)
        over = won > 0
        db = np.zeros_like(over)
        if self.bearoff:
            from .engine.bearoff import is_bearoff
            db = is_bearoff(boards) & ~over
        live = ~(over | db)
        if live.all():
            return self.net_probs(boards, again)
        out = np.empty((boards.shape[0], 5), dtype=np.float32)
        if live.any():
            out[live] = self.net_probs(boards[live], again[live])
        out[over] = outcome_probs(won[over])
        if db.any():
            from .engine.bearoff import bearoff_probs
            out[db] = bearoff_probs(boards[db])
        return out

    def search(self, root=ROOT_FILTER, reply=REPLY_FILTER) -> Search:
        """The N-ply search over this model's 0-ply probs (agents/search.py)."""
        return Search(self.probs, self.variant, root=root, reply=reply)

    def afterstate_probs(self, after, dice: np.ndarray, ply: int = 0, reply=REPLY_FILTER) -> np.ndarray:
        """Probabilities of every row of `after` (engine.common.Afterstates of positions rolled
        `dice`), from the mover's view, at `ply` (0, 1 or 2; no root filter: every row)."""
        ply = check_ply(ply)
        again = self.variant.extra_turn(np.asarray(dice))[after.parent]
        if ply == 0:
            return self.probs(after.boards, again)
        return self.search(reply=reply).values(after.boards, again, ply).astype(np.float32)

    def one_ply_probs(self, boards: np.ndarray, again: np.ndarray) -> np.ndarray:
        """1-ply: every roll of the next player (the opponent, or the mover again after
        Acey-deucey's 1-2), each answered by that player's best 0-ply play, averaged over the
        21 rolls; returned from the view of the player who made `boards`."""
        return self.search().values(np.asarray(boards), again, 1).astype(np.float32)

    def play_values(self, after, dice: np.ndarray, ply: int = 0, root=ROOT_FILTER, reply=REPLY_FILTER):
        """(probs [M, 5] float32, searched [M] bool) for the root choice: the rows the root
        filter keeps valued at `ply`, the others at 0-ply."""
        ply = check_ply(ply)
        n = np.asarray(dice).reshape(-1, 2).shape[0]
        p, searched = self.search(root, reply).play_values(after, dice, n, ply)
        return np.asarray(p, dtype=np.float32), searched

    def choose(self, before: np.ndarray, dice: np.ndarray, after, ply: int = 0,
               root=ROOT_FILTER, reply=REPLY_FILTER) -> np.ndarray:
        """Best row of `after` per position (the first on equal equity); at ply >= 1 among the
        plays the root filter keeps."""
        ply, n = check_ply(ply), np.asarray(before).shape[0]
        if ply == 0:
            return segment_best(equity(self.afterstate_probs(after, dice, 0)), after.parent, n)
        p, searched = self.search(root, reply).play_values(after, dice, n, ply)
        p = p.astype(np.float32)
        return best_of(equity(p[searched]), np.flatnonzero(searched), after.parent, n)

    def rank_plays(self, row: np.ndarray, dice, ply: int = 0, root=ROOT_FILTER,
                   reply=REPLY_FILTER) -> list[RankedPlay]:
        """Every legal play of one position (seen from the mover) with roll `dice`: the plays
        searched at `ply` best first, then those the root filter dropped (0-ply), best first."""
        ply = check_ply(ply)
        row = self.variant.validate(np.asarray(row, dtype=np.int8).reshape(1, -1))
        d = np.asarray([dice], dtype=np.int8).reshape(1, 2)
        if not ((d >= 1) & (d <= 6)).all():
            raise ValueError(f"dice must be two numbers 1..6, got {list(np.asarray(dice).ravel())}")
        after = self.variant.legal_afterstates(row, d, with_plays=True)
        p, searched = self.search(root, reply).play_values(after, d, 1, ply)
        p = np.asarray(p, dtype=np.float32)
        eq = equity(p.astype(np.float64))
        order = sorted(range(len(after)), key=lambda i: (not searched[i], -eq[i], i))
        return [RankedPlay(after.plays[i], after.boards[i].copy(), p[i].astype(np.float64), float(eq[i]),
                           ply if searched[i] else 0)
                for i in order]

    def pre_roll_probs(self, boards: np.ndarray, ply: int = 0, reply=REPLY_FILTER) -> np.ndarray:
        """[N, 5] probabilities of the player to move, BEFORE its roll.

        0-ply: the position is the opponent's afterstate: flip it, score it, and see the result
        back from the mover (swap_perspective). N-ply: the average over the mover's 21 rolls of
        its best play, chosen and valued at (N-1)-ply (agents/search.py)."""
        boards = np.asarray(boards)
        if boards.ndim == 1:
            boards = boards[None]
        if check_ply(ply) == 0:
            return swap_perspective(self.probs(self.variant.flip(boards)))
        return self.search(reply=reply).pre_roll(boards, ply).astype(np.float32)

    def cube_policy(self, x: float | str = "auto", ply: int = 0):
        """The cube policy evaluate plays with (agents/cube_policies.JanowskiCube) over this
        model: at ply N >= 1 each of the mover's 21 rolls is played (and valued) at N-1 ply."""
        from .agents.cube_policies import JanowskiCube
        return JanowskiCube(lambda variant, boards: self.pre_roll_probs(boards), x=x, ply=ply,
                            afterstate_fn=self.probs)

    def cube_decision(self, row: np.ndarray, owner: int = 0, x: float | str = "auto", ply: int = 0) -> dict:
        """Money cube decision of the player to move before rolling, as evaluate decides it
        (JanowskiCube, engine/cube.py): owner 0 centred, 1 the mover owns the cube, -1 the
        opponent does. x: Janowski's cube efficiency, "auto" = GNU Backgammon's by position
        class (cube.cube_efficiency; short two-sided bear-offs then take the exact values)."""
        from .engine import cube as cube_math
        if isinstance(x, str) and x != "auto":
            raise ValueError(f"cube efficiency must be a number in [0, 1] or auto, got {x!r}")
        board = np.asarray(row)[None]
        policy = self.cube_policy(x, check_ply(ply))
        decision, eq = policy.decide(self.variant, board, cube_math.CubeContext(value=np.array([1]),
                                                                                owner=np.array([owner])))
        probs, exact = policy.last_probs, bool(policy.last_exact[0])
        d = int(decision[0])
        if owner == -1:
            d = -1  # the opponent owns the cube: the mover cannot double
        return {"probs": probs[0].astype(np.float64), "cubeless_equity": float(equity(probs[0])),
                "decision": d, "decision_name": "no double (opponent owns the cube)" if d == -1
                else cube_math.DECISION_NAMES[d],
                "equities": {"no_double": float(eq[0, 0]), "double_take": float(eq[0, 1]),
                             "double_pass": float(eq[0, 2])},
                "efficiency": float(policy.efficiency(self.variant, board)[0]),
                "method": "exact two-sided bear-off" if exact else "janowski"}


class ExportedAgent:
    """An Agent for engine.game.play_games / the evaluation runner, backed by a Model."""

    def __init__(self, model: Model, ply: int = 0, name: str | None = None,
                 root=ROOT_FILTER, reply=REPLY_FILTER):
        self.model, self.ply = model, check_ply(ply)
        self.root, self.reply = root, reply
        self.name = name or (f"export:{model.source}" + (f",ply={ply}" if ply else "")
                             + (filter_suffix(root, reply) if ply else ""))

    def choose(self, variant, before: np.ndarray, dice: np.ndarray, after, utility=None) -> np.ndarray:
        """Best row per position by equity, or by utility(probs, parent) -> [m] when given
        (engine/matchplay.py: match-winning chance at the score), like agents/neural.py."""
        _check_same_variant(self.model.variant, variant)
        if utility is None:
            return self.model.choose(before, dice, after, self.ply, root=self.root, reply=self.reply)
        p, searched = self.model.search(root=self.root, reply=self.reply).play_values(
            after, dice, np.asarray(before).shape[0], self.ply)
        rows = np.flatnonzero(searched)
        return best_of(utility(p[rows], after.parent[rows]), rows, after.parent, np.asarray(before).shape[0])

    def cube_probs(self, variant, boards: np.ndarray) -> np.ndarray:
        """probs_fn for agents.cube_policies.JanowskiCube."""
        _check_same_variant(self.model.variant, variant)
        return self.model.pre_roll_probs(boards)


def _check_same_variant(mine, theirs) -> None:
    if getattr(mine, "name", None) != getattr(theirs, "name", None):
        raise ValueError(f"this agent was set up for variant {mine.name!r}, asked to play "
                         f"{getattr(theirs, 'name', theirs)!r}")


# ----------------------------------------------------------------------------- loading

def _find(path: Path, backend: str) -> tuple[Path, Path, str]:
    """(card file, weights file, backend) for a folder, a .onnx or a .safetensors file."""
    if path.is_dir():
        card = path / CARD_NAME
        if not card.is_file():
            raise ExportError(f"model card not found: {card} (is {path} an `abak-rl export` folder?)")
        if backend == "auto":
            for b in ("safetensors", "onnx"):
                if (path / WEIGHT_FILES[b]).is_file():
                    backend = b
                    break
            else:
                raise ExportError(f"{path} holds neither {WEIGHT_FILES['safetensors']} nor "
                                  f"{WEIGHT_FILES['onnx']} (is it an `abak-rl export` folder?)")
        if backend not in ("safetensors", "onnx"):
            raise ExportError(f"backend must be auto, safetensors or onnx, got {backend!r}")
        return card, path / WEIGHT_FILES[backend], backend
    if not path.exists():
        raise ExportError(f"exported model not found: {path}")
    suffix = {".onnx": "onnx", ".safetensors": "safetensors"}.get(path.suffix)
    if suffix is None:
        raise ExportError(f"{path}: expected an export folder, a .onnx or a .safetensors file")
    if backend not in ("auto", suffix):
        raise ExportError(f"{path} is a {suffix} file; cannot read it with backend {backend!r}")
    return path.parent / CARD_NAME, path, suffix


def load_exported(path: str | Path, backend: str = "auto", variant=None) -> Model:
    """Load an exported model (folder, .onnx or .safetensors with model_card.json beside it).

    backend: 'auto' (safetensors when present, else onnx), 'safetensors' or 'onnx'.
    variant: a variant object to play (default: the card's variant); it must match the card.
    """
    card_path, weights, backend = _find(Path(path), backend)
    card = read_card(card_path)
    fs = _feature_set(card, str(card_path))
    net = card["network"]
    if int(net.get("n_inputs", -1)) != fs.size:
        raise ExportError(f"{card_path}: network has {net.get('n_inputs')} inputs but feature set "
                          f"{fs.name} has {fs.size}")
    if not weights.is_file():
        raise ExportError(f"weights file not found: {weights}")
    if backend == "safetensors":
        try:
            from safetensors.numpy import load_file
        except ImportError as e:
            raise ExportError("reading safetensors weights needs the safetensors package") from e
        try:
            tensors = load_file(str(weights))
        except Exception as e:  # noqa: BLE001 - safetensors raises several kinds
            raise ExportError(f"{weights} is not a readable safetensors file: {e}") from None
        forward = numpy_forward(tensors, net)
    else:
        forward = OnnxRunner(weights)
        if forward.n_inputs not in (None, fs.size):
            raise ExportError(f"{weights} takes {forward.n_inputs} features, the card says {fs.size}")
    from .engine.variants import get_variant
    name = card["variant"]
    if variant is None:
        variant = get_variant(name, **dict(card.get("variant_options") or {}))
    elif isinstance(variant, str):
        variant = get_variant(variant)
    if variant.name not in fs.variants:
        raise ExportError(f"{path} was trained on {name!r} with feature set {fs.name}, which cannot "
                          f"describe variant {variant.name!r} (it fits {', '.join(fs.variants)})")
    return Model(forward, fs, variant, card=card, source=str(path))


def load_exported_agent(path: str | Path, variant=None, ply: int = 0, backend: str = "auto",
                        root=ROOT_FILTER, reply=REPLY_FILTER) -> ExportedAgent:
    """An Agent playing an exported model (the evaluation runner's "export:<path>" / "onnx:<path>");
    root / reply: the move filters of its search (agents/search.py)."""
    return ExportedAgent(load_exported(path, backend=backend, variant=variant), ply=ply, root=root, reply=reply)
