"""What a killed writer leaves behind is removed by the next write, and what a live writer holds is never removed.

A file is written through a temporary ``.NAME.tmp-*`` beside it, a reproduction through a ``.NAME.partial-*``
folder (``ovk_ref.atomic_file``, ``ovk_experiments.output.atomic``), and the conformance oracle's process hosts keep
their case files in an ``ovk-conform-*`` folder of the temporary folder (``ovk_conform.hosts``): SIGKILL leaves them. Real processes here: a
writer stopped in the middle of its write (it has said "ready"), then killed, or kept alive while another process
writes the same NAME. Each protection is also planted away (the writer's lock, the sweep) to show that the check
sees it go.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from shared.outputs import is_complete

from ovk_conform import hosts
from ovk_experiments.output import atomic
from ovk_ref import atomic_file

pytestmark = pytest.mark.skipif(atomic_file.fcntl is None, reason="leftovers are told apart by flock (POSIX)")

#: a writer that stops in the middle of writing ``argv[1]`` (a file; with ``argv[2] == "folder"`` a reproduction's
#: folder; with "conform" a process host's folder in the temporary folder ``argv[1]``) until a line arrives on
#: stdin; ``argv[3] == "unheld"`` plants a writer without its lock
WRITER = """
import sys, tempfile
from ovk_conform import hosts
from ovk_experiments.output import atomic
from ovk_ref import atomic_file
if sys.argv[3] == "unheld":
    atomic_file.hold = lambda handle: None
    atomic_file.holding = __import__("contextlib").nullcontext
def pause():
    print("ready", flush=True)
    sys.stdin.readline()
if sys.argv[2] == "conform":
    tempfile.tempdir = sys.argv[1]
    with hosts.CommandHost("true") as host:
        host.folder
        pause()
elif sys.argv[2] == "folder":
    with atomic.staged_folder(sys.argv[1], ["a.txt"]) as staging:
        (staging / "a.txt").write_text("the writer's")
        pause()
else:
    with atomic_file.replacing(sys.argv[1]) as stream:
        stream.write("the writer's")
        stream.flush()
        pause()
