"""Every claim of the registry, searched under the current Hypothesis profile (ci in CI): the verdict must be
the expected one. False claims stop at their first counterexample here (no shrinking: the shrunk
counterexamples are pinned in test_claims_regressions.py)."""
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofs_check import CLAIMS, run_claim
from proofs_check.claims.base import EXPECTED_VERDICTS, Claim
from proofs_check.profiles import default_profile
from proofs_check.runner import informative_floor, steering


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_claim_verdict_is_the_expected_one(claim_id):
    """A false verdict must come from this run's own search, never from a stored counterexample; a holds/open
    verdict must rest on at least the floor of informative instances."""
    claim = CLAIMS[claim_id]
    verdict = run_claim(claim_id, default_profile(), shrink=False, seed=0)   # seed 0: a random profile is not flaky
    assert verdict.verdict == claim.expected, (
        f"{claim_id}: expected {claim.expected}, got {verdict.verdict} {verdict.error} "
        f"counterexample={json.dumps(verdict.counterexample)} quantities={verdict.counterexample_quantities}")
    if verdict.verdict == "false":
        assert not verdict.known, f"{claim_id}: the live search found no violation; only a stored counterexample did"
        assert verdict.counterexample is not None and json.loads(json.dumps(verdict.counterexample)) == verdict.counterexample
    else:
        assert verdict.meets_floor and verdict.floor == min(informative_floor(default_profile()), claim.space or math.inf), (
            f"{claim_id}: {verdict.informative} informative instances of {verdict.instances}, floor {verdict.floor}")


def test_registry_entries_are_complete():
    assert len(CLAIMS) >= 40
    for claim in CLAIMS.values():
        assert claim.expected in EXPECTED_VERDICTS
        assert claim.statement and claim.reference and claim.hypotheses, claim.id
    # the two claims the spec leaves "not audited" are decided (C14, C22)
    assert CLAIMS["prop2.iv"].expected == "false" and CLAIMS["thm1.squared_without_lam"].expected == "false"


def test_a_claim_must_say_what_makes_an_instance_informative():
    with pytest.raises(ValueError, match="informative"):
        Claim(id="x", statement="s", reference="r", hypotheses="h", expected="holds", instances=None, check=None)
    assert all(claim.informative for claim in CLAIMS.values())


@given(st.floats(-1e6, 1.0, allow_nan=False), st.floats(-1e6, 1.0, allow_nan=False))
def test_the_search_steers_on_a_rounded_margin_that_keeps_the_order_of_margins(a, b):
    """``steering`` never reverses two margins (the search still goes towards the bound) and keeps 0 and 1."""
    low, high = min(a, b), max(a, b)
    assert steering(low) <= steering(high)
    assert steering(0.0) == 0.0 and steering(1.0) == 1.0


def test_an_identitys_round_off_is_flat_to_the_search_but_a_bounds_margin_keeps_two_digits():
    # two identity margins 1 - error / allowed that differ only by round-off in the error: one target value
    assert steering(1 - 1.61e-6) == steering(1 - 1.64e-6) == 1 - 1.6e-6
    assert steering(0.00123) == 0.0012 and steering(-4123.4) == -4100.0 and steering(0.3777) == 0.38


def test_a_tie_steers_as_0_whatever_its_round_off():
    """A tie's digits differ between CPUs (BLAS kernels): steering on them drew other instances on another CPU."""
    assert steering(-3.57e-16) == steering(-3.93e-16) == steering(2e-10) == 0.0
    assert steering(-2e-9) == -2e-9 and steering(math.nan) != steering(math.nan)


def test_thorough_searches_by_generation_and_the_short_profiles_steer():
    """``profiles.STEERED``: Hypothesis' interleaved target passes (budgets >= 1000) overran the choice sequence by the
    ten thousand in thorough; ci and dev keep their single pass towards small margins."""
    from hypothesis import Phase

    from proofs_check.runner import _settings
    assert Phase.target not in _settings("thorough", shrink=True).phases
    assert Phase.target in _settings("ci", shrink=True).phases and Phase.target in _settings("dev", shrink=False).phases


def test_the_floor_is_a_count_of_informative_instances():
    """A holds verdict on ``floor`` informative instances meets the floor however many were drawn (the strategy's
    share is tested once, tests/meta/test_strategy_quality.py); one fewer does not."""
    from proofs_check.runner import Verdict
    assert Verdict("c", "holds", "holds", instances=60, informative=20, floor=20).meets_floor
    assert not Verdict("c", "holds", "holds", instances=20, informative=19, floor=20).meets_floor
    assert Verdict("c", "false", "false", instances=1, informative=0, floor=20).meets_floor


def test_a_counterexample_is_printed_with_its_own_margin_and_the_tightest_instance_kept_apart():
    """The margin beside a counterexample is computed on it (a search that shrinks reports a smaller violation than
    the first one it found); the JSON keeps the tightest instance, with its margin, as a field of its own."""
    from proofs_check.report import margin_text
    from proofs_check.runner import evaluate
    verdict = run_claim("prop2.iv", "ci")
    assert verdict.verdict == "false"
    _, outcome, _ = evaluate(CLAIMS["prop2.iv"], verdict.counterexample)
    assert verdict.counterexample_margin == outcome.relative_margin < 0
    assert margin_text(verdict) == f"{outcome.relative_margin:.3g}"
    tightest = verdict.to_dict()["tightest"]
    # ci's first violation of prop2.iv is at margin -3.75, its shrunk counterexample at -0.437: the printed margin
    # was once the first one's, beside the second instance
    assert tightest["margin"] == verdict.worst_margin < verdict.counterexample_margin
    assert evaluate(CLAIMS["prop2.iv"], tightest["instance"])[1].relative_margin == tightest["margin"]


def test_an_instance_tighter_only_by_round_off_does_not_replace_the_tightest_one():
    """The tightest instance of a run is the first found among margins equal up to round-off (whose last bits depend
    on the CPU), so every machine reports the same instance and proof chain; NaN and a real gain replace it."""
    from proofs_check.runner import tighter
    assert tighter(0.5, math.inf) and tighter(-1e-6, 0.0) and tighter(math.nan, -1.0)
    assert not tighter(-3.93e-16, -3.57e-16) and not tighter(0.0, -3.57e-16) and not tighter(0.2, 0.1)
