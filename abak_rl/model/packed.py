"""A net's forward pass on PACKED feature rows (features.Packing): the first layer as a sum of
table rows instead of a product with a wide, mostly-zero input.

For a first layer W [H, F] and an encoding x = sum of code-picked unit rows + dense units,
W @ x = sum over codes of (W @ unit row) + W_dense @ dense. The products W @ unit row are the
packing's tables, computed once per weight version (an optimiser step changes the weights in
place and bumps their version) and cached on the layer; a forward pass is then one
embedding-bag sum of a few dozen rows per afterstate (24 for expert, 31 for td198_pool, 36 for
abak_expert) plus a small dense product, or none. Same numbers as net(unpack(packed)) up to
float rounding (tests/test_features_*.py, test_acey_one_two.py), so training, export and
torch-free inference keep using the dense encoding.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .bf16 import evalnet_tail
from .net import EnsembleNet, EvalNet, PhasedNet, mean_cumulative, weights_key


def supports(net: nn.Module) -> bool:
    """True for the nets this path knows: EvalNet, PhasedNet of EvalNets, and EnsembleNet of
    those (the mean of its members' packed outputs, made cumulative)."""
    if isinstance(net, EnsembleNet):
        return all(supports(m) for m in net.members)
    if isinstance(net, PhasedNet):
        return all(isinstance(n, EvalNet) for n in net.nets)
    return isinstance(net, EvalNet)


def _tables(first: nn.Linear, packing) -> torch.Tensor:
    """The packing's tables for this layer with its bias folded into the first code's rows
    (every row picks exactly one of them), cached until the weights or the bias change."""
    w, b = first.weight, first.bias
    key = weights_key(first)
    cached = getattr(first, "_packed_tables", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    t = packing.tables(w)               # a new tensor each time: the bias may go in place
    lo = int(packing.offsets[0])
    hi = int(packing.offsets[1]) if len(packing.offsets) > 1 else t.shape[0]
    t[lo:hi] += b.detach()
    first._packed_tables = (key, t)
    return t


def _evalnet(net: EvalNet, packing, codes: torch.Tensor, dense: torch.Tensor, bf16: bool = False) -> torch.Tensor:
    first = net.body[0]
    n_dense = dense.shape[1]
    h = F.embedding_bag(codes, _tables(first, packing), mode="sum")
    if n_dense:                          # (a packing may be all codes: td198_pool)
        h.addmm_(dense, first.weight[:, -n_dense:].t())
    if bf16:                             # the layers after the first in bfloat16 (model/bf16.py)
        return evalnet_tail(net, h)
    return torch.sigmoid(net.body[1:](h))


_OFFSETS: dict = {}


def _offsets(packing, device: torch.device) -> torch.Tensor:
    """The packing's code offsets as an int32 tensor on `device` (made once)."""
    key = (id(packing), str(device))
    t = _OFFSETS.get(key)
    if t is None:
        t = _OFFSETS[key] = torch.from_numpy(packing.offsets.astype(np.int32)).to(device)
    return t


def _rows_forward(net: EvalNet, packing, packed: np.ndarray, device: torch.device, bf16: bool = False) -> torch.Tensor:
    p = torch.from_numpy(np.ascontiguousarray(packed)).to(device)
    # int32 indices: the embedding-bag sum runs 1.6x faster than with int64 ones on CPU
    codes = p[:, :packing.n_codes].int() + _offsets(packing, device)
    return _evalnet(net, packing, codes, p[:, packing.n_codes:], bf16)


@torch.inference_mode()
def packed_forward(net: nn.Module, packing, packed: np.ndarray, device: torch.device,
                   bf16: bool = False) -> torch.Tensor:
    """[N, 5] outputs of `net` for packed rows (float32 [N, packing.size]); `bf16`: the layers
    after the first in bfloat16 (model/bf16.py)."""
    if isinstance(net, EnsembleNet):     # the mean of the members' outputs, as EnsembleNet.forward
        return mean_cumulative(_packed(m, packing, packed, device, bf16) for m in net.members)
    return _packed(net, packing, packed, device, bf16)


def _packed(net: nn.Module, packing, packed: np.ndarray, device: torch.device, bf16: bool = False) -> torch.Tensor:
    """One EvalNet's or PhasedNet's outputs for packed rows."""
    if not isinstance(net, PhasedNet):
        return _rows_forward(net, packing, packed, device, bf16)
    n_inputs = net.shape["n_inputs"]
    n_dense = packed.shape[1] - packing.n_codes
    col = packing.n_codes + net.class_unit - (n_inputs - n_dense)
    race = packed[:, col] > 0.5          # phase nets: the rows are split in NumPy (cheaper than torch)
    if not race.any():
        return _rows_forward(net.nets[0], packing, packed, device, bf16)
    if race.all():
        return _rows_forward(net.nets[1], packing, packed, device, bf16)
    out = np.empty((packed.shape[0], 5), dtype=np.float32)
    for k, rows in enumerate((~race, race)):
        out[rows] = _rows_forward(net.nets[k], packing, np.compress(rows, packed, axis=0), device,
                                  bf16).cpu().numpy()
    return torch.from_numpy(out).to(device)
