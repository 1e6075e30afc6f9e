"""Implementations written to fool the oracle (``adversaries/``), one per way it could be fooled: skipping what
they get wrong, answering from the shipped vector files, patching the protocol loop of their process, rewriting
the reference on disk, a fault in rows the vectors did not store, a wrong answer on one call in 50, a fault
that starts after round 100, 1000 or 2048. Each is rejected, with the reason printed; a correct engine's
narrow but honest scope passes, and ``--require`` says what it lacks."""
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ovk_cli import cli
from ovk_conform import limits, run, stratified
from ovk_conform.hosts import WorkerHost
from ovk_conform.manifest import load_cases
from ovk_conform.regimes import stored_rounds
from ovk_conform.scope import Scope

ADVERSARIES = Path(__file__).parent / "adversaries"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "onorma_command.py"


@pytest.fixture
def adversaries(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ADVERSARIES))


def _conform(tmp_path, *arguments, level="quick"):
    """Exit code, JSON report and printed text of ``ovk-check conform ... --json FILE``."""
    path = tmp_path / "report.json"
    code = cli.main(["conform", *arguments, "--level", level, "--json", str(path), "--shrunk-dir", str(tmp_path)])
    return code, json.loads(path.read_text())


def _command(script: Path) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _failures(report) -> dict:
    return {f"{case['algorithm']}:{case['case']}": case["message"] for case in report["cases"] if case["status"] == "fail"}


def test_a_command_that_skips_what_it_gets_wrong_fails_the_cases_it_refuses(tmp_path, capsys):
    code, report = _conform(tmp_path, "--command", _command(ADVERSARIES / "skips_what_it_gets_wrong.py"),
                            "--seed", "5", "--reruns", "0")
    failures = _failures(report)
    assert code == 1 and report["scope"]["source"] == "none declared"
    # it refused every case but the Gaussian ONORMA ones: each refusal inside its (undeclared: full) scope fails
    assert report["counts"]["pass"] > 0 and report["counts"]["skip"] == 0
    assert failures["onorma:feature-d2-squared"] == (
        "answered unsupported (only the cases this engine gets right) for a case inside its declared scope")
    assert any(name.startswith("monorma:fresh-5-") for name in failures)
    assert "answered unsupported" in capsys.readouterr().out


def test_a_narrow_honest_scope_passes_and_require_names_what_it_lacks(tmp_path, capsys):
    code, report = _conform(tmp_path, "--command", _command(EXAMPLE), "--seed", "5", "--require", "onorma",
                            "--reruns", "0")
    # 7 basic cases and 10 fresh ones in its scope, and the stratified fresh cases drawn inside it (issue 33)
    declared = Scope.parse({"algorithms": report["scope"]["declared"]["algorithms"]}, "the example's scope")
    stratified_count = len(stratified.stratified_cases(5, "quick", declared))
    assert code == 1 and report["counts"]["fail"] == 0 and report["coverage"]["in_scope"] == 17 + stratified_count
    assert all(case["regime"] == "fresh" or case["case"] in {
        "gaussian-d3-squared", "gaussian-d1-squared", "window-4-gaussian-d2", "window-1-gaussian-d2", "single-example",
        "repeated-inputs", "zero-targets"} for case in report["cases"] if case["status"] == "pass")
    assert report["required"]["missing"] == [
        "onorma kernels linear_separable, polynomial_separable, constant_separable, linear_quadratic, feature, sum",
        "onorma losses norm, huber, epsilon_insensitive, hinge, softmax",
        "onorma truncations theorem2, listed, smallest, random, projection"]
    assert "NOT COVERED, the declared scope lacks onorma kernels linear_separable" in capsys.readouterr().out
    assert _conform(tmp_path, "--command", _command(EXAMPLE), "--seed", "5", "--reruns", "0", "--require",
                    '{"algorithms": {"onorma": {"kernels": ["gaussian_separable"], "losses": ["squared"], '
                    '"truncations": ["window"]}}}')[0] == 0


