"""The runner and ``ovk-check conform``: ovk_ref and ovk_fast pass, planted faults are rejected at the right round."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

import ovk_fast
import ovk_ref
from ovk_cli import cli
from ovk_conform import (
    VECTORS_VERSION,
    assert_conforms,
    envelope,
    parametrize_with_vectors,
    run,
    stratified,
)
from ovk_conform import tolerance as conform_tolerance
from ovk_conform.levels import LEVELS
from ovk_conform.scope import Scope
from proofs_check.mutants import MUTANTS


def test_ovk_ref_in_float64_conforms():
    assert_conforms(ovk_ref)


def test_ovk_fast_conforms():
    assert_conforms(ovk_fast)


@parametrize_with_vectors(ovk_fast)
def test_parametrize_with_vectors_runs_one_test_per_case(implementation, check):
    check(implementation)


def _predictions_only(function):
    """The protocol's minimum: a result with nothing but ``predictions`` (and ``weights``)."""
    def run_it(*args, **kwargs):
        record = function(*args, **kwargs)
        return {name: record[name] for name in ("predictions", "weights") if hasattr(record, name)}
    return run_it


def _onorma_keeping_one_fewer(X, Y, kernel, *, truncation=None, **parameters):
    """The off-by-one the other way: drops every ``i <= t - s_t + 1``, so ``f_t`` keeps ``s_t - 1`` terms (at least 1)."""
    schedule = ovk_ref.truncation.as_schedule(truncation)
    fewer = None if schedule is None else (lambda t: max(1, schedule(t) - 1))
    return ovk_ref.onorma(X, Y, kernel, truncation=fewer, **parameters)


PLANTED = {**MUTANTS, "truncation_keeps_one_fewer": SimpleNamespace(onorma=_onorma_keeping_one_fewer)}


def _outcome(implementation, algorithm, case_id):
    report = run(implementation, (algorithm,))
    assert not report.passed
    return next(outcome for outcome in report.outcomes if outcome.case == case_id)


# (mutant, algorithm, case, first diverging round and field with the full record, same with predictions only),
# derived from the algorithm: e.g. a skipped shrink first changes ||f_2||^2 (c_2 enters the norm recursion) and the
# prediction of round 3 (the first to use a shrunk coefficient, alpha_{1,2} = c_2 alpha_{1,1}).
PLANTED_FAULTS = [
    ("shrink_skipped", "onorma", "gaussian-d3-squared", (2, "rkhs_norm2"), (3, "predictions")),
    ("eta_next_index", "onorma", "gaussian-d3-squared", (1, "new_coefficients"), (2, "predictions")),
    ("eta_next_index", "monorma", "m2-gaussians-r1", (1, "gamma"), (2, "predictions")),
    # r = 2: the misparsed exponents (3/2 and 2) break the weights at the first update
    ("delta_exponents_misparsed", "monorma", "m3-paper-r2", (1, "weights"), (1, "weights")),
    # window 4: the correct run drops index 1 after round 5, the faulty one after round 6
    ("truncation_keeps_one_more", "onorma", "window-4-gaussian-d2", (5, "rkhs_norm2"), (6, "predictions")),
    # ... and the faulty one keeping 3 drops index 1 after round 4 already
    ("truncation_keeps_one_fewer", "onorma", "window-4-gaussian-d2", (4, "rkhs_norm2"), (5, "predictions")),
    # K(x_i, x) differs from K(x, x_i) only for non-symmetric blocks; round 2 is the first prediction with a term
    ("kernel_transposed", "onorma", "feature-d2-squared", (2, "predictions"), (2, "predictions")),
]


@pytest.mark.parametrize("mutant, algorithm, case_id, full, minimal", PLANTED_FAULTS,
                         ids=[f"{fault[0]}:{fault[2]}" for fault in PLANTED_FAULTS])
def test_planted_fault_is_rejected_at_its_first_diverging_round(mutant, algorithm, case_id, full, minimal):
    function = getattr(PLANTED[mutant], algorithm)
    outcome = _outcome(SimpleNamespace(**{algorithm: function}), algorithm, case_id)
    assert (outcome.status, outcome.diverging_round, outcome.diverging_field) == ("fail", *full)
    outcome = _outcome(SimpleNamespace(**{algorithm: _predictions_only(function)}), algorithm, case_id)
    assert (outcome.status, outcome.diverging_round, outcome.diverging_field) == ("fail", *minimal)


def test_cli_names_the_diverging_round_and_exits_1_for_a_planted_fault(capsys, tmp_path):
    assert cli.main(["conform", "proofs_check.mutants:MUTANTS.kernel_transposed", "--level", "quick",
                     "--shrunk-dir", str(tmp_path)]) == 1
    output = capsys.readouterr().out
    assert "FAIL  onorma      feature-d2-squared               [basic]" in output
    assert "first divergence: t=2 predictions" in output
    assert "declared scope (none declared): onorma (all); precision float64" in output
    assert "SKIP  17 case(s) outside the declared scope" in output      # 9 MONORMA and 8 batch cases


