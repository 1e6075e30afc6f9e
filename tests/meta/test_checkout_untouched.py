"""The suite leaves the checkout as it found it (tests/conftest.py): a test's working directory is a temporary
folder, and a run that writes a new file into the checkout fails, naming the file."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def run_in_a_checkout(tmp_path: Path, test_source: str) -> subprocess.CompletedProcess:
    """``test_source`` as the only test of a fresh git checkout that has the project's conftest."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tests").mkdir()
    shutil.copy(CONFTEST, tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_one.py").write_text(test_source)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=environment)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_written_in_the_working_directory_lands_in_a_temporary_folder(tmp_path):
    done = run_in_a_checkout(tmp_path, "from pathlib import Path\n\ndef test_writes():\n"
                                       "    Path('fresh-1-shrunk.json').write_text('{}')\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "fresh-1-shrunk.json").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_written_into_the_checkout_fails_the_run(tmp_path):
    """Planted: a test that writes beside the tests, into the checkout."""
    done = run_in_a_checkout(tmp_path, "from pathlib import Path\n\ndef test_writes():\n"
                                       "    (Path(__file__).parent / 'stray.json').write_text('{}')\n")
    assert done.returncode == 1
    assert "1 passed" in done.stdout and "wrote 1 file(s) into the checkout" in done.stdout
    assert "tests/stray.json" in done.stdout
