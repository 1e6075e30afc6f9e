"""A reproduction's output folder is the previous complete run or the new complete run, never a mix.

The runs killed here are real processes, ended by SIGKILL (no cleanup can run) at points of the write phase.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from shared.outputs import is_complete

from ovk_cli import cli
from ovk_experiments.output import atomic

RUN = ["reproduce", "--quick", "--no-progress", "--table3-one-engine", "--datasets", "dermatology"]


def _snapshot(folder: Path) -> dict:
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir())}


#: a planted fault for the child process: a writer that writes into --out directly, as the reproduction once did
IN_PLACE_WRITER = """
import contextlib
from ovk_experiments.output import atomic

@contextlib.contextmanager
def in_place(out_dir, outputs):
    out_dir = atomic.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    yield out_dir
    atomic.write_manifest(out_dir, outputs)

atomic.staged_folder = in_place
"""


def _killed_run(out: Path, module: str, function: str, call: int, seed: int, planted: str = "") -> int:
    """``ovk-check reproduce`` in a child process that SIGKILLs itself right after the ``call``-th return of
    ``module.function`` (after running the ``planted`` code, if any)."""
    script = planted + textwrap.dedent(f"""
        import importlib, os, signal, sys
        module = importlib.import_module({module!r})
        original, calls = getattr(module, {function!r}), []

        def killed_after(*args, **kwargs):
            result = original(*args, **kwargs)
            calls.append(1)
            if len(calls) == {call}:
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        setattr(module, {function!r}, killed_after)
        from ovk_cli import cli
        sys.exit(cli.main({RUN + ["--seed", str(seed), "--out", str(out)]!r}))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=600).returncode


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    out = tmp_path_factory.mktemp("atomic") / "run"
    assert cli.main([*RUN, "--seed", "0", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
@pytest.mark.parametrize("module, function, call, outcome", [
    ("ovk_experiments.output.rows", "write_csv", 1, "previous"),           # CSV written, figures not
    ("ovk_experiments.output.figures", "figure2", 1, "previous"),          # all but the report
    ("ovk_experiments.output.atomic", "write_manifest", 1, "previous"),    # complete, not yet moved
    # each of the 4 outputs and the manifest is one os.replace (atomic_file), then the previous folder aside (6th)
    # and the new one in place (7th): killed there, the old one is not yet deleted
    ("os", "replace", 7, "new"),
], ids=["after-csv", "after-figures", "after-manifest", "after-move"])
def test_a_run_killed_while_writing_leaves_a_complete_output(previous, tmp_path, module, function, call, outcome):
    out = tmp_path / "run"
    out.mkdir()
    for name, content in _snapshot(previous).items():
        (out / name).write_bytes(content)
    before = _snapshot(out)
    assert _killed_run(out, module, function, call, seed=1) == -9
    assert is_complete(out), f"{sorted(os.listdir(out))} is not a complete output"
    after = _snapshot(out)
    if outcome == "previous":
        assert after == before
    else:
        assert after != before and set(after) == set(before)
        assert "seed 1" in after["report.md"].decode() and "seed 0" in before["report.md"].decode()
    leftovers = [entry.name for entry in tmp_path.iterdir() if entry.name != "run"]
    assert all(name.startswith((".run.partial-", ".run.previous-")) for name in leftovers), leftovers


@pytest.mark.slow
def test_the_check_catches_a_writer_that_writes_in_place(previous, tmp_path):
    """The planted fault: killed after its figures, it leaves the new CSV and figures beside the old report."""
    out = tmp_path / "run"
    out.mkdir()
    for name, content in _snapshot(previous).items():
        (out / name).write_bytes(content)
    assert _killed_run(out, "ovk_experiments.output.figures", "figure2", 1, seed=1, planted=IN_PLACE_WRITER) == -9
    after, before = _snapshot(out), _snapshot(previous)
    assert after["report.md"] == before["report.md"] and after["results.csv"] != before["results.csv"]   # a mix
    assert not is_complete(out)


def test_a_completed_run_replaces_the_previous_one_whole(previous, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "figure1.png").write_bytes(b"an older run's figure")          # an older run, without a manifest
    assert cli.main([*RUN, "--seed", "2", "--out", str(out)]) == 0
    assert is_complete(out) and (out / "figure1.png").read_bytes().startswith(b"\x89PNG")
    assert [entry.name for entry in tmp_path.iterdir()] == ["run"], "no staging folder is left behind"


def test_a_folder_of_other_files_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert cli.main([*RUN, "--out", str(tmp_path)]) == 2
    assert "holds files a reproduction does not write (notes.txt)" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_an_exception_while_writing_deletes_the_staging_folder(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(RuntimeError):
        with atomic.staged_folder(out, ["a.txt"]) as staging:
            (staging / "a.txt").write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_or_partial_folder_is_not_complete(previous, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    for name, content in _snapshot(previous).items():
        (out / name).write_bytes(content)
    assert is_complete(out)
    csv = out / "results.csv"
    csv.write_bytes(csv.read_bytes()[: len(csv.read_bytes()) // 2])      # truncated, header still valid
    assert not is_complete(out)
    (out / "results.csv").unlink()
    assert not is_complete(out)
    (out / atomic.MANIFEST).unlink()
    assert not is_complete(out)
