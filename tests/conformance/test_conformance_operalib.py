"""A third-party library through ``--command``: operalib's ONORMA (``examples/operalib_command.py``) passes inside the
scope it declares, and the oracle shows where operalib departs from the reference when a wider scope is
demanded (truncation ignored, far inputs, batch ridge by an iterative solver). Skipped where operalib does not
install (it needs setuptools < 81; docs/conformance.md): set OVK_OPERALIB_PYTHON to the interpreter of an
environment that has it."""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ovk_cli import cli

ADAPTER = Path(__file__).resolve().parents[2] / "examples" / "operalib_command.py"
PYTHON = os.environ.get("OVK_OPERALIB_PYTHON", sys.executable)


def _operalib_imports() -> bool:
    probe = (f"import sys; sys.path.insert(0, {str(ADAPTER.parent)!r}); import operalib_command; "
             "operalib_command._import_operalib()")
    return subprocess.run([PYTHON, "-W", "ignore", "-c", probe], capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not _operalib_imports(), reason=f"operalib does not import with {PYTHON} "
                                "(set OVK_OPERALIB_PYTHON)")
COMMAND = f"{shlex.quote(PYTHON)} -W ignore {shlex.quote(str(ADAPTER))}"


def _conform(tmp_path, *arguments):
    path = tmp_path / "report.json"
    code = cli.main(["conform", "--command", COMMAND, "--level", "quick", "--seed", "3", *arguments,
                     "--json", str(path), "--shrunk-dir", str(tmp_path)])
    return code, json.loads(path.read_text())


def test_operalib_passes_inside_the_scope_it_declares(tmp_path):
    code, report = _conform(tmp_path)
    assert code == 0 and report["scope"]["source"] == "its answer to the describe request"
    assert report["coverage"]["stored_in_scope"] == 6 and report["coverage"]["in_scope"] == 16
    assert report["worst_errors"]["predictions"]["rel_error"] < 1e-14


def test_where_operalib_departs_from_the_reference(tmp_path):
    wider = {"algorithms": {"onorma": {"kernels": ["gaussian_separable", "linear_quadratic"], "losses": ["squared"]},
                            "batch_ridge": {"kernels": ["gaussian_separable"]}}}
    code, report = _conform(tmp_path, "--scope", json.dumps(wider), "--fuzz", "0", "--reruns", "0")
    outcomes = {f"{case['algorithm']}:{case['case']}": case for case in report["cases"]}
    assert code == 1
    # truncation is ignored: each window fails at the first prediction made without the dropped term
    assert [(outcomes[name]["diverging_round"], outcomes[name]["diverging_field"]) for name in (
        "onorma:window-4-gaussian-d2", "onorma:window-1-gaussian-d2", "onorma:theorem2-gaussian-d2")] == [
        (6, "predictions"), (3, "predictions"), (6, "predictions")]
    # batch ridge: L-BFGS-B stops far from the solution of (G + t lam I) c = y
    assert outcomes["batch_ridge:gaussian-d1"]["status"] == "fail"
    assert outcomes["batch_ridge:gaussian-d1"]["max_rel_error"] > 1e-4
