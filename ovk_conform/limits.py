"""How long the oracle waits: a case's time limit grows with the work the case asks for, so that a hang is
found in seconds on a small case and an honest literal implementation still has time on the long streams.

``case_limit(case)`` is ``MIN_SECONDS`` plus ``SECONDS_PER_ROUND`` per round and kernel and
``SECONDS_PER_EVALUATION`` per d x d kernel block the algorithm evaluates (spec 5.4, 6.6; batch ridge: its Gram
matrix and the solve). The rates are several times those of ovk_ref's literal loops on a loaded 2-core
machine (5 to 25 us per block evaluation of d = 2 depending on the kernel, 90 us per round of the
140000-round stream): a 4096-round untruncated stream gets about 3.5 minutes, a 20-round case 10 s. A worker process's first call of
an algorithm gets ``FIRST_CALL_SECONDS`` more (imports, JIT compilation) until that algorithm has timed out once. ``--timeout`` replaces the limit of
every case; ``--deadline`` bounds the whole run. After ``TIMEOUTS_PER_ALGORITHM`` timeouts of one algorithm,
its remaining cases are not sent: they fail naming the timeouts, so a hang costs two limits, not one per case.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import truncation

MIN_SECONDS = 10.0
SECONDS_PER_ROUND = 3e-4
SECONDS_PER_EVALUATION = 2.5e-5
SECONDS_PER_FLOP = 1e-9
FIRST_CALL_SECONDS = 10.0
#: importing the implementation in its worker process (numpy, scipy, a JIT on a loaded machine)
STARTUP_SECONDS = 120.0
#: a command's answer to the describe request
DESCRIBE_SECONDS = 60.0
TIMEOUTS_PER_ALGORITHM = 2


def _windows(spec, n: int) -> np.ndarray:
    """The number of terms f_{t-1} holds at round t = 1..n: at most ``t - 1`` and ``s_{t-1}`` (spec 5.3; fewer
    after a drop of several terms, which never return)."""
    t = np.arange(1, n + 1)
    schedule = truncation.from_dict(spec)
    if schedule is None:
        return t - 1
    return np.minimum(t - 1, np.concatenate([[0], schedule.sizes(n)[:-1]]))


def evaluations(case) -> float:
    """Kernel block evaluations of the case, weighted by the block size (d x d, relative to d = 2)."""
    n, d = case.Y.shape
    block = max(1.0, d * d / 4)
    if case.algorithm == "batch_ridge":
        return n * n * block
    m = len(case.arguments.get("kernels", ())) or 1
    return m * block * float(np.sum(_windows(case.arguments.get("truncation"), n)))


def case_limit(case, timeout: float | None = None) -> float:
    """Seconds the implementation may take on ``case`` (``timeout`` when given)."""
    if timeout is not None:
        return timeout
    n, d = case.Y.shape
    m = len(case.arguments.get("kernels", ())) or 1
    flops = (n * d) ** 3 / 3 if case.algorithm == "batch_ridge" else 0.0
    return (MIN_SECONDS + SECONDS_PER_ROUND * n * m + SECONDS_PER_EVALUATION * evaluations(case)
            + SECONDS_PER_FLOP * flops)
