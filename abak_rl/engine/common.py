"""Machinery every variant's move generator shares: the result type, the use-as-many-dice
filter, exact deduplication of afterstates, and per-position reductions over afterstates.

All functions work on flat arrays of candidate rows tagged with the index of the position (or
"group") they belong to; none loops in Python over positions.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass

import numpy as np


def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 512 << 20) -> bool:
    """Ask glibc malloc to reuse freed memory instead of handing it back to the OS at once.

    Move generation makes many short-lived arrays of 0.1-10 MB. By default glibc returns such
    blocks to the OS when they are freed (mmap / heap trimming), so every call page-faults its
    memory in again: measured, that costs more than the array work itself (2-20x on small ops).
    Keeping up to `trim_threshold` bytes of freed heap makes the engine ~1.6x faster. Linux/glibc
    only; a no-op elsewhere or when ABAK_RL_DEFAULT_MALLOC=1 is set. Returns True if applied.
    """
    if not sys.platform.startswith("linux") or os.environ.get("ABAK_RL_DEFAULT_MALLOC") == "1":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        return bool(libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold)
                    and libc.mallopt(M_TRIM_THRESHOLD, trim_threshold))
    except (OSError, AttributeError):
        return False


@dataclass
class Afterstates:
    """All distinct legal afterstates of a batch of positions.

    boards: [N, W] rows, still seen from the player who moved (not flipped). May be a view into
            wider rows (row stride > W); np.ascontiguousarray it before viewing the raw bytes.
    parent: [N] int64, index of the input position each row came from; non-decreasing, every
            input position has at least one row (a roll with no legal play yields the position
            itself with an empty play).
    plays:  the play of each row in standard notation, when asked for (else None).
    """

    boards: np.ndarray
    parent: np.ndarray
    plays: list[str] | None = None

    def __len__(self) -> int:
        return int(self.parent.shape[0])

    def counts(self, n_positions: int) -> np.ndarray:
        return np.bincount(self.parent, minlength=n_positions)

    def starts(self, n_positions: int) -> np.ndarray:
        """Index of each position's first row (rows of one position are contiguous)."""
        return np.searchsorted(self.parent, np.arange(n_positions))


def as_words(rows: np.ndarray) -> np.ndarray:
    """View int8 rows as uint64 words, padding the row width to a multiple of 8 if needed."""
    rows = np.ascontiguousarray(rows)
    width = rows.shape[1]
    pad = (-width) % 8
    if pad:
        rows = np.concatenate([rows, np.zeros((rows.shape[0], pad), dtype=rows.dtype)], axis=1)
    return rows.view(np.uint64)


