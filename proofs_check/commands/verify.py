"""``ovk-check verify``: search every claim (or the chosen ones) for counterexamples and print the verdicts.

Exit 0 when every verdict equals the claim's expected verdict, 1 when one differs (a new finding or a
regression), 2 on usage errors.
"""
from __future__ import annotations

import sys
import time

from tqdm import tqdm

import ovk_ref
from ovk_ref import tolerances
from proofs_check import outputs, profiles, report
from proofs_check.claims import CLAIMS
from proofs_check.runner import run_claim


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
    parser.set_defaults(run=run)


def run(args) -> int:
    claim_ids = args.claim or list(CLAIMS)
    unknown = [claim_id for claim_id in claim_ids if claim_id not in CLAIMS]
    if unknown:
        raise ValueError(f"--claim must be a registered id (see `ovk-check claims`), got {', '.join(unknown)}")
    profile = args.profile or profiles.default_profile()
    start = time.perf_counter()
    verdicts, instances = [], 0
    with tqdm(total=len(claim_ids), file=sys.stderr, unit="claim", disable=None) as bar:
        def tick():
            nonlocal instances
            instances += 1
            if instances % 10 == 0:
                bar.set_postfix_str(f"{instances} instances")
        for claim_id in claim_ids:
            bar.set_description(claim_id)
            verdicts.append(run_claim(claim_id, profile, ovk_ref, args.seed, progress=tick))
            bar.update(1)
    seconds = time.perf_counter() - start
    print(report.table(verdicts, markdown=args.markdown))
    differing = [verdict.claim for verdict in verdicts if not verdict.as_expected]
    rechecked = sum(verdict.rechecked for verdict in verdicts)
    print(f"\n{len(verdicts)} claims, profile {profile}, seed {args.seed}, {seconds:.1f} s; {rechecked} near-zero margins "
          f"recomputed at {tolerances.RECHECK_DIGITS} digits; margins are relative (bound - observed)/scale.")
    print("every verdict as expected" if not differing else f"verdicts differing from the expected one: {', '.join(differing)}")
    if args.json:   # "-" (standard output) or a path, checked by the CLI before the run
        outputs.write_text(args.json, report.to_json(verdicts, profile=profile, seed=args.seed, seconds=seconds,
                                                     ovk_ref_version=ovk_ref.__version__, spec_version=ovk_ref.SPEC_VERSION))
    return 1 if differing else 0
