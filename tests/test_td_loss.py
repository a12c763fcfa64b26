"""train.loss: the squared TD error (mse) or the cross-entropy of each output (bce) in one
gradient step (train/td.py td_update), its value and the gradient it sends to the outputs."""

import numpy as np
import pytest
import torch

from abak_rl.engine.variants import get_variant
from abak_rl.features import get_feature_set
from abak_rl.model.net import EvalNet
from abak_rl.model.scorer import Scorer
from abak_rl.train.td import td_update


class _Recorder(torch.optim.SGD):
    """SGD at lr 0 that keeps the output bias's gradient of its last step."""

    def step(self, closure=None):
        self.grad = self.param_groups[0]["params"][-1].grad.detach().clone()
        return super().step(closure)


def _setup(seed=0):
    torch.manual_seed(seed)
    variant, fs = get_variant("standard"), get_feature_set("td198")
    net = EvalNet(fs.size, hidden=8)
    rng = np.random.default_rng(seed)
    boards = np.zeros((16, variant.width), dtype=np.int8)   # unused: the features are given
    again = np.zeros(16, dtype=bool)
    x = rng.random((16, fs.size)).astype(np.float32)
    target = rng.random((16, 5)).astype(np.float32)
    return Scorer(net, fs, variant, torch.device("cpu")), boards, again, x, target


@pytest.mark.parametrize("loss", ["mse", "bce"])
def test_the_loss_value_and_the_output_gradient(loss):
    scorer, boards, again, x, target = _setup()
    with torch.no_grad():
        p = scorer.net(torch.from_numpy(x)).numpy().astype(np.float64)
    opt = _Recorder(scorer.net.parameters(), lr=0.0)
    value = td_update(scorer, opt, boards, again, target, x, lr=0.0, loss=loss)
    t = target.astype(np.float64)
    if loss == "mse":
        expect = 0.5 * ((p - t) ** 2).sum(-1).mean()
        grad = ((p - t) * p * (1 - p)).mean(0)         # through the sigmoid: shrunk by p(1 - p)
    else:
        expect = -(t * np.log(p) + (1 - t) * np.log(1 - p)).sum(-1).mean()
        grad = (p - t).mean(0)                          # the plain error at the logit
    assert value == pytest.approx(expect, rel=1e-5)
    np.testing.assert_allclose(opt.grad.numpy(), grad, rtol=1e-4, atol=1e-7)


def test_the_two_losses_take_different_steps_and_an_unknown_one_is_refused():
    steps = {}
    for loss in ("mse", "bce"):
        scorer, boards, again, x, target = _setup()
        before = [q.detach().clone() for q in scorer.net.parameters()]
        td_update(scorer, torch.optim.SGD(scorer.net.parameters(), lr=0.1), boards, again, target, x,
                  lr=0.1, loss=loss)
        steps[loss] = torch.cat([(q.detach() - b).flatten() for q, b in zip(scorer.net.parameters(), before)])
    assert steps["mse"].abs().sum() > 0 and not torch.allclose(steps["mse"], steps["bce"])
    scorer, boards, again, x, target = _setup()
    with pytest.raises(ValueError, match="train.loss must be mse or bce"):
        td_update(scorer, torch.optim.SGD(scorer.net.parameters(), lr=0.1), boards, again, target, x,
                  lr=0.1, loss="huber")
