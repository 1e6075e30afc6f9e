"""A full disk (or any write error) never costs the previous output, and the CLI says so in one line, exit 4.

(``ovk_ref.atomic_file`` is imported in the tests that use it, so that the others also run against code without it.)

In process, pyfakefs gives a file system with a disk-usage limit: each writer of the project (reports, figures,
the reproduction folder, checkpoints) fails there with ENOSPC and leaves the previous file whole. End to end,
``ovk-check`` writes to ``/dev/full`` (Linux; every write fails with ENOSPC) and to a real tmpfs that is full,
mounted in a user namespace where the platform allows one (``unshare``; skipped elsewhere).
"""
import errno
import io
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from processes import ROOT
from shared.outputs import is_complete

import ovk_ref
from ovk_cli import outputs

#: more than one write buffer, so that a writer in place would be cut in the middle
PREVIOUS = json.dumps({"previous": "report", "padding": "x" * 20000})
NEW = json.dumps({"new": "report", "padding": "y" * 40000})   # more than the free space, even in place
OVK_CHECK = [sys.executable, "-m", "ovk_cli"]


@pytest.fixture
def full_disk(fs):
    """A fake file system whose folder /out holds the previous report and has room for 1000 more bytes."""
    fs.create_file("/out/report.json", contents=PREVIOUS)
    fs.set_disk_usage(len(PREVIOUS) + 1000, path="/out")
    return Path("/out")


def _no_space(error: OSError, path) -> None:
    assert error.errno == errno.ENOSPC and str(path) in str(error), error


def test_a_report_written_to_a_full_disk_keeps_the_previous_one(full_disk):
    """``verify --json`` and ``conform --json`` write through ``outputs.write_text``."""
    report = full_disk / "report.json"
    with pytest.raises(OSError) as raised:
        outputs.write_text(report, NEW)
    _no_space(raised.value, report)
    assert report.read_text() == PREVIOUS
    assert os.listdir(full_disk) == ["report.json"]      # no temporary file left
    outputs.write_text(report, "{}")                     # room for a small one: replaced whole
    assert report.read_text() == "{}"


def test_a_figure_written_to_a_full_disk_keeps_the_previous_one(full_disk):
    from ovk_ref import atomic_file

    figure = full_disk / "report.json"
    with pytest.raises(atomic_file.OutputError) as raised, atomic_file.replacing(figure, "wb") as stream:
        stream.write(b"\x89PNG" + bytes(30000))
    _no_space(raised.value, figure)
    assert figure.read_text() == PREVIOUS and os.listdir(full_disk) == ["report.json"]


def test_a_checkpoint_saved_to_a_full_disk_keeps_the_previous_one(fs):
    learner = ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, 1), lam=0.1, eta=0.5)
    fs.create_dir("/out")
    ovk_ref.save_learner(learner, "/out/learner.json")
    previous = Path("/out/learner.json").read_text()
    for x in range(40):
        learner.learn_one([float(x)], [1.0])
    fs.set_disk_usage(len(previous) + 500, path="/out")
    with pytest.raises(OSError) as raised:
        ovk_ref.save_learner(learner, "/out/learner.json")
    _no_space(raised.value, "/out/learner.json")
    assert Path("/out/learner.json").read_text() == previous and os.listdir("/out") == ["learner.json"]


def test_a_reproduction_folder_written_to_a_full_disk_keeps_the_previous_one(fs):
    from ovk_experiments.output import atomic
    from ovk_ref import atomic_file

    names = ["report.md", "results.csv"]
    with atomic.staged_folder("/work/out", names) as staging:
        for name in names:
            atomic_file.write_text(staging / name, f"earlier {name}")
    fs.set_disk_usage(fs.get_disk_usage("/work").used + 3000, path="/work")
    with pytest.raises(atomic_file.OutputError) as raised, atomic.staged_folder("/work/out", names) as staging:
        atomic_file.write_text(staging / "report.md", "new")
        atomic_file.write_text(staging / "results.csv", "z" * 10000)
    _no_space(raised.value, "/work/out/results.csv")     # named in --out, not in the hidden staging folder
    assert os.listdir("/work") == ["out"] and is_complete("/work/out")
    assert Path("/work/out/report.md").read_text() == "earlier report.md"


