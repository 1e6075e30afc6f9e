"""Nothing of a conformance run outlives it, and no message from the implementation can crash it: cancelling
``conform --command`` (SIGTERM, Ctrl-C, ``timeout`` around it, an exception, a normal end) ends the
implementation's process and its process group and removes its ``ovk-conform-*`` folder; a hanging command ends
the run promptly; a result nested 100000 levels deep, or too large, fails its case with the reason; Ctrl-C prints
one line. Each test drives ``ovk-check`` as a CI runner does, in a process of its own."""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from process_state import alive

from ovk_cli import cli, errors
from ovk_conform import limits, wire

ROOT = Path(__file__).resolve().parents[2]

#: a command that declares ONORMA, then, on every case, starts a child in its process group, writes both pids to
#: the file $PIDS and hangs (HANG_ON: only on that case; it answers an error on the others)
HANGING = '''
import json, os, subprocess, sys, time
request = json.load(open(sys.argv[1]))
if request.get("describe"):
    json.dump({"scope": {"algorithms": {"onorma": {}}}}, open(sys.argv[2], "w"))
    sys.exit(0)
if os.environ.get("HANG_ON", request["case"]) != request["case"]:
    json.dump({"error": "not this one"}, open(sys.argv[2], "w"))
    sys.exit(0)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(os.environ["PIDS"], "a") as file:
    file.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(600)
'''


def _pids(path: Path) -> list:
    return [int(pid) for line in path.read_text().splitlines() for pid in line.split()] if path.exists() else []


@pytest.fixture
def hanging(tmp_path):
    """(the command line, the pids file, the temporary folder conform runs with)."""
    script = tmp_path / "hanging.py"
    script.write_text(HANGING)
    folder = tmp_path / "tmp"
    folder.mkdir()
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", tmp_path / "pids", folder


def _start(command, pids, folder, *arguments, launcher=(), **environment):
    return subprocess.Popen([*launcher, sys.executable, "-m", "ovk_cli.cli", "conform", "--command", command,
                             "--level", "quick", "--seed", "1", *arguments], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PIDS=str(pids), TMPDIR=str(folder), **environment))


def _wait_for(pids: Path, count: int = 2) -> None:
    deadline = time.monotonic() + 60
    while len(_pids(pids)) < count:
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.1)


def _nothing_left(pids: Path, folder: Path) -> None:
    """No process of the implementation within 5 s, and no ``ovk-conform-*`` folder in ``folder``."""
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in _pids(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in _pids(pids) if alive(pid)], "processes of the implementation outlived the run"
    assert not list(folder.glob("ovk-conform-*")), "the run's temporary folder was left behind"


@pytest.mark.parametrize("number, code, said", [(signal.SIGTERM, 143, "terminated (SIGTERM)"),
                                                (signal.SIGINT, 130, "interrupted (Ctrl-C)")])
def test_a_signal_ends_the_command_and_its_process_group_writes_the_report_and_prints_one_line(hanging, tmp_path,
                                                                                               number, code, said):
    command, pids, folder = hanging
    report = tmp_path / "report.json"
    conform = _start(command, pids, folder, "--json", str(report))
    _wait_for(pids)
    conform.send_signal(number)
    _, stderr = conform.communicate(timeout=60)
    assert conform.returncode == code
    _nothing_left(pids, folder)
    lines = [line for line in stderr.splitlines() if not line.startswith(("[", "ovk-check conform: level"))]
    assert len(lines) == 1 and lines[0].startswith(f"ovk-check conform: {said} after 0 of"), stderr
    content = json.loads(report.read_text())
    assert content["stopped"] == said and not content["passed"]


@pytest.mark.skipif(shutil.which("timeout") is None, reason="no timeout(1) on this machine")
def test_timeout_around_conform_ends_the_command_and_its_process_group(hanging):
    command, pids, folder = hanging
    conform = _start(command, pids, folder, launcher=("timeout", "5"))
    _, stderr = conform.communicate(timeout=60)
    assert conform.returncode == 124 and "Traceback" not in stderr
    _nothing_left(pids, folder)


