"""Regenerate the golden vectors: the quick cases (``cases.py``) with ovk_ref at 50 digits, the regimes
(``regimes.py``) with ovk_ref in float64 (and checkpoints of the longest stream), and the manifest.

    python -m ovk_conform.generate                 # rewrite every vector file and the manifest
    python -m ovk_conform.generate --quick         # only the quick files (seconds)
    python -m ovk_conform.generate --check         # exit 1 if the stored files differ (a regime's float64 values:
                                                   # beyond ovk_ref.tolerances.ACROSS_MACHINES, another CPU's round-off)

The regimes take a few minutes (ovk_ref float64, up to 140000 rounds). After a change to any case, bump
``vectors/VERSION`` and add a line to ``vectors/CHANGELOG.md``.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

import mpmath
import numpy as np

import ovk_ref
from ovk_conform import cases as case_definitions
from ovk_conform import checkpoints, manifest, tolerance
from ovk_conform.reference import reference_fields
from ovk_conform.regimes import (
    QUICK_REGIME,
    REFERENCE_REASON,
    REGIMES,
    stored_rounds,
)
from ovk_conform.vectors import (
    ALGORITHMS,
    EXACT_FIELDS,
    FORMAT,
    ROUND_FIELDS,
    VECTORS_VERSION,
    decode_floats,
    encode_floats,
    regime_path,
    vector_path,
)
from ovk_ref import atomic_file, closeness, tolerances

#: digits of the reference run and digits stored (the run's last digits carry its own round-off)
DIGITS, STORED_DIGITS = 50, 40

QUICK_REFERENCE = {"precision": "mpmath-50",
                   "reason": "ovk_ref at 50 digits, 40 stored: the stored values are exact to far below any tolerance"}

HEADER = {
    "onorma": "ONORMA, Algorithm 1 of Audiffren & Kadri as restated in docs/paper-spec.md section 5",
    "monorma": "MONORMA, Algorithm 2, spec section 6 (all_zero='keep': delta kept when every w_j = 0, E22)",
    "batch_ridge": "batch regularised least squares, spec section 7.1: c = (G + t lam I)^{-1} vec(Y)",
}
TOLERANCE_NOTE = "tolerances are not data: ovk_conform/tolerance.py"


def _decimal(value) -> str:
    return mpmath.nstr(value, STORED_DIGITS)


def _expected(algorithm: str, case: dict) -> dict:
    with mpmath.workdps(DIGITS):
        fields = reference_fields(algorithm, case["X"], case["Y"], case["arguments"], DIGITS)
        return {name: (np.asarray(values).tolist() if name in EXACT_FIELDS
                       else np.vectorize(_decimal, otypes=[object])(values).tolist())
                for name, values in fields.items()}


def _expected_float64(algorithm: str, case: dict, rounds) -> dict:
    """ovk_ref float64: the rows of ``rounds`` (1-based; None: all) of the round fields, every row of the final
    fields."""
    fields = reference_fields(algorithm, case["X"], case["Y"], case["arguments"])
    round_rows = slice(None) if rounds is None else rounds - 1
    stored = {}
    for name, values in fields.items():
        values = np.asarray(values)[round_rows if name in ROUND_FIELDS[algorithm] else slice(None)]
        stored[name] = values.tolist() if name in EXACT_FIELDS else encode_floats(values)
    return stored


def _check_conditioning(case: dict) -> None:
    kernel = ovk_ref.as_kernel(case["arguments"]["kernel"])
    t = len(case["X"])
    eigenvalues = np.linalg.eigvalsh(kernel.gram(case["X"]) + t * case["arguments"]["lam"] * np.eye(t * kernel.d))
    condition = eigenvalues[-1] / eigenvalues[0]
    if condition > tolerance.BATCH_CONDITION_LIMIT:
        raise ValueError(f"batch case {case['id']!r}: condition number {condition:.3g} exceeds BATCH_CONDITION_LIMIT")


def vector_file(algorithm: str) -> dict:
    """The content of ``vectors/<algorithm>.json``, computed afresh."""
    stored = []
    for case in case_definitions.CASES[algorithm]():
        if algorithm == "batch_ridge":
            _check_conditioning(case)
        stored.append({"id": case["id"], "comment": case["comment"], "flags": case["flags"], "regime": QUICK_REGIME,
                       "reference": QUICK_REFERENCE, "rounds": None,
                       "inputs": {"X": encode_floats(case["X"]), "Y": encode_floats(case["Y"])},
                       "arguments": case["arguments"], "expected": _expected(algorithm, case)})
    return {"format": FORMAT, "algorithm": algorithm, "vectorsVersion": VECTORS_VERSION,
            "specVersion": ovk_ref.SPEC_VERSION, "header": HEADER[algorithm], "tolerance": TOLERANCE_NOTE,
            "generator": "python -m ovk_conform.generate", "referenceDigits": DIGITS,
            "numberOfCases": len(stored), "cases": stored}


def regime_file(regime: str) -> dict:
    """The content of ``vectors/regimes/<regime>.json.gz``, computed afresh (ovk_ref float64)."""
    description, build = REGIMES[regime]
    stored = []
    for algorithm, case in build():
        if algorithm == "batch_ridge":
            _check_conditioning(case)
        n = len(case["X"])
        rounds = None if algorithm == "batch_ridge" or n == len(stored_rounds(n)) else stored_rounds(n)
        entry = {"algorithm": algorithm, "id": case["id"], "comment": case["comment"], "flags": case["flags"],
                 "regime": regime, "reference": {"precision": "float64", "reason": REFERENCE_REASON},
                 "rounds": None if rounds is None else rounds.tolist(),
                 "inputs": {"X": encode_floats(case["X"]), "Y": encode_floats(case["Y"])},
                 "arguments": case["arguments"], "expected": _expected_float64(algorithm, case, rounds)}
        if rounds is not None:
            if algorithm != "onorma":
                raise ValueError(f"{case['id']}: only ONORMA streams longer than ALL_ROUNDS_UP_TO can be checkpointed")
            entry["checkpoints"] = checkpoints.states(case["X"], case["Y"], case["arguments"])
        stored.append(entry)
    return {"format": FORMAT, "regime": regime, "description": description, "vectorsVersion": VECTORS_VERSION,
            "specVersion": ovk_ref.SPEC_VERSION, "tolerance": TOLERANCE_NOTE,
            "generator": "python -m ovk_conform.generate", "numberOfCases": len(stored), "cases": stored}


def compress(content: dict) -> bytes:
    """Deterministic gzip of compact JSON (mtime 0: the same bytes on every machine)."""
    return gzip.compress(json.dumps(content, separators=(",", ":")).encode(), mtime=0)


def same_content(path: Path, data: bytes) -> bool:
    """Whether the stored file ``path`` holds ``data``, generated here: byte for byte for the quick files (50-digit
    runs, every CPU rounds them alike), and for a regime (ovk_ref float64) the same JSON with its floats within
    ``ovk_ref.tolerances.ACROSS_MACHINES`` (``float64_differences``): it was generated on another CPU, whose BLAS
    kernels and SIMD paths sum in another order."""
    stored = path.read_bytes()
    if stored == data or not path.name.endswith(".json.gz"):
        return stored == data
    return not float64_differences(json.loads(gzip.decompress(stored)), json.loads(gzip.decompress(data)))


def float64_differences(stored, fresh, where: str = "") -> list[str]:
    """Where ``fresh`` differs from ``stored`` (two JSON values): a list of numbers (``float.hex`` strings, nested
    lists of them) beyond ``ACROSS_MACHINES`` of the list's own scale (``max |stored|``), anything else unequal."""
    if isinstance(stored, dict) and isinstance(fresh, dict):
        if stored.keys() != fresh.keys():
            return [f"{where}: keys {sorted(stored)} != {sorted(fresh)}"]
        return [difference for key in stored for difference in float64_differences(stored[key], fresh[key], f"{where}/{key}")]
    if isinstance(stored, list) and isinstance(fresh, list):
        return _list_differences(stored, fresh, where)
    return [] if stored == fresh else [f"{where}: {stored!r} != {fresh!r}"]


