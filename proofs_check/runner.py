"""The verify runner: a Hypothesis search for counterexamples, claim by claim.

``run_claim(id, profile, impl, seed)`` draws instances of the claim under the profile's settings, checks
each, and returns a ``Verdict``: ``holds`` (no violation on N informative instances), ``open`` (no violation,
but the claim cannot be settled by finitely many instances), ``false`` (the smallest counterexample Hypothesis
shrank to, with every parameter needed to replay it: ``CLAIMS[id].check(counterexample, impl)``),
``error`` (the check raised) or ``not applicable`` (``impl`` lacks a function the claim calls).

Informative instances: an instance the claim's check marks non-informative (one round,
all-zero targets, no delta update, ...) is counted among the drawn ones but rejected, so Hypothesis draws
another; a violation counts whatever the instance. Hypothesis may decode the same instance from several choice
sequences: it is checked once; a repeat of a non-informative one is rejected without being counted again. The worst margin is the tightest informative one. A
verdict ``holds``/``open`` needs ``INFORMATIVE_FLOOR`` of the profile's examples to be informative: below that the run
fails (``Verdict.meets_floor``, a count; each strategy's informative share is tested once on hundreds of draws by the
tests, tests/meta/test_strategy_quality.py). In ``ci`` and ``dev`` ``hypothesis.target`` steers the search towards small margins
(``profiles.STEERED``).

Reproducible: the search seed of a claim is derived from the claim id and the run seed
(``search_seed``; run seed 0 for a derandomised profile), and Hypothesis' habit of mixing numbers read from
"local" source files into its draws is switched off during a search, so an editable and a wheel install,
any working directory and any hash seed draw the same instances.
When the search finds no violation of a claim that has ``known_counterexamples``, those are replayed: one
that still violates makes the verdict ``false`` with ``Verdict.known`` set (the tests never accept that).

After the search, the claim's proof (``proofs_check.proofs``: a chain of named steps) is evaluated once, on the
counterexample of a false verdict or the tightest informative instance of a holds/open one (``Verdict.chain``: the
first failing step, or the tightest; ``Verdict.worst_instance``); a claim expected ``proved`` (its search finds no
counterexample, and an argument covers its whole range) says how (``Verdict.proved``: Theorem 2's closed-form t0).

A margin within ``tolerances.NEAR_ZERO_MARGIN`` (relative) of 0 is recomputed at
``tolerances.RECHECK_DIGITS`` digits before it counts either way; such instances are counted in
``Verdict.rechecked``.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import math
import threading
import time
import warnings
from dataclasses import dataclass, field

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

try:  # internal: where Hypothesis keeps the numbers it reads from local source files (see _without_local_constants)
    from hypothesis.internal.conjecture import providers as hypothesis_providers
except ImportError:  # pragma: no cover -- a Hypothesis without the module has no local constants either
    hypothesis_providers = None

import ovk_ref
from proofs_check import margins, profiles, proofs, tolerances
from proofs_check.claims import CLAIMS


@dataclass
class Verdict:
    claim: str
    expected: str
    verdict: str                  # holds | false | open | proved | error | not applicable
    instances: int = 0            # instances drawn and checked (for false: including the shrinking ones)
    informative: int = 0          # of those, the ones informative for the claim (Outcome.informative)
    floor: int = 0                # informative instances a holds/open verdict needs under the profile
    worst_margin: float = math.inf  # smallest relative margin of an informative instance (< 0: violated)
    worst_observed: float | None = None  # the two sides compared at that instance
    worst_bound: float | None = None
    worst_quantities: dict = field(default_factory=dict)
    worst_instance: dict | None = None   # the instance at worst_margin (the tightest one)
    counterexample: dict | None = None
    counterexample_quantities: dict = field(default_factory=dict)
    counterexample_margin: float | None = None   # the relative margin of ``counterexample`` itself, computed on it
    worst_settled_margin: float = math.inf   # a bound's smallest informative margin over rounds t >= SETTLED_ROUND
    rechecked: int = 0            # instances recomputed at RECHECK_DIGITS digits
    error: str = ""
    known: bool = False           # the counterexample is a known one, replayed because the search found none
    seconds: float = 0.0
    profile: str = ""
    chain: dict | None = None     # the claim's proof on the counterexample (false) or the tightest instance (proofs.explain)
    proved: str = ""              # how a proved claim is proved (proofs.proved_text: Theorem 2's closed-form t0)

    @property
    def as_expected(self) -> bool:
        return self.verdict == "not applicable" or self.verdict == self.expected

    @property
    def meets_floor(self) -> bool:
        """A holds/open verdict rests on at least ``floor`` informative instances (a count: whether the strategy's
        informative share is high enough is a property tested once with enough draws, tests/meta/test_strategy_quality.py)."""
        return self.verdict not in NO_COUNTEREXAMPLE or self.informative >= self.floor

    @property
    def passed(self) -> bool:
        """The verdict is the expected one and, if it is holds/open, it rests on enough informative instances."""
        return self.as_expected and self.meets_floor

    def to_dict(self) -> dict:
        """The fields, and ``tightest``: the tightest instance checked (informative, or violating) with its margin, its
        two sides and its quantities, apart from the counterexample (which may be another, shrunk instance)."""
        fields = {key: value for key, value in self.__dict__.items() if key != "worst_instance"}
        worst_margin = None if math.isinf(self.worst_margin) else self.worst_margin
        fields["worst_settled_margin"] = None if math.isinf(self.worst_settled_margin) else self.worst_settled_margin
        tightest = None if self.worst_instance is None else {
            "margin": worst_margin, "observed": self.worst_observed, "bound": self.worst_bound,
            "quantities": self.worst_quantities, "instance": self.worst_instance}
        return {**fields, "worst_margin": worst_margin, "tightest": tightest, "as_expected": self.as_expected,
                "meets_floor": self.meets_floor}


class _Violation(AssertionError):
    pass


#: instances Hypothesis may spend shrinking a counterexample, per profile; past it the smallest one found so
#: far is reported (every later candidate is declared passing, so Hypothesis stops and replays that one)
SHRINK_BUDGET = {"ci": 150, "dev": 400, "thorough": 3000}

#: a holds/open verdict needs this fraction of the profile's ``max_examples`` informative (in ci, 20 of
#: 25); the informative share of each claim's strategy is tested once, on hundreds of draws, by the test suite
#: (tests/meta/test_strategy_quality.py): a run only counts its informative instances
INFORMATIVE_FLOOR = 0.8
#: the verdicts of a search that found no counterexample
NO_COUNTEREXAMPLE = ("holds", "open", "proved")


def informative_floor(profile: str, examples: int | None = None) -> int:
    """Informative instances a holds/open verdict needs: ``INFORMATIVE_FLOOR`` of ``examples`` (default: the
    profile's ``max_examples``)."""
    return math.ceil(INFORMATIVE_FLOOR * (examples or profiles.PROFILES[profile]["max_examples"]))


#: significant digits of a margin the search steers on (``steering``)
STEERING_DIGITS = 2


def steering(margin: float) -> float:
    """The margin as the search's target sees it, to ``STEERING_DIGITS`` significant digits of its distance to
    the nearer of 0 and 1: a bound's margin (tight near 0) keeps two digits at every scale (0.0012, -4.1e3), and
    an identity's margin ``1 - error / allowed error`` keeps two digits of the share of the allowed error used
    (1 - 1.6e-6). Unrounded, Hypothesis' target phase climbed the round-off in an identity's margin for minutes
    in ``thorough`` (``monorma.delta_log_linear``: 2 CPU-minutes past its 921st instance without a new one),
    and its steps made the instances hinge on the last bits of a sum. A tie (``margins.resolved``: within
    ``NEAR_ZERO_MARGIN`` of 0) is 0: with its round-off digits kept, SandyBridge's and SkylakeX's OpenBLAS kernels
    drew other instances of ``monorma.norm_prop1_factor`` in ci."""
    if math.isfinite(margin) and margins.resolved(margin) == 0.0:
        return 0.0   # a tie: its digits are round-off, which differs between CPUs and would steer each its own way
    if not math.isfinite(margin) or margin < 0.5:
        return float(f"{margin:.{STEERING_DIGITS}g}")
    return 1.0 - float(f"{1.0 - margin:.{STEERING_DIGITS}g}")


def tighter(margin: float, worst: float) -> bool:
    """Whether an instance of margin ``margin`` replaces the tightest one so far (margin ``worst``): when it is
    smaller as a report tells it (``margins.resolved``: 0 for a tie, else 3 significant digits; NaN below every
    number). The digits beyond are round-off, whose last bits differ from one CPU's BLAS kernels and SIMD paths to
    another's: the first instance found among equals is kept, so that every machine reports the same instance."""
    return margins.resolved(margin) < margins.resolved(worst)


def search_seed(claim_id: str, seed: int, shard: int = 0) -> int:
    """The Hypothesis seed of claim ``claim_id`` in a run with seed ``seed``: a hash of both, never of a path,
    a function's source or Python's hash seed. Shard ``k > 0`` of a claim split into
    several searches (``proofs_check.units``) hashes ``claim_id#k`` instead: shard 0 is the claim's usual search."""
    name = claim_id if shard == 0 else f"{claim_id}#{shard}"
    return int.from_bytes(hashlib.sha256(f"{name}/{seed}".encode()).digest()[:8], "big")


class LocalConstantsLeak(RuntimeError):
    """A search drew from Hypothesis' local constants: its instances would depend on the process it ran in."""


#: per thread: is a claim's search running in this thread? (Dask workers run units on several threads)
_SEARCHING = threading.local()


def _install_local_constants_switch() -> bool:
    """Hypothesis draws, now and then, a number it read from the source of "local" modules (any module outside
    site-packages: this project in an editable install, the caller's own modules), so one seed would give
    different instances in different installs, working directories or processes. Installed
    once per process: the providers of a thread where a search runs see no local constants; every other thread
    keeps Hypothesis' own behaviour (a per-thread switch, never undone by another thread's search ending).
    False when this Hypothesis has no local constants (then there is nothing to switch off)."""
    provider = getattr(hypothesis_providers, "HypothesisProvider", None)
    original = getattr(provider, "_local_constants", None)
    if original is None:
        return False
    if isinstance(original, property):     # installed already (the module was reloaded)
        return True

    def local_constants(self):
        if getattr(_SEARCHING, "active", False):
            return hypothesis_providers.Constants()
        return original.__get__(self, type(self))

    provider._local_constants = property(local_constants)
    return True


_SWITCHABLE = hypothesis_providers is not None and _install_local_constants_switch()


@contextlib.contextmanager
def _without_local_constants():
    """No local constants for the searches of this thread while the block runs (``_install_local_constants_switch``).
    Hypothesis caches, per thread, the constants allowed for each kind of draw: emptied on entry and exit, and
    checked on exit, so a draw that still reached a local constant raises ``LocalConstantsLeak`` instead of
    silently making the report depend on the process."""
    if not _SWITCHABLE:
        yield
        return
    cache = hypothesis_providers.CONSTANTS_CACHE
    _SEARCHING.active = True
    cache.cache.clear()
    try:
        yield
        leaked = [key for key, (_, local) in cache.cache.items() if local]
        if leaked:
            raise LocalConstantsLeak(f"the search drew Hypothesis' local constants for {leaked[:3]}: its instances "
                                     "depend on the modules loaded in this process; report this with your "
                                     "Hypothesis version")
    finally:
        _SEARCHING.active = False
        cache.cache.clear()


#: during a search the cyclic garbage collector runs every this many new instances, and only then
COLLECT_EVERY = 64


#: has this process moved the objects it had before its first search out of the collector's reach (``gc.freeze``)?
_HEAP_FROZEN = False


@contextlib.contextmanager
def _garbage_collected_at_fixed_points():
    """Python's cyclic garbage collector runs when allocation counters cross thresholds, at moments that depend
    on everything the process did before, and a collection at another moment changed the instances one seed
    draws: a CI run's serial and parallel reports of one seed differed; measured here, 2 of 80 runs of one unit
    in one process drew other instances, 0 of 160 with this. (Which object of Hypothesis' engine notices is not
    pinned down; state it holds by weak reference is the likely path.) During a search the collector is off, and
    ``run_claim`` collects every ``COLLECT_EVERY`` new instances (``collect_young``): at points fixed by the search
    itself. The collector's previous state is restored after, and the heap is collected on entry and exit.

    The heap a process has before its first search (the modules, sympy, Hypothesis: about 200,000 objects) is
    collected once and then frozen (``gc.freeze``: out of every later collection), so that the collections on entry
    and exit walk only what was allocated since (a few thousand objects). Walking the whole heap twice per search
    took 0.15-0.3 s each time, 27 s of a 78 s serial ``verify --profile ci``; frozen, 0.5-20 ms. Objects of that
    first heap that die later in a cycle are never reclaimed: module-level state, which lives as long as the process."""
    global _HEAP_FROZEN
    enabled = gc.isenabled()
    gc.collect()
    if not _HEAP_FROZEN:
        gc.freeze()
        _HEAP_FROZEN = True
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        if enabled:
            gc.enable()


def collect_young() -> None:
    """Collect the objects allocated since the previous call (generations 0 and 1), not the whole heap: a full
    collection walks everything the process keeps (Hypothesis' tree of choices grows with the search); measured on
    ``prop1.iii``, 1000 thorough instances: its 15 full collections took 1.21 s, these 0.22 s. A cycle that reaches
    an object older than the search waits for the full collection on exit: at a point as fixed as the others."""
    gc.collect(1)


def evaluate(claim, instance, impl=ovk_ref):
    """``(violated, outcome, rechecked)`` for one instance, with the high-precision recheck of near-zero margins.

    Floating-point overflow is not an exception here: it yields inf/NaN, and a NaN margin is a violation.
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _evaluate(claim, instance, impl)


def _evaluate(claim, instance, impl):
    outcome = claim.check(instance, impl)
    if math.isfinite(outcome.margin) and abs(outcome.margin) <= tolerances.NEAR_ZERO_MARGIN * outcome.resolution_scale:
        with mpmath.workdps(tolerances.RECHECK_DIGITS):  # every mpf operation of the check at that precision
            outcome = claim.check(instance, impl, precision=tolerances.RECHECK_DIGITS)
        tie = max(tolerances.HIGH_PRECISION_TIE, outcome.tie or 0.0,
                  tolerances.FLOAT64_RECORDS_TIE if getattr(impl, "float64_records", False) else 0.0)
        return not outcome.margin >= -tie * outcome.resolution_scale, outcome, True
    return not outcome.margin >= 0, outcome, False


def _settings(profile: str, shrink: bool, examples: int | None = None):
    options = dict(profiles.PROFILES[profile])
    if examples is not None:
        options["max_examples"] = examples
    options["phases"] = ([Phase.explicit, Phase.generate] + ([Phase.target] if profiles.STEERED[profile] else [])
                         + ([Phase.shrink] if shrink else []))
    # one failure is all a verdict needs; looking for more stops after a wall-clock time, which would make
    # the shrunk counterexample depend on the machine's speed
    options.update(database=None, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                   print_blob=False, deadline=None, derandomize=False, report_multiple_bugs=False)
    return settings(**options)


def _claim_and_profile(claim_id: str, profile: str | None) -> tuple:
    """The registered claim ``claim_id`` and the profile (default: HYPOTHESIS_PROFILE or dev), each checked."""
    if claim_id not in CLAIMS:
        raise ValueError(f"claim must be one of the registered ids (ovk-check claims), got {claim_id!r}")
    profile = profile or profiles.default_profile()
    if profile not in profiles.PROFILES:
        raise ValueError(f"profile must be one of {sorted(profiles.PROFILES)}, got {profile!r}")
    return CLAIMS[claim_id], profile


def run_claim(claim_id: str, profile: str | None = None, impl=ovk_ref, seed: int | None = None, progress=None,
              shrink: bool = True, shard: int = 0, examples: int | None = None) -> Verdict:
    """Search claim ``claim_id`` for a counterexample under ``profile`` (default: HYPOTHESIS_PROFILE or dev).

    ``impl`` is the implementation under test (ovk_ref by default; any object with ovk_ref's
    ``onorma``/``monorma``/``batch_ridge``). ``seed`` makes a random profile reproducible (a derandomised
    profile runs with seed 0 unless given one). ``progress``, if given, is called with the verdict so far
    after every instance. ``shrink=False`` reports the first counterexample
    found instead of the smallest (faster when only the verdict matters). ``shard`` and ``examples`` make it one
    unit of a split search (``proofs_check.units``): another search seed, ``examples`` informative instances
    instead of the profile's ``max_examples``.
    """
    claim, profile = _claim_and_profile(claim_id, profile)
    verdict = Verdict(claim=claim_id, expected=claim.expected, verdict="not applicable", profile=profile,
                      floor=min(informative_floor(profile, examples), claim.space or math.inf))
    if not claim.applies_to(impl):
        return verdict
    failing = {}
    start = time.perf_counter()

    checked = {}   # instance (as JSON) -> (violated, informative, record): each distinct instance is checked once

    def search(instance):
        key = json.dumps(instance, sort_keys=True, default=repr)
        new = key not in checked
        if new:
            if failing and verdict.instances - failing["found_at"] >= SHRINK_BUDGET[profile]:
                return                # budget spent: only the counterexamples already seen still fail
            checked[key] = check(instance)
            if len(checked) % COLLECT_EVERY == 0:
                collect_young()
        violated, informative, record = checked[key]
        if not new and informative and not violated:
            count(informative)    # another informative draw of the same instance counts as Hypothesis counts it
        if violated:  # one raise statement: Hypothesis tells failures apart by where they are raised
            failing.update(instance=instance, **record)
            raise _Violation(f"margin {record['margin']!r}")
        if not informative:
            reject()   # counted once: Hypothesis draws another in its place
        if math.isfinite(record["margin"]):
            target(-steering(record["margin"]), label="violation")   # steer the search towards the bound

    def count(informative):
        verdict.instances += 1
        verdict.informative += bool(informative)
        if progress is not None:
            progress(verdict)

    def check(instance):
        """Check one new instance: count it, keep the worst informative margin."""
        violated, outcome, rechecked = evaluate(claim, instance, impl)
        count(outcome.informative)
        verdict.rechecked += rechecked
        margin = outcome.relative_margin
        if (outcome.informative or violated) and tighter(margin, verdict.worst_margin):
            verdict.worst_margin, verdict.worst_quantities, verdict.worst_instance = margin, outcome.quantities, instance
            verdict.worst_observed, verdict.worst_bound = outcome.observed, outcome.bound
        if outcome.informative and outcome.settled is not None and not outcome.settled >= verdict.worst_settled_margin:
            verdict.worst_settled_margin = outcome.settled
        if violated:
            failing.setdefault("found_at", verdict.instances)
        return violated, outcome.informative, {"quantities": outcome.quantities, "margin": margin}

    test = _settings(profile, shrink, examples)(given(claim.instances)(search))
    if seed is not None or profiles.PROFILES[profile].get("derandomize"):
        test = hypothesis_seed(search_seed(claim_id, seed or 0, shard))(test)
    try:
        with _without_local_constants(), _garbage_collected_at_fixed_points():
            test()
        verdict.verdict = _no_counterexample(claim)
        if shard == 0:   # once per claim, however many shards its search is split into
            _replay_known(claim, impl, verdict)
    except Unsatisfiable:   # not one informative instance: a verdict below its floor
        verdict.verdict = _no_counterexample(claim)
    except _Violation:
        verdict.verdict = "false"
        verdict.counterexample = failing["instance"]   # the last failing call is Hypothesis' replay of its smallest
        verdict.counterexample_margin = failing["margin"]     # checked on that instance (near 0: at RECHECK_DIGITS)
        verdict.counterexample_quantities = {"relative_margin": failing["margin"], **failing["quantities"]}
    except Exception as error:  # noqa: BLE001 -- a check that raises is reported, not hidden
        verdict.verdict = "error"
        verdict.error = f"{type(error).__name__}: {error}"
        verdict.counterexample = failing.get("instance")
    verdict.chain = explain_verdict(claim, impl, verdict)
    verdict.proved = proofs.proved_text(claim_id) if verdict.verdict in ("open", "proved") else ""
    verdict.seconds = time.perf_counter() - start
    return verdict


def _no_counterexample(claim) -> str:
    """The verdict of a search that found no counterexample: the claim's own ``open`` or ``proved``, else ``holds``."""
    return claim.expected if claim.expected in ("open", "proved") else "holds"


def explain_verdict(claim, impl, verdict) -> dict | None:
    """The claim's proof (``proofs.explain``) on the instance its verdict names: the counterexample of a false
    verdict, the tightest informative instance of a holds/open one; None without a chain or an instance. A chain that
    raises is reported in the result's ``error``, not as the claim's error."""
    if verdict.verdict not in NO_COUNTEREXAMPLE + ("false",):
        return None
    instance = verdict.counterexample if verdict.verdict == "false" else verdict.worst_instance
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = proofs.explain(claim.id, instance, impl)
    except Exception as error:  # noqa: BLE001 -- reported beside the verdict
        return {"error": f"{type(error).__name__}: {error}"}
    return None if result is None else result.to_dict()


def _replay_known(claim, impl, verdict) -> None:
    """When the search found nothing, a known counterexample that still violates the claim settles it."""
    for instance in claim.known_counterexamples:
        verdict.instances += 1
        violated, outcome, rechecked = evaluate(claim, instance, impl)
        verdict.rechecked += rechecked
        if violated:
            verdict.verdict, verdict.known = "false", True
            if tighter(outcome.relative_margin, verdict.worst_margin):
                verdict.worst_margin, verdict.worst_quantities, verdict.worst_instance = (
                    outcome.relative_margin, outcome.quantities, instance)
                verdict.worst_observed, verdict.worst_bound = outcome.observed, outcome.bound
            verdict.counterexample, verdict.counterexample_margin = instance, outcome.relative_margin
            verdict.counterexample_quantities = {"relative_margin": outcome.relative_margin, **outcome.quantities}
            return


def sample(claim_id: str, count: int, seed: int = 0, shard: int = 0) -> list:
    """``count`` draws of the claim's strategy, distinct, in draw order (Hypothesis' generation alone, seeded from the
    claim id, ``seed`` and ``shard`` (``search_seed``): no steering, no rejection, the strategy as it is)."""
    found = []

    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @hypothesis_seed(search_seed(claim_id, seed, shard))
    @given(CLAIMS[claim_id].instances)
    def collect(instance):
        if instance not in found:
            found.append(instance)
    with _without_local_constants():
        collect()
    return found


def verify(claim_ids=None, profile: str | None = None, impl=ovk_ref, seed: int | None = None, progress=None) -> list[Verdict]:
    """``run_claim`` for every id in ``claim_ids`` (default: the whole registry), in registry order."""
    claim_ids = list(CLAIMS) if not claim_ids else list(claim_ids)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        raise ValueError(f"claim must be one of the registered ids (ovk-check claims), got {unknown}")
    return [run_claim(claim_id, profile, impl, seed, progress) for claim_id in claim_ids]
