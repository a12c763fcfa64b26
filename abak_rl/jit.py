"""One place that knows about Numba: `jit` compiles a kernel, `AVAILABLE` says whether it can.

The `*_compiled.py` kernel modules import both from here. Each module keeps its own AVAILABLE
(copied from this one) because its callers read that to choose between the kernel and the NumPy
code, and tests switch it off per module to check the NumPy paths.
"""

from __future__ import annotations

try:
    import numba
    AVAILABLE = True
except ImportError:                      # pragma: no cover - numba is a declared dependency
    numba = None
    AVAILABLE = False


def jit(fn):
    """fn compiled in nopython mode, cached on disk next to its module (the plain function
    without Numba)."""
    return numba.njit(cache=True, nogil=True)(fn) if AVAILABLE else fn
