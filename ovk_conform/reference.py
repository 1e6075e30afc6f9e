"""The reference's values for a case: ovk_ref's run of the case's algorithm, every record field, every round;
computed in the oracle's process or on a pool of copies of it (``computed_on``)."""
from __future__ import annotations

import concurrent.futures

import ovk_ref
from ovk_conform.protocol import call_arguments


def reference_fields(algorithm: str, X, Y, arguments: dict, precision=None) -> dict:
    """Every record field of ovk_ref's run (``precision``: None for float64, or digits), as arrays."""
    result = getattr(ovk_ref, algorithm)(X, Y, precision=precision, **call_arguments(arguments, len(X)))
    return {"coefficients": result} if algorithm == "batch_ridge" else result.to_dict()


def computed_on(pool, function, *arguments) -> concurrent.futures.Future:
    """``function(*arguments)`` as a future: submitted to ``pool`` (a ``concurrent.futures.Executor`` whose
    processes are copies of the oracle's, forked after the seal: ``ovk_cli.parallel.executor(start="fork")``),
    or computed here and now when ``pool`` is None."""
    if pool is not None:
        return pool.submit(function, *arguments)
    future = concurrent.futures.Future()
    future.set_result(function(*arguments))
    return future
