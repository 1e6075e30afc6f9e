"""The CLI's error policy: whose fault a failure is.

``UsageError`` (a ValueError) is the user's fault, found at the front door before any work: a bad flag or parameter,
an output path that cannot be written, an implementation module that cannot be loaded. ``ovk-check`` reports it in one
line and exits ``USAGE`` (2). The layers below the CLI say "bad input" with ValueError/TypeError (a clear message naming
the parameter and the rule it breaks, before any work); ``front_door()`` turns those into ``UsageError`` where a
command checks its input, so that the same ValueError raised later, by the work itself, is a bug of ovk and not the
user's: it exits ``INTERNAL`` (70, ``EX_SOFTWARE`` of BSD's sysexits.h) with "internal error, please report", its
traceback written to a file (or printed with ``ovk-check --debug``).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import traceback
from pathlib import Path

#: exit status of a usage error (argparse's own, for an unparsable option)
USAGE = 2
#: exit status of an internal error (a bug of ovk): ``EX_SOFTWARE`` of sysexits.h
INTERNAL = 70


class UsageError(ValueError):
    """A bad flag or parameter, found before any work: the user's to fix (exit ``USAGE``)."""


@contextlib.contextmanager
def front_door():
    """Within the block, a ValueError or TypeError (the layers' "bad input") is a ``UsageError``."""
    try:
        yield
    except UsageError:
        raise
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from error


def write_traceback(error: BaseException) -> Path:
    """Write ``error``'s traceback to a new file in the temporary folder; its path."""
    descriptor, name = tempfile.mkstemp(prefix="ovk-check-internal-error-", suffix=".txt")
    with os.fdopen(descriptor, "w") as stream:
        stream.write("".join(traceback.format_exception(type(error), error, error.__traceback__)))
    return Path(name)


def report_internal(command: str, error: BaseException, debug: bool, stream) -> int:
    """Say, in one line, that ``error`` is a bug of ovk (with where its traceback is); ``INTERNAL``."""
    message = f"{type(error).__name__}: {error}".splitlines()[0] if str(error) else type(error).__name__
    if debug:
        traceback.print_exception(type(error), error, error.__traceback__, file=stream)
        where = "printed above"
    else:
        try:
            where = f"in {write_traceback(error)}"
        except OSError:
            where = "not written: the temporary folder cannot be written"
        where += "; or run again with --debug"
    print(f"ovk-check {command}: internal error, please report: {message} (traceback {where})", file=stream)
    return INTERNAL
