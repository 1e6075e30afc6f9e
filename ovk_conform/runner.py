"""Run the cases of a level against an implementation and say, per case, where it drifts.

``run`` fixes every expected value first (stored cases, fresh cases drawn inside the declared scope, rows
recomputed from checkpoints), then sends the cases inside the scope to the implementation's hosts
(``hosts.py``), judges each answer here, in the oracle's process (``judge``: fields against the reference
under ``tolerance.py``; an "unsupported" answer inside the scope fails), reruns cases in another process and
compares the two answers (a difference is "nondeterministic"), stops waiting on an algorithm that hangs
(``limits.py``), and returns a ``Report`` (``report.py``) whatever stops the run.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import time

import numpy as np

from ovk_conform import checkpoints, envelope, float32_envelope, fresh, limits, offers, stratified, tolerance
from ovk_conform.hosts import InProcessHost
from ovk_conform.levels import LEVELS, cannot_see, level_cases
from ovk_conform.protocol import ALGORITHMS, REQUIRED_FIELDS
from ovk_conform.reference import computed_on
from ovk_conform.report import RAN, Coverage, Outcome, Report
from ovk_conform.scope import Scope
from ovk_conform.vectors import EXACT_FIELDS, FINAL_FIELDS, ROUND_FIELDS, Case
from ovk_conform.wire import CallResult
from ovk_ref import closeness

#: how a case cut short or left out by ``--deadline`` says so
DEADLINE = "the run's deadline (--deadline)"


class Interrupted(BaseException):
    """The run is stopped from outside (a signal): ``run`` ends every process and returns the report so far."""

    def __init__(self, reason: str, exit_code: int, signum: int | None = None):
        super().__init__(reason)
        self.reason, self.exit_code, self.signum = reason, exit_code, signum


def _scale(case: Case, name: str) -> float:
    return closeness.field_scale(case.expected[name])


def _tolerance_class(name: str, precision: str, rtols: dict | None = None) -> closeness.ToleranceClass:
    """Exact for counts; else the precision class's, or the case's float32 envelope (``rtols``: field -> rtol)."""
    if name in EXACT_FIELDS:
        return tolerance.EXACT
    if rtols:
        return closeness.ToleranceClass(precision, rtols[name], 0.0, "the case's honest float32 envelope")
    return tolerance.CLASSES[precision]


def _compared_rows(case: Case, name: str, values: np.ndarray) -> np.ndarray:
    """The rows of a returned field that the case stores (round fields of a stream with ``rounds``)."""
    return values if case.rounds is None or name not in ROUND_FIELDS[case.algorithm] else values[case.rounds - 1]


def _row_label(case: Case, name: str, row: int) -> int:
    return row + 1 if case.rounds is None or name not in ROUND_FIELDS[case.algorithm] else int(case.rounds[row])


def _as_real_array(name: str, value, case: Case):
    """(the array, None) or (None, why the value cannot be compared)."""
    if isinstance(value, np.ndarray) and np.iscomplexobj(value) or isinstance(value, complex):
        imaginary = float(np.max(np.abs(np.imag(value)))) if np.size(value) else 0.0
        return None, f"{name} is complex (max |imaginary part| {imaginary:.3g})"
    try:
        actual = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        return None, f"{name} is not an array of real numbers ({error})"
    expected = case.expected[name]
    full_shape = ((len(case.X),) + expected.shape[1:]
                  if case.rounds is not None and name in ROUND_FIELDS[case.algorithm] else expected.shape)
    if actual.shape != full_shape:
        return None, f"{name} has shape {actual.shape}, expected {full_shape}"
    return actual, None


def _check_field(case: Case, name: str, value, precision: str, rtols: dict | None = None) -> tuple:
    """(max abs error, max rel error, first bad row or None, message)."""
    actual, problem = _as_real_array(name, value, case)
    if problem:
        return np.inf, np.inf, 0, problem
    actual, expected = _compared_rows(case, name, actual), case.expected[name]
    scale, tolerance_class = _scale(case, name), _tolerance_class(name, precision, rtols)
    error, _, bad = closeness.bad_rows(actual, expected, tolerance_class, scale)
    max_abs = float(np.max(error)) if error.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else np.inf)
    if not bad.size:
        return max_abs, max_rel, None, ""
    row = int(bad[0])
    rows = error.reshape(len(error), -1).max(axis=1)
    non_finite = ~np.isfinite(actual[row]) & np.isfinite(expected[row])
    reason = " (non-finite where the reference is finite)" if np.any(non_finite) else ""
    return max_abs, max_rel, row, (
        f"{name} row {_row_label(case, name, row)}: expected {expected[row].tolist()}, got {actual[row].tolist()}"
        f"{reason} (error {rows[row]:.3g} > tolerance {float(tolerance_class.allowed(scale)):.3g} = rtol "
        f"{tolerance_class.rtol if rtols else tolerance.rtol(precision):g} x scale {scale:.3g}"
        + (f", {tolerance_class.reason}" if rtols and name not in EXACT_FIELDS else "") + ")")


def check_fields(case: Case, fields: dict, precision: str = "float64", declared: str = "float64",
                 rtols: dict | None = None) -> Outcome:
    """Compare the returned ``fields`` (name -> array) of one case with the reference, at the adopter's
    ``precision`` class (``rtols``: the case's float32 envelope, field -> rtol); an implementation that
    ``declared`` float32 must return float32 numbers (``float32_envelope.not_float32``)."""
    outcome = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin)
    tolerance.rtol(precision)   # a known precision class (ValueError otherwise)
    if declared == "float32":
        problem = float32_envelope.not_float32(case, fields)
        if problem:
            outcome.message = problem
            return outcome
    checks = {}
    for name in ROUND_FIELDS[case.algorithm] + FINAL_FIELDS[case.algorithm]:
        value = fields.get(name)
        if value is None or name not in case.expected:
            if name in REQUIRED_FIELDS[case.algorithm]:
                outcome.message = f"returned no {name!r} (required by the protocol)"
                return outcome
            continue
        checks[name] = _check_field(case, name, value, precision, rtols)
    outcome.fields_checked = list(checks)
    outcome.field_errors = {name: (check[1] if np.isfinite(check[1]) else None) for name, check in checks.items()}
    outcome.max_abs_error = max(check[0] for check in checks.values())
    outcome.max_rel_error = max(check[1] for check in checks.values())
    failing = {name: check for name, check in checks.items() if check[2] is not None}
    if not failing:
        outcome.status = "pass"
        return outcome
    _say_where(case, outcome, failing)
    return outcome


def _say_where(case: Case, outcome: Outcome, failing: dict) -> None:
    """The first diverging round (a round field) or final-state index, its field, and every failing field's message."""
    per_round = {name: check for name, check in failing.items() if name in ROUND_FIELDS[case.algorithm]}
    if per_round:
        name = min(per_round, key=lambda key: per_round[key][2])
        outcome.diverging_round = _row_label(case, name, per_round[name][2])
    else:   # final state: after the last round (batch: no rounds)
        name = next(iter(failing))
        outcome.diverging_index = failing[name][2] + 1
        outcome.diverging_round = None if case.algorithm == "batch_ridge" else len(case.X)
    outcome.diverging_field = name
    outcome.message = "; ".join(check[3] for check in failing.values())


def judge(case: Case, result: CallResult, precision: str = "float64", declared: str = "float64",
          rtols: dict | None = None) -> Outcome:
    """The outcome of one call: a failure of the call itself (exit, crash, timeout, exception, mutated input,
    an "unsupported" answer: every case sent is inside the declared scope) or the comparison of its fields."""
    if result.unsupported is not None:
        outcome = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin, result.seconds,
                          message=f"answered unsupported ({result.unsupported}) for a case inside its declared scope")
    elif result.error is not None:
        outcome = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin, result.seconds,
                          message=result.error)
    else:
        outcome = check_fields(case, result.fields, precision, declared, rtols)
        outcome.seconds = result.seconds
    if result.mutated:
        outcome.status = "fail"
        outcome.message = (f"modified its input(s) {', '.join(result.mutated)} in place"
                           + (f"; {outcome.message}" if outcome.message else ""))
    return outcome


