"""``ovk-check conform --workers N``: the cases spread over N processes of the implementation give the report one
process gives, failures and their first diverging round included."""
import json
from pathlib import Path

import pytest

from ovk_cli import cli

ADVERSARIES = Path(__file__).parent / "adversaries"


def _report(tmp_path, name, *arguments):
    path = tmp_path / f"{name}.json"
    code = cli.main(["conform", *arguments, "--level", "quick", "--seed", "3", "--json", str(path),
                     "--shrunk-dir", str(tmp_path / name)])
    report = json.loads(path.read_text())
    for case in report["cases"]:
        del case["seconds"], case["rerun"]      # the reruns name the processes (pids) that answered
    return code, report


@pytest.mark.slow
@pytest.mark.parametrize("implementation", ["ovk_fast", "complex_outputs", "mutates_its_input"])
def test_two_worker_processes_report_what_one_reports(implementation, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ADVERSARIES))
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = _report(tmp_path, "one", implementation, "--fuzz", "4", "--workers", "1", "--reruns", "0")
    two = _report(tmp_path, "two", implementation, "--fuzz", "4", "--workers", "2", "--reruns", "0")
    assert two == one
    code, report = one
    assert (code == 0) == (implementation == "ovk_fast") and report["counts"]["pass"] + report["counts"]["fail"] >= 20
