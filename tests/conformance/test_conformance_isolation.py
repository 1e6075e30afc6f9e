"""Isolation: adversarial implementations (``adversaries/``) are rejected with the right
exit code, the failing case named and the JSON report written; tampered vectors are exit code 2."""
import json
import shutil
from pathlib import Path

import pytest

from ovk_cli import cli
from ovk_conform import manifest, run
from ovk_conform.vectors import VECTORS_DIR

ADVERSARIES = Path(__file__).parent / "adversaries"


@pytest.fixture
def adversaries(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ADVERSARIES))


def _conform(tmp_path, *arguments):
    """Exit code and JSON report of ``ovk-check conform ... --level quick --json FILE``."""
    path = tmp_path / "report.json"
    code = cli.main(["conform", *arguments, "--level", "quick", "--json", str(path), "--shrunk-dir", str(tmp_path)])
    return code, json.loads(path.read_text())


def _failures(report):
    return {case["case"]: case["message"] for case in report["cases"] if case["status"] == "fail"}


def test_sys_exit_at_import_fails_every_case_with_the_reason(adversaries, tmp_path):
    code, report = _conform(tmp_path, "exit_at_import", "--fuzz", "1")
    assert code == 1 and not report["passed"] and report["counts"]["pass"] == 0
    assert all("exited with code 0 while importing the implementation" in message
               for message in _failures(report).values())


def test_os_exit_on_the_third_call_fails_that_case_and_the_run_goes_on(adversaries, tmp_path):
    code, report = _conform(tmp_path, "os_exit_on_third_call", "--fuzz", "0", "--workers", "1",   # one process's
                            "--reruns", "0")                                                    # third call
    failures = _failures(report)
    assert code == 1 and report["counts"]["pass"] > 0
    assert failures["linear-quadratic-d2-squared"] == ("the implementation's process exited with code 0 during case "
                                                       "onorma:linear-quadratic-d2-squared")


def test_a_hang_is_a_timeout_failure_naming_the_case(adversaries, tmp_path, capsys):
    code, report = _conform(tmp_path, "hangs_on_one_example", "--fuzz", "0", "--timeout", "1")
    assert code == 1 and _failures(report) == {"single-example": "timed out after 1 s during case onorma:single-example, and again "
                                                                   "after 3 s (retried with a longer limit)"}
    assert "FAIL basic            onorma:single-example" in capsys.readouterr().err


def test_a_monkeypatch_of_the_runner_does_not_reach_the_oracle(adversaries, tmp_path):
    code, report = _conform(tmp_path, "patches_the_runner", "--fuzz", "0")
    passing = {case["case"] for case in report["cases"] if case["status"] == "pass"}
    assert code == 1 and passing == {"single-example", "zero-targets"}    # where 0 is the right prediction


def test_complex_outputs_fail_with_that_reason(adversaries, tmp_path):
    code, report = _conform(tmp_path, "complex_outputs", "--fuzz", "0")
    assert code == 1 and report["counts"]["pass"] == 0
    assert "predictions is complex (max |imaginary part| 1e+06)" in _failures(report)["gaussian-d3-squared"]


def test_a_lookup_table_passes_the_stored_cases_and_fails_the_fresh_ones(adversaries, tmp_path):
    code, report = _conform(tmp_path, "lookup_table", "--fuzz", "6", "--seed", "3")
    stored = [case for case in report["cases"] if case["regime"] == "basic"]
    fresh = [case for case in report["cases"] if case["regime"] == "fresh"]
    assert code == 1 and all(case["status"] == "pass" for case in stored)
    assert len(fresh) == 6 and all(case["status"] == "fail" for case in fresh)


def test_a_non_positive_timeout_is_a_usage_error(capsys):
    assert cli.main(["conform", "ovk_fast", "--timeout", "0"]) == 2
    assert "--timeout must be a positive number of seconds" in capsys.readouterr().err


def test_input_mutation_is_reported(adversaries, tmp_path):
    code, report = _conform(tmp_path, "mutates_its_input", "--fuzz", "0")
    assert code == 1
    assert _failures(report)["gaussian-d3-squared"] == "modified its input(s) X in place"


