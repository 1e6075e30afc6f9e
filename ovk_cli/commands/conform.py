"""``ovk-check conform MODULE[:ATTR]`` / ``--command CMD``: certify an implementation against the reference
(docs/conformance.md)."""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from ovk_cli import outputs
from ovk_cli.errors import UsageError, front_door
from ovk_cli.parallel import WorkerLost, check_workers, default_workers, executor
from ovk_conform import fresh, junit, limits, runner
from ovk_conform.expectations import Expectations
from ovk_conform.hosts import CommandHost, WorkerHost
from ovk_conform.levels import LEVELS
from ovk_conform.manifest import IntegrityError
from ovk_conform.runner import Interrupted, execute, prepare
from ovk_conform.scope import Scope, read_text
from ovk_conform.seal import Seal
from ovk_conform.tolerance import PRECISIONS
from ovk_conform.vectors import ALGORITHMS

#: seconds spent at most shrinking failing fresh cases, after the verdict
SHRINK_SECONDS = 30.0
#: exit codes of a run stopped by a signal (128 + the signal's number, as a shell reports it)
SIGNALS = {signal.SIGINT: ("interrupted (Ctrl-C)", 130), signal.SIGTERM: ("terminated (SIGTERM)", 143)}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "conform", help="check an implementation of onorma/monorma/batch_ridge against the reference",
        description="Run the cases of a level (stored regimes, and fresh cases drawn from --seed inside the scope the "
                    "implementation declares, computed by ovk_ref before the implementation is started) against an "
                    "implementation running in processes of its own: a Python MODULE[:ATTR], or any program through "
                    "--command (docs/conformance.md). Prints a progress line per case on stderr and, per failure, the "
                    "first diverging round and field. Exit 0 when every case in the declared scope passes (and the "
                    "scope covers --require, and every algorithm, kernel family, loss and truncation kind it offers "
                    "is in the declared scope unless --allow-partial or --require narrows it), 1 on any failure, 2 on "
                    "a usage error or a tampered oracle, 3 when a process computing the expected values died, 130 "
                    "after Ctrl-C and 143 after SIGTERM (the reports are written either way).")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("implementation", metavar="MODULE[:ATTR]", nargs="?",
                        help="e.g. ovk_fast or mypackage.engines:numpy_engine")
    target.add_argument("--command", dest="command_line", metavar="CMD", help="a program called as CMD REQUEST.json RESULT.json per case")
    target.add_argument("--self-check", metavar="N", nargs="?", type=int, const=0, default=None,
                        help="the oracle's own sensitivity: run the generated region-conditional faults (N of them "
                             "drawn from --seed; all without N) against the cases of every level up to --level and "
                             "print the catch matrix (fault region x level); exit 1 if a fault inside a level's reach "
                             "is missed")
    parser.add_argument("--level", choices=tuple(LEVELS), default="standard",
                        help="quick (seconds), standard (every regime; default) or exhaustive (nightly)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fresh cases (default: drawn and printed)")
    parser.add_argument("--fuzz", metavar="N", type=int, default=None,
                        help="number of fresh cases, none of them long (default: the level's)")
    parser.add_argument("--algorithms", metavar="NAMES", default=",".join(ALGORITHMS),
                        help="comma-separated algorithms to run (default: all three); narrows the declared scope")
    parser.add_argument("--scope", metavar="SCOPE",
                        help="the scope the implementation offers (a JSON object or file, or algorithm names), instead "
                             "of its own declaration (a command's describe answer, a module's conformance_scope)")
    parser.add_argument("--require", metavar="SCOPE",
                        help="fail unless the declared scope covers this one (a JSON object or file, or algorithm "
                             "names: onorma = every ONORMA case)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="accept a declared scope narrower than what the implementation offers (an algorithm, "
                             "kernel family, loss or truncation kind it answers but declares away): reported PARTIAL, "
                             "exit 0 if the rest passes (default: exit 1)")
    parser.add_argument("--precision", choices=tuple(PRECISIONS), default=None,
                        help="the precision class you certify (default float64, whatever the implementation declares; "
                             "float32: each case within an envelope measured on an honest float32 computation of it)")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                        help="seconds any case may take (default: a limit that grows with the case, from 10 s)")
    parser.add_argument("--deadline", metavar="SECONDS", type=float, default=None,
                        help="seconds the whole run may take; the cases left then fail as not run")
    parser.add_argument("--replay", metavar="FILE", type=Path, action="append", default=[],
                        help="run only the cases of this case file (e.g. a shrunk failure); repeatable")
    parser.add_argument("--expectations", metavar="FILE", type=Path,
                        help="known deviations: a JSON object case name (wildcards allowed) -> reason")
    parser.add_argument("--shrunk-dir", metavar="DIR", type=Path, default=None,
                        help="where shrunk failing fresh cases are written (default: beside the --json report, else "
                             "a new temporary folder; the report prints each path)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="processes of the implementation the cases are spread over, and of the oracle that "
                             "compute the expected values (default: the machine's cores; at least 2 while cases are "
                             "rerun)")
    parser.add_argument("--reruns", metavar="N|all", default=None,
                        help="cases run a second time in another process and compared (default: the level's: a "
                             "sample of 10 at quick, all at standard; 0: none)")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE (- for standard output)")
    parser.add_argument("--junit", metavar="FILE", help="also write the report as JUnit XML (one test case per case)")
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
        raise UsageError(f"--algorithms must name some of {', '.join(ALGORITHMS)}, got {text!r}")
    return names


