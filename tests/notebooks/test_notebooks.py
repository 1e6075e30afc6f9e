"""Every walkthrough notebook runs top to bottom as a plain script.

The notebooks assert the facts they show, so a notebook whose story stops being true fails here.
No Jupyter needed: each jupytext percent script runs in a subprocess with the Agg backend and
warnings turned into errors, like the rest of the suite.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
#: guard against a hung notebook only; speed goals live in benchmarks/, not here
HANG_GUARD_SECONDS = 600


def test_the_walkthroughs_exist():
    assert [path.name[:2] for path in PATHS] == ["01", "02", "03", "04", "05", "06"]


@pytest.mark.parametrize("path", PATHS, ids=[path.stem for path in PATHS])
def test_notebook_runs_as_a_script(path, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-W", "error", str(path)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=HANG_GUARD_SECONDS)
    assert result.returncode == 0, f"{path.name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
