"""Writing a run's folder so that it is complete or absent, never a mix of two runs.

A run writes into a fresh hidden folder beside ``--out`` (``.NAME.partial-held-XXXX``), each file atomically
(``ovk_ref.atomic_file``), writes ``manifest.json`` (every file and its sha256) last, then moves the folder into
place: the previous output, if any, is renamed aside (``.NAME.previous-XXXX``), the new one renamed to ``NAME``,
and the previous one deleted. A run stopped before the move leaves ``NAME`` untouched (an exception, an I/O error
such as a full disk included, also deletes the partial folder; a kill leaves it, with no manifest, and the next
run's move removes it: a run holds a lock on its partial folder, ``atomic_file.hold``); only a kill
between the two renames, microseconds apart, leaves ``NAME`` missing, with both the previous and the new complete
outputs beside it. An I/O error is raised as ``OutputError`` naming the file of ``NAME`` it was writing.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path

from ovk_ref import atomic_file

MANIFEST = "manifest.json"


def check_replaceable(out_dir, outputs) -> None:
    """ValueError, before any work, when ``out_dir`` exists and is not a folder of a previous run's ``outputs``
    (so that ``--out .`` or a folder of other files is never replaced)."""
    out_dir = Path(out_dir)
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise ValueError(f"--out must be a folder, got the file {out_dir}")
    foreign = sorted(entry.name for entry in out_dir.iterdir() if entry.name not in (*outputs, MANIFEST))
    if foreign:
        raise ValueError(f"--out {out_dir} holds files a reproduction does not write ({', '.join(foreign[:5])}); "
                         "it would be replaced as a whole: choose a new or empty folder")


def write_manifest(folder: Path, names) -> None:
    manifest = {"files": atomic_file.file_manifest(folder, names)}
    atomic_file.write_text(folder / MANIFEST, json.dumps(manifest, indent=1) + "\n")


def _fresh_folder(out_dir: Path, kind: str) -> Path:
    """A new empty folder ``.NAME.KIND-XXXX`` beside ``out_dir``, with the permissions the umask gives (the run's
    folder ends up as if made by ``mkdir``)."""
    while True:
        folder = out_dir.parent / f".{out_dir.name}.{kind}-{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def _output_error(out_dir: Path, staging: Path, error: OSError) -> atomic_file.OutputError:
    """``error`` as an ``OutputError`` naming the file of ``out_dir`` (not of the hidden staging folder)."""
    inside = error.filename is not None and Path(error.filename).parent == staging
    return atomic_file.output_error(out_dir / Path(error.filename).name if inside else out_dir, error)


def _move_into_place(staging: Path, out_dir: Path) -> None:
    """Rename ``staging`` to ``out_dir``, the previous ``out_dir`` (if any) aside first and deleted after; if the
    second rename fails the previous one is put back."""
    if not out_dir.exists():
        os.replace(staging, out_dir)
        return
    previous = _fresh_folder(out_dir, "previous")
    os.replace(out_dir, previous)     # onto the empty folder just made: atomic
    try:
        os.replace(staging, out_dir)
    except BaseException:
        os.replace(previous, out_dir)
        raise
    shutil.rmtree(previous)


@contextmanager
def staged_folder(out_dir, outputs):
    """Yield a fresh folder beside ``out_dir`` to write ``outputs`` into; on a normal exit write the manifest and
    move the folder into place, on an exception delete it (an ``OSError`` becomes ``OutputError``)."""
    out_dir = Path(out_dir).absolute()
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = _fresh_folder(out_dir, f"partial-{atomic_file.HELD}")
    except OSError as error:
        raise atomic_file.output_error(out_dir, error) from None
    try:
        with atomic_file.holding(staging):
            yield staging
            write_manifest(staging, outputs)
            check_replaceable(out_dir, outputs)
            _move_into_place(staging, out_dir)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OSError):
            raise _output_error(out_dir, staging, error) from None
        raise
    atomic_file.fsync_folder(out_dir.parent)
    atomic_file.remove_abandoned(out_dir.parent, f".{out_dir.name}.partial-{atomic_file.HELD}-", folders=True)
