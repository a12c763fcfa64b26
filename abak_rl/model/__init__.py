"""The evaluator network and the arithmetic on its five outputs."""

from .net import (EvalNet, OUTPUTS, build_net, equity, outcome_probs, swap_perspective)

__all__ = ["EvalNet", "OUTPUTS", "build_net", "equity", "outcome_probs", "swap_perspective"]
