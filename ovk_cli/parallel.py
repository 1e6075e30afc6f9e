"""Where work runs: this process, local worker processes, or a Dask distributed cluster.

``executor(workers, scheduler)`` yields a ``concurrent.futures.Executor`` (None for one worker: the work runs
in this process, in order):

* ``workers > 1``, no scheduler: a ``ProcessPoolExecutor`` of ``workers`` processes forked from a forkserver
  that has already imported the package (the standard library; no Dask needed, started in well under a second,
  where a Dask ``LocalCluster`` spends seconds starting a scheduler and nannies for the same result);
  ``start="fork"``: forked from this process itself, as it is when the first item is submitted (its modules as
  loaded, in memory; started in ~15 ms where the forkserver takes ~0.25 s): what ``conform`` computes its
  expected values on, so that they come from the reference code its seal fixed, never read from disk again;
* ``scheduler="tcp://host:8786"``: the Dask cluster behind that scheduler, through ``Client.get_executor``
  (optional extra ``distributed``); each Dask worker needs the same ovk installed (``units.Unit.version``).

``map_ordered(function, items, ...)`` runs ``function`` on every item there and returns the results in the
order of ``items``, whatever the order of completion; ``done(index, result)`` is called as each one ends. Given
``cost`` (an item's expected seconds), the pool receives the items costliest first, so that the last item to start is
a short one and no worker waits long alone at the end (the longest-processing-time-first rule); the results do not
depend on that order. A local
worker process that dies (killed, out of memory) ends the run with ``WorkerLost``, naming the items left unfinished,
instead of a traceback from the process pool. Local workers end with the run whatever ends it: they follow the
run's process (``parent_watch``: SIGKILL of the run included), and an exception or an interruption in the run
(Ctrl-C, SIGTERM) kills them at once instead of waiting for their units to finish.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os

from ovk_cli import parent_watch
from ovk_cli.errors import UsageError
from ovk_fast.threads import usable_cores

#: modules the forkserver imports once, so that every local worker starts with them loaded
PRELOAD = ["proofs_check.units", "proofs_check.claims"]


class WorkerLost(RuntimeError):
    """A local worker process died while it ran an item: the run has no result for it, hence no report."""


def default_workers() -> int:
    """The machine's cores (those this process may use: ``ovk_fast.threads.usable_cores``)."""
    return usable_cores()


def check_workers(option: str, workers) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UsageError(f"{option} must be a whole number of processes >= 1, got {workers!r}")
    return workers


def _dask_client(scheduler: str):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError('--scheduler needs the optional extra "distributed": pip install "ovk[distributed]"') from None
    try:
        return Client(scheduler, timeout="30s")
    except (OSError, TimeoutError) as error:
        raise UsageError(f"--scheduler {scheduler}: no Dask scheduler answers there ({error})") from None
    except (ValueError, TypeError) as error:   # a malformed address, e.g. without its port
        raise UsageError(str(error)) from None


#: how local workers start: copies of a forkserver that imported PRELOAD, or of this process
STARTS = ("forkserver", "fork")


@contextlib.contextmanager
def executor(workers: int = 1, scheduler: str | None = None, start: str = "forkserver"):
    """A ``concurrent.futures.Executor`` for ``workers`` local processes (started as ``start`` says) or the Dask
    cluster at ``scheduler``; None when the work should run in this process (one worker, no scheduler)."""
    if start not in STARTS:
        raise ValueError(f"start must be one of {', '.join(STARTS)}, got {start!r}")
    if scheduler is not None:
        with _dask_client(scheduler) as client:
            yield client.get_executor(pure=False)
        return
    check_workers("workers", workers)
    if workers == 1:
        yield None
        return
    context = multiprocessing.get_context(start)
    if start == "forkserver":
        context.set_forkserver_preload(PRELOAD)
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=parent_watch.follow,
                                                initargs=(os.getpid(),)) as pool:
        try:
            yield pool
        except BaseException:
            _kill_workers(pool)
            raise


def _kill_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes (what Python 3.14's ``ProcessPoolExecutor.kill_workers`` does; the pool's
    exit then finds them gone instead of waiting for their running units)."""
    for process in list((pool._processes or {}).values()):
        process.kill()


def map_ordered(function, items, *, workers: int = 1, scheduler: str | None = None, done=None, cost=None) -> list:
    """``[function(item) for item in items]``, computed by ``executor(workers, scheduler)``; never more local
    processes than items (one item runs in this process, in order); ``cost(item)``: submitted costliest first."""
    items = list(items)
    results = [None] * len(items)
    with executor(min(check_workers("workers", workers), max(len(items), 1)), scheduler) as pool:
        if pool is None:
            for index, item in enumerate(items):
                results[index] = function(item)
                if done is not None:
                    done(index, results[index])
            return results
        order = range(len(items)) if cost is None else sorted(range(len(items)), key=lambda index: -cost(items[index]))
        futures = {pool.submit(function, items[index]): index for index in order}
        try:
            for future in concurrent.futures.as_completed(futures):
                index = futures[future]
                results[index] = future.result()
                if done is not None:
                    done(index, results[index])
        except concurrent.futures.process.BrokenProcessPool:
            unfinished = [items[index] for future, index in futures.items() if not _finished(future)]
            raise WorkerLost(f"a worker process died (killed, or out of memory) while {len(unfinished)} of {len(items)} "
                             f"items were unfinished ({', '.join(map(_name, unfinished[:3]))}"
                             f"{', ...' if len(unfinished) > 3 else ''}): no report; run again, or with --workers 1 "
                             "to run in this process") from None
        except BaseException:
            # local workers are killed by executor(), and the pool fails their futures itself (cancelling them
            # first makes Python's pool manager thread fail with InvalidStateError when it marks them broken)
            if not isinstance(pool, concurrent.futures.ProcessPoolExecutor):
                for future in futures:
                    future.cancel()
            raise
    return results


def _finished(future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


def _name(item) -> str:
    return getattr(item, "name", None) or repr(item)
