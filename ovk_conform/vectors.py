"""The golden vectors on disk, versioned by ``vectors/VERSION`` and checked against ``vectors/MANIFEST.json``.

Format ``ovk-vectors-3`` (JSON Schema ``schemas/vectors.schema.json``): one JSON file per algorithm for the quick
cases (``vectors/<algorithm>.json``, expected values as decimal strings: 40 significant digits of a 50-digit
ovk_ref run) and one gzip-compressed JSON file per regime (``vectors/regimes/<regime>.json.gz``, expected values
as ``float.hex`` strings of an ovk_ref float64 run). Inputs are exact (``float.hex``); kernels and losses are the
portable dicts of ``ovk_ref``. A case names its regime and its reference (``precision`` and ``reason``). Every
row of every field is stored, except for streams longer than ``regimes.ALL_ROUNDS_UP_TO``: their round fields
keep the 1-based ``rounds`` listed (``null``: every round) and ``checkpoints`` holds ovk_ref's state every
``checkpoints.CHECKPOINT_EVERY`` rounds, from which each run recomputes rows drawn from its seed. No tolerance is
stored: the policy is code (``ovk_conform.tolerance``). Truncation is a portable dict of ``ovk_ref.truncation``
(``{"type": "window", "s": s}``, ...; passed to Python implementations as ``protocol.truncation_argument`` says).
Replay files of format ``ovk-vectors-2`` are read too.
"""
from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ovk_conform.hexfloats import decode_floats, encode_floats
from ovk_conform.protocol import (  # noqa: F401  (the vector format uses the protocol's names)
    ALGORITHMS,
    REQUIRED_FIELDS,
    call_arguments,
    truncation_argument,
)
from ovk_ref.records import MonormaRecord, OnormaRecord

#: fields with one row per round t (row t-1), in the order divergences are reported: those of ovk_ref's records
ROUND_FIELDS = {"onorma": OnormaRecord.round_fields(), "monorma": MonormaRecord.round_fields(), "batch_ridge": ()}
#: fields of the final state, one row per coefficient index i (batch ridge returns its coefficients alone)
FINAL_FIELDS = {"onorma": OnormaRecord.final_fields(), "monorma": MonormaRecord.final_fields(),
                "batch_ridge": ("coefficients",)}
#: integer counts, compared exactly
EXACT_FIELDS = tuple(dict.fromkeys(OnormaRecord.exact_fields() + MonormaRecord.exact_fields()))

VECTORS_DIR = Path(__file__).resolve().parent / "vectors"
REGIMES_DIR = VECTORS_DIR / "regimes"
VECTORS_VERSION = (VECTORS_DIR / "VERSION").read_text().strip()
FORMAT = "ovk-vectors-3"
#: formats this reader knows (version 2: replay files written by earlier versions)
READABLE_FORMATS = ("ovk-vectors-2", FORMAT)


@dataclass
class Case:
    """One golden vector, decoded: call ``algorithm(X, Y, **arguments)`` and compare with ``expected``.

    ``rounds`` (1-based, ascending) are the rows stored in ``expected`` for the round fields (final fields are
    stored in full); None when every row is stored. ``checkpoints``: ovk_ref's states along a stream whose rows
    are not all stored (``checkpoints.py``). ``origin`` says where the case comes from (a vector file, a fresh
    seed, a replay file)."""

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
    checkpoints: list | None = None

    @property
    def name(self) -> str:
        return f"{self.algorithm}:{self.id}"

    @property
    def size(self) -> str:
        n, d = self.Y.shape
        m = len(self.arguments.get("kernels", ())) or 1
        return f"t={n} p={self.X.shape[1]} d={d}" + (f" m={m}" if self.algorithm == "monorma" else "")

    @functools.cached_property
    def encoded_inputs(self) -> dict:
        """``{"X": ..., "Y": ...}`` as float.hex (the stored form, and a request's ``inputs``), encoded once: a case
        is sent twice (the rerun) and the 140000-round stream's inputs take ~0.3 s to encode."""
        return {"X": encode_floats(self.X), "Y": encode_floats(self.Y)}

    def call_arguments(self) -> dict:
        """Keyword arguments for the implementation (truncation turned into ``s`` or a callable)."""
        return call_arguments(self.arguments, len(self.X))

    def to_dict(self) -> dict:
        """The stored form (``FORMAT``), expected values as float.hex: a replayable case file."""
        expected = {name: (values.tolist() if name in EXACT_FIELDS else encode_floats(values))
                    for name, values in self.expected.items()}
        return {"algorithm": self.algorithm, "id": self.id, "comment": self.comment, "flags": self.flags,
                "regime": self.regime, "reference": {"precision": self.reference},
                "rounds": None if self.rounds is None else self.rounds.tolist(),
                "inputs": self.encoded_inputs, "arguments": self.arguments, "expected": expected}


def vector_path(algorithm: str) -> Path:
    return VECTORS_DIR / f"{algorithm}.json"


def regime_path(regime: str) -> Path:
    return REGIMES_DIR / f"{regime}.json.gz"


def decode_case(algorithm: str, stored: dict, origin: str = "") -> Case:
    expected = {}
    for name, values in stored["expected"].items():
        expected[name] = np.array(values, dtype=int) if name in EXACT_FIELDS else decode_floats(values)
    rounds = stored.get("rounds")
    X = decode_floats(stored["inputs"]["X"])
    try:
        call_arguments(stored["arguments"], len(X))     # a malformed truncation is refused before any case runs
    except ValueError as error:
        raise ValueError(f"{origin}: case {stored['id']}: {error}") from None
    return Case(algorithm=stored.get("algorithm", algorithm), id=stored["id"], comment=stored["comment"],
                flags=stored["flags"], X=X, Y=decode_floats(stored["inputs"]["Y"]),
                arguments=stored["arguments"], expected=expected, regime=stored.get("regime", "basic"),
                rounds=None if rounds is None else np.array(rounds, dtype=int),
                reference=stored.get("reference", {}).get("precision", "mpmath-50"), origin=origin,
                checkpoints=stored.get("checkpoints"))


def read_vector_file(path: Path) -> dict:
    """The JSON content of a vector file (gzip-compressed when its name ends in ``.gz``)."""
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def cases_in(content: dict, origin: str) -> list[Case]:
    if content.get("format") not in READABLE_FORMATS:
        raise ValueError(f"{origin} has format {content.get('format')!r}, this reader knows {', '.join(READABLE_FORMATS)}")
    return [decode_case(content.get("algorithm", ""), case, origin) for case in content["cases"]]