def test_wrong_shape_and_non_finite_outputs_fail_with_that_reason():
    import numpy as np

    from ovk_conform.manifest import load_cases
    from ovk_conform.runner import check_fields
    case = next(case for case in load_cases(("onorma",)) if case.id == "gaussian-d3-squared")
    shape = check_fields(case, {"predictions": case.expected["predictions"][:-1]})
    assert shape.status == "fail" and "predictions has shape (19, 3), expected (20, 3)" in shape.message
    predictions = case.expected["predictions"].copy()
    predictions[6, 1] = np.nan
    nan = check_fields(case, {"predictions": predictions})
    assert (nan.status, nan.diverging_round) == ("fail", 7) and "non-finite where the reference is finite" in nan.message


@pytest.fixture
def vectors_copy(tmp_path, monkeypatch):
    """A copy of the vectors folder the oracle reads instead of its own (tampered by the test)."""
    from ovk_conform import vectors
    copy = tmp_path / "vectors"
    shutil.copytree(VECTORS_DIR, copy)
    monkeypatch.setattr(vectors, "VECTORS_DIR", copy)
    monkeypatch.setattr(vectors, "REGIMES_DIR", copy / "regimes")
    monkeypatch.setattr(manifest, "VECTORS_DIR", copy)
    monkeypatch.setattr(manifest, "MANIFEST_PATH", copy / "MANIFEST.json")
    return copy


def _rewrite(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("tamper, named", [
    (lambda folder: _rewrite(folder / "onorma.json", '"0x', '"-0x'), "onorma.json has been modified"),
    (lambda folder: (folder / "monorma.json").write_text((folder / "monorma.json").read_text()[:5000]),
     "monorma.json has been modified or truncated"),
    (lambda folder: (folder / "batch_ridge.json").unlink(), "batch_ridge.json is missing"),
    (lambda folder: (folder / "VERSION").write_text("99\n"), "VERSION says '99'"),   # not the version shipped
    (lambda folder: _rewrite(folder / "MANIFEST.json", '"cases": 18', '"cases": 1'), "MANIFEST.json has been modified"),
])
def test_tampered_vectors_are_exit_code_2_naming_the_file(vectors_copy, capsys, tamper, named):
    # "json" offers no algorithm (exit 1 on intact vectors, test_the_copied_vectors_are_intact), but the vectors
    # are read and checked before the implementation is started
    tamper(vectors_copy)
    report = vectors_copy.parent / "report.json"
    assert cli.main(["conform", "json", "--level", "quick", "--fuzz", "0", "--json", str(report)]) == 2
    assert named in capsys.readouterr().err
    assert named in json.loads(report.read_text())["error"]


def test_the_copied_vectors_are_intact(vectors_copy, capsys):
    assert cli.main(["conform", "json", "--level", "quick", "--fuzz", "0"]) == 1
    assert "offers none of onorma" in capsys.readouterr().out


def test_a_regime_file_edited_to_loosen_nothing_is_still_caught(vectors_copy):
    """Tolerances are code: a regime file cannot carry one, and any edit breaks its sha256."""
    from ovk_conform.manifest import load_cases
    path = vectors_copy / "regimes" / "far-inputs.json.gz"
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(manifest.IntegrityError, match="far-inputs.json.gz has been modified"):
        load_cases(("onorma",), ("far-inputs",))


def test_float32_class_accepts_an_honest_float32_engine_and_float64_names_where_it_leaves_the_tolerance(capsys):
    from ovk_conform.plain_engine import float32_engine
    assert cli.main(["conform", "ovk_conform.plain_engine:float32_engine", "--level", "quick",
                     "--precision", "float32", "--seed", "0"]) == 0
    output = capsys.readouterr().out
    assert "precision float32 (the honest float32 envelope of each case)" in output and "worst relative error per field: predictions" in output
    report = run(float32_engine, ("onorma",), level="quick", fuzz=0)
    failed = [outcome for outcome in report.outcomes if outcome.status == "fail"]
    assert failed and all(outcome.diverging_round is not None for outcome in failed)
    assert all(1e-9 < outcome.max_rel_error < 1e-5 for outcome in failed)
