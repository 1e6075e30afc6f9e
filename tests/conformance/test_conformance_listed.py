"""The listed truncation schedule (``{"type": "listed", "s": [s_1, ..., s_n]}``, any ``t -> s_t`` of spec 5.1): the
worker's callable, a malformed list refused naming ``truncation.s``, what fresh cases draw unchanged by it, a shrunk
case keeping each round's ``s_t``, and the stored case that drops several terms in one round passed by the honest
engines."""
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from referencing import Registry, Resource

import ovk_fast
import ovk_ref
from ovk_conform import fresh, run, wire
from ovk_conform.manifest import load_cases
from ovk_conform.plain_engine import PlainOnorma, float32_engine
from ovk_conform.protocol import call_arguments
from ovk_conform.scope import AXES, Scope
from ovk_ref import ListedSchedule

LISTED = ("corner-cases", "listed-collapse-t40")


def _listed_case():
    return next(case for case in load_cases(("onorma",), (LISTED[0],), basic=False) if case.id == LISTED[1])


def test_the_listed_case_drops_several_terms_in_one_round_and_never_brings_a_dropped_term_back():
    case = _listed_case()
    schedule = call_arguments(case.arguments, len(case.X))["truncation"]
    assert isinstance(schedule, ListedSchedule) and schedule(20) == 2 and schedule(36) == 4
    drops = np.diff(case.expected["support_sizes"])
    assert drops[18] == -4 and drops[33] == -7 and drops.min() == -7
    assert case.expected["support_sizes"][35] == 2       # s_36 = 4, but the terms dropped at round 35 stay dropped


@pytest.mark.parametrize("engine", [ovk_ref, ovk_fast, {"onorma": PlainOnorma()}, float32_engine],
                         ids=["ovk_ref", "ovk_fast", "plain", "float32"])
def test_honest_engines_pass_the_listed_case(engine):
    precision = "float32" if engine is float32_engine else "float64"
    report = run(engine, ("onorma",), cases=[_listed_case()], precision=precision)
    assert report.passed and [outcome.status for outcome in report.outcomes] == ["pass"], report.text(verbose=True)


@pytest.mark.parametrize("s, rule", [
    ([6] * 39, r"truncation.s must list one s_t per round: 40 rounds, got 39"),
    ([6] * 41, r"truncation.s must list one s_t per round: 40 rounds, got 41"),
    ([6] * 19 + [-2] + [6] * 20, r"truncation.s\[19\] \(s_20\) must be an integer >= 1, got -2"),
    ([6] * 19 + [0] + [6] * 20, r"truncation.s\[19\] \(s_20\) must be an integer >= 1, got 0"),
    ([6] * 19 + [2.5] + [6] * 20, r"truncation.s\[19\] \(s_20\) must be an integer >= 1, got 2.5"),
    ([True] * 40, r"truncation.s\[0\] \(s_1\) must be an integer >= 1, got True"),
    ("6", r"truncation.s of a listed schedule must be a non-empty list"),
    ([], r"truncation.s of a listed schedule must be a non-empty list"),
])
def test_a_malformed_listed_schedule_is_refused_naming_the_field(tmp_path, s, rule):
    case = _listed_case()
    arguments = dict(case.arguments, truncation={"type": "listed", "s": s})
    with pytest.raises(ValueError, match=rule):
        call_arguments(arguments, len(case.X))
    stored = dict(case.to_dict(), arguments=arguments)
    (tmp_path / "case.json").write_text(json.dumps({"format": "ovk-vectors-3", "cases": [stored]}))
    with pytest.raises(ValueError, match=f"case.json: case {LISTED[1]}: {rule}"):   # a replay file: before any case runs
        fresh.read_case_file(tmp_path / "case.json")


def _request_validator():
    schemas = [json.loads(path.read_text()) for path in Path(wire.__file__).with_name("schemas").glob("*.schema.json")]
    registry = Registry().with_resources([(schema["$id"], Resource.from_contents(schema)) for schema in schemas])
    request_schema = next(schema for schema in schemas if schema["$id"].endswith("/request.schema.json"))
    return jsonschema.Draft202012Validator(request_schema, registry=registry)


def test_the_request_schema_accepts_a_listed_schedule_and_refuses_a_malformed_one():
    validator = _request_validator()
    request = json.loads(json.dumps(wire.request(_listed_case())))
    validator.validate(request)
    assert request["arguments"]["truncation"]["type"] == "listed"
    for s in ([], [2, 0], [2, -1], [2, 2.5], ["2"]):
        request["arguments"]["truncation"]["s"] = s
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(request)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_fresh_cases_of_a_seed_are_those_drawn_before_listed_existed(seed):
    """Every scope that offers another truncation kind draws what it drew before ``listed`` was a kind: the full
    scope draws the cases of the full scope without it."""
    without = Scope.parse({"algorithms": {name: ({"truncations": ["none", "window", "theorem2"]}
                                                 if "truncations" in AXES[name] else {}) for name in AXES}}, "test")
    for long in (0, 2):
        full, old = fresh.draw_cases(seed, 12, Scope.full(), long), fresh.draw_cases(seed, 12, without, long)
        assert [(algorithm, case["id"], case["arguments"]) for algorithm, case in full] == [
            (algorithm, case["id"], case["arguments"]) for algorithm, case in old]
        assert all(np.array_equal(a["X"], b["X"]) for (_, a), (_, b) in zip(full, old))


def test_a_scope_offering_only_listed_schedules_draws_listed_ones():
    scope = Scope.parse({"algorithms": {"onorma": {"truncations": ["listed"]}}}, "test")
    for _, case in fresh.draw_cases(3, 5, scope) + fresh.draw_cases(3, 0, scope, long=1):
        assert case["arguments"]["truncation"]["type"] == "listed"
        assert len(case["arguments"]["truncation"]["s"]) == len(case["X"])


def test_a_shrunk_listed_case_keeps_each_kept_rounds_s_t():
    case = _listed_case()
    rows = np.array([0, 1, 5, 18, 19, 20, 34])
    sub = fresh._sub_case(case, rows)
    assert sub.arguments["truncation"]["s"] == [6, 6, 6, 6, 2, 3, 1]
    assert len(sub.X) == 7 and case.arguments["truncation"]["s"][19] == 2     # the original case is unchanged
