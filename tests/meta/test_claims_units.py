"""A verify run as units: merged deterministically, the same report from 1 or 2 local worker processes,
budgets spread over the claims by tightness of margin, bad options refused before any work."""
import concurrent.futures
import contextlib
import dataclasses
import itertools
import json
import math
import os
import sys

import pytest

from ovk_cli import parallel
from ovk_cli.cli import main
from proofs_check import budget, units
from proofs_check.claims import CLAIMS
from proofs_check.runner import Verdict, run_claim

#: a claim that holds, one found false (its counterexample shrunk), a MONORMA identity, a convexity with margin 0
CLAIM_IDS = ["def1.reproducing", "prop2.i_without_lam", "monorma.copies", "loss.convex"]


def _verify(tmp_path, name, *options):
    report = tmp_path / f"{name}.json"
    arguments = ["verify", "--profile", "ci", "--json", str(report), *options]
    for claim_id in CLAIM_IDS:
        arguments += ["--claim", claim_id]
    code = main(arguments)
    data = json.loads(report.read_text())
    for verdict in data["verdicts"]:
        del verdict["seconds"]
    for row in data.get("received", {}).values():
        del row["seconds"]
    del data["seconds"]
    return code, data


@pytest.mark.slow
def test_two_workers_report_exactly_what_one_worker_reports(tmp_path, capsys):
    serial_code, serial = _verify(tmp_path, "serial", "--workers", "1")
    serial_table = capsys.readouterr().out.split("\n\n")[0]
    parallel_code, parallel = _verify(tmp_path, "parallel", "--workers", "2")
    parallel_table = capsys.readouterr().out.split("\n\n")[0]
    assert serial_code == parallel_code == 0
    assert parallel == serial and parallel_table == serial_table
    assert [verdict["verdict"] for verdict in serial["verdicts"]] == ["holds", "false", "holds", "holds"]