def test_a_command_answering_from_the_shipped_vectors_fails_every_fresh_case(tmp_path):
    code, report = _conform(tmp_path, "--command", _command(ADVERSARIES / "lookup_table_command.py"), "--seed", "3",
                            "--fuzz", "4", "--algorithms", "onorma", "--reruns", "0")
    stored = [case for case in report["cases"] if case["regime"] == "basic" and case["algorithm"] == "onorma"]
    fresh = [case for case in report["cases"] if case["regime"] == "fresh"]
    assert code == 1 and len(stored) == 18 and all(case["status"] == "pass" for case in stored)
    assert len(fresh) == 4 and all(case["status"] == "fail" and case["message"] == (
        "answered unsupported (not in the stored vectors) for a case inside its declared scope") for case in fresh)


def test_a_patch_of_the_workers_loop_turns_no_failure_into_a_skip(adversaries, tmp_path):
    code, report = _conform(tmp_path, "patches_the_worker_loop", "--seed", "3", "--fuzz", "6")
    failures = _failures(report)
    monorma = [case for case in report["cases"] if case["algorithm"] == "monorma"]
    assert code == 1 and report["counts"]["skip"] == 0 and monorma
    assert all(failures[f"monorma:{case['case']}"] == "answered unsupported ((an error turned into a skip)) for a case "
               "inside its declared scope" for case in monorma)
    assert all(case["status"] == "pass" for case in report["cases"] if case["algorithm"] == "onorma")


def _sandbox(tmp_path) -> Path:
    """A copy of the oracle's packages that the adversary may rewrite (it writes nowhere else)."""
    sandbox = tmp_path / "sandbox"
    for package in ("ovk_ref", "proofs_check", "ovk_fast", "ovk_conform", "ovk_cli"):
        shutil.copytree(ROOT / package, sandbox / package, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "walkthroughs"))
    return sandbox


@pytest.mark.parametrize("declared, when", [
    ([], "while the implementation declared its scope"),             # its worker for the scope rewrites the file
    (["--scope", "onorma,monorma,batch_ridge"], "during the run"),    # no code of it runs before the first case
])
def test_an_implementation_rewriting_the_reference_on_disk_fails_the_run(tmp_path, declared, when):
    sandbox = _sandbox(tmp_path)
    report_path = tmp_path / "report.json"
    environment = dict(os.environ, PYTHONPATH=f"{sandbox}{os.pathsep}{ADVERSARIES}", OVK_ADVERSARY_SANDBOX=str(sandbox))
    done = subprocess.run([sys.executable, "-m", "ovk_cli.cli", "conform", "rewrites_the_reference", *declared,
                           "--level", "quick", "--seed", "2", "--json", str(report_path), "--shrunk-dir", str(tmp_path)],
                          cwd=sandbox, env=environment, capture_output=True, text=True, timeout=300)
    report = json.loads(report_path.read_text())
    assert "reference_fields(*args" in (sandbox / "ovk_conform/reference.py").read_text()   # it did
    assert done.returncode == 1 and not report["passed"] and "Traceback" not in done.stderr
    assert report["seal"]["failure"] == (f"the oracle's files changed {when}: changed "
                                         "ovk_conform/reference.py")
    assert f"the oracle's files changed {when}" in done.stdout
    if declared:     # the expected values were fixed before its code ran: its zeros fail every fresh case
        assert all(case["status"] == "fail" for case in report["cases"] if case["regime"] == "fresh")


def _regime_cases(algorithm, regime, seed=1, segments=4):
    from ovk_conform import checkpoints
    return [checkpoints.DrawnRows(case, seed, segments).case() for case in load_cases((algorithm,), (regime,), basic=False)]


