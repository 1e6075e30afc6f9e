"""``ovk-check verify --engine MODULE`` / ``--command CMD``: the trajectory claims searched on another engine's records.
A planted faulty variant is found false with its counterexample; a claim whose fields, algorithm or instances the
engine lacks is "not applicable" with the reason, never "holds"; JSON and JUnit as for verify; bad options refused."""
import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from ovk_cli import cli, engine_records
from proofs_check.claims import CLAIMS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def _verify(tmp_path, *arguments):
    path = tmp_path / "report.json"
    code = cli.main(["verify", "--profile", "ci", "--workers", "1", "--json", str(path), *arguments])
    return code, {verdict["claim"]: verdict for verdict in json.loads(path.read_text())["verdicts"]}


def test_a_step_size_that_decays_too_slowly_is_found_false(tmp_path):
    code, verdicts = _verify(tmp_path, "--engine", "smallest_budget:slow_step", "--claim", "prop1.i")
    assert code == 1 and verdicts["prop1.i"]["verdict"] == "false"
    assert verdicts["prop1.i"]["counterexample_margin"] < 0 and len(verdicts["prop1.i"]["counterexample"]["X"]) <= 3


def test_a_budget_that_forgets_to_shrink_is_found_false(tmp_path):
    code, verdicts = _verify(tmp_path, "--engine", "smallest_budget:forgets_shrink", "--scope", '{"algorithms": {"onorma": {}}}',
                             "--claim", "thm2.policy_dropped_norm")
    assert code == 1 and verdicts["thm2.policy_dropped_norm"]["verdict"] == "false"


def test_the_honest_budget_keeps_the_theorem(tmp_path):
    code, verdicts = _verify(tmp_path, "--engine", "smallest_budget", "--claim", "thm2.removal_policies")
    assert code == 0 and verdicts["thm2.removal_policies"]["verdict"] == "holds"


def predictions_only(X, Y, kernel, **options):
    import ovk_ref
    return {"predictions": ovk_ref.onorma(X, Y, kernel, **options).predictions}


def test_a_claim_whose_fields_the_engine_does_not_report_is_not_applicable(tmp_path):
    code, verdicts = _verify(tmp_path, "--engine", f"{__name__}", "--claim", "prop1.i", "--claim", "monorma.gamma")
    assert code == 0
    assert verdicts["prop1.i"]["verdict"] == "not applicable"
    assert "does not report coefficients, new_coefficients" in verdicts["prop1.i"]["error"]
    assert verdicts["monorma.gamma"]["verdict"] == "not applicable" and "offers no monorma" in verdicts["monorma.gamma"]["error"]


onorma = predictions_only      # this module as an engine offering ONORMA only


def test_an_engine_refusing_every_instance_makes_the_claim_not_applicable_and_junit_skips_it(tmp_path):
    junit = tmp_path / "verify.xml"
    code, verdicts = _verify(tmp_path, "--engine", "ovk_fast", "--claim", "thm2.removal_policies", "--junit", str(junit))
    assert code == 0 and verdicts["thm2.removal_policies"]["verdict"] == "not applicable"
    assert "refused" in verdicts["thm2.removal_policies"]["error"] and "removal policy" in verdicts["thm2.removal_policies"]["error"]
    case = ElementTree.parse(junit).getroot().find("testsuite/testcase")
    assert case.get("name") == "thm2.removal_policies" and case.find("skipped") is not None


def test_a_command_is_reached_through_the_protocol(tmp_path):
    """examples/onorma_command.py describes its scope (separable Gaussian kernels, the squared loss, windows) and
    reports predictions only: the claims' instances outside its scope are not sent, and none can be evaluated."""
    command = f"{sys.executable} {EXAMPLES / 'onorma_command.py'}"
    code, verdicts = _verify(tmp_path, "--command", command, "--claim", "onorma.scalar_norma", "--claim", "prop2.iii")
    assert code == 0 and {verdict["verdict"] for verdict in verdicts.values()} == {"not applicable"}
    assert all(verdict["error"] for verdict in verdicts.values())


def test_every_claim_that_runs_an_algorithm_declares_its_fields():
    for claim_id in engine_records.trajectory_claims():
        assert CLAIMS[claim_id].needs, claim_id
    assert "batch.optimality" not in engine_records.trajectory_claims()


@pytest.mark.parametrize("arguments", [["--junit", "x.xml"], ["--scope", "onorma"], ["--engine", "ovk_fast", "--split", "5"],
                                       ["--engine", "ovk_fast", "--command", "true"]])
def test_bad_engine_options_are_usage_errors(arguments, capsys):
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(cli.main(["verify", "--claim", "prop1.i", *arguments]))
    assert exit_info.value.code == 2


def test_random_features_are_found_not_to_be_the_kernel(tmp_path):
    """examples/rff_onorma.py predicts with an approximate kernel but reports the exact expansion's coefficients: the
    identity between its predictions and scalar NORMA's on the exact kernel is false, a finding about the variant."""
    code, verdicts = _verify(tmp_path, "--engine", "rff_onorma", "--claim", "onorma.scalar_norma")
    assert code == 1 and verdicts["onorma.scalar_norma"]["verdict"] == "false"
