"""Every walkthrough notebook is built the way a reader gets it: ``ovk-check notebooks`` executes it top to bottom
and renders it to HTML (the rendered pages are built, not committed: docs/guide.md, "Notebooks").

The notebooks assert the facts they show, so a notebook whose story stops being true fails here. A cell that
writes to standard error (a warning, which the rest of the suite turns into an error) fails it too.
"""
import re
from importlib import metadata
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
#: the modules the notebooks import from their own folder
HELPERS = sorted(path for path in NOTEBOOKS.glob("*.py") if path not in PATHS)
#: how nbconvert marks a cell's output on standard error (the stylesheet names it in single quotes)
STDERR_OUTPUT = re.compile(r'data-mime-type="application/vnd\.jupyter\.stderr"')
#: guard against a hung cell only; speed goals live in benchmarks/, not here
CELL_TIMEOUT_SECONDS = 600
#: ``ovk-check`` as installed (its console-script entry point, wherever the package keeps its CLI)
ovk_check = metadata.entry_points(group="console_scripts")["ovk-check"].load()


def stderr_outputs(html: str) -> int:
    """How many cell outputs of a rendered page went to standard error."""
    return len(STDERR_OUTPUT.findall(html))


def render(notebook: Path, helpers, folder: Path) -> Path:
    """Build one notebook with ``ovk-check notebooks`` in ``folder``: its page, or an AssertionError."""
    pytest.importorskip("nbclient")
    pytest.importorskip("jupytext")
    source = folder / "source"
    source.mkdir()
    for path in [notebook, *helpers]:
        (source / path.name).symlink_to(path)
    assert ovk_check(["notebooks", "--out", str(folder / "html"), "--source", str(source),
                     "--timeout", str(CELL_TIMEOUT_SECONDS)]) == 0, f"{notebook.name} failed to build"
    return folder / "html" / f"{notebook.stem}.html"


def test_the_walkthroughs_exist():
    assert [path.name[:2] for path in PATHS] == ["01", "02", "03", "04", "05", "06"]


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS, ids=[path.stem for path in PATHS])
def test_notebook_builds_without_writing_to_stderr(path, tmp_path):
    html = render(path, HELPERS, tmp_path).read_text(encoding="utf-8")
    assert stderr_outputs(html) == 0, f"{path.name}: a cell wrote to standard error (a warning?)"


def test_a_cell_that_warns_is_caught(tmp_path):
    """Planted: a notebook whose cell emits a warning builds, and the check above finds its stderr output."""
    notebook = tmp_path / "01_warns.py"
    notebook.write_text('# %%\nimport warnings\nwarnings.warn("a story that drifted")\n')
    html = render(notebook, [], tmp_path).read_text(encoding="utf-8")
    assert stderr_outputs(html) == 1 and "a story that drifted" in html
