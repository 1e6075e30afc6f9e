"""Test configuration: the Hypothesis profile (HYPOTHESIS_PROFILE, or ci when CI is set), mpmath hygiene, and a
checkout left as it was found.

The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject's pytest options; ``-n 0`` runs it in one
process). Tests and the commands they run write nothing in the checkout: each worker works in a temporary folder
(a command's default output, such as ``ovk-check conform``'s shrunk cases, lands there), and a run that leaves a new
file in the checkout fails, naming it.
"""
import os
import shutil
import subprocess
from pathlib import Path

import mpmath
import pytest

from proofs_check import profiles

PROFILE = profiles.load()
ROOT = Path(__file__).resolve().parents[1]
#: the untracked files of the checkout when the run started (the controller's, with xdist)
UNTRACKED_BEFORE = pytest.StashKey[set]()


def pytest_report_header(config):
    return f"hypothesis profile: {PROFILE} (set {profiles.ENVIRONMENT_VARIABLE}=dev|ci|thorough)"


@pytest.fixture(autouse=True)
def reset_mpmath_precision():
    """mpmath's precision is global state: restore it after every test."""
    precision = mpmath.mp.prec
    yield
    mpmath.mp.prec = precision


@pytest.fixture(autouse=True, scope="session")
def work_in_a_temporary_folder(tmp_path_factory):
    """The working directory of every test is a temporary folder, not the checkout."""
    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("working-directory"))
    yield
    os.chdir(before)


def untracked_files() -> set[str] | None:
    """The checkout's files that git neither tracks nor ignores, or None outside a git checkout."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return None
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard"],
                            capture_output=True, text=True, timeout=60)
    return set(listed.stdout.splitlines()) if listed.returncode == 0 else None


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):   # the controller (or a run without xdist), not a worker
        session.config.stash[UNTRACKED_BEFORE] = untracked_files()


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(UNTRACKED_BEFORE, None)
    after = untracked_files() if before is not None else None
    written = sorted(after - before) if after is not None else []
    if written:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = (f"the tests wrote {len(written)} file(s) into the checkout (tests write in temporary folders): "
                   + ", ".join(written[:20]) + (" ..." if len(written) > 20 else ""))
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

