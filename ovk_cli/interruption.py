"""Ctrl-C and SIGTERM end a run the same way: the cleanup of the code they interrupt runs (local workers killed,
staging folders deleted, no output half written), then ``ovk-check`` prints one line and exits with 128 + the
signal's number, the shells' convention (130 for SIGINT, 143 for SIGTERM)."""
from __future__ import annotations

import _thread
import contextlib
import gc
import signal
import sys
import threading

#: the signals that interrupt a run (SIGTERM: what ``timeout``, ``kill`` and CI runners send)
SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: how long after a swallowed interruption it is delivered again: a gc callback or a ``__del__`` takes microseconds
REDELIVERY_SECONDS = 0.01


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


class _Redelivery:
    """Delivers a swallowed ``Interrupted`` again in the main thread, once the main thread is out of the code that
    swallowed it.

    A signal handler runs between any two bytecodes, also inside a garbage-collector callback or a ``__del__``
    (Hypothesis registers a gc callback), where Python prints an exception as "Exception ignored in ..." and goes
    on: the run would continue as if the signal had never come. ``hook`` (the ``sys.unraisablehook``) sees any
    exception that carries the ``signum`` of one of SIGNALS (``Interrupted``, or a command's own handler's, such as
    ``conform``'s), re-arms ``_interrupt`` if it had ignored the signals, and has the signal delivered once more
    (``_thread.interrupt_main``: to the handler then in force) from another thread a
    moment later; should it land in a callback again, the hook sees it again. Swallowed during a collection, it is
    delivered after the collection ends (``gc_phase``, a gc callback): a collection can take longer than the moment,
    and the finalisers it runs may catch any exception themselves, out of the hook's sight."""

    def __init__(self, previous_hook):
        self.previous_hook = previous_hook
        self.collecting = False
        self.pending = None

    def hook(self, unraisable) -> None:
        signum = getattr(unraisable.exc_value, "signum", None)
        if signum not in SIGNALS:       # not an interruption (``Interrupted``, or a command's own with its signum)
            self.previous_hook(unraisable)
            return
        if signal.getsignal(signum) == signal.SIG_IGN:      # ``_interrupt`` ignores the signals once raised
            signal.signal(signum, _interrupt)
        if self.collecting:
            self.pending = signum
        else:
            self._deliver(signum)

    def gc_phase(self, phase, info) -> None:
        self.collecting = phase == "start"
        if not self.collecting and self.pending is not None:
            signum, self.pending = self.pending, None
            self._deliver(signum)

    @staticmethod
    def _deliver(signum: int) -> None:
        again = threading.Timer(REDELIVERY_SECONDS, _thread.interrupt_main, args=(signum,))
        again.daemon = True
        again.start()


@contextlib.contextmanager
def signals_raise():
    """Within the block, SIGINT and SIGTERM raise ``Interrupted`` (in the main thread; elsewhere Python cannot
    set handlers and the block runs as it is); the previous handlers are restored after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _interrupt) for number in SIGNALS}
    redelivery = _Redelivery(sys.unraisablehook)
    sys.unraisablehook = redelivery.hook
    gc.callbacks.insert(0, redelivery.gc_phase)     # first: it knows a collection started before the others run
    try:
        yield
    finally:
        gc.callbacks.remove(redelivery.gc_phase)
        sys.unraisablehook = redelivery.previous_hook
        for number, handler in previous.items():
            signal.signal(number, handler)
