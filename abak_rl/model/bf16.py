"""Fast inference: a net's hidden layers in bfloat16, for search and labelling (precision=bf16).

Deep search spends nearly all its time in the hidden layers' products (a 2-ply value of one
afterstate is about 13,000 forward passes). With bfloat16 weights and activations those
products and activations run about twice as fast on CPUs with AVX-512 BF16 (and on GPUs),
while the parts that decide precision stay float32: the first layer's pre-activation (a sum of
many inputs, packed or dense) and the output layer (its five logits; in bfloat16 they would
double the error for no measurable gain). Outputs differ from float32 by about
1e-4 (rms; docs/BENCHMARKS.md "Search at play time"), far below what separates two plays a
search must tell apart, so it is an inference option only: training always runs float32.

Only batches of at least BLOCK (4,096) rows use bfloat16 (search's batches are tens of
thousands of rows); smaller ones run float32, where bfloat16 does not pay. The bfloat16 copies
of the weights are cached on each Linear and remade when the float32 weights change (their
version counter moves on every optimiser step).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .net import EnsembleNet, EvalNet, PhasedNet, mean_cumulative, weights_key

PRECISIONS = ("fp32", "bf16")


def check_precision(value) -> str:
    """'fp32' or 'bf16'; anything else is a ValueError naming the choices."""
    if value not in PRECISIONS:
        raise ValueError(f"precision={value!r}: expected one of {', '.join(PRECISIONS)}")
    return value


def _bf16_weights(layer: nn.Linear) -> tuple[torch.Tensor, torch.Tensor]:
    key = weights_key(layer)
    cached = getattr(layer, "_bf16_weights", None)
    if cached is None or cached[0] != key:
        cached = (key, (layer.weight.detach().to(torch.bfloat16), layer.bias.detach().to(torch.bfloat16)))
        layer._bf16_weights = cached
    return cached[1]


BLOCK = 4096   # rows per bfloat16 product; a shorter last block is padded to a power of two


def _block_rows(n: int) -> int:
    """Rows to compute for a block of n <= BLOCK rows: a power of two (at least 64). oneDNN, which
    runs the bfloat16 products, keeps a compiled kernel with its buffers (tens of MB) for every
    row count it meets, so the counts must come from a short fixed list or memory grows without
    bound (a labeller reached 12 GB in half an hour before this)."""
    return max(64, 1 << (n - 1).bit_length())


@torch.inference_mode()
def evalnet_tail(net: EvalNet, h: torch.Tensor) -> torch.Tensor:
    """[N, 5] float32 probabilities of an EvalNet from its first layer's float32
    pre-activation `h`, the layers after it in bfloat16 (the output layer in float32), computed
    in blocks of BLOCK rows (the last one padded: see _block_rows). A batch of fewer than BLOCK
    rows (0-ply play: about 1,300 rows for 64 positions) runs in float32: there the conversions
    and the padding cost more than the bfloat16 products save (0.57x in scripts/bench_search.py)."""
    body = list(net.body)
    if len(body) == 1:                      # no hidden layer: h is the output pre-activation
        return torch.sigmoid(h)
    if h.shape[0] < BLOCK:                  # a small batch: the conversions cost more than they save
        return torch.sigmoid(net.body[1:](h))
    out_layer = body[-1]                    # the output layer in float32: its 5 logits set the precision
    n = h.shape[0]
    out = h.new_empty((n, out_layer.out_features))
    for lo in range(0, n, BLOCK):
        part = h[lo:lo + BLOCK]
        rows = part.shape[0]
        z = part.new_zeros((_block_rows(rows), part.shape[1]), dtype=torch.bfloat16)
        z[:rows] = part
        z = body[1](z)                      # the first activation
        for layer in body[2:-1]:
            if isinstance(layer, nn.Linear):
                w, b = _bf16_weights(layer)
                z = F.linear(z, w, b)
            else:
                z = layer(z)
        out[lo:lo + rows] = F.linear(z[:rows].float(), out_layer.weight, out_layer.bias)
    return torch.sigmoid(out)


@torch.inference_mode()
def forward_bf16(net: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """routed(net, x) with the hidden layers in bfloat16: EvalNet, PhasedNet (each phase net on
    its own rows) or EnsembleNet (the mean of its members' cumulative outputs)."""
    if isinstance(net, EnsembleNet):
        return mean_cumulative(forward_bf16(m, x) for m in net.members)
    if isinstance(net, PhasedNet):
        race = x[:, net.class_unit] > 0.5
        out = x.new_empty((x.shape[0], 5))
        for k, rows in enumerate((~race, race)):
            idx = torch.nonzero(rows).squeeze(1)
            if idx.numel():
                out[idx] = forward_bf16(net.nets[k], x[idx])
        return out
    if not isinstance(net, EvalNet):
        raise ValueError(f"precision=bf16 supports EvalNet, PhasedNet and EnsembleNet, not {type(net).__name__}")
    first = net.body[0]
    return evalnet_tail(net, F.linear(x, first.weight, first.bias))