def check_case(function, case: Case, precision: str = "float64") -> Outcome:
    """Call ``function`` on one case in this process and compare every returned field."""
    return judge(case, InProcessHost({case.algorithm: function}).call(case), precision)


def compare_runs(case: Case, first: CallResult, second: CallResult, precision: str) -> tuple:
    """("identical" | "within tolerance" | "different", what differs) for two answers to the same case."""
    where = f"run 1 (process {first.process}) and run 2 (process {second.process})"
    if second.error is not None or second.unsupported is not None:
        return "different", f"{where}: run 1 returned fields, run 2 {second.error or 'answered unsupported'}"
    tolerance.rtol(precision)   # a known precision class (ValueError otherwise)
    largest = 0.0
    for name in sorted(set(first.fields) | set(second.fields)):
        if name not in first.fields or name not in second.fields:
            return "different", f"{where}: only one of them returned {name}"
        a, b = first.fields[name], second.fields[name]
        try:
            a, b = np.asarray(a, dtype=complex), np.asarray(b, dtype=complex)
        except (TypeError, ValueError):
            continue   # not numbers: the comparison with the reference says so
        if a.shape != b.shape:
            return "different", f"{where}: {name} has shape {a.shape}, then {b.shape}"
        if np.array_equal(a, b, equal_nan=True):
            continue
        with np.errstate(invalid="ignore"):
            difference = np.abs(a - b)
        difference[np.isnan(a) & np.isnan(b)] = 0.0
        allowed = float(_tolerance_class(name, precision).allowed(_scale(case, name))) if name in case.expected else 0.0
        rows = difference.reshape(len(difference), -1).max(axis=1) if difference.ndim else difference.reshape(1)
        bad = np.flatnonzero(~(rows <= allowed))
        if bad.size:
            row = int(bad[0])
            return "different", (f"{where}: {name} row {row + 1}: run 1 gave {np.real_if_close(a[row]).tolist()}, "
                                 f"run 2 gave {np.real_if_close(b[row]).tolist()} (difference {rows[row]:.3g} > "
                                 f"tolerance {allowed:.3g})")
        largest = max(largest, float(np.max(rows)))
    return ("identical", where) if largest == 0 else ("within tolerance", f"{where}: largest difference {largest:.3g}")