def _list_differences(stored: list, fresh: list, where: str) -> list[str]:
    """``float64_differences`` of two lists: numbers within ``ACROSS_MACHINES``, other items one by one."""
    if _hex_floats(stored) and _hex_floats(fresh):
        return _numbers_differences(decode_floats(stored), decode_floats(fresh), where)
    if len(stored) != len(fresh):
        return [f"{where}: length {len(stored)} != {len(fresh)}"]
    return [difference for index, (a, b) in enumerate(zip(stored, fresh))
            for difference in float64_differences(a, b, f"{where}/{index}")]


def _numbers_differences(stored: np.ndarray, fresh: np.ndarray, where: str) -> list[str]:
    """``fresh`` against ``stored`` within ``ACROSS_MACHINES`` of the stored values' scale."""
    if stored.shape != fresh.shape:
        return [f"{where}: shape {stored.shape} != {fresh.shape}"]
    _, _, rows = closeness.bad_rows(fresh, stored, tolerances.ACROSS_MACHINES)
    return [f"{where}: rows {rows[:5].tolist()} beyond {tolerances.ACROSS_MACHINES.name}"] if rows.size else []


def _hex_floats(values) -> bool:
    """Whether ``values`` is a (nested) list of ``float.hex`` strings, the encoding of stored float64 values."""
    if isinstance(values, list):
        return bool(values) and all(_hex_floats(value) for value in values)
    return isinstance(values, str) and (values.lstrip("-").startswith("0x") or values.lstrip("+-") in ("inf", "nan"))


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