def test_the_writer_keeps_permissions_and_writes_through_links(tmp_path):
    from ovk_ref import atomic_file

    target = tmp_path / "report.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_file.write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.json"
    atomic_file.write_text(fresh, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    assert sorted(os.listdir(tmp_path)) == ["fresh.json", "link.json", "report.json"]


def test_an_interrupted_write_keeps_the_previous_file_and_leaves_nothing(tmp_path):
    from ovk_ref import atomic_file

    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)
    with pytest.raises(KeyboardInterrupt), atomic_file.replacing(target) as stream:
        stream.write(NEW)
        raise KeyboardInterrupt
    assert target.read_text() == PREVIOUS and os.listdir(tmp_path) == ["report.json"]


def test_the_check_catches_a_writer_in_place(full_disk, monkeypatch):
    """The planted fault: the writer as it was (``Path.write_text``) cuts the previous report on a full disk."""
    from ovk_ref import atomic_file

    monkeypatch.setattr(atomic_file, "write_text", lambda path, text, encoding="utf-8":
                        Path(path).write_text(text, encoding=encoding))
    with pytest.raises(OSError):
        outputs.write_text(full_disk / "report.json", NEW)
    assert (full_disk / "report.json").read_text() != PREVIOUS


# --- end to end ------------------------------------------------------------------------------------------------

DEV_FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full (Linux)")


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, stderr
    return lines[0]


@needs_dev_full
def test_verify_json_to_a_full_device_is_exit_4_in_one_line():
    result = subprocess.run(OVK_CHECK + ["verify", "--claim", "loss.convex", "--profile", "ci", "--workers", "1",
                                         "--json", str(DEV_FULL)], capture_output=True, text=True, cwd=ROOT,
                            timeout=300)
    assert result.returncode == 4
    line = _one_error_line(result.stderr)
    assert "cannot write /dev/full" in line and "ENOSPC" in line and "errno 28" in line


@needs_dev_full
def test_standard_output_to_a_full_device_is_exit_4_in_one_line():
    with open(DEV_FULL, "w") as full:
        result = subprocess.run(OVK_CHECK + ["claims"], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                timeout=300)
    assert result.returncode == 4
    assert "cannot write standard output: No space left on device" in _one_error_line(result.stderr)
    assert result.stderr.count("\n") == 1


