"""``ovk-check sensitivity``: every claim searched under every planted fault in its scope; the claims x faults matrix.

Would ``verify`` have said "false" had the algorithm, a kernel or a loss been wrong? ``proofs_check.sensitivity``
says how a run is made (a reference run that records each claim's scope, then one search per claim and fault in
its scope, the fault planted in the worker process) and how to read the matrix. Exit 0 when every fault turned at
least one claim false, 1 otherwise, 2 on usage errors, 3 when a local worker process died.
"""
from __future__ import annotations

import sys

import ovk_ref
from ovk_cli import outputs
from ovk_cli.errors import UsageError
from ovk_cli.parallel import check_workers, default_workers, map_ordered
from ovk_conform import versions
from proofs_check import profiles, sensitivity
from proofs_check.claims import CLAIMS
from proofs_check.faults import FAULTS


def register(subparsers) -> None:
    parser = subparsers.add_parser("sensitivity", help="search every claim under every planted fault in its scope and "
                                   "print the claims x faults matrix")
    parser.add_argument("--claim", action="append", metavar="ID", help="a claim id (repeatable; default: every claim)")
    parser.add_argument("--fault", action="append", metavar="NAME",
                        help="a planted fault (repeatable; default: every one of proofs_check.faults.FAULTS)")
    parser.add_argument("--profile", choices=sorted(profiles.PROFILES), default="ci", help="Hypothesis profile (default: ci)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the searches (ci is derandomised unless given one)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="local worker processes (default: the machine's cores; 1: in this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None, help="run the searches on this Dask cluster")
    parser.add_argument("--markdown", action="store_true", help="print the matrix and its legend as Markdown")
    parser.add_argument("--json", metavar="FILE", help="also write the matrix as JSON (- for standard output)")
    parser.set_defaults(run=run)


def run(args) -> int:
    claim_ids = args.claim or list(CLAIMS)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        raise UsageError(f"--claim must be a registered id (see `ovk-check claims`), got {', '.join(unknown)}")
    fault_names = args.fault or list(FAULTS)
    unknown = [name for name in fault_names if name not in FAULTS]
    if unknown:
        raise UsageError(f"--fault must name a planted fault ({', '.join(FAULTS)}), got {', '.join(unknown)}")
    workers = default_workers() if args.workers is None else check_workers("--workers", args.workers)

    def run_units(function, units):
        def done(index, result):
            print(f"  {units[index].name}: {result['verdict']} ({result['seconds']:.1f} s)", file=sys.stderr, flush=True)
        print(f"{len(units)} searches on {workers} worker(s)", file=sys.stderr, flush=True)
        return map_ordered(function, units, workers=workers, scheduler=args.scheduler, done=done)

    matrix = sensitivity.run(claim_ids, fault_names, args.profile, args.seed, run_units=run_units)
    print(sensitivity.table(matrix, markdown=args.markdown))
    print()
    print(sensitivity.legend(matrix, markdown=args.markdown))
    print()
    print(sensitivity.summary(matrix))
    print(versions.line())
    if args.json:
        outputs.write_text(args.json, sensitivity.to_json(matrix, seed=args.seed, workers=workers,
                                                          ovk_ref_version=ovk_ref.__version__,
                                                          versions=versions.record()))
    return 1 if matrix.undetected() else 0
