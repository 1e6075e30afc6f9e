"""``ovk-check verify``: search every claim (or the chosen ones) for counterexamples and print the verdicts.

Progress goes to stderr, one line per claim with its instance counts (and, on a terminal, a running count).
Exit 0 when every verdict equals the claim's expected verdict and every holds/open verdict rests on enough
informative instances (``runner.INFORMATIVE_FLOOR``), 1 otherwise (a new finding, a regression, a search too
thin to count), 2 on usage errors.
"""
from __future__ import annotations

import sys
import time

import ovk_ref
from ovk_ref import tolerances
from proofs_check import outputs, profiles, report
from proofs_check.claims import CLAIMS
from proofs_check.runner import run_claim

#: on a terminal, the running line of a claim is refreshed every this many instances
PROGRESS_EVERY = 5


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
    verdicts = []
    live = sys.stderr.isatty()
    for number, claim_id in enumerate(claim_ids, 1):
        prefix = f"[{number}/{len(claim_ids)}] {claim_id}"

        def tick(verdict, prefix=prefix):
            if live and verdict.instances % PROGRESS_EVERY == 0:
                print(f"\r{prefix}: {verdict.instances} drawn, {verdict.informative} informative", end="", file=sys.stderr, flush=True)
        verdict = run_claim(claim_id, profile, ovk_ref, args.seed, progress=tick)
        verdicts.append(verdict)
        print(f"{chr(13) if live else ''}{prefix}: {report.verdict_text(verdict)}{report.mark_text(verdict)} "
              f"({verdict.seconds:.1f} s)", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    print(report.table(verdicts, markdown=args.markdown))
    differing = [verdict.claim for verdict in verdicts if not verdict.as_expected]
    thin = [verdict.claim for verdict in verdicts if verdict.as_expected and not verdict.meets_floor]
    rechecked = sum(verdict.rechecked for verdict in verdicts)
    seed = args.seed if args.seed is not None else (0 if profiles.PROFILES[profile].get("derandomize") else "random")
    print(f"\n{len(verdicts)} claims, profile {profile}, seed {seed}, {seconds:.1f} s; {rechecked} near-zero margins "
          f"recomputed at {tolerances.RECHECK_DIGITS} digits; margin = (bound - observed) / size of the bound, "
          f"at the tightest informative instance.")
    informative = sum(verdict.informative for verdict in verdicts if verdict.verdict in ("holds", "open"))
    drawn = sum(verdict.instances for verdict in verdicts if verdict.verdict in ("holds", "open"))
    print(f"holds/open verdicts rest on {informative} informative instances of {drawn} drawn (floor: "
          f"{verdicts[0].floor if verdicts else 0} per claim).")
    if differing:
        print(f"verdicts differing from the expected one: {', '.join(differing)}")
    if thin:
        print(f"verdicts on fewer informative instances than the floor: {', '.join(thin)}")
    if not differing and not thin:
        print("every verdict as expected")
    if args.json:   # "-" (standard output) or a path, checked by the CLI before the run
        outputs.write_text(args.json, report.to_json(verdicts, profile=profile, seed=seed, seconds=seconds,
                                                     ovk_ref_version=ovk_ref.__version__, spec_version=ovk_ref.SPEC_VERSION))
    return 1 if differing or thin else 0