def _not_run(case: Case, reason: str) -> Outcome:
    return Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin, message=f"not run: {reason}")


class _Pool:
    """The hosts of a run, each serving one call at a time; ``acquire(other_than=h)`` waits for a host that is
    not ``h`` (a rerun goes to another process) unless there is only one."""

    def __init__(self, hosts):
        self.hosts, self.free = list(hosts), list(hosts)
        self.condition = threading.Condition()

    def acquire(self, other_than=None):
        with self.condition:
            while True:
                for host in self.free:
                    if host is not other_than or len(self.hosts) == 1:
                        self.free.remove(host)
                        return host
                self.condition.wait()

    def release(self, host) -> None:
        with self.condition:
            self.free.append(host)
            self.condition.notify_all()

    def cancel(self) -> None:
        for host in self.hosts:
            host.cancel()


class _Execution:
    """One run's calls: time limits, the per-algorithm timeout breaker, the deadline, reruns, cancellation."""

    def __init__(self, cases, pool, *, precision, reruns, timeout, deadline, declared="float64", rtols=None):
        self.cases, self.pool, self.precision, self.reruns = cases, pool, precision, reruns
        self.declared, self.rtols = declared, rtols or {}
        self.timeout, self.deadline = timeout, deadline
        self.timeouts = {}          # algorithm -> names of the cases that timed out
        self.answers = {}           # index -> (first answer, its host), until the rerun
        self.lock = threading.Lock()
        self.stop = None            # why no further call is made

    def _call(self, host, case) -> CallResult:
        limit = limits.case_limit(case, self.timeout)
        with self.lock:
            warm_up = self.timeout is None and case.algorithm not in self.timeouts
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining < limit + limits.FIRST_CALL_SECONDS * warm_up:
            result = host.call(case, max(remaining, 0.001), warm_up=False)
            if result.timed_out:
                result.error, result.timed_out = f"stopped at {DEADLINE}", False
            return result
        result = host.call(case, limit, warm_up)
        with self.lock:
            confirmed = case.algorithm in self.timeouts     # a time-out of this algorithm already survived a retry
        if result.timed_out and not confirmed and not self._past_deadline(limits.retry_limit(limit)):
            # a time-out alone is not a verdict (a loaded machine is slow, not wrong): once more, longer
            longer = limits.retry_limit(limit)
            retried = host.call(case, longer, warm_up)
            if retried.timed_out:
                retried.error = f"{result.error}, and again after {longer:.3g} s (retried with a longer limit)"
            result = retried
        if result.timed_out:
            with self.lock:
                self.timeouts.setdefault(case.algorithm, []).append(case.name)
        return result

    def _past_deadline(self, seconds: float) -> bool:
        """Whether a call of ``seconds`` would pass the run's deadline."""
        return self.deadline is not None and time.monotonic() + seconds > self.deadline

    def _blocked(self, case) -> str | None:
        with self.lock:
            if self.stop is not None:
                return self.stop
            hung = self.timeouts.get(case.algorithm, [])
        if len(hung) >= limits.TIMEOUTS_PER_ALGORITHM:
            return (f"the implementation timed out on {len(hung)} earlier {case.algorithm} cases "
                    f"({', '.join(hung[:limits.TIMEOUTS_PER_ALGORITHM])}); its remaining {case.algorithm} cases are "
                    f"not sent")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return f"{DEADLINE} passed"
        return None

    def first(self, index) -> Outcome:
        """The first run of case ``index``, judged; its answer is kept for the rerun."""
        case = self.cases[index]
        reason = self._blocked(case)
        if reason:
            return _not_run(case, reason)
        host = self.pool.acquire()
        try:
            result = self._call(host, case)
        finally:
            self.pool.release(host)
        if index in self.reruns and result.error is None and result.unsupported is None:
            self.answers[index] = (result, host)
        return judge(case, result, self.precision, self.declared, self.rtols.get(index))

    def probe(self, probe) -> offers.ProbeAnswer:
        """One probe of what the implementation offers beyond its declared scope (``offers.py``)."""
        reason = self._blocked(probe.case)
        if reason:
            return offers.ProbeAnswer(probe.what, False, f"not sent: {reason}")
        host = self.pool.acquire()
        try:
            result = host.call(probe.case, limits.case_limit(probe.case, self.timeout), self.timeout is None)
        finally:
            self.pool.release(host)
        return offers.answer(probe, result, lambda case, answer: judge(case, answer, self.precision, self.declared))

    def second(self, index, outcome: Outcome) -> Outcome:
        """The rerun of case ``index`` in another process, compared with the first answer (``outcome`` updated)."""
        case = self.cases[index]
        first, host = self.answers.pop(index)
        if self._blocked(case):
            return outcome
        other = self.pool.acquire(other_than=host)
        try:
            second = self._call(other, case)
        finally:
            self.pool.release(other)
        kind, detail = compare_runs(case, first, second, self.precision)
        outcome.rerun = f"{kind}: {detail}"
        if kind == "different":
            outcome.status = "fail"
            outcome.message = f"nondeterministic: {detail}" + (f"; {outcome.message}" if outcome.message else "")
        return outcome


