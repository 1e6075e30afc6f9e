"""What several test folders use to compare two computations (and no shipped code does): ``assert_close``, on
``ovk_ref.closeness``'s comparison, and the tolerances only the tests use, each with its reason."""
from __future__ import annotations

import numpy as np

from ovk_ref.closeness import ToleranceClass, bad_rows
from ovk_ref.tolerances import IDENTITY_RTOL

#: two float64 computations of the same quantity (ovk_ref.tolerances.IDENTITY_RTOL), relative to a scale the caller gives
#: (the size of the terms), with no absolute floor
IDENTITY_OF_SCALE = ToleranceClass("identity", IDENTITY_RTOL, 0.0,
                                   "two float64 computations of the same quantity, relative to the given scale")

#: relative margin for an inequality checked in float64 whose two sides can tie (spec 11
#: "Tolerances"), e.g. the subgradient inequality on an affine piece of a loss, or convexity on a
#: segment where the loss is linear: both sides are a few float64 operations on the same numbers,
#: so a tie shows as a difference of a few eps times the magnitude of the terms; 1e-12 of that
#: magnitude covers it and is far below any real violation.
INEQUALITY_RTOL = 1e-12


def assert_close(actual, desired, tolerance_class: ToleranceClass, scale=None, what: str = "values") -> None:
    """AssertionError naming ``what``, the first row that differs, the error and the tolerance, unless ``actual``
    and ``desired`` (same shape) are close."""
    actual, desired = np.asarray(actual, dtype=float), np.asarray(desired, dtype=float)
    assert actual.shape == desired.shape, f"{what}: shape {actual.shape} != {desired.shape}"
    error, allowed, rows = bad_rows(actual, desired, tolerance_class, scale)
    if rows.size:
        row = int(rows[0])
        at = (row,) if error.ndim else ()
        raise AssertionError(
            f"{what}: {rows.size} row(s) differ, the first at row {row + 1} (1-based): {actual[at].tolist()} != "
            f"{desired[at].tolist()} (error {float(np.max(error[at])):.3g} > {tolerance_class.name} tolerance "
            f"{float(np.min(allowed[at])):.3g} = rtol {tolerance_class.rtol:g} x scale + atol {tolerance_class.atol:g})")
