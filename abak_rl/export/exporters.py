"""A training checkpoint -> weights in a portable format plus a JSON model card.

    export_checkpoint("checkpoints/<run>/best.pt", ["onnx", "safetensors"], "exports/mybot")

writes exports/mybot/model_card.json and model.onnx / model.safetensors / model.ts. The model
card says everything a program needs to use the weights without this project's training code:
variant, feature set (name, version, input size), the meaning and order of the five outputs and
the perspective they are seen from, the network's shape, the training config, games trained and
the latest evaluation results (docs/export.md lists every field).
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch

from .. import inference as inf
from ..features import get_feature_set

FORMATS = ("onnx", "safetensors", "torchscript")
ONNX_OPSET = 17

OUTPUT_MEANING = {
    "p_win": "the player who just moved wins the game (any kind of win)",
    "p_wg": "that player wins a gammon or a backgammon",
    "p_wbg": "that player wins a backgammon",
    "p_lg": "that player loses a gammon or a backgammon",
    "p_lbg": "that player loses a backgammon",
}
PERSPECTIVE = ("The net scores an AFTERSTATE: the position right after a play, seen from the player "
               "who just made it (rows of the move generator, not flipped). Its outputs are that "
               "player's outcome probabilities, the opponent being on roll next (except after "
               "Acey-deucey's 1-2, flagged in the features). To rank plays, encode every legal "
               "afterstate and take the highest equity. The chances of the player to move BEFORE "
               "its roll are swap(net(flip(position))): the position as the opponent's afterstate, "
               "seen back from the other side.")
EQUITY = "2*p_win - 1 + p_wg - p_lg + p_wbg - p_lbg  (cubeless points per game for that player)"
SWAP = "(1 - p_win, p_lg, p_lbg, p_wg, p_wbg)  (the same probabilities seen from the opponent)"
# the classic variants' money cube in short bear-offs (engine/bearoff_cube.py); not Abak's
EXACT_BEAROFFS = ("money play with x by class: positions where both sides have at most six checkers left, "
                  "all in their home boards, take the exact cubeful equities of a two-sided bear-off table "
                  "solved by the trainer (engine/bearoff_cube.py), not Janowski's")
# how abak-rl decides the cube with any net (engine/cube.py, agents/cube_policies.py, docs/cube.md)
CUBE = {
    "probabilities": "the five outputs of the player to move before its roll, swap(net(flip(position)))",
    "money": "Janowski's cubeful equity x * live + (1 - x) * cubeless, the live cube's take and cash "
             "points from the gammon and backgammon rates; double when min(double-take, double-pass) "
             "> no double, take when double-take < double-pass",
    "efficiency": "x by position class (GNU Backgammon's): 0.68 with contact; in a race 0.55 + 0.00125 x "
                  "the pips of the player to move, clamped to 0.6..0.7; 0.6 when both sides bear off",
    "match": "match-winning chances through the match equity table, with gnubg's live-cube cash points "
             "per cube level, dead cubes, the Crawford game and post-Crawford play; checker play at a "
             "match score picks the afterstate with the highest match-winning chance",
    "match_equity_table": "kazaross-xg2 (abak_rl/data/met_kazaross_xg2.json, to 25 points)",
    "ply": "0 by default; evaluate cube_ply=N, hint --ply N and play --ply N look N rolls ahead (N = 1, 2)",
}


def load_checkpoint_net(path: str | Path):
    """(checkpoint data, net in eval mode, feature set) from a checkpoint file or run folder."""
    from ..train.checkpoint import CheckpointError, build_net_from, load_checkpoint
    data = load_checkpoint(path)
    try:
        fs = get_feature_set(data["features"]["name"])
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {data['path']}: bad feature set record "
                              f"{data.get('features')!r}: {e}") from None
    net = build_net_from(data, fs)
    net.eval()
    return data, net, fs


def load_export_net(folder: str | Path):
    """(model card, torch net in eval mode) of an `abak-rl export` folder, from its safetensors
    file: the trainer's own net class (EvalNet, PhasedNet or EnsembleNet, by the card's network
    shape), for tools that need torch on an exported net (benchmarks, studies)."""
    from safetensors.torch import load_file

    from ..model.net import net_from_shape
    folder = Path(folder)
    card = json.loads((folder / inf.CARD_NAME).read_text())
    net = net_from_shape(shape_from_network(card["network"]))
    net.load_state_dict(load_file(str(folder / inf.WEIGHT_FILES["safetensors"])))
    return card, net.eval()


def open_export(folder: str | Path):
    """(model card, torch net) of an export folder for tools that build on its weights (a new
    member of an ensemble, a run's starting point): load_export_net with the files checked first
    and the card's bear-off tag put back on the shape of the net (of each member of an ensemble).
    ValueError says what is missing or unreadable."""
    from ..model.net import EnsembleNet
    folder = Path(folder)
    if not (folder / inf.CARD_NAME).is_file() or not (folder / inf.WEIGHT_FILES["safetensors"]).is_file():
        raise ValueError(f"not an exported model (a folder with {inf.CARD_NAME} and "
                         f"{inf.WEIGHT_FILES['safetensors']})")
    try:
        card, net = load_export_net(folder)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"cannot read the exported model: {' '.join(str(e).split())[:300]}") from None
    tag = (card.get("network") or {}).get("bearoff")
    if tag:
        for m in (net.members if isinstance(net, EnsembleNet) else [net]):
            m.shape["bearoff"] = tag
    return card, net


def variant_options(config: dict) -> dict:
    """get_variant() options recorded in a checkpoint's config (e.g. a non-default start)."""
    v = dict((config or {}).get("variant") or {})
    v.pop("name", None)
    return {k: val for k, val in v.items()
            if val is not None and not (k == "enter_all_before_moving" and val is False)}


def _finite(x):
    """JSON-safe copy: NaN/inf become null, NumPy/torch scalars become numbers."""
    if isinstance(x, dict):
        return {str(k): _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, torch.Tensor):
        x = x.tolist()
        return _finite(x)
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cube_card(variant: str) -> dict:
    """The card's `cube` section: CUBE, and for the classic variants the exact bear-off rule."""
    from ..engine.variants import get_variant
    if getattr(get_variant(variant), "kind", "classic") != "classic":
        return dict(CUBE)
    return {**CUBE, "exact_bearoffs": EXACT_BEAROFFS}


def model_card(data: dict, fs, files: dict[str, Path] | None = None) -> dict:
    """The model card of a loaded checkpoint (files: format -> written file, for checksums)."""
    import abak_rl
    counters = dict(data.get("counters") or {})
    history = list(counters.get("history") or [])
    config = data.get("config") or {}
    shape = dict(data["model"])
    card = {
        "format": inf.CARD_FORMAT,
        "format_version": inf.CARD_FORMAT_VERSION,
        "name": config.get("run") or Path(str(data.get("path", "model"))).parent.name or "model",
        "variant": data["variant"],
        "variant_options": variant_options(config),
        "feature_set": {"name": fs.name, "version": fs.version, "size": fs.size,
                        "board_width": fs.board_width, "variants": list(fs.variants)},
        "input": {"name": inf.INPUT_NAME, "dtype": "float32", "shape": ["batch", fs.size],
                  "encoder": f"abak_rl.features.get_feature_set({fs.name!r}).encode(afterstates, again)"},
        "outputs": {"name": inf.OUTPUT_NAME, "dtype": "float32", "shape": ["batch", len(inf.OUTPUTS)],
                    "order": list(inf.OUTPUTS), "meaning": OUTPUT_MEANING,
                    "cumulative": "gammon includes backgammons: p_win >= p_wg >= p_wbg, "
                                  "1 - p_win >= p_lg >= p_lbg; the raw outputs can break this by a "
                                  "little, so read them clamped: p_wg = min(p_wg, p_win), "
                                  "p_wbg = min(p_wbg, p_wg), p_lg = min(p_lg, 1 - p_win), "
                                  "p_lbg = min(p_lbg, p_lg) (abak-rl does)",
                    "perspective": PERSPECTIVE, "equity": EQUITY, "swap_perspective": SWAP},
        "network": network_card(shape),
        "cube": cube_card(data["variant"]),
        "training": {
            "games": counters.get("games"),
            "updates": counters.get("updates"),
            "states": counters.get("states"),
            "seconds": counters.get("seconds"),
            "config": config,
            **({"distilled": data["distilled"]} if data.get("distilled") else {}),
        },
        "evaluation": {
            "latest": history[-1] if history else None,
            "best_ppg": counters.get("best_ppg"),
            "best_at_games": counters.get("best_games"),
            "history": history,
        },
        "source": {"checkpoint": str(data.get("path")),
                   "checkpoint_format_version": data.get("format_version")},
        "exported": {"at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "abak_rl": getattr(abak_rl, "__version__", None) or _pkg_version(),
                     "torch": torch.__version__},
        "files": {},
    }
    for fmt, p in (files or {}).items():
        card["files"][fmt] = {"path": p.name, "sha256": _sha256(p)}
    return _finite(card)


MLP_TENSORS = ("body.{2i}.weight [out, in] and body.{2i}.bias [out] for i = 0..layers (the last one "
               "is the output layer); y = x @ W.T + b")


ENSEMBLE_RULE = ("the mean of the members' five outputs, each member computed as its own `network` "
                 "section says on the same input row and clamped as `outputs.cumulative` says before "
                 "averaging (the mean is then cumulative too)")


def network_card(shape: dict) -> dict:
    """The model card's `network` section for a net shape (EvalNet, PhasedNet or EnsembleNet,
    model/net.py)."""
    if shape.get("ensemble"):
        members = [network_card({k: v for k, v in m.items() if k != "bearoff"}) for m in shape["ensemble"]]
        net = {"type": "ensemble", "n_inputs": int(shape["n_inputs"]), "n_members": len(members),
               "members": members, "combine": ENSEMBLE_RULE,
               "tensors": "member i's tensors prefixed with members.{i}. (i = 0..n_members-1)"}
        if shape.get("bearoff"):
            net.update(bearoff=shape["bearoff"], bearoff_rule=BEAROFF_RULE)
        return net
    net = {"type": "phased_mlp" if shape.get("phases") else "mlp",
           **{k: shape[k] for k in ("n_inputs", "hidden", "layers", "activation")},
           "output_activation": "sigmoid", "tensors": MLP_TENSORS}
    if shape.get("phases"):
        net.update(phases=list(shape["phases"]), class_unit=int(shape["class_unit"]),
                   tensors="one MLP per phase k (0 = contact, 1 = race): nets.{k}." + MLP_TENSORS,
                   class_rule=f"input unit {int(shape['class_unit'])} > 0.5 (a race: no contact left) -> "
                              "the race net, else the contact net")
    if shape.get("bearoff"):
        net.update(bearoff=shape["bearoff"], bearoff_rule=BEAROFF_RULE)
    return net


BEAROFF_RULE = ("bear-off positions (every checker of both sides in its home board, none on the bar) are "
                "valued by the exact one-sided bear-off database (abak_rl.engine.bearoff.bearoff_probs), "
                "not by the net")


def shape_from_network(net_card: dict) -> dict:
    """The net shape (model/net.py net_from_shape) a model card's `network` section describes."""
    if net_card.get("type") == "ensemble":
        return {"ensemble": [shape_from_network(m) for m in net_card["members"]],
                "n_inputs": net_card["n_inputs"]}
    return {k: net_card[k] for k in ("n_inputs", "hidden", "layers", "activation", "phases", "class_unit")
            if k in net_card}


def _pkg_version() -> str | None:
    try:
        from importlib.metadata import version
        return version("abak-rl")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return None


def export_onnx(net, n_inputs: int, path: Path) -> Path:
    """ONNX with input 'features' [batch, n_inputs] and output 'probs' [batch, 5], dynamic batch."""
    example = torch.zeros(2, n_inputs, dtype=torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (example,), str(path), input_names=[inf.INPUT_NAME],
                          output_names=[inf.OUTPUT_NAME], opset_version=ONNX_OPSET,
                          dynamic_axes={inf.INPUT_NAME: {0: "batch"}, inf.OUTPUT_NAME: {0: "batch"}},
                          dynamo=False)
    import onnx
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    return path


def export_safetensors(net, path: Path, card_summary: dict) -> Path:
    from safetensors.torch import save_file
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous() for k, v in net.state_dict().items()}
    meta = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in card_summary.items()}
    save_file(tensors, str(path), metadata=meta)
    return path


