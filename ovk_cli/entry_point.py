"""The ``ovk-check`` console script and ``python -m ovk_cli``: ``cli.main``, once the package and its commands are
imported (numpy, sympy, Hypothesis: about a second). A Ctrl-C or SIGTERM that comes during those imports ends as
one during a run does (``interruption``): one line on standard error, exit 130 or 143, no traceback. This module
imports only the standard library before it imports ``cli``."""
from __future__ import annotations

import sys

from ovk_cli import interruption


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        with interruption.signals_raise():
            from ovk_cli import cli
            parser = cli.build_parser(cli.named_command(argv))
    except KeyboardInterrupt as stop:
        print(f"ovk-check: interrupted by {interruption.signal_name(stop)} while starting; nothing was written",
              file=sys.stderr)
        return interruption.exit_status(stop)
    return cli.main(argv, parser)