def test_an_exception_in_the_oracle_ends_the_command_and_its_process_group(hanging, monkeypatch, capsys):
    command, pids, folder = hanging
    from ovk_conform import runner

    def broken(case, result, *args, **kwargs):
        _wait_for(pids)          # the hanging case has started on the other worker
        raise RuntimeError("a bug in the oracle")
    monkeypatch.setattr(runner, "judge", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("PIDS", str(pids))
    monkeypatch.setenv("HANG_ON", "gaussian-d3-squared")
    code = cli.main(["conform", "--command", command, "--level", "quick", "--fuzz", "0", "--workers", "2"])
    said = capsys.readouterr().err.splitlines()[-1]
    assert code == errors.INTERNAL and said.startswith("ovk-check conform: internal error, please report: "
                                                       "RuntimeError: a bug in the oracle (traceback in ")
    assert "a bug in the oracle" in Path(said.split("traceback in ")[1].split(";")[0]).read_text()
    _nothing_left(pids, folder)


def test_at_a_normal_end_nothing_the_command_started_is_left(tmp_path, monkeypatch):
    script = tmp_path / "leaves_a_child.py"
    script.write_text("import json, os, subprocess, sys\n"
                      "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
                      "open(os.environ['PIDS'], 'a').write(f'{child.pid}\\n')\n"
                      "json.dump({'error': 'no engine here'}, open(sys.argv[2], 'w'))\n")
    folder, pids = tmp_path / "tmp", tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("PIDS", str(pids))
    assert cli.main(["conform", "--command", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
                     "--level", "quick", "--fuzz", "0", "--algorithms", "batch_ridge"]) == 1
    assert len(_pids(pids)) == 9        # the describe request and 8 cases
    _nothing_left(pids, folder)


def test_a_hanging_command_ends_a_quick_run_in_seconds_with_every_case_reported(hanging, tmp_path):
    command, pids, folder = hanging
    report = tmp_path / "report.json"
    started = time.monotonic()
    conform = _start(command, pids, folder, "--timeout", "5", "--json", str(report))
    _, stderr = conform.communicate(timeout=180)
    # the first time-out is retried once with a longer limit (at most MAX_RETRY_FACTOR times), the next ones not
    seconds = time.monotonic() - started
    assert conform.returncode == 1 and seconds < 60 + 5 * limits.MAX_RETRY_FACTOR and "Traceback" not in stderr
    messages = [case["message"] for case in json.loads(report.read_text())["cases"] if case["status"] == "fail"]
    assert sum(message.startswith("timed out after 5 s") for message in messages) in (2, 3)
    assert sum("retried with a longer limit" in message for message in messages) in (1, 2)   # one per worker at most
    assert all(message.startswith(("timed out after 5 s", "not run: the implementation timed out on"))
               for message in messages)
    _nothing_left(pids, folder)


def test_the_deadline_ends_the_run_and_the_report_says_so(hanging, tmp_path):
    command, pids, folder = hanging
    report = tmp_path / "report.json"
    started = time.monotonic()
    conform = _start(command, pids, folder, "--deadline", "4", "--json", str(report), "--junit", str(tmp_path / "j.xml"))
    conform.communicate(timeout=60)
    content = json.loads(report.read_text())
    assert conform.returncode == 1 and time.monotonic() - started < 30
    assert content["stopped"].startswith("the run's deadline passed") and (tmp_path / "j.xml").exists()
    _nothing_left(pids, folder)


def _nesting(value) -> int:
    """How deep a JSON value nests, by definition: a number, a string or an empty container 0; a container one more
    than its deepest element."""
    children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
    return 1 + max(map(_nesting, children)) if children else 0


JSON_VALUES = st.recursive(st.none() | st.integers() | st.floats() | st.text(max_size=3),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner,
                                                                                        max_size=3), max_leaves=40)


@given(JSON_VALUES)
def test_the_depth_of_a_message_is_its_nesting_up_to_one_past_the_limit(value):
    assert wire._depth(value) == min(_nesting(value), wire.MAX_DEPTH + 1)


@pytest.mark.parametrize("content, reason", [
    ("[" * 100_000 + "]" * 100_000, "nests deeper than"),
    ('{"fields": {"predictions": ' + "[" * 50 + "1" + "]" * 50 + "}}", "nests deeper than the 5 levels"),
    ('{"fields": {"predictions": [' + ", ".join(["1.5"] * 3_000_000) + "]}}", "bytes long, more than the"),
])
def test_a_deep_or_huge_result_file_fails_its_case_with_the_reason(tmp_path, content, reason):
    (tmp_path / "answer.json").write_text(content)
    script = tmp_path / "answers.py"
    script.write_text("import shutil, sys\nshutil.copy(sys.argv[0].replace('answers.py', 'answer.json'), sys.argv[2])\n")
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "ovk_cli.cli", "conform", "--command",
                           f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", "--algorithms", "batch_ridge",
                           "--level", "quick", "--fuzz", "0", "--json", str(report)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    failures = [case["message"] for case in json.loads(report.read_text())["cases"] if case["status"] == "fail"]
    assert len(failures) == 8 and all(message.startswith("wrote a malformed result file: ") and reason in message
                                      for message in failures)


def test_worker_processes_end_when_the_oracle_is_killed(tmp_path):
    """SIGKILL leaves the oracle no time to clean up: each worker sees its parent gone and ends its process group."""
    (tmp_path / "hangs_and_tells.py").write_text(
        "import os, subprocess, sys, time\n"
        "def onorma(*args, **kwargs):\n"
        "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "    open(os.environ['PIDS'], 'a').write(f'{os.getpid()} {child.pid}\\n')\n"
        "    time.sleep(600)\n")
    pids = tmp_path / "pids"
    conform = subprocess.Popen([sys.executable, "-m", "ovk_cli.cli", "conform", "hangs_and_tells", "--level",
                                "quick", "--fuzz", "0", "--workers", "2"], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env=dict(os.environ, PIDS=str(pids), PYTHONPATH=str(tmp_path), TMPDIR=str(tmp_path)))
    _wait_for(pids, 4)
    conform.kill()
    conform.wait()
    _nothing_left(pids, tmp_path / "no such folder")


def test_a_run_interrupted_before_its_first_case_still_writes_its_junit_file(hanging, tmp_path):
    """Ctrl-C while the expected values are computed: the JSON report and the JUnit file both say the run was
    stopped (the JUnit file was not written at all, and a CI system showed nothing)."""
    command, pids, folder = hanging
    junit_path = tmp_path / "j.xml"
    conform = _start(command, pids, folder, "--json", str(tmp_path / "report.json"), "--junit", str(junit_path))
    assert conform.stderr.readline().startswith("ovk-check conform: level quick")    # preparing: no case yet
    conform.send_signal(signal.SIGINT)
    conform.communicate(timeout=60)
    assert conform.returncode == 130
    text = junit_path.read_text()
    assert 'name="run:completed"' in text and "<failure" in text and "interrupted (Ctrl-C)" in text


@pytest.mark.parametrize("command, said", [("", "must be a non-empty command line"),
                                           ("/no/such/program --flag", "'/no/such/program' is not found"),
                                           ("no-such-program-of-ovk", "'no-such-program-of-ovk' is not found")])
def test_a_command_that_names_no_program_is_a_usage_error(command, said, capsys):
    assert cli.main(["conform", "--command", command, "--level", "quick"]) == errors.USAGE
    assert said in capsys.readouterr().err
