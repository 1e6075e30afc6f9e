"""A CLI that behaves: --version, ``--json -`` to standard output, output paths checked
before the work (exit 2), no traceback on a closed pipe, Hypothesis' storage out of the current directory,
the notebooks found in an installed package and run without kernel warnings."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import ovk_ref
from ovk_cli import cli
from ovk_cli.commands import notebooks, verify
from proofs_check import profiles

ROOT = Path(__file__).resolve().parents[2]
OVK_CHECK = [sys.executable, "-m", "ovk_cli"]


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"ovk-check {ovk_ref.__version__} (spec conventions version {ovk_ref.SPEC_VERSION})"


def test_a_command_imports_its_own_module_only_and_the_others_are_still_listed():
    """``ovk-check conform`` parses its options without the claims' registry and sympy (0.7 s of its start)."""
    probe = ("import sys\nfrom ovk_cli import cli\n"
             "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print(sorted(name for name in ('sympy', 'proofs_check.claims', 'ovk_conform.runner') if name in sys.modules))")
    loaded = {}
    for argv in (["conform", "--help"], ["--debug", "conform", "--help"], ["--help"], ["no-such-command"]):
        done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=ROOT, capture_output=True, text=True, timeout=60)
        loaded[" ".join(argv)] = (done.stdout.strip().splitlines() or [""])[-1]
    assert loaded["conform --help"] == loaded["--debug conform --help"] == "['ovk_conform.runner']"
    assert loaded["--help"] == loaded["no-such-command"] == "['ovk_conform.runner', 'proofs_check.claims', 'sympy']"


def test_verify_json_dash_writes_the_json_alone_to_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["verify", "--claim", "loss.convex", "--profile", "ci", "--json", "-"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)   # nothing but the JSON on stdout
    assert [verdict["claim"] for verdict in report["verdicts"]] == ["loss.convex"]
    assert "every verdict as expected" in captured.err   # the table went to stderr
    assert not (tmp_path / "-").exists()


def test_conform_json_dash_writes_the_json_alone_to_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["conform", "ovk_fast", "--level", "quick", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["passed"] is True
    assert "report written to standard output" in captured.err
    assert not (tmp_path / "-").exists()


def never_called(*args, **kwargs):
    raise AssertionError("the work started before the output path was checked")


@pytest.mark.parametrize("argv, message", [
    (["verify", "--claim", "loss.convex", "--json", "{missing}/report.json"], "does not exist"),
    (["verify", "--claim", "loss.convex", "--json", "{folder}"], "must be a file path"),
    (["conform", "ovk_fast", "--json", "{missing}/report.json"], "does not exist"),
    (["notebooks", "--out", "{file}"], "existing file"),
    (["reproduce", "--quick", "--out", "{file}"], "existing file"),
    (["reproduce", "--quick", "--out", "{file}/inside"], "cannot be written"),
], ids=["verify missing folder", "verify json is a folder", "conform missing folder", "notebooks out is a file",
        "reproduce out is a file", "reproduce out under a file"])
def test_output_paths_are_checked_before_the_work(argv, message, tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("keep me")
    monkeypatch.setattr(verify, "map_ordered", never_called)
    monkeypatch.setattr("ovk_cli.commands.conform.prepare", never_called)
    monkeypatch.setattr(notebooks, "notebook_paths", never_called)
    monkeypatch.setattr("ovk_experiments.reproduce.reproduce", never_called)
    argv = [part.format(missing=tmp_path / "missing", folder=tmp_path, file=tmp_path / "file") for part in argv]
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / "file").read_text() == "keep me"


@pytest.mark.skipif(os.name != "posix", reason="needs a POSIX pipe")
def test_a_closed_pipe_ends_quietly():
    """``ovk-check claims | head``: the reader is gone before the first write; no traceback, exit 141."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(OVK_CHECK + ["claims", "--verbose"], stdout=write_end, stderr=subprocess.PIPE,
                                text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write_end)
    assert result.stderr == ""
    assert result.returncode == 141


def test_verify_leaves_no_hypothesis_folder_in_the_current_directory(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    work = tmp_path / "work"
    work.mkdir()
    for profile in ("ci", "dev"):
        result = subprocess.run(OVK_CHECK + ["verify", "--claim", "loss.convex", "--profile", profile], cwd=work,
                                env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
    assert list(work.iterdir()) == []   # whatever Hypothesis stores goes to the user cache folder (tested below)


def test_hypothesis_home_follows_the_platform_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert profiles.hypothesis_home() == tmp_path / "ovk" / "hypothesis"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert profiles.hypothesis_home() == Path.home() / ".cache" / "ovk" / "hypothesis"
    assert profiles.PROFILES["ci"]["database"] is None


def test_the_notebooks_ship_with_the_package():
    """ovk_cli/walkthroughs (package data) holds the checkout's notebooks; it is the default source."""
    packaged = sorted(path.name for path in notebooks.notebook_paths(notebooks.PACKAGED_SOURCE))
    checkout = sorted(path.name for path in (ROOT / "notebooks").glob(notebooks.PATTERN))
    assert packaged == checkout and len(packaged) == 6
    assert notebooks.DEFAULT_SOURCE == notebooks.PACKAGED_SOURCE
    assert (ROOT / "notebooks" / "walkthrough_display.py").exists()


@pytest.mark.skipif(not os.environ.get("OVK_TEST_WHEEL"), reason="set OVK_TEST_WHEEL=1 to build a wheel (pip, ~30 s)")
def test_the_wheel_contains_the_notebooks(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True, timeout=600)
    (wheel,) = tmp_path.glob("ovk-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        assert f"ovk_cli/walkthroughs/{path.name}" in names


def test_notebooks_run_without_kernel_warnings(tmp_path, capfd):
    pytest.importorskip("nbclient")
    source = tmp_path / "source"
    source.mkdir()
    (source / "01_tiny.py").write_text('# %%\nprint("the answer is", 6 * 7)\n')
    assert cli.main(["notebooks", "--out", str(tmp_path / "html"), "--source", str(source)]) == 0
    captured = capfd.readouterr()   # file-descriptor level: the kernel process writes there too
    assert "IPKernelApp" not in captured.err and "WARNING" not in captured.err, captured.err
    assert "the answer is 42" in (tmp_path / "html" / "01_tiny.html").read_text(encoding="utf-8")
