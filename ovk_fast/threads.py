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

Work that a sequential part does not wait for (ONORMA's next block, while a block's rounds run) goes to
``map_in_background``: one pool thread takes the jobs from the front while the caller goes on, and the caller,
when it needs them, takes those left from the back instead of waiting; results again in the jobs' order; or drops
those not started (``cancel``) where their results are not wanted.
"""
from __future__ import annotations

import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

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
    bounds = [len(items) * i // runs for i in range(runs + 1)]
    run = _under_errstate(lambda i: [function(item) for item in items[bounds[i]:bounds[i + 1]]])
    return [result for chunk in _the_pool().map(run, range(runs)) for result in chunk]


def map_in_background(function, items):
    """``[function(item) for item in items]`` started on one of ovk_fast's threads while the caller goes on: returns
    an object whose ``extend(items)`` adds items, whose ``result()`` computes the items not yet started on the
    calling thread too (from the last one back), waits for the rest and returns the list in the items' order (or
    raises an item's exception), and whose ``cancel()`` starts no more of them. On one thread (``THREADS`` = 1) the
    items all run in ``result()``. Under the caller's handling of floating-point errors."""
    return _SharedMap(function, items, THREADS >= 2)


class _SharedMap:
    """The items of ``map_in_background``, taken from the front by a pool thread and from the back by ``result()``."""

    def __init__(self, function, items, background: bool):
        self._function, self._background, self._future = function, background, None
        self._items, self._results, self._front, self._back = [], [], 0, 0
        self._lock = threading.Lock()
        self.extend(items)

    def extend(self, items) -> None:
        """More items, after the others (before ``result()``); the pool thread is started again if it had run out."""
        items = list(items)
        with self._lock:
            self._items += items
            self._results += [None] * len(items)
            self._back = len(self._items)
        if self._background and items and (self._future is None or self._future.done()):
            if self._future is not None:
                self._future.result()           # an item's exception, now
            self._future = _the_pool().submit(_under_errstate(self._from_front))

    def _from_front(self) -> None:
        while True:
            with self._lock:
                if self._front >= self._back:
                    return
                i, self._front = self._front, self._front + 1
            self._results[i] = self._function(self._items[i])

    def cancel(self) -> None:
        """Start no more items; return once the one the pool thread runs is done (its result and exception dropped:
        a run that ends by an exception keeps its own)."""
        with self._lock:
            self._back = self._front
        if self._future is not None:
            wait([self._future])

    def result(self) -> list:
        while True:
            with self._lock:
                if self._front >= self._back:
                    break
                self._back -= 1
                i = self._back
            self._results[i] = self._function(self._items[i])
        if self._future is not None:
            self._future.result()
        return self._results


def _under_errstate(function):
    """``function`` run under the calling thread's numpy error handling (numpy's is per thread)."""
    errors = np.geterr()

    def run(*arguments):
        with np.errstate(**errors):
            return function(*arguments)

    return run


def _the_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(THREADS, thread_name_prefix="ovk_fast"))
    return _pool[1]
