"""The float32 class: what an honest float32 computation of the same case reaches, measured per case.

An implementation's ``"precision": "float32"`` is a claim, never a tolerance it grants itself (docs/conformance.md).
The adopter chooses the class (``--precision``, float64 by default). At the float32 class each case's float
fields are judged against the envelope of an honest float32 computation of that very case
(``honest_errors``: ``plain_engine``'s float32 ONORMA and MONORMA, a float32 batch solve; inputs, kernel values,
coefficients and predictions in float32), widened by ``tolerance.FLOAT32_ENVELOPE_FACTOR`` and at least
``tolerance.FLOAT32_ENVELOPE_FLOOR`` (``rtols``). Whatever the class, an implementation that declares float32 must
return float32 numbers (``not_float32``): a float64 computation dressed as float32 is caught by its digits.
"""
from __future__ import annotations

import numpy as np

from ovk_conform import tolerance
from ovk_conform.protocol import call_arguments
from ovk_conform.vectors import EXACT_FIELDS, ROUND_FIELDS
from ovk_ref import closeness
from ovk_ref.kernels import as_kernel


def _float32_batch(X, Y, kernel, *, lam) -> dict:
    from ovk_fast.kernel_rows import KernelRows
    kernel = as_kernel(kernel)
    X32 = np.asarray(X, dtype=np.float32).astype(float)
    system = KernelRows(kernel, X32, X32).dense().astype(np.float32)
    system[np.diag_indices_from(system)] += np.float32(len(X) * lam)
    rhs = np.asarray(Y, dtype=np.float32).reshape(-1)
    return {"coefficients": np.linalg.solve(system, rhs).reshape(np.shape(Y))}


def _honest(algorithm: str):
    """The honest float32 computation of ``algorithm`` (imported when the float32 class is asked for)."""
    from ovk_conform.plain_engine import Float32Monorma, Float32Onorma
    return {"onorma": Float32Onorma(), "monorma": Float32Monorma(), "batch_ridge": _float32_batch}[algorithm]


def honest_errors(algorithm: str, X, Y, arguments: dict, expected: dict, rounds) -> dict:
    """Field -> the relative error (to the field's scale) of an honest float32 computation of the case, for every
    float field of ``expected``; a field the honest engine does not return takes the largest of the others."""
    fields = _honest(algorithm)(X, Y, **call_arguments(arguments, len(X)))
    errors = {}
    for name, values in fields.items():
        if name in EXACT_FIELDS or name not in expected:
            continue
        values = np.asarray(values, dtype=float)
        if rounds is not None and name in ROUND_FIELDS[algorithm]:
            values = values[np.asarray(rounds) - 1]
        scale = closeness.field_scale(expected[name])
        error = closeness.errors(values, expected[name])
        errors[name] = float(np.max(error)) / scale if scale > 0 and error.size else 0.0
    largest = max(errors.values(), default=0.0)
    return {name: errors.get(name, largest) for name in expected if name not in EXACT_FIELDS}


def rtols(errors: dict) -> dict:
    """Field -> the rtol of the float32 class for this case: the honest error times FLOAT32_ENVELOPE_FACTOR, at
    least FLOAT32_ENVELOPE_FLOOR (a non-finite honest error: the case is beyond float32, the fixed class rtol)."""
    return {name: (max(tolerance.FLOAT32_ENVELOPE_FACTOR * error, tolerance.FLOAT32_ENVELOPE_FLOOR)
                   if np.isfinite(error) else tolerance.CONFORMANCE_FLOAT32_RTOL) for name, error in errors.items()}


def not_float32(case, fields: dict) -> str | None:
    """Why the returned ``fields`` cannot come from a float32 computation (a finite value float32 cannot
    represent), or None."""
    for name, value in fields.items():
        if name in EXACT_FIELDS or name not in case.expected:
            continue
        try:
            values = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            continue        # the comparison says why
        finite = np.isfinite(values)
        bad = np.flatnonzero((values.astype(np.float32).astype(float) != values) & finite)
        if bad.size:
            index = np.unravel_index(bad[0], values.shape)
            return (f"declares precision float32, but its {name} at {tuple(int(i) for i in index)} holds "
                    f"{float(values[index]).hex()}, which float32 cannot represent (a float32 computation returns "
                    f"float32 numbers: a float64 computation declared as float32)")
    return None
