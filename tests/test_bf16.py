"""model/bf16.py: inference with the hidden layers in bfloat16 (precision=bf16), checked against
the float32 forward pass it replaces, through the Scorer, the search, agent specs and labels."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from abak_rl.agents.neural import NeuralAgent
from abak_rl.agents.registry import make_agent, parse_agent_options
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_positions
from abak_rl.features import get_feature_set
from abak_rl.model.bf16 import check_precision, forward_bf16
from abak_rl.model.net import EnsembleNet, EvalNet, PhasedNet, routed
from abak_rl.model.scorer import Scorer

from test_widen_net import _trained_expert_net

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

CPU = torch.device("cpu")


def _afterstates(n: int, seed: int):
    v = get_variant("standard")
    boards, dice = sample_positions(v, n, seed=seed)
    after = v.legal_afterstates(boards, dice)
    return v, boards, dice, after


def _trained_like(net: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Weights of a trained net's size (a fresh net's outputs all sit near 0.5, where any
    arithmetic agrees): normal with std 1 / sqrt(fan-in) times 3."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            fan_in = p.shape[1] if p.dim() == 2 else 16
            p.copy_(torch.randn(p.shape, generator=g) * 3 / fan_in ** 0.5)
    return net.eval()


@pytest.mark.parametrize("kind", ["evalnet-td198", "phased-expert2-packed", "ensemble-expert2"])
def test_bf16_outputs_match_float32_closely(kind):
    """Through the Scorer (the packed first layer for expert2, the dense one for td198, an
    ensemble's mean) bfloat16 hidden layers give the float32 outputs to within 0.005, rms 0.001
    (these random nets amplify more than a trained one), and they do run in bfloat16 (the
    outputs are not bit-identical)."""
    v, _, _, after = _afterstates(300, seed=5)          # thousands of rows: bfloat16 runs from 4,096
    if kind == "evalnet-td198":
        fs = get_feature_set("td198")
        net = _trained_like(EvalNet(fs.size, hidden=64, layers=2), 1)
    else:
        fs = get_feature_set("expert2")
        make = lambda s: _trained_like(PhasedNet(fs.size, fs.class_unit, hidden=64, layers=2), s)  # noqa: E731
        net = make(2) if kind.startswith("phased") else EnsembleNet([make(3), make(4)]).eval()
    again = np.zeros(len(after.boards), dtype=bool)
    p32 = Scorer(net, fs, v, CPU).probs(after.boards, again)
    p16 = Scorer(net, fs, v, CPU, precision="bf16").probs(after.boards, again)
    assert p32.dtype == p16.dtype == np.float32 and p32.shape == p16.shape
    diff = np.abs(p16 - p32)
    assert diff.max() < 5e-3 and np.sqrt((diff ** 2).mean()) < 1e-3, diff.max()
    assert diff.max() > 0                            # the bfloat16 path really ran
    assert 0.02 < p32[:, 0].std()                    # outputs spread out: not a trivial comparison


def test_forward_bf16_equals_the_routed_float32_net_on_every_phase():
    fs = get_feature_set("expert2")
    net = _trained_like(PhasedNet(fs.size, fs.class_unit, hidden=32, layers=1), 7)
    x = torch.rand(9000, fs.size)
    x[:, fs.class_unit] = (torch.arange(9000) % 3 == 0).float()     # a mix of race and contact rows
    with torch.no_grad():
        want = routed(net, x)
    got = forward_bf16(net, x)
    assert torch.allclose(got, want, atol=5e-3) and not torch.equal(got, want)
    # a net without hidden layers has nothing to run in bfloat16: exactly float32
    flat = _trained_like(EvalNet(fs.size, hidden=8, layers=0), 8)
    with torch.no_grad():
        assert torch.equal(forward_bf16(flat, x), flat(x))


def test_small_batches_run_in_float32():
    """Under BLOCK rows bfloat16 does not pay (0-ply play): the float32 outputs, bit for bit."""
    from abak_rl.model.bf16 import BLOCK
    fs = get_feature_set("td198")
    net = _trained_like(EvalNet(fs.size, hidden=32, layers=2), 10)
    for n in (1, 700, BLOCK - 1):
        x = torch.rand(n, fs.size)
        with torch.no_grad():
            assert torch.equal(forward_bf16(net, x), net(x))
    x = torch.rand(BLOCK, fs.size)
    with torch.no_grad():
        assert not torch.equal(forward_bf16(net, x), net(x))


def test_the_bfloat16_weights_follow_a_training_step():
    """The cached bfloat16 copies are remade when the float32 weights change in place."""
    fs = get_feature_set("td198")
    net = _trained_like(EvalNet(fs.size, hidden=16, layers=2), 9)
    x = torch.rand(5000, fs.size)
    before = forward_bf16(net, x)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    loss = net(x).sum()
    loss.backward()
    opt.step()
    with torch.no_grad():
        want = net(x)
    after = forward_bf16(net, x)
    assert not torch.allclose(after, before, atol=1e-3)
    assert torch.allclose(after, want, atol=3e-3)


def test_bad_precision_values_are_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match=r"precision='fp16': expected one of fp32, bf16"):
        check_precision("fp16")
    fs = get_feature_set("td198")
    with pytest.raises(ValueError, match="precision="):
        Scorer(EvalNet(fs.size, hidden=4), fs, get_variant("standard"), CPU, precision="half")
    src = _trained_expert_net(tmp_path)
    v = get_variant("standard")
    with pytest.raises(ValueError, match="expected one of fp32, bf16"):
        make_agent(f"checkpoint:{src},precision=int8", v)
    with pytest.raises(ValueError, match="checkpoint: agents"):
        parse_agent_options("export:some/dir,ply=1,precision=bf16")


def test_a_bf16_checkpoint_agent_searches_like_the_float32_one(tmp_path):
    """checkpoint:...,precision=bf16 plays with a bfloat16 Scorer; its 1-ply values are the
    float32 ones to within 0.003 and its picks the same in nearly every position."""
    src = _trained_expert_net(tmp_path)
    v = get_variant("standard")
    fast = make_agent(f"checkpoint:{src},ply=1,precision=bf16", v)
    slow = make_agent(f"checkpoint:{src},ply=1", v)
    assert isinstance(fast, NeuralAgent) and fast.scorer.precision == "bf16"
    assert fast.name.endswith("@1ply,precision=bf16") and slow.scorer.precision == "fp32"
    _, boards, dice, after = _afterstates(60, seed=11)
    again = np.zeros(len(after.boards), dtype=bool)
    rows = np.arange(0, len(after.boards), max(1, len(after.boards) // 40))
    np.testing.assert_allclose(fast.values(after.boards[rows], again[rows], 1),
                               slow.values(after.boards[rows], again[rows], 1), atol=3e-3)
    same = fast.choose(v, boards, dice, after) == slow.choose(v, boards, dice, after)
    assert same.mean() >= 0.9
    # at 0-ply the option is accepted too (no filters involved)
    assert make_agent(f"checkpoint:{src},precision=bf16", v).scorer.precision == "bf16"


def test_labels_record_the_teachers_precision(tmp_path, capsys):
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "l.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "8", "--chunk", "8", "--label-only",
                              "--all-plays", "--precision", "bf16", "--no-progress"]) == 0
    from abak_rl.agents.neural import load_neural_agent
    agent = load_neural_agent(src, "standard")
    with np.load(tmp_path / "l.pt.data" / "chunk0000.npz") as z:
        assert str(z["precision"]) == "bf16"
        np.testing.assert_allclose(z["target"], agent.values(z["boards"], z["again"], 1), atol=3e-3)
    capsys.readouterr()


def test_bench_search_times_the_bf16_agent_against_float32(capsys):
    import importlib.util
    import json
    spec = importlib.util.spec_from_file_location("bench_search", "scripts/bench_search.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--positions", "2", "--batch", "2", "--agreement", "0", "--agreement2", "0",
                       "--bf16"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    n = len(bench.SETTINGS)
    assert [x["backend"] for x in lines] == ["numpy"] * n + ["torch"] * n + ["torch-bf16"] * n
    fast = lines[2 * n:]
    assert [x["setting"] for x in fast] == [s[0] for s in bench.SETTINGS]
    assert all(x["cpu_ratio_to_torch_fp32"] > 0 for x in fast)
    assert all("cpu_ratio_to_torch_fp32" not in x for x in lines[:2 * n])


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2 ** 20


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc to read the memory in use")
def test_memory_stays_bounded_over_many_batch_sizes():
    """oneDNN keeps a compiled kernel and its buffers for each row count of a bfloat16 product;
    search meets a new count at nearly every call, so unbounded counts grew a labeller to 12 GB
    (killed for memory). The tail pads its blocks to a few fixed sizes: 60 different counts
    must not grow the process by more than 120 MB (about 360 MB without the padding)."""
    from abak_rl.model import bf16
    fs = get_feature_set("expert2")
    net = _trained_like(EvalNet(fs.size, hidden=256, layers=2), 12)
    bf16.evalnet_tail(net, torch.rand(4097, 256))                   # the first kernels, buffers, pools
    start = _rss_mb()
    for i in range(60):
        n = 5000 + 61 * i
        h = torch.rand(n, 256)
        out = bf16.evalnet_tail(net, h)
        assert out.shape == (n, 5)
    assert _rss_mb() - start < 120, _rss_mb() - start
    assert bf16._block_rows(1) == 64 and bf16._block_rows(65) == 128 and bf16._block_rows(4096) == 4096
