"""The code's shape, kept by CI: ``ruff check .`` clean (the rules in pyproject.toml) and the cyclomatic complexity of
every function of the repository at most ``COMPLEXITY_LIMIT`` (radon), each with a planted offence it catches."""
import subprocess
import sys
from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[2]
COMPLEXITY_LIMIT = 15
#: functions above the limit today (none), each to be split; the set may only shrink (a listed function that is back
#: within the limit, or gone, fails the test, so the set stays the exact set of offenders)
OVER_THE_LIMIT: set = set()


def python_files(root: Path) -> list:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [root / name for name in listed.split() if (root / name).is_file() and not (root / name).is_symlink()]


def complexities(path: Path) -> dict:
    """``"file:Class.function" -> complexity`` of every function and method of a file."""
    found = {}
    for block in cc_visit(path.read_text()):
        for item in [block, *getattr(block, "methods", [])]:
            if isinstance(item, Function):
                found[f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{item.fullname}"] = \
                    item.complexity
    return found


def offenders(paths) -> dict:
    return {name: value for path in paths for name, value in complexities(path).items() if value > COMPLEXITY_LIMIT}


def ruff(*arguments, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_ruff_is_clean():
    done = ruff(".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_catches_a_planted_offence(tmp_path):
    planted = ROOT / "ovk_ref" / "_planted_ruff_offence.py"
    planted.write_text("import os\nimport sys\n\n\ndef f(x=[]):\n    return x\n")
    try:
        done = ruff(str(planted.relative_to(ROOT)))
    finally:
        planted.unlink()
    assert done.returncode == 1 and "F401" in done.stdout and "B006" in done.stdout


def test_every_function_is_within_the_complexity_limit():
    found = offenders(python_files(ROOT))
    assert set(found) <= set(OVER_THE_LIMIT), f"above {COMPLEXITY_LIMIT}: {sorted(set(found) - set(OVER_THE_LIMIT))}"
    assert set(OVER_THE_LIMIT) <= set(found), f"back within the limit, strike from OVER_THE_LIMIT: " \
                                              f"{sorted(set(OVER_THE_LIMIT) - set(found))}"


@pytest.mark.parametrize("branches, caught", [(COMPLEXITY_LIMIT - 1, False), (COMPLEXITY_LIMIT, True)])
def test_a_planted_complex_function_is_caught(tmp_path, branches, caught):
    body = "".join(f"    if x == {k}:\n        return {k}\n" for k in range(branches))
    planted = tmp_path / "planted.py"
    planted.write_text(f"def planted(x):\n{body}    return -1\n\n\nclass Holder:\n    def method(self, x):\n"
                       + body.replace("    ", "        ") + "        return -1\n")
    found = offenders([planted])
    assert (set(found) == {"planted.py:planted", "planted.py:Holder.method"}) == caught, found
