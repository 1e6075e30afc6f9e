"""One comparison of two computations of the same numbers: ``actual`` is close to ``desired`` when every entry is
within ``rtol x scale + atol`` of it (a ``ToleranceClass``, each defined with its reason in ``ovk_ref.tolerances``
or in the tolerance module of the package that uses it).

``scale`` says what the error is relative to: the size of the numbers a computation combines, which is larger than
the result where terms cancel. It broadcasts against the arrays: a number (by default ``max |desired|`` over the
finite entries, the field's scale), one value per row (e.g. the size of the terms summed up to round t), or one
per entry (``np.abs(desired)``: numpy's ``assert_allclose`` rule). Non-finite entries agree only with the same
non-finite entry (inf with inf, nan with nan); a non-finite entry where the other side is finite is an infinite
error.

Users: the conformance oracle's field comparison (``ovk_conform.runner``), the claims' identities
(``proofs_check.claims.common.close``), the tests' comparisons of two engines or two runs (``assert_close`` in
tests/shared/closeness.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ToleranceClass:
    """``rtol x scale + atol``: the error allowed between two computations of the same numbers, and why."""

    name: str
    rtol: float
    atol: float
    reason: str

    def allowed(self, scale):
        return self.rtol * np.asarray(scale, dtype=float) + self.atol


def field_scale(desired) -> float:
    """``max |desired|`` over the finite entries (0 when there are none)."""
    desired = np.asarray(desired, dtype=float)
    finite = np.isfinite(desired)
    return float(np.max(np.abs(desired[finite]))) if np.any(finite) else 0.0


def errors(actual, desired) -> np.ndarray:
    """``|actual - desired|`` entry by entry: inf where ``actual`` is non-finite and ``desired`` finite, 0 where
    both hold the same non-finite value."""
    actual, desired = np.asarray(actual, dtype=float), np.asarray(desired, dtype=float)
    with np.errstate(invalid="ignore"):
        error = np.abs(actual - desired)
    error[~np.isfinite(actual) & np.isfinite(desired)] = np.inf
    error[~np.isfinite(actual) & ~np.isfinite(desired) & (actual.astype(str) == desired.astype(str))] = 0.0
    return error


def bad_rows(actual, desired, tolerance_class: ToleranceClass, scale=None) -> tuple:
    """``(errors, allowed, rows)``: the entries' errors, the error allowed (broadcast to them), and the indices of
    the rows (first axis) with an entry beyond it (nan included)."""
    error = errors(actual, desired)
    allowed = np.broadcast_to(tolerance_class.allowed(field_scale(desired) if scale is None else _per_row(scale, error)),
                              error.shape)
    beyond = ~(error <= allowed) & (error != 0)   # an identical entry is close whatever its scale (nan, inf)
    if not error.size:
        return error, allowed, np.flatnonzero([])
    rows = np.flatnonzero(beyond.reshape(len(error), -1).any(axis=1)) if error.ndim else np.flatnonzero([beyond])
    return error, allowed, rows


def _per_row(scale, error: np.ndarray):
    """A one-value-per-row scale of a 2-d or deeper comparison, shaped to broadcast along its rows."""
    scale = np.asarray(scale, dtype=float)
    if scale.ndim == 1 and error.ndim > 1 and scale.shape[0] == error.shape[0]:
        return scale.reshape((-1,) + (1,) * (error.ndim - 1))
    return scale

