"""The two Quickstart lines of README.md, run in a copy of the project with a fresh virtual environment.

Slow (builds a virtual environment and installs from PyPI), so skipped unless OVK_TEST_QUICKSTART=1.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENABLED = os.environ.get("OVK_TEST_QUICKSTART") == "1"


def quickstart_lines() -> list[str]:
    """The command lines of the first bash block under the README's ``## Quickstart`` heading."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.DOTALL).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_readme_quickstart_has_two_lines():
    lines = quickstart_lines()
    assert len(lines) == 2, lines
    assert "pip install" in lines[0] and "pytest" in lines[1]


@pytest.mark.slow
@pytest.mark.skipif(not ENABLED, reason="set OVK_TEST_QUICKSTART=1 to build a fresh virtual environment")
def test_quickstart_lines_succeed_in_a_fresh_virtual_environment(tmp_path):
    project = tmp_path / "ovk"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
        ".venv", ".git", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist"))
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("OVK_TEST_QUICKSTART", "VIRTUAL_ENV", "PYTHONPATH")}
    environment.setdefault("HYPOTHESIS_PROFILE", "ci")
    for line in quickstart_lines():
        result = subprocess.run(["bash", "-c", line], cwd=project, env=environment, capture_output=True, text=True,
                                timeout=3600)
        assert result.returncode == 0, f"{line!r} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
