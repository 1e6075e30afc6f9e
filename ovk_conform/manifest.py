"""Integrity of the golden vectors: ``vectors/MANIFEST.json`` lists every vector file with its
sha256 and case count and the vectors' VERSION; the manifest's own sha256 is pinned here, in code.

Every load (``load_cases``) checks the files it reads (``verify``: listed, present, unchanged); ``python -m
ovk_conform.generate --check`` checks the whole store against a fresh generation.
A tampered, truncated or missing file, a VERSION that disagrees with the manifest, or an edited manifest is an
``IntegrityError`` (a ValueError: ``ovk-check conform`` exits 2) whose message names the file.
``python -m ovk_conform.generate`` rewrites the manifest and the pinned digest below.
"""
from __future__ import annotations

import json
from pathlib import Path

from ovk_conform.vectors import (
    ALGORITHMS,
    VECTORS_DIR,
    VECTORS_VERSION,
    Case,
    cases_in,
    read_vector_file,
    regime_path,
    vector_path,
)
from ovk_ref import atomic_file

MANIFEST_PATH = VECTORS_DIR / "MANIFEST.json"
#: sha256 of MANIFEST.json, rewritten by the generator
MANIFEST_SHA256 = "b619e02d39841d6d057edc6c6b1a094c0383491d0633133c8e2fbd358163a6f8"


class IntegrityError(ValueError):
    """A vector file does not match the manifest (or the manifest does not match the pinned digest)."""


def manifest_entry(path: Path, digest: str) -> dict:
    return {"sha256": digest, "cases": len(read_vector_file(path)["cases"])}


def build(paths) -> dict:
    """The manifest for these vector files (paths under VECTORS_DIR)."""
    names = [path.relative_to(VECTORS_DIR).as_posix() for path in paths]
    return {"vectorsVersion": VECTORS_VERSION, "files": atomic_file.file_manifest(VECTORS_DIR, names, manifest_entry)}


def read_manifest() -> dict:
    if not MANIFEST_PATH.exists():
        raise IntegrityError(f"vector manifest {MANIFEST_PATH} is missing")
    if atomic_file.sha256(MANIFEST_PATH) != MANIFEST_SHA256:
        raise IntegrityError(f"vector manifest {MANIFEST_PATH} has been modified (sha256 differs from the digest "
                             f"pinned in ovk_conform/manifest.py)")
    manifest = json.loads(MANIFEST_PATH.read_text())
    version = (VECTORS_DIR / "VERSION").read_text().strip()
    if manifest["vectorsVersion"] != version or version != VECTORS_VERSION:
        raise IntegrityError(f"vector file {VECTORS_DIR / 'VERSION'} says {version!r}, the manifest "
                             f"{manifest['vectorsVersion']!r}")
    return manifest


def verify(path: Path) -> dict:
    """Check one vector file (listed, present, same sha256 and case count as in the manifest); its content."""
    manifest = read_manifest()
    name = path.relative_to(VECTORS_DIR).as_posix()
    entry = manifest["files"].get(name)
    if entry is None:
        raise IntegrityError(f"vector file {path} is not listed in the manifest {MANIFEST_PATH}")
    if not path.exists():
        raise IntegrityError(f"vector file {path} is missing")
    if atomic_file.sha256(path) != entry["sha256"]:
        raise IntegrityError(f"vector file {path} has been modified or truncated (sha256 differs from the manifest)")
    content = read_vector_file(path)
    if len(content["cases"]) != entry["cases"]:
        raise IntegrityError(f"vector file {path} holds a different number of cases than the manifest says")
    return content


def load_cases(algorithms=ALGORITHMS, regimes=(), basic: bool = True) -> list[Case]:
    """The stored basic cases of ``algorithms`` (unless ``basic`` is False) and every case of ``regimes`` of those
    algorithms, in file order, after checking each file against the manifest (``verify``: a tampered
    file is an IntegrityError)."""
    paths = ([vector_path(algorithm) for algorithm in algorithms] if basic else []) + [
        regime_path(regime) for regime in regimes]
    cases = []
    for path in paths:
        cases += [case for case in cases_in(verify(path), path.name) if case.algorithm in algorithms]
    return cases
