"""Benchmark (not a test): the suite's own wall times at 1, 2 and N workers.

    .venv/bin/python benchmarks/bench_suite.py                 # verify ci, a thorough slice, conform, the tests
    .venv/bin/python benchmarks/bench_suite.py --no-tests --thorough-claims ""   # verify ci and conform only

Each figure is one run of the command as a subprocess (wall clock), at 1 worker (the serial run), 2 and N (the
machine's cores; a level equal to another is run once), with the load average before it: the machine may be
shared, so the first line also says what speed-up the machine gives a trivially parallel loop right now. Ratios
are against the serial run of the same invocation; every parallel verify report is compared with
the serial one (verdicts, counts, margins, counterexamples: the column ``same``).

A full ``verify --profile thorough`` is about 15 minutes serially here, so by default only a slice of it is
measured: the claims of ``--thorough-claims`` (cheap and expensive ones) with ``--seed 0``, split into units of
250 instances (``--split``) so that the slice can use several workers; ``--thorough-claims all`` measures the whole
registry as a user runs it (one unit per claim).
The test command (``CI=true python -m pytest -q -x -p no:cacheprovider``) runs once: it has no worker option, and its
verify tests choose their own worker counts.
Targets: verify ci <= 30 s at 2 workers, thorough <= 10 min, 1 -> 2 workers >= 1.7x.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OVK_CHECK = [sys.executable, "-m", "ovk_cli"]
THOROUGH_CLAIMS = "loss.convex,loss.subgradient,rkhs.feature_norm,prop2.iii"


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def timed(arguments, env=None) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(arguments, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    return time.perf_counter() - started, done


def report(path: Path) -> list:
    return [{key: value for key, value in verdict.items() if key != "seconds"}
            for verdict in json.loads(path.read_text())["verdicts"]]


def spin(count: int) -> int:
    total = 0
    for number in range(count):
        total += number * number
    return total


def machine_parallelism(workers: int, count: int = 10_000_000) -> float:
    """The speed-up the machine gives right now to ``workers`` processes of a pure-Python loop against one process
    doing the same loops in turn: the ceiling of every ratio below on a shared machine."""
    started = time.perf_counter()
    for _ in range(workers):
        spin(count)
    serial = time.perf_counter() - started
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        list(pool.map(spin, [count] * workers))
    return serial / (time.perf_counter() - started)


def measure(name, levels, command, folder, compare=True) -> None:
    """``command(workers, json_path)`` at every level; one line each, with the ratio to the serial run."""
    serial = serial_report = None
    for workers in levels:
        path = folder / f"{name.replace(' ', '_')}-{workers}.json"
        before = load()
        seconds, done = timed(command(workers, path))
        same = "-"
        if compare and path.exists():
            current = report(path)
            serial_report = serial_report if serial_report is not None else current
            same = "yes" if current == serial_report else "NO"
        serial = serial or seconds
        print(f"{name:28s} {workers:7d} {seconds:9.1f} {serial / seconds:7.2f}x {same:>5s}  exit {done.returncode}  "
              f"load before {before}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default=None, help="comma-separated worker counts (default 1,2,cores)")
    parser.add_argument("--thorough-claims", default=THOROUGH_CLAIMS,
                        help=f"claims of the thorough slice (default {THOROUGH_CLAIMS}; all: the whole registry; "
                             "empty: none)")
    parser.add_argument("--conform-level", default="standard", help="level of the conform figures (default standard)")
    parser.add_argument("--no-tests", action="store_true", help="do not time the test command")
    args = parser.parse_args()
    levels = sorted({int(level) for level in args.levels.split(",")} if args.levels else {1, 2, cores()})
    if levels[0] != 1:
        levels = [1] + levels      # the ratios need the serial run
    print(f"{cores()} cores; load average {load()} (1, 5, 15 min); a pure-Python loop runs "
          + ", ".join(f"{machine_parallelism(workers):.2f}x faster on {workers} processes" for workers in levels[1:])
          + " than on 1 (the ceiling of the ratios below)")
    print(f"{'run':28s} {'workers':>7s} {'wall s':>9s} {'ratio':>8s} {'same':>5s}")
    with tempfile.TemporaryDirectory(prefix="ovk-bench-suite-") as folder:
        folder = Path(folder)
        measure("verify ci", levels, lambda workers, path: OVK_CHECK + [
            "verify", "--profile", "ci", "--workers", str(workers), "--json", str(path)], folder)
        claims = [claim for claim in args.thorough_claims.split(",") if claim]
        if claims == ["all"]:
            print("(thorough: the whole registry, seed 0, one unit per claim: `verify --profile thorough` as a user runs it)")
            measure("verify thorough", levels, lambda workers, path: OVK_CHECK + [
                "verify", "--profile", "thorough", "--seed", "0", "--workers", str(workers), "--json", str(path)], folder)
        elif claims:
            print(f"(thorough slice: {len(claims)} claims x 2000 instances, seed 0, --split 250; "
                  f"--thorough-claims all measures the whole registry)")
            options = [option for claim in claims for option in ("--claim", claim)]
            measure("verify thorough slice", levels, lambda workers, path: OVK_CHECK + [
                "verify", "--profile", "thorough", "--seed", "0", "--split", "250", "--workers", str(workers),
                "--json", str(path), *options], folder)
        measure(f"conform ovk_fast {args.conform_level}", levels, lambda workers, path: OVK_CHECK + [
            "conform", "ovk_fast", "--level", args.conform_level, "--seed", "0", "--workers", str(workers)],
            folder, compare=False)
    if not args.no_tests:
        before = load()
        seconds, done = timed([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"],
                              env={**os.environ, "CI": "true"})
        print(f"{'test command (CI=true)':28s} {'-':>7s} {seconds:9.1f} {'':8s} {'':5s}  exit {done.returncode}  "
              f"load before {before}; {done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
