"""The sealed reference: the oracle's own code and data are fixed, checked, and in memory before any code of
the implementation runs, and checked again at the end of the run.

``Seal()`` (taken first thing in a run, in the oracle's process):

1. imports every module of ``ovk_ref`` and ``ovk_conform`` and computes one small reference
   run, so that no code the reference needs is read from disk later (a rewritten file cannot reach the
   expected values);
2. computes the sha256 of every file of the oracle's packages (``ovk_ref``, ``ovk_conform``; the vectors
   included, the ``__pycache__`` folders not);
3. compares them with the installed distribution's ``RECORD`` when it has hashes (a wheel install); an
   editable install has none, and its files are checked for changes during the run only;
4. checks that each compiled cache (``__pycache__/*.pyc``) the oracle's modules were loaded from is the
   compilation of its source (a swapped cache would change the code under an unchanged source file).

A difference at the start is an ``IntegrityError`` (exit 2: no verdict from an oracle that is not itself).
``changes()`` recomputes the digests: the runner calls it after the implementation has declared its scope,
after the expected values are computed, and at the end; a difference fails the run, naming the files.
The implementation's process never computes or holds an expected value (``hosts.py``, ``worker.py``); they are
computed in the oracle's process or in copies of it forked after the seal (``runner.prepare``'s pool), which run the
reference code in memory, not read from disk again.
"""
from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.metadata
import importlib.util
import marshal
import os
import pkgutil
import sys
from pathlib import Path

from ovk_conform.manifest import IntegrityError

#: the packages whose files make the oracle (the reference and the checks)
PACKAGES = ("ovk_ref", "ovk_conform")
#: packages whose every module is imported before any implementation code runs
EAGER = ("ovk_ref", "ovk_conform")
DISTRIBUTION = "ovk"


def _package_folder(name: str) -> Path:
    return Path(importlib.import_module(name).__file__).resolve().parent


def oracle_files() -> dict:
    """Relative path (``ovk_ref/onorma.py``) -> sha256 of every file of the oracle's packages."""
    digests = {}
    for package in PACKAGES:
        folder = _package_folder(package)
        for root, folders, files in os.walk(folder):
            folders[:] = sorted(name for name in folders if name != "__pycache__")
            for name in files:
                path = Path(root) / name
                digests[path.relative_to(folder.parent).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(digests.items()))


def import_reference() -> None:
    """Import every module the reference may use, and run it once on a small case (lazy paths included)."""
    for package in EAGER:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            importlib.import_module(info.name)
    from ovk_conform import fresh
    from ovk_conform.reference import reference_fields
    from ovk_conform.scope import Scope
    for index in range(6):
        algorithm, case = fresh.draw_case(0, index, Scope.full())
        reference_fields(algorithm, case["X"], case["Y"], case["arguments"])


def record_hashes() -> dict:
    """Relative path -> sha256 (hex) from the installed distribution's RECORD, for the oracle's files; empty when
    the distribution is not installed or its RECORD has no hashes (an editable install)."""
    try:
        files = importlib.metadata.distribution(DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    hashes = {}
    for entry in files:
        if entry.hash is None or entry.hash.mode != "sha256" or entry.parts[0] not in PACKAGES:
            continue
        if "__pycache__" in entry.parts:
            continue
        digest = base64.urlsafe_b64decode(entry.hash.value + "=" * (-len(entry.hash.value) % 4)).hex()
        hashes["/".join(entry.parts)] = digest
    return hashes


def _cache_is_used(source: str, data: bytes) -> bool:
    """Whether Python loads the compiled cache ``data`` for ``source`` (PEP 552: a timestamp cache whose recorded
    mtime and size are the source's, or a hash-based one; a stale cache is recompiled, not used)."""
    flags = int.from_bytes(data[4:8], "little")
    if flags & 1:       # hash-based: used unless it is checked against a source whose hash differs
        return not flags & 2 or data[8:16] == importlib.util.source_hash(Path(source).read_bytes())
    status = os.stat(source)
    return (int.from_bytes(data[8:12], "little") == int(status.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(data[12:16], "little") == status.st_size & 0xFFFFFFFF)


def compiled_cache_mismatches() -> list:
    """Compiled caches that Python uses for the oracle's modules and that are not the compilation of their source."""
    mismatches = []
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in PACKAGES:
            continue
        source, cached = getattr(module, "__file__", None), getattr(module, "__cached__", None)
        if not source or not cached or not os.path.exists(cached) or not source.endswith(".py"):
            continue
        with open(cached, "rb") as file:
            data = file.read()
        if len(data) < 16 or not _cache_is_used(source, data):
            continue
        try:
            loaded = marshal.loads(data[16:])
        except (ValueError, EOFError, TypeError):
            mismatches.append(cached)
            continue
        if loaded != compile(Path(source).read_bytes(), source, "exec", dont_inherit=True):
            mismatches.append(cached)
    return mismatches


def describe_changes(before: dict, after: dict) -> str | None:
    """``"changed ovk_ref/onorma.py; added ..."`` for the differences between two digest maps, None if equal."""
    parts = []
    for label, names in (("changed", [name for name in before if name in after and before[name] != after[name]]),
                         ("removed", [name for name in before if name not in after]),
                         ("added", [name for name in after if name not in before])):
        if names:
            parts.append(f"{label} {', '.join(names[:5])}" + (f" and {len(names) - 5} more" if len(names) > 5 else ""))
    return "; ".join(parts) or None


class Seal:
    def __init__(self):
        import_reference()
        self.files = oracle_files()
        record = record_hashes()
        if record:
            difference = describe_changes(record, {name: self.files.get(name) for name in record if name in self.files}
                                          | {name: digest for name, digest in self.files.items() if name not in record})
            if difference:
                raise IntegrityError(f"the oracle's installed files differ from the distribution's RECORD: {difference}")
            self.checked_against = f"equal to the installed distribution's RECORD ({len(record)} hashes)"
        else:
            self.checked_against = "no RECORD hashes (an editable install): compared with themselves at the end"
        stale = compiled_cache_mismatches()
        if stale:
            raise IntegrityError(f"compiled cache(s) {', '.join(stale[:3])} are not the compilation of their source: "
                                 "remove them (a swapped cache changes the code under an unchanged source file)")
        self.digest = hashlib.sha256("".join(f"{name}\0{digest}\n" for name, digest in self.files.items()).encode()).hexdigest()
        self.fixed = "before the implementation ran"

    def changes(self, when: str) -> str | None:
        """None if every oracle file is as at the start; else the reason the run fails, saying ``when``."""
        difference = describe_changes(self.files, oracle_files())
        return None if difference is None else f"the oracle's files changed {when}: {difference}"

    def account(self) -> dict:
        return {"files": len(self.files), "digest": self.digest, "checked_against": self.checked_against,
                "fixed": self.fixed}
