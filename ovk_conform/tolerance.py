"""The oracle's tolerance policy (issue 9, items 6 and 7): code, not data.

A float field passes when every stored row is within ``rtol x scale`` of the reference, ``scale`` being the
field's ``max |expected|`` over the stored rows (errors are relative to the size of the numbers a round
combines, not to each entry, which can be a cancellation); integer counts must be exact. ``rtol`` depends
on the precision class only (``ovk_ref.tolerances``, where each value has its reason):

* ``float64``: CONFORMANCE_RTOL = 1e-9;
* ``float32``: CONFORMANCE_FLOAT32_RTOL = 1e-3, for the cases float32 can represent (``outside_class``).
"""
from __future__ import annotations

import numpy as np

from ovk_ref import tolerances

PRECISIONS = {"float64": tolerances.CONFORMANCE_RTOL, "float32": tolerances.CONFORMANCE_FLOAT32_RTOL}


def rtol(precision: str) -> float:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return PRECISIONS[precision]


def outside_class(case, precision: str) -> str | None:
    """Why ``case`` cannot certify an implementation of this precision class (None when it can)."""
    if precision != "float32" or not case.X.size:
        return None
    spread = float(np.max(np.ptp(case.X, axis=0))) if len(case.X) > 1 else 0.0
    magnitude = float(np.max(np.abs(case.X)))
    if spread > 0 and np.finfo(np.float32).eps / 2 * magnitude > tolerances.FLOAT32_INPUT_RESOLUTION * max(spread, 0.0):
        return (f"inputs not representable in float32: |x| up to {magnitude:.3g} with spread {spread:.3g} "
                f"(float32 rounds them by {np.finfo(np.float32).eps / 2 * magnitude:.2g})")
    return None
