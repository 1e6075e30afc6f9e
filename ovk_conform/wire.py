"""The language-neutral case and result files: protocol ``ovk-conform-1`` (JSON Schemas in ``schemas/``).

Request (JSON, written by the oracle)::

    {"protocol": "ovk-conform-1", "algorithm": "onorma" | "monorma" | "batch_ridge", "case": "<id>",
     "inputs": {"X": [[hex, ...], ...], "Y": [[hex, ...], ...]},      # float.hex strings, row t-1 = round t
     "arguments": {"kernel" | "kernels": <portable dict(s)>, "loss": {...}, "lam": x, "eta": x, "r": x,
                   "truncation": {"type": <kind>, <its fields>}}}

    {"protocol": "ovk-conform-1", "describe": true}      # asked once, before any case: what do you offer?

Result (JSON, written by the implementation), one of::

    {"fields": {"predictions": [[number or hex, ...], ...], "weights": ..., ...}}
    {"error": "message"}            # the implementation failed on this case
    {"unsupported": "reason"}       # a case inside the declared scope cannot be refused: a failure too
    {"scope": {...}}                # the answer to the describe request (``scope.py``)

``schemas/request.schema.json`` is the one description of the request, field by field; its kernel, loss and
truncation parts are derived from ovk_ref's definitions (``vocabulary.py``; ``ovk-check vocabulary`` lists them).
Numbers are JSON numbers or ``float.hex`` strings (``"0x1.8p+1"``, ``"inf"``, ``"-inf"``, ``"nan"``); a complex
field may be sent as ``{"real": [...], "imag": [...]}`` (and fails). Field names and shapes are ovk_ref's records
(``docs/conformance.md``). A result is read within bounds: at most ``result_size_limit(case)`` bytes (what the
case's fields can take, written generously) and ``MAX_DEPTH`` levels of nesting; beyond them, or malformed, the
case fails with the reason.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ovk_conform.hexfloats import decode_floats
from ovk_conform.protocol import PROTOCOL
from ovk_conform.vectors import EXACT_FIELDS, FINAL_FIELDS, ROUND_FIELDS

#: a result nests at most this deep: {"fields": {name: {"real": [[number]]}}}
MAX_DEPTH = 5
#: bytes a number may take in a result file, spaces and separators included (a float.hex string takes 25)
BYTES_PER_NUMBER = 128
#: bytes of a result file beyond its numbers (an error message, names, indentation); also the bound of a
#: describe answer
MESSAGE_BYTES = 1 << 20

DESCRIBE_REQUEST = {"protocol": PROTOCOL, "describe": True}


@dataclass
class CallResult:
    """What one call of an implementation gave: its fields, or why it gave none; inputs it modified; the
    process that answered (a pid, or ``"in-process"``)."""

    fields: dict = field(default_factory=dict)
    error: str | None = None
    unsupported: str | None = None
    mutated: list = field(default_factory=list)
    seconds: float = 0.0
    process: object = None
    timed_out: bool = False


class MalformedMessage(ValueError):
    """A message from the implementation that cannot be read within the protocol's bounds."""


def request(case) -> dict:
    return {"protocol": PROTOCOL, "algorithm": case.algorithm, "case": case.id,
            "inputs": case.encoded_inputs, "arguments": case.arguments}


def result_size_limit(case) -> int:
    """The largest result file read for ``case``: every field it may return, each number in BYTES_PER_NUMBER."""
    n, d = case.Y.shape
    m = len(case.arguments.get("kernels", ())) or 1
    numbers = n * (len(ROUND_FIELDS[case.algorithm]) * max(d, m) + len(FINAL_FIELDS[case.algorithm]) * d)
    return MESSAGE_BYTES + 2 * BYTES_PER_NUMBER * numbers        # x 2: a complex field sends two arrays


def _depth(value) -> int:
    """How deep ``value`` nests (a number or string: 0; at most MAX_DEPTH + 1), without recursion: one level at a
    time (a list comprehension per level, not a stack entry per row: a 140000-round result is read in ~0.1 s)."""
    level, depth = [value], 0
    while depth <= MAX_DEPTH:   # deeper than that is refused anyway: no need to walk further
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return depth
        depth += 1
    return depth


def read_message(path: Path, max_bytes: int, what: str = "result file"):
    """The JSON content of ``path`` if it is at most ``max_bytes`` long and nests at most MAX_DEPTH levels;
    MalformedMessage naming the rule it breaks otherwise (FileNotFoundError when there is no file)."""
    size = path.stat().st_size
    if size > max_bytes:
        raise MalformedMessage(f"its {what} is {size} bytes long, more than the {max_bytes} bytes this case's "
                               f"fields can take")
    try:
        content = json.loads(path.read_bytes())
    except RecursionError:
        raise MalformedMessage(f"its {what} nests deeper than Python's JSON reader goes "
                               f"(a result nests at most {MAX_DEPTH} levels)") from None
    except ValueError as error:
        raise MalformedMessage(f"its {what} is not JSON ({error})") from None
    if _depth(content) > MAX_DEPTH:
        raise MalformedMessage(f"its {what} nests deeper than the {MAX_DEPTH} levels a message can have")
    if not isinstance(content, dict):
        raise MalformedMessage(f"its {what} is not a JSON object")
    return content


def decode_field(name: str, value):
    if isinstance(value, dict) and value.keys() == {"real", "imag"}:
        return decode_floats(value["real"]) + 1j * decode_floats(value["imag"])
    if name in EXACT_FIELDS and all(isinstance(item, int) for item in np.ravel(np.array(value, dtype=object))):
        return np.array(value, dtype=int)
    return decode_floats(value)


def read_result(path: Path, max_bytes: int) -> CallResult:
    """Decode a result file; a missing, oversized, too deep or malformed file is an error result naming what is
    wrong."""
    try:
        content = read_message(path, max_bytes)
    except FileNotFoundError:
        return CallResult(error="wrote no result file")
    except MalformedMessage as error:
        return CallResult(error=f"wrote a malformed result file: {error}")
    mutated = content.get("mutated", [])
    if not (isinstance(mutated, list) and set(mutated) <= {"X", "Y"}):
        return CallResult(error=f"wrote a malformed result file: 'mutated' must be a list of 'X' and 'Y', got {mutated!r:.80}")
    try:
        if "unsupported" in content:
            return CallResult(unsupported=str(content["unsupported"]))
        if "error" in content:
            return CallResult(error=f"reported an error: {content['error']}", mutated=mutated)
        if not isinstance(content.get("fields"), dict):
            raise ValueError("it holds none of 'fields', 'error', 'unsupported'")
        fields = {str(name): decode_field(name, value) for name, value in content["fields"].items()}
        return CallResult(fields=fields, mutated=mutated)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return CallResult(error=f"wrote a malformed result file ({type(error).__name__}: {error})")
