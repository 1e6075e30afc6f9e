"""Run inside a copy of the repository to which the newcomer's four additions were appended (tests/meta/test_newcomer.py):
prints, as JSON, where the new kernel family and loss are seen."""
import json
import sys

import numpy as np

FAMILY, LOSS = "rational_quadratic_separable", "pseudo_huber"
KERNEL_FAULT, LOSS_FAULT = "rational_quadratic_bandwidth_squared", "pseudo_huber_gradient_unnormalised"


def searched(results):
    from proofs_check.runner import sample
    drawn = {claim_id: json.dumps(sample(claim_id, 60)) for claim_id in (
        "kernel.values", "kernel.kappa2", "def1.psd", "onorma.scalar_norma", "loss.values", "loss.convex",
        "loss.lipschitz", "onorma.closed_form")}
    results["searched"] = {claim_id: {"family": FAMILY in text, "loss": LOSS in text} for claim_id, text in drawn.items()}
    from proofs_check.claims.losses import _losses_of  # loss.values checks every loss at each instance
    results["searched"]["loss.values"]["loss"] = all(
        LOSS in [spec["type"] for spec, _ in _losses_of(instance)] for instance in sample("loss.values", 5))


def verdicts(results):
    from proofs_check import CLAIMS, FAULTS, run_claim
    claims = ("kernel.values", "kernel.kappa2", "def1.psd", "onorma.scalar_norma", "loss.values", "loss.convex",
              "loss.lipschitz", "loss.subgradient")
    results["verdicts"] = {claim_id: run_claim(claim_id, "ci").verdict for claim_id in claims}
    results["declared"] = {fault: [claim.id for claim in CLAIMS.values() if fault in claim.faults]
                           for fault in (KERNEL_FAULT, LOSS_FAULT)}
    results["caught"] = {}
    for fault, claim_id in ((KERNEL_FAULT, "kernel.values"), (LOSS_FAULT, "loss.values")):
        with FAULTS[fault].applied():
            results["caught"][fault] = run_claim(claim_id, "ci", shrink=False).verdict


def conformance(results):
    import jsonschema
    from referencing import Registry, Resource

    import ovk_fast
    from ovk_conform import fresh, run, vocabulary, wire
    from ovk_conform.scope import Scope
    from ovk_fast.kernel_rows import KernelRows
    declared = {"algorithms": {"onorma": {"kernels": [FAMILY], "losses": [LOSS]},
                               "monorma": {"kernels": [FAMILY], "losses": [LOSS]}, "batch_ridge": {"kernels": [FAMILY]}}}
    scope = Scope.parse(declared, "newcomer")
    drawn = fresh.draw_cases(0, 12, scope)
    results["fresh"] = sorted({json.dumps([kernel["type"] for kernel in case["arguments"].get("kernels", [])]
                                          or case["arguments"]["kernel"]["type"]) + " " + case["arguments"].get("loss", {}).get("type", "-")
                               for _, case in drawn})
    schemas = [json.loads((vocabulary.SCHEMAS / name).read_text()) for name in ("request.schema.json", "number.schema.json")]
    registry = Registry().with_resources([(schema["$id"], Resource.from_contents(schema)) for schema in schemas])
    validator = jsonschema.Draft202012Validator(schemas[0], registry=registry)
    cases = fresh.fresh_cases(0, 3, scope)
    results["schema_valid"] = all(validator.is_valid(json.loads(json.dumps(wire.request(case)))) for case in cases)
    implementation = {"onorma": ovk_fast.onorma, "monorma": ovk_fast.monorma, "batch_ridge": ovk_fast.batch_ridge,
                      "conformance_scope": declared}
    # ovk_fast offers every family and loss; this run certifies the new ones alone, so it narrows explicitly
    report = run(implementation, level="quick", fuzz=12, seed=0, allow_partial=True)
    results["conform"] = {"passed": report.passed, "counts": report.counts()}
    import ovk_ref
    kernel = ovk_ref.as_kernel({"type": FAMILY, "mu": 0.7, "B": [[1.0]]})
    X = np.random.default_rng(0).uniform(size=(4, 2))
    results["ovk_fast_form"] = "vectorised" if KernelRows(kernel, X, X).separable_form() is not None else "blocks"


def vocabulary_command(results):
    import contextlib
    import io

    from ovk_cli import cli
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["vocabulary"])
    results["vocabulary"] = [line.split()[0] for line in out.getvalue().splitlines() if line.startswith((FAMILY, LOSS))]


if __name__ == "__main__":
    results = {}
    for step in (searched, verdicts, conformance, vocabulary_command):
        step(results)
    json.dump(results, sys.stdout)
