"""Where ``ovk-check`` writes its files: ``--json -`` is standard output, and every output path (``--json FILE``,
the ``--out`` folder) is checked before the work starts, so that a path that cannot be written is a usage error
(exit 2) at once instead of a failure after the whole run. Files are replaced atomically
(``ovk_ref.atomic_file``): an error while writing (a full disk) leaves the previous file whole and raises
``OutputError``, which the CLI reports in one line with exit status 4."""
from __future__ import annotations

import os
from pathlib import Path

from ovk_cli.errors import UsageError
from ovk_ref import atomic_file

#: ``--json -`` writes the JSON to standard output (the human-readable text then goes to standard error)
STDOUT = "-"
#: how messages name standard output
STDOUT_NAME = "standard output"


class StandardOutput:
    """Stands for ``--json -`` once the CLI has moved the text output to standard error."""

    def __init__(self, stream):
        self.stream = stream

    def __str__(self) -> str:
        return STDOUT_NAME


class CheckedStream:
    """A text stream (standard output) whose write errors other than a closed pipe (a full disk behind
    ``> file``, ``/dev/full``) are ``OutputError`` naming it, as for the files ``ovk-check`` writes."""

    def __init__(self, stream, name: str = STDOUT_NAME):
        self.stream, self.name = stream, name

    def _checked(self, operation, *arguments):
        try:
            return operation(*arguments)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise atomic_file.output_error(self.name, error, replaced=False) from None

    def write(self, text: str) -> int:
        return self._checked(self.stream.write, text)

    def flush(self) -> None:
        self._checked(self.stream.flush)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def write_text(target, text: str) -> None:
    """Write ``text`` to the path ``target`` (replaced atomically; ``OutputError`` on an I/O error, the previous
    file intact) or, for ``--json -``, to standard output."""
    if isinstance(target, StandardOutput):
        target.stream.write(text)
        target.stream.flush()
    else:
        atomic_file.write_text(target, text)


def write_bytes(target, data: bytes) -> None:
    """Write ``data`` to the path ``target``, replaced atomically (``OutputError`` on an I/O error, the previous file
    intact)."""
    atomic_file.write_bytes(target, data)


def _writable_folder(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def check_file(option: str, target) -> None:
    """ValueError unless ``target`` can be created or overwritten as a file (a device or a FIFO such as
    ``/dev/stdout`` is written in place: it needs write permission on itself, not on its folder)."""
    path = Path(target)
    if path.is_dir():
        raise UsageError(f"{option} must be a file path, got the folder {path}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path} exists and cannot be overwritten (no write permission)")
    if path.exists() and not path.is_file():
        return
    parent = path.parent if str(path.parent) else Path(".")
    if not _writable_folder(parent):
        raise UsageError(f"{option} {path}: its folder {parent} does not exist or cannot be written to")


def check_folder(option: str, target) -> None:
    """ValueError unless ``target`` is a writable folder or can be created as one."""
    path = Path(target)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} must be a folder, got the existing file {path}")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not _writable_folder(existing):
        raise UsageError(f"{option} {path} cannot be written to (no write permission in {existing})")