def _spread(task, indices, execution: _Execution, workers: int):
    """``(index, task(index))`` for every index, as each ends, on ``workers`` threads (each waits on a process)."""
    if workers == 1:
        for index in indices:
            yield index, task(index)
        return
    with concurrent.futures.ThreadPoolExecutor(workers) as threads:
        futures = {threads.submit(task, index): index for index in indices}
        try:
            for future in concurrent.futures.as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            with execution.lock:
                execution.stop = execution.stop or "the run was stopped"
            for future in futures:
                future.cancel()
            execution.pool.cancel()
            raise


def _progress(count: str, outcome: Outcome, stream) -> None:
    where = f" at {outcome.where}" if outcome.status == "fail" and outcome.where else ""
    if outcome.status == "fail" and (not where or outcome.message.startswith("nondeterministic")):
        where = f": {outcome.message[:160]}"
    print(f"[{count}] {outcome.status.upper():4s} {outcome.regime:16s} {outcome.algorithm}:{outcome.case} "
          f"({outcome.size}) {outcome.seconds:.2f}s{where}", file=stream, flush=True)


def resolve_scope(declaration, algorithms, name: str) -> Scope:
    """The scope a declaration gives (every case of the offered algorithms when it declares none), restricted to
    ``algorithms``; its ``precision`` is the implementation's claim (float64 when it declares none), which the
    oracle checks, never the class it is judged at (the adopter's ``--precision``)."""
    if declaration.scope is None:
        scope = Scope.full(declaration.offers)
    else:
        scope = Scope.parse(declaration.scope, f"the scope {name} declares ({declaration.source})")
        unoffered = [algorithm for algorithm in scope.algorithms if algorithm not in declaration.offers]
        if unoffered:
            raise ValueError(f"{name} declares {', '.join(unoffered)} in its scope but offers no such function")
    return scope.restrict(algorithms)


