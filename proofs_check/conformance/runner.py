"""Run cases against an implementation and say, per case, where it drifts (issue 4, item 3; issue 9).

``run`` takes the cases of a level (stored quick cases, stored regimes, fresh cases drawn from a seed) and a
host (``hosts.py``: in this process, in an isolated worker process, or an external command), compares every
returned field with the reference under the tolerance policy (``tolerance.py``) and returns a ``Report``.
"""
from __future__ import annotations

import concurrent.futures
import queue
import time
from dataclasses import asdict, dataclass, field

import numpy as np

import ovk_ref
from proofs_check.conformance import fresh, tolerance
from proofs_check.conformance.hosts import CallResult, InProcessHost
from proofs_check.conformance.levels import LEVELS, level_cases
from proofs_check.conformance.vectors import (
    ALGORITHMS, EXACT_FIELDS, FINAL_FIELDS, REQUIRED_FIELDS, ROUND_FIELDS, VECTORS_VERSION, Case,
)


@dataclass
class Outcome:
    """The verdict on one case. ``diverging_round`` is the first round t (1-based) whose row of
    ``diverging_field`` is outside the tolerance; for final-state fields (``coefficients``)
    ``diverging_index`` is the first coefficient index i (1-based) instead. ``field_errors`` holds the worst
    relative error of each checked field (None: not finite)."""

    algorithm: str
    case: str
    status: str                     # "pass", "fail" or "skip"
    regime: str = "basic"
    size: str = ""
    origin: str = ""
    seconds: float = 0.0
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    diverging_round: int | None = None
    diverging_field: str | None = None
    diverging_index: int | None = None
    fields_checked: list = field(default_factory=list)
    field_errors: dict = field(default_factory=dict)
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
        text = f"{self.status.upper():4s}  {self.algorithm:11s} {self.case:32s} [{self.regime}] {errors}"
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


def _check_field(case: Case, name: str, value, rtol: float) -> _FieldCheck:
    expected = case.expected[name]
    if isinstance(value, np.ndarray) and np.iscomplexobj(value) or isinstance(value, complex):
        imaginary = float(np.max(np.abs(np.imag(value)))) if np.size(value) else 0.0
        return _FieldCheck(name, np.inf, np.inf, 0, f"{name} is complex (max |imaginary part| {imaginary:.3g})")
    try:
        actual = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        return _FieldCheck(name, np.inf, np.inf, 0, f"{name} is not an array of real numbers ({error})")
    full_shape = expected.shape if case.rounds is None else (len(case.X),) + expected.shape[1:]
    if actual.shape != full_shape:
        return _FieldCheck(name, np.inf, np.inf, 0, f"{name} has shape {actual.shape}, expected {full_shape}")
    if case.rounds is not None:
        actual = actual[case.rounds - 1]
    with np.errstate(invalid="ignore"):
        error = np.abs(actual - expected)
    non_finite = ~np.isfinite(actual) & np.isfinite(expected)
    error[non_finite] = np.inf
    error[~np.isfinite(actual) & ~np.isfinite(expected) & (actual.astype(str) == expected.astype(str))] = 0.0
    rows = error.reshape(len(error), -1).max(axis=1) if error.size else error
    finite = np.isfinite(expected)
    scale = float(np.max(np.abs(expected[finite]))) if np.any(finite) else 0.0
    tolerance = 0.0 if name in EXACT_FIELDS else rtol * scale
    max_abs = float(np.max(error)) if error.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else np.inf)
    bad = np.flatnonzero(~(rows <= tolerance))
    if not bad.size:
        return _FieldCheck(name, max_abs, max_rel, None, "")
    row = int(bad[0])
    label = row + 1 if case.rounds is None else int(case.rounds[row])
    reason = " (non-finite where the reference is finite)" if np.any(non_finite.reshape(len(error), -1)[row]) else ""
    return _FieldCheck(name, max_abs, max_rel, row,
                       f"{name} row {label}: expected {expected[row].tolist()}, got {actual[row].tolist()}{reason} "
                       f"(error {rows[row]:.3g} > tolerance {tolerance:.3g} = rtol {rtol:g} x scale {scale:.3g})")


