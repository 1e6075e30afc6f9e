"""A Ctrl-C or SIGTERM while ``ovk-check`` is still importing its package (numpy, sympy, Hypothesis, the commands)
ends with one line and exit 130 or 143, never a traceback (``ovk_cli.entry_point``).

The signal is real and lands inside an import: a finder placed first on ``sys.meta_path`` sends it to the
process when the module named is looked for, deep in the import machinery. A terminal's Ctrl-C is simulated by
restoring Python's own SIGINT handler (a background job starts with SIGINT ignored).
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: ``argv[1]``: the module whose import gets the signal; ``argv[2]``: the signal; ``argv[3]``: the entry point
#: (module:function); the rest: ovk-check's arguments
STARTUP = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
module, signum, entry, arguments = sys.argv[1], getattr(signal, sys.argv[2]), sys.argv[3], sys.argv[4:]
class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == module:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signum)
        return None
sys.meta_path.insert(0, SignalOnImport())
entry_module, function = entry.split(":")
sys.exit(getattr(__import__(entry_module, fromlist=[function]), function)(arguments))
"""
#: modules imported at the start of ``ovk-check verify``, from the first (by ``cli``) to the last (by the command)
MODULES = ["ovk_cli.cli", "numpy", "sympy", "hypothesis", "proofs_check.claims", "ovk_cli.commands.verify"]


def _start(module, name="SIGINT", entry="ovk_cli.entry_point:main"):
    return subprocess.run([sys.executable, "-c", STARTUP, module, name, entry, "verify", "--profile", "ci"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("name, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_the_imports_ends_with_one_line(module, name, status):
    run = _start(module, name)
    assert run.returncode == status, run.stderr
    assert run.stderr == f"ovk-check: interrupted by {name} while starting; nothing was written\n"


def test_the_console_script_is_the_entry_point():
    project = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^ovk-check = "ovk_cli\.entry_point:main"$', project, re.MULTILINE)
    assert "ovk_cli.entry_point import main" in (ROOT / "ovk_cli" / "__main__.py").read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_planted_entry_without_the_guard_prints_a_traceback():
    """``cli.main`` as the entry point, as before: the same Ctrl-C gives a traceback."""
    run = _start("sympy", entry="ovk_cli.cli:main")
    assert "Traceback" in run.stderr and "KeyboardInterrupt" in run.stderr
