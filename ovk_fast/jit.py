"""How ovk_fast compiles its kernels with numba (the optional ``fast`` extra): a kernel and the steps it calls."""
from __future__ import annotations

import importlib.util
import types

#: numba is installed (the engine works without it: numpy's paths)
NUMBA_INSTALLED = importlib.util.find_spec("numba") is not None


def jit_calling(kernel, steps: dict, jit):
    """``kernel`` compiled by ``jit`` with each name of ``steps`` in its code bound to that compiled step
    (nopython code calls only compiled functions)."""
    return jit(types.FunctionType(kernel.__code__, {**kernel.__globals__, **steps}, kernel.__name__))
