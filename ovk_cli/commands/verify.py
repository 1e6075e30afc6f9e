"""``ovk-check verify``: search every claim (or the chosen ones) for counterexamples and print the verdicts.

The run is a list of units (``proofs_check.units``: one search per claim, plus the shards a ``--budget``
adds), run in this process (``--workers 1``), in local worker processes (``--workers N``, default: the
machine's cores) or on a Dask cluster (``--scheduler ADDRESS``), and merged in the plan's order: the same
report however they ran. Progress goes to stderr, one line per unit as it ends, with its instance counts.
Exit 0 when every verdict equals the claim's expected verdict and every holds/open verdict rests on enough
informative instances (``runner.INFORMATIVE_FLOOR``), 1 otherwise (a new finding, a regression, a search too
thin to count), 2 on usage errors, 3 when a local worker process died (``parallel.WorkerLost``), 4 when the JSON
cannot be written (the previous file stays whole), 130 or 143 when interrupted (SIGINT, SIGTERM): ``ovk_cli.cli``.
"""
from __future__ import annotations

import sys
import time

import ovk_ref
from ovk_cli import engine_records, outputs
from ovk_cli.errors import UsageError, front_door
from ovk_cli.parallel import check_workers, default_workers, map_ordered
from ovk_conform import versions
from proofs_check import budget, profiles, report, tolerances, units
from proofs_check.claims import CLAIMS
from proofs_check.runner import Verdict


def register(subparsers) -> None:
    parser = subparsers.add_parser("verify", help="search the paper's claims for counterexamples (Hypothesis) and print verdicts")
    parser.add_argument("--claim", action="append", metavar="ID", help="a claim id (repeatable; default: every claim; "
                        "see `ovk-check claims`)")
    parser.add_argument("--profile", choices=sorted(profiles.PROFILES), default=None,
                        help=f"Hypothesis profile (default: ${profiles.ENVIRONMENT_VARIABLE}, else ci when $CI is set, else dev)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the search (makes dev/thorough reproducible; "
                        "ci is derandomised unless a seed is given)")
    parser.add_argument("--json", metavar="FILE", help="also write the verdicts, counterexamples included, as JSON (- for standard output)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="local worker processes (default: the machine's cores; 1: in this process); with "
                             "--scheduler, the cluster's worker processes a time --budget may count on")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the units on the Dask cluster of this scheduler, e.g. tcp://10.0.0.1:8786 "
                             "(extra 'distributed'; docs/distributed.md)")
    parser.add_argument("--split", metavar="N", type=int, default=None,
                        help="search each claim as units of at most N instances (their own seeds), so that a cluster "
                             "spreads one claim (default: one unit per claim, the claim's usual search)")
    parser.add_argument("--budget", metavar="TIME|N", default=None,
                        help="after the profile's run, spread what is left of a wall time (90s, 10m, 1.5h) or of "
                             "N instances in all over the claims, more to the tightest margins")
    engine = parser.add_mutually_exclusive_group()
    engine.add_argument("--engine", metavar="MODULE[:ATTR]", help="search the trajectory claims on this engine's records "
                        "(onorma/monorma with ovk_ref's signatures) instead of ovk_ref's; a claim whose algorithm or record "
                        "fields the engine lacks is not applicable (docs/tutorial-your-variant.md)")
    engine.add_argument("--command", dest="command_line", metavar="CMD", help="the same for a program called as CMD "
                        "REQUEST.json RESULT.json per run (the ovk-conform-1 protocol, docs/conformance.md)")
    parser.add_argument("--scope", metavar="SCOPE", help="with --engine/--command: the cases the engine takes (as "
                        "conform's --scope); instances outside it are not sent")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                        help="with --engine/--command: seconds one run of the engine may take (default 60)")
    parser.add_argument("--junit", metavar="FILE", help="with --engine/--command: also write the verdicts as JUnit XML")
    parser.set_defaults(run=run)


class _UnitRunner:
    """Runs lists of units where the options say, printing one line per unit as it ends: ``[k/total] unit: verdict``."""

    def __init__(self, args, workers: int):
        self.args, self.workers = args, workers
        self.finished = self.total = 0

    def __call__(self, plan) -> list:
        self.total += len(plan)

        def done(index, result):
            self.finished += 1
            verdict = Verdict(**result)
            print(f"[{self.finished}/{self.total}] {plan[index].name}: {report.verdict_text(verdict)}"
                  f"{report.mark_text(verdict)} ({verdict.seconds:.1f} s)", file=sys.stderr, flush=True)
        return map_ordered(units.run_unit, plan, workers=self.workers, scheduler=self.args.scheduler, done=done,
                           cost=units.expected_seconds)


