"""The reference's values for a case: ovk_ref's run of the case's algorithm, every record field, every round."""
from __future__ import annotations

import ovk_ref
from ovk_conform.protocol import call_arguments


def reference_fields(algorithm: str, X, Y, arguments: dict, precision=None) -> dict:
    """Every record field of ovk_ref's run (``precision``: None for float64, or digits), as arrays."""
    result = getattr(ovk_ref, algorithm)(X, Y, precision=precision, **call_arguments(arguments))
    return {"coefficients": result} if algorithm == "batch_ridge" else result.to_dict()