def check_fields(case: Case, fields: dict, precision: str = "float64") -> Outcome:
    """Compare the returned ``fields`` (name -> array) of one case with the reference."""
    outcome = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin)
    rtol = tolerance.rtol(precision)
    checks = []
    for name in ROUND_FIELDS[case.algorithm] + FINAL_FIELDS[case.algorithm]:
        value = fields.get(name)
        if value is None or name not in case.expected:
            if name in REQUIRED_FIELDS[case.algorithm]:
                outcome.message = f"returned no {name!r} (required by the protocol)"
                return outcome
            continue
        checks.append(_check_field(case, name, value, rtol))
    outcome.fields_checked = [check.name for check in checks]
    outcome.field_errors = {check.name: (check.max_rel if np.isfinite(check.max_rel) else None) for check in checks}
    outcome.max_abs_error = max(check.max_abs for check in checks)
    outcome.max_rel_error = max(check.max_rel for check in checks)
    failing = [check for check in checks if check.first_bad_row is not None]
    if not failing:
        outcome.status = "pass"
        return outcome
    per_round = [check for check in failing if check.name in ROUND_FIELDS[case.algorithm]]
    first = min(per_round, key=lambda check: check.first_bad_row) if per_round else failing[0]
    outcome.diverging_field = first.name
    label = (lambda row: row + 1) if case.rounds is None else (lambda row: int(case.rounds[row]))
    if per_round:
        outcome.diverging_round = label(first.first_bad_row)
    else:   # final state: after the last round (batch: no rounds)
        outcome.diverging_index = label(first.first_bad_row)
        outcome.diverging_round = None if case.algorithm == "batch_ridge" else len(case.X)
    outcome.message = "; ".join(check.message for check in failing)
    return outcome


def judge(case: Case, result: CallResult, precision: str = "float64") -> Outcome:
    """The outcome of one call: a failure of the call itself (exit, crash, timeout, exception, mutated
    input) or the comparison of its fields."""
    if result.unsupported is not None:
        return Outcome(case.algorithm, case.id, "skip", case.regime, case.size, case.origin, result.seconds,
                       message=result.unsupported)
    if result.error is not None:
        outcome = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin, result.seconds,
                          message=result.error)
    else:
        outcome = check_fields(case, result.fields, precision)
        outcome.seconds = result.seconds
    if result.mutated:
        outcome.status = "fail"
        outcome.message = (f"modified its input(s) {', '.join(result.mutated)} in place"
                           + (f"; {outcome.message}" if outcome.message else ""))
    return outcome


def check_case(function, case: Case, precision: str = "float64") -> Outcome:
    """Call ``function`` on one case in this process and compare every returned field."""
    return judge(case, InProcessHost({case.algorithm: function}).call(case), precision)