def _rerun_indices(level: str, indices: list, seed, reruns) -> set:
    """Every index (None), or a sample of ``reruns`` drawn from the seed."""
    count = LEVELS[level].reruns if reruns == "level" else reruns
    if count is None:
        return set(indices)
    rng = np.random.default_rng([0 if seed is None else seed, 7])
    return set(rng.choice(indices, size=min(count, len(indices)), replace=False).tolist()) if indices else set()


@dataclasses.dataclass
class Prepared:
    """A run whose input is checked: the cases, which of them run, the hosts, the report's head."""

    report: Report
    declaration: object
    scope: Scope
    cases: list
    outcomes: list
    to_run: list
    hosts: list
    stored: bool
    #: what the implementation offers beyond its declared scope is asked by these (``offers.probe_cases``)
    probes: list = dataclasses.field(default_factory=list)
    #: index -> field -> rtol of the float32 class (``float32_envelope``); empty at float64
    rtols: dict = dataclasses.field(default_factory=dict)


def prepare(implementation=None, algorithms=ALGORITHMS, *, level: str = "quick", seed: int | None = 0,
            fuzz: int | None = None, precision: str | None = None, host=None, hosts=None, cases=None,
            require=None, seal=None, pool=None, allow_partial: bool = False) -> Prepared:
    """Everything ``run`` does before the first case: the options checked (ValueError), the vectors read (and
    integrity-checked), the implementation's declared scope resolved, the fresh cases drawn, the cases outside the
    scope skipped, the probes of what it offers beyond its scope built (``offers.py``), at the float32 class each
    case's envelope measured (``float32_envelope``). ``precision`` is the adopter's class (None: float64);
    ``allow_partial`` accepts a declared scope narrower than what is offered (reported). ``pool`` (an executor of
    copies of this process: ``reference.computed_on``) computes the expected values, the checkpoints' rows while
    the implementation declares its scope; None: here, in turn."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    if precision is not None:
        tolerance.rtol(precision)
    stored = cases is None
    all_cases = level_cases(level) if stored else list(cases)   # read (and integrity-checked) before anything runs
    level_ = LEVELS[level]
    drawn_rows = None if pool is None else _drawn_rows(all_cases if stored else [], seed, level_.segments, pool)
    host = host if host is not None else InProcessHost(implementation)
    hosts = [host, *(hosts or [])]
    declaration = host.declare()
    scope = resolve_scope(declaration, algorithms, host.name)
    precision = precision or "float64"
    report = _head(host.name, declaration, scope, level, seed, precision, require, allow_partial)
    if seal is not None:
        report.seal = seal.account()
        report.seal_failure = seal.changes("while the implementation declared its scope")
    if stored:
        all_cases = _with_expected_values(all_cases, drawn_rows, scope, seed, level_, fuzz, pool)
    if seal is not None and report.seal_failure is None:
        report.seal_failure = seal.changes("while the expected values were computed")
    outcomes, to_run = _triage(all_cases, scope, precision, declaration, report.seal_failure)
    probes = _probes(declaration, report, algorithms, seed)
    rtols = _float32_rtols(all_cases, to_run, pool) if precision == "float32" else {}
    return Prepared(report, declaration, scope, all_cases, outcomes, to_run, hosts, stored, probes, rtols)


def _probes(declaration, report, algorithms, seed) -> list:
    """The probes of what the implementation offers beyond the scope it declares (none when it declares none, could
    not declare, or the oracle changed)."""
    if declaration.scope is None or declaration.error is not None or report.seal_failure is not None:
        return []
    return offers.probe_cases(report.scope, declaration.offers, algorithms, seed)


def _head(name, declaration, scope, level, seed, precision, require, allow_partial) -> Report:
    """The report before any case: the adopter's precision class, the declared scope and precision (a claim), the
    required scope and what the declared one lacks of it, the adopter's explicit narrowing."""
    return Report(name, [], level, seed, precision, scope=scope, scope_source=declaration.source,
                  required=require, missing=[] if require is None else scope.missing(require),
                  declared_precision=scope.precision,
                  narrowed_by="--require" if require is not None else "--allow-partial" if allow_partial else None)


