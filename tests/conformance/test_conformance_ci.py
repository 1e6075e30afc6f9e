"""What an adopter's CI reads: the JUnit XML (read back with a JUnit parser), the expectations file of known
deviations, and the JSON Schemas of the vector format and of the ``ovk-conform-1`` messages, which the vector
files, the requests the oracle writes and the results the examples write satisfy, and which reject what the
oracle rejects."""
import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from ovk_cli import cli
from ovk_conform import wire
from ovk_conform.manifest import load_cases
from ovk_conform.regimes import REGIMES
from ovk_conform.scope import Scope
from ovk_conform.vectors import (
    ALGORITHMS,
    read_vector_file,
    regime_path,
    vector_path,
)
from proofs_check.mutants import MUTANTS

SCHEMAS = Path(wire.__file__).with_name("schemas")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "onorma_command.py"
EXAMPLE_SCOPE = {"algorithms": {"onorma": {"kernels": ["gaussian_separable"], "losses": ["squared"],
                                           "truncations": ["none", "window"]}}}


def _validator(name: str):
    resources = [(schema["$id"], Resource.from_contents(schema))
                 for schema in (json.loads(path.read_text()) for path in SCHEMAS.glob("*.schema.json"))]
    registry = Registry().with_resources(resources)
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _junit(tmp_path, *arguments):
    path = tmp_path / "report.xml"
    code = cli.main(["conform", *arguments, "--level", "quick", "--seed", "2", "--junit", str(path),
                     "--json", str(tmp_path / "report.json"), "--shrunk-dir", str(tmp_path)])
    return code, ElementTree.parse(path).getroot(), json.loads((tmp_path / "report.json").read_text())


def test_the_junit_report_has_a_test_case_per_case_and_the_failures_with_their_divergence(tmp_path):
    code, root, report = _junit(tmp_path, "proofs_check.mutants:MUTANTS.kernel_transposed", "--fuzz", "2")
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert code == 1 and len(cases) == len(report["cases"]) + 4   # + run:seal, run:coverage, run:offered, run:completed
    failed = {case.get("name"): case.find("failure") for case in cases if case.find("failure") is not None}
    skipped = [case for case in cases if case.find("skipped") is not None]
    assert int(suite.get("failures")) == len(failed) == report["counts"]["fail"]
    assert len(skipped) == int(suite.get("skipped")) == report["counts"]["skip"] == 17
    assert failed["onorma:feature-d2-squared"].get("message") == "first divergence: t=2 predictions"
    assert "predictions row 2: expected" in failed["onorma:feature-d2-squared"].text
    assert {case.get("name") for case in cases if case.get("classname") == "conform.run"} == {
        "run:seal", "run:coverage", "run:offered", "run:completed"}
    properties = {item.get("name"): item.get("value") for item in suite.find("properties")}
    assert properties["seed"] == "2" and properties["level"] == "quick"


def test_junit_reads_back_with_the_junit_parser_of_ci_tools_when_everything_passes(tmp_path):
    code, root, report = _junit(tmp_path, "ovk_fast", "--fuzz", "2", "--require", "onorma,batch_ridge")
    assert code == 0 and root.get("failures") == "0" and root.get("tests") == str(len(report["cases"]) + 4)
    assert all(case.find("failure") is None for case in root.iter("testcase"))


def test_a_known_deviation_does_not_fail_the_run_and_one_that_passes_is_reported(tmp_path, capsys):
    expectations = tmp_path / "expected.json"
    expectations.write_text(json.dumps({"onorma:*feature-*": "our kernels are transposed (issue 7 of our tracker)",
                                        "onorma:gaussian-d3-squared": "we thought this one failed too",
                                        "monorma:*": "no MONORMA in this implementation"}))
    _validator("expectations").validate(json.loads(expectations.read_text()))
    code, root, report = _junit(tmp_path, "proofs_check.mutants:MUTANTS.kernel_transposed", "--fuzz", "0",
                                "--expectations", str(expectations))
    statuses = {case["case"]: case["status"] for case in report["cases"] if case["algorithm"] == "onorma"}
    output = capsys.readouterr().out
    assert code == 0 and report["passed"]
    assert statuses["feature-d2-squared"] == "xfail" and statuses["gaussian-d3-squared"] == "xpass"
    assert report["counts"]["xfail"] == 2 and report["unused_expectations"] == ["monorma:*"]
    assert "XPASS onorma      gaussian-d3-squared" in output and "expectation 'monorma:*' matches no case" in output
    xfailed = next(case for case in root.iter("testcase") if case.get("name") == "onorma:feature-d2-squared")
    assert xfailed.find("skipped").get("message").startswith("known deviation: our kernels are transposed")


@pytest.mark.parametrize("content, message", [
    ('{"onorma:x": ""}', "non-empty reasons"), ("[1]", "non-empty reasons"), ("{", "cannot be read as JSON")])
def test_a_malformed_expectations_file_is_a_usage_error(tmp_path, capsys, content, message):
    (tmp_path / "expected.json").write_text(content)
    assert cli.main(["conform", "ovk_fast", "--expectations", str(tmp_path / "expected.json")]) == 2
    assert message in capsys.readouterr().err


def _first_rows(content: dict, rows: int = 64) -> dict:
    """A vector file with each case's arrays cut to their first rows and three checkpoints (the schema constrains
    every row alike; the whole regime files take jsonschema half a minute)."""
    for case in content["cases"]:
        case["inputs"] = {name: values[:rows] for name, values in case["inputs"].items()}
        case["expected"] = {name: values[:rows] for name, values in case["expected"].items()}
        case["rounds"] = case.get("rounds") and case["rounds"][:rows]
        if "checkpoints" in case:
            case["checkpoints"] = case["checkpoints"][:3]
    return content


