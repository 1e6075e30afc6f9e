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

A time-out is not a verdict on the first try: a loaded machine (load 11 on 2 cores: a correct engine's MONORMA cases
hit 10 s) is slow, not wrong. The case is called once more with ``retry_limit``: ``RETRY_FACTOR`` times the limit, and
more on a machine busier than its cores (``os.getloadavg``); only a second time-out fails it (and counts towards
``TIMEOUTS_PER_ALGORITHM``). Once a case of an algorithm has timed out twice, that algorithm's later time-outs are
not retried, so a hang costs 2 + RETRY_FACTOR limits (up to 2 + MAX_RETRY_FACTOR on a loaded machine).
"""
from __future__ import annotations

import os

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
#: a timed-out case is retried with this many times its limit (at least): the limits are already several times
#: ovk_ref's loops on a loaded machine, yet 5 MONORMA cases of a correct engine passed 10 s in one suite run at load 11
#: on 2 cores (issue 34); three times more, or the load per core when larger, leaves room for such a machine
RETRY_FACTOR = 3.0
#: the load scale of a retry stops here (a load of 16 per core is a machine that cannot run the case in any time)
MAX_RETRY_FACTOR = 8.0


def retry_limit(limit: float) -> float:
    """The limit of a timed-out case's second call: ``RETRY_FACTOR`` times ``limit``, or the machine's load per
    core times it when that is larger (the 1-minute load average over the cores: a load of 12 on 2 cores, 6x)."""
    try:
        busy = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:        # no load average on this platform
        busy = 0.0
    return limit * min(max(RETRY_FACTOR, busy), MAX_RETRY_FACTOR)


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
