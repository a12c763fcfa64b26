"""scripts/widen_net.py: a wider net that computes the same, and a run that continues from it."""

import sys
from pathlib import Path

import torch

from abak_rl.features import get_feature_set
from abak_rl.train.checkpoint import build_net_from, load_checkpoint
from abak_rl.train.run import main as train_main

from test_train import tiny

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def _trained_expert_net(tmp_path):
    """A tiny run's checkpoint: expert inputs, contact and race nets."""
    assert train_main(tiny(tmp_path, "train.games=32", "model.phases=contact_race",
                           "model.features=expert")) == 0
    return tmp_path / "ckpt" / "t" / "latest.pt"


def test_widened_net_computes_the_same_and_resumes(tmp_path, capsys):
    import widen_net
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "wide.pt"
    assert widen_net.main([str(src), str(out), "--noise", "0"]) == 0
    old, new = load_checkpoint(src), load_checkpoint(out)
    assert new["model"]["hidden"] == 2 * old["model"]["hidden"] == 16
    fs = get_feature_set("expert")
    a, b = build_net_from(old, fs), build_net_from(new, fs)
    x = torch.rand(300, fs.size)
    x[:, fs.class_unit] = (torch.rand(300) > 0.5).float()       # both phase nets
    assert (a(x) - b(x)).abs().max() < 1e-5
    # with noise the copies differ, and the outputs move only a little
    assert widen_net.main([str(src), str(tmp_path / "noisy.pt"), "--noise", "0.05"]) == 0
    c = build_net_from(load_checkpoint(tmp_path / "noisy.pt"), fs)
    d = (a(x) - c(x)).abs().max()
    assert 0 < d < 0.1
    # training continues from the widened checkpoint, as a new run
    # (the rest of the config, the widened shape included, comes from the checkpoint)
    assert train_main([f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=w",
                       f"resume={out}", "train.games=64", "progress=false"]) == 0
    cont = load_checkpoint(tmp_path / "ckpt" / "w" / "latest.pt")
    assert cont["model"]["hidden"] == 16 and cont["counters"]["games"] >= 64
    assert widen_net.main([str(src), str(tmp_path / "x.pt"), "--factor", "1"]) == 2
    assert widen_net.main([str(tmp_path / "missing.pt"), str(tmp_path / "x.pt")]) == 2
    assert "widen_net:" in capsys.readouterr().err


def test_new_inputs_keep_the_net_and_resume_on_the_extended_feature_set(tmp_path, capsys):
    import widen_net
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "e2.pt"
    assert widen_net.main([str(src), str(out), "--features", "expert2"]) == 0
    old, new = load_checkpoint(src), load_checkpoint(out)
    assert new["features"] == get_feature_set("expert2").describe() and new["model"]["n_inputs"] == 248
    from abak_rl.engine.variants import get_variant
    from abak_rl.export.sample import sample_afterstates
    boards, again = sample_afterstates(get_variant("standard"), 300, 2)
    a = build_net_from(old, get_feature_set("expert"))
    b = build_net_from(new, get_feature_set("expert2"))
    with torch.no_grad():
        ya = a(torch.from_numpy(get_feature_set("expert").encode(boards, again)))
        yb = b(torch.from_numpy(get_feature_set("expert2").encode(boards, again)))
    assert (ya - yb).abs().max() < 1e-5
    assert train_main([f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", "run=e2",
                       f"resume={out}", "train.games=64", "progress=false"]) == 0
    cont = load_checkpoint(tmp_path / "ckpt" / "e2" / "latest.pt")
    assert cont["features"]["name"] == "expert2" and cont["counters"]["games"] >= 64
    # a set that does not extend the net's is refused with one line
    assert widen_net.main([str(src), str(tmp_path / "bad.pt"), "--features", "td198"]) == 2
    assert "does not extend" in capsys.readouterr().err


def test_average_checkpoints_means_the_weights(tmp_path, capsys):
    import average_checkpoints
    assert train_main(tiny(tmp_path, "train.games=64", "train.checkpoint_every=32")) == 0
    folder = tmp_path / "ckpt" / "t"
    paths = sorted(str(p) for p in folder.glob("games_*.pt")) + [str(folder / "latest.pt")]
    assert len(paths) >= 2
    out = tmp_path / "avg.pt"
    assert average_checkpoints.main([str(out), *paths]) == 0
    got = load_checkpoint(out)["net"]
    nets = [load_checkpoint(p)["net"] for p in paths]
    for k in got:
        want = sum(n[k] for n in nets) / len(nets)
        assert torch.allclose(got[k], want, atol=1e-6)
    assert not torch.equal(got[k], nets[-1][k])          # the nets differ, so does the mean
    # a net of another shape is refused with one line
    assert train_main(tiny(tmp_path, "run=u", "train.games=32", "model.hidden=4")) == 0
    assert average_checkpoints.main([str(tmp_path / "bad.pt"), paths[0],
                                     str(tmp_path / "ckpt" / "u" / "latest.pt")]) == 2
    assert "is not the same net" in capsys.readouterr().err
