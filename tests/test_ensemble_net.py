"""EnsembleNet: several nets averaged as one model, from scripts/combine_nets.py to every export."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from abak_rl import inference as inf
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import get_feature_set
from abak_rl.model.net import EnsembleNet, EvalNet, PhasedNet, cumulative, net_from_shape
from abak_rl.train.checkpoint import CheckpointError, build_net_from, load_checkpoint, save_checkpoint
from abak_rl.train.run import main as train_main

from test_train import tiny

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
START_ID = "4HPwATDgc/ABMA"   # GNU Backgammon's Position ID of the standard start
EXPERT = get_feature_set("expert")


def _spread(net, seed):
    """Random weights spread out (outputs over (0, 1)), so that a wrong net shows."""
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.randn_like(p) * 0.3)
    return net.eval()


def _members(fs=EXPERT):
    """A contact/race PhasedNet and a two-layer EvalNet on the same inputs."""
    a = _spread(PhasedNet(fs.size, fs.class_unit, hidden=8), 1) if fs.class_unit is not None else \
        _spread(EvalNet(fs.size, hidden=8), 1)
    b = _spread(EvalNet(fs.size, hidden=6, layers=2, activation="tanh"), 2)
    return a, b


def _rows(fs=EXPERT, n=600, seed=4):
    boards, again = sample_afterstates(get_variant("standard"), n, seed=seed)
    return boards, again, fs.encode(boards, again)


def _cum(y):
    return cumulative(torch.from_numpy(y)).numpy()


def _outputs(net, x):
    with torch.no_grad():
        return net(torch.from_numpy(x)).numpy()


def test_forward_is_the_mean_of_the_members_and_the_shape_rebuilds_it():
    a, b = _members()
    ens = EnsembleNet([a, b]).eval()
    _, _, x = _rows()
    race = x[:, EXPERT.class_unit] > 0.5
    assert 0 < race.sum() < race.size                      # both phase nets of member a are used
    ya, yb, y = _outputs(a, x), _outputs(b, x), _outputs(ens, x)
    # the mean of the members' outputs, each made cumulative (what play reads of one net)
    np.testing.assert_allclose(y, (_cum(ya) + _cum(yb)) / 2, atol=1e-6, rtol=0)
    assert np.abs(y - (ya + yb) / 2).max() > 1e-3         # these random nets break the order a lot
    assert np.abs(y - ya).max() > 1e-2 and np.abs(y - yb).max() > 1e-2
    with torch.no_grad():
        np.testing.assert_allclose(ens.forward_routed(torch.from_numpy(x)).numpy(), y, atol=1e-6, rtol=0)
    assert ens.shape == {"ensemble": [a.shape, b.shape], "n_inputs": EXPERT.size}
    again = net_from_shape(ens.shape)
    assert isinstance(again, EnsembleNet) and again.shape == ens.shape
    again.load_state_dict(ens.state_dict())
    np.testing.assert_allclose(_outputs(again.eval(), x), y, atol=0, rtol=0)
    assert not hasattr(ens, "nets")                        # Scorer takes a net with .nets for a PhasedNet


def test_bad_ensembles_are_refused():
    with pytest.raises(ValueError, match="same inputs"):
        EnsembleNet([EvalNet(240, hidden=4), EvalNet(198, hidden=4)])
    with pytest.raises(ValueError, match="at least 2"):
        EnsembleNet([EvalNet(240, hidden=4)])
    a, b = EvalNet(240, hidden=4), EvalNet(240, hidden=4)
    a.shape["bearoff"], b.shape["bearoff"] = "db-one", "db-two"
    with pytest.raises(ValueError, match="different bear-off"):
        EnsembleNet([a, b])
    # the database is used as soon as one member relies on it (its net learnt no bear-off values)
    b.shape.pop("bearoff")
    assert EnsembleNet([a, b]).shape["bearoff"] == "db-one"
    with pytest.raises(ValueError, match="inputs"):
        net_from_shape({"ensemble": [a.shape, b.shape], "n_inputs": 198})


def test_packed_scoring_is_the_dense_mean():
    """The expert set packs its rows: the ensemble is scored packed, member by member."""
    from abak_rl.model.packed import packed_forward, supports
    from abak_rl.model.scorer import Scorer
    ens = EnsembleNet(_members()).eval()
    assert supports(ens)
    cpu = torch.device("cpu")
    scorer = Scorer(ens, EXPERT, get_variant("standard"), cpu)
    assert scorer.packing is not None
    boards, again, x = _rows()
    want = _outputs(ens, x)
    got = packed_forward(ens, EXPERT.packing, EXPERT.packing.pack(boards, again), cpu).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(scorer.net_probs(boards, again), cumulative(torch.from_numpy(want)).numpy(),
                               atol=1e-5, rtol=0)
    ya = packed_forward(ens.members[0], EXPERT.packing, EXPERT.packing.pack(boards, again), cpu).numpy()
    assert np.abs(got - ya).max() > 1e-2


def test_dense_scoring_of_an_ensemble_without_packing():
    from abak_rl.model.scorer import Scorer
    fs = get_feature_set("td198")
    assert fs.packing is None
    ens = EnsembleNet(_members(fs)).eval()
    boards, again, x = _rows(fs)
    scorer = Scorer(ens, fs, get_variant("standard"), torch.device("cpu"))
    np.testing.assert_allclose(scorer.net_probs(boards, again),
                               cumulative(torch.from_numpy(_outputs(ens, x))).numpy(), atol=1e-6, rtol=0)


# ----------------------------------------------------------------------------- combine_nets.py

@pytest.fixture(scope="module")
def combined(tmp_path_factory):
    """Two short runs (a contact/race net and a one-net model), and their ensemble."""
    import combine_nets
    d = tmp_path_factory.mktemp("ens")
    assert train_main(tiny(d / "a", "train.games=32", "seed=1")) == 0
    assert train_main(tiny(d / "b", "train.games=32", "seed=2", "model.phases=single", "model.layers=2")) == 0
    a, b = d / "a" / "ckpt" / "t" / "latest.pt", d / "b" / "ckpt" / "t" / "latest.pt"
    out = d / "made" / "ens.pt"
    assert combine_nets.main([str(out), str(a), str(b)]) == 0
    return a, b, out


def test_combined_checkpoint_scores_the_members_mean(combined, capsys):
    from abak_rl.agents.neural import load_neural_agent
    a, b, out = combined
    data = load_checkpoint(out)
    assert not [p.name for p in out.parent.iterdir() if p.name != out.name]     # no temporary file left
    net = build_net_from(data, EXPERT).eval()
    assert isinstance(net, EnsembleNet) and len(net.members) == 2
    assert [m["checkpoint"] for m in data["config"]["ensemble"]["members"]] == [str(a), str(b)]
    games = [load_checkpoint(p)["counters"]["games"] for p in (a, b)]
    assert [m["games"] for m in data["config"]["ensemble"]["members"]] == games
    assert data["counters"]["games"] == sum(games) and data["model"]["bearoff"]
    v = get_variant("standard")
    boards, again, _ = _rows(n=300)
    pa, pb = (load_neural_agent(p, v).scorer.net_probs(boards, again) for p in (a, b))
    pe = load_neural_agent(out, v).scorer.net_probs(boards, again)
    # the mean of what each member plays by (its outputs made cumulative), as scripts/ensemble_match.py
    np.testing.assert_allclose(pe, (pa.astype(np.float64) + pb) / 2, atol=1e-6, rtol=0)
    assert np.abs(pe - pa).max() > 1e-3 and np.abs(pe - pb).max() > 1e-3
    # evaluate plays it like any checkpoint
    from abak_rl.cli import main
    capsys.readouterr()
    assert main(["evaluate", f"agent=checkpoint:{out}", "opponent=random", "games=2", "seed=1"]) == 0
    assert f"checkpoint:{out} vs random" in capsys.readouterr().out


def test_training_refuses_to_resume_an_ensemble(combined, tmp_path, capsys):
    _, _, out = combined
    capsys.readouterr()
    assert train_main([f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=r",
                       f"resume={out}", "train.games=64", "progress=false"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is an ensemble of 2 nets" in err[0] and "not for training" in err[0]
    assert not (tmp_path / "ckpt" / "r").exists()


def test_widening_refuses_an_ensemble_in_one_line(combined, tmp_path, capsys):
    import widen_net
    _, _, out = combined
    capsys.readouterr()
    assert widen_net.main([str(out), str(tmp_path / "w.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is an ensemble of 2 nets" in err[0]
    assert not (tmp_path / "w.pt").exists()


def test_export_all_formats_give_the_torch_ensemble(combined, tmp_path):
    from abak_rl.export.exporters import export_checkpoint, load_export_net
    _, _, out = combined
    card = export_checkpoint(out, "all", tmp_path / "x", verify=100)
    net = card["network"]
    assert net["type"] == "ensemble" and net["n_members"] == 2 and net["n_inputs"] == EXPERT.size
    assert [m["type"] for m in net["members"]] == ["phased_mlp", "mlp"] and net["bearoff"]
    assert card["verification"]["max_abs_diff"].keys() == {"onnx", "safetensors", "torchscript"}
    assert len(card["training"]["config"]["ensemble"]["members"]) == 2 and card["name"] == "ens"
    ens = build_net_from(load_checkpoint(out), EXPERT).eval()
    _, _, x = _rows(n=800, seed=9)
    want = _outputs(ens, x)
    assert np.abs(want - _outputs(ens.members[0], x)).max() > 1e-3
    model = inf.load_exported(tmp_path / "x")                 # NumPy, from the safetensors file
    assert isinstance(model.forward, inf.NumpyEnsemble) and model.bearoff
    np.testing.assert_allclose(model.forward(x), want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(inf.OnnxRunner(tmp_path / "x" / "model.onnx")(x), want, atol=1e-5, rtol=0)
    with torch.no_grad():
        ts = torch.jit.load(str(tmp_path / "x" / "model.ts"))
        np.testing.assert_allclose(ts(torch.from_numpy(x)).numpy(), want, atol=1e-5, rtol=0)
    card2, back = load_export_net(tmp_path / "x")
    assert isinstance(back, EnsembleNet)
    np.testing.assert_allclose(_outputs(back, x), want, atol=1e-6, rtol=0)


def test_numpy_ensemble_refuses_weights_that_do_not_fit(combined, tmp_path):
    from abak_rl.export.exporters import export_checkpoint
    from safetensors.numpy import load_file
    _, _, out = combined
    card = export_checkpoint(out, "safetensors", tmp_path / "x", verify=0)
    w = load_file(str(tmp_path / "x" / "model.safetensors"))
    with pytest.raises(inf.ExportError, match="member 1"):
        inf.numpy_forward({k: v for k, v in w.items() if not k.startswith("members.1.")}, card["network"])
    with pytest.raises(inf.ExportError, match="unexpected tensors"):
        inf.numpy_forward({**w, "members.2.body.0.weight": w["members.1.body.0.weight"]}, card["network"])


def test_hint_and_play_on_an_exported_ensemble(combined, tmp_path):
    from abak_rl.export.cli import hint_main
    from abak_rl.export.exporters import TorchForward, export_checkpoint
    from test_play import Human
    from abak_rl.export.cli import play_main
    _, _, out = combined
    export_checkpoint(out, "safetensors,onnx", tmp_path / "x", verify=0)
    runs = {}
    for model in (tmp_path / "x", out):
        buf = io.StringIO()
        assert hint_main(["--model", str(model), "--position-id", START_ID, "--dice", "3", "1", "--json"],
                         stdout=buf) == 0
        runs[str(model)] = json.loads(buf.getvalue())
    h = runs[str(tmp_path / "x")]
    torch_model = inf.Model(TorchForward(build_net_from(load_checkpoint(out), EXPERT)), EXPERT,
                            get_variant("standard"), card=inf.read_card(tmp_path / "x"))
    best = torch_model.rank_plays(get_variant("standard").initial_boards(1)[0], (3, 1))[0]
    assert h["plays"][0]["equity"] == pytest.approx(best.equity, abs=1e-5)
    assert [p["equity"] for p in runs[str(out)]["plays"]] == pytest.approx([p["equity"] for p in h["plays"]],
                                                                           abs=1e-5)
    buf = io.StringIO()
    assert play_main(["--model", str(tmp_path / "x"), "--seed", "3"], stdin=Human(buf, limit=6), stdout=buf) == 0
    assert "Opening roll" in buf.getvalue()


def test_combine_takes_an_exported_model_member_by_member(combined, tmp_path):
    """export:DIR gives each member of an exported ensemble: a shipped model takes one more net
    (its members' training checkpoints need not exist), or goes back to a checkpoint as it is."""
    import combine_nets
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.export.exporters import export_checkpoint
    a, b, out = combined
    export_checkpoint(out, "safetensors", tmp_path / "x", verify=0)
    c = _random_checkpoint(tmp_path / "c.pt", seed=3)
    three, back = tmp_path / "three.pt", tmp_path / "back.pt"
    assert combine_nets.main([str(three), f"export:{tmp_path / 'x'}", str(c)]) == 0
    assert combine_nets.main([str(back), f"export:{tmp_path / 'x'}"]) == 0
    data = load_checkpoint(three)
    members = data["config"]["ensemble"]["members"]
    assert [m["checkpoint"] for m in members] == [f"export:{tmp_path / 'x'} member 0",
                                                  f"export:{tmp_path / 'x'} member 1", str(c)]
    games = [load_checkpoint(p)["counters"]["games"] for p in (a, b, c)]
    assert [m["games"] for m in members] == games and data["counters"]["games"] == sum(games)
    assert data["model"]["bearoff"] and len(data["model"]["ensemble"]) == 3
    v = get_variant("standard")
    boards, again, _ = _rows(n=300)
    pa, pb, pc, p3, pback, pout = (load_neural_agent(p, v).scorer.net_probs(boards, again)
                                   for p in (a, b, c, three, back, out))
    np.testing.assert_allclose(p3, (pa.astype(np.float64) + pb + pc) / 3, atol=1e-6, rtol=0)
    np.testing.assert_allclose(pback, pout, atol=1e-6, rtol=0)
    assert np.abs(p3 - pout).max() > 1e-3


def _random_checkpoint(path, variant="standard", features="expert", seed=0):
    fs = get_feature_set(features)
    net = _spread(EvalNet(fs.size, hidden=4), seed)
    save_checkpoint(path, {"variant": variant, "features": fs.describe(), "model": net.shape,
                           "net": net.state_dict(), "config": {"run": path.stem, "variant": {"name": variant}},
                           "counters": {"games": 10}})
    return path


@pytest.mark.parametrize("case, message", [
    ("missing", "checkpoint not found"),
    ("corrupt", "not a readable abak-rl checkpoint"),
    ("variants", "same variant"),
    ("features", "same feature set"),
    ("one", "at least 2 member"),
    ("none", "the following arguments are required"),
    ("out_is_folder", "it is a folder"),
    ("out_under_a_file", "is not a folder"),
    ("out_is_a_member", "it is one of the members"),
    ("twice", "give each member once"),
    ("member_is_ensemble", "already an ensemble"),
    ("not_an_export", "not an exported model"),
])
def test_combine_bad_input_is_one_line_and_exit_2(tmp_path, capsys, case, message):
    import combine_nets
    a = _random_checkpoint(tmp_path / "a.pt", seed=1)
    b = _random_checkpoint(tmp_path / "b.pt", seed=2)
    out = tmp_path / "out.pt"
    args = {
        "missing": [out, a, tmp_path / "nope.pt"],
        "corrupt": [out, a, tmp_path / "bad.pt"],
        "variants": [out, a, _random_checkpoint(tmp_path / "n.pt", variant="nackgammon")],
        "features": [out, a, _random_checkpoint(tmp_path / "t.pt", features="td198")],
        "one": [out, a],
        "none": [out],
        "out_is_folder": [tmp_path, a, b],
        "out_under_a_file": [a / "x.pt", a, b],
        "out_is_a_member": [a, a, b],
        "twice": [out, a, tmp_path / "." / "a.pt"],
        "member_is_ensemble": [out, a, tmp_path / "e.pt"],
        "not_an_export": [out, a, f"export:{tmp_path}"],
    }[case]
    (tmp_path / "bad.pt").write_bytes(b"PK\x03\x04 not really a checkpoint")
    if case == "member_is_ensemble":
        assert combine_nets.main([str(tmp_path / "e.pt"), str(a), str(b)]) == 0
    capsys.readouterr()
    before = a.read_bytes()
    assert combine_nets.main([str(p) for p in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("combine_nets: ") and message in err[0], err
    assert "Traceback" not in err[0] and not out.exists() and a.read_bytes() == before


def test_combine_turns_one_exported_net_back_into_a_checkpoint(tmp_path, capsys):
    """export:DIR of a single net (the shipped standard model is one) alone gives that net as a
    checkpoint: the same outputs, its recorded games, usable as an agent; resuming it is refused
    in one line (no optimizer or self-play state)."""
    import combine_nets
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.export.exporters import export_checkpoint
    from abak_rl.train.run import check_resumable
    a = _random_checkpoint(tmp_path / "a.pt", seed=1)
    export_checkpoint(a, "safetensors", tmp_path / "x1", verify=0)
    back = tmp_path / "back.pt"
    assert combine_nets.main([str(back), f"export:{tmp_path / 'x1'}"]) == 0
    assert "1 net (10 games trained in all)" in capsys.readouterr().out
    data = load_checkpoint(back)
    assert "ensemble" not in data["model"] and data["counters"]["games"] == 10
    assert data["config"]["exported_from"] == f"export:{tmp_path / 'x1'}"
    boards, again, _ = _rows(n=300)
    v = get_variant("standard")
    pa, pback = (load_neural_agent(p, v).scorer.net_probs(boards, again) for p in (a, back))
    np.testing.assert_allclose(pback, pa, atol=1e-6, rtol=0)
    with pytest.raises(CheckpointError, match="playing snapshot"):
        check_resumable(data)


def test_combine_takes_one_member_of_an_exported_ensemble(combined, tmp_path, capsys):
    """export:DIR#K is member K alone: one member of a shipped pair swapped for another net."""
    import combine_nets
    from abak_rl.agents.neural import load_neural_agent
    from abak_rl.export.exporters import export_checkpoint
    a, b, out = combined
    export_checkpoint(out, "safetensors", tmp_path / "x", verify=0)
    c = _random_checkpoint(tmp_path / "c.pt", seed=3)
    swapped = tmp_path / "swapped.pt"
    assert combine_nets.main([str(swapped), f"export:{tmp_path / 'x'}#1", str(c)]) == 0
    members = load_checkpoint(swapped)["config"]["ensemble"]["members"]
    assert [m["checkpoint"] for m in members] == [f"export:{tmp_path / 'x'} member 1", str(c)]
    v = get_variant("standard")
    boards, again, _ = _rows(n=300)
    pb, pc, ps = (load_neural_agent(p, v).scorer.net_probs(boards, again) for p in (b, c, swapped))
    np.testing.assert_allclose(ps, (pb.astype(np.float64) + pc) / 2, atol=1e-6, rtol=0)
    # the two members of one export, each named: the pair again
    again_pair = tmp_path / "pair.pt"
    assert combine_nets.main([str(again_pair), f"export:{tmp_path / 'x'}#0", f"export:{tmp_path / 'x'}#1"]) == 0
    for bad, message in ((f"export:{tmp_path / 'x'}#2", "has 2 member net(s)"),
                         (f"export:{tmp_path / 'x'}#one", "must be a number"),
                         (f"export:{tmp_path / 'x'}", "same checkpoint")):
        args = [str(tmp_path / "bad.pt"), f"export:{tmp_path / 'x'}#1", bad]
        if "has 2" in message or "number" in message:
            args = [str(tmp_path / "bad.pt"), bad, str(c)]
        assert combine_nets.main(args) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
