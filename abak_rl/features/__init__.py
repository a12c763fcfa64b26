"""Feature sets: how a batch of board rows becomes the network's input, in NumPy, whole batches.

Every feature set has a name, a version and a size. A checkpoint records all three and refuses to
load into a feature set that differs in any of them: a net trained on one encoding silently
misreads another. Bump `version` whenever an encoding changes in any way.

Perspective: a feature set encodes an AFTERSTATE seen from the player who just moved (the rows
the move generator returns, not flipped). The extra `again` flag says that this same player rolls
again next (Acey-deucey's 1-2); otherwise the opponent is on roll.

    td198        standard, nackgammon   Tesauro's 198 units
    td198_pool   acey_deucey            td198 + 2 pool units (200)
    abak_stack   abak                   stack- and class-aware Abak encoding (see abak.py)
    abak_expert  abak                   abak_stack's units + Abak knowledge, packed (abak_expert.py)
    expert       standard, nackgammon   td198 + 42 concept units (hits, escapes, primes, ...)
    expert2      standard, nackgammon   expert + 8 units (pip loss to hits, contact, mobility)

td198_pool, abak_expert, expert and expert2 also offer a Packing (below): the same numbers as
small integer codes plus a few dense units, which self-play keeps and scores with table sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class FeatureSet:
    name: str
    version: int
    size: int
    variants: tuple[str, ...]        # variant names this encoding can describe
    board_width: int
    _encode: Callable[[np.ndarray, np.ndarray], np.ndarray]
    class_unit: int | None = None    # unit that is 1 in a race, 0 in contact (phase nets read it)
    packing: "Packing | None" = None  # a compact form of the same encoding (see Packing)

    def encode(self, boards: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
        """float32 [N, size] features of afterstates `boards` (seen from the player who moved).

        again: [N] bool, True where that player rolls again next (default: all False).
        """
        boards = np.asarray(boards)
        if boards.ndim != 2 or boards.shape[1] != self.board_width:
            raise ValueError(f"feature set {self.name!r} expects boards of shape [N, {self.board_width}], "
                             f"got {list(boards.shape)}")
        if again is None:
            again = np.zeros(boards.shape[0], dtype=bool)
        return self._encode(boards, np.asarray(again, dtype=bool))

    def describe(self) -> dict:
        """What a checkpoint records."""
        return {"name": self.name, "version": self.version, "size": self.size}

    def check_compatible(self, recorded: dict, where: str = "checkpoint") -> None:
        """Raise ValueError unless `recorded` (from describe()) is exactly this feature set."""
        if recorded != self.describe():
            raise ValueError(f"{where} was trained with feature set {recorded}, which differs from "
                             f"the current {self.describe()}; it cannot be loaded into this one")


@dataclass(frozen=True)
class Packing:
    """A feature set whose dense units are mostly table rows picked by small integer codes.

    pack(boards, again) -> float32 [N, size]: `n_codes` codes, then the dense units that are
    copied as they are to the end of x; unpack(packed) -> the dense [N, F] encoding, exactly.
    tables(W) -> [R, H]: for a first layer W [H, F] (a torch tensor), the rows whose sum over (codes + offsets)
    plus W[:, F - (size - n_codes):] @ dense equals W @ x. Self-play keeps packed rows and the
    scorer evaluates first layers this way (model/packed.py)."""
    size: int
    n_codes: int
    pack: Callable[[np.ndarray, np.ndarray], np.ndarray]
    unpack: Callable[[np.ndarray], np.ndarray]
    tables: Callable[[np.ndarray], np.ndarray]
    offsets: np.ndarray


def _registry() -> dict[str, FeatureSet]:
    from . import abak, abak_expert, classic, expert
    sets = [classic.TD198, classic.TD198_POOL, abak.ABAK_STACK, expert.EXPERT, expert.EXPERT2,
            abak_expert.ABAK_EXPERT]
    return {s.name: s for s in sets}


FEATURE_SET_NAMES = ("td198", "td198_pool", "abak_stack", "expert", "expert2", "abak_expert")
DEFAULT_FOR_VARIANT = {"standard": "expert", "nackgammon": "expert", "acey_deucey": "td198_pool",
                       "abak": "abak_expert"}


def get_feature_set(name: str) -> FeatureSet:
    reg = _registry()
    if name not in reg:
        raise ValueError(f"unknown feature set {name!r}; expected one of {', '.join(reg)}")
    return reg[name]


def feature_set_for(variant_name: str, name: str = "auto") -> FeatureSet:
    """The feature set `name` ('auto' = the variant's default), checked to fit the variant."""
    if name in (None, "auto"):
        if variant_name not in DEFAULT_FOR_VARIANT:
            raise ValueError(f"no feature set for variant {variant_name!r}")
        name = DEFAULT_FOR_VARIANT[variant_name]
    fs = get_feature_set(name)
    if variant_name not in fs.variants:
        raise ValueError(f"feature set {name!r} cannot describe variant {variant_name!r} "
                         f"(it fits {', '.join(fs.variants)})")
    return fs
