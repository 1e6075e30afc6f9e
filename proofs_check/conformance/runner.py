"""Run golden vectors against an implementation and say, per case, where it drifts (issue 4, item 3)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

import ovk_ref
from proofs_check.conformance.protocol import implementation_name, offered, result_field
from proofs_check.conformance.vectors import (
    ALGORITHMS, EXACT_FIELDS, FINAL_FIELDS, REQUIRED_FIELDS, ROUND_FIELDS, VECTORS_VERSION, Case, load_cases,
)


@dataclass
class Outcome:
    """The verdict on one case. ``diverging_round`` is the first round t (1-based) whose row of
    ``diverging_field`` is outside the tolerance; for final-state fields (``coefficients``)
    ``diverging_index`` is the first coefficient index i (1-based) instead."""

    algorithm: str
    case: str
    status: str                     # "pass", "fail" or "skip"
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    diverging_round: int | None = None
    diverging_field: str | None = None
    diverging_index: int | None = None
    fields_checked: list = field(default_factory=list)
    message: str = ""

    @property
    def where(self) -> str:
        if self.diverging_field is None:
            return ""
        if self.diverging_index is not None:
            return f"{self.diverging_field}[i={self.diverging_index}]"
        return f"t={self.diverging_round} {self.diverging_field}"

    def line(self) -> str:
        errors = ("" if self.max_abs_error is None
                  else f"max abs {self.max_abs_error:9.2e}  max rel {self.max_rel_error:9.2e}")
        text = f"{self.status.upper():4s}  {self.algorithm:11s} {self.case:32s} {errors}"
        if self.status == "fail":
            text += f"  first divergence: {self.where}" if self.where else f"  {self.message}"
        return text.rstrip()


@dataclass
class _FieldCheck:
    name: str
    max_abs: float
    max_rel: float
    first_bad_row: int | None
    message: str


def _check_field(case: Case, name: str, value) -> _FieldCheck:
    expected = case.expected[name]
    try:
        actual = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        return _FieldCheck(name, np.inf, np.inf, 0, f"{name} is not an array of numbers ({error})")
    if actual.shape != expected.shape:
        return _FieldCheck(name, np.inf, np.inf, 0, f"{name} has shape {actual.shape}, expected {expected.shape}")
    with np.errstate(invalid="ignore"):
        error = np.abs(actual - expected)
    error[~np.isfinite(actual)] = np.inf
    rows = error.reshape(len(error), -1).max(axis=1) if error.size else error
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    tolerance = 0.0 if name in EXACT_FIELDS else case.rtol * scale
    max_abs = float(np.max(error)) if error.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else np.inf)
    bad = np.flatnonzero(rows > tolerance)
    if not bad.size:
        return _FieldCheck(name, max_abs, max_rel, None, "")
    row = int(bad[0])
    return _FieldCheck(name, max_abs, max_rel, row,
                       f"{name} row {row + 1}: expected {expected[row].tolist()}, got {actual[row].tolist()} "
                       f"(error {rows[row]:.3g} > tolerance {tolerance:.3g} = rtol {case.rtol:g} x scale {scale:.3g})")


def check_case(function, case: Case) -> Outcome:
    """Call ``function`` on one case and compare every returned field with the expected values."""
    outcome = Outcome(case.algorithm, case.id, "fail")
    try:
        # floating-point warnings (overflow, 0/0) are not a verdict: the values they produce are compared
        with np.errstate(all="ignore"):
            result = function(case.X.copy(), case.Y.copy(), **case.call_arguments())
    except Exception as error:  # the implementation's failure is the finding
        outcome.message = f"raised {type(error).__name__}: {error}"
        return outcome
    checks = []
    for name in ROUND_FIELDS[case.algorithm] + FINAL_FIELDS[case.algorithm]:
        value = result_field(case.algorithm, result, name)
        if value is None:
            if name in REQUIRED_FIELDS[case.algorithm]:
                outcome.message = f"returned no {name!r} (required by the protocol)"
                return outcome
            continue
        checks.append(_check_field(case, name, value))
    outcome.fields_checked = [check.name for check in checks]
    outcome.max_abs_error = max(check.max_abs for check in checks)
    outcome.max_rel_error = max(check.max_rel for check in checks)
    failing = [check for check in checks if check.first_bad_row is not None]
    if not failing:
        outcome.status = "pass"
        return outcome
    per_round = [check for check in failing if check.name in ROUND_FIELDS[case.algorithm]]
    first = min(per_round, key=lambda check: check.first_bad_row) if per_round else failing[0]
    outcome.diverging_field = first.name
    if per_round:
        outcome.diverging_round = first.first_bad_row + 1
    else:   # final state: after the last round (batch: no rounds)
        outcome.diverging_index = first.first_bad_row + 1
        outcome.diverging_round = None if case.algorithm == "batch_ridge" else len(case.X)
    outcome.message = "; ".join(check.message for check in failing)
    return outcome


@dataclass
class Report:
    implementation: str
    outcomes: list
    #: algorithm -> number of its cases not run because the implementation does not offer it
    not_offered: dict

    @property
    def passed(self) -> bool:
        """True when at least one case ran and none failed."""
        ran = [outcome for outcome in self.outcomes if outcome.status != "skip"]
        return bool(ran) and all(outcome.status == "pass" for outcome in ran)

    def counts(self) -> dict:
        return {status: sum(outcome.status == status for outcome in self.outcomes) for status in ("pass", "fail", "skip")}

    def text(self, verbose: bool = False) -> str:
        lines = [f"implementation {self.implementation}; golden vectors version {VECTORS_VERSION} "
                 f"(spec {ovk_ref.SPEC_VERSION})"]
        for algorithm, count in self.not_offered.items():
            lines.append(f"SKIP  {algorithm:11s} ({count} cases): the implementation offers no {algorithm}")
        for outcome in self.outcomes:
            if outcome.status != "skip":
                lines.append(outcome.line())
                if outcome.status == "fail" and verbose:
                    lines.append(f"      {outcome.message}")
        counts = self.counts()
        lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
                     + ("" if self.outcomes and len(self.not_offered) < len(ALGORITHMS)
                        else "; the implementation offers none of " + ", ".join(ALGORITHMS)))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"implementation": self.implementation, "vectors_version": VECTORS_VERSION,
                "spec_version": ovk_ref.SPEC_VERSION, "passed": self.passed, "counts": self.counts(),
                "not_offered": self.not_offered,
                "cases": [{key: (None if isinstance(value, float) and not np.isfinite(value) else value)
                           for key, value in asdict(outcome).items()} for outcome in self.outcomes]}


def run(implementation, algorithms=ALGORITHMS) -> Report:
    """Every stored case of ``algorithms`` that the implementation offers; the others are skipped."""
    functions = offered(implementation)
    outcomes, not_offered = [], {}
    for case in load_cases(algorithms):
        if case.algorithm in functions:
            outcomes.append(check_case(functions[case.algorithm], case))
        else:
            outcomes.append(Outcome(case.algorithm, case.id, "skip", message=f"no {case.algorithm}"))
            not_offered[case.algorithm] = not_offered.get(case.algorithm, 0) + 1
    return Report(implementation_name(implementation), outcomes, not_offered)
