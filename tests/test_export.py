"""`abak-rl export`: ONNX / safetensors / TorchScript files and the model card."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import torch

from abak_rl import inference as inf
from abak_rl.engine.variants import get_variant
from abak_rl.export.cli import export_main
from abak_rl.export.exporters import export_checkpoint, parse_formats
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import feature_set_for
from abak_rl.model.net import EvalNet
from abak_rl.train.checkpoint import save_checkpoint


def _abak_ok() -> bool:
    try:
        get_variant("abak")
        return True
    except Exception:  # noqa: BLE001 - any failure means the Abak engine is not there yet
        return False


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

VARIANTS = ["standard", "nackgammon", "acey_deucey",
            pytest.param("abak", marks=pytest.mark.skipif(not _abak_ok(), reason="abak engine unavailable"))]


def make_checkpoint(path, variant: str, hidden: int = 24, layers: int = 1, activation: str = "sigmoid",
                    seed: int = 0, constant=None):
    """A checkpoint in the trainer's format (train/checkpoint.py) with a random, spread-out net;
    constant=[5 probabilities]: a net that outputs exactly those for every afterstate."""
    fs = feature_set_for(variant)
    torch.manual_seed(seed)
    net = EvalNet(fs.size, hidden=hidden, layers=layers, activation=activation)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)   # outputs spread over (0, 1), so mistakes show
        if constant is not None:
            for p in net.parameters():
                p.zero_()
            net.body[-1].bias.copy_(torch.logit(torch.tensor(constant, dtype=torch.float32)))
    history = [{"games": 500, "random": {"ppg": 0.61, "ppg_ci95": 0.1, "win_rate": 0.66}},
               {"games": 1000, "random": {"ppg": 0.83, "ppg_ci95": 0.09, "win_rate": 0.71}}]
    save_checkpoint(path, {"variant": variant, "features": fs.describe(), "model": net.shape,
                           "net": net.state_dict(),
                           "config": {"seed": 0, "variant": {"name": variant}, "model": dict(net.shape)},
                           "counters": {"games": 1000, "updates": 77, "states": 9000, "seconds": 1.5,
                                        "best_ppg": 0.83, "best_games": 1000, "history": history}})
    return net.eval()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """variant -> (net, export folder), exported lazily once per variant."""
    cache = {}

    def get(variant):
        if variant not in cache:
            d = tmp_path_factory.mktemp(f"exp_{variant}")
            net = make_checkpoint(d / "ckpt.pt", variant, hidden=24 if variant != "abak" else 16)
            export_checkpoint(d / "ckpt.pt", "all", d / "out", verify=0)
            cache[variant] = (net, d / "out")
        return cache[variant]
    return get


@pytest.mark.parametrize("variant", VARIANTS)
def test_onnx_and_safetensors_match_pytorch_on_1000_positions(exported, variant):
    net, out = exported(variant)
    v = get_variant(variant)
    boards, again = sample_afterstates(v, 1000, seed=11)
    assert boards.shape[0] == 1000
    x = feature_set_for(variant).encode(boards, again)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    assert want.std() > 0.05  # a net whose outputs vary, so the comparison means something
    onnx_out = inf.OnnxRunner(out / "model.onnx")(x)
    np.testing.assert_allclose(onnx_out, want, rtol=0, atol=1e-5)
    # dynamic batch: one row at a time gives the same numbers
    single = np.concatenate([inf.OnnxRunner(out / "model.onnx")(x[i:i + 1]) for i in range(3)])
    np.testing.assert_allclose(single, want[:3], rtol=0, atol=1e-5)
    model = inf.load_exported(out, backend="safetensors")
    # the model reads the outputs clamped to be cumulative (p_wbg <= p_wg <= p_win, ...)
    np.testing.assert_allclose(model.net_probs(boards, again), inf.cumulative_np(want), rtol=0, atol=1e-5)
    assert not np.array_equal(inf.cumulative_np(want), want) or variant == "abak"
    ts = torch.jit.load(str(out / "model.ts"))
    with torch.no_grad():
        np.testing.assert_allclose(ts(torch.from_numpy(x)).numpy(), want, rtol=0, atol=1e-6)


def test_onnx_graph_has_named_io_and_dynamic_batch(exported):
    import onnx
    _, out = exported("standard")
    m = onnx.load(str(out / "model.onnx"))
    (inp,), (outp,) = m.graph.input, m.graph.output
    assert (inp.name, outp.name) == ("features", "probs")
    in_dims = inp.type.tensor_type.shape.dim
    assert in_dims[0].dim_param and not in_dims[0].dim_value       # symbolic batch
    assert in_dims[1].dim_value == feature_set_for("standard").size
    assert outp.type.tensor_type.shape.dim[1].dim_value == 5


def test_model_card_records_what_a_user_needs(exported):
    _, out = exported("acey_deucey")
    card = json.loads((out / "model_card.json").read_text())
    assert card["format"] == "abak-rl-model-card" and card["format_version"] == 1
    assert card["variant"] == "acey_deucey"
    assert card["feature_set"]["name"] == "td198_pool"
    assert card["feature_set"]["version"] == 1 and card["feature_set"]["size"] == 200
    assert card["outputs"]["order"] == ["p_win", "p_wg", "p_wbg", "p_lg", "p_lbg"]
    assert set(card["outputs"]["meaning"]) == set(card["outputs"]["order"])
    assert "afterstate" in card["outputs"]["perspective"].lower()
    assert card["cube"]["match_equity_table"].startswith("kazaross-xg2")   # how the cube is decided
    assert "0.00125" in card["cube"]["efficiency"] and "Janowski" in card["cube"]["money"]
    assert "two-sided bear-off" in card["cube"]["exact_bearoffs"]        # a classic variant's card
    assert card["network"] == {**card["network"], "n_inputs": 200, "hidden": 24, "layers": 1,
                               "activation": "sigmoid"}
    assert card["training"]["games"] == 1000
    assert card["training"]["config"]["variant"]["name"] == "acey_deucey"
    assert card["evaluation"]["latest"]["games"] == 1000
    assert card["evaluation"]["latest"]["random"]["ppg"] == pytest.approx(0.83)
    for fmt, name in (("onnx", "model.onnx"), ("safetensors", "model.safetensors"), ("torchscript", "model.ts")):
        f = card["files"][fmt]
        assert f["path"] == name
        assert f["sha256"] == hashlib.sha256((out / name).read_bytes()).hexdigest()


def test_export_cli_writes_chosen_format_and_verifies(tmp_path, capsys):
    make_checkpoint(tmp_path / "c.pt", "standard", hidden=8, layers=2, activation="relu")
    rc = export_main([f"checkpoint={tmp_path / 'c.pt'}", "format=safetensors", f"out={tmp_path / 'o'}",
                      "verify=50"])
    assert rc == 0
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["model.safetensors", "model_card.json"]
    card = json.loads((tmp_path / "o" / "model_card.json").read_text())
    assert card["verification"]["positions"] == 50
    assert card["verification"]["max_abs_diff"]["safetensors"] <= 1e-5
    assert "verified on 50 positions" in capsys.readouterr().out
    # the two-hidden-layer relu net runs the same in NumPy
    size = feature_set_for("standard").size
    net = EvalNet(size, hidden=8, layers=2, activation="relu")
    net.load_state_dict(torch.load(tmp_path / "c.pt", weights_only=True)["net"])
    x = np.random.default_rng(0).random((20, size), dtype=np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(inf.load_exported(tmp_path / "o").forward(x), want, atol=1e-5, rtol=0)


@pytest.mark.parametrize("argv, message", [
    (["format=onnx", "out=x"], "missing checkpoint"),
    (["checkpoint=nowhere.pt", "out=x"], "checkpoint not found"),
    (["checkpoint=c.pt", "format=pt", "out=x"], "unknown export format 'pt'"),
    (["checkpoint=c.pt", "outdir=x"], "unknown argument 'outdir'"),
    (["checkpoint=c.pt", "out=x", "verify=many"], "verify='many'"),
    (["c.pt"], "not key=value"),
    (["checkpoint=c.pt", "out=x", "measured=none.json"], "measured=none.json"),
    (["checkpoint=c.pt", "out=x", "measured=c.pt"], "not JSON"),
])
def test_export_cli_rejects_bad_arguments(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    make_checkpoint(tmp_path / "c.pt", "standard", hidden=4)
    assert export_main(argv) == 2
    assert message in capsys.readouterr().err


def test_export_records_measured_results_in_the_card(tmp_path):
    make_checkpoint(tmp_path / "c.pt", "standard", hidden=4)
    result = {"agent": "checkpoint:c.pt", "opponent": "pubeval", "variant": "standard", "games": 10000,
              "seed": 7, "ppg": 0.25, "ppg_ci95": 0.03, "win_rate": 0.58, "seconds": 12.0}
    (tmp_path / "r.json").write_text(json.dumps(result))
    (tmp_path / "bad.json").write_text(json.dumps({"ppg": 1}))
    args = [f"checkpoint={tmp_path / 'c.pt'}", "format=safetensors", "verify=0"]
    assert export_main(args + [f"out={tmp_path / 'x'}", f"measured={tmp_path / 'bad.json'}"]) == 2
    assert not (tmp_path / "x").exists()                 # nothing half-written
    assert export_main(args + [f"out={tmp_path / 'o'}", f"measured={tmp_path / 'r.json'}"]) == 0
    card = json.loads((tmp_path / "o" / "model_card.json").read_text())
    assert card["measured"] == [{k: v for k, v in result.items() if k != "seconds"}]
    # a match result (evaluate ... match_length=7) is recorded by its match wins
    match = {"agent": "checkpoint:c.pt", "opponent": "gnubg:plies=0", "variant": "standard", "seed": 4,
             "cube": "match", "match_length": 7, "matches": 1000, "match_win_rate": 0.502,
             "match_win_rate_ci95": 0.031, "games_played": 4519, "cube_ply": 0, "seconds": 970.6}
    (tmp_path / "m.json").write_text(json.dumps(match))
    assert export_main(args + [f"out={tmp_path / 'm'}", f"measured={tmp_path / 'r.json'},{tmp_path / 'm.json'}"]) == 0
    card = json.loads((tmp_path / "m" / "model_card.json").read_text())
    assert card["measured"][1] == {k: v for k, v in match.items() if k not in ("seconds", "cube")}
    (tmp_path / "half.json").write_text(json.dumps({k: v for k, v in match.items() if k != "matches"}))
    assert export_main(args + [f"out={tmp_path / 'h'}", f"measured={tmp_path / 'half.json'}"]) == 2
    assert not (tmp_path / "h").exists()


def test_parse_formats():
    assert parse_formats("all") == ["onnx", "safetensors", "torchscript"]
    assert parse_formats("safetensors,onnx,onnx") == ["safetensors", "onnx"]
    with pytest.raises(ValueError, match="no export format"):
        parse_formats("")


def test_loading_refuses_a_card_that_does_not_fit(exported, tmp_path):
    import shutil
    _, out = exported("standard")
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    card = json.loads((bad / "model_card.json").read_text())
    card["feature_set"]["version"] = 99
    (bad / "model_card.json").write_text(json.dumps(card))
    with pytest.raises(inf.ExportError, match="feature set"):
        inf.load_exported(bad)
    card["feature_set"]["version"] = 1
    card["network"]["hidden"] = 25
    (bad / "model_card.json").write_text(json.dumps(card))
    with pytest.raises(inf.ExportError, match="body.0 has shape"):
        inf.load_exported(bad, backend="safetensors")
    with pytest.raises(inf.ExportError, match="cannot describe variant 'abak'"):
        inf.load_exported(out, variant="abak")
    with pytest.raises(inf.ExportError, match="model card not found"):
        inf.load_exported(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"not onnx")
    (tmp_path / "model_card.json").write_text((out / "model_card.json").read_text())
    with pytest.raises(inf.ExportError, match="not a readable ONNX model"):
        inf.load_exported(tmp_path / "model.onnx")


def test_phase_nets_export_to_every_format_and_pick_the_class_per_row(tmp_path):
    """A contact/race PhasedNet with the bear-off database: ONNX, safetensors (NumPy) and
    TorchScript give the PyTorch numbers; race rows go to the race net; the card says so."""
    from abak_rl.model.net import PhasedNet, build_net
    from abak_rl.features import expert
    fs = feature_set_for("standard")
    torch.manual_seed(3)
    net = build_net(fs.size, {"hidden": 12, "layers": 1, "activation": "sigmoid", "phases": "auto",
                              "bearoff": "auto"}, fs)
    assert isinstance(net, PhasedNet) and net.shape["bearoff"]
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)
    save_checkpoint(tmp_path / "c.pt", {"variant": "standard", "features": fs.describe(), "model": net.shape,
                                        "net": net.state_dict(), "config": {"variant": {"name": "standard"}}})
    card = export_checkpoint(tmp_path / "c.pt", "all", tmp_path / "o", verify=100)
    assert card["network"]["type"] == "phased_mlp" and card["network"]["class_unit"] == expert.RACE_UNIT
    assert card["network"]["bearoff"] == net.shape["bearoff"]
    boards, again = sample_afterstates(get_variant("standard"), 1500, seed=4)
    x = fs.encode(boards, again)
    race = x[:, expert.RACE_UNIT] > 0.5
    assert 0 < race.sum() < race.size                       # both classes present
    net.eval()
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
        routed = net.forward_routed(torch.from_numpy(x)).numpy()
        contact_only = net.nets[0](torch.from_numpy(x)).numpy()
        race_only = net.nets[1](torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(routed, want, atol=1e-6, rtol=0)
    np.testing.assert_allclose(want[race], race_only[race], atol=1e-6, rtol=0)
    np.testing.assert_allclose(want[~race], contact_only[~race], atol=1e-6, rtol=0)
    np.testing.assert_allclose(inf.OnnxRunner(tmp_path / "o" / "model.onnx")(x), want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(inf.load_exported(tmp_path / "o").forward(x), want, atol=1e-5, rtol=0)
    ts = torch.jit.load(str(tmp_path / "o" / "model.ts"))
    with torch.no_grad():
        np.testing.assert_allclose(ts(torch.from_numpy(x)).numpy(), want, atol=1e-6, rtol=0)
    # bear-off positions are valued by the database in the torch-free model, not the net
    from abak_rl.engine.bearoff import bearoff_probs, is_bearoff
    model = inf.load_exported(tmp_path / "o")
    db = is_bearoff(boards)
    assert db.any()
    np.testing.assert_allclose(model.probs(boards[db]), bearoff_probs(boards[db]), atol=1e-6)


def test_only_the_classic_variants_cards_state_the_exact_bearoff_cube():
    from abak_rl.export.exporters import cube_card
    assert "exact_bearoffs" in cube_card("standard") and "exact_bearoffs" in cube_card("nackgammon")
    abak = cube_card("abak")
    assert "exact_bearoffs" not in abak and abak["money"] == cube_card("standard")["money"]
