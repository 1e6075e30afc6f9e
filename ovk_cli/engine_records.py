"""The claims that are statements about an algorithm's trajectory, searched on another engine's records:
``ovk-check verify --engine MODULE[:ATTR]`` or ``--command CMD`` (the ovk-conform-1 protocol, docs/conformance.md).

An engine is reached as ``ovk-check conform`` reaches it (``ovk_conform.hosts``: a module in this process, a command
once per call with a request and a result file) and wrapped as an implementation with ovk_ref's signatures
(``Engine``): each call becomes a protocol case (kernels, losses and truncations as their portable dicts), and the
record it returns holds the fields the engine reported, no others. A claim runs when the engine offers its
algorithm and reports every field it needs (``Claim.needs``); else it is "not applicable", with the reason, never
"holds". An instance the engine refuses (unsupported, or a ValueError/TypeError: outside its scope) is not counted
(Hypothesis draws another); a claim whose first instances are all refused is not applicable. The near-zero recheck
at 50 digits lifts the engine's float64 record exactly and recomputes the check's own side at that precision.
"""
from __future__ import annotations

import importlib
import itertools
import sys
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

import numpy as np
from hypothesis import reject

import ovk_ref
from ovk_cli import outputs
from ovk_cli.parallel import map_ordered
from ovk_conform import hosts, versions
from ovk_conform.protocol import ALGORITHMS, FINAL_FIELDS, ROUND_FIELDS
from ovk_conform.scope import Scope
from ovk_conform.vectors import Case
from ovk_ref import arithmetic, truncation
from ovk_ref.kernels import as_kernel
from proofs_check import profiles, report, runner
from proofs_check.claims import CLAIMS, common
from proofs_check.claims.monorma import run_monorma

#: the algorithms whose trajectories the claims read
TRAJECTORY_ALGORITHMS = ("onorma", "monorma")
#: instances of a claim tried before it is called not applicable because the engine refuses them all
PROBES = 200
#: seconds one call of a command may take
DEFAULT_TIMEOUT = 60.0


class Refused(Exception):
    """The engine refused a case (unsupported, or a ValueError/TypeError): outside its scope."""


def _portable_truncation(schedule):
    if schedule is None:
        return None
    if isinstance(schedule, int):
        return {"type": "window", "s": schedule}
    return truncation.to_dict(schedule)


def plain_kernel(kernel: dict) -> dict:
    """A one-term weighted sum of a separable kernel ``w (k B)`` sent as ``k (w B)``, the same kernel (the claims draw
    every kernel but the feature kernel scaled, as such a sum: an engine that offers a family but no sums takes it)."""
    if kernel.get("type") == "sum" and len(kernel["terms"]) == 1 and "B" in kernel["terms"][0]["kernel"]:
        term = kernel["terms"][0]
        return {**term["kernel"], "B": (term["weight"] * np.asarray(term["kernel"]["B"], dtype=float)).tolist()}
    return kernel


