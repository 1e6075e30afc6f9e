"""``ovk_cli.parent_watch``: a worker notices the end of the run's process by a pidfd (Linux) or by polling
(elsewhere), and without it a killed run leaves its workers, the forkserver and the resource tracker running (the
planted fault for test_faults_kills)."""
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from processes import GONE_SECONDS, ROOT, group_processes, wait_until

from ovk_cli import parent_watch

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX processes and signals")


@pytest.mark.parametrize("mechanism", ["pidfd", "polling"])
def test_the_watch_returns_when_the_watched_process_ends(mechanism, monkeypatch):
    if mechanism == "pidfd" and not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd on this platform")
    if mechanism == "polling":
        monkeypatch.setattr(parent_watch, "_pidfd", lambda pid: None)
    watched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    watch = threading.Thread(target=parent_watch.wait_for_exit, args=(watched.pid, 0.05), daemon=True)
    watch.start()
    watch.join(timeout=0.5)
    assert watch.is_alive(), "the watch returned while the process ran"
    watched.kill()
    watched.wait()
    watch.join(timeout=GONE_SECONDS)
    assert not watch.is_alive()


def test_a_process_that_has_already_ended_is_not_waited_for():
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    parent_watch.wait_for_exit(ended.pid)     # returns at once (ProcessLookupError inside)


#: the planted fault: workers that do not follow the run (what the pool did before parent_watch)
UNFOLLOWED = textwrap.dedent("""
    import sys
    from ovk_cli import parent_watch
    parent_watch.follow = abs       # a no-op of one argument that a worker can unpickle
    from ovk_cli import cli
    sys.exit(cli.main(sys.argv[1:]))
""")


def test_the_check_catches_workers_that_do_not_follow_the_run():
    process = subprocess.Popen([sys.executable, "-c", UNFOLLOWED, "verify", "--profile", "ci", "--workers", "2"],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert wait_until(lambda: len(group_processes(process.pid)) >= 5, 120, interval=0.2)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        wait_until(lambda: not group_processes(process.pid), GONE_SECONDS, interval=0.2)
        assert group_processes(process.pid), "the orphans should have stayed: the check would pass without the watch"
    finally:
        os.killpg(process.pid, signal.SIGKILL)       # the orphans this test made on purpose


def test_an_exception_in_the_run_kills_its_workers_at_once():
    """A unit that would run for ten minutes does not hold up an exception in the run (here in ``done``)."""
    import multiprocessing
    import time

    from ovk_cli import parallel

    def done(index, result):
        raise RuntimeError("the run failed")

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="the run failed"):
        parallel.map_ordered(time.sleep, [0.0, 600.0], workers=2, done=done)
    assert time.monotonic() - start < 300, "the run waited for its running unit"
    assert multiprocessing.active_children() == []