def test_cli_exits_0_for_ovk_fast_and_writes_the_json_report(tmp_path, capsys):
    path = tmp_path / "report.json"
    assert cli.main(["conform", "ovk_fast", "--level", "quick", "--seed", "5", "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["passed"] and report["counts"]["fail"] == 0 and report["counts"]["pass"] == len(report["cases"])
    assert all(case["max_rel_error"] <= conform_tolerance.CONFORMANCE_RTOL for case in report["cases"])
    assert (report["level"], report["seed"], report["vectors_version"]) == ("quick", 5, VECTORS_VERSION)
    assert report["regimes"] == ["basic", "fresh"]
    # the level's fresh cases, and the stratified ones: every axis of the envelope at the level's reach (issue 33)
    stratified_count = len(stratified.stratified_cases(5, "quick", Scope.full()))
    assert sum(case["regime"] == "fresh" for case in report["cases"]) == LEVELS["quick"].fresh + stratified_count
    assert report["envelope"]["axes"]["d"]["exercised"]["onorma"][1] == envelope.AXES["d"].top
    progress = capsys.readouterr().err
    assert "fresh-case seed 5" in progress and progress.count("PASS ") == len(report["cases"])


def test_cli_exits_1_when_the_implementation_offers_nothing(capsys):
    assert cli.main(["conform", "json", "--level", "quick"]) == 1
    assert "offers none of onorma, monorma, batch_ridge" in capsys.readouterr().out


def test_cli_usage_error_for_a_missing_module(capsys):
    assert cli.main(["conform", "no_such_module_for_conform", "--level", "quick"]) == 2
    assert "cannot be imported" in capsys.readouterr().err


def _wrapped(transform, algorithm="onorma"):
    """ovk_ref's algorithm with its record passed through ``transform``."""
    reference = getattr(ovk_ref, algorithm)
    return SimpleNamespace(**{algorithm: lambda *args, **kwargs: transform(reference(*args, **kwargs))})


def test_returned_optional_fields_are_checked():
    def wrong_norm(record):
        return {"predictions": record.predictions, "rkhs_norm2": record.rkhs_norm2 * (1 + 1e-6)}
    outcome = _outcome(_wrapped(wrong_norm), "onorma", "gaussian-d3-squared")
    assert (outcome.diverging_round, outcome.diverging_field) == (1, "rkhs_norm2")


def test_final_coefficients_are_reported_by_index():
    def wrong_last(record):
        coefficients = record.coefficients.copy()
        coefficients[-1] *= 2
        return {"predictions": record.predictions, "coefficients": coefficients}
    outcome = _outcome(_wrapped(wrong_last), "onorma", "gaussian-d3-squared")
    assert (outcome.diverging_field, outcome.diverging_index, outcome.diverging_round) == ("coefficients", 20, 20)


def test_float32_round_off_is_outside_the_tolerance_and_1e_12_is_inside():
    float32 = _outcome(_wrapped(lambda record: {"predictions": record.predictions.astype(np.float32)}),
                       "onorma", "gaussian-d3-squared")
    assert float32.status == "fail"
    nearly = run(_wrapped(lambda record: {"predictions": record.predictions * (1 + 1e-12)}), ("onorma",))
    assert nearly.passed


def test_missing_required_field_wrong_shape_and_exceptions_fail_with_a_message():
    missing = _outcome(_wrapped(lambda record: {"coefficients": record.coefficients}), "onorma", "gaussian-d3-squared")
    assert "returned no 'predictions'" in missing.message
    shape = _outcome(_wrapped(lambda record: {"predictions": record.predictions.T}), "onorma", "gaussian-d3-squared")
    assert "has shape" in shape.message

    def broken(*args, **kwargs):
        raise RuntimeError("not implemented yet")
    raised = _outcome(SimpleNamespace(batch_ridge=broken), "batch_ridge", "gaussian-d3")
    assert raised.message == "raised RuntimeError: not implemented yet"


def test_a_result_whose_fields_raise_is_a_failure_not_a_crash():
    class Unreadable:
        @property
        def predictions(self):
            raise RuntimeError("lazy result lost its device")
    outcome = _outcome(SimpleNamespace(onorma=lambda *args, **kwargs: Unreadable()), "onorma", "gaussian-d3-squared")
    assert outcome.message == ("returned a result whose fields cannot be read (RuntimeError: lazy result lost its "
                               "device)")


def test_assert_conforms_lists_the_failures():
    with pytest.raises(AssertionError, match="first divergence: t=2 predictions"):
        assert_conforms(MUTANTS["kernel_transposed"])