@dataclass
class Report:
    implementation: str
    outcomes: list
    #: algorithm -> number of its cases not run because the implementation does not offer it
    not_offered: dict
    level: str = "quick"
    seed: int | None = None
    precision: str = "float64"
    regimes: list = field(default_factory=list)
    #: cases left out because they are outside the precision class, with the reason
    outside_class: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when at least one case ran and none failed."""
        ran = [outcome for outcome in self.outcomes if outcome.status != "skip"]
        return bool(ran) and all(outcome.status == "pass" for outcome in ran)

    def counts(self) -> dict:
        return {status: sum(outcome.status == status for outcome in self.outcomes) for status in ("pass", "fail", "skip")}

    def worst_errors(self) -> dict:
        """Field -> (worst relative error over every case, the case), None where an error is not finite."""
        worst = {}
        for outcome in self.outcomes:
            for name, error in outcome.field_errors.items():
                value = np.inf if error is None else error
                if name not in worst or value > worst[name][0]:
                    worst[name] = (value, f"{outcome.algorithm}:{outcome.case}")
        return worst

    def text(self, verbose: bool = False) -> str:
        lines = [f"implementation {self.implementation}; level {self.level} (regimes: {', '.join(self.regimes)}); "
                 f"fresh-case seed {self.seed}; precision {self.precision} (rtol {tolerance.rtol(self.precision):g}); "
                 f"golden vectors version {VECTORS_VERSION} (spec {ovk_ref.SPEC_VERSION})"]
        for algorithm, count in self.not_offered.items():
            lines.append(f"SKIP  {algorithm:11s} ({count} cases): the implementation offers no {algorithm}")
        for name, reason in self.outside_class.items():
            lines.append(f"SKIP  {name}: outside the {self.precision} class: {reason}")
        for outcome in self.outcomes:
            if outcome.status == "fail" or verbose and outcome.status == "pass":
                lines.append(outcome.line())
                if outcome.status == "fail" and verbose:
                    lines.append(f"      {outcome.message}")
        worst = self.worst_errors()
        if worst:
            lines.append("worst relative error per field: " + ", ".join(
                f"{name} {error:.2e} ({case})" for name, (error, case) in worst.items()))
        counts = self.counts()
        lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
                     + ("" if self.outcomes and len(self.not_offered) < len(ALGORITHMS)
                        else "; the implementation offers none of " + ", ".join(ALGORITHMS)))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        def clean(value):
            return None if isinstance(value, float) and not np.isfinite(value) else value
        return {"implementation": self.implementation, "level": self.level, "seed": self.seed,
                "precision": self.precision, "rtol": tolerance.rtol(self.precision), "regimes": self.regimes,
                "vectors_version": VECTORS_VERSION, "spec_version": ovk_ref.SPEC_VERSION, "passed": self.passed,
                "counts": self.counts(), "not_offered": self.not_offered, "outside_class": self.outside_class,
                "worst_errors": {name: {"rel_error": clean(error), "case": case}
                                 for name, (error, case) in self.worst_errors().items()},
                "cases": [{key: clean(value) for key, value in asdict(outcome).items()} for outcome in self.outcomes]}


def _progress(index: int, total: int, outcome: Outcome, stream) -> None:
    where = f" at {outcome.where}" if outcome.status == "fail" and outcome.where else ""
    print(f"[{index}/{total}] {outcome.status.upper():4s} {outcome.regime:16s} {outcome.algorithm}:{outcome.case} "
          f"({outcome.size}) {outcome.seconds:.2f}s{where}", file=stream, flush=True)


def run(implementation=None, algorithms=ALGORITHMS, *, level: str = "quick", seed: int | None = 0,
        fuzz: int | None = None, precision: str = "float64", host=None, cases=None, progress=None,
        on_failure=None, hosts=None) -> Report:
    """Every case of ``level`` (plus ``fuzz`` fresh cases drawn from ``seed``; the level's default count when
    None) of the algorithms the implementation offers. ``host`` runs the calls (default: this process, on
    ``implementation``); ``hosts``, more hosts of the same implementation (e.g. one worker process each), share
    the cases with it (issue 14, item 2); ``cases`` replaces the level's cases; ``progress`` (a stream, e.g.
    sys.stderr) gets one line per case as it ends; ``on_failure(case, outcome)`` is called for each failing case,
    in case order, after every case has run (e.g. to shrink it)."""
    tolerance.rtol(precision)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    stored = cases is None
    if stored:   # read (and integrity-check) the vectors before starting the implementation
        cases = level_cases(level, algorithms)
    host = host if host is not None else InProcessHost(implementation)
    offered = host.offered()
    count = LEVELS[level].fresh if fuzz is None else fuzz
    drawable = [algorithm for algorithm in algorithms if algorithm in offered]
    if stored and count and drawable:
        cases += fresh.fresh_cases(seed, count, drawable)
    outcomes, not_offered, outside = [None] * len(cases), {}, {}
    to_run = []
    for index, case in enumerate(cases):
        reason = tolerance.outside_class(case, precision)
        if case.algorithm not in offered:
            outcomes[index] = Outcome(case.algorithm, case.id, "skip", case.regime, case.size, case.origin,
                                      message=f"no {case.algorithm}")
            not_offered[case.algorithm] = not_offered.get(case.algorithm, 0) + 1
        elif reason is not None:
            outcomes[index] = Outcome(case.algorithm, case.id, "skip", case.regime, case.size, case.origin, message=reason)
            outside[case.name] = reason
        else:
            to_run.append(index)

    def call(index, case_host):
        started = time.perf_counter()
        outcome = judge(cases[index], case_host.call(cases[index]), precision)
        outcome.seconds = outcome.seconds or time.perf_counter() - started
        return outcome

    for done, (index, outcome) in enumerate(_spread(call, to_run, [host, *(hosts or [])]), 1):
        outcomes[index] = outcome
        if progress is not None:
            _progress(done, len(to_run), outcome, progress)
    if on_failure is not None:
        for index in to_run:
            if outcomes[index].status == "fail":
                on_failure(cases[index], outcomes[index])
    regimes = sorted({case.regime for case in cases}, key=[case.regime for case in cases].index)
    return Report(host.name, outcomes, not_offered, level, seed, precision, regimes, outside)


def _spread(call, indices, hosts):
    """``(index, call(index, host))`` for every index, as each ends; each host serves one call at a time (a thread
    per host waits on its process)."""
    if len(hosts) == 1:
        for index in indices:
            yield index, call(index, hosts[0])
        return
    free = queue.SimpleQueue()
    for each in hosts:
        free.put(each)

    def on_a_free_host(index):
        case_host = free.get()
        try:
            return call(index, case_host)
        finally:
            free.put(case_host)
    with concurrent.futures.ThreadPoolExecutor(len(hosts)) as pool:
        futures = {pool.submit(on_a_free_host, index): index for index in indices}
        for future in concurrent.futures.as_completed(futures):
            yield futures[future], future.result()
