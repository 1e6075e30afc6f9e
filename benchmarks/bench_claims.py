"""Benchmark (not a test): what each claim's search costs, and where its time goes (the table of docs/distributed.md).

    .venv/bin/python benchmarks/bench_claims.py                          # verify --profile ci, every claim (~20 s)
    .venv/bin/python benchmarks/bench_claims.py --markdown               # the same as a Markdown table
    .venv/bin/python benchmarks/bench_claims.py --profile thorough --examples 200 --claim prop1.iii --claim kernel.values

Every claim's unit (``proofs_check.units``: the search ``verify`` runs, seed 0) runs in this process, one after
another in registry order, as ``verify --workers 1`` runs them. Rows are sorted by the unit's CPU seconds
(``share``: of the total CPU seconds). Per claim: the instances checked, the unit's seconds and their split, from
Hypothesis' own statistics of the search (``hypothesis.statistics``, the figures of
``pytest --hypothesis-show-statistics``):
* ``draw``: drawing instances from the claim's strategy (kappa^2 included), in every phase;
* ``check``: the claim's check of each instance (50-digit rechecks included), in every phase;
* ``engine``: Hypothesis' own work between test cases (choosing choice sequences, the target phase's hill
  climbing, the shrinker's bookkeeping);
* ``shrink``: the part of the three above spent shrinking a counterexample (claims found false);
* ``other``: the rest of the unit: the proof chain on the tightest instance or the counterexample, known
  counterexamples replayed, the garbage collections around the search.
The split is of wall time in one process; the machine may be shared, so the first lines give the date, the versions,
the load average and, per claim, the process's CPU seconds (``cpu s``) beside its wall seconds.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import math
import os
import sys
import time

from hypothesis.statistics import collector

from ovk_experiments import machine
from proofs_check import profiles, units
from proofs_check.claims import CLAIMS

COLUMNS = ("claim", "verdict", "instances", "seconds", "cpu s", "per instance ms", "share", "draw", "check", "engine",
           "shrink", "other")
SPLIT = COLUMNS[7:]


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def versions() -> str:
    return ", ".join(f"{name} {importlib.metadata.version(name)}" for name in ("ovk", "hypothesis", "mpmath", "sympy",
                                                                               "scipy"))


def split(statistics: dict) -> dict:
    """draw, check, engine and shrink seconds of one search from Hypothesis' statistics of it."""
    phases = [phase for key, phase in statistics.items() if key.endswith("-phase")]
    cases = [case for phase in phases for case in phase["test-cases"]]
    draw = math.fsum(case["drawtime"] for case in cases)
    check = math.fsum(case["runtime"] - case["drawtime"] for case in cases)
    search = math.fsum(phase["duration-seconds"] for phase in phases)
    shrink = statistics.get("shrink-phase", {}).get("duration-seconds", 0.0)
    return {"draw": draw, "check": check, "engine": max(search - draw - check, 0.0), "shrink": shrink, "search": search}


def measure(claim_id: str, profile: str, examples: int | None, seed: int) -> dict:
    """Run the claim's unit here; its verdict, counts, seconds and their split."""
    seen = []
    started, cpu_started = time.perf_counter(), time.process_time()
    with collector.with_value(seen.append):
        result = units.run_unit(units.Unit(claim_id, profile, seed, examples=examples))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    parts = split(seen[-1]) if seen else {"draw": 0.0, "check": 0.0, "engine": 0.0, "shrink": 0.0, "search": 0.0}
    return {"claim": claim_id, "verdict": result["verdict"], "instances": result["instances"], "seconds": seconds,
            "cpu": cpu, **parts, "other": max(seconds - parts["search"], 0.0)}


def rows_of(measured: list) -> list:
    total = math.fsum(row["seconds"] for row in measured) or 1.0
    cpu_total = math.fsum(row["cpu"] for row in measured) or 1.0
    rows = []
    for row in sorted(measured, key=lambda row: -row["cpu"]):
        per_instance = 1e3 * row["seconds"] / row["instances"] if row["instances"] else math.nan
        rows.append([row["claim"], row["verdict"], str(row["instances"]), f"{row['seconds']:.2f}", f"{row['cpu']:.2f}",
                     f"{per_instance:.1f}", f"{100 * row['cpu'] / cpu_total:.1f}%"]
                    + [f"{row[key]:.2f}" for key in SPLIT])
    sums = {key: math.fsum(row[key] for row in measured) for key in ("seconds", "cpu", *SPLIT)}
    rows.append(["total", "", str(sum(row["instances"] for row in measured)), f"{sums['seconds']:.2f}",
                 f"{sums['cpu']:.2f}", "", "100%"] + [f"{sums[key]:.2f} ({100 * sums[key] / total:.0f}%)" for key in SPLIT])
    return rows


def table(rows: list, markdown: bool) -> str:
    if markdown:
        return "\n".join(["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
                         + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(COLUMNS[i]), *(len(row[i]) for row in rows)) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(cell.ljust(width) if i < 2 else cell.rjust(width) for i, (cell, width) in
                               enumerate(zip(line, widths))) for line in [list(COLUMNS)] + rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(profiles.PROFILES), default="ci")
    parser.add_argument("--examples", type=int, default=None, help="informative instances per claim (default: the "
                        "profile's max_examples)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--claim", action="append", metavar="ID", help="a claim id (repeatable; default: every claim)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    claim_ids = args.claim or list(CLAIMS)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        parser.error(f"--claim must be a registered id, got {', '.join(unknown)}")
    before = load()
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: python benchmarks/bench_claims.py "
          f"{' '.join(sys.argv[1:])}\n{machine.describe()}\n{versions()}")
    started = time.perf_counter()
    measured = []
    for claim_id in claim_ids:
        measured.append(measure(claim_id, args.profile, args.examples, args.seed))
        print(f"{claim_id}: {measured[-1]['seconds']:.2f} s", file=sys.stderr, flush=True)
    examples = args.examples or profiles.PROFILES[args.profile]["max_examples"]
    print(f"{len(claim_ids)} claims, profile {args.profile}, {examples} examples each, seed {args.seed}, one process: "
          f"{time.perf_counter() - started:.1f} s; load average {before} before, {load()} after (1, 5, 15 min)\n")
    print(table(rows_of(measured), args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