def _options(args) -> tuple:
    """``(claim ids, workers, budget or None, profile)``, every option checked before any work."""
    claim_ids = args.claim or list(CLAIMS)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        raise UsageError(f"--claim must be a registered id (see `ovk-check claims`), got {', '.join(unknown)}")
    with front_door():
        workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)
        hunt = None if args.budget is None else budget.parse(args.budget)
        return claim_ids, workers, hunt, args.profile or profiles.default_profile()


def _engine_options(args, hunt) -> bool:
    """Whether the run is on another engine (--engine/--command), its options checked (UsageError)."""
    if not (args.engine or args.command_line):
        if args.scope is not None or args.timeout is not None or args.junit is not None:
            raise UsageError("--scope, --timeout and --junit go with --engine or --command")
        return False
    with front_door():
        if hunt is not None or args.split is not None or args.scheduler is not None:
            raise UsageError("--engine/--command runs one search per claim locally: no --budget, --split or --scheduler")
        if args.junit is not None:
            outputs.check_file("--junit", args.junit)
    return True


def run(args) -> int:
    claim_ids, workers, hunt, profile = _options(args)
    if _engine_options(args, hunt):
        return engine_records.run_on_engine(args, claim_ids, workers, profile)
    start = time.perf_counter()
    with front_door():
        plan = units.plan(claim_ids, profile, args.seed, args.split)
    run_units = _UnitRunner(args, workers)
    results = run_units(plan)
    verdicts = units.merge(plan, results)
    if hunt is not None:
        extra = budget.shares(verdicts, hunt, elapsed=time.perf_counter() - start, workers=workers)
        shards = budget.extra_units(extra, plan)
        plan, results = plan + shards, results + run_units(shards)
        verdicts = units.merge(plan, results)
    seconds = time.perf_counter() - start
    seed = args.seed if args.seed is not None else (0 if profiles.PROFILES[profile].get("derandomize") else "random")
    _print_report(args, verdicts, plan, hunt, f"{len(verdicts)} claims, profile {profile}, seed {seed}, {seconds:.1f} s")
    if args.json:   # "-" (standard output) or a path, checked by the CLI before the run
        outputs.write_text(args.json, report.to_json(verdicts, profile=profile, seed=seed, seconds=seconds,
                                                     ovk_ref_version=ovk_ref.__version__, spec_version=ovk_ref.SPEC_VERSION,
                                                     versions=versions.record(),
                                                     **({} if hunt is None else {
                                                         "budget": str(hunt),
                                                         "received": report.received(plan, verdicts)})))
    return 0 if not any(not verdict.as_expected or not verdict.meets_floor for verdict in verdicts) else 1


def _print_report(args, verdicts, plan, hunt, run_line: str) -> None:
    """The table, the proof chains, the run's line and what differs from the expected."""
    print(report.table(verdicts, markdown=args.markdown))
    chains = report.chains_table(verdicts)
    if chains:
        print("\n" + chains)
    _print_counts(verdicts, run_line)
    if hunt is not None:
        print(f"\nbudget {hunt}: what each claim received (the profile's run, then shares weighted by "
              f"tightness of margin)\n" + report.received_table(plan, verdicts))
    differing = [verdict.claim for verdict in verdicts if not verdict.as_expected]
    thin = [verdict.claim for verdict in verdicts if verdict.as_expected and not verdict.meets_floor]
    if differing:
        print(f"verdicts differing from the expected one: {', '.join(differing)}")
    if thin:
        print(f"verdicts on fewer informative instances than the floor: {', '.join(thin)}")
    if not differing and not thin:
        print("every verdict as expected")


def _print_counts(verdicts, run_line: str) -> None:
    """The run's line (claims, profile, seed, time, recomputed margins) and the informative instances."""
    rechecked = sum(verdict.rechecked for verdict in verdicts)
    print(f"\n{run_line}; {rechecked} near-zero margins "
          f"recomputed at {tolerances.RECHECK_DIGITS} digits; margin = (bound - observed) / size of the bound, "
          f"at the tightest informative instance.")
    informative = sum(verdict.informative for verdict in verdicts if verdict.verdict in ("holds", "open", "proved"))
    drawn = sum(verdict.instances for verdict in verdicts if verdict.verdict in ("holds", "open", "proved"))
    floors = sorted({verdict.floor for verdict in verdicts}) or [0]
    print(f"holds/open verdicts rest on {informative} informative instances of {drawn} drawn (floor: "
          f"{floors[0] if len(floors) == 1 else f'{floors[0]} to {floors[-1]}'} per claim).")
    print(versions.line())
