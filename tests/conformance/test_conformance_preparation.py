"""The expected values computed on a pool of copies of the oracle's process (``ovk-check conform``'s
preparation, ``runner.prepare(pool=...)``): the same values, bit for bit, as the oracle computes alone; a pool
worker that returns a wrong reference row is caught (a row the vectors also store: no verdict; any other row: the
correct implementation fails there); a run stopped during the preparation (Ctrl-C, SIGTERM, SIGKILL) leaves no
process and no temporary file behind."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from process_state import alive

import ovk_fast
import ovk_ref
from ovk_cli.parallel import executor
from ovk_conform import checkpoints, fresh, reference, runner
from ovk_conform.hosts import InProcessHost
from ovk_conform.levels import level_cases
from ovk_conform.manifest import IntegrityError

ROOT = Path(__file__).resolve().parents[2]
#: the test's own process: the planted faults below act only in the pool's workers (other processes)
ORACLE = os.getpid()
#: the row of every recomputed segment that the planted fault changes: a row the vectors do not store (they store
#: the rounds within 3 of each checkpoint, both ends of a segment), and the last row, which they store
UNSTORED_OFFSET, STORED_OFFSET = 100, checkpoints.CHECKPOINT_EVERY - 1
ROWS_AFTER = checkpoints.rows_after


def _in_a_worker() -> bool:
    return os.getpid() != ORACLE


def wrong_fresh_reference(algorithm, X, Y, arguments):
    """ovk_ref's fields, with the last prediction moved by 1 when computed in a pool worker."""
    fields = reference.reference_fields(algorithm, X, Y, arguments)
    if _in_a_worker() and "predictions" in fields:
        fields["predictions"][-1] += 1.0
    return fields


def _wrong_row(offset):
    def rows(state, X, Y):
        computed = ROWS_AFTER(state, X, Y)
        if _in_a_worker():
            computed["predictions"][offset] += 1.0
        return computed
    return rows


def wrong_unstored_row(state, X, Y):
    return _wrong_row(UNSTORED_OFFSET)(state, X, Y)


def wrong_stored_row(state, X, Y):
    return _wrong_row(STORED_OFFSET)(state, X, Y)


def _prepared(pool):
    return runner.prepare(host=InProcessHost(ovk_fast), level="standard", seed=5, fuzz=8, pool=pool)


def test_the_pool_computes_the_expected_values_the_oracle_computes_alone():
    alone = _prepared(None)
    with executor(2, start="fork") as pool:
        pooled = _prepared(pool)
    assert [case.name for case in pooled.cases] == [case.name for case in alone.cases]
    assert any(case.checkpoints and len(case.rounds) > 300 for case in pooled.cases)     # segments were drawn
    for one, other in zip(alone.cases, pooled.cases):
        assert one.comment == other.comment and np.array_equal(one.rounds, other.rounds) if one.rounds is not None \
            else other.rounds is None
        assert one.expected.keys() == other.expected.keys()
        for name in one.expected:
            assert np.array_equal(one.expected[name], other.expected[name], equal_nan=True), (one.name, name)


def test_a_worker_that_returns_a_wrong_fresh_reference_row_fails_the_run(monkeypatch):
    monkeypatch.setattr(fresh, "reference_fields", wrong_fresh_reference)
    arguments = dict(host=InProcessHost(ovk_ref), level="quick", seed=2, fuzz=4, algorithms=("onorma",), reruns=0)
    assert runner.run(**arguments).passed            # computed here, the planted fault does not act
    with executor(2, start="fork") as pool:
        report = runner.run(**arguments, pool=pool)
    failed = [outcome for outcome in report.outcomes if outcome.status == "fail"]
    assert not report.passed and {outcome.regime for outcome in failed} == {fresh.FRESH_REGIME} and len(failed) == 4
    cases = {case.id: case for case in report.cases}
    assert all(outcome.diverging_field == "predictions" and outcome.diverging_round == len(cases[outcome.case].X)
               for outcome in failed)


def _underflow_stream():
    return next(case for case in level_cases("standard") if case.checkpoints)


