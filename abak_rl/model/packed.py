"""A net's forward pass on PACKED feature rows (features.Packing): the first layer as a sum of
table rows instead of a product with a wide, mostly-zero input.

For a first layer W [H, F] and an encoding x = sum of code-picked unit rows + dense units,
W @ x = sum over codes of (W @ unit row) + W_dense @ dense. The products W @ unit row are the
packing's tables, computed once per weight version (an optimiser step changes the weights in
place and bumps their version) and cached on the layer; a forward pass is then one
embedding-bag sum of 36 rows per afterstate plus a small dense product. Same numbers as
net(unpack(packed)) up to float rounding (tests/test_features_abak_expert.py), so training,
export and torch-free inference keep using the dense encoding.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .net import EvalNet, PhasedNet


def supports(net: nn.Module) -> bool:
    """True for the nets this path knows: EvalNet and PhasedNet of EvalNets."""
    if isinstance(net, PhasedNet):
        return all(isinstance(n, EvalNet) for n in net.nets)
    return isinstance(net, EvalNet)


def _tables(first: nn.Linear, packing) -> torch.Tensor:
    """The packing's tables for this layer with its bias folded into the first code's rows
    (every row picks exactly one of them), cached until the weights or the bias change."""
    w, b = first.weight, first.bias
    key = (w._version, w.data_ptr(), b._version, b.data_ptr())
    cached = getattr(first, "_packed_tables", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    t = packing.tables(w)               # a new tensor each time: the bias may go in place
    lo = int(packing.offsets[0])
    hi = int(packing.offsets[1]) if len(packing.offsets) > 1 else t.shape[0]
    t[lo:hi] += b.detach()
    first._packed_tables = (key, t)
    return t


def _evalnet(net: EvalNet, packing, codes: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    first = net.body[0]
    n_dense = dense.shape[1]
    h = F.embedding_bag(codes, _tables(first, packing), mode="sum")
    h.addmm_(dense, first.weight[:, -n_dense:].t())
    return torch.sigmoid(net.body[1:](h))


@torch.inference_mode()
def packed_forward(net: nn.Module, packing, packed: np.ndarray, device: torch.device) -> torch.Tensor:
    """[N, 5] outputs of `net` for packed rows (float32 [N, packing.size])."""
    p = torch.from_numpy(np.ascontiguousarray(packed)).to(device)
    # int32 indices: the embedding-bag sum runs 1.6x faster than with int64 ones on CPU
    codes = p[:, :packing.n_codes].int() + torch.from_numpy(packing.offsets.astype(np.int32)).to(device)
    dense = p[:, packing.n_codes:]
    if not isinstance(net, PhasedNet):
        return _evalnet(net, packing, codes, dense)
    n_inputs = net.shape["n_inputs"]
    col = packing.n_codes + net.class_unit - (n_inputs - dense.shape[1])
    race = p[:, col] > 0.5
    n_race = int(race.sum())
    if n_race == 0:
        return _evalnet(net.nets[0], packing, codes, dense)
    if n_race == p.shape[0]:
        return _evalnet(net.nets[1], packing, codes, dense)
    out = p.new_empty((p.shape[0], 5))
    for k, rows in enumerate((~race, race)):
        idx = torch.nonzero(rows).squeeze(1)
        out[idx] = _evalnet(net.nets[k], packing, codes[idx], dense[idx])
    return out
