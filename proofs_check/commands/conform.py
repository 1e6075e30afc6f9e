"""``ovk-check conform MODULE[:ATTR]``: run the golden vectors against an implementation (issue 4, item 3)."""
from __future__ import annotations

import json
import os
import sys

from proofs_check import outputs
from proofs_check.conformance import load_implementation, run


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "conform", help="check an implementation of onorma/monorma/batch_ridge against the golden vectors",
        description="Import MODULE (or MODULE:ATTR), run every golden vector of the algorithms it offers and print, "
                    "per case, the maximum absolute and relative error and the first diverging round and field. "
                    "Exit 1 on any failure or when the implementation offers none of onorma, monorma, batch_ridge.")
    parser.add_argument("implementation", metavar="MODULE[:ATTR]", help="e.g. ovk_fast or mypackage.engines:numpy_engine")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE (- for standard output)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the expected and returned rows of failures")
    parser.set_defaults(run=run_command)


def run_command(args) -> int:
    if os.getcwd() not in sys.path:   # as ``python -m``: a module in the current directory can be checked
        sys.path.insert(0, os.getcwd())
    report = run(load_implementation(args.implementation))
    print(report.text(verbose=args.verbose))
    if args.json is not None:
        outputs.write_text(args.json, json.dumps(report.to_dict(), indent=1) + "\n")   # "-": standard output
        print(f"report written to {args.json}")
    return 0 if report.passed else 1
