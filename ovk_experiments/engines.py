"""Which implementation runs the algorithms: ``ovk_fast`` (vectorised) when installed, else ``ovk_ref``.

An engine is a module with ``onorma``, ``monorma`` and ``batch_ridge`` of ``ovk_ref``'s signatures; it may
also offer ``evaluate`` (``f(x) = sum_i K(x, x_i) a_i`` on new points, see ``evaluate`` below).
"""
from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

import ovk_ref

ENGINES = ("auto", "fast", "ref")
_MODULES = {"fast": "ovk_fast", "ref": "ovk_ref"}


def resolve(name: str = "auto") -> ModuleType:
    """``auto``: ovk_fast if it imports, else ovk_ref; ``fast`` / ``ref``: that one (ValueError if missing)."""
    if name not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {name!r}")
    if name == "auto":
        try:
            return importlib.import_module("ovk_fast")
        except ImportError:
            return ovk_ref
    try:
        return importlib.import_module(_MODULES[name])
    except ImportError:
        raise ValueError(f"engine {name!r} needs the package {_MODULES[name]}, which does not import") from None


def evaluate(engine: ModuleType, kernel, X_train, coefficients, X_new):
    """``f(X_new)`` for ``f = sum_i K(., X_train[i]) coefficients[i]``: the engine's ``evaluate`` if it has one,
    else ovk_fast's vectorised kernel rows for ovk_fast, else ``ovk_ref.evaluate``."""
    if hasattr(engine, "evaluate"):
        return engine.evaluate(kernel, X_train, coefficients, X_new)
    if engine.__name__ == "ovk_fast":
        from ovk_fast.kernel_rows import KernelRows
        return KernelRows(kernel, np.asarray(X_new, dtype=float), np.asarray(X_train, dtype=float)).apply(
            np.asarray(coefficients, dtype=float))
    return ovk_ref.evaluate(kernel, X_train, coefficients, X_new)