def _in_a_full_tmpfs(tmp_path, script: str) -> subprocess.CompletedProcess:
    """Run the shell ``script`` in a new user and mount namespace where ``$FULL`` is a tmpfs of 1 MiB that
    ``$FULL/filler`` fills (after the script's setup, ``fill`` does it); skip where no namespace can be made."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "--user", "--map-root-user", "--mount", "true"],
                                         capture_output=True).returncode != 0:
        pytest.skip("no user namespace to mount a small tmpfs in (unshare)")
    full = tmp_path / "full"
    full.mkdir()
    prologue = (f'FULL={full}; mount -t tmpfs -o size=1m tmpfs "$FULL" || exit 99; '
                'fill() { head -c 10000000 /dev/zero > "$FULL/filler" 2>/dev/null; true; }; ')
    return subprocess.run([unshare, "--user", "--map-root-user", "--mount", "sh", "-c", prologue + script],
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "OVK": " ".join(OVK_CHECK), "AFTER": str(tmp_path / "after")})


#: five claims whose report (about 4.8 KB) needs two pages of the tmpfs, where the previous one holds one: a writer
#: in place frees that page, fills it and fails on the next, leaving 4 KB of invalid JSON
REPORT_OF_TWO_PAGES = ["loss.convex", "def1.iv_printed", "prop2.i_without_lam", "monorma.exponents_literal",
                       "loss.lipschitz"]


def test_verify_json_to_a_full_disk_keeps_the_previous_report(tmp_path):
    previous = json.dumps({"previous": "report", "padding": "x" * 3000})     # one page
    (tmp_path / "previous.json").write_text(previous)
    claims = " ".join(f"--claim {claim}" for claim in REPORT_OF_TWO_PAGES)
    result = _in_a_full_tmpfs(tmp_path, f'cp {tmp_path}/previous.json "$FULL/report.json" && fill && '
                                        f'$OVK verify {claims} --profile ci --workers 1 '
                                        '--json "$FULL/report.json"; code=$?; rm "$FULL/filler"; '
                                        'cp -a "$FULL" "$AFTER"; exit $code')
    assert result.returncode == 4, result.stderr
    line = _one_error_line(result.stderr)
    assert "report.json: No space left on device (ENOSPC, errno 28)" in line and "unchanged" in line
    assert (tmp_path / "after" / "report.json").read_text() == previous
    assert os.listdir(tmp_path / "after") == ["report.json"]


def test_reproduce_to_a_full_disk_keeps_the_previous_output(tmp_path):
    pytest.importorskip("matplotlib")
    from ovk_experiments.output import atomic
    from ovk_experiments.reproduce import OUTPUTS

    previous = tmp_path / "previous"
    previous.mkdir()
    for name in OUTPUTS:
        (previous / name).write_text(f"an earlier run's {name}")
    atomic.write_manifest(previous, OUTPUTS)
    result = _in_a_full_tmpfs(tmp_path, f'cp -a {previous} "$FULL/out" && fill && '
                                        '$OVK reproduce --quick --no-progress --table3-one-engine --workers 1 '
                                        '--datasets dermatology --out "$FULL/out"; code=$?; '
                                        'rm "$FULL/filler"; cp -a "$FULL" "$AFTER"; exit $code')
    assert result.returncode == 4, result.stderr
    assert "No space left on device (ENOSPC, errno 28)" in _one_error_line(result.stderr)
    after = tmp_path / "after"
    assert os.listdir(after) == ["out"] and is_complete(after / "out")   # no staging folder left
    assert (after / "out" / "report.md").read_text() == "an earlier run's report.md"


def test_the_writer_reports_what_it_could_not_write():
    from ovk_ref import atomic_file

    error = atomic_file.output_error("/somewhere/report.json", OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert str(error) == (f"cannot write /somewhere/report.json: Disk quota exceeded (EDQUOT, errno {errno.EDQUOT}); "
                          "its previous content, if any, is unchanged")
    assert isinstance(error, OSError) and error.filename == "/somewhere/report.json"
    stream = outputs.CheckedStream(io.StringIO())
    stream.write("fine")
    assert stream.getvalue() == "fine"


@pytest.fixture(scope="module")
def t0_figure():
    """certify-theorem2's figure of the stored table, drawn on the real file system (matplotlib reads its fonts)."""
    pytest.importorskip("matplotlib")
    from ovk_cli.commands import certify
    from proofs_check.proofs import theorem2_certificate
    return certify.figure_png(theorem2_certificate.stored_table())


def test_the_theorem2_plot_written_to_a_full_disk_keeps_the_previous_one(t0_figure, full_disk, monkeypatch):
    """``certify-theorem2 --plot`` on a full disk left a truncated PNG in place of the old one (exit 70)."""
    from ovk_cli.commands import certify
    from ovk_ref import atomic_file

    monkeypatch.setattr(certify, "figure_png", lambda rows: t0_figure + bytes(4000))
    figure = full_disk / "report.json"
    with pytest.raises(atomic_file.OutputError) as raised:
        certify.plot([], figure)
    _no_space(raised.value, figure)
    assert figure.read_text() == PREVIOUS and os.listdir(full_disk) == ["report.json"]