def export_torchscript(net, path: Path) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(net)
        scripted.save(str(path))
    return path


def parse_formats(spec) -> list[str]:
    """'onnx,safetensors' / ['onnx'] / 'all' -> list of formats; a bad name raises ValueError."""
    if isinstance(spec, str):
        items = [s.strip() for s in spec.replace("+", ",").split(",") if s.strip()]
    else:
        items = [str(s).strip() for s in spec]
    if items == ["all"]:
        return list(FORMATS)
    if not items:
        raise ValueError(f"no export format given; choose from {', '.join(FORMATS)} (comma-separated) or all")
    for f in items:
        if f not in FORMATS:
            raise ValueError(f"unknown export format {f!r}; choose from {', '.join(FORMATS)} or all")
    return list(dict.fromkeys(items))


TOLERANCE = 1e-5


def verify_export(out: Path, files: dict[str, Path], net, fs, variant, n: int, seed: int = 0) -> dict:
    """Run every written file on n afterstates from random games and compare with the PyTorch
    net; returns {format: max abs difference}; raises ExportError above TOLERANCE."""
    from .sample import sample_afterstates
    boards, again = sample_afterstates(variant, n, seed)
    x = fs.encode(boards, again)
    want = TorchForward(net)(x)
    network = network_card({"n_inputs": fs.size, **{k: v for k, v in net.shape.items() if k != "n_inputs"}})
    diffs = {}
    for fmt, path in files.items():
        if fmt == "onnx":
            got = inf.OnnxRunner(path)(x)
        elif fmt == "safetensors":
            from safetensors.numpy import load_file
            got = inf.numpy_forward(load_file(str(path)), network)(x)
        else:
            with torch.no_grad():
                got = torch.jit.load(str(path))(torch.from_numpy(x)).numpy()
        diffs[fmt] = float(np.abs(got - want).max())
        if not diffs[fmt] <= TOLERANCE:
            raise inf.ExportError(f"{path}: outputs differ from the PyTorch net by {diffs[fmt]:.2e} "
                                  f"(tolerance {TOLERANCE}) on {n} positions")
    return {"positions": int(n), "tolerance": TOLERANCE, "max_abs_diff": diffs,
            "reference": f"PyTorch {torch.__version__}, afterstates from random {variant.name} games"}


