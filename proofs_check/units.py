"""A verify run as independent units, and the deterministic merge of their results.

A ``Unit`` is one Hypothesis search: a claim, the profile, the run seed, a shard index (which search seed:
``runner.search_seed(claim, seed, shard)``) and an instance budget (``examples``: informative instances asked
for; None = the profile's ``max_examples``), and for ``ovk-check sensitivity`` a planted fault
(``proofs_check.faults``) applied in the process that runs it. ``run_unit(unit)`` needs nothing but the installed package and
returns a plain dict (the fields of a ``runner.Verdict``: builtins, picklable), so a unit runs the same in this
process, in a local worker process or on a Dask worker of another machine.

The plan of a run (which units) depends on the claims, the profile, the seed and the budget, never on where or
in how many processes the units run; ``merge`` orders the results by the plan, not by completion. A claim that
is one unit (the default) gets exactly the verdict ``run_claim`` gives; a claim split into shards merges to:
counts and seconds summed, the floor summed, the tightest informative margin over the shards (ties, up to round-off: the
lowest shard), and the verdict and counterexample of the first shard, in shard order, with the strongest evidence
(error, then a counterexample found by the search, then a known counterexample replayed, then holds/open).
Same plan and seeds, same report, however the units were scheduled.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import statistics
import threading
from dataclasses import dataclass
from pathlib import Path

from threadpoolctl import threadpool_limits

import ovk_ref
from proofs_check import profiles, runner
from proofs_check.faults import FAULTS
from proofs_check.runner import Verdict, run_claim

#: A unit runs its BLAS calls on one thread: units already fill the cores, and OpenBLAS threads of two worker
#: processes busy-wait for each other (measured on the 2-core machine at load 5: verify ci took 73 s on 2 workers
#: with 2 BLAS threads each, against 56 s serially); one thread also keeps the summation order, hence the
#: margins, the same on machines with any number of cores.
#: A Hypothesis search is not thread-safe (global settings, mpmath's working precision, the garbage collector that
#: ``runner`` switches off during a search): units sharing a process (a Dask worker with several threads) take turns
_ONE_SEARCH_AT_A_TIME = threading.Lock()


@dataclass(frozen=True)
class Unit:
    """One search: claim x seed (run seed and shard) x instance budget."""

    claim: str
    profile: str
    seed: int | None           # the run seed (None: a random profile without --seed, not reproducible)
    shard: int = 0
    examples: int | None = None   # informative instances asked for (None: the profile's max_examples)
    version: str = ovk_ref.__version__   # the ovk the plan was made with; a worker with another one refuses
    #: a planted fault (proofs_check.faults) applied in the worker around the search, which then stops at its first
    #: violation (no shrinking: the sensitivity matrix needs the verdict only)
    fault: str | None = None

    @property
    def name(self) -> str:
        name = self.claim if self.shard == 0 else f"{self.claim}#{self.shard}"
        return name if self.fault is None else f"{name}@{self.fault}"


def plan(claim_ids, profile: str, seed: int | None, split: int | None = None) -> list[Unit]:
    """The profile's run: one unit per claim, with the claim's usual search seed (the serial run of
    ``runner.verify``); with ``split``, each claim's ``max_examples`` as units of at most ``split`` instances
    (shards 0, 1, ...), so that a cluster can spread one claim."""
    if split is None:
        return [Unit(claim_id, profile, seed) for claim_id in claim_ids]
    if isinstance(split, bool) or not isinstance(split, int) or split < 1:
        raise ValueError(f"--split must be a whole number of instances >= 1, got {split!r}")
    return [unit for claim_id in claim_ids for unit in shards(claim_id, profiles.PROFILES[profile]["max_examples"],
                                                                profile, seed, first=0, size=split)]


def shards(claim_id: str, examples: int, profile: str, seed: int | None, *, first: int, size: int) -> list[Unit]:
    """``examples`` instances of one claim as units of at most ``size``, shards ``first``, ``first + 1``, ..."""
    return [Unit(claim_id, profile, seed, shard, min(size, examples - start))
            for shard, start in enumerate(range(0, examples, size), first)]


def run_unit(unit: Unit, impl=ovk_ref) -> dict:
    """Run one unit; the fields of its ``Verdict`` as a plain dict. A worker whose ovk differs from the planner's
    would search other instances or check them differently: it raises instead of answering."""
    if unit.version != ovk_ref.__version__:
        raise RuntimeError(f"unit {unit.name} was planned with ovk {unit.version}, this worker has ovk "
                           f"{ovk_ref.__version__}: install the same version everywhere")
    with _ONE_SEARCH_AT_A_TIME, threadpool_limits(limits=1, user_api="blas"):
        if unit.fault is None:
            verdict = run_claim(unit.claim, unit.profile, impl, unit.seed, shard=unit.shard, examples=unit.examples)
        else:
            with FAULTS[unit.fault].applied():
                verdict = run_claim(unit.claim, unit.profile, impl, unit.seed, shard=unit.shard, examples=unit.examples,
                                    shrink=False)
    return dataclasses.asdict(verdict)


#: milliseconds per instance asked of each claim's search in a thorough run (``python -m tools.unit_costs REPORT.json``
#: writes it from a ``verify --json`` report): the order in which a pool receives the units, costliest first
#: (``expected_seconds``); the results never depend on it
UNIT_COSTS = Path(__file__).with_name("unit_costs.json")


@functools.lru_cache(maxsize=1)
def _milliseconds_per_instance() -> dict:
    return json.loads(UNIT_COSTS.read_text(encoding="utf-8"))


def expected_seconds(unit: Unit) -> float:
    """What ``unit`` is expected to cost, from ``UNIT_COSTS`` (a claim missing there: the median claim's cost)."""
    costs = _milliseconds_per_instance()
    per_instance = costs.get(unit.claim, statistics.median(costs.values()) if costs else 1.0)
    examples = unit.examples if unit.examples is not None else profiles.PROFILES[unit.profile]["max_examples"]
    return per_instance * examples / 1000


#: which shard's verdict a split claim reports: the strongest evidence first
def _evidence(verdict: Verdict) -> int:
    if verdict.verdict == "error":
        return 0
    if verdict.verdict == "false":
        return 2 if verdict.known else 1
    return 3


def _tightness(verdict: Verdict) -> tuple:
    """Sort key of a shard's worst margin: NaN (a violation that is not even a number) first, then the smallest."""
    return (0, 0.0) if math.isnan(verdict.worst_margin) else (1, verdict.worst_margin)


def _within_roundoff(margin: float, smallest: float) -> bool:
    """Whether a shard's worst margin equals the smallest as a report tells it (``runner.tighter``): the lowest such
    shard gives the tightest instance, whatever the last bits of the margins on this CPU."""
    return not runner.tighter(smallest, margin)


def merge_claim(parts: list[Verdict]) -> Verdict:
    """The verdict of one claim from its shards' verdicts, given in shard order."""
    if len(parts) == 1 or parts[0].verdict == "not applicable":
        return parts[0]
    chosen = min(parts, key=_evidence)          # min keeps the first of equals: the lowest shard
    smallest = min(parts, key=_tightness).worst_margin
    tightest = next(part for part in parts if _within_roundoff(part.worst_margin, smallest))
    return dataclasses.replace(
        chosen, instances=sum(part.instances for part in parts), informative=sum(part.informative for part in parts),
        floor=sum(part.floor for part in parts), rechecked=sum(part.rechecked for part in parts),
        seconds=sum(part.seconds for part in parts), worst_margin=tightest.worst_margin,
        worst_observed=tightest.worst_observed, worst_bound=tightest.worst_bound,
        worst_quantities=tightest.worst_quantities, worst_instance=tightest.worst_instance,
        worst_settled_margin=min(part.worst_settled_margin for part in parts),
        chain=chosen.chain if chosen.verdict == "false" else tightest.chain)


def merge(units: list[Unit], results: list[dict]) -> list[Verdict]:
    """One verdict per claim, in the order the plan first names each claim; ``results[i]`` is unit i's."""
    if len(units) != len(results):
        raise ValueError(f"results must hold one result per unit ({len(units)}), got {len(results)}")
    names = [unit.name for unit in units]
    if len(set(names)) != len(names):
        raise ValueError(f"units must be distinct searches, got {sorted(name for name in names if names.count(name) > 1)} twice")
    shards: dict[str, list] = {}
    for unit, result in sorted(zip(units, results), key=lambda pair: pair[0].shard):
        shards.setdefault(unit.claim, []).append(Verdict(**result))
    order = list(dict.fromkeys(unit.claim for unit in units))
    return [merge_claim(shards[claim_id]) for claim_id in order]
