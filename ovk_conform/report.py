"""What a conformance run says: one ``Outcome`` per case and the ``Report`` (text, JSON; ``junit.py`` for
JUnit XML): the declared scope and the coverage, the seal, the determinism reruns, what the level cannot
see, every failure with its first divergence, the worst error per field."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

import ovk_ref
from ovk_conform import envelope, tolerance, versions
from ovk_conform.protocol import ALGORITHMS
from ovk_conform.vectors import VECTORS_VERSION

#: statuses that ran the implementation and count towards coverage
RAN = ("pass", "fail", "xfail", "xpass")


@dataclass
class Outcome:
    """The verdict on one case. ``status``: "pass", "fail", "skip" (not sent: outside the declared scope or the
    precision class), "xfail" (failed, listed as a known deviation), "xpass" (listed, but passed).
    ``diverging_round`` is the first round t (1-based) whose row of ``diverging_field`` is outside the
    tolerance; for final-state fields (``coefficients``) ``diverging_index`` is the first coefficient index i
    (1-based) instead. ``field_errors`` holds the worst relative error of each checked field (None: not
    finite). ``rerun`` says how the second run in another process compared (None: not rerun)."""

    algorithm: str
    case: str
    status: str
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
    rerun: str | None = None
    known_deviation: str | None = None
    message: str = ""

    @property
    def name(self) -> str:
        return f"{self.algorithm}:{self.case}"

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
        text = f"{self.status.upper():5s} {self.algorithm:11s} {self.case:32s} [{self.regime}] {errors}"
        if self.status in ("fail", "xfail"):
            text += f"  first divergence: {self.where}" if self.where else f"  {self.message}"
        if self.known_deviation:
            text += f"  (known deviation: {self.known_deviation})"
        return text.rstrip()


@dataclass
class Coverage:
    """Cases run, cases inside the declared scope (and the precision class), cases of the level."""

    run: int
    in_scope: int
    all: int
    stored_in_scope: int
    stored: int
    fresh: int

    def text(self) -> str:
        return (f"coverage: {self.run} run / {self.in_scope} in scope / {self.all} cases of the level "
                f"(stored: {self.stored_in_scope} in scope of {self.stored}; fresh: {self.fresh}, drawn in scope)")


@dataclass
class Report:
    implementation: str
    outcomes: list
    level: str = "quick"
    seed: int | None = None
    precision: str = "float64"
    regimes: list = field(default_factory=list)
    #: the declared scope (``scope.Scope``) and where the declaration comes from
    scope: object = None
    scope_source: str = ""
    #: the scope ``--require`` demands (None: none) and what the declared one lacks of it
    required: object = None
    missing: list = field(default_factory=list)
    coverage: Coverage | None = None
    #: the seal's account (``seal.Seal.account``) and its failure, if the oracle's files changed
    seal: dict = field(default_factory=dict)
    seal_failure: str | None = None
    #: why the run stopped before its end (a deadline, SIGTERM, Ctrl-C), None when it ran to the end
    stopped: str | None = None
    #: what the level cannot see (quick: long rounds, regimes)
    cannot_see: list = field(default_factory=list)
    #: expectations file entries that match no case
    unused_expectations: list = field(default_factory=list)
    #: the ``runner.Interrupted`` that stopped the run (its exit code), None otherwise
    interruption: object = None
    #: the precision the implementation declares (a claim the oracle checks; ``precision`` is the adopter's class)
    declared_precision: str = "float64"
    #: the probes of what the implementation offers beyond its declared scope (``offers.ProbeAnswer``), and the
    #: values offered there: not certified
    probes: list = field(default_factory=list)
    partial: list = field(default_factory=list)
    #: the adopter's explicit narrowing that accepts ``partial`` ("--require", "--allow-partial"; None: none)
    narrowed_by: str | None = None
    #: per axis of the envelope, the range the cases run exercised and what they cannot see (``envelope.coverage``)
    envelope: dict = field(default_factory=dict)
    #: the cases of the run, in the order of ``outcomes`` (with their expected values; not in the JSON)
    cases: list = field(default_factory=list, repr=False)

    def case_named(self, name: str):
        return next(case for case in self.cases if case.name == name)

    @property
    def passed(self) -> bool:
        """At least one case ran, none failed, the declared scope covers the required one, the oracle's files
        are those it started with, and the run was not stopped."""
        ran = [outcome for outcome in self.outcomes if outcome.status in RAN]
        return (bool(ran) and not any(outcome.status == "fail" for outcome in self.outcomes) and not self.missing
                and self.seal_failure is None and self.stopped is None and not self.partial_failure)

    @property
    def partial_failure(self) -> str | None:
        """Why the run fails for what the implementation offers and its declared scope leaves out, or None."""
        if not self.partial or self.narrowed_by is not None:
            return None
        return (f"PARTIAL: {', '.join(self.partial)} offered, not certified (the declared scope leaves them out; "
                f"declare them, or narrow explicitly with --require or --allow-partial)")

    def offered_line(self) -> str | None:
        """What the probes found offered beyond the declared scope (None: no probe was sent)."""
        if not self.probes:
            return None
        if not self.partial:
            return (f"offered beyond the declared scope: nothing ({len(self.probes)} probes, each refused: "
                    + ", ".join(probe.what for probe in self.probes) + ")")
        details = "; ".join(f"{probe.what}: {probe.detail}" for probe in self.probes if probe.offered)
        verdict = (f"accepted as narrowed by {self.narrowed_by}" if self.narrowed_by else "the run FAILS: declare "
                   "them, or narrow explicitly with --require or --allow-partial")
        return f"PARTIAL: {', '.join(self.partial)} offered, not certified ({details}); {verdict}"

    def precision_line(self) -> str:
        class_ = (f"rtol {tolerance.rtol(self.precision):g}" if self.precision == "float64" else
                  f"per case {tolerance.FLOAT32_ENVELOPE_FACTOR:g} x an honest float32 computation's error, at least "
                  f"{tolerance.FLOAT32_ENVELOPE_FLOOR:.2g}")
        claim = ("" if self.declared_precision == self.precision else
                 f"; the implementation declares {self.declared_precision}: a claim, not its tolerance")
        check = "; declared float32: every value must be a float32 number" if self.declared_precision == "float32" else ""
        return f"precision class {self.precision} (the adopter's --precision; {class_}){claim}{check}"

    def counts(self) -> dict:
        return {status: sum(outcome.status == status for outcome in self.outcomes)
                for status in ("pass", "fail", "skip", "xfail", "xpass")}

    def worst_errors(self) -> dict:
        """Field -> (worst relative error over every case, the case), inf where an error is not finite."""
        worst = {}
        for outcome in self.outcomes:
            for name, error in outcome.field_errors.items():
                value = np.inf if error is None else error
                if name not in worst or value > worst[name][0]:
                    worst[name] = (value, outcome.name)
        return worst

    def reruns(self) -> dict:
        """How the determinism reruns compared: {"identical": n, "within tolerance": n, "different": n}."""
        kinds = [outcome.rerun.split(":")[0] for outcome in self.outcomes if outcome.rerun]
        return {kind: kinds.count(kind) for kind in ("identical", "within tolerance", "different")}

    def header(self) -> list:
        lines = [f"implementation {self.implementation}; level {self.level} (regimes: {', '.join(self.regimes)}); "
                 f"fresh-case seed {self.seed}; precision {self.precision} ("
                 + (f"rtol {tolerance.rtol(self.precision):g}" if self.precision == "float64" else
                    "the honest float32 envelope of each case") + "); "
                 f"golden vectors version {VECTORS_VERSION} (spec {ovk_ref.SPEC_VERSION})", versions.line(),
                 self.precision_line()]
        if self.scope is not None:
            lines.append(f"declared scope ({self.scope_source}): {self.scope.text()}")
        if self.offered_line():
            lines.append(self.offered_line())
        if self.coverage is not None:
            lines.append(self.coverage.text())
        if self.required is not None:
            lines.append(f"required scope: {self.required.text()}: "
                         + ("covered" if not self.missing else "NOT COVERED, the declared scope lacks "
                            + "; ".join(self.missing)))
        if self.seal:
            lines.append(f"sealed: {self.seal['files']} oracle files (sha256 {self.seal['digest'][:16]}), "
                         f"{self.seal['checked_against']}; " + (self.seal_failure or "unchanged at the end of the run")
                         + f"; expected values fixed {self.seal['fixed']}")
        reruns = self.reruns()
        if any(reruns.values()):
            lines.append(f"determinism: {sum(reruns.values())} cases run twice in separate processes: "
                         + ", ".join(f"{count} {kind}" for kind, count in reruns.items() if count))
        if self.envelope:
            lines.append(f"envelope (ovk_conform/envelope.py): per axis, the range level {self.level} exercised and "
                         f"what it cannot see")
            lines.extend(envelope.coverage_lines(self.envelope))
        if self.cannot_see:
            lines.append(f"level {self.level} cannot see: " + "; ".join(self.cannot_see))
        if self.stopped:
            lines.append(f"STOPPED: {self.stopped}")
        return lines

    def text(self, verbose: bool = False) -> str:
        lines = self.header() + self._case_lines(verbose)
        for pattern in self.unused_expectations:
            lines.append(f"NOTE  expectation {pattern!r} matches no case of this run")
        worst = self.worst_errors()
        if worst:
            lines.append("worst relative error per field: " + ", ".join(
                f"{name} {error:.2e} ({case})" for name, (error, case) in worst.items()))
        lines.append(self._summary())
        return "\n".join(lines)

    def _case_lines(self, verbose: bool) -> list:
        """The skipped cases (counted, or each with -v), the failing ones and the known deviations (every case
        with -v)."""
        lines = []
        skipped = [outcome for outcome in self.outcomes if outcome.status == "skip"]
        if skipped and not verbose:
            lines.append(f"SKIP  {len(skipped)} case(s) outside the declared scope or the precision class (-v: which)")
        for outcome in skipped if verbose else ():
            lines.append(f"SKIP  {outcome.name}: {outcome.message}")
        for outcome in self.outcomes:
            if outcome.status in ("fail", "xfail", "xpass") or verbose and outcome.status == "pass":
                lines.append(outcome.line())
                if outcome.status in ("fail", "xfail") and verbose:
                    lines.append(f"      {outcome.message}")
        return lines

    def _summary(self) -> str:
        """The counts line."""
        counts = self.counts()
        summary = f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
        if counts["xfail"] or counts["xpass"]:
            summary += f", {counts['xfail']} known deviations, {counts['xpass']} listed as deviations but passing"
        if not any(outcome.status in RAN for outcome in self.outcomes):
            summary += "; the implementation offers none of " + ", ".join(ALGORITHMS)
        return summary

    def to_dict(self) -> dict:
        def clean(value):
            return None if isinstance(value, float) and not np.isfinite(value) else value
        return {"implementation": self.implementation, "level": self.level, "seed": self.seed,
                "precision": self.precision,
                "rtol": tolerance.rtol(self.precision) if self.precision == "float64" else None,
                "float32_envelope": None if self.precision == "float64" else {
                    "factor": tolerance.FLOAT32_ENVELOPE_FACTOR, "floor": tolerance.FLOAT32_ENVELOPE_FLOOR}, "regimes": self.regimes,
                "vectors_version": VECTORS_VERSION, "spec_version": ovk_ref.SPEC_VERSION, "versions": versions.record(),
                "passed": self.passed,
                "stopped": self.stopped, "counts": self.counts(),
                "scope": None if self.scope is None else {"declared": self.scope.to_dict(), "source": self.scope_source},
                "declared_precision": self.declared_precision,
                "offered": {"probes": [probe.to_dict() for probe in self.probes], "partial": self.partial,
                            "narrowed_by": self.narrowed_by, "failure": self.partial_failure},
                "required": None if self.required is None else {"scope": self.required.to_dict(), "missing": self.missing},
                "coverage": None if self.coverage is None else asdict(self.coverage),
                "seal": {**self.seal, "failure": self.seal_failure} if self.seal else None,
                "determinism": self.reruns(), "cannot_see": self.cannot_see, "envelope": self.envelope,
                "unused_expectations": self.unused_expectations,
                "worst_errors": {name: {"rel_error": clean(error), "case": case}
                                 for name, (error, case) in self.worst_errors().items()},
                "cases": [{key: clean(value) for key, value in asdict(outcome).items()} for outcome in self.outcomes]}
