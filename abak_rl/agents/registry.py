"""Agents by name, so the CLI, the trainer and the tournament all spell opponents the same way.

Specs: "random", "pubeval", "heuristic", "gnubg", "checkpoint:<path>[,ply=0|1|2]",
"export:<dir>[,ply=0|1|2]" (an exported model, run torch-free by abak_rl.inference) and
"onnx:<file.onnx>[,ply=0|1|2]" (the same, forced through ONNX Runtime). With ply=1 or 2 the
search's move filters (agents/search.py) may follow: ",k=8,margin=0.16" for the root choice,
",reply_k=2,reply_margin=0.04" for the replies inside 2-ply ("all" / "none" switch one off).
A checkpoint spec may end with ",precision=bf16": the net's hidden layers in bfloat16, about
twice as fast in search, outputs within about 1e-4 (model/bf16.py); and, with ply=1 or 2,
with ",screen=<checkpoint>[,screen_k=8][,screen_margin=M]": a small net screens the deepest 0-ply choices of the
search and the full net values only its best screen_k plays (those within M of the screen's best)
(agents/search.Screen).
"gnubg:plies=0|1|2" is the GNU Backgammon program itself (agents/gnubg_program.py); "gnubg"
alone is the fast gnubg-nn 0-ply net, "gnubg,ply=1|2" the same bindings' own lookahead.
"python:<package.module>:<Class>" is user code: an object with choose(variant, before, dice, after).
"std60" is the earlier shipped standard net (raw td198 inputs, 545,232 games), "std_expert" the
one after it (expert inputs, contact and race nets, 1,000,003 games), "std_e2z" the one after
that (expert2 inputs, one hidden layer of 128 per net, 1,000,000 games), "std_l2" the one
after that (the same with two hidden layers, 1,000,002 games; one of the two members of the
ensemble shipped next), "std_l2l3" the ensemble shipped after it (std_l2 and a net of three
hidden layers, averaged), "std_ens2" the ensemble shipped after that (std_l2 and its
cross-entropy twin std-l2b, averaged: the teacher of the students), "std_stu" the student of
std_ens2 shipped before the current net (its 1-ply values, 4,800,000 labels; the current net is
std_stu fine-tuned on its own 2-ply values), "abak60" the
earlier Abak net (abak_stack inputs, 101,674 games), "acey_pre" the earlier Acey-deucey net
(td198_pool inputs, 5,151 games), kept as named baseline opponents
(checkpoints/pretrained/baselines/, played at 0-ply).
Neural and exported agents are imported only when asked for, so the baselines work without them.
"""

from __future__ import annotations

import importlib

BASELINES = {"std60": "baselines/std60", "std_expert": "baselines/std_expert", "std_e2z": "baselines/std_e2z",
             "std_l2": "baselines/std_l2", "std_l2l3": "baselines/std_l2l3", "std_ens2": "baselines/std_ens2",
             "std_stu": "baselines/std_stu", "abak60": "baselines/abak60", "acey_pre": "baselines/acey_pre"}     # named baseline nets under checkpoints/pretrained/
BUILTIN = ("random", "pubeval", "heuristic", "gnubg", *BASELINES)     # every name make_agent takes alone
PREFIXES = ("checkpoint:", "export:", "onnx:", "gnubg:")


GNUBG_NN = "gnubg,"                     # "gnubg,ply=N": the gnubg-nn bindings' own N-ply search


def gnubg_nn_plies(spec: str) -> int:
    """N of a "gnubg,ply=N" spec (0, 1 or 2); ValueError naming the spec otherwise."""
    key, _, value = spec[len(GNUBG_NN):].partition("=")
    if key.strip() != "ply" or value.strip() not in ("0", "1", "2"):
        raise ValueError(f"agent spec {spec!r}: expected gnubg,ply=0|1|2 (gnubg-nn's own search)")
    return int(value)


def _builtin(name: str, variant, seed: int):
    if name == "random":
        from .random_agent import RandomAgent
        return RandomAgent(seed)
    if name == "pubeval":
        from .pubeval import PubevalAgent
        return PubevalAgent(seed)
    if name == "heuristic":
        from .heuristic import HeuristicAgent
        return HeuristicAgent(seed)
    if name in BASELINES:
        from pathlib import Path

        from ..inference import load_exported_agent
        path = Path(__file__).resolve().parents[2] / "checkpoints" / "pretrained" / BASELINES[name]
        agent = load_exported_agent(path, variant)
        agent.name = name
        return agent
    from .gnubg_agent import GnubgAgent
    return GnubgAgent(variant, seed)


def _load(module: str, func: str, what: str):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise RuntimeError(f"{what} agents are not available yet: module {module} is missing") from exc
    if not hasattr(mod, func):
        raise RuntimeError(f"{what} agents are not available yet: {module}.{func} is missing")
    return getattr(mod, func)


SEARCH_OPTIONS = ("ply", "k", "margin", "reply_k", "reply_margin", "precision", "screen", "screen_k",
                  "screen_margin")