"""


class Writer:
    def __init__(self, path, kind="file", lock="held"):
        self.process = subprocess.Popen([sys.executable, "-c", WRITER, str(path), kind, lock], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline() == "ready\n"

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(60)
        self.process.stdin.close()
        self.process.stdout.close()

    def finish(self) -> int:
        self.process.communicate("go\n", timeout=60)
        return self.process.returncode


def _leftovers(folder, name) -> list:
    return sorted(entry for entry in folder.iterdir() if entry.name.startswith(f".{name}."))


def _age(paths) -> None:
    """Make ``paths`` older than ``ABANDONED_AFTER_SECONDS`` (instead of waiting)."""
    past = time.time() - 10 * atomic_file.ABANDONED_AFTER_SECONDS
    for path in paths:
        os.utime(path, (past, past))


def _write_folder(out) -> None:
    with atomic.staged_folder(out, ["a.txt"]) as staging:
        (staging / "a.txt").write_text("the next run's")


def _conform_folders(folder) -> list:
    return sorted(entry for entry in folder.iterdir() if entry.name.startswith(hosts.FOLDER_PREFIX))


def test_the_next_oracle_removes_a_killed_oracles_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    Writer(tmp_path, "conform").kill()
    left = _conform_folders(tmp_path)
    assert len(left) == 1
    _age(left)
    with hosts.CommandHost("true") as host:
        folder = host.folder
        assert _conform_folders(tmp_path) == [folder]
    assert _conform_folders(tmp_path) == []


def test_a_live_oracle_keeps_its_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    writer = Writer(tmp_path, "conform")
    left = _conform_folders(tmp_path)
    _age(left)
    with hosts.CommandHost("true") as host:
        assert host.folder not in left
    assert _conform_folders(tmp_path) == left
    assert writer.finish() == 0
    assert _conform_folders(tmp_path) == []


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_the_next_write_removes_what_a_killed_writer_left(tmp_path, kind):
    target = tmp_path / "report.json"
    writer = Writer(target, kind)
    writer.kill()
    left = _leftovers(tmp_path, target.name)
    assert len(left) == 1
    _age(left)
    if kind == "file":
        atomic_file.write_text(target, "the next run's")
        assert target.read_text() == "the next run's"
    else:
        _write_folder(target)
        assert is_complete(target)
    assert _leftovers(tmp_path, target.name) == []


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_live_writer_keeps_its_leftover_and_finishes(tmp_path, kind):
    target = tmp_path / "report.json"
    writer = Writer(target, kind)
    left = _leftovers(tmp_path, target.name)
    _age(left)
    if kind == "file":
        atomic_file.write_text(target, "the other run's")
    else:
        _write_folder(target)
    assert _leftovers(tmp_path, target.name) == left
    assert writer.finish() == 0
    assert (target.read_text() if kind == "file" else (target / "a.txt").read_text()) == "the writer's"
    assert _leftovers(tmp_path, target.name) == []


def test_a_young_leftover_is_kept(tmp_path):
    """Between creating its temporary file and locking it a writer holds no lock: the age is what protects it."""
    young = tmp_path / ".report.json.tmp-held-00000000"
    young.write_text("being created")
    atomic_file.write_text(tmp_path / "report.json", "new")
    assert young.exists()
    _age([young])
    atomic_file.write_text(tmp_path / "report.json", "newer")
    assert not young.exists()


def test_what_an_earlier_version_made_is_never_taken_for_abandoned(tmp_path, monkeypatch):
    """Writers of earlier versions of ovk held no lock: their live temporary files and folders (named without
    ``held``) are left, whatever their age; so is a lookalike of the new names (a prefix of it)."""
    earlier = [tmp_path / ".report.json.tmp-0123abcd", tmp_path / ".report.json.tmp-held0123"]
    for path in earlier:
        path.write_text("an earlier version's, being written")
    folders = [tmp_path / ".out.partial-0123abcd", tmp_path / "ovk-conform-0123abcd"]
    for folder in folders:
        folder.mkdir()
    _age(earlier + folders)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    atomic_file.write_text(tmp_path / "report.json", "new")
    _write_folder(tmp_path / "out")
    with hosts.CommandHost("true") as host:
        assert host.folder.exists()
    assert all(path.exists() for path in earlier + folders)


def test_only_the_leftovers_of_the_name_written_are_removed(tmp_path):
    """Other names, and entries of the right name that are not what the writer makes: a folder, a FIFO (opening a
    FIFO to lock it would wait for a writer: the sweep would hang), a symbolic link."""
    others = [tmp_path / ".other.json.tmp-held-00000000", tmp_path / ".report.jsonl.tmp-held-0",
              tmp_path / "report.json.tmp-held-0"]
    for path in others:
        path.write_text("not ours")
    (tmp_path / ".report.json.tmp-held-folder").mkdir()
    os.mkfifo(tmp_path / ".report.json.tmp-held-fifo")
    (tmp_path / ".report.json.tmp-held-link").symlink_to(others[0])
    others += [tmp_path / f".report.json.tmp-held-{kind}" for kind in ("folder", "fifo", "link")]
    _age(others)
    atomic_file.write_text(tmp_path / "report.json", "new")
    assert all(path.is_symlink() or path.exists() for path in others)


def test_a_file_is_no_leftover_of_a_folder(tmp_path):
    out = tmp_path / "out"
    lookalike = tmp_path / ".out.partial-held-00000000"
    lookalike.write_text("a file, not a run's folder")
    _age([lookalike])
    _write_folder(out)
    assert lookalike.exists()


# --- the protections planted away --------------------------------------------------------------------------------

def test_planted_writer_without_its_lock_loses_its_file(tmp_path):
    """Without ``hold`` a live writer's temporary file is taken for abandoned: its write fails (the live-writer test
    above would fail)."""
    target = tmp_path / "report.json"
    writer = Writer(target, "file", lock="unheld")
    _age(_leftovers(tmp_path, target.name))
    atomic_file.write_text(target, "the other run's")
    assert _leftovers(tmp_path, target.name) == []
    assert writer.finish() != 0
    assert target.read_text() == "the other run's"


def test_planted_no_sweep_leaves_the_killed_writers_file(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic_file, "remove_abandoned", lambda folder, prefix: [])
    target = tmp_path / "report.json"
    Writer(target).kill()
    _age(_leftovers(tmp_path, target.name))
    atomic_file.write_text(target, "the next run's")
    assert len(_leftovers(tmp_path, target.name)) == 1


def test_without_flock_nothing_is_removed(tmp_path, monkeypatch):
    """Where there is no flock (Windows) a killed writer's file cannot be told from a live one's: it stays."""
    leftover = tmp_path / ".report.json.tmp-held-00000000"
    leftover.write_text("a killed writer's")
    _age([leftover])
    monkeypatch.setattr(atomic_file, "fcntl", None)
    assert atomic_file.remove_abandoned(tmp_path, ".report.json.tmp-") == []
    assert leftover.exists()
