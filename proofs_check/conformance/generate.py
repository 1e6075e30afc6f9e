"""Regenerate the golden vectors from ``cases.py`` with ovk_ref at 50 digits (issue 4, item 1).

    python -m proofs_check.conformance.generate            # rewrite vectors/*.json
    python -m proofs_check.conformance.generate --check    # exit 1 if the stored files differ

After a change to any case, bump ``vectors/VERSION`` and add a line to ``vectors/CHANGELOG.md``.
"""
from __future__ import annotations

import argparse
import json
import sys

import mpmath
import numpy as np

import ovk_ref
from ovk_ref import tolerances
from proofs_check.conformance import cases as case_definitions
from proofs_check.conformance.vectors import (
    ALGORITHMS, EXACT_FIELDS, FORMAT, VECTORS_VERSION, encode_floats, truncation_argument, vector_path,
)

#: digits of the reference run and digits stored (the run's last digits carry its own round-off)
DIGITS, STORED_DIGITS = 50, 40

TOLERANCE = {
    "rtol": tolerances.CONFORMANCE_RTOL,
    "constant": "ovk_ref.tolerances.CONFORMANCE_RTOL",
    "reason": "float64 against a 50-digit reference, per field, relative to the field's scale max|expected| "
              "(exactly 0 when the field is all zeros); integer fields exactly. Round-off of a float64 run of "
              "this case is about 1e-14; every algorithmic error the suite targets is above 1e-3.",
}

HEADER = {
    "onorma": "ONORMA, Algorithm 1 of Audiffren & Kadri as restated in docs/paper-spec.md section 5",
    "monorma": "MONORMA, Algorithm 2, spec section 6 (all_zero='keep': delta kept when every w_j = 0, E22)",
    "batch_ridge": "batch regularised least squares, spec section 7.1: c = (G + t lam I)^{-1} vec(Y)",
}


def _decimal(value) -> str:
    return mpmath.nstr(value, STORED_DIGITS)


def _expected(algorithm: str, case: dict) -> dict:
    arguments = dict(case["arguments"])
    if "truncation" in arguments:
        arguments["truncation"] = truncation_argument(arguments["truncation"])
    run = getattr(ovk_ref, algorithm)
    with mpmath.workdps(DIGITS):
        result = run(case["X"], case["Y"], precision=DIGITS, **arguments)
        fields = {"coefficients": result} if algorithm == "batch_ridge" else result.to_dict()
        return {name: (np.asarray(values).tolist() if name in EXACT_FIELDS
                       else np.vectorize(_decimal, otypes=[object])(values).tolist())
                for name, values in fields.items()}


def _check_conditioning(case: dict) -> None:
    kernel = ovk_ref.as_kernel(case["arguments"]["kernel"])
    t = len(case["X"])
    system = kernel.gram(case["X"]) + t * case["arguments"]["lam"] * np.eye(t * kernel.d)
    condition = np.linalg.cond(system)
    if condition > tolerances.BATCH_CONDITION_LIMIT:
        raise ValueError(f"batch case {case['id']!r}: condition number {condition:.3g} exceeds BATCH_CONDITION_LIMIT")


def vector_file(algorithm: str) -> dict:
    """The content of ``vectors/<algorithm>.json``, computed afresh."""
    stored = []
    for case in case_definitions.CASES[algorithm]():
        if algorithm == "batch_ridge":
            _check_conditioning(case)
        stored.append({"id": case["id"], "comment": case["comment"], "flags": case["flags"],
                       "inputs": {"X": encode_floats(case["X"]), "Y": encode_floats(case["Y"])},
                       "arguments": case["arguments"], "tolerance": TOLERANCE,
                       "expected": _expected(algorithm, case)})
    return {"format": FORMAT, "algorithm": algorithm, "vectorsVersion": VECTORS_VERSION,
            "specVersion": ovk_ref.SPEC_VERSION, "header": HEADER[algorithm],
            "generator": "python -m proofs_check.conformance.generate", "referenceDigits": DIGITS,
            "numberOfCases": len(stored), "cases": stored}


def _render(value, indent: str) -> str:
    """JSON with one line per list of numbers or strings (matrix rows stay readable)."""
    inner = indent + " "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(key)}: {_render(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and value and any(isinstance(item, (list, dict)) for item in value):
        return "[\n" + ",\n".join(inner + _render(item, inner) for item in value) + "\n" + indent + "]"
    return json.dumps(value)


def render(content: dict) -> str:
    return _render(content, "") + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proofs_check.conformance.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files instead of writing")
    args = parser.parse_args(argv)
    differing = []
    for algorithm in ALGORITHMS:
        text = render(vector_file(algorithm))
        path = vector_path(algorithm)
        if args.check:
            if not path.exists() or path.read_text() != text:
                differing.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path} ({len(text)} bytes)")
    if differing:
        print(f"stored vectors differ from a fresh generation: {', '.join(differing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