def _float32_rtols(cases, indices, pool) -> dict:
    """index -> the float32 class's rtol per field of each case to run, from an honest float32 computation of it."""
    futures = {index: computed_on(pool, float32_envelope.honest_errors, cases[index].algorithm, cases[index].X,
                                  cases[index].Y, cases[index].arguments, cases[index].expected, cases[index].rounds)
               for index in indices}
    return {index: float32_envelope.rtols(future.result()) for index, future in futures.items()}


def _with_expected_values(cases, drawn_rows, scope, seed, level, fuzz, pool) -> list:
    """The stored ``cases`` inside the scope with their drawn checkpoints' rows (``drawn_rows``, computed ahead on
    the pool; None: computed here now), then the fresh cases of the ``level`` (``fuzz`` of them, none long, when
    given; on ``pool`` or here); the cases alone when the scope has no algorithm."""
    if not scope.algorithms:
        for rows in (drawn_rows or {}).values():
            rows.cancel()
        return cases
    if drawn_rows is None:      # here, in turn: the cases inside the scope only
        drawn_rows = _drawn_rows(cases, seed, level.segments, None, scope)
    count, long = (level.fresh, level.long) if fuzz is None else (fuzz, 0)
    extra = stratified.stratified_cases(seed, level.stratified, scope) if fuzz is None else []
    new = fresh.fresh_cases(seed, count, scope, long, pool, extra)
    cases = list(cases)
    for index, rows in drawn_rows.items():
        if scope.outside(cases[index]) is None:
            cases[index] = rows.case()
        else:
            rows.cancel()       # computed ahead on the pool for a case the scope leaves out
    return cases + new


def _drawn_rows(cases, seed, segments: int, pool, scope=None) -> dict:
    """index -> ``checkpoints.DrawnRows`` of every case that has checkpoints (inside ``scope`` when given)."""
    return {index: checkpoints.DrawnRows(case, seed, segments, pool) for index, case in enumerate(cases)
            if case.checkpoints and segments > 0 and (scope is None or scope.outside(case) is None)}


