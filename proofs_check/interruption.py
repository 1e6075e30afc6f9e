"""Ctrl-C and SIGTERM end a run the same way: the cleanup of the code they interrupt runs (local workers killed,
staging folders deleted, no output half written), then ``ovk-check`` prints one line and exits with 128 + the
signal's number, the shells' convention (130 for SIGINT, 143 for SIGTERM)."""
from __future__ import annotations

import contextlib
import signal
import threading

#: the signals that interrupt a run (SIGTERM: what ``timeout``, ``kill`` and CI runners send)
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by the signal ``signum`` (a KeyboardInterrupt, so that every library lets it through)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(interruption: KeyboardInterrupt) -> int:
    """128 + the signal's number (a bare KeyboardInterrupt is SIGINT's)."""
    return 128 + getattr(interruption, "signum", signal.SIGINT)


def signal_name(interruption: KeyboardInterrupt) -> str:
    return signal.Signals(getattr(interruption, "signum", signal.SIGINT)).name


def _interrupt(signum, frame):
    for number in SIGNALS:      # one interruption: a second Ctrl-C does not cut the cleanup short
        signal.signal(number, signal.SIG_IGN)
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_raise():
    """Within the block, SIGINT and SIGTERM raise ``Interrupted`` (in the main thread; elsewhere Python cannot
    set handlers and the block runs as it is); the previous handlers are restored after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _interrupt) for number in SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
