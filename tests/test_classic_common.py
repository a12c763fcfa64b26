"""The shared machinery of engine/common.py that every generator's exactness rests on."""

import numpy as np

import pytest

from abak_rl.engine.common import dedup_hashed, keep_most_dice, set_bits, unique_rows


def test_set_bits_of_26_bit_masks_lists_every_set_bit_in_order():
    rng = np.random.default_rng(1)
    masks = rng.integers(0, 1 << 26, size=500) & rng.integers(0, 1 << 26, size=500)
    masks[:3] = [0, (1 << 26) - 1, 1 << 25]
    idx, bits = set_bits(masks, 26)   # 500 int64 words narrowed to 32 bits
    want = np.nonzero((masks[:, None] >> np.arange(26)) & 1)
    assert (idx == want[0]).all() and (bits == want[1]).all()


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("n", [5, 300, 3000])
def test_set_bits_lists_every_set_bit_in_order(dtype, n):
    # high bytes too (a byte value times 8 once overflowed uint8 in the large-array path)
    rng = np.random.default_rng(n)
    width = np.dtype(dtype).itemsize * 8
    words = np.zeros(n, dtype=dtype)
    for _ in range(4):
        words |= (np.ones(n, dtype=dtype) << rng.integers(0, width, n).astype(dtype))
    words[:3] = [0, np.iinfo(dtype).max, dtype(1) << dtype(width - 1)]
    idx, bits = set_bits(words)
    want = [(i, b) for i, w in enumerate(words.tolist()) for b in range(width) if w >> b & 1]
    assert list(zip(idx.tolist(), bits.tolist())) == want


def _distinct(group, rows, keep):
    return sorted((int(g), r.tobytes()) for g, r in zip(group[keep], rows[keep]))


def test_dedup_is_exact_even_when_every_hash_collides():
    rng = np.random.default_rng(2)
    rows = rng.integers(-2, 3, size=(400, 32)).astype(np.int8)
    rows[200:] = rows[:200]  # every row twice
    rows[::7, 5] = 9  # and some made different again
    group = rng.integers(0, 3, size=400)
    truth = sorted({(int(g), r.tobytes()) for g, r in zip(group, rows)})
    for h in (np.zeros(400, np.uint64),  # worst possible hash: all equal
              rows.view(np.uint64)[:, 0] ^ rows.view(np.uint64)[:, 1]):
        keep = dedup_hashed(group, h, rows)
        assert _distinct(group, rows, keep) == truth
    assert _distinct(group, rows, unique_rows(rows, group)) == truth


def test_keep_most_dice_prefers_more_dice_then_the_larger_die():
    # group 0: plays with 2, 2, 1 dice -> the two 2-dice plays; group 1 (roll 6-3): only single
    # dice, one with the 6 -> just that; group 2 (roll 5-4): only the 4 is playable -> kept.
    group = np.array([0, 0, 0, 1, 1, 2])
    n_moves = np.array([2, 2, 1, 1, 1, 1])
    first = np.array([3, 5, 3, 3, 6, 4])
    larger = np.array([5, 6, 5])
    assert keep_most_dice(group, n_moves, first, larger, 3).tolist() == [True, True, False,
                                                                          False, True, True]


def test_unique_rows_is_exact_for_wide_rows_with_interleaved_duplicates():
    # 134-byte rows (Abak width), duplicates far apart in the input and spread over two groups:
    # the result must be exactly the distinct (group, row) pairs (the hash-sorted version this
    # replaced raised on rows over 64 bytes and could leave equal rows apart)
    rng = np.random.default_rng(0)
    base = rng.integers(-6, 7, size=(50, 134)).astype(np.int8)
    rows = np.concatenate([base, base[::-1], base[:10]])
    group = np.zeros(rows.shape[0], dtype=np.int64)
    group[:25] = 1
    group[75:100] = 1
    keep = unique_rows(rows, group)
    pairs = {(int(g), r.tobytes()) for g, r in zip(group, rows)}
    assert len(keep) == len(pairs)
    assert {(int(group[i]), rows[i].tobytes()) for i in keep} == pairs