class Engine:
    """``onorma``/``monorma`` with ovk_ref's signatures over an engine's host; records as dicts of the fields it
    reported (float64, or mpf lifted exactly at ``precision``)."""

    def __init__(self, host, offers, name: str, timeout: float, scope: Scope | None = None):
        self.host, self.name, self.timeout, self.scope = host, name, timeout, scope
        self.offers = tuple(algorithm for algorithm in offers if algorithm in TRAJECTORY_ALGORITHMS)
        self.calls = itertools.count()
        for algorithm in self.offers:
            setattr(self, algorithm, getattr(self, f"_{algorithm}"))

    def _call(self, algorithm: str, X, Y, arguments: dict, precision):
        X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
        case = Case(algorithm=algorithm, id=f"verify-{next(self.calls)}", comment="ovk-check verify --engine", flags=[],
                    X=X, Y=Y, arguments={name: value for name, value in arguments.items() if value is not None},
                    expected={})
        outside = None if self.scope is None else self.scope.outside(case)
        if outside is not None:
            raise Refused(f"outside the scope given: {outside}")
        result = self.host.call(case, self.timeout)
        if result.unsupported is not None:
            raise Refused(f"unsupported: {result.unsupported}")
        if result.error is not None:
            if "raised ValueError" in result.error or "raised TypeError" in result.error:
                raise Refused(result.error)
            raise RuntimeError(f"the engine failed: {result.error}")
        fields = {name: np.asarray(value) for name, value in result.fields.items()
                  if name in ROUND_FIELDS[algorithm] + FINAL_FIELDS[algorithm]}
        if precision is not None:   # the check's side at 50 digits, the engine's float64 numbers lifted exactly
            with ovk_ref.arithmetic.Arithmetic(precision).context():
                fields = {name: (value if value.dtype.kind in "iub" else arithmetic.mpf_array(np.asarray(value, dtype=float)))
                          for name, value in fields.items()}
        return fields

    def _onorma(self, X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
        return self._call("onorma", X, Y, {"kernel": plain_kernel(as_kernel(kernel).to_dict()), "lam": lam, "eta": eta,
                                           "loss": ovk_ref.as_loss(loss).to_dict(),
                                           "truncation": _portable_truncation(truncation)}, precision)

    def _monorma(self, X, Y, kernels, *, lam, eta, r, loss="squared", precision=None):
        return self._call("monorma", X, Y, {"kernels": [plain_kernel(as_kernel(kernel).to_dict()) for kernel in kernels], "lam": lam,
                                            "eta": eta, "r": r, "loss": ovk_ref.as_loss(loss).to_dict()}, precision)


def open_engine(spec: tuple, timeout: float = DEFAULT_TIMEOUT, scope: dict | None = None) -> Engine:
    """The engine of ``("module", "MODULE[:ATTR]")`` or ``("command", "CMD")``; ``scope``: cases outside it are
    refused before the engine sees them (``--scope``)."""
    kind, target = spec
    if kind == "module":
        module_name, _, attribute = target.partition(":")
        implementation = importlib.import_module(module_name)
        if attribute:
            implementation = getattr(implementation, attribute)
        host = hosts.InProcessHost(implementation)
    else:
        host = hosts.CommandHost(target, scope=scope, timeout=timeout)
    declaration = host.declare()   # --scope, else the engine's own (conformance_scope, the describe answer)
    offers = declaration.offers if kind == "module" else ALGORITHMS
    scope = scope if scope is not None else declaration.scope
    parsed = None if scope is None else Scope.parse(scope, "--scope" if scope is not None else "the engine's scope")
    return Engine(host, offers if parsed is None else tuple(a for a in offers if a in parsed.algorithms), target, timeout,
                  parsed)


class RefusingEngine:
    """An engine whose refusals are Hypothesis rejections: the instance is not counted, another is drawn. Its records
    are float64 (``float64_records``: the runner's near-zero recheck then allows float64's tie,
    ``tolerances.FLOAT64_RECORDS_TIE``)."""

    float64_records = True

    def __init__(self, engine: Engine):
        self.engine = engine
        for algorithm in engine.offers:
            setattr(self, algorithm, self._rejecting(getattr(engine, algorithm)))

    @staticmethod
    def _rejecting(function):
        def call(*arguments, **options):
            try:
                return function(*arguments, **options)
            except Refused:
                reject()
        return call


def trajectory_claims(claim_ids=None) -> list:
    """The claims an engine's records can be checked against: those that run an algorithm's trajectory."""
    return [claim_id for claim_id in (claim_ids or CLAIMS) if set(CLAIMS[claim_id].uses) & set(TRAJECTORY_ALGORITHMS)]


def applicability(claim_id: str, engine: Engine) -> str | None:
    """Why the claim cannot be evaluated on the engine (None: it can): the algorithm not offered, the first
    ``PROBES`` instances refused, or a field it needs not reported."""
    claim = CLAIMS[claim_id]
    missing = [name for name in claim.uses if name not in engine.offers]
    if missing:
        return f"the engine offers no {', '.join(missing)}"
    refusals = []
    for instance in runner.sample(claim_id, PROBES):
        try:
            with np.errstate(all="ignore"):
                record = _one_record(claim, instance, engine)
        except Refused as refusal:
            refusals.append(str(refusal))
            continue
        absent = [name for name in claim.needs if name not in record]
        return f"the engine does not report {', '.join(absent)}" if absent else None
    return f"the engine refused the claim's first {PROBES} instances ({refusals[0][:160]})"


def _one_record(claim, instance, engine) -> dict:
    """The engine's record on the instance's whole stream (the claim's algorithm, its arguments)."""
    if "onorma" in claim.uses:
        return common.run_onorma(engine, instance)
    return run_monorma(engine, instance)


@dataclass
class EngineUnit:
    """One claim searched on an engine (picklable: a worker process opens the engine itself)."""

    claim: str
    profile: str
    seed: int | None
    engine: tuple
    timeout: float = DEFAULT_TIMEOUT
    scope: dict | None = None

    @property
    def name(self) -> str:
        return self.claim


def run_engine_unit(unit: EngineUnit) -> dict:
    """The claim's verdict on the engine (a ``runner.Verdict`` as a dict), or "not applicable" with its reason in
    ``error``."""
    engine = open_engine(unit.engine, unit.timeout, unit.scope)
    try:
        try:
            reason = applicability(unit.claim, engine)
        except RuntimeError as error:     # the engine failed on a probe: the claim's error
            return dict(runner.Verdict(claim=unit.claim, expected=CLAIMS[unit.claim].expected, verdict="error",
                                       profile=unit.profile, error=str(error)).__dict__)
        if reason is not None:
            verdict = runner.Verdict(claim=unit.claim, expected=CLAIMS[unit.claim].expected, verdict="not applicable",
                                     profile=unit.profile, error=reason)
        else:
            verdict = runner.run_claim(unit.claim, unit.profile, impl=RefusingEngine(engine), seed=unit.seed)
    finally:
        engine.host.close()
    return dict(verdict.__dict__)


def junit(verdicts, engine_name: str, seconds: float) -> str:
    """JUnit XML: one test case per claim, a failure for a verdict other than the expected one (or below its floor),
    skipped for a claim not applicable (with the reason)."""
    failures = sum(not verdict.passed for verdict in verdicts)
    skipped = sum(verdict.verdict == "not applicable" for verdict in verdicts)
    counts = dict(tests=str(len(verdicts)), failures=str(failures), errors="0", skipped=str(skipped), time=f"{seconds:.3f}")
    suites = ElementTree.Element("testsuites", name="ovk-check verify", **counts)
    suite = ElementTree.SubElement(suites, "testsuite", name=f"verify {engine_name}", **counts)
    for verdict in verdicts:
        case = ElementTree.SubElement(suite, "testcase", classname="verify", name=verdict.claim, time=f"{verdict.seconds:.3f}")
        if verdict.verdict == "not applicable":
            ElementTree.SubElement(case, "skipped", message=verdict.error or "not applicable")
        elif not verdict.passed:
            text = report.verdict_text(verdict) + report.mark_text(verdict)
            failure = ElementTree.SubElement(case, "failure", message=text)
            failure.text = f"{text}\nmargin {report.margin_text(verdict)}\n{report.counterexample_text(verdict)}"
    return ElementTree.tostring(suites, encoding="unicode") + "\n"


def run_on_engine(args, claim_ids, workers: int, profile: str) -> int:
    """``ovk-check verify --engine/--command``: the trajectory claims among ``claim_ids`` on the engine, the table
    (with each not-applicable claim's reason), JSON and JUnit as asked; exit 0 when every verdict is as expected."""
    spec = ("module", args.engine) if args.engine else ("command", args.command_line)
    scope = None if args.scope is None else Scope.from_text(args.scope, "--scope").to_dict()
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    chosen = trajectory_claims(claim_ids)
    plan = [EngineUnit(claim_id, profile, args.seed, spec, timeout, scope) for claim_id in chosen]
    start = time.perf_counter()

    def done(index, result):
        verdict = runner.Verdict(**result)
        print(f"[{index + 1}/{len(plan)}] {verdict.claim}: {report.verdict_text(verdict)}{report.mark_text(verdict)} "
              f"({verdict.seconds:.1f} s)", file=sys.stderr, flush=True)
    results = map_ordered(run_engine_unit, plan, workers=workers, scheduler=None, done=done)
    verdicts = [runner.Verdict(**result) for result in results]
    return _report(args, spec, profile, verdicts, time.perf_counter() - start)


def _report(args, spec, profile: str, verdicts, seconds: float) -> int:
    """The table, the summary lines, and the JSON and JUnit files asked for; exit 1 when a verdict is not the
    expected one."""
    seed = args.seed if args.seed is not None else (0 if profiles.PROFILES[profile].get("derandomize") else "random")
    print(report.table(verdicts, markdown=args.markdown))
    applicable = [verdict for verdict in verdicts if verdict.verdict != "not applicable"]
    print(f"\nengine {spec[1]} ({spec[0]}): {len(applicable)} of {len(verdicts)} trajectory claims applicable; "
          f"profile {profile}, seed {seed}, {seconds:.1f} s")
    print(versions.line())
    differing = [verdict.claim for verdict in verdicts if not verdict.passed]
    print(f"verdicts differing from the expected one (or below the floor): {', '.join(differing)}" if differing
          else "every applicable verdict as expected")
    metadata = dict(profile=profile, seed=seed, seconds=seconds, engine={"kind": spec[0], "target": spec[1]},
                    ovk_ref_version=ovk_ref.__version__, spec_version=ovk_ref.SPEC_VERSION, versions=versions.record())
    if args.json:
        outputs.write_text(args.json, report.to_json(verdicts, **metadata))
    if args.junit:
        outputs.write_text(args.junit, junit(verdicts, spec[1], seconds))
    return 1 if differing else 0

