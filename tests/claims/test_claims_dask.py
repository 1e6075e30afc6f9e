"""``ovk-check verify --scheduler ADDRESS`` (issue 14, item 3): a real Dask scheduler and two workers, started as
their own processes on the loopback interface, run a small hunt and report what the serial run reports."""
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from proofs_check.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: a claim that holds, one found false (its counterexample shrunk), one that holds with margin 0
CLAIM_IDS = ["def1.reproducing", "prop2.i_without_lam", "loss.convex"]
#: seconds to wait for the scheduler and the workers to come up on a loaded machine
STARTUP_SECONDS = 120


def _report(path: Path) -> list:
    return [{key: value for key, value in verdict.items() if key != "seconds"}
            for verdict in json.loads(path.read_text())["verdicts"]]


def _start(arguments, tmp_path, name):
    log = open(tmp_path / f"{name}.log", "w")
    return subprocess.Popen(arguments, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True), log


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
        started.append(_start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                              tmp_path, "scheduler"))
        address = _scheduler_address(scheduler_file, started[0][0])
        assert address.startswith("tcp://127.0.0.1:")
        for number in range(2):    # two threads each: units sharing a worker process still take turns
            started.append(_start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--host", "127.0.0.1",
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
