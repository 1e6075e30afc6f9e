"""The adopter owns the verdict (issue 33): exit 0 means every algorithm, kernel family, loss and truncation kind
the implementation offers passed, at the precision class the adopter asked for. An engine that declares away a
broken MONORMA, and one that declares float32 while computing a wrong float64, are rejected with the reason
printed; honest float32 engines are accepted at the float32 class (ovk_fast and the examples: test_conformance_command,
test_conformance_seal)."""
import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from ovk_cli import cli
from ovk_conform import offers
from ovk_conform.scope import Scope

HERE = Path(__file__).parent


@pytest.fixture
def fixtures(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{HERE / 'adversaries'}:{HERE / 'engines'}")


def _conform(tmp_path, *arguments):
    """Exit code, JSON report, JUnit run checks and the printed text of a quick run with two fresh cases."""
    path, junit = tmp_path / "report.json", tmp_path / "report.xml"
    code = cli.main(["conform", *arguments, "--level", "quick", "--fuzz", "2", "--seed", "3", "--json", str(path),
                     "--junit", str(junit), "--shrunk-dir", str(tmp_path)])
    checks = {case.get("name"): case for case in ElementTree.parse(junit).iter("testcase")
              if case.get("classname") == "conform.run"}
    return code, json.loads(path.read_text()), checks


def test_an_engine_that_declares_away_a_broken_monorma_is_partial_and_fails(fixtures, tmp_path, capsys):
    code, report, checks = _conform(tmp_path, "declares_away_broken_monorma", "--reruns", "0")
    out = capsys.readouterr().out
    assert code == 1 and not report["passed"] and report["counts"]["fail"] == 0     # every declared case passes
    assert report["offered"]["partial"] == ["monorma"]
    assert "PARTIAL: monorma offered, not certified" in out and "the run FAILS" in out
    # the probe's answer is compared too: the broken MONORMA is wrong, and the report says so
    assert "answered a 6-round probe WRONG" in report["offered"]["probes"][0]["detail"]
    assert checks["run:offered"].find("failure") is not None
    # the adopter narrows explicitly: said in the text, the JSON and the JUnit file, and the run passes
    for narrowing in (["--allow-partial"], ["--require", "onorma"]):
        code, report, checks = _conform(tmp_path, "declares_away_broken_monorma", "--reruns", "0", *narrowing)
        assert code == 0 and report["offered"]["narrowed_by"] == narrowing[0] and report["offered"]["partial"]
        assert f"accepted as narrowed by {narrowing[0]}" in capsys.readouterr().out
        assert checks["run:offered"].find("failure") is None
        assert "PARTIAL: monorma" in checks["run:offered"].find("system-out").text


def test_an_engine_declaring_float32_while_computing_a_wrong_float64_is_rejected_at_either_class(fixtures, tmp_path,
                                                                                                 capsys):
    # the adopter's class (float64 by default) judges it, not the one it declares; and its digits betray it
    code, report, _ = _conform(tmp_path, "declares_float32_wrong_float64", "--reruns", "0")
    assert code == 1 and report["precision"] == "float64" and report["declared_precision"] == "float32"
    failure = next(case["message"] for case in report["cases"] if case["status"] == "fail")
    assert "declares precision float32, but its predictions" in failure and "float32 cannot represent" in failure
    code, report, _ = _conform(tmp_path, "declares_float32_wrong_float64", "--precision", "float32", "--reruns", "0")
    assert code == 1 and report["precision"] == "float32"
    # rounded to float32 numbers, its errors still leave the envelope of an honest float32 computation of each case
    code, report, _ = _conform(tmp_path, "declares_float32_wrong_float64:as_float32", "--precision", "float32",
                               "--reruns", "0")
    failures = [case["message"] for case in report["cases"] if case["status"] == "fail"]
    assert code == 1 and failures and all("the case's honest float32 envelope" in message for message in failures
                                          if "row" in message)
    assert "precision class float32 (the adopter's --precision" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["ovk_conform.plain_engine:float32_engine", "float32_ovk_fast"])
def test_honest_float32_engines_are_accepted_at_the_float32_class_only(fixtures, tmp_path, engine):
    code, report, _ = _conform(tmp_path, engine, "--precision", "float32", "--algorithms", "onorma,monorma",
                              "--timeout", "120")   # a cold compiled cache: the first MONORMA call compiles
    assert code == 0 and report["counts"]["fail"] == 0 and report["float32_envelope"]["factor"] > 1
    worst = max(error["rel_error"] for error in report["worst_errors"].values())
    assert 0 < worst < 1e-3
    # at the default class, float64, float32 round-off is far outside the tolerance
    code, report, _ = _conform(tmp_path, engine, "--algorithms", "onorma", "--reruns", "0")
    assert code == 1 and report["precision"] == "float64"


def test_probes_ask_every_value_declared_away_and_nothing_else():
    scope = Scope.parse({"algorithms": {"onorma": {"kernels": ["gaussian_separable", "sum"], "losses": ["squared"],
                                                   "truncations": ["none", "window"]}}}, "test")
    whats = [probe.what for probe in offers.probe_cases(scope, ("onorma", "monorma"), ("onorma", "monorma",
                                                                                         "batch_ridge"), 0)]
    assert whats[0] == "onorma kernel linear_separable" and "monorma" in whats and "batch_ridge" not in whats
    assert not any(what in whats for what in ("onorma kernel gaussian_separable", "onorma kernel sum",
                                              "onorma loss squared", "onorma truncation window"))
    assert {"onorma loss softmax", "onorma truncation theorem2", "onorma truncation listed"} <= set(whats)
    # the adopter's --algorithms narrows what is probed; a full scope has nothing to probe
    assert [probe.what for probe in offers.probe_cases(scope, ("onorma", "monorma"), ("onorma",), 0)] == whats[:-1]
    assert offers.probe_cases(Scope.full(), ("onorma", "monorma", "batch_ridge"), ("onorma",), 0) == []