def _reruns(text):
    """``--reruns``: "level" (None given), None for "all", or a count."""
    if text is None:
        return "level"
    if text == "all":
        return None
    if not text.isdigit():
        raise UsageError(f"--reruns must be a number of cases or 'all', got {text!r}")
    return int(text)


def _check(args) -> None:
    """Every option checked before any work (ValueError: exit 2)."""
    if args.fuzz is not None and args.fuzz < 0:
        raise UsageError(f"--fuzz must be >= 0, got {args.fuzz}")
    for option, value in (("--timeout", args.timeout), ("--deadline", args.deadline)):
        if value is not None and not value > 0:
            raise UsageError(f"{option} must be a positive number of seconds, got {value}")
    if args.junit is not None:
        outputs.check_file("--junit", args.junit)
    if args.command_line is not None:
        _check_command(args.command_line)
    if args.shrunk_dir is not None:
        outputs.check_folder("--shrunk-dir", args.shrunk_dir)


def _check_command(command: str) -> None:
    """``--command`` names a program that exists (UsageError otherwise: exit 2, not a failure of every case)."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise UsageError(f"--command must be a command line, got {command!r}: {error}") from None
    if not words:
        raise UsageError(f"--command must be a non-empty command line (PROGRAM ARGUMENTS...), got {command!r}")
    program = words[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        found = os.path.isfile(program) and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise UsageError(f"--command: the program {program!r} is not found (not an executable file, nor on PATH)")


class _Signals:
    """While the run lasts, SIGINT and SIGTERM raise ``Interrupted`` (so every process is ended and the reports
    are written) instead of killing the oracle and leaving the implementation's processes behind.

    The handler also notes the signal: an exception raised between two bytecodes can be dropped without a trace
    where C code clears errors (a dict lookup calling a key's ``__eq__``, say), where the unraisable hook that
    delivers it again (``interruption``) never sees it; ``check`` raises it again at the run's next step (seen
    in CI: a SIGTERM during the preparation, and the run went on to its end with exit 0)."""

    def __enter__(self):
        self.received = None

        def interrupt(number, frame):
            self.received = number
            raise Interrupted(*SIGNALS[number], signum=number)   # signum: delivered again if swallowed
        self.previous = {number: signal.signal(number, interrupt) for number in SIGNALS}
        return self

    def check(self) -> None:
        """Raise ``Interrupted`` for a signal that came and whose exception was dropped."""
        if self.received is not None:
            raise Interrupted(*SIGNALS[self.received], signum=self.received)

    def __exit__(self, *exc):
        for number, handler in self.previous.items():
            signal.signal(number, handler)


def _write_reports(args, content_json: str, report=None) -> None:
    if args.json is not None:
        outputs.write_text(args.json, content_json)
    if args.junit is not None and report is not None:
        outputs.write_text(args.junit, junit.xml(report))


def _inputs(args, algorithms) -> tuple:
    """``(scope text, required scope, expectations, replayed cases, reruns, workers)``, read and checked before
    any work (``UsageError``)."""
    with front_door():
        scope = None if args.scope is None else read_text(args.scope, "--scope")
        require = None if args.require is None else Scope.from_text(args.require, "--require")
        expectations = None if args.expectations is None else Expectations.read(args.expectations)
        cases = [case for path in args.replay for case in fresh.read_case_file(path)
                 if case.algorithm in algorithms] or None
    reruns = _reruns(args.reruns)
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    return scope, require, expectations, cases, reruns, workers if reruns == 0 else max(2, workers)


def _finish(args, report, shrunk) -> int:
    """The reports written, the text printed; the exit status."""
    _write_reports(args, json.dumps(report.to_dict(), indent=1) + "\n", report)
    if report.interruption is not None:
        print(f"ovk-check conform: {report.stopped} after {report.coverage.run} of {report.coverage.in_scope} cases"
              + ("; reports written" if args.json or args.junit else ""), file=sys.stderr)
        return report.interruption.exit_code
    text = report.text(verbose=args.verbose)
    for name, rounds, path in shrunk:
        text += f"\n{name} shrunk to {rounds} rounds: {path} (replay: --replay {path})"
    print(text)     # on standard error with --json - (ovk_cli.cli)
    if args.json is not None:
        print(f"report written to {args.json}")
    return 0 if report.passed else 1


def _self_check(args) -> int:
    """``--self-check``: the catch matrix of the generated faults (``ovk_conform.self_check``)."""
    from ovk_conform import self_check
    names = tuple(LEVELS)
    levels = names[:names.index(args.level) + 1]
    seed = 0 if args.seed is None else args.seed
    started = time.monotonic()
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
    with executor(workers, start="fork") as pool:
        result = self_check.run(levels, seed, args.self_check or None, pool, sys.stderr if args.verbose else None)
    print(f"self-check: {result['faults']} region-conditional faults (ovk_conform/self_check.py), seed {seed}, "
          f"levels {', '.join(levels)}, {time.monotonic() - started:.1f} s")
    print(result["text"])
    missed = [item.fault.name for item in result["catches"] if item.inside and item.caught_by is None]
    if args.json is not None:
        outputs.write_text(args.json, json.dumps({
            "faults": result["faults"], "levels": result["levels"], "seconds": result["seconds"],
            "matrix": result["matrix"], "missed_inside": missed,
            "catches": [{"fault": item.fault.name, "level": item.level, "caught_by": item.caught_by,
                         "inside": item.inside} for item in result["catches"]]}, indent=1) + "\n")
    return 1 if missed else 0


def run_command(args) -> int:
    if args.self_check is not None:
        return _self_check(args)
    started = time.monotonic()
    algorithms = _algorithms(args.algorithms)
    _check(args)
    scope, require, expectations, cases, reruns, workers = _inputs(args, algorithms)
    seed = _seed(args)
    deadline = None if args.deadline is None else started + args.deadline

    def new_host():
        if args.command_line:
            return CommandHost(args.command_line, scope, args.timeout)
        return WorkerHost(args.implementation, scope)

    report = None
    try:
        with _Signals() as signals, contextlib.ExitStack() as hosts:
            # printed once Ctrl-C is ours: from this line on an interruption writes the reports (JUnit included)
            print(f"ovk-check conform: level {args.level}, fresh-case seed {seed} (replay: --seed {seed})",
                  file=sys.stderr, flush=True)
            with front_door():   # the oracle's files, the implementation's loading and its declared scope
                try:
                    seal = Seal()
                    # the expected values, on copies of this process as the seal leaves it (the reference code
                    # in memory; the implementation is loaded in processes of its own); the pool ends with the
                    # preparation
                    with executor(workers, start="fork") as pool:
                        host = hosts.enter_context(new_host())
                        more = [hosts.enter_context(new_host()) for _ in range(workers - 1)]
                        try:
                            prepared = prepare(algorithms=algorithms, level=args.level, seed=seed, fuzz=args.fuzz,
                                               precision=args.precision, host=host, hosts=more, cases=cases,
                                               require=require, seal=seal, pool=pool,
                                               allow_partial=args.allow_partial)
                        except BrokenProcessPool:
                            raise WorkerLost("a process computing the expected values died (killed, or out of "
                                             "memory): no report; run again, or with --workers 1 --reruns 0 to "
                                             "compute them in this process") from None
                except IntegrityError as error:   # no verdict without a trusted oracle; the JSON report says why
                    _write_reports(args, json.dumps({"passed": False, "error": str(error)}, indent=1) + "\n")
                    raise
            signals.check()
            report = execute(prepared, progress=sys.stderr, reruns=reruns, timeout=args.timeout,
                             deadline=deadline, expectations=expectations, seal=seal)
            if not report.stopped:      # a report that stopped says so itself
                signals.check()
            shrunk = [] if report.stopped else _shrink(args, host, report, cases, deadline)
    except Exception as error:   # a failure of the oracle itself: the processes are ended, the reports say why
        if not isinstance(error, UsageError) or report is not None:
            _write_reports(args, json.dumps({"passed": False, "error": f"{type(error).__name__}: {error}"}, indent=1)
                           + "\n")
        raise
    except Interrupted as interruption:    # before the cases ran (or while shrinking): every process is ended
        if report is None:
            _write_reports(args, json.dumps({"passed": False, "stopped": interruption.reason}, indent=1) + "\n")
            if args.junit is not None:      # no cases yet: the JUnit file says the run was stopped
                outputs.write_text(args.junit, junit.stopped(args.command_line or args.implementation, args.level,
                                                             interruption.reason))
        else:
            _write_reports(args, json.dumps(report.to_dict(), indent=1) + "\n", report)
        print(f"ovk-check conform: {interruption.reason}", file=sys.stderr)
        return interruption.exit_code
    return _finish(args, report, shrunk)


def _shrunk_folder(args) -> Path:
    """Where shrunk cases go: ``--shrunk-dir``, else beside the ``--json`` report, else a new temporary folder (made
    once, at the first shrunk case): never, by default, the current directory (a checkout a user runs from)."""
    if args.shrunk_dir is None:
        args.shrunk_dir = (Path(args.json).parent if isinstance(args.json, str) and args.json != outputs.STDOUT
                           else Path(tempfile.mkdtemp(prefix="ovk-conform-shrunk-")))
    return args.shrunk_dir


def _shrink(args, host, report, cases, deadline) -> list:
    """Shrink each fresh case that failed by its values (not a timeout or a crash) and write it as a case file;
    at most SHRINK_SECONDS in all, never past the deadline."""
    if cases is not None:   # a replayed case is already as small as it gets
        return []
    stop = time.monotonic() + SHRINK_SECONDS if deadline is None else min(deadline, time.monotonic() + SHRINK_SECONDS)
    shrunk = []
    for outcome in report.outcomes:
        if outcome.status != "fail" or outcome.regime != fresh.FRESH_REGIME or outcome.diverging_field is None:
            continue
        if time.monotonic() >= stop:
            break
        case = report.case_named(outcome.name)

        def fails(candidate):
            result = host.call(candidate, limits.case_limit(candidate, args.timeout))
            return runner.judge(candidate, result, report.precision,
                                report.declared_precision).diverging_field is not None
        small = fresh.shrink(case, fails, outcome, stop)
        path = _shrunk_folder(args) / f"{small.id}.json"
        fresh.write_case_file(small, path)
        shrunk.append((outcome.name, len(small.X), path))
    return shrunk
