"""The software a report was produced with: Python, the package and the libraries its results depend on.

Hypothesis decides what a seed draws (so the counterexamples and margins a search finds), numpy, scipy and mpmath
the arithmetic, sympy the closed forms. Every report ``ovk-check`` writes names them (``record`` in its JSON, ``line``
in its text), so that a report can be reproduced: install the versions of ``constraints.txt`` (docs/reproducibility.md).
"""
from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

#: the distributions whose versions a report records, in the order ``line`` prints them
DISTRIBUTIONS = ("ovk", "numpy", "hypothesis", "sympy", "mpmath", "scipy")
#: the package's folder: its git commit is recorded when it is a source checkout
_CHECKOUT = Path(__file__).resolve().parents[1]


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def commit() -> str | None:
    """The git commit of the source checkout the package runs from (``+dirty`` when tracked files differ from it),
    or None (an installed wheel, no git)."""
    if not (_CHECKOUT / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(_CHECKOUT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(_CHECKOUT), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if changed else "")


def installed() -> dict:
    """``{"python": ..., "ovk": ..., "numpy": ..., ...}``: a version is None when not installed."""
    return {"python": platform.python_version(), **{name: _version(name) for name in DISTRIBUTIONS}}


def record() -> dict:
    """What a JSON report records: ``installed()`` and the ``commit``."""
    return {**installed(), "commit": commit()}


def line(versions: dict | None = None) -> str:
    """``versions: Python 3.11.7, ovk 0.1.0, numpy 2.4.6, ...``: the record without the commit, which changes with
    every commit while the output does not."""
    versions = installed() if versions is None else versions
    return "versions: " + ", ".join([f"Python {versions['python']}"]
                                    + [f"{name} {versions[name] or 'not installed'}" for name in DISTRIBUTIONS])
