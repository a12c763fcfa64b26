"""Vectorized text rendering: many rows of small integers -> one text line each.

Serialising hundreds of thousands of afterstates one Python string at a time costs seconds, so a
line is described as a fixed sequence of parts: constant strings, and *slots* that pick one string
from a small table by an integer value. All rows are rendered into one NUL-padded byte matrix
with one gather per slot; dropping the NULs and decoding happen once for the whole batch. The
cost grows with the number of slots, so callers keep slots few (e.g. one per 2-3 Abak cells).
"""

from __future__ import annotations

import numpy as np


def _as_matrix(table: list[str]) -> np.ndarray:
    """Strings -> [K, max length] ASCII bytes, NUL-padded (NUL never occurs in our text)."""
    width = max(1, max(len(t) for t in table))
    mat = np.zeros((len(table), width), dtype=np.uint8)
    for i, text in enumerate(table):
        mat[i, : len(text)] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return mat


class LineTemplate:
    """parts: constant strings and tables (lists of strings). The k-th table renders
    table[values[:, k]]; constants render as themselves."""

    def __init__(self, parts: list):
        merged: list = []  # a constant joins the part before it: fewer, wider gathers are faster
        for p in parts:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            elif isinstance(p, str) and merged:
                merged[-1] = [entry + p for entry in merged[-1]]
            else:
                merged.append(p if isinstance(p, str) else list(p))
        self._parts = []  # (matrix, value column or None)
        col = 0
        for p in merged:
            if isinstance(p, str):
                self._parts.append((_as_matrix([p]), None))
            else:
                self._parts.append((_as_matrix(p), col))
                col += 1
        self.n_values = col

    def render(self, values: np.ndarray) -> list[str]:
        """values: [N, n_values] table indices; returns the N lines (without newlines)."""
        values = np.asfortranarray(values)  # each slot reads one contiguous column
        n = values.shape[0]
        if n == 0:
            return []
        total = sum(mat.shape[1] for mat, _ in self._parts) + 1
        out = np.empty((n, total), dtype=np.uint8)  # every byte is written; NULs pad short strings
        at = 0
        for mat, col in self._parts:
            w = mat.shape[1]
            out[:, at:at + w] = mat[0] if col is None else mat[values[:, col]]
            at += w
        out[:, -1] = ord("\n")
        return out.tobytes().replace(b"\0", b"").decode("ascii").split("\n")[:n]