def _triage(all_cases, scope, precision, declaration, seal_failure) -> tuple:
    """``(outcomes, to_run)``: the cases outside the scope skipped, every case failed when the implementation could
    not declare itself or the oracle changed; the indices of the cases to run."""
    outcomes, to_run = [None] * len(all_cases), []
    for index, case in enumerate(all_cases):
        reason = scope.outside(case) or tolerance.outside_class(case, precision)
        if reason is not None:
            outcomes[index] = Outcome(case.algorithm, case.id, "skip", case.regime, case.size, case.origin,
                                      message=reason)
        elif declaration.error is not None:
            outcomes[index] = Outcome(case.algorithm, case.id, "fail", case.regime, case.size, case.origin,
                                      message=declaration.error)
        else:
            to_run.append(index)
    if seal_failure is not None:
        to_run = []        # no verdict on an oracle that changed: every case in scope fails with the reason
        for index in range(len(all_cases)):
            if outcomes[index] is None:
                outcomes[index] = _not_run(all_cases[index], seal_failure)
    return outcomes, to_run


def _probe(prepared: Prepared, execution: _Execution) -> None:
    """Ask what the implementation offers beyond its declared scope (``offers.py``); the report says it."""
    report = prepared.report
    try:
        answers = dict(_spread(lambda index: execution.probe(prepared.probes[index]), range(len(prepared.probes)),
                               execution, len(prepared.hosts)))
    except Interrupted as interruption:
        report.stopped, report.interruption = interruption.reason, interruption
        answers = {}
    report.probes = [answers[index] for index in sorted(answers)]
    report.partial = offers.offered_not_certified(report.probes)


def _run_cases(prepared: Prepared, execution: _Execution, progress, seed) -> None:
    """The first pass over the cases to run, then the reruns; an ``Interrupted`` stops the report."""
    outcomes, to_run, report = prepared.outcomes, prepared.to_run, prepared.report
    workers = len(prepared.hosts)
    try:
        for done, (index, outcome) in enumerate(_spread(execution.first, to_run, execution, workers), 1):
            outcomes[index] = outcome
            if progress is not None:
                _progress(f"{done}/{len(to_run)}", outcome, progress)
        # the reruns in an order drawn from the seed: a fault tied to a process's call count or state meets
        # other cases than in the first pass
        again = [int(index) for index in np.random.default_rng([0 if seed is None else seed, 8]).permutation(to_run)
                 if int(index) in execution.answers]
        for done, (_, outcome) in enumerate(_spread(lambda index: execution.second(index, outcomes[index]),
                                                        again, execution, workers), 1):
            if progress is not None and outcome.status == "fail" and (outcome.rerun or "").startswith("different"):
                _progress(f"rerun {done}/{len(again)}", outcome, progress)
    except Interrupted as interruption:
        report.stopped = interruption.reason
        report.interruption = interruption


def execute(prepared: Prepared, *, progress=None, reruns="level", timeout: float | None = None,
            deadline: float | None = None, expectations=None, seal=None) -> Report:
    """Run the prepared cases (see ``run``) and complete the report."""
    report, outcomes, all_cases, to_run = prepared.report, prepared.outcomes, prepared.cases, prepared.to_run
    level, seed = report.level, report.seed
    execution = _Execution(all_cases, _Pool(prepared.hosts), precision=report.precision,
                           reruns=_rerun_indices(level, to_run, seed, reruns), timeout=timeout, deadline=deadline,
                           declared=report.declared_precision, rtols=prepared.rtols)
    _probe(prepared, execution)
    if report.interruption is None:
        _run_cases(prepared, execution, progress, seed)
    for index in to_run:
        if outcomes[index] is None:
            outcomes[index] = _not_run(all_cases[index], report.stopped or "the run was stopped")
    late = sum(DEADLINE in outcome.message for outcome in outcomes)
    if late and report.stopped is None:
        report.stopped = f"the run's deadline passed: {late} case(s) stopped or not run"
    if seal is not None and report.seal_failure is None:
        report.seal_failure = seal.changes("during the run")
    if expectations is not None:
        _apply(expectations, outcomes)
        report.unused_expectations = expectations.unused()
    _complete(prepared, outcomes)
    return report


