"""Hypothesis profiles, chosen by ``HYPOTHESIS_PROFILE`` (or ``--profile``): dev, ci, thorough.

* ``ci``: derandomised (same examples every run), no example database, modest example counts;
  the default when the ``CI`` environment variable is set.
* ``dev``: random, with the local example database; the default elsewhere.
* ``thorough``: many examples, random, by generation alone (``STEERED``); about 4 minutes on 2 cores for the
  whole registry.
``deadline=None`` everywhere: a round's cost grows with the drawn stream length, and tests never
fail because the machine is slow.

Hypothesis' storage (the dev/thorough example database, its caches) lives in the user cache folder
(``hypothesis_home()``), never in ``.hypothesis/`` of the current directory; ``HYPOTHESIS_STORAGE_DIRECTORY``
still chooses another place.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

ENVIRONMENT_VARIABLE = "HYPOTHESIS_PROFILE"

PROFILES = {
    "ci": dict(max_examples=25, derandomize=True, database=None, deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]),
    "dev": dict(max_examples=60, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]),
    "thorough": dict(max_examples=2000, deadline=None, print_blob=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]),
}

#: does the search steer towards small margins (Hypothesis' target phase)? Not in ``thorough``: for budgets of 1000
#: instances or more Hypothesis interleaves hill-climbing passes with generation, and a pass that mutates a choice
#: fixing a draw's size (a stream's length, a kernel's kind) overruns the rest of the choice sequence on every
#: attempt; measured: 43,142 overruns for 442 valid instances (``monorma.delta_log_linear``, seed 2, 244 s), and the
#: search ended below its informative floor. ``ci`` and ``dev`` make one pass, on small budgets.
STEERED = {"ci": True, "dev": True, "thorough": False}

for _name, _options in PROFILES.items():
    settings.register_profile(_name, **_options)


def hypothesis_home() -> Path:
    """``<user cache folder>/ovk/hypothesis``: XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ovk" / "hypothesis"


if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
    set_hypothesis_home_dir(hypothesis_home())


def default_profile() -> str:
    """``HYPOTHESIS_PROFILE`` if set, else ``ci`` when ``CI`` is set, else ``dev``."""
    name = os.environ.get(ENVIRONMENT_VARIABLE) or ("ci" if os.environ.get("CI") else "dev")
    if name not in PROFILES:
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be one of {sorted(PROFILES)}, got {name!r}")
    return name


def load(name: str | None = None) -> str:
    """Make profile ``name`` (or the default) Hypothesis' current settings; returns its name."""
    name = name or default_profile()
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {name!r}")
    settings.load_profile(name)
    return name