@pytest.mark.slow
def test_a_budget_run_splits_claims_into_shards_and_merges_them_the_same_way_on_2_workers(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(budget, "SHARD_EXAMPLES", 40)     # several shards per claim; the plan is made in this process
    options = ("--split", "10", "--budget", "700")     # the profile's 25 instances as 10 + 10 + 5, then the shares
    serial_code, serial = _verify(tmp_path, "serial", "--workers", "1", *options)
    out = capsys.readouterr().out
    parallel_code, parallel = _verify(tmp_path, "parallel", "--workers", "2", *options)
    assert serial_code == parallel_code == 0 and parallel == serial
    received = serial["received"]
    assert serial["budget"] == "700 instances" and "budget 700 instances: what each claim received" in out
    # the false claim gets no more; the others share what the profile's run (4 x 25 informative) left
    assert received["prop2.i_without_lam"]["units"] == 3
    hunted = [claim_id for claim_id in CLAIM_IDS if claim_id != "prop2.i_without_lam"]
    assert all(received[claim_id]["units"] > 4 for claim_id in hunted)
    assert sum(row["asked"] for row in received.values()) <= 700    # the profile's run drew at least what it asked
    # loss.convex (margin 0: a bound attained) receives more than def1.reproducing (margin 1: an identity met)
    assert received["loss.convex"]["asked"] > received["def1.reproducing"]["asked"]
    by_claim = {verdict["claim"]: verdict for verdict in serial["verdicts"]}
    assert by_claim["loss.convex"]["informative"] >= received["loss.convex"]["asked"] * 0.8
    assert by_claim["loss.convex"]["floor"] > 20


def _verdict(shard_verdict="holds", margin=0.5, instances=10, known=False, counterexample=None, error=""):
    return Verdict(claim="loss.convex", expected="holds", verdict=shard_verdict, instances=instances,
                   informative=instances, floor=8, worst_margin=margin, counterexample=counterexample,
                   known=known, error=error, profile="ci")


def test_merge_takes_the_strongest_evidence_and_the_tightest_margin_of_the_lowest_shard():
    parts = [_verdict(margin=0.3), _verdict("false", -2.0, counterexample={"shard": 1}, known=True),
             _verdict("false", -1.0, counterexample={"shard": 2}), _verdict("false", -1.0, counterexample={"shard": 3}),
             _verdict(margin=math.nan)]
    merged = units.merge_claim(parts)
    assert merged.verdict == "false" and not merged.known and merged.counterexample == {"shard": 2}
    assert math.isnan(merged.worst_margin)      # a NaN margin is a violation: tighter than any number
    assert (merged.instances, merged.informative, merged.floor) == (50, 50, 40)
    assert units.merge_claim(parts[:1] + [_verdict("error", error="boom")]).error == "boom"
    assert units.merge_claim([_verdict(margin=0.3), _verdict(margin=0.1), _verdict(margin=0.1)]).worst_margin == 0.1


def test_shards_whose_margins_differ_by_round_off_give_the_lowest_shards_instance():
    """Last-bit noise (another CPU's BLAS kernels) cannot change which shard's instance is reported."""
    ahead, behind = _verdict(margin=-3.57e-16), _verdict(margin=-3.93e-16)
    ahead.worst_instance, behind.worst_instance = {"shard": 0}, {"shard": 1}
    assert units.merge_claim([ahead, behind]).worst_instance == {"shard": 0}
    far = _verdict(margin=-1e-6)
    far.worst_instance = {"shard": 1}
    assert units.merge_claim([ahead, far]).worst_instance == {"shard": 1}


def test_merge_does_not_depend_on_the_order_results_arrive_in():
    plan = [units.Unit("loss.convex", "ci", 0, shard) for shard in range(3)] + [units.Unit("def1.psd", "ci", 0)]
    results = [dataclasses.asdict(_verdict("false", -1.0, counterexample={"shard": shard})) for shard in range(3)]
    results.append(dataclasses.asdict(dataclasses.replace(_verdict(margin=0.7), claim="def1.psd")))
    expected = units.merge(plan, results)
    assert [verdict.claim for verdict in expected] == ["loss.convex", "def1.psd"]
    by_claim = {verdict.claim: verdict for verdict in expected}
    for order in itertools.permutations(range(4)):    # claims in the order the plan first names them
        merged = units.merge([plan[i] for i in order], [results[i] for i in order])
        assert {verdict.claim: verdict for verdict in merged} == by_claim
        assert [verdict.claim for verdict in merged] == list(dict.fromkeys(plan[i].claim for i in order))
    assert expected[0].counterexample == {"shard": 0}


def test_merge_refuses_a_duplicated_unit_or_a_missing_result():
    unit = units.Unit("loss.convex", "ci", 0)
    result = dataclasses.asdict(_verdict())
    with pytest.raises(ValueError, match="units must be distinct searches"):
        units.merge([unit, unit], [result, result])
    with pytest.raises(ValueError, match="one result per unit"):
        units.merge([unit], [])


def test_a_single_unit_is_the_claims_usual_search():
    unit = units.plan(["prop2.i_without_lam"], "ci", None)[0]
    result = units.run_unit(unit)
    assert {**result, "seconds": 0} == {**dataclasses.asdict(run_claim("prop2.i_without_lam", "ci")), "seconds": 0}


def test_a_shard_searches_other_instances_with_its_own_budget():
    # a claim whose margins are not ties (a tie's tightest instance is the first drawn, alike in both searches)
    usual = units.run_unit(units.Unit("prop2.iii", "ci", 0))
    shard = units.run_unit(units.Unit("prop2.iii", "ci", 0, shard=1, examples=10))
    assert shard["floor"] == 8 and 10 <= shard["instances"] < usual["instances"]
    assert shard["worst_quantities"] != usual["worst_quantities"]


def test_a_worker_with_another_ovk_refuses_the_unit():
    with pytest.raises(RuntimeError, match="planned with ovk 0.0.0-other"):
        units.run_unit(units.Unit("loss.convex", "ci", 0, version="0.0.0-other"))


def test_shares_follow_the_tightness_of_margins_and_never_exceed_the_budget():
    verdicts = [dataclasses.replace(_verdict(margin=margin, instances=25), claim=claim_id, seconds=1.0)
                for claim_id, margin in (("loss.convex", 0.0), ("def1.psd", 0.05), ("def1.reproducing", 1.0))]
    verdicts.append(dataclasses.replace(_verdict("false", -1.0), claim="prop2.iv"))
    extra = budget.shares(verdicts, budget.Budget(instances=1000), elapsed=0.0, workers=2)
    assert set(extra) == {"loss.convex", "def1.psd", "def1.reproducing"}     # the false claim gets none
    assert extra["loss.convex"] > extra["def1.psd"] > extra["def1.reproducing"] > 0
    assert sum(extra.values()) <= 1000 - 85
    # a time budget: 10 s on 2 workers, 1 s already spent, each claim 1 s per 25 instances
    timed = budget.shares(verdicts, budget.Budget(seconds=10.0), elapsed=1.0, workers=2)
    assert sum(count / 25 for count in timed.values()) <= 18.0 and timed["loss.convex"] > timed["def1.reproducing"]
    assert budget.shares(verdicts, budget.Budget(instances=50), elapsed=0.0, workers=1) == dict.fromkeys(extra, 0)
    assert budget.extra_units({"loss.convex": 600}, units.plan(["loss.convex"], "ci", 0, split=10)) == [
        units.Unit("loss.convex", "ci", 0, 3, 250), units.Unit("loss.convex", "ci", 0, 4, 250),
        units.Unit("loss.convex", "ci", 0, 5, 100)]


def test_a_claim_whose_space_is_exhausted_gets_no_more():
    space = budget.CLAIMS["kernel.J_spectrum"].space
    searched = dataclasses.replace(_verdict(margin=0.0, instances=space), claim="kernel.J_spectrum")
    assert not budget.still_hunted(searched)
    assert budget.still_hunted(dataclasses.replace(searched, instances=space - 1))


@pytest.mark.parametrize("text, parsed", [("90s", budget.Budget(seconds=90.0)), ("10m", budget.Budget(seconds=600.0)),
                                          ("1.5h", budget.Budget(seconds=5400.0)), ("20000", budget.Budget(instances=20000))])
def test_budget_parses_times_and_instance_counts(text, parsed):
    assert budget.parse(text) == parsed


@pytest.mark.parametrize("argv, message", [
    (["--budget", "10x"], "--budget must be a time"), (["--budget", "0"], "whole number >= 1"),
    (["--budget", "2.5"], "whole number >= 1"), (["--budget", "0s"], "positive time"),
    (["--workers", "0"], "--workers must be a whole number of processes >= 1"),
    (["--split", "0"], "--split must be a whole number of instances >= 1"),
])
def test_bad_options_are_refused_before_any_work(argv, message, capsys, monkeypatch):
    def never_called(*args, **kwargs):
        raise AssertionError("the work started before the options were checked")
    monkeypatch.setattr("ovk_cli.commands.verify.map_ordered", never_called)
    assert main(["verify", "--claim", "loss.convex", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_scheduler_without_the_distributed_extra_names_the_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)     # import distributed -> ImportError
    assert main(["verify", "--claim", "loss.convex", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert 'pip install "ovk[distributed]"' in capsys.readouterr().err


def test_a_worker_process_that_dies_ends_the_run_with_a_message_not_a_traceback():
    """``os._exit`` in a worker is a process killed mid-unit (SIGKILL, the OOM killer): the pool breaks."""
    with pytest.raises(parallel.WorkerLost, match=r"worker process died .* 2 of 2 items were unfinished"):
        parallel.map_ordered(os._exit, [3, 4], workers=2)


def test_verify_says_a_worker_died_and_exits_3(capsys, monkeypatch):
    from ovk_cli.commands import verify

    def lost(*args, **kwargs):
        raise parallel.WorkerLost("a worker process died (killed, or out of memory) while 1 of 2 items were unfinished")
    monkeypatch.setattr(verify, "map_ordered", lost)
    assert main(["verify", "--claim", "loss.convex", "--claim", "loss.lipschitz", "--profile", "ci", "--workers", "2"]) == 3
    assert "ovk-check verify: error: a worker process died" in capsys.readouterr().err


def test_a_pool_receives_the_costliest_items_first_and_the_results_keep_the_items_order(monkeypatch):
    submitted = []

    class Recording(concurrent.futures.ThreadPoolExecutor):
        def submit(self, function, item):
            submitted.append(item)
            return super().submit(function, item)

    @contextlib.contextmanager
    def recording_executor(workers, scheduler=None):
        with Recording(1) as pool:
            yield pool
    monkeypatch.setattr(parallel, "executor", recording_executor)
    items = [3, 9, 1, 7]
    assert parallel.map_ordered(lambda item: item * 10, items, workers=2, cost=lambda item: item) == [30, 90, 10, 70]
    assert submitted == [9, 7, 3, 1]


def test_a_thorough_run_submits_its_costliest_units_first():
    plan = units.plan(list(CLAIMS), "thorough", 0)
    costs = [units.expected_seconds(unit) for unit in plan]
    assert min(costs) > 0 and len(set(costs)) > 10
    missing = units.Unit("no.such.claim", "thorough", 0)   # a claim the table does not know costs the median
    assert min(costs) <= units.expected_seconds(missing) <= max(costs)