def test_a_fault_in_rows_the_vectors_used_to_skip_is_caught_in_every_long_stream(adversaries):
    cases = (_regime_cases("onorma", "long-stream") + _regime_cases("onorma", "wide-window")
             + _regime_cases("onorma", "shrink-underflow"))
    with WorkerHost("fault_in_unstored_rows") as host:
        report = run(host=host, algorithms=("onorma",), cases=cases, reruns=0)
    outcomes = {outcome.case: outcome for outcome in report.outcomes}
    # version 2 stored rounds 1-11 (the first 8, and 8 +- 3), 13-19, 29-35, ...: round 12 is the first it did not
    for name in ("onorma-t4096-gaussian-d2", "window-64-t1500", "window-1000-t1500", "theorem2-t2048"):
        assert (outcomes[name].status, outcomes[name].diverging_round, outcomes[name].diverging_field) == (
            "fail", 12, "predictions"), name
    # the 140000-round stream: caught in a segment recomputed from a checkpoint drawn for this run
    underflow = outcomes["window-8-t140000"]
    assert underflow.status == "fail" and underflow.diverging_round not in set(stored_rounds(140_000).tolist())
    assert "rows recomputed for this run" in cases[-1].comment


@pytest.mark.parametrize("fault, first_wrong", [("after_100", 101), ("after_1000", 1001), ("after_2048", 2049)])
def test_a_fault_after_a_late_round_is_caught_by_quick_whose_stratified_streams_reach_it(adversaries, tmp_path, fault,
                                                                                       first_wrong):
    """quick's fresh ONORMA streams reach the envelope's top on t (ovk_conform.stratified): a fault that starts after
    round 100, 1000 or 2048 fails there, first at its round; the stored long streams catch it too."""
    code, report = _conform(tmp_path, f"fault_after_round:{fault}", "--seed", "4")
    failures = [case for case in report["cases"] if case["status"] == "fail"]
    assert code == 1 and failures and {case["diverging_round"] for case in failures} == {first_wrong}, failures[:3]
    with WorkerHost(f"fault_after_round:{fault}") as host:
        long = run(host=host, algorithms=("onorma",), cases=_regime_cases("onorma", "long-stream"), reruns=0)
    assert [(outcome.status, outcome.diverging_round) for outcome in long.outcomes] == [("fail", first_wrong)]


def test_a_wrong_answer_on_one_call_in_50_is_found_by_the_reruns_as_nondeterministic(adversaries, tmp_path):
    # 95 cases, each run twice: each of the two processes answers more than 50 calls, so each is wrong once
    code, report = _conform(tmp_path, "wrong_one_call_in_50", "--seed", "6", "--fuzz", "60", "--reruns", "all",
                            "--workers", "2")
    nondeterministic = [case for case in report["cases"] if case["message"].startswith("nondeterministic")]
    assert code == 1 and nondeterministic and report["determinism"]["different"] == len(nondeterministic)
    assert all("run 1 gave" in case["message"] and "run 2 gave" in case["message"] for case in nondeterministic)


@pytest.mark.slow   # the must-show measurement: a hang on MONORMA costs 2 + RETRY_FACTOR case limits, not one per case
def test_an_engine_hanging_on_one_algorithm_is_reported_with_a_json_report_within_minutes(tmp_path):
    import time
    report_path = tmp_path / "report.json"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "ovk_cli.cli", "conform", "hangs_on_monorma", "--level", "standard",
                           "--seed", "1", "--fuzz", "4", "--json", str(report_path), "--shrunk-dir", str(tmp_path)],
                          env=dict(os.environ, PYTHONPATH=str(ADVERSARIES)), capture_output=True, text=True,
                          timeout=600)
    seconds = time.monotonic() - started
    report = json.loads(report_path.read_text())
    assert "cases" in report, (done.returncode, done.stderr[-2000:], report)
    messages = [case["message"] for case in report["cases"] if case["algorithm"] == "monorma"]
    # a case limit of about 20 s (10 s, and 10 s for a first call), its retry up to MAX_RETRY_FACTOR times longer on
    # a loaded machine, then one more time-out that is not retried; a minute to start and compute the expected values
    assert done.returncode == 1 and seconds < 60 + (2 + limits.MAX_RETRY_FACTOR) * 20, seconds
    assert sum(message.startswith("timed out after") for message in messages) in (2, 3)
    assert all(message.startswith(("timed out after", "not run: the implementation timed out on"))
               for message in messages)
    others = {case["case"]: case["message"] for case in report["cases"] if case["algorithm"] != "monorma"}
    assert all(message == "" for message in others.values()), others


