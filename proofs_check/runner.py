"""The verify runner (issue 3, item 6): a Hypothesis search for counterexamples, claim by claim.

``run_claim(id, profile, impl, seed)`` draws instances of the claim under the profile's settings, checks
each, and returns a ``Verdict``: ``holds`` (no violation on N instances), ``open`` (no violation, but the
claim cannot be settled by finitely many instances), ``false`` (the smallest counterexample Hypothesis
shrank to, with every parameter needed to replay it: ``CLAIMS[id].check(counterexample, impl)``),
``error`` (the check raised) or ``not applicable`` (``impl`` lacks a function the claim calls).
When the search finds no violation of a claim that has ``known_counterexamples``, those are replayed: one
that still violates makes the verdict ``false`` (``Verdict.known`` says so).

A margin within ``tolerances.NEAR_ZERO_MARGIN`` (relative) of 0 is recomputed at
``tolerances.RECHECK_DIGITS`` digits before it counts either way; such instances are counted in
``Verdict.rechecked``.
"""
from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import dataclass, field

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

import ovk_ref
from ovk_ref import tolerances
from proofs_check import profiles
from proofs_check.claims import CLAIMS


@dataclass
class Verdict:
    claim: str
    expected: str
    verdict: str                  # holds | false | open | error | not applicable
    instances: int = 0            # instances checked (for false: including the shrinking ones)
    worst_margin: float = math.inf  # smallest relative margin seen (< 0: violated)
    worst_quantities: dict = field(default_factory=dict)
    counterexample: dict | None = None
    counterexample_quantities: dict = field(default_factory=dict)
    rechecked: int = 0            # instances recomputed at RECHECK_DIGITS digits
    error: str = ""
    known: bool = False           # the counterexample is a known one, replayed because the search found none
    seconds: float = 0.0
    profile: str = ""

    @property
    def as_expected(self) -> bool:
        return self.verdict == "not applicable" or self.verdict == self.expected

    def to_dict(self) -> dict:
        return {**self.__dict__, "worst_margin": None if math.isinf(self.worst_margin) else self.worst_margin,
                "as_expected": self.as_expected}


class _Violation(AssertionError):
    pass


#: instances Hypothesis may spend shrinking a counterexample, per profile; past it the smallest one found so
#: far is reported (every later candidate is declared passing, so Hypothesis stops and replays that one)
SHRINK_BUDGET = {"ci": 150, "dev": 400, "thorough": 3000}


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
        tie = max(tolerances.HIGH_PRECISION_TIE, outcome.tie or 0.0)
        return not outcome.margin >= -tie * outcome.resolution_scale, outcome, True
    return not outcome.margin >= 0, outcome, False


def _settings(profile: str, seed, shrink: bool):
    options = dict(profiles.PROFILES[profile])
    if not shrink:
        options["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]
    options.update(database=None, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                   print_blob=False, deadline=None)
    if seed is not None:
        options["derandomize"] = False
    return settings(**options)


def run_claim(claim_id: str, profile: str | None = None, impl=ovk_ref, seed: int | None = None, progress=None,
              shrink: bool = True) -> Verdict:
    """Search claim ``claim_id`` for a counterexample under ``profile`` (default: HYPOTHESIS_PROFILE or dev).

    ``impl`` is the implementation under test (ovk_ref by default; any object with ovk_ref's
    ``onorma``/``monorma``/``batch_ridge``). ``seed`` makes a random profile reproducible. ``progress``, if
    given, is called with no argument after every instance. ``shrink=False`` reports the first counterexample
    found instead of the smallest (faster when only the verdict matters).
    """
    if claim_id not in CLAIMS:
        raise ValueError(f"claim must be one of the registered ids (ovk-check claims), got {claim_id!r}")
    profile = profile or profiles.default_profile()
    if profile not in profiles.PROFILES:
        raise ValueError(f"profile must be one of {sorted(profiles.PROFILES)}, got {profile!r}")
    claim = CLAIMS[claim_id]
    verdict = Verdict(claim=claim_id, expected=claim.expected, verdict="not applicable", profile=profile)
    if not claim.applies_to(impl):
        return verdict
    failing = {}
    start = time.perf_counter()

    def search(instance):
        key = json.dumps(instance, sort_keys=True, default=repr)
        if failing and verdict.instances - failing["found_at"] >= SHRINK_BUDGET[profile]:
            if key not in failing["seen"]:
                return                # budget spent: only the counterexamples already seen still fail
            violated, record = True, failing["seen"][key]
        else:
            verdict.instances += 1
            if progress is not None:
                progress()
            violated, outcome, rechecked = evaluate(claim, instance, impl)
            verdict.rechecked += rechecked
            if outcome.relative_margin < verdict.worst_margin or math.isnan(outcome.relative_margin):
                verdict.worst_margin, verdict.worst_quantities = outcome.relative_margin, outcome.quantities
            record = {"quantities": outcome.quantities, "margin": outcome.relative_margin}
            if violated:
                failing.setdefault("found_at", verdict.instances)
                failing.setdefault("seen", {})[key] = record
        if violated:  # one raise statement: Hypothesis tells failures apart by where they are raised
            failing.update(instance=instance, **record)
            raise _Violation(f"margin {record['margin']!r}")

    test = _settings(profile, seed, shrink)(given(claim.instances)(search))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    try:
        test()
        verdict.verdict = "open" if claim.expected == "open" else "holds"
        _replay_known(claim, impl, verdict)
    except _Violation:
        verdict.verdict = "false"
        verdict.counterexample = failing["instance"]   # the last failing call is Hypothesis' replay of its smallest
        verdict.counterexample_quantities = {"relative_margin": failing["margin"], **failing["quantities"]}
    except Exception as error:  # noqa: BLE001 -- a check that raises is reported, not hidden
        verdict.verdict = "error"
        verdict.error = f"{type(error).__name__}: {error}"
        verdict.counterexample = failing.get("instance")
    verdict.seconds = time.perf_counter() - start
    return verdict


def _replay_known(claim, impl, verdict) -> None:
    """When the search found nothing, a known counterexample that still violates the claim settles it."""
    for instance in claim.known_counterexamples:
        verdict.instances += 1
        violated, outcome, rechecked = evaluate(claim, instance, impl)
        verdict.rechecked += rechecked
        if violated:
            verdict.verdict, verdict.known = "false", True
            verdict.worst_margin = min(verdict.worst_margin, outcome.relative_margin)
            verdict.counterexample = instance
            verdict.counterexample_quantities = {"relative_margin": outcome.relative_margin, **outcome.quantities}
            return


def verify(claim_ids=None, profile: str | None = None, impl=ovk_ref, seed: int | None = None, progress=None) -> list[Verdict]:
    """``run_claim`` for every id in ``claim_ids`` (default: the whole registry), in registry order."""
    claim_ids = list(CLAIMS) if not claim_ids else list(claim_ids)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        raise ValueError(f"claim must be one of the registered ids (ovk-check claims), got {unknown}")
    return [run_claim(claim_id, profile, impl, seed, progress) for claim_id in claim_ids]