def test_every_vector_file_matches_the_vector_schema():
    validator = _validator("vectors")
    for path in [vector_path(algorithm) for algorithm in ALGORITHMS]:
        validator.validate(read_vector_file(path))
    for path in [regime_path(regime) for regime in REGIMES]:
        validator.validate(_first_rows(read_vector_file(path)))


def test_a_shrunk_case_file_matches_the_vector_schema(tmp_path):
    from ovk_conform import fresh
    case = fresh.fresh_cases(3, 1)[0]
    fresh.write_case_file(case, tmp_path / "case.json")
    _validator("vectors").validate(json.loads((tmp_path / "case.json").read_text()))


def test_every_request_the_oracle_writes_matches_the_request_schema():
    from ovk_conform import fresh
    validator = _validator("request")
    validator.validate(wire.DESCRIBE_REQUEST)
    for case in load_cases(ALGORITHMS) + fresh.fresh_cases(5, 40):
        validator.validate(json.loads(json.dumps(wire.request(case))))


def test_a_request_carries_its_own_cases_inputs_when_encoded_once():
    """The inputs are encoded once per case (``Case.encoded_inputs``); a case made from another (a shrunk one, a
    replace) is encoded afresh."""
    import dataclasses

    import numpy as np

    from ovk_conform.hexfloats import decode_floats
    case = load_cases(("onorma",))[0]
    assert wire.request(case)["inputs"] is wire.request(case)["inputs"]
    moved = dataclasses.replace(case, X=case.X + 1.0, Y=case.Y[::-1])
    for one in (case, moved, case):
        inputs = json.loads(json.dumps(wire.request(one)))["inputs"]
        assert np.array_equal(decode_floats(inputs["X"]), one.X) and np.array_equal(decode_floats(inputs["Y"]), one.Y)


def test_the_results_the_examples_and_the_worker_write_match_the_result_schema(tmp_path):
    from ovk_conform.worker import answer
    validator = _validator("result")
    request = tmp_path / "request.json"
    for case in [case for case in load_cases(("onorma",)) if Scope.parse(EXAMPLE_SCOPE, "test").outside(case) is None][:3]:
        request.write_text(json.dumps(wire.request(case)))
        subprocess.run([sys.executable, str(EXAMPLE), str(request), str(tmp_path / "result.json")], check=True)
        validator.validate(json.loads((tmp_path / "result.json").read_text()))
        worker_result = answer({"onorma": MUTANTS["kernel_transposed"].onorma}, json.loads(request.read_text()))
        validator.validate(json.loads(json.dumps(worker_result)))
    request.write_text(json.dumps(wire.DESCRIBE_REQUEST))
    subprocess.run([sys.executable, str(EXAMPLE), str(request), str(tmp_path / "result.json")], check=True)
    described = json.loads((tmp_path / "result.json").read_text())
    validator.validate(described)
    _validator("scope").validate(described["scope"])
    Scope.parse(described["scope"], "the example's scope")


VALID = {"fields": {"predictions": [[0.5, "0x1.8p+1"], ["-inf", "nan"]]}, "mutated": []}
INVALID = [
    {"fields": {"predictions": [[{"nested": 1}]]}},                    # not a number
    {"fields": {"predictions": [[[[[[1.0]]]]]]}},                      # deeper than a result can be
    {"fields": {"predictions": [["0x1.8q+1"]]}},                       # not a float.hex string
    {"fields": {"predictions": [[1.0]]}, "mutated": ["Z"]},            # an input it does not have
    {"nothing": "here"},
]


def test_the_result_schema_and_the_oracles_reader_agree_on_what_is_valid(tmp_path):
    validator = _validator("result")
    path = tmp_path / "result.json"
    path.write_text(json.dumps(VALID))
    validator.validate(VALID)
    assert wire.read_result(path, 1 << 20).error is None
    for content in INVALID:
        assert not validator.is_valid(content), content
        path.write_text(json.dumps(content))
        result = wire.read_result(path, 1 << 20)
        assert result.error is not None and result.error.startswith("wrote a malformed result file"), (content, result)


def test_the_scope_schema_and_the_scope_parser_agree():
    validator = _validator("scope")
    good = {"precision": "float32", "algorithms": {"onorma": {"losses": ["squared"]}, "batch_ridge": {}}}
    validator.validate(good)
    assert Scope.parse(good, "test").algorithms["onorma"]["losses"] == ("squared",)
    for bad in ({"algorithms": {}}, {"algorithms": {"onorma": {"losses": []}}}, {"algorithms": {"svm": {}}},
                {"algorithms": {"monorma": {"truncations": ["none"]}}}, {"precision": "float16", "algorithms": {"onorma": {}}},
                {"algorithms": {"onorma": {"kernels": ["gaussian"]}}}):
        assert not validator.is_valid(bad), bad
        with pytest.raises(ValueError):
            Scope.parse(bad, "test")


def test_a_declared_scope_outside_the_rules_is_a_usage_error_naming_it(tmp_path, capsys):
    example = f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE))}"
    assert cli.main(["conform", "--command", example, "--scope", '{"algorithms": {"onorma": {"losses": ["l1"]}}}']) == 2
    assert "--scope: algorithms.onorma.losses must be a non-empty list of some of squared" in capsys.readouterr().err
    assert cli.main(["conform", "ovk_fast", "--require", "svm"]) == 2
    assert "--require must be a JSON scope, a JSON file or algorithm names" in capsys.readouterr().err
