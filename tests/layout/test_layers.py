"""The layers of pyproject.toml's import-linter contract hold (``ovk_cli`` on top; ``ovk_conform``, ``ovk_experiments``
and ``proofs_check`` side by side, none importing another; ``ovk_fast``; ``ovk_ref`` at the bottom; ``proofs_check``
imports only ``ovk_ref``; no import cycle between the modules of a package, imports inside functions included), and
the contract catches a planted upward import, a planted sideways import and a planted cycle."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ovk_cli", "ovk_conform", "ovk_experiments", "proofs_check", "ovk_fast", "ovk_ref")
LINT_IMPORTS = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                "sys.exit(lint_imports_command())", "--no-cache"]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*LINT_IMPORTS, "--config", str(root / "pyproject.toml")], cwd=root, capture_output=True,
                          text=True, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300)


def test_the_repository_keeps_every_contract():
    done = lint_imports(ROOT)
    assert done.returncode == 0 and "3 kept, 0 broken" in done.stdout, done.stdout + done.stderr


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The packages' Python files and the contract, in a folder a test may plant imports in."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "pyproject.toml", root)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "walkthroughs", "vectors", "schemas"))
    return root


@pytest.mark.parametrize("module, source, broken", [
    ("proofs_check/planted.py", "import ovk_cli.cli\n", "layers: ovk_cli >"),
    ("ovk_ref/planted.py", "def later():\n    from ovk_fast import onorma\n", "layers: ovk_cli >"),
    ("proofs_check/planted.py", "from ovk_fast import onorma\n", "proofs_check imports only ovk_ref"),
    ("ovk_experiments/planted.py", "from ovk_conform import runner\n", "layers: ovk_cli >"),
    ("ovk_conform/planted.py", "def later():\n    from ovk_conform import runner\n", None),
    ("ovk_conform/vectors_planted.py", None, "no import cycles inside a package"),
], ids=["upward", "upward inside a function", "proofs_check to ovk_fast", "sideways", "downward (allowed)", "cycle"])
def test_a_planted_import_is_caught(copy, module, source, broken):
    planted = copy / module
    if source is None:   # a cycle: vectors imports a module that imports vectors
        source = "from ovk_conform import vectors\n"
        (copy / "ovk_conform" / "vectors.py").write_text((ROOT / "ovk_conform" / "vectors.py").read_text()
                                                         + "\n\ndef _planted():\n    from ovk_conform import vectors_planted\n")
    planted.write_text(source)
    try:
        done = lint_imports(copy)
    finally:
        planted.unlink()
        shutil.copy(ROOT / "ovk_conform" / "vectors.py", copy / "ovk_conform" / "vectors.py")
    if broken is None:
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert done.returncode == 1 and f"{broken}" in done.stdout.split("Broken contracts")[-1], done.stdout
