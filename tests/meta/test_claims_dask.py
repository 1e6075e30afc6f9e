"""``ovk-check verify --scheduler ADDRESS``: a real Dask scheduler and two workers, started as
their own processes on the loopback interface, run a small hunt and report what the serial run reports. They follow
the test process (``ovk_cli.parent_watch``): a killed test run leaves no scheduler or worker behind."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from ovk_cli.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: a claim that holds, one found false (its counterexample shrunk), one that holds with margin 0
CLAIM_IDS = ["def1.reproducing", "prop2.i_without_lam", "loss.convex"]
#: seconds to wait for the scheduler and the workers to come up on a loaded machine
STARTUP_SECONDS = 120


def _report(path: Path) -> list:
    return [{key: value for key, value in verdict.items() if key != "seconds"}
            for verdict in json.loads(path.read_text())["verdicts"]]


def _start(module_and_arguments, tmp_path, name, parent=None):
    """``python -m MODULE ARGS`` as its own session, ending when the process ``parent`` (this one) ends."""
    log = open(tmp_path / f"{name}.log", "w")
    command = [sys.executable, "-m", "ovk_cli.parent_watch", str(parent or os.getpid()), *module_and_arguments]
    return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True), log


def _scheduler_command(scheduler_file: Path) -> list:
    return ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--scheduler-file", str(scheduler_file)]


def _scheduler_address(scheduler_file: Path, process) -> str:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        if scheduler_file.exists() and scheduler_file.stat().st_size:
            try:
                return json.loads(scheduler_file.read_text())["address"]
            except ValueError:
                pass      # written but not yet complete
        time.sleep(0.2)
    raise AssertionError(f"the Dask scheduler did not start (exit code {process.poll()})")


@pytest.mark.slow
def test_a_dask_cluster_on_loopback_reports_what_the_serial_run_reports(tmp_path):
    scheduler_file = tmp_path / "scheduler.json"
    started = []
    try:
        started.append(_start(_scheduler_command(scheduler_file), tmp_path, "scheduler"))
        address = _scheduler_address(scheduler_file, started[0][0])
        assert address.startswith("tcp://127.0.0.1:")
        for number in range(2):    # two threads each: units sharing a worker process still take turns
            started.append(_start(["distributed.cli.dask_worker", address, "--host", "127.0.0.1",
                                   "--nthreads", "2", "--no-dashboard", "--no-nanny", "--name", f"worker-{number}",
                                   "--local-directory", str(tmp_path / f"worker-{number}")], tmp_path, f"worker-{number}"))
        with distributed.Client(address, timeout=STARTUP_SECONDS) as client:
            client.wait_for_workers(2, timeout=STARTUP_SECONDS)
            assert all(worker.startswith("tcp://127.0.0.1:") for worker in client.scheduler_info()["workers"])

        arguments = ["verify", "--profile", "ci"] + [option for claim_id in CLAIM_IDS for option in ("--claim", claim_id)]
        assert main(arguments + ["--scheduler", address, "--json", str(tmp_path / "dask.json")]) == 0
        assert main(arguments + ["--workers", "1", "--json", str(tmp_path / "serial.json")]) == 0
        dask_report, serial_report = _report(tmp_path / "dask.json"), _report(tmp_path / "serial.json")
        assert dask_report == serial_report
        assert [verdict["verdict"] for verdict in serial_report] == ["holds", "false", "holds"]
        worker_logs = [(tmp_path / f"worker-{number}.log").read_text() for number in range(2)]
        assert all("Registered to" in log for log in worker_logs), worker_logs
    finally:
        for process, log in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()


def _alive(pid: int) -> bool:
    """``pid`` runs (a zombie has ended: its parent is gone, and a container's init may not reap it)."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_the_test_cluster_ends_with_the_test_process(tmp_path):
    """A stand-in for the test process starts a scheduler as the test above does, and is killed (SIGKILL): the
    scheduler is gone within seconds (it stayed for ever when the tests started it with plain Popen)."""
    stand_in = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    scheduler_file = tmp_path / "scheduler.json"
    scheduler, log = _start(_scheduler_command(scheduler_file), tmp_path, "scheduler", parent=stand_in.pid)
    try:
        _scheduler_address(scheduler_file, scheduler)
        stand_in.kill()
        stand_in.wait()
        deadline = time.monotonic() + 5
        while _alive(scheduler.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(scheduler.pid), "the scheduler outlived the process it follows"
    finally:
        stand_in.kill()
        with contextlib.suppress(ProcessLookupError):
            os.kill(scheduler.pid, signal.SIGKILL)
        scheduler.wait()
        log.close()
