"""Fresh cases: drawn from a seed inside the declared scope, computed by ovk_ref before any case is sent; a
failure is shrunk to a replayable case file."""
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ovk_ref
from ovk_cli import cli
from ovk_conform import fresh, run
from ovk_conform.hosts import InProcessHost
from ovk_conform.runner import judge
from ovk_conform.scope import Scope, traits
from ovk_conform.vectors import Case
from proofs_check.mutants import MUTANTS


def test_fresh_cases_are_determined_by_the_seed_and_change_with_it():
    first, again, other = (fresh.fresh_cases(seed, 4) for seed in (11, 11, 12))
    assert [case.id for case in first] == ["fresh-11-0", "fresh-11-1", "fresh-11-2", "fresh-11-3"]
    assert all(np.array_equal(a.X, b.X) and a.arguments == b.arguments for a, b in zip(first, again))
    assert not any(np.array_equal(a.X, b.X) for a, b in zip(first, other) if a.X.shape == b.X.shape)


def test_fresh_cases_reach_every_algorithm_kernel_family_loss_and_far_inputs():
    cases = fresh.fresh_cases(0, 120)
    assert {case.arguments["kernel"]["type"] for case in cases if "kernels" not in case.arguments} >= {
        "feature", "sum", "constant_separable"}
    assert {case.algorithm for case in cases} == {"onorma", "monorma", "batch_ridge"}
    kernels = {case.arguments["kernel"]["type"] for case in cases if "kernel" in case.arguments}
    assert kernels == {"gaussian_separable", "linear_separable", "polynomial_separable", "constant_separable",
                       "linear_quadratic", "feature", "sum"}
    assert {case.arguments["loss"]["type"] for case in cases if "loss" in case.arguments} == {
        loss["type"] for loss in fresh.LOSSES}
    assert max(np.max(np.abs(case.X)) for case in cases) >= 1e6
    assert {case.arguments.get("truncation", {}).get("type") for case in cases} == {None, "window", "theorem2"}


def test_a_failure_is_shrunk_to_its_first_diverging_round_and_replays(tmp_path, capsys):
    mutant = MUTANTS["eta_next_index"]
    case = next(case for case in fresh.fresh_cases(2, 40, Scope.full(("onorma",))) if 10 <= len(case.X) <= 16)
    outcome = judge(case, InProcessHost(mutant).call(case))
    assert outcome.status == "fail"

    def fails(candidate):
        return judge(candidate, InProcessHost(mutant).call(candidate)).status == "fail"
    small = fresh.shrink(case, fails, outcome)
    assert len(small.X) < len(case.X) and fails(small)
    if len(small.X) > 1:   # no single round can be dropped any more
        assert not any(fails(fresh._sub_case(small, np.delete(np.arange(len(small.X)), i)))
                       for i in range(len(small.X)))
    path = tmp_path / f"{small.id}.json"
    fresh.write_case_file(small, path)
    assert json.loads(path.read_text())["cases"][0]["id"] == f"{case.id}-shrunk"
    assert cli.main(["conform", "proofs_check.mutants:MUTANTS.eta_next_index", "--replay", str(path)]) == 1
    assert cli.main(["conform", "ovk_ref", "--replay", str(path)]) == 0
    assert run(ovk_ref, cases=fresh.read_case_file(path)).passed


def test_the_cli_writes_a_shrunk_case_file_for_a_failing_fresh_case(tmp_path, capsys):
    code = cli.main(["conform", "proofs_check.mutants:MUTANTS.shrink_skipped", "--level", "quick", "--fuzz", "4",
                     "--seed", "1", "--shrunk-dir", str(tmp_path)])
    output = capsys.readouterr().out
    files = sorted(tmp_path.glob("fresh-1-*-shrunk.json"))
    assert code == 1 and files and f"(replay: --replay {files[0]})" in output


def _subsets(values):
    return st.lists(st.sampled_from(values), min_size=1, unique=True)


@st.composite
def scopes(draw):
    """Any declared scope: some algorithms, each with a non-empty subset of each of its axes."""
    from ovk_conform.scope import AXES
    algorithms = draw(st.lists(st.sampled_from(list(AXES)), min_size=1, unique=True))
    declared = {name: {axis: draw(_subsets(values)) for axis, values in AXES[name].items()} for name in algorithms}
    for axes in declared.values():
        if axes["kernels"] == ["sum"]:      # a sum needs a family for its terms (Scope.parse refuses it)
            axes["kernels"].append(draw(st.sampled_from(AXES["onorma"]["kernels"][:-1])))
        if "near" not in axes["inputs"] and "gaussian_separable" not in axes["kernels"]:
            axes["kernels"].append("gaussian_separable")      # far inputs come with Gaussian kernels
    return Scope.parse({"algorithms": declared}, "drawn scope")


@settings(max_examples=40, deadline=None)
@given(scope=scopes(), seed=st.integers(0, 2**31 - 1))
def test_every_fresh_case_is_drawn_inside_the_declared_scope(scope, seed):
    drawn = fresh.draw_cases(seed, 12, scope)
    assert len(drawn) == 12
    for long in (False, True):
        for algorithm, case in drawn if not long else fresh.draw_cases(seed, 0, scope, long=1):
            inside = Case(algorithm, case["id"], case["comment"], case["flags"], case["X"], case["Y"], case["arguments"],
                          {})
            assert scope.outside(inside) is None, (scope.text(), case["comment"])


def test_long_fresh_cases_run_thousands_of_rounds_where_a_window_is_in_scope():
    scope = Scope.full()
    drawn = fresh.draw_cases(4, 0, scope, long=6)
    assert all(algorithm == "onorma" and len(case["X"]) >= 1200 for algorithm, case in drawn)
    assert {case["arguments"]["truncation"]["type"] for _, case in drawn} == {"window", "theorem2"}
    untruncated = Scope.parse({"algorithms": {"onorma": {"truncations": ["none"]}}}, "test")
    assert all(600 <= len(case["X"]) <= 900 and "truncation" not in case["arguments"]
               for _, case in fresh.draw_cases(4, 0, untruncated, long=3))
    assert traits(Case("onorma", "x", "", [], np.zeros((1, 1)), np.zeros((1, 1)),
                       {"kernel": {"type": "sum", "terms": [{"weight": 1.0, "kernel": {"type": "feature"}}]},
                        "loss": {"type": "squared"}}, {}))["kernels"] == {"sum", "feature"}