def parse_agent_options(spec: str) -> tuple[str, int, dict]:
    """'<kind>:<path>[,ply=N][,k=..][,margin=..][,reply_k=..][,reply_margin=..][,precision=..]
    [,screen=<small net's checkpoint>][,screen_k=..][,screen_margin=..]' -> (path, ply, filters);
    filters holds 'root' / 'reply' MoveFilters for the options given, and 'precision'
    (model/bf16.py) and 'screen' / 'screen_k' / 'screen_margin' (agents/search.Screen, ply >= 1)
    when given (checkpoint agents only).
    Options are peeled off the end, so a path may itself hold commas."""
    body = spec.partition(":")[2]
    path, opts = body, {}
    while "," in path:
        head, _, opt = path.rpartition(",")
        key, eq, value = opt.partition("=")
        if not eq:
            break                                  # a comma inside the path
        if key.strip() not in SEARCH_OPTIONS:
            raise ValueError(f"bad option {opt!r} in {spec!r}; expected {', '.join(o + '=' for o in SEARCH_OPTIONS)}")
        if key.strip() in opts:
            raise ValueError(f"option {key.strip()} given twice in {spec!r}")
        opts[key.strip()] = value.strip()
        path = head
    if not path:
        raise ValueError(f"agent spec {spec!r} names no checkpoint path")
    ply = 0
    if "ply" in opts:
        if opts["ply"] not in ("0", "1", "2"):
            raise ValueError(f"bad ply {opts['ply']!r} in {spec!r}; expected 0, 1 or 2")
        ply = int(opts.pop("ply"))
    filters = {}
    if "precision" in opts:
        from ..model.bf16 import check_precision
        if not spec.startswith("checkpoint:"):
            raise ValueError(f"{spec!r}: precision= applies to checkpoint: agents (the torch net) only")
        try:
            filters["precision"] = check_precision(opts.pop("precision"))
        except ValueError as e:
            raise ValueError(f"{spec!r}: {e}") from None
    if "screen" in opts or "screen_k" in opts or "screen_margin" in opts:
        if not spec.startswith("checkpoint:"):
            raise ValueError(f"{spec!r}: screen= applies to checkpoint: agents (the torch net) only")
        if "screen" not in opts:
            raise ValueError(f"{spec!r}: screen_k= or screen_margin= needs screen=<checkpoint of the small net>")
        if ply == 0:
            raise ValueError(f"{spec!r}: screen= applies only with ply=1 or ply=2")
        filters["screen"] = opts.pop("screen")
        if "screen_k" in opts:
            raw = opts.pop("screen_k")
            if not raw.isdigit() or int(raw) < 1:
                raise ValueError(f"{spec!r}: screen_k={raw!r}: expected a whole number >= 1")
            filters["screen_k"] = int(raw)
        if "screen_margin" in opts:
            from .search import parse_screen_margin
            raw = opts.pop("screen_margin")
            try:
                filters["screen_margin"] = parse_screen_margin(raw)
            except ValueError:
                raise ValueError(f"{spec!r}: screen_margin={raw!r}: expected a number >= 0") from None
    if opts:
        if ply == 0:
            raise ValueError(f"{spec!r}: move filter options ({', '.join(opts)}) apply only with ply=1 or ply=2")
        from .search import parse_filter_options
        try:
            parsed = parse_filter_options(opts)
        except ValueError as e:
            raise ValueError(f"{spec!r}: {e}") from None
        filters.update(parsed)
    return path, ply, filters


def parse_checkpoint_spec(spec: str) -> tuple[str, int]:
    """'checkpoint:<path>[,ply=N]' -> (path, ply); ply is 0, 1 or 2 (filter options allowed)."""
    path, ply, _ = parse_agent_options(spec)
    return path, ply


def _python_agent(spec: str, variant, seed: int):
    """'python:package.module:Class': Class() built with whichever of variant= and seed= its
    constructor takes; the module is looked up on sys.path and then in the current directory
    (as `python -m` would)."""
    import inspect
    import sys
    module, _, cls = spec[len("python:"):].rpartition(":")
    if not module or not cls:
        raise ValueError(f"agent spec {spec!r}: expected python:<package.module>:<Class>")
    try:
        if "" not in sys.path and "." not in sys.path:
            sys.path.append("")
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"agent spec {spec!r}: cannot import {module}: {exc}") from None
    factory = getattr(mod, cls, None)
    if not callable(factory):
        raise ValueError(f"agent spec {spec!r}: {module} has no class or function {cls!r}")
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    kwargs = {k: v for k, v in (("variant", variant), ("seed", seed)) if k in params}
    agent = factory(**kwargs)
    if not callable(getattr(agent, "choose", None)):
        raise ValueError(f"agent spec {spec!r}: {cls} objects have no choose(variant, before, dice, after)")
    return agent


def make_agent(spec: str, variant, seed: int = 0):
    """The agent a spec names (see module docstring); a bad spec raises ValueError naming it."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if spec in BUILTIN:
        agent = _builtin(spec, variant, seed)
    elif spec.startswith("python:"):
        agent = _python_agent(spec, variant, seed)
    elif spec.startswith("checkpoint:"):
        path, ply, filters = parse_agent_options(spec)
        load = _load("abak_rl.agents.neural", "load_neural_agent", "checkpoint")
        agent = load(path, variant, ply=ply, **filters)
    elif spec.startswith(("onnx:", "export:")):
        kind, _, body = spec.partition(":")
        path, ply, filters = parse_agent_options(spec)   # the same ",ply=N" and filter options
        load = _load("abak_rl.inference", "load_exported_agent", "exported-model")
        agent = load(path, variant, ply=ply, backend="onnx" if kind == "onnx" else "auto", **filters)
    elif spec.startswith(GNUBG_NN):
        from .gnubg_agent import GnubgAgent
        agent = GnubgAgent(variant, seed, plies=gnubg_nn_plies(spec))
    elif spec.startswith("gnubg:"):
        from .gnubg_program import make_program_agent
        agent = make_program_agent(spec, variant, seed)
    else:
        raise ValueError(f"unknown agent {spec!r}; expected one of {', '.join(BUILTIN)}, "
                         f"checkpoint:<path>[,ply=1|2], export:<dir>, onnx:<file> or gnubg:plies=N")
    if not getattr(agent, "name", None):
        agent.name = spec
    return agent
