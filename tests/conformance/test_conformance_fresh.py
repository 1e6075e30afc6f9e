"""Fresh cases (issue 9, item 3): drawn from a seed, computed by ovk_ref on the spot; a failure is shrunk to a
replayable case file."""
import json

import numpy as np

import ovk_ref
from proofs_check import cli
from proofs_check.conformance import fresh, run
from proofs_check.conformance.hosts import InProcessHost
from proofs_check.conformance.runner import judge
from proofs_check.mutants import MUTANTS


def test_fresh_cases_are_determined_by_the_seed_and_change_with_it():
    first, again, other = (fresh.fresh_cases(seed, 4) for seed in (11, 11, 12))
    assert [case.id for case in first] == ["fresh-11-0", "fresh-11-1", "fresh-11-2", "fresh-11-3"]
    assert all(np.array_equal(a.X, b.X) and a.arguments == b.arguments for a, b in zip(first, again))
    assert not any(np.array_equal(a.X, b.X) for a, b in zip(first, other) if a.X.shape == b.X.shape)


def test_fresh_cases_reach_every_algorithm_kernel_family_loss_and_far_inputs():
    cases = fresh.fresh_cases(0, 120)
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
    case = next(case for case in fresh.fresh_cases(2, 40, ("onorma",)) if 10 <= len(case.X) <= 16)
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
