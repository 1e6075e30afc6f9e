"""Numbers on the wire and in the vector files: exact ``float.hex`` strings (``"0x1.8p+1"``, ``"inf"``, ``"-inf"``,
``"nan"``), read back together with JSON numbers and decimal strings. NumPy only: the worker process loads it
beside the implementation (``worker.py``)."""
from __future__ import annotations

import numpy as np


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
