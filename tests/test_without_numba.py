"""Without Numba the NumPy code runs: each compiled kernel's module says AVAILABLE, and the
dispatchers read it at call time. Switching it off here must give the same afterstates,
features, bear-off values, Abak afterstates (in the same order: a random one per position is
sampled) and Abak units (the NumPy paths are the fallback, not dead code)."""

import numpy as np

from abak_rl.engine import bearoff, bearoff_compiled, movegen, movegen_compiled
from abak_rl.engine.abak import movegen_compiled as abak_movegen_compiled
from abak_rl.engine.variants import get_variant
from abak_rl.export.sample import sample_afterstates
from abak_rl.features import abak_expert_compiled, expert_compiled, get_feature_set

MODULES = (movegen_compiled, bearoff_compiled, expert_compiled, abak_expert_compiled,
           abak_movegen_compiled)


def _bear_offs(n=500, seed=3):
    """Random bear-off afterstates: each side's checkers on its own six home points."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((n, 30), dtype=np.int8)
    for r in rows:
        a, b = rng.integers(1, 16, 2)
        np.add.at(r, rng.integers(0, 6, a), 1)
        np.add.at(r, 23 - rng.integers(0, 6, b), -1)
        r[26], r[27] = 15 - a, 15 - b
    return rows


def _everything(boards, dice):
    abak_boards, _ = sample_afterstates(get_variant("abak"), 300, 22)
    after = movegen.legal_afterstates(boards, dice, acey_deucey=True)
    order = np.lexsort(after.boards.T[::-1])
    order = order[np.argsort(after.parent[order], kind="stable")]
    rows = after.boards[order]                   # the same order whichever generator ran
    x = get_feature_set("expert").encode(rows[:3000])
    home = bearoff.is_bearoff(rows)
    probs = bearoff.bearoff_probs(np.concatenate([rows[home], _bear_offs()]))
    packed = get_feature_set("abak_expert").packing.pack(abak_boards)
    return after.parent[order], rows, x, home, probs, abak_boards, packed


def test_the_numpy_paths_give_the_same_results(monkeypatch):
    v = get_variant("standard")
    boards, _ = sample_afterstates(v, 400, 21)
    boards = v.flip(boards)                       # positions to move from
    dice = np.random.default_rng(2).integers(1, 7, (len(boards), 2))
    fast = _everything(boards, dice)
    for m in MODULES:
        monkeypatch.setattr(m, "AVAILABLE", False)
    slow = _everything(boards, dice)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-6)
