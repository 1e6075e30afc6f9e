"""Worker processes end with the run that started them, whatever ends the run (SIGKILL included).

A local worker of ``parallel.executor`` is a child of the multiprocessing forkserver, not of the run's process,
and it holds the pipes that keep the forkserver and the resource tracker alive: when the run's process is killed
(SIGKILL, the out-of-memory killer, a hard CI cancel) no signal reaches the worker, and Linux's
``PR_SET_PDEATHSIG`` would fire only at the death of the forkserver, which the workers themselves keep alive.
So each worker watches the run's process itself: ``follow(pid)``, run at the worker's start, starts a daemon thread
that ends the worker (``os._exit``) as soon as the process ``pid`` has ended, woken by the kernel through a pidfd
on Linux (at the exit, before the parent reaps it) and elsewhere by polling every ``POLL_SECONDS``. Once the
workers are gone the forkserver and the resource tracker read end-of-file on their pipes and exit by themselves.

``follow`` also makes the worker ignore SIGINT: Ctrl-C reaches the whole process group, and the run's process,
which ends its workers itself, prints the one line about it (the forkserver and the resource tracker ignore it too).
A worker forked from the run's process itself (``executor(start="fork")``) would inherit the run's SIGTERM handler,
which stops a run and writes its reports: ``follow`` gives SIGTERM back its default, ending the worker.

``python -m ovk_cli.parent_watch PID MODULE [ARGS...]`` runs ``MODULE`` as ``python -m`` would, in a process
that follows the process PID: the test suite starts its Dask scheduler and workers so, and a killed test run
leaves none of them behind.
"""
from __future__ import annotations

import os
import runpy
import select
import signal
import sys
import threading
import time

#: seconds between two checks that the run's process lives, where no pidfd can wake the watch (not Linux)
POLL_SECONDS = 0.5
#: exit status of a worker that ended because its run ended (nothing reads it: the run is gone)
ORPHAN_EXIT = 70


def _pidfd(pid: int) -> int | None:
    """A pidfd of ``pid`` (readable once it has ended), or None where there is none: not Linux, an older kernel
    (ENOSYS) or a sandbox that refuses it (EPERM). ProcessLookupError when ``pid`` has already ended."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except ProcessLookupError:
        raise
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # it exists, as another user's process
        return True
    return True


def wait_for_exit(pid: int, poll_seconds: float = POLL_SECONDS) -> None:
    """Return once the process ``pid`` has ended."""
    try:
        handle = _pidfd(pid)
    except ProcessLookupError:
        return
    if handle is not None:
        select.select([handle], [], [])
        os.close(handle)
        return
    while _alive(pid):
        time.sleep(poll_seconds)


def _end_with(pid: int, poll_seconds: float) -> None:
    wait_for_exit(pid, poll_seconds)
    os._exit(ORPHAN_EXIT)


def follow(pid: int, poll_seconds: float = POLL_SECONDS) -> None:
    """End this process as soon as the process ``pid`` ends, and leave SIGINT to it (module docstring)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_end_with, args=(pid, poll_seconds), name=f"follow-{pid}", daemon=True).start()


if __name__ == "__main__":
    follow(int(sys.argv[1]))
    sys.argv = sys.argv[2:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
