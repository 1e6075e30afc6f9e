"""A run stopped in any way leaves no process behind and its outputs whole (fault injection, real processes).

SIGKILL of the run's process (an out-of-memory kill, a hard CI cancel) leaves no process of its group (the
forkserver, its workers, the resource tracker) after ``GONE_SECONDS``; Ctrl-C (SIGINT to the whole group, as a
terminal sends it) and SIGTERM (to the run's process, as ``timeout`` and CI runners send it) end the run with one
line, exit 130 or 143, no traceback. In every case the previous report or output folder is whole: the previous one
or a complete new one. Kills at seeded random points of a run check the same.
"""
import json
import os
import random
import signal
import time

import pytest
from processes import GONE_SECONDS, group_table, ovk_check

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and process groups")

#: enough units that two workers are busy for a while (the whole ci registry is ~20 s on 2 workers)
VERIFY = ["verify", "--profile", "ci", "--workers", "2"]
#: two data sets, so that both workers of a reproduction run
REPRODUCE = ["reproduce", "--quick", "--no-progress", "--table3-one-engine", "--workers", "2",
             "--datasets", "synthetic-5000,dermatology"]
#: the run's process, the resource tracker, the forkserver and two workers
WORKING = 5
PREVIOUS_REPORT = json.dumps({"previous": "report", "padding": "x" * 20000})   # more than a write buffer


def _previous_report(folder):
    path = folder / "report.json"
    path.write_text(PREVIOUS_REPORT)
    return path


def _report_is_whole(path) -> None:
    """``path`` holds the previous report or a complete new one; beside it at most the writer's temporary file."""
    text = path.read_text()
    assert text == PREVIOUS_REPORT or "verdicts" in json.loads(text)
    others = [entry.name for entry in path.parent.iterdir() if entry.name != path.name]
    assert all(name.startswith(f".{path.name}.tmp-") for name in others), others


def _previous_output(folder):
    """A complete output folder of an earlier run (its files and a manifest that matches them)."""
    from ovk_experiments.output import atomic
    from ovk_experiments.reproduce import OUTPUTS

    out = folder / "out"
    out.mkdir()
    for name in OUTPUTS:
        (out / name).write_text(f"an earlier run's {name}")
    atomic.write_manifest(out, OUTPUTS)
    return out


def _output_is_whole(out, previous_only: bool = False) -> None:
    from shared.outputs import is_complete

    assert is_complete(out), sorted(os.listdir(out))
    if previous_only:
        assert (out / "report.md").read_text() == "an earlier run's report.md"
    others = [entry.name for entry in out.parent.iterdir() if entry.name != out.name]
    assert all(name.startswith((".out.partial-", ".out.previous-")) for name in others), others


def test_sigkill_of_verify_with_two_workers_leaves_no_process(tmp_path):
    report = _previous_report(tmp_path)
    with ovk_check([*VERIFY, "--json", str(report)]) as run:
        run.wait_for_processes(WORKING)
        run.signal(signal.SIGKILL)
        assert run.leftovers() == [], f"still running {GONE_SECONDS} s after the kill"
    assert report.read_text() == PREVIOUS_REPORT
    assert os.listdir(tmp_path) == ["report.json"]


def test_sigkill_of_reproduce_leaves_no_process(tmp_path):
    out = _previous_output(tmp_path)
    with ovk_check([*REPRODUCE, "--out", str(out)]) as run:
        run.wait_for_processes(WORKING)
        run.signal(signal.SIGKILL)
        assert run.leftovers() == [], f"still running {GONE_SECONDS} s after the kill"
    _output_is_whole(out, previous_only=True)


def test_a_run_that_ends_normally_leaves_no_process(tmp_path):
    with ovk_check([*VERIFY, "--claim", "loss.convex", "--claim", "def1.psd", "--json", str(tmp_path / "r.json")]) as run:
        assert run.finish() == 0
        assert run.leftovers() == []


def test_a_worker_killed_mid_run_ends_the_run_with_exit_3_and_no_process(tmp_path):
    """The other workers, the forkserver and the resource tracker end with the run (WorkerLost, exit 3)."""
    report = _previous_report(tmp_path)
    with ovk_check([*VERIFY, "--json", str(report)]) as run:
        run.wait_for_processes(WORKING)
        table = group_table(run.group)
        forkserver = next(pid for pid, parent, command in table
                          if parent == run.group and "forkserver" in command)
        worker = next(pid for pid, parent, _ in table if parent == forkserver)
        os.kill(worker, signal.SIGKILL)
        assert run.finish() == 3
        assert "a worker process died" in _one_line_after_progress(run.text())
        assert run.leftovers() == []
    assert report.read_text() == PREVIOUS_REPORT


def _one_line_after_progress(text: str) -> str:
    """The run's stderr holds progress lines and then exactly one line; that line."""
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line and not line.startswith("[")]
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_ends_verify_with_one_line_and_exit_130(tmp_path, workers):
    report = _previous_report(tmp_path)
    with ovk_check([*VERIFY, "--workers", workers, "--json", str(report)]) as run:
        run.wait_for_line("[1/")           # the work has started (in every worker)
        run.signal(signal.SIGINT, whole_group=True)
        assert run.finish() == 130
        assert "interrupted by SIGINT" in _one_line_after_progress(run.text())
        assert run.leftovers() == []
    assert report.read_text() == PREVIOUS_REPORT
    assert os.listdir(tmp_path) == ["report.json"]


def test_sigterm_ends_reproduce_with_one_line_and_exit_143(tmp_path):
    out = _previous_output(tmp_path)
    with ovk_check([*REPRODUCE, "--out", str(out)]) as run:
        run.wait_for_processes(WORKING)
        run.signal(signal.SIGTERM)
        assert run.finish() == 143
        assert "interrupted by SIGTERM" in _one_line_after_progress(run.text())
        assert run.leftovers() == []
    _output_is_whole(out, previous_only=True)
    assert sorted(os.listdir(tmp_path)) == ["out"]     # the staging folder, if any, deleted


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("command", ["verify", "reproduce"])
def test_a_kill_at_a_random_point_leaves_no_process_and_whole_outputs(tmp_path, command, seed):
    """SIGKILL at a seeded random time in the first seconds: while the interpreter starts, the forkserver starts,
    the workers start or work (the seed's time is in the test id's seed)."""
    delay = random.Random(seed).uniform(0.0, 4.0)
    if command == "verify":
        target = _previous_report(tmp_path)
        arguments = [*VERIFY, "--claim", "loss.convex", "--claim", "def1.psd", "--claim", "prop1.i",
                     "--json", str(target)]
    else:
        target = _previous_output(tmp_path)
        arguments = [*REPRODUCE, "--out", str(target)]
    with ovk_check(arguments) as run:
        time.sleep(delay)       # the random point itself, not a wait for something
        if run.process.poll() is None:
            run.signal(signal.SIGKILL)
        assert run.leftovers() == [], f"killed {delay:.2f} s after its start, still running {GONE_SECONDS} s later"
    if command == "verify":
        _report_is_whole(target)
    else:
        _output_is_whole(target)
