"""``ovk-check notebooks``: bad input and a missing extra are refused with a clear message."""
import sys

import pytest

from ovk_cli import cli
from ovk_cli.commands import notebooks


def test_default_source_is_the_checkout_notebooks_folder():
    names = [path.name for path in notebooks.notebook_paths(notebooks.DEFAULT_SOURCE)]
    assert names and all(name[:2].isdigit() for name in names)
    assert "walkthrough_display.py" not in names


def test_missing_source_folder_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["notebooks", "--out", str(tmp_path), "--source", str(tmp_path / "absent")]) == 2
    assert "--source must be a folder" in capsys.readouterr().err


def test_folder_without_notebooks_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "helper.py").write_text("")
    assert cli.main(["notebooks", "--out", str(tmp_path / "out"), "--source", str(tmp_path)]) == 2
    assert "holds no notebook" in capsys.readouterr().err


def test_missing_extra_names_the_install_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "jupytext", None)   # import jupytext now raises ImportError
    assert cli.main(["notebooks", "--out", str(tmp_path)]) == 2
    assert 'pip install "ovk[notebooks]"' in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_renders_a_notebook_with_its_outputs(tmp_path):
    pytest.importorskip("nbclient")
    pytest.importorskip("jupytext")
    source = tmp_path / "source"
    source.mkdir()
    (source / "01_tiny.py").write_text('# %% [markdown]\n# # Tiny\n\n# %%\nprint("the answer is", 6 * 7)\n')
    assert cli.main(["notebooks", "--out", str(tmp_path / "html"), "--source", str(source)]) == 0
    html = (tmp_path / "html" / "01_tiny.html").read_text(encoding="utf-8")
    assert "Tiny" in html and "the answer is 42" in html   # executed: the output is in the page


def test_a_failing_notebook_fails_the_command(tmp_path, capsys):
    pytest.importorskip("nbclient")
    pytest.importorskip("jupytext")
    (tmp_path / "01_broken.py").write_text("# %%\nassert 1 == 2, 'the story stopped being true'\n")
    assert cli.main(["notebooks", "--out", str(tmp_path / "html"), "--source", str(tmp_path)]) == 1
    assert "01_broken.py" in capsys.readouterr().err
    assert not (tmp_path / "html" / "01_broken.html").exists()
