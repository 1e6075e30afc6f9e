"""``ovk-check conform --command``: a command-line implementation in another process is certified through the
language-neutral protocol inside the scope it declares; broken commands fail with the reason."""
import json
import shlex
import sys
from pathlib import Path

from ovk_cli import cli
from ovk_conform.fresh import write_case_file
from ovk_conform.manifest import load_cases

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "onorma_command.py"
#: what both examples declare (the describe request)
EXAMPLE_SCOPE = {"onorma": {"kernels": ["gaussian_separable"], "losses": ["squared"], "truncations": ["none", "window"],
                            "inputs": ["near", "offset", "scaled"]}}


def _command(script: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(script)}"


def test_the_example_command_is_certified_on_the_cases_it_supports(tmp_path, capsys):
    report_path = tmp_path / "report.json"
    code = cli.main(["conform", "--command", _command(str(EXAMPLE)), "--algorithms", "onorma", "--level", "quick",
                     "--fuzz", "0", "--json", str(report_path)])
    report = json.loads(report_path.read_text())
    ran = {case["case"] for case in report["cases"] if case["status"] == "pass"}
    assert code == 0 and report["counts"]["fail"] == 0
    assert report["scope"]["declared"]["algorithms"] == EXAMPLE_SCOPE
    assert report["coverage"] == {"run": 7, "in_scope": 7, "all": 35, "stored_in_scope": 7, "stored": 35, "fresh": 0}
    # Gaussian kernel, squared loss, no truncation or a fixed window: the example's scope
    assert ran == {"gaussian-d3-squared", "gaussian-d1-squared", "window-4-gaussian-d2", "window-1-gaussian-d2",
                   "single-example", "repeated-inputs", "zero-targets"}
    assert report["implementation"] == _command(str(EXAMPLE))
    # what it declares away is refused when probed: nothing offered beyond its scope (issue 33)
    probes = {probe["what"]: probe for probe in report["offered"]["probes"]}
    assert report["offered"]["partial"] == [] and not any(probe["offered"] for probe in probes.values())
    assert {"onorma kernel feature", "onorma loss huber", "onorma truncation theorem2"} <= set(probes)


def test_the_example_command_is_rejected_when_it_drifts(tmp_path, capsys):
    wrong = tmp_path / "wrong_step.py"
    wrong.write_text(EXAMPLE.read_text().replace("eta / math.sqrt(t + 1)", "eta / math.sqrt(t + 2)"))
    case_file = tmp_path / "case.json"
    write_case_file(next(case for case in load_cases(("onorma",)) if case.id == "gaussian-d3-squared"), case_file)
    assert cli.main(["conform", "--command", _command(str(EXAMPLE)), "--replay", str(case_file)]) == 0
    assert cli.main(["conform", "--command", _command(str(wrong)), "--replay", str(case_file)]) == 1
    # round 1 predicts 0 either way; its coefficient is eta_2 (y - 0), so the prediction of round 2 is the first off
    assert "first divergence: t=2 predictions" in capsys.readouterr().out


def test_a_command_that_exits_non_zero_or_writes_garbage_fails_naming_the_case(tmp_path, capsys):
    script = tmp_path / "broken.py"
    script.write_text("import json, sys\n"
                      "request = json.load(open(sys.argv[1]))\n"
                      "if request['algorithm'] == 'batch_ridge':\n"
                      "    sys.exit('no solver here')\n"
                      "open(sys.argv[2], 'w').write('[1, 2')\n")
    path = tmp_path / "report.json"
    assert cli.main(["conform", "--command", _command(str(script)), "--level", "quick", "--fuzz", "0",
                     "--json", str(path)]) == 1
    messages = {(case["algorithm"], case["case"]): case["message"] for case in json.loads(path.read_text())["cases"]}
    assert messages[("batch_ridge", "gaussian-d3")] == "command exited with code 1: no solver here"
    assert messages[("onorma", "gaussian-d3-squared")].startswith("wrote a malformed result file")


def test_the_c_example_is_certified_where_a_compiler_exists(tmp_path, capsys):
    import shutil
    import subprocess

    import pytest
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler on this machine")
    program = tmp_path / "onorma_command"
    subprocess.run([compiler, "-O2", "-o", str(program), str(EXAMPLE.with_suffix(".c")), "-lm"], check=True)
    report_path = tmp_path / "report.json"
    assert cli.main(["conform", "--command", shlex.quote(str(program)), "--level", "quick",
                     "--fuzz", "0", "--json", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    # every algorithm, family, loss and truncation kind it declares away is refused when probed (issue 33)
    probes = {probe["what"]: probe["offered"] for probe in report["offered"]["probes"]}
    assert {"monorma", "batch_ridge", "onorma loss hinge", "onorma truncation listed"} <= set(probes)
    assert not any(probes.values()) and report["passed"]
    assert report["counts"] == {"pass": 7, "fail": 0, "skip": 28, "xfail": 0, "xpass": 0}
    assert report["scope"]["source"] == "its answer to the describe request"
    assert report["scope"]["declared"]["algorithms"] == EXAMPLE_SCOPE
