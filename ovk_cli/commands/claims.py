"""``ovk-check claims``: list the registry of checkable claims (id, expected verdict, reference, statement)."""
from __future__ import annotations

from proofs_check.claims import CLAIMS


def register(subparsers) -> None:
    parser = subparsers.add_parser("claims", help="list the paper's checkable claims (ids for `ovk-check verify --claim`)")
    parser.add_argument("--verbose", "-v", action="store_true", help="also print hypotheses and notes")
    parser.set_defaults(run=run)


def run(args) -> int:
    width = max(len(claim_id) for claim_id in CLAIMS)
    print(f"{'claim':{width}s}  {'expected':8s}  {'reference':40s}  statement")
    for claim in CLAIMS.values():
        print(f"{claim.id:{width}s}  {claim.expected:8s}  {claim.reference[:40]:40s}  {claim.statement}")
        if args.verbose:
            print(f"{'':{width}s}  hypotheses: {claim.hypotheses}")
            if claim.notes:
                print(f"{'':{width}s}  notes: {claim.notes}")
    print(f"{len(CLAIMS)} claims; run them with `ovk-check verify [--claim ID ...]`")
    return 0
