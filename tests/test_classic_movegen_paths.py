"""The classic generator's internal shortcuts agree with the plain ways of doing the same thing:
the move-pair change ids, the three-byte set-bit reader, the suspect deduplication, and a big
batch against the same positions in small batches (different code paths for large arrays)."""

import numpy as np

from abak_rl.engine import movegen as mg
from abak_rl.engine.game import random_play_positions
from abak_rl.engine.variants import get_variant


def _by_position(after, n):
    rows = np.ascontiguousarray(after.boards)
    out = [set() for _ in range(n)]
    for p, r in zip(after.parent.tolist(), rows):
        out[p].add(r.tobytes())
    return out


def test_pair_change_ids_are_equal_exactly_for_equal_changes():
    words = mg._PAIR_DELTA.view(np.uint64)
    order = np.lexsort(words.T[::-1])
    w = words[order]
    exact = np.empty(order.size, np.int64)
    exact[order] = np.concatenate(([0], np.cumsum((w[1:] != w[:-1]).any(axis=1))))
    ids = mg._PAIR_CLASS
    assert mg._N_CLASSES == exact.max() + 1
    # same partition: each exact class maps to one id and back
    assert np.unique(np.stack([exact, ids], 1), axis=0).shape[0] == mg._N_CLASSES


def test_three_byte_bit_reader_equals_the_four_byte_one():
    rng = np.random.default_rng(3)
    n = 40000   # over the size where the three-byte path starts
    own = rng.integers(0, 1 << 24, n)
    L = own & rng.integers(0, 1 << 24, n) & rng.integers(0, 1 << 24, n)
    bar = rng.random(n) < 0.1   # a checker on the bar: only the bar may move
    own[bar] |= 1 << 24
    L[bar] = np.where(rng.random(bar.sum()) < 0.6, 1 << 24, 0)
    i32, s32 = mg._bits(L)
    i24, s24 = mg._bits(L, own)
    assert (i32 == i24).all() and (s32 == s24).all()
    want = np.nonzero((L[:, None] >> np.arange(26)) & 1)
    assert (i32 == want[0]).all() and (s32 == want[1]).all()


def test_duplicates_drops_exactly_the_repeated_changes():
    rng = np.random.default_rng(4)
    parent = np.sort(rng.integers(0, 50, 3000))
    pair = rng.integers(0, mg.N_CODES ** 2, 3000)
    pair[1::3] = pair[0::3][: pair[1::3].size]   # repeats, some under another parent
    drop = mg._duplicates(parent, pair)
    keep = np.setdiff1d(np.arange(3000), drop)
    seen = {(int(p), mg._PAIR_DELTA[q].tobytes()) for p, q in zip(parent, pair)}
    kept = [(int(p), mg._PAIR_DELTA[q].tobytes()) for p, q in zip(parent[keep], pair[keep])]
    assert len(kept) == len(set(kept)) == len(seen)


def test_a_big_batch_equals_the_same_positions_in_small_batches():
    v = get_variant("standard")
    boards, dice = random_play_positions(v, 48, 11)
    boards, dice = boards[:3000], dice[:3000]
    big = v.legal_afterstates(boards, dice)
    assert (np.diff(big.parent) >= 0).all() and big.counts(len(boards)).min() >= 1
    small = [set() for _ in range(len(boards))]
    for s in range(0, len(boards), 64):
        part = _by_position(v.legal_afterstates(boards[s:s + 64], dice[s:s + 64]), 64)
        small[s:s + len(part)] = part[:min(64, len(boards) - s)]
    got = _by_position(big, len(boards))
    assert got == small and len(big) == sum(len(x) for x in got)  # and no duplicates


def test_positions_with_one_movement_only_mixed_with_doubles_come_out_in_order():
    # every play moves one checker one die (doubles and not): one group holding both kinds
    v = get_variant("standard")
    boards, dice = random_play_positions(v, 64, 5)
    after = v.legal_afterstates(boards, dice, with_plays=True)
    moves = np.array([len(p.split()) if p else 0 for p in after.plays])
    most = np.zeros(len(boards), int)
    np.maximum.at(most, after.parent, moves)
    pick = np.flatnonzero(most == 1)
    dbl = dice[pick, 0] == dice[pick, 1]
    assert dbl.any() and (~dbl).any()
    pick = np.random.default_rng(0).permutation(pick)
    got = v.legal_afterstates(boards[pick], dice[pick])
    assert (np.diff(got.parent) >= 0).all()
    want = _by_position(after, len(boards))
    assert _by_position(got, len(pick)) == [want[p] for p in pick]
