"""``ovk-check``: the project's command line (stdlib argparse).

Exit codes: 0 success, 1 a finding or a failed check, 2 a usage error.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: sub-command modules under proofs_check.commands, in the order ``--help`` lists them
COMMANDS = ("demo", "notebooks", "reproduce", "conform", "claims", "verify")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ovk-check", description=(
        "Check, trust and reuse the theory of online learning with operator-valued kernels "
        "(Audiffren & Kadri: ONORMA, MONORMA)."))
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"proofs_check.commands.{name}").register(subparsers)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except (ValueError, TypeError) as error:
        print(f"ovk-check {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
