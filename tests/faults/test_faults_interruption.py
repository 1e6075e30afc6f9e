"""A Ctrl-C or SIGTERM that lands in a garbage-collector callback or a ``__del__`` still stops the run.

Python runs a signal handler between any two bytecodes, also inside a gc callback (Hypothesis registers one), where
the exception it raises is printed as "Exception ignored in ..." and dropped: ``verify --workers 1`` then ran to its
end and exited 0 after a Ctrl-C, about one time in three. ``interruption.signals_raise`` delivers such a
swallowed interruption again.
"""
import gc
import json
import signal
import sys
import time

import pytest

from ovk_cli import interruption

#: how long the main thread waits for the interruption to come back (a loaded machine is slow, never wrong)
DEADLINE_SECONDS = 10.0
#: how long the planted fault's run waits: 100 times the redelivery delay, so a working hook would have acted
LOST_AFTER_SECONDS = 100 * interruption.REDELIVERY_SECONDS


def _swallowed_in_a_gc_callback(signum) -> None:
    """What the signal handler does when the signal arrives during a collection: raise inside the callback."""
    def callback(phase, info):
        gc.callbacks.remove(callback)
        raise interruption.Interrupted(signum)
    gc.callbacks.append(callback)
    gc.collect()


def _wait_for_it(seconds: float = DEADLINE_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interruption_swallowed_by_a_gc_callback_is_delivered_again(signum):
    with interruption.signals_raise():
        with pytest.raises(interruption.Interrupted) as caught:
            _swallowed_in_a_gc_callback(signum)
            _wait_for_it()
    assert caught.value.signum == signum


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_check_catches_an_interruption_left_swallowed(monkeypatch):
    """Planted fault: the hook that delivers it again left out; the interruption is lost and the wait ends."""
    monkeypatch.setattr(interruption._Redelivery, "hook", lambda self, unraisable: self.previous_hook(unraisable))
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)   # pytest's would turn it into a warning
    with interruption.signals_raise():                                     # (the planted hook's previous one)
        _swallowed_in_a_gc_callback(signal.SIGINT)
        started = time.monotonic()
        _wait_for_it(LOST_AFTER_SECONDS)
    assert time.monotonic() - started >= LOST_AFTER_SECONDS


class _CatchesEverythingWhenCollected:
    """A finaliser that takes longer than the redelivery delay and catches any exception itself (leaked objects of
    other libraries do: pyfakefs' fake files were found doing it), collected only by the cycle collector."""

    def __init__(self):
        self.cycle = self

    def __del__(self):
        try:
            time.sleep(20 * interruption.REDELIVERY_SECONDS)
        except BaseException:
            pass


def _swallowed_before_a_slow_collection(signum) -> None:
    _CatchesEverythingWhenCollected()
    _swallowed_in_a_gc_callback(signum)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_interruption_swallowed_at_the_start_of_a_collection_comes_after_it():
    with interruption.signals_raise():
        with pytest.raises(interruption.Interrupted):
            _swallowed_before_a_slow_collection(signal.SIGINT)
            _wait_for_it()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_check_catches_a_redelivery_made_during_the_collection(monkeypatch):
    """Planted fault: delivered a moment after it was swallowed, not after the collection: the finaliser, still
    running, catches it and the interruption is lost."""
    monkeypatch.setattr(interruption._Redelivery, "gc_phase", lambda self, phase, info: None)
    with interruption.signals_raise():
        _swallowed_before_a_slow_collection(signal.SIGINT)
        started = time.monotonic()
        _wait_for_it(LOST_AFTER_SECONDS)
    assert time.monotonic() - started >= LOST_AFTER_SECONDS


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_commands_own_interruption_swallowed_by_a_gc_callback_is_delivered_again(signum, monkeypatch):
    """``conform`` raises its runner's ``Interrupted`` from handlers of its own (the report says why it stopped): one
    swallowed in a gc callback comes back, as the same class (a run stopped during its preparation ran to its end,
    exit 0, about one time in five). Planted: the hook that knew ``interruption.Interrupted`` only loses it."""
    from ovk_cli.commands.conform import _Signals
    from ovk_conform.runner import Interrupted

    def swallowed_by_the_command():
        def callback(phase, info):
            gc.callbacks.remove(callback)
            signal.getsignal(signum)(signum, None)       # the command's handler, raising in the callback
        gc.callbacks.append(callback)
        gc.collect()

    with interruption.signals_raise(), _Signals():
        with pytest.raises(Interrupted) as caught:
            swallowed_by_the_command()
            _wait_for_it()
    assert caught.value.signum == signum and caught.value.exit_code == 128 + signum

    def known_class_only(self, unraisable):
        if not isinstance(unraisable.exc_value, interruption.Interrupted):
            return self.previous_hook(unraisable)
        raise AssertionError("not reached")
    monkeypatch.setattr(interruption._Redelivery, "hook", known_class_only)
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)   # the planted hook's previous one
    with interruption.signals_raise(), _Signals():
        swallowed_by_the_command()
        started = time.monotonic()
        _wait_for_it(LOST_AFTER_SECONDS)
    assert time.monotonic() - started >= LOST_AFTER_SECONDS


@pytest.mark.parametrize("planted", [False, True], ids=["conform", "planted: the note of the signal never read"])
def test_conform_stopped_by_a_signal_whose_exception_is_dropped_still_stops(planted, tmp_path, capsys, monkeypatch):
    """A SIGTERM whose ``Interrupted`` is dropped without a trace (C code that clears errors, such as a dict lookup
    running a key's ``__eq__``, drops an exception raised between two bytecodes, out of the unraisable hook's sight;
    here its handler runs inside ``except BaseException: pass``) during ``conform``'s preparation: the run still
    stops before its first case, exit 143, the report saying why (``_Signals.check``; in CI such a run went on to
    its end, exit 0). Planted: a ``check`` that does nothing, and the run goes on."""
    from ovk_cli.cli import main
    from ovk_cli.commands import conform

    real_prepare = conform.prepare

    def prepare_with_a_dropped_signal(*args, **kwargs):
        try:
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)      # the command's handler
        except BaseException:
            pass
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(conform, "prepare", prepare_with_a_dropped_signal)
    if planted:
        monkeypatch.setattr(conform._Signals, "check", lambda self: None)
    report = tmp_path / "report.json"
    code = main(["conform", "ovk_fast", "--level", "quick", "--workers", "1", "--json", str(report),
                 "--shrunk-dir", str(tmp_path)])
    stderr = capsys.readouterr().err
    if planted:
        assert code == 0 and "[1/" in stderr
        return
    assert code == 143 and "[1/" not in stderr and "terminated (SIGTERM)" in stderr
    assert json.loads(report.read_text())["stopped"] == "terminated (SIGTERM)"
