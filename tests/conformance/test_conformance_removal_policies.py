"""The removal policies (``smallest``, ``random``, ``projection``: ``ovk_ref.truncation.RemovalPolicy``) in the oracle: a
scope offering only policies draws them (short and long streams, budgets inside the bounds), the request schema
takes them, ovk_ref passes its own fresh cases of each, and an engine that reads a policy's budget as a window fails."""
import json
from types import SimpleNamespace

import jsonschema
import pytest
from test_conformance_listed import _listed_case, _request_validator

import ovk_ref
from ovk_conform import fresh, run, wire
from ovk_conform.scope import Scope
from ovk_ref.truncation import POLICIES, PROJECTION_BUDGET, FixedWindow, RemovalPolicy

KINDS = [policy.kind for policy in POLICIES]


def _scope(kind) -> dict:
    return {"algorithms": {"onorma": {"truncations": [kind]}}}

@pytest.mark.parametrize("kind", KINDS)
def test_a_scope_offering_only_a_policy_draws_it(kind):
    scope = Scope.parse(_scope(kind), "test")
    for long in (0, 1):
        for _, case in fresh.draw_cases(5, 0 if long else 8, scope, long):
            truncation = case["arguments"]["truncation"]
            assert truncation["type"] == kind and 1 <= truncation["budget"] <= len(case["X"])
            assert kind != "projection" or truncation["budget"] <= (fresh.LONG_PROJECTION_BUDGET if long else PROJECTION_BUDGET)
            assert (kind == "random") == ("seed" in truncation)

def test_the_request_schema_takes_each_policy_and_refuses_a_malformed_one():
    validator = _request_validator()
    request = json.loads(json.dumps(wire.request(_listed_case())))
    for policy in POLICIES:
        spec = {"type": policy.kind, "budget": 3, **({"seed": 1} if "seed" in policy.fields else {})}
        request["arguments"]["truncation"] = spec
        validator.validate(request)
        for bad in ({**spec, "budget": 0}, {key: value for key, value in spec.items() if key != "budget"}, {**spec, "s": 3}):
            request["arguments"]["truncation"] = bad
            with pytest.raises(jsonschema.ValidationError):
                validator.validate(request)

def _window_reading(X, Y, kernel, *, truncation=None, **options):
    """A plausible mistake: the budget of a removal policy read as a window (the oldest terms removed)."""
    if isinstance(truncation, RemovalPolicy):
        truncation = FixedWindow(truncation.budget)
    return ovk_ref.onorma(X, Y, kernel, truncation=truncation, **options)

@pytest.mark.parametrize("kind", KINDS)
def test_ovk_ref_passes_its_policy_cases_and_a_window_reading_fails(kind):
    honest = SimpleNamespace(onorma=ovk_ref.onorma, conformance_scope=_scope(kind))
    report = run(honest, ("onorma",), seed=3, fuzz=6, reruns=0, allow_partial=True)   # certifies the policy alone
    statuses = [outcome.status for outcome in report.outcomes if outcome.status != "skip"]   # skip: out of scope
    assert report.passed and statuses == ["pass"] * 6, report.text(verbose=True)
    wrong = SimpleNamespace(onorma=_window_reading, conformance_scope=_scope(kind))
    assert not run(wrong, ("onorma",), seed=3, fuzz=6, reruns=0).passed
