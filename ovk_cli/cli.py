"""``ovk-check``: the project's command line (stdlib argparse).

Exit codes: 0 success, 1 a finding or a failed check, 2 a usage error (``errors.UsageError``: a bad flag or
parameter, output paths included: they are checked before the work), 3 a local worker process died
(``parallel.WorkerLost``), 4 an output file could not be written
(a full disk, a quota, a read-only file system: ``ovk_ref.atomic_file.OutputError``; the previous file is intact),
130 interrupted by Ctrl-C (SIGINT) and 143 by SIGTERM (``interruption``), 141 when the reader of standard output
went away (``ovk-check claims | head``), as for a command ended by SIGPIPE, 70 an internal error (anything else
that escapes a command: a bug of ovk, ``errors.INTERNAL``; "internal error, please report", the traceback in a
file, or on standard error with ``--debug``). Each of these ends with one line on standard error at most, never a
traceback (except with ``--debug``).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

import ovk_ref
from ovk_cli import errors, interruption, outputs, parallel
from ovk_ref.atomic_file import OutputError

#: sub-command modules under ovk_cli.commands, in the order ``--help`` lists them
COMMANDS = ("demo", "notebooks", "reproduce", "conform", "vocabulary", "claims", "verify", "explain", "certify",
            "sensitivity", "tightness")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone (its module alone imported: ``ovk-check conform``
    does not import the claims' registry and sympy, ~0.7 s, to parse its options)."""
    parser = argparse.ArgumentParser(prog="ovk-check", description=(
        "Check, trust and reuse the theory of online learning with operator-valued kernels "
        "(Audiffren & Kadri: ONORMA, MONORMA)."))
    parser.add_argument("--version", action="version",
                        version=f"ovk-check {ovk_ref.__version__} (spec conventions version {ovk_ref.SPEC_VERSION})")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, print the traceback instead of writing it to a file")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if command is None else (command,):
        importlib.import_module(f"ovk_cli.commands.{name}").register(subparsers)
    return parser


def named_command(argv) -> str | None:
    """The sub-command named on the command line (the first word that is not an option: the global options take no
    value), if it is one of COMMANDS."""
    word = next((word for word in argv if not word.startswith("-")), None)
    return word if word in COMMANDS else None


def check_outputs(args) -> None:
    """Check ``--json`` and ``--out`` before the work (``UsageError``: exit 2); ``--json -`` becomes standard output."""
    json_target = getattr(args, "json", None)
    if json_target is not None:
        if str(json_target) == outputs.STDOUT:
            args.json = outputs.StandardOutput(sys.stdout)
        else:
            outputs.check_file("--json", json_target)
    if getattr(args, "out", None) is not None:
        outputs.check_folder("--out", args.out)


def _discard_stdout() -> None:
    """Standard output cannot be written (its reader went away, its disk is full): what is left in its buffer is
    dropped, so that the interpreter's exit prints no traceback either."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv=None, parser=None) -> int:
    """Run ``ovk-check ARGV``; its exit status. ``parser``: ``build_parser(named_command(ARGV))``'s, if made already
    (``entry_point``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = parser or build_parser(named_command(argv))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return errors.USAGE
    try:
        with interruption.signals_raise(), contextlib.redirect_stdout(outputs.CheckedStream(sys.stdout)):
            with errors.front_door():
                check_outputs(args)
            # with --json -, standard output carries the JSON alone and the text goes to standard error
            text_to_stderr = isinstance(getattr(args, "json", None), outputs.StandardOutput)
            with contextlib.redirect_stdout(sys.stderr) if text_to_stderr else contextlib.nullcontext():
                code = args.run(args)
            sys.stdout.flush()
        return code
    except errors.UsageError as error:
        print(f"ovk-check {args.command}: error: {error}", file=sys.stderr)
        return errors.USAGE
    except parallel.WorkerLost as error:
        print(f"ovk-check {args.command}: error: {error}", file=sys.stderr)
        return 3
    except OutputError as error:
        if error.filename == outputs.STDOUT_NAME:
            _discard_stdout()
        print(f"ovk-check {args.command}: error: {error}", file=sys.stderr)
        return 4
    except KeyboardInterrupt as stop:
        print(f"ovk-check {args.command}: interrupted by {interruption.signal_name(stop)}; outputs not yet written "
              "are left as they were", file=sys.stderr)
        return interruption.exit_status(stop)
    except BrokenPipeError:
        _discard_stdout()
        return 141
    except Exception as error:   # noqa: BLE001  (anything else is a bug of ovk: said so, in one line)
        return errors.report_internal(args.command, error, args.debug, sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
