"""ovk_fast's threads: BLAS calls on one thread, independent tiles of work on ovk_fast's own pool.

BLAS threads do not pay in the online loops, which make thousands of small BLAS calls where extra threads only
add synchronisation; and on a shared machine (other processes on the cores) OpenBLAS threads busy-wait for each
other. Measured on the 2-core machine under load (load average ~5): ONORMA t = 5000 in 0.12 s with one thread
against 0.6-1.9 s with two; batch ridge t = 5000 in 2.4-5.3 s against 12.8-16 s, and at t = 500 in 0.03 s
against 2.2 s; measured again after the tiled kernel rows (load average 4.4, medians of 9):
ONORMA t = 5000 in 0.40 s wall (0.20 s CPU) with one BLAS thread against 5.1 s (2.6 s CPU) with two. One BLAS
thread also keeps the summation order, hence the results, the same from run to run.

The cores are used instead by splitting the large, independent work (kernel rows of a block of rounds against
the stored points) into tiles that ``map_in_order`` runs on a pool of ``THREADS`` threads: numpy releases the
GIL in its GEMMs and ufuncs, and each tile is a few hundred microseconds of them. Each thread takes one
contiguous run of the tiles (one task per thread: measured on 400 tiles of ONORMA's shape, 1.93x one thread,
against 1.27-1.58x with one task per tile, whose hand-offs hold the GIL). Results come back in the tiles' order,
so sums over tiles do not depend on the threads.
"""
from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform has one, else the machine's): the one
    count of cores of the project (``ovk_cli.parallel.default_workers`` counts worker processes with it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def threads_from(value: str | None) -> int:
    """The pool's size from the ``OVK_FAST_THREADS`` environment variable (unset: the cores this process may use)."""
    if value is None:
        return usable_cores()
    if not value.strip().isdigit() or int(value) < 1:
        raise ValueError(f"OVK_FAST_THREADS must be a positive integer (threads of ovk_fast's pool), got {value!r}")
    return int(value)


#: threads of ovk_fast's pool (set ``OVK_FAST_THREADS=1`` where several ovk_fast processes already share the cores)
THREADS = threads_from(os.environ.get("OVK_FAST_THREADS"))

_pool: tuple[int, ThreadPoolExecutor] | None = None   # (pid that made it, pool): a forked child makes its own


@functools.cache
def _controller() -> ThreadpoolController:
    """The BLAS libraries loaded (numpy's, scipy's), found once: ``threadpool_limits`` scans the process's shared
    libraries at every call (measured 2.4 ms, a tenth of ONORMA at t = 2000)."""
    return ThreadpoolController()


def single_blas_thread():
    """Context manager limiting BLAS to one thread."""
    return _controller().limit(limits=1, user_api="blas")


def map_in_order(function, items) -> list:
    """``[function(item) for item in items]``, computed on ovk_fast's threads (one contiguous run of the items
    each) when there are several items. numpy's handling of floating-point errors is per thread: the items run
    under the caller's (an engine ignores overflow and says divergence once, ``ovk_ref.divergence``)."""
    items = list(items)
    runs = min(THREADS, len(items))
    if runs < 2:
        return [function(item) for item in items]
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(THREADS, thread_name_prefix="ovk_fast"))
    bounds = [len(items) * i // runs for i in range(runs + 1)]
    errors = np.geterr()

    def run(i):
        with np.errstate(**errors):
            return [function(item) for item in items[bounds[i]:bounds[i + 1]]]

    return [result for chunk in _pool[1].map(run, range(runs)) for result in chunk]
