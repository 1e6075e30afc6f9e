"""The golden vectors on disk: one JSON file per algorithm under ``vectors/``, versioned by ``vectors/VERSION``.

Format (``"format": "ovk-vectors-1"``): inputs exactly, as ``float.hex`` strings; kernels and losses as
the portable dicts of ``ovk_ref`` (JSON numbers, exact for float64); expected values as decimal strings
(40 significant digits of a 50-digit ovk_ref run); per case the tolerance a float64 implementation must
meet and its reason. Truncation is ``{"type": "window", "s": s}`` or
``{"type": "theorem2", "t0": t0, "epsilon": epsilon}`` (passed to implementations as ``s`` or as the
callable ``ovk_ref.Theorem2Schedule``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import ovk_ref

VECTORS_DIR = Path(__file__).resolve().parent / "vectors"
VECTORS_VERSION = (VECTORS_DIR / "VERSION").read_text().strip()
FORMAT = "ovk-vectors-1"
ALGORITHMS = ("onorma", "monorma", "batch_ridge")

#: fields with one row per round t (row t-1), in the order divergences are reported
ROUND_FIELDS = {
    "onorma": ("predictions", "new_coefficients", "rkhs_norm2", "kernel_evaluations", "support_sizes"),
    "monorma": ("predictions", "weights", "gamma", "new_coefficients", "kernel_evaluations"),
    "batch_ridge": (),
}
#: fields describing the final state, one row per coefficient index i
FINAL_FIELDS = {"onorma": ("coefficients",), "monorma": ("coefficients",), "batch_ridge": ("coefficients",)}
#: what every implementation must return (the rest is checked when returned)
REQUIRED_FIELDS = {"onorma": ("predictions",), "monorma": ("predictions", "weights"), "batch_ridge": ("coefficients",)}
#: integer counts, compared exactly
EXACT_FIELDS = ("kernel_evaluations", "support_sizes")


def encode_floats(values) -> list:
    return np.vectorize(float.hex, otypes=[object])(np.asarray(values, dtype=float)).tolist()


def decode_floats(values) -> np.ndarray:
    return np.vectorize(float.fromhex, otypes=[float])(np.array(values, dtype=object))


def truncation_argument(spec):
    """The ``truncation`` argument for a stored truncation dict (None when absent)."""
    if spec is None:
        return None
    if spec["type"] == "window":
        return spec["s"]
    if spec["type"] == "theorem2":
        return ovk_ref.theorem2_schedule(spec["t0"], spec["epsilon"])
    raise ValueError(f"unknown truncation type {spec['type']!r} in a vector file")


@dataclass
class Case:
    """One golden vector, decoded: call ``algorithm(X, Y, **arguments)`` and compare with ``expected``."""

    algorithm: str
    id: str
    comment: str
    flags: list
    X: np.ndarray
    Y: np.ndarray
    arguments: dict
    expected: dict
    rtol: float
    tolerance_reason: str

    @property
    def name(self) -> str:
        return f"{self.algorithm}:{self.id}"

    def call_arguments(self) -> dict:
        """Keyword arguments for the implementation (truncation turned into ``s`` or a callable)."""
        arguments = dict(self.arguments)
        if "truncation" in arguments:
            arguments["truncation"] = truncation_argument(arguments["truncation"])
        return arguments


def vector_path(algorithm: str) -> Path:
    return VECTORS_DIR / f"{algorithm}.json"


def decode_case(algorithm: str, stored: dict) -> Case:
    expected = {}
    for name, values in stored["expected"].items():
        dtype = int if name in EXACT_FIELDS else float
        expected[name] = np.array(values, dtype=dtype) if dtype is int else np.array(values, dtype=object).astype(float)
    return Case(algorithm=algorithm, id=stored["id"], comment=stored["comment"], flags=stored["flags"],
                X=decode_floats(stored["inputs"]["X"]), Y=decode_floats(stored["inputs"]["Y"]),
                arguments=stored["arguments"], expected=expected, rtol=stored["tolerance"]["rtol"],
                tolerance_reason=stored["tolerance"]["reason"])


def load_cases(algorithms=ALGORITHMS) -> list[Case]:
    """Every stored case of the given algorithms, in file order."""
    cases = []
    for algorithm in algorithms:
        stored = json.loads(vector_path(algorithm).read_text())
        if stored["format"] != FORMAT:
            raise ValueError(f"{vector_path(algorithm)} has format {stored['format']!r}, this reader knows {FORMAT!r}")
        cases += [decode_case(algorithm, case) for case in stored["cases"]]
    return cases