def _complete(prepared: Prepared, outcomes) -> None:
    """The report's cases, regimes, coverage, what the level cannot see and the envelope it exercised."""
    report, all_cases, ran = prepared.report, prepared.cases, [prepared.cases[index] for index in prepared.to_run]
    report.outcomes, report.cases = outcomes, all_cases
    report.regimes = sorted({case.regime for case in all_cases}, key=[case.regime for case in all_cases].index)
    report.coverage = _coverage(all_cases, outcomes)
    report.cannot_see = cannot_see(report.level, ran) if prepared.stored else []
    report.envelope = envelope.coverage(ran, prepared.scope)


def run(implementation=None, algorithms=ALGORITHMS, *, level: str = "quick", seed: int | None = 0,
        fuzz: int | None = None, precision: str | None = None, host=None, hosts=None, cases=None, progress=None,
        require=None, reruns="level", timeout: float | None = None, deadline: float | None = None,
        expectations=None, seal=None, pool=None, allow_partial: bool = False) -> Report:
    """Every case of ``level`` inside the implementation's declared scope (plus ``fuzz`` fresh cases drawn from
    ``seed``: the level's count and its long ones when None) and the report: ``prepare``, then ``execute``.

    ``host`` runs the calls (default: this process, on ``implementation``); ``hosts``, more hosts of the same
    implementation (one worker process each), share the cases and take the reruns; ``cases`` replaces the
    level's cases; ``progress`` (a stream) gets one line per case as it ends. ``require`` (a ``Scope``) must
    be covered by the declared scope; ``reruns``: "level" (its policy), None (every case), or a number of
    cases drawn from the seed (0: none); ``timeout`` replaces every case's time limit; ``deadline``
    (``time.monotonic()``) bounds the run; ``expectations`` lists known deviations; ``seal`` (``seal.Seal``)
    checks the oracle's files before the cases and at the end; ``pool`` computes the expected values
    (``prepare``); ``allow_partial`` accepts a declared scope narrower than what the implementation offers (said in
    the report: ``offers.py``). An ``Interrupted`` raised while the cases run
    ends every process and returns the report so far, its ``stopped`` set."""
    prepared = prepare(implementation, algorithms, level=level, seed=seed, fuzz=fuzz, precision=precision, host=host,
                       hosts=hosts, cases=cases, require=require, seal=seal, pool=pool, allow_partial=allow_partial)
    return execute(prepared, progress=progress, reruns=reruns, timeout=timeout, deadline=deadline,
                   expectations=expectations, seal=seal)


def _apply(expectations, outcomes) -> None:
    """Listed cases that fail become known deviations ("xfail"); listed cases that pass are "xpass"."""
    for outcome in outcomes:
        reason = expectations.reason(outcome.name) if outcome.status in ("pass", "fail") else None
        if reason is not None:
            outcome.known_deviation = reason
            outcome.status = "xfail" if outcome.status == "fail" else "xpass"


def _coverage(cases, outcomes) -> Coverage:
    stored = [case for case in cases if case.regime != fresh.FRESH_REGIME]
    in_scope = [outcome for outcome in outcomes if outcome.status != "skip"]
    return Coverage(run=sum(outcome.status in RAN and not outcome.message.startswith("not run") for outcome in outcomes),
                    in_scope=len(in_scope), all=len(cases),
                    stored_in_scope=sum(outcome.regime != fresh.FRESH_REGIME for outcome in in_scope),
                    stored=len(stored), fresh=len(cases) - len(stored))