def unique_rows(rows: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Indices of the distinct (group, row) pairs, sorted by group; the first of equals is kept.

    A full lexicographic sort by (group, row words) puts equal rows next to each other, so the
    result is exact for rows of any width. (A sort by a hash alone is not: rows with equal
    hashes can interleave with different rows and escape the neighbour comparison.)
    """
    if rows.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    words = as_words(rows)
    order = np.lexsort(tuple(words.T[::-1]) + (group,))
    w = words.take(order, axis=0)
    g = group[order]
    keep = np.ones(order.shape[0], dtype=bool)
    keep[1:] = (g[1:] != g[:-1]) | (w[1:] != w[:-1]).any(axis=1)
    return order[keep]


_GROUP_MIX = np.uint64(0xD6E8FEB86659FD93)


def dedup_hashed(group: np.ndarray, h: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices of the distinct (group, row) pairs, given any 64-bit hash h of each row.

    One sort of a single 64-bit key (cheaper than sorting rows); rows whose keys meet are compared
    in full, and if two different rows ever share a key the exact row sort (unique_rows) decides,
    so the result is exact. Order of the result: by key, not by group.
    """
    if h.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    with np.errstate(over="ignore"):
        key = h ^ (group.astype(np.uint64) * _GROUP_MIX)
    order = np.argsort(key)
    k = key[order]
    same = k[1:] == k[:-1]
    if same.any():
        a, b = order[1:][same], order[:-1][same]
        w = as_words(rows)
        if not ((group[a] == group[b]).all() and (w.take(a, axis=0) == w.take(b, axis=0)).all()):
            return unique_rows(rows, group)  # a true hash collision: astronomically rare
    keep = np.ones(order.shape[0], dtype=bool)
    keep[1:] = ~same
    return order[keep]


def set_bits(words: np.ndarray, width: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """All set bits of an array of non-negative integer words, only bits below `width` set:
    (index of the word, bit number), by index then bit.

    The words are narrowed to the smallest unsigned type that holds `width` bits, unpacked, and
    the unpacked bits read as bool: nonzero() on a bool array is several times faster than on
    uint8 (measured 3-4x), which makes this cheaper at every size than per-byte or per-13-bit
    lookup tables (2-7x here; see docs/benchmarks/movegen.md).
    """
    words = np.asarray(words)
    nbits = min(words.dtype.itemsize * 8, 8 if width <= 8 else 16 if width <= 16
                else 32 if width <= 32 else 64)
    w = np.ascontiguousarray(words).astype(f"<u{nbits // 8}", copy=False)
    idx = np.unpackbits(w.view(np.uint8), bitorder="little").view(bool).nonzero()[0]
    shift = nbits.bit_length() - 1
    return idx >> shift, idx & (nbits - 1)


def keep_most_dice(group: np.ndarray, n_moves: np.ndarray, first_die: np.ndarray,
                   larger_die: np.ndarray, n_groups: int) -> np.ndarray:
    """Mask of the candidate plays the use-as-many-dice rules allow.

    Per group (one position and roll): only plays using the most dice survive; when that is a
    single die of a non-double roll and some play uses the larger die, only those survive.
    larger_die[g] is the larger die of group g's roll, or 0 for doubles (no such rule).
    """
    most = np.full(n_groups, np.iinfo(n_moves.dtype).min, dtype=n_moves.dtype)
    np.maximum.at(most, group, n_moves)   # NumPy >= 2 runs this 10x faster than a loop over k
    keep = n_moves == most[group]
    one = keep & (n_moves == 1) & (larger_die[group] > 0)
    if one.any():
        uses_larger = one & (first_die == larger_die[group])
        has_larger = np.zeros(n_groups, dtype=bool)
        has_larger[group[uses_larger]] = True
        keep &= ~(one & has_larger[group] & ~uses_larger)
    return keep


def segment_argmax(scores: np.ndarray, parent: np.ndarray, n_positions: int) -> np.ndarray:
    """For each position, the row index of its highest score (the first one on ties).

    O(N) when the rows of a position are contiguous and in order (the Afterstates contract);
    otherwise a stable sort by parent first, with the same result. Every position needs a row.
    """
    scores = np.asarray(scores)
    parent = np.asarray(parent)
    if parent.size > 1 and (parent[1:] < parent[:-1]).any():
        order = np.argsort(parent, kind="stable")
        return order[segment_argmax(scores[order], parent[order], n_positions)]
    starts = np.searchsorted(parent, np.arange(n_positions))
    if starts.size and (starts[-1] >= parent.size or np.any(parent[starts] != np.arange(n_positions))):
        raise ValueError("every position needs at least one afterstate")
    best = np.maximum.reduceat(scores, starts)
    idx = np.where(scores >= best[parent], np.arange(scores.shape[0]), scores.shape[0])
    return np.minimum.reduceat(idx, starts)


def segment_random(u: np.ndarray, parent: np.ndarray, n_positions: int) -> np.ndarray:
    """For each position, one of its rows uniformly at random; u[i] in [0, 1) per position."""
    counts = np.bincount(parent, minlength=n_positions)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return starts + np.minimum((u * counts).astype(np.int64), counts - 1)


def segment_top_k(scores: np.ndarray, parent: np.ndarray, k: int) -> np.ndarray:
    """Mask of each position's k highest-scoring rows (the first ones on ties)."""
    return segment_keep(scores, parent, k, None)


def segment_keep(scores: np.ndarray, parent: np.ndarray, k: int | None, margin: float | None) -> np.ndarray:
    """Mask of each position's rows that are among its k best (the first ones on ties; None:
    any number) and within `margin` of its best score (None: any distance): a search's move
    filter. Compiled (common_compiled.py) when each position's rows are contiguous and in order
    (the Afterstates contract), else segment_keep_numpy."""
    from . import common_compiled
    scores, parent = np.asarray(scores, dtype=np.float64), np.asarray(parent)
    if common_compiled.AVAILABLE and (parent.size < 2 or not (parent[1:] < parent[:-1]).any()):
        return common_compiled.keep(scores, parent, k, margin)
    return segment_keep_numpy(scores, parent, k, margin)


def segment_keep_numpy(scores: np.ndarray, parent: np.ndarray, k: int | None, margin: float | None) -> np.ndarray:
    """segment_keep in NumPy (the reference): one stable sort by (parent, -score), then each
    row's rank inside its position. Any order of rows."""
    scores, parent = np.asarray(scores, dtype=np.float64), np.asarray(parent)
    keep = np.ones(scores.shape[0], dtype=bool)
    if scores.shape[0] == 0:
        return keep
    if margin is not None:
        n = int(parent.max()) + 1
        best = np.full(n, -np.inf)
        np.maximum.at(best, parent, scores)
        keep &= scores >= best[parent] - margin
    if k is not None:
        order = np.lexsort((-scores, parent))
        p = parent.take(order)
        rank = np.empty(p.size, dtype=np.int64)
        rank[order] = np.arange(p.size) - np.searchsorted(p, p)
        keep &= rank < k
    return keep