def test_a_worker_that_returns_a_wrong_unstored_checkpoint_row_is_caught_by_the_comparison(monkeypatch):
    case = _underflow_stream()
    monkeypatch.setattr(checkpoints, "rows_after", wrong_unstored_row)
    assert runner.check_case(ovk_fast.onorma, checkpoints.DrawnRows(case, 3, 2).case()).status == "pass"
    with executor(2, start="fork") as pool:
        rows = checkpoints.DrawnRows(case, 3, 2, pool)
        drawn = rows.case()
    outcome = runner.check_case(ovk_fast.onorma, drawn)
    first = case.checkpoints[rows.chosen[0]]["state"]["t"] + 1
    assert outcome.status == "fail" and outcome.diverging_field == "predictions"
    assert outcome.diverging_round == first + UNSTORED_OFFSET


def test_a_worker_that_returns_a_wrong_stored_checkpoint_row_leaves_the_oracle_without_a_verdict(monkeypatch):
    case = _underflow_stream()
    monkeypatch.setattr(checkpoints, "rows_after", wrong_stored_row)
    with executor(2, start="fork") as pool:
        rows = checkpoints.DrawnRows(case, 3, 2, pool)
        with pytest.raises(IntegrityError, match=r"predictions of round \d+ recomputed from a checkpoint is .* the "
                                                 r"vectors store .*: the reference disagrees with itself"):
            rows.case()
    last = case.checkpoints[rows.chosen[0]]["state"]["t"] + checkpoints.CHECKPOINT_EVERY
    assert last in set(case.rounds.tolist())       # the planted row is one the vectors store


def _pool_workers(pid: int) -> list:
    """The children of ``pid`` forked from it (the same command line): the preparation's pool."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return []
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if parent == pid and (stat.parent / "cmdline").read_bytes() == command:
                children.append(int(stat.parent.name))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return children


def _during_the_preparation(tmp_path):
    """``conform ovk_fast --level exhaustive`` (its preparation takes seconds), once its pool works and the
    implementation has declared its scope: (the process, the pool's workers, its TMPDIR, its JSON report)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    report = tmp_path / "report.json"
    conform = subprocess.Popen([sys.executable, "-m", "ovk_cli.cli", "conform", "ovk_fast", "--level", "exhaustive",
                                "--seed", "1", "--workers", "2", "--json", str(report)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, TMPDIR=str(folder)))
    deadline, declared = time.monotonic() + 60, False
    # the pool starts before the implementation declares its scope (in a process, with a folder, of its own); the
    # fresh cases are computed after it
    while len(workers := _pool_workers(conform.pid)) < 2 or not declared or list(folder.iterdir()):
        assert conform.poll() is None and time.monotonic() < deadline, "the preparation's pool never started"
        declared = declared or bool(list(folder.glob("ovk-conform-*")))
        time.sleep(0.02)
    return conform, workers, folder, report


def _nothing_left(workers, folder) -> None:
    stop = time.monotonic() + 5
    while any(alive(pid) for pid in workers) and time.monotonic() < stop:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)], "a worker of the preparation outlived the run"
    assert not list(folder.iterdir()), "the run left temporary files behind"


@pytest.mark.parametrize("number, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_run_stopped_during_the_preparation_leaves_no_process_and_no_temporary_file(tmp_path, number, code):
    conform, workers, folder, report = _during_the_preparation(tmp_path)
    conform.send_signal(number)
    _, stderr = conform.communicate(timeout=60)
    assert conform.returncode == code and "Traceback" not in stderr
    assert "[1/" not in stderr                    # stopped before the first case
    if number != signal.SIGKILL:
        assert json.loads(report.read_text())["stopped"] == {signal.SIGINT: "interrupted (Ctrl-C)",
                                                            signal.SIGTERM: "terminated (SIGTERM)"}[number]
    _nothing_left(workers, folder)


def test_a_worker_of_the_preparation_killed_ends_the_run_with_the_reason(tmp_path):
    conform, workers, folder, report = _during_the_preparation(tmp_path)
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = conform.communicate(timeout=60)
    assert conform.returncode == 3 and "Traceback" not in stderr and "[1/" not in stderr
    assert "a process computing the expected values died" in stderr.splitlines()[-1]
    assert "a process computing the expected values died" in json.loads(report.read_text())["error"]
    _nothing_left(workers, folder)
