"""Divergence of an online run, said once and the same way by ovk_ref and ovk_fast.

A run diverges at the first round t whose online prediction ``f_{t-1}(x_t)``, new coefficient ``alpha_{t,t}``
or squared norm (``||f_t||^2`` for ONORMA, every ``gamma^j_t = ||g^j_t||^2`` for MONORMA) is not finite, or,
with a ``bound``, exceeds it (``|entry| > bound`` for predictions and coefficients, ``||.|| > bound`` for
norms). The older coefficients need no check: each is a new coefficient of an earlier round times shrink
factors in (0, 1). The run records the round (``diverged_at``, 1-based) and warns once with
``DivergenceWarning`` (``on_divergence="warn"``, the default) or stops with ``DivergenceError`` (``"raise"``).
"""
from __future__ import annotations

import warnings

import numpy as np

from ovk_ref import arithmetic, validation

ON_DIVERGENCE = ("warn", "raise")


class DivergenceWarning(RuntimeWarning):
    """An online run stopped being finite (or passed its divergence bound); said once per run."""


class DivergenceError(ArithmeticError):
    """Raised at the first divergent round with ``on_divergence="raise"``; ``round`` is that round (1-based)."""

    def __init__(self, message: str, round: int):
        super().__init__(message)
        self.round = round


def options(on_divergence, divergence_bound) -> tuple[str, float | None]:
    """``on_divergence`` in ON_DIVERGENCE and ``divergence_bound`` None or > 0, checked."""
    if not isinstance(on_divergence, str) or on_divergence not in ON_DIVERGENCE:
        raise ValueError(f"on_divergence must be one of {ON_DIVERGENCE}, got {validation.shown(on_divergence)}")
    if divergence_bound is not None:
        divergence_bound = validation.positive("divergence_bound", divergence_bound)
    return on_divergence, divergence_bound


def _bad_rows(values, bound, squared: bool) -> np.ndarray:
    """Per round (leading axis): True where some entry is not finite or past the bound."""
    values = np.asarray(values)
    finite = arithmetic.finite_entries(values)
    bad = ~finite
    if bound is not None:
        limit = bound * bound if squared else bound
        with np.errstate(invalid="ignore", over="ignore"):
            bad |= np.asarray(abs(values) > limit, dtype=bool) & finite
    return bad.reshape(len(bad), -1).any(axis=1) if bad.ndim > 1 else bad


def first_divergent(fields: dict, squared_norms: dict, bound) -> tuple[int, str] | None:
    """``(row, name)`` of the first row (0-based) where a field diverges, or None.

    ``fields`` and ``squared_norms`` map names to arrays whose leading axis is the round; the
    ``squared_norms`` are compared with ``bound**2``."""
    first = None
    for group, squared in ((fields, False), (squared_norms, True)):
        for name, values in group.items():
            rows = np.flatnonzero(_bad_rows(values, bound, squared))
            if len(rows) and (first is None or rows[0] < first[0]):
                first = (int(rows[0]), name)
    return first


def report(algorithm: str, round: int, field: str, bound, on_divergence: str, *, stacklevel: int = 3) -> None:
    """Warn (DivergenceWarning) or raise (DivergenceError) that ``algorithm`` diverged at ``round``."""
    what = "is not finite" if bound is None else f"is not finite or exceeds divergence_bound = {bound!r}"
    message = (f"{algorithm} diverged at round {round}: {field} {what}; later rounds are not meaningful "
               f"(record.diverged_at = {round}).")
    if on_divergence == "raise":
        raise DivergenceError(message, round)
    warnings.warn(message, DivergenceWarning, stacklevel=stacklevel)