def test_a_wrong_answer_then_two_time_outs_of_the_same_algorithm_is_a_report_not_a_crash(adversaries, tmp_path):
    """The case answered wrongly keeps its failure, the hanging ones time out, the rest are not sent: exit 1 with a
    whole report (the rerun of the wrong case, blocked by the time-outs, crashed the oracle: exit 70)."""
    code, report = _conform(tmp_path, "wrong_then_hangs", "--algorithms", "monorma", "--timeout", "3", "--seed", "1",
                            "--fuzz", "0", "--workers", "1", "--reruns", "all")
    failures = _failures(report)
    assert code == 1 and "monorma:m3-paper-r0.5" in failures and not failures["monorma:m3-paper-r0.5"].startswith(
        ("timed out", "not run"))
    assert sum(message.startswith("timed out after") for message in failures.values()) in (2, 3)


def test_a_correct_engine_slower_than_the_limit_once_passes_on_the_retry(adversaries, tmp_path):
    """A time-out is retried once with a longer limit (ovk_conform.limits.retry_limit): load does not become a
    failure of a correct engine (5 MONORMA cases of one did, at load 11)."""
    code, report = _conform(tmp_path, "slow_first_call", "--algorithms", "onorma", "--timeout", "4", "--seed", "1",
                            "--fuzz", "0", "--workers", "1", "--reruns", "0")
    assert code == 0, _failures(report)


WRONG_ONORMA = '''"""ovk_ref's ONORMA with every prediction off by 1: every case fails by its values, fresh ones are shrunk."""
import dataclasses

import ovk_ref


def onorma(X, Y, **arguments):
    result = ovk_ref.onorma(X, Y, **arguments)
    return dataclasses.replace(result, predictions=result.predictions + 1.0)
'''


def test_shrunk_cases_go_beside_the_report_or_to_a_temporary_folder_never_to_the_current_directory(tmp_path,
                                                                                                   monkeypatch, capsys):
    """A run from a checkout wrote ``fresh-*.json`` files into it; now they go beside ``--json``, or without it into a
    new temporary folder, whose path the report prints."""
    here = tmp_path / "checkout"
    here.mkdir()
    (here / "wrong_onorma.py").write_text(WRONG_ONORMA)
    monkeypatch.chdir(here)
    arguments = ["conform", "wrong_onorma", "--algorithms", "onorma", "--level", "quick", "--seed", "2", "--fuzz", "1",
                 "--workers", "1", "--reruns", "0"]
    assert cli.main(arguments) == 1
    printed = capsys.readouterr().out
    shrunk = [Path(line.rsplit("--replay ", 1)[1].rstrip(")")) for line in printed.splitlines() if "shrunk to" in line]
    assert shrunk and all(path.exists() and path.parent != here and path.parent.name.startswith("ovk-conform-shrunk-")
                          for path in shrunk), printed
    assert sorted(path.name for path in here.iterdir()) == ["__pycache__", "wrong_onorma.py"] or \
        sorted(path.name for path in here.iterdir()) == ["wrong_onorma.py"]
    reports = tmp_path / "reports"
    reports.mkdir()
    assert cli.main(arguments + ["--json", str(reports / "r.json")]) == 1
    assert {path.suffix for path in reports.iterdir()} == {".json"} and len(list(reports.iterdir())) == 1 + len(shrunk)
    for folder in {path.parent for path in shrunk}:
        shutil.rmtree(folder)
