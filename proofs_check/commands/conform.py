"""``ovk-check conform MODULE[:ATTR]`` / ``--command CMD``: certify an implementation (issue 4, item 3; issue 9)."""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from proofs_check import outputs
from proofs_check.conformance import fresh, run
from proofs_check.conformance.hosts import CommandHost, WorkerHost
from proofs_check.conformance.levels import LEVELS
from proofs_check.conformance.manifest import IntegrityError
from proofs_check.conformance.runner import judge
from proofs_check.conformance.tolerance import PRECISIONS
from proofs_check.conformance.vectors import ALGORITHMS
from proofs_check.parallel import check_workers, default_workers


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "conform", help="check an implementation of onorma/monorma/batch_ridge against the reference",
        description="Run the cases of a level (stored regimes and fresh cases drawn from --seed, computed by ovk_ref "
                    "on the spot) against an implementation running in its own process: a Python MODULE[:ATTR], or "
                    "any program through --command (docs/conformance.md). Prints a progress line per case on stderr "
                    "and, per failure, the first diverging round and field. Exit 0 when every case passes, 1 on any "
                    "failure or when the implementation offers nothing, 2 on a usage error or a tampered vector file.")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("implementation", metavar="MODULE[:ATTR]", nargs="?",
                        help="e.g. ovk_fast or mypackage.engines:numpy_engine")
    target.add_argument("--command", dest="command_line", metavar="CMD", help="a program called as CMD REQUEST.json RESULT.json per case")
    parser.add_argument("--level", choices=tuple(LEVELS), default="standard",
                        help="quick (seconds), standard (every regime; default) or exhaustive (nightly)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fresh cases (default: drawn and printed)")
    parser.add_argument("--fuzz", metavar="N", type=int, default=None,
                        help="number of fresh cases (default: the level's)")
    parser.add_argument("--algorithms", metavar="NAMES", default=",".join(ALGORITHMS),
                        help="comma-separated algorithms the implementation declares (default: all three)")
    parser.add_argument("--precision", choices=tuple(PRECISIONS), default="float64",
                        help="precision class of the implementation (tolerance model: docs/conformance.md)")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                        help="seconds a case may take before it fails (default 300)")
    parser.add_argument("--replay", metavar="FILE", type=Path, action="append", default=[],
                        help="run only the cases of this case file (e.g. a shrunk failure); repeatable")
    parser.add_argument("--shrunk-dir", metavar="DIR", type=Path, default=Path("."),
                        help="where shrunk failing fresh cases are written (default: the current directory)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="processes of the implementation the cases are spread over (default: the machine's cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE (- for standard output)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case and the rows of failures")
    parser.set_defaults(run=run_command)


def _seed(args) -> int:
    if args.seed is not None:
        return args.seed
    import secrets
    return secrets.randbelow(2**31)


def _algorithms(text: str) -> tuple:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = sorted(set(names) - set(ALGORITHMS))
    if unknown or not names:
        raise ValueError(f"--algorithms must name some of {', '.join(ALGORITHMS)}, got {text!r}")
    return names


def run_command(args) -> int:
    algorithms = _algorithms(args.algorithms)
    if args.fuzz is not None and args.fuzz < 0:
        raise ValueError(f"--fuzz must be >= 0, got {args.fuzz}")
    if args.timeout is not None and not args.timeout > 0:
        raise ValueError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    cases = [case for path in args.replay for case in fresh.read_case_file(path) if case.algorithm in algorithms] or None
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    seed = _seed(args)

    def new_host():
        return CommandHost(args.command_line, args.timeout) if args.command_line else WorkerHost(args.implementation, args.timeout)
    host = new_host()
    shrunk_files = []

    def shrink_fresh(case, outcome):
        if case.regime != fresh.FRESH_REGIME or args.replay:   # a replayed case is already as small as it gets
            return
        small = fresh.shrink(case, lambda candidate: judge(candidate, host.call(candidate), args.precision).status
                             == "fail", outcome)
        path = args.shrunk_dir / f"{small.id}.json"
        fresh.write_case_file(small, path)
        shrunk_files.append((case.name, len(small.X), path))

    print(f"ovk-check conform: level {args.level}, fresh-case seed {seed} (replay: --seed {seed}), "
          f"precision {args.precision}", file=sys.stderr, flush=True)
    with host, contextlib.ExitStack() as more:
        hosts = [more.enter_context(new_host()) for _ in range(workers - 1)]
        try:
            report = run(algorithms=algorithms, level=args.level, seed=seed, fuzz=args.fuzz, precision=args.precision,
                         host=host, hosts=hosts, cases=cases, progress=sys.stderr, on_failure=shrink_fresh)
        except IntegrityError as error:   # no verdict without trusted vectors; the JSON report still says why
            if args.json is not None:
                outputs.write_text(args.json, json.dumps({"passed": False, "error": str(error)}, indent=1) + "\n")
            raise
    text = report.text(verbose=args.verbose)
    for name, rounds, path in shrunk_files:
        text += f"\n{name} shrunk to {rounds} rounds: {path} (replay: --replay {path})"
    print(text)     # on standard error with --json - (proofs_check.cli)
    if args.json is not None:
        outputs.write_text(args.json, json.dumps(report.to_dict(), indent=1) + "\n")
        print(f"report written to {args.json}")
    return 0 if report.passed else 1
