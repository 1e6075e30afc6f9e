"""Writing a file so that it holds its previous content or the new one, whole, never a part of either.

Every file the project writes (checkpoints, reports, Markdown, CSV, figures, case files, vectors) goes through
``replacing(path)``: the new content is written to a temporary file in the same folder (``.NAME.tmp-held-XXXXXXXX``),
flushed and fsync'ed, renamed over ``NAME`` (``os.replace``: atomic on POSIX and Windows), and the folder is
fsync'ed so that the rename survives a crash. An error on the way (a full disk, a quota, a read-only file system)
deletes the temporary file, leaves ``NAME`` as it was and raises ``OutputError``, an ``OSError`` whose message
names the path and the errno. A kill (SIGKILL, power loss) can leave the temporary file behind, never a partial
``NAME``; the next write of ``NAME`` removes it (``remove_abandoned``: on POSIX a writer holds a lock on its
temporary file, which the system drops when the writer ends, however it ends). A path that exists and is not a
regular file (``/dev/stdout``, ``/dev/null``, a FIFO) cannot be replaced by a rename: it is written in place.

It lives in ovk_ref because the reference's checkpoint (``save_learner``) writes through it and every package above
does too: the bottom layer is the one place all of them can import (docs/architecture.md).
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import shutil
import stat
import time
from pathlib import Path

try:
    import fcntl
except ImportError:         # Windows: no flock, so a killed writer's leftovers cannot be told from a live one's
    fcntl = None

#: in the names of what a writer holds (``.NAME.tmp-held-*``, ``.NAME.partial-held-*``, ``ovk-conform-held-*``): what
#: writers of earlier versions of ovk made is not held, and is never taken for abandoned while they run
HELD = "held"
#: a leftover younger than this is never removed: its writer may have created it and not yet locked it
#: (microseconds apart); a live writer holds its lock however long it takes
ABANDONED_AFTER_SECONDS = 2.0


class OutputError(OSError):
    """An output could not be written (``filename``, ``errno``, ``strerror`` as for any ``OSError``). When
    ``replaced`` (a file written by ``replacing``), its previous content, if it had one, is intact."""

    replaced = True

    def __str__(self) -> str:
        code = errno.errorcode.get(self.errno, "unknown errno")
        intact = "; its previous content, if any, is unchanged" if self.replaced else ""
        return f"cannot write {self.filename}: {self.strerror} ({code}, errno {self.errno}){intact}"


def output_error(path, error: OSError, replaced: bool = True) -> OutputError:
    """``error`` (raised while writing ``path``) as an ``OutputError`` naming ``path``."""
    converted = OutputError(error.errno if error.errno is not None else errno.EIO, error.strerror or str(error),
                            str(path))
    converted.replaced = replaced
    return converted


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable, where the platform can (POSIX; Windows cannot open a folder). The
    rename is done either way, so an error here (a file system that cannot sync folders) is not reported."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def hold(handle: int) -> None:
    """Mark the file or folder open as ``handle`` as in the hands of a live writer: an exclusive ``flock``, which
    the system drops when the handle is closed or the process ends (SIGKILL included). Nothing without fcntl, or
    where the file system has no locks (then no other process can lock it either: it is never taken for abandoned)."""
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)


@contextlib.contextmanager
def holding(folder):
    """``hold`` on ``folder`` for the duration of the block (nothing without fcntl)."""
    if fcntl is None:
        yield
        return
    handle = os.open(folder, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        hold(handle)
        yield
    finally:
        os.close(handle)


def _abandoned(path: Path, folders: bool) -> bool:
    """``path`` is a file (a folder, with ``folders``), old enough, and no live writer holds it; it is then
    deleted, while locked by this process."""
    status = path.lstat()
    if not (stat.S_ISDIR if folders else stat.S_ISREG)(status.st_mode):
        return False
    if time.time() - status.st_mtime < ABANDONED_AFTER_SECONDS:
        return False
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)      # BlockingIOError: a live writer holds it
        if folders:
            shutil.rmtree(path)
        else:
            path.unlink()
        return True
    finally:
        os.close(handle)


def remove_abandoned(folder: Path, prefix: str, folders: bool = False) -> list:
    """Delete the files (with ``folders``: the folders) of ``folder`` named ``prefix...`` that no live writer
    holds (``hold``): what killed writers left behind. An entry that cannot be opened, locked or deleted (another
    user's, one being written) is left. Returns the deleted paths; none without fcntl."""
    removed = []
    if fcntl is None:
        return removed
    for entry in Path(folder).iterdir():
        if entry.name.startswith(prefix):
            with contextlib.suppress(OSError):
                if _abandoned(entry, folders):
                    removed.append(entry)
    return removed


def _new_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside ``target``, created exclusively, with the permissions ``target`` has (or, for a new file,
    those the umask gives, as ``open`` would)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        temporary = target.with_name(f".{target.name}.tmp-{HELD}-{secrets.token_hex(4)}")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        hold(handle)
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(handle, mode)
        return handle, temporary


@contextlib.contextmanager
def replacing(path, mode: str = "w", **open_arguments):
    """A file object (``open``'s ``mode`` "w" or "wb" and keyword arguments) for the new content of ``path``;
    ``path`` is replaced by it when the block ends without an exception. Any ``OSError`` in the block or in the
    replacement becomes ``OutputError``; on any exception ``path`` is left as it was."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    if mode == "w":
        open_arguments.setdefault("encoding", "utf-8")
    target = Path(os.path.realpath(path))    # through a symbolic link, as open() would write
    in_place = target.exists() and not target.is_file()
    try:
        if in_place:
            with open(target, mode, **open_arguments) as stream:
                yield stream
            return
        handle, temporary = _new_temporary(target)
    except OutputError:
        raise
    except OSError as error:
        raise output_error(path, error, replaced=not in_place) from None
    try:
        with os.fdopen(handle, mode, **open_arguments) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
            if fcntl is not None:           # renamed while locked: never seen unlocked under its temporary name
                os.replace(temporary, target)
        if fcntl is None:                   # Windows renames no open file
            os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise output_error(path, error) from None
        raise
    fsync_folder(target.parent)
    remove_abandoned(target.parent, f".{target.name}.tmp-{HELD}-")


def write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` by ``text`` (``replacing``)."""
    with replacing(path, "w", encoding=encoding) as stream:
        stream.write(text)


def write_bytes(path, data: bytes) -> None:
    """Replace ``path`` by ``data`` (``replacing``)."""
    with replacing(path, "wb") as stream:
        stream.write(data)


def sha256(path) -> str:
    """The sha256 of a file's bytes, in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_manifest(folder, names, entry=None) -> dict:
    """The manifest of the files ``names`` (relative to ``folder``), sorted by name: ``{name: sha256}``, or
    ``{name: entry(path, sha256)}`` when the caller records more than the digest."""
    folder = Path(folder)
    digests = {name: sha256(folder / name) for name in sorted(names)}
    return digests if entry is None else {name: entry(folder / name, digest) for name, digest in digests.items()}