def _manifest_text(paths) -> str:
    return json.dumps(manifest.build(paths), indent=1, sort_keys=True) + "\n"


def _pin_manifest_digest(digest: str) -> None:
    source = Path(manifest.__file__)
    text = re.sub(r'MANIFEST_SHA256 = "[0-9a-f]{64}"', f'MANIFEST_SHA256 = "{digest}"', source.read_text())
    atomic_file.write_text(source, text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ovk_conform.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files instead of writing")
    parser.add_argument("--quick", action="store_true", help="only the quick vector files (not the regimes)")
    args = parser.parse_args(argv)
    files = {vector_path(algorithm): (lambda algorithm=algorithm: render(vector_file(algorithm)).encode())
             for algorithm in ALGORITHMS}
    if not args.quick:
        files.update({regime_path(regime): (lambda regime=regime: compress(regime_file(regime))) for regime in REGIMES})
    differing = []
    for path, content in files.items():
        data = content()
        if args.check:
            if not path.exists() or not same_content(path, data):
                differing.append(path.name)
        else:
            path.parent.mkdir(exist_ok=True)
            atomic_file.write_bytes(path, data)
            print(f"wrote {path} ({len(data)} bytes)", flush=True)
    all_files = [vector_path(algorithm) for algorithm in ALGORITHMS] + [regime_path(regime) for regime in REGIMES]
    if args.check:
        if not args.quick and manifest.MANIFEST_PATH.read_text() != _manifest_text(all_files):
            differing.append(manifest.MANIFEST_PATH.name)
    else:   # the manifest covers every file (with --quick the regime files on disk)
        atomic_file.write_text(manifest.MANIFEST_PATH, _manifest_text(all_files))
        _pin_manifest_digest(atomic_file.sha256(manifest.MANIFEST_PATH))
        print(f"wrote {manifest.MANIFEST_PATH} and pinned its sha256 in {manifest.__file__}")
    if differing:
        print(f"stored vectors differ from a fresh generation: {', '.join(differing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
