"""The oracle's tolerance policy: code, not data.

A float field passes when every stored row is within ``rtol x scale`` of the reference, ``scale`` being the
field's ``max |expected|`` over the stored rows (errors are relative to the size of the numbers a round
combines, not to each entry, which can be a cancellation); integer counts must be exact. ``rtol`` depends
on the precision class only (below, each value with its reason):

* ``float64``: CONFORMANCE_RTOL = 1e-9;
* ``float32``: per case, FLOAT32_ENVELOPE_FACTOR times an honest float32 computation's error on that case, at least
  FLOAT32_ENVELOPE_FLOOR (``float32_envelope``), for the cases float32 can represent (``outside_class``);
  CONFORMANCE_FLOAT32_RTOL = 1e-3 where no envelope is measured (the Python API's ``check_case``).
"""
from __future__ import annotations

import numpy as np

from ovk_ref.closeness import ToleranceClass

#: what a float64 implementation must meet on a golden vector, per field, relative to the field's
#: scale max|expected| (expected = ovk_ref at 50 digits). The cases are built so that float64
#: round-off stays near 1e-14 relative: at most 25 rounds, kernel norms and eta_1 kappa^2 of order 1,
#: batch systems with condition number below BATCH_CONDITION_LIMIT. 1e-9 leaves a margin of about
#: 1e4 for other summation orders (vectorised, GPU), while every wrong step the suite guards against
#: (a skipped shrink, eta_{t+1}, the misparsed exponents, a window off by one, K(x_i, x)) moves a
#: field by more than 1e-3 of its scale.
CONFORMANCE_RTOL = 1e-9
#: a batch case's system ``G + t lam I`` has condition number at most this (the generator refuses
#: others): float64 solves lose about log10(cond) digits, so 1e4 keeps the error near 1e-12, well
#: inside CONFORMANCE_RTOL.
BATCH_CONDITION_LIMIT = 1e4
#: a float32 implementation against the reference, per field, relative to the field's scale max|expected|.
#: Model: each round combines O(support) terms whose float32 rounding (unit roundoff u = 2^-24 = 6e-8) is
#: relative to the terms' scale; predictions feed the next coefficients, and with eta_t = eta/sqrt(t) and
#: shrink factors below 1 the propagated error stays a bounded multiple of the per-round error (every run
#: of the vectors is stable). Measured with an honest float32 engine
#: (ovk_conform.plain_engine.float32_engine) on every quick and standard case float32 can
#: represent and 60 fresh cases: at most 1.2e-6 of the scale, except MONORMA's weights with r = 10 at
#: 1.2e-4 (delta^(r/(r+1)) sums amplify the gamma error). 1e-3 leaves a margin of 8 there and of 800
#: elsewhere, and still rejects every regime fault on its regime case (the smallest: a batch solver stopped
#: early, 6e-3 of the scale), except the far-input fault, whose cases are outside the float32 class.
CONFORMANCE_FLOAT32_RTOL = 1e-3
#: a case is outside the float32 class when rounding its inputs to float32 moves them by more than this
#: fraction of their spread (u32 max|x| / spread): inputs offset by 1e6 with spread 1 are rounded by 0.06,
#: which no float32 engine can undo, so those cases certify float64 engines only.
FLOAT32_INPUT_RESOLUTION = 1e-4

#: the float32 class judges each case's float fields against an honest float32 computation of that case
#: (``float32_envelope.honest_errors``: plain_engine's float32 loops, a float32 batch solve), never a tolerance an
#: implementation grants itself. Another honest float32 engine sums in another order (blocked, fused, pairwise):
#: its error is the same O(u) times the same problem-dependent factor, with another constant; 16 leaves room for
#: that constant, while a float64 engine whose step size is off by 1e-4 errs by about 100 times an honest float32
#: engine (issue 33) and is rejected.
FLOAT32_ENVELOPE_FACTOR = 16.0
#: a case on which the honest float32 computation happens to be nearly exact (a constant kernel, a handful of rounds)
#: still allows 2^-17 = 7.6e-6 of the scale: 128 float32 roundings (u = 2^-24), the error of one round summing
#: a hundred terms.
FLOAT32_ENVELOPE_FLOOR = 2.0 ** -17

PRECISIONS = {"float64": CONFORMANCE_RTOL, "float32": CONFORMANCE_FLOAT32_RTOL}
#: each precision class as an ``ovk_ref.closeness`` comparison (relative to the field's scale, no absolute floor)
CLASSES = {precision: ToleranceClass(precision, rtol, 0.0, f"a {precision} implementation against the reference")
           for precision, rtol in PRECISIONS.items()}
#: integer counts (support sizes, window lengths) must be exact
EXACT = ToleranceClass("exact", 0.0, 0.0, "integer counts are exact")


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
    if spread > 0 and np.finfo(np.float32).eps / 2 * magnitude > FLOAT32_INPUT_RESOLUTION * max(spread, 0.0):
        return (f"inputs not representable in float32: |x| up to {magnitude:.3g} with spread {spread:.3g} "
                f"(float32 rounds them by {np.finfo(np.float32).eps / 2 * magnitude:.2g})")
    return None
