"""The golden vectors on disk, versioned by ``vectors/VERSION`` and checked against ``vectors/MANIFEST.json``.

Format ``ovk-vectors-2``: one JSON file per algorithm for the quick cases (``vectors/<algorithm>.json``,
expected values as decimal strings: 40 significant digits of a 50-digit ovk_ref run) and one gzip-compressed
JSON file per regime (``vectors/regimes/<regime>.json.gz``, expected values as ``float.hex`` strings of an
ovk_ref float64 run, for the stored rounds only). Inputs are exact (``float.hex``); kernels and losses are the
portable dicts of ``ovk_ref``. A case names its regime, its reference (``precision`` and ``reason``) and, for
long streams, the 1-based ``rounds`` whose rows are stored (``null``: every round). No tolerance is stored:
the policy is code (``proofs_check.conformance.tolerance``). Truncation is ``{"type": "window", "s": s}`` or
``{"type": "theorem2", "t0": t0, "epsilon": epsilon}`` (passed to Python implementations as ``s`` or as the
callable ``ovk_ref.Theorem2Schedule``).
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import ovk_ref

VECTORS_DIR = Path(__file__).resolve().parent / "vectors"
REGIMES_DIR = VECTORS_DIR / "regimes"
VECTORS_VERSION = (VECTORS_DIR / "VERSION").read_text().strip()
FORMAT = "ovk-vectors-2"
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


def decode_number(value) -> float:
    """A JSON number, a ``float.hex`` string (``0x1.8p+1``, ``-0x...``, ``inf``, ``nan``) or a decimal string."""
    if isinstance(value, str) and ("0x" in value[:3] or value.lstrip("+-") in ("inf", "nan")):
        return float.fromhex(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"expected a number or a float.hex string, got {value!r}")
    return float(value)


def decode_floats(values) -> np.ndarray:
    return np.vectorize(decode_number, otypes=[float])(np.array(values, dtype=object))


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
    """One golden vector, decoded: call ``algorithm(X, Y, **arguments)`` and compare with ``expected``.

    ``rounds`` (1-based, ascending) are the rows stored in ``expected`` for round and final fields; None when
    every row is stored. ``origin`` says where the case comes from (a vector file, a fresh seed, a replay file)."""

    algorithm: str
    id: str
    comment: str
    flags: list
    X: np.ndarray
    Y: np.ndarray
    arguments: dict
    expected: dict
    regime: str = "basic"
    rounds: np.ndarray | None = None
    reference: str = "mpmath-50"
    origin: str = ""

    @property
    def name(self) -> str:
        return f"{self.algorithm}:{self.id}"

    @property
    def size(self) -> str:
        n, d = self.Y.shape
        m = len(self.arguments.get("kernels", ())) or 1
        return f"t={n} p={self.X.shape[1]} d={d}" + (f" m={m}" if self.algorithm == "monorma" else "")

    def call_arguments(self) -> dict:
        """Keyword arguments for the implementation (truncation turned into ``s`` or a callable)."""
        arguments = dict(self.arguments)
        if "truncation" in arguments:
            arguments["truncation"] = truncation_argument(arguments["truncation"])
        return arguments

    def to_dict(self) -> dict:
        """The stored form (``ovk-vectors-2``), expected values as float.hex: a replayable case file."""
        expected = {name: (values.tolist() if name in EXACT_FIELDS else encode_floats(values))
                    for name, values in self.expected.items()}
        return {"algorithm": self.algorithm, "id": self.id, "comment": self.comment, "flags": self.flags,
                "regime": self.regime, "reference": {"precision": self.reference},
                "rounds": None if self.rounds is None else self.rounds.tolist(),
                "inputs": {"X": encode_floats(self.X), "Y": encode_floats(self.Y)},
                "arguments": self.arguments, "expected": expected}


def vector_path(algorithm: str) -> Path:
    return VECTORS_DIR / f"{algorithm}.json"


def regime_path(regime: str) -> Path:
    return REGIMES_DIR / f"{regime}.json.gz"


def decode_case(algorithm: str, stored: dict, origin: str = "") -> Case:
    expected = {}
    for name, values in stored["expected"].items():
        expected[name] = np.array(values, dtype=int) if name in EXACT_FIELDS else decode_floats(values)
    rounds = stored.get("rounds")
    return Case(algorithm=stored.get("algorithm", algorithm), id=stored["id"], comment=stored["comment"],
                flags=stored["flags"], X=decode_floats(stored["inputs"]["X"]), Y=decode_floats(stored["inputs"]["Y"]),
                arguments=stored["arguments"], expected=expected, regime=stored.get("regime", "basic"),
                rounds=None if rounds is None else np.array(rounds, dtype=int),
                reference=stored.get("reference", {}).get("precision", "mpmath-50"), origin=origin)


def read_vector_file(path: Path) -> dict:
    """The JSON content of a vector file (gzip-compressed when its name ends in ``.gz``)."""
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def cases_in(content: dict, origin: str) -> list[Case]:
    if content.get("format") != FORMAT:
        raise ValueError(f"{origin} has format {content.get('format')!r}, this reader knows {FORMAT!r}")
    return [decode_case(content.get("algorithm", ""), case, origin) for case in content["cases"]]


def load_cases(algorithms=ALGORITHMS, regimes=(), basic: bool = True) -> list[Case]:
    """The stored basic cases of ``algorithms`` (unless ``basic`` is False) and every case of ``regimes`` of those
    algorithms, in file order, after checking each file against the manifest (``manifest.verify``: a tampered
    file is an IntegrityError)."""
    from proofs_check.conformance import manifest

    paths = ([vector_path(algorithm) for algorithm in algorithms] if basic else []) + [
        regime_path(regime) for regime in regimes]
    cases = []
    for path in paths:
        cases += [case for case in cases_in(manifest.verify(path), path.name) if case.algorithm in algorithms]
    return cases
