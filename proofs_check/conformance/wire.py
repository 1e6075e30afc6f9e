"""The language-neutral case and result files (issue 9, item 5): protocol ``ovk-conform-1``.

Request (JSON, written by the oracle)::

    {"protocol": "ovk-conform-1", "algorithm": "onorma" | "monorma" | "batch_ridge", "case": "<id>",
     "inputs": {"X": [[hex, ...], ...], "Y": [[hex, ...], ...]},      # float.hex strings, row t-1 = round t
     "arguments": {"kernel" | "kernels": <portable dict(s)>, "loss": {...}, "lam": x, "eta": x, "r": x,
                   "truncation": {"type": "window", "s": s} | {"type": "theorem2", "t0": t0, "epsilon": e}}}

Result (JSON, written by the implementation), one of::

    {"fields": {"predictions": [[number or hex, ...], ...], "weights": ..., ...}}
    {"error": "message"}            # the implementation failed on this case (a failure)
    {"unsupported": "reason"}       # the implementation does not offer this algorithm or argument (a skip)

Numbers are JSON numbers or ``float.hex`` strings (``"0x1.8p+1"``, ``"inf"``, ``"-inf"``, ``"nan"``); a complex
field may be sent as ``{"real": [...], "imag": [...]}`` (and fails). Field names and shapes are ovk_ref's records
(``docs/conformance.md``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proofs_check.conformance.vectors import EXACT_FIELDS, decode_floats, encode_floats

PROTOCOL = "ovk-conform-1"


@dataclass
class CallResult:
    """What one call of an implementation gave: its fields, or why it gave none; inputs it modified."""

    fields: dict = field(default_factory=dict)
    error: str | None = None
    unsupported: str | None = None
    mutated: list = field(default_factory=list)
    seconds: float = 0.0


def request(case) -> dict:
    return {"protocol": PROTOCOL, "algorithm": case.algorithm, "case": case.id,
            "inputs": {"X": encode_floats(case.X), "Y": encode_floats(case.Y)}, "arguments": case.arguments}


def encode_field(values):
    """A returned field as JSON: float.hex strings, ints for counts, ``{"real", "imag"}`` for complex arrays."""
    array = np.asarray(values)
    if np.iscomplexobj(array):
        return {"real": encode_floats(array.real), "imag": encode_floats(array.imag)}
    if array.dtype.kind in "iub":
        return array.tolist()
    return encode_floats(array)


def decode_field(name: str, value):
    if isinstance(value, dict) and value.keys() == {"real", "imag"}:
        return decode_floats(value["real"]) + 1j * decode_floats(value["imag"])
    if name in EXACT_FIELDS and all(isinstance(item, int) for item in np.ravel(np.array(value, dtype=object))):
        return np.array(value, dtype=int)
    return decode_floats(value)


def read_result(path: Path) -> CallResult:
    """Decode a result file; a missing or malformed file is an error result naming what is wrong."""
    if not path.exists():
        return CallResult(error="wrote no result file")
    try:
        content = json.loads(path.read_text())
        if not isinstance(content, dict):
            raise ValueError("the result is not a JSON object")
        if "unsupported" in content:
            return CallResult(unsupported=str(content["unsupported"]))
        if "error" in content:
            return CallResult(error=f"reported an error: {content['error']}", mutated=content.get("mutated", []))
        fields = {name: decode_field(name, value) for name, value in content["fields"].items()}
        return CallResult(fields=fields, mutated=content.get("mutated", []))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return CallResult(error=f"wrote a malformed result file ({type(error).__name__}: {error})")
