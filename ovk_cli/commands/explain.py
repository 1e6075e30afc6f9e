"""``ovk-check explain CLAIM``: the claim's proof as a chain of steps, each with its margin on one instance.

The instance: ``--instance`` (a JSON object, or ``@FILE``); else, for a claim expected false, its first registered
known counterexample; else (or with ``--search``) the verdict of a search under ``--profile``: its counterexample, or
its tightest informative instance. Steps proved by sympy are proved on the spot (``proofs.symbolic``), steps the proof
uses in a form sympy refutes are refuted on the spot. Exit 0, or 1 when the chain fails on an instance of a claim
expected to hold (a step or the conclusion that fails where the claim should not), 2 on usage errors.
"""
from __future__ import annotations

import json

import ovk_ref
from ovk_cli import outputs
from ovk_cli.errors import UsageError, front_door
from ovk_ref import input_file
from proofs_check import profiles
from proofs_check.claims import CLAIMS
from proofs_check.proofs import chains, explain, second_opinion, symbolic
from proofs_check.report import shown_margin
from proofs_check.runner import run_claim


def register(subparsers) -> None:
    parser = subparsers.add_parser("explain", help="print a claim's proof as a chain of steps, each with its margin on one instance")
    parser.add_argument("claim", metavar="CLAIM", help="a claim id with a proof chain (see `ovk-check explain --list`)",
                        nargs="?")
    parser.add_argument("--list", action="store_true", help="list the claims that have a proof chain")
    parser.add_argument("--instance", metavar="JSON|@FILE", help="the instance (default: a known counterexample, else a search)")
    parser.add_argument("--search", action="store_true", help="search for the instance even when a known counterexample exists")
    parser.add_argument("--profile", choices=sorted(profiles.PROFILES), default="ci", help="profile of the search (default ci)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the search")
    parser.add_argument("--json", metavar="FILE", help="also write the chain as JSON (- for standard output)")
    parser.set_defaults(run=run)


def _instance(args) -> tuple:
    """``(instance, where it came from)``."""
    claim = CLAIMS[args.claim]
    if args.instance:
        try:
            text = (input_file.read_text(args.instance[1:], "--instance @FILE") if args.instance.startswith("@")
                    else args.instance)
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"--instance @FILE cannot be read: {error}") from None
        except ValueError as error:     # more than input_file.LIMIT_BYTES
            raise UsageError(str(error)) from None
        try:
            instance = json.loads(text)
        except json.JSONDecodeError as error:
            raise UsageError(f"--instance must be a JSON object or @FILE holding one: {error}") from None
        if not isinstance(instance, dict):
            raise UsageError(f"--instance must be a JSON object, got {type(instance).__name__}")
        return instance, "given"
    if claim.known_counterexamples and not args.search:
        return claim.known_counterexamples[0], "the first known counterexample"
    verdict = run_claim(args.claim, args.profile, ovk_ref, args.seed)
    if verdict.verdict == "false":
        return verdict.counterexample, f"the counterexample of a {args.profile} search"
    return verdict.worst_instance, f"the tightest informative instance of a {args.profile} search ({verdict.verdict})"


def _proof_text(step) -> str:
    if step.symbolic:
        proof = symbolic.PROOFS[step.symbolic]
        text = f"proved by sympy ({proof.method})" if symbolic.prove(proof) else "NOT proved by sympy"
        if second_opinion.available() and second_opinion.polynomial(proof):
            text += f"; z3: {second_opinion.decide(proof)[0]}"     # the second decision procedure (docs/proofs.md)
        return text
    if step.refuted:
        witness = symbolic.refute(symbolic.WRONG_VARIANTS[step.refuted])
        return f"refuted by sympy at {witness}" if witness is not None else "NOT refuted by sympy"
    return ""


def run(args) -> int:
    registry = chains()
    if args.list or args.claim is None:
        for claim_id, chain in registry.items():
            print(f"{claim_id:32s} {CLAIMS[claim_id].expected:6s} {len(chain.steps):2d} steps  {chain.proof}")
        return 0
    if args.claim not in registry:
        raise UsageError(f"CLAIM must be a claim with a proof chain ({', '.join(registry)}), got {args.claim!r}")
    chain, claim = registry[args.claim], CLAIMS[args.claim]
    instance, source = _instance(args)
    if instance is None:
        raise UsageError(f"the search of {args.claim} found no informative instance to explain the proof on")
    try:
        with front_door():   # the proof chain run on the instance is what checks the instance's values
            result = explain(args.claim, instance, ovk_ref)
    except KeyError as error:
        raise UsageError(f"--instance must be an instance of {args.claim} (as `ovk-check verify --json` writes them): "
                         f"it has no field {error}") from None
    print(f"{claim.id}: {claim.statement}\nproof: {chain.proof} ({chain.reference})\ninstance ({source}): "
          f"{json.dumps(instance, separators=(',', ':'))}\n")
    _print_steps(chain, result)
    if args.json:
        outputs.write_text(args.json, json.dumps({"claim": claim.id, "instance": instance, "source": source, **result.to_dict()},
                                                 indent=2, default=float))
    return 1 if result.first_failing and claim.expected != "false" else 0


def _print_steps(chain, result) -> None:
    """One line per step of the proof (status, margin, round, statement, why), then the first failing step."""
    width = max(len(step.name) for step in chain.steps)
    print(f"  #  {'step':{width}s}  {'status':8s}  {'margin':>10s}  {'round':>5s}  statement")
    for index, (step, entry) in enumerate(zip(chain.steps, result.steps), start=1):
        margin = "-" if entry.margin is None else shown_margin(entry.margin)
        round_ = "-" if entry.round is None else str(entry.round)
        print(f"{index:3d}  {step.name:{width}s}  {entry.status:8s}  {margin:>10s}  {round_:>5s}  {step.statement}")
        print(f"     {'':{width}s}  because: {step.because}" + (f"; {_proof_text(step)}" if _proof_text(step) else ""))
    if result.first_failing:
        print(f"\nfirst failing step: {result.first_failing} (round {result.first_failing_round})")
    else:
        print(f"\nevery step holds; tightest: {result.tightest}")