MEASURED_KEYS = ("agent", "opponent", "variant", "games", "seed", "ppg", "ppg_ci95", "win_rate",
                 "win_rate_ci95", "gammon_rate", "lose_gammon_rate")
# a match result (`abak-rl evaluate ... match_length=N`) says how many matches it won, not ppg
MATCH_KEYS = ("agent", "opponent", "variant", "seed", "match_length", "matches", "match_win_rate",
              "match_win_rate_ci95", "games_played", "cube_ply", "met", "agent_cube", "opponent_cube")
# each kind of `abak-rl evaluate` result: the keys that identify it, and those the card keeps
RESULT_KINDS = (({"opponent", "match_length", "matches", "match_win_rate", "match_win_rate_ci95"}, MATCH_KEYS),
                ({"opponent", "games", "ppg", "ppg_ci95"}, MEASURED_KEYS))


def read_measured(paths) -> list[dict]:
    """The `abak-rl evaluate ... out=FILE` results to record in a card's `measured` field."""
    out = []
    for path in paths:
        try:
            d = json.loads(Path(path).read_text())
        except OSError as e:
            raise ValueError(f"measured={path}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"measured={path}: not JSON ({e.msg}, line {e.lineno})") from None
        except UnicodeDecodeError:
            raise ValueError(f"measured={path}: not JSON (not even text)") from None
        keep = next((kept for needed, kept in RESULT_KINDS if isinstance(d, dict) and needed <= d.keys()), None)
        if keep is None:
            raise ValueError(f"measured={path}: not an `abak-rl evaluate` result (needs opponent, games, "
                             f"ppg, ppg_ci95; or a match result's match_length, matches, "
                             f"match_win_rate, match_win_rate_ci95)")
        out.append({k: d[k] for k in keep if k in d})
    return out


def export_checkpoint(checkpoint: str | Path, formats, out: str | Path, verify: int = 200,
                      measured=()) -> dict:
    """Export a checkpoint into folder `out`; returns the model card written there.

    verify: number of positions from random games on which each written file is compared with
    the PyTorch net (0 = no check); the result goes into the card's `verification`.
    measured: `abak-rl evaluate` result files whose figures go into the card's `measured`."""
    from ..engine.variants import get_variant
    formats = parse_formats(formats)
    measured = read_measured(measured)
    if int(verify) < 0:
        raise ValueError(f"verify must be >= 0, got {verify}")
    data, net, fs = load_checkpoint_net(checkpoint)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    summary = {"format": inf.CARD_FORMAT, "variant": data["variant"],
               "feature_set": {"name": fs.name, "version": fs.version, "size": fs.size},
               "network": dict(data["model"]), "outputs": list(inf.OUTPUTS)}
    for fmt in formats:
        path = out / inf.WEIGHT_FILES[fmt]
        if fmt == "onnx":
            files[fmt] = export_onnx(net, fs.size, path)
        elif fmt == "safetensors":
            files[fmt] = export_safetensors(net, path, summary)
        else:
            files[fmt] = export_torchscript(net, path)
    for path in files.values():
        path.chmod(0o644)
    card = model_card(data, fs, files)
    if measured:
        card["measured"] = measured
    if int(verify):
        variant = get_variant(data["variant"], **variant_options(data.get("config") or {}))
        card["verification"] = verify_export(out, files, net, fs, variant, int(verify))
    (out / inf.CARD_NAME).write_text(json.dumps(card, indent=2) + "\n")
    return card


# ----------------------------------------------------------------------------- any model -> Model

class TorchForward:
    """A PyTorch net (EvalNet, PhasedNet, EnsembleNet) as a NumPy callable [N, F] -> [N, 5] (CPU)."""

    def __init__(self, net):
        self.net = net.eval()

    @torch.no_grad()
    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.net(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))).numpy()


def load_model(path: str | Path, variant=None, backend: str = "auto") -> inf.Model:
    """A Model from either an export (folder with model_card.json, .onnx, .safetensors) or a
    training checkpoint (.pt file, or a run folder holding latest.pt).

    variant: variant object or name to play (default: the one the net was trained on).
    """
    from ..engine.variants import get_variant
    p = Path(path)
    is_export = (p.is_dir() and (p / inf.CARD_NAME).is_file()) or p.suffix in (".onnx", ".safetensors")
    if is_export:
        return inf.load_exported(p, backend=backend, variant=variant)
    if not p.exists():
        raise inf.ExportError(f"model not found: {p} (expected a checkpoint .pt file, a run folder "
                              f"or an `abak-rl export` folder)")
    data, net, fs = load_checkpoint_net(p)
    if variant is None:
        variant = get_variant(data["variant"], **variant_options(data.get("config") or {}))
    elif isinstance(variant, str):
        variant = get_variant(variant)
    if variant.name not in fs.variants:
        raise inf.ExportError(f"checkpoint {data['path']} (feature set {fs.name}) cannot play variant "
                              f"{variant.name!r}; it fits {', '.join(fs.variants)}")
    card = model_card(data, fs)
    return inf.Model(TorchForward(net), fs, variant, card=card, source=str(p))
