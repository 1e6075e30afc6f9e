"""Where the implementation under test runs (issue 9, items 4 and 5).

* ``InProcessHost(implementation)``: in this process (the Python API: ``assert_conforms``, pytest helpers);
* ``WorkerHost("module[:attr]")``: a Python implementation in its own worker process
  (``python -m proofs_check.conformance.worker``), what ``ovk-check conform MODULE`` uses;
* ``CommandHost("CMD")``: any program, called once per case as ``CMD REQUEST.json RESULT.json`` (``wire.py``).

With the two process hosts an exit, a crash, a hang (per-case ``timeout``) or a monkeypatch of the oracle
happens in another process: it fails the case it happened in, never the run, and the comparison is made here.
"""
from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from proofs_check.conformance import wire
from proofs_check.conformance.protocol import implementation_name, offered, result_field
from proofs_check.conformance.vectors import ALGORITHMS, FINAL_FIELDS, ROUND_FIELDS
from proofs_check.conformance.wire import CallResult

#: seconds a case may take in a process host unless ``--timeout`` says otherwise
DEFAULT_TIMEOUT = 300.0
#: seconds the worker may take to import the implementation (numpy, scipy, ... on a loaded machine)
STARTUP_TIMEOUT = 120.0


def call_function(function, algorithm: str, X, Y, arguments: dict) -> CallResult:
    """Call ``function(X, Y, **arguments)`` on read-only copies of the inputs; the returned fields, the
    exception it raised, or the inputs it modified in place (it may make them writeable again)."""
    X_in, Y_in = X.copy(), Y.copy()
    X_in.flags.writeable = Y_in.flags.writeable = False
    started = time.perf_counter()
    try:
        # floating-point warnings (overflow, 0/0) are not a verdict: the values they produce are compared
        with np.errstate(all="ignore"):
            result = function(X_in, Y_in, **arguments)
    except Exception as error:  # the implementation's failure is the finding
        return CallResult(error=f"raised {type(error).__name__}: {error}", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    fields = {}
    try:
        for name in ROUND_FIELDS[algorithm] + FINAL_FIELDS[algorithm]:
            value = result_field(algorithm, result, name)
            if value is not None:
                fields[name] = value
    except Exception as error:  # a result whose fields cannot be read is the implementation's failure
        return CallResult(error=f"returned a result whose fields cannot be read ({type(error).__name__}: {error})",
                          seconds=seconds)
    mutated = [name for name, original, given in (("X", X, X_in), ("Y", Y, Y_in))
               if given.shape != original.shape or not np.array_equal(given, original, equal_nan=True)]
    return CallResult(fields=fields, mutated=mutated, seconds=seconds)


class InProcessHost:
    def __init__(self, implementation):
        self.implementation = implementation
        self.name = implementation_name(implementation)

    def offered(self) -> set:
        return set(offered(self.implementation))

    def call(self, case) -> CallResult:
        return call_function(offered(self.implementation)[case.algorithm], case.algorithm, case.X, case.Y,
                             case.call_arguments())

    def close(self) -> None:
        pass


def _kill(process: subprocess.Popen) -> None:
    """End the process group started for the implementation (it may have children)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


class _ProcessHost:
    def __init__(self, timeout: float | None):
        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        if not self.timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.directory = tempfile.TemporaryDirectory(prefix="ovk-conform-")
        self.folder = Path(self.directory.name)
        self.count = 0

    def _files(self, case) -> tuple[Path, Path]:
        self.count += 1
        request, result = self.folder / f"case-{self.count}.json", self.folder / f"result-{self.count}.json"
        request.write_text(json.dumps(wire.request(case)))
        return request, result

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class CommandHost(_ProcessHost):
    """``CMD REQUEST RESULT`` per case (``shlex``-split, no shell), with a timeout; stderr kept for messages."""

    def __init__(self, command: str, timeout: float | None = None):
        super().__init__(timeout)
        if not isinstance(command, str) or not shlex.split(command):
            raise ValueError(f"command must be a non-empty command line, got {command!r}")
        self.command = shlex.split(command)
        self.name = command

    def offered(self) -> set:
        return set(ALGORITHMS)     # a command answers {"unsupported": ...} for what it does not offer

    def call(self, case) -> CallResult:
        request, result = self._files(case)
        started = time.perf_counter()
        try:
            process = subprocess.Popen(self.command + [str(request), str(result)], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        except OSError as error:
            return CallResult(error=f"command cannot be started: {error}")
        try:
            _, stderr = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
            return CallResult(error=f"timed out after {self.timeout:g} s", seconds=time.perf_counter() - started)
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
            return CallResult(error=f"command exited with code {process.returncode}: {' | '.join(tail)}",
                              seconds=seconds)
        outcome = wire.read_result(result)
        outcome.seconds = seconds
        return outcome

    def close(self) -> None:
        self.directory.cleanup()


class WorkerHost(_ProcessHost):
    """A Python implementation in a worker process that stays up between cases and is restarted after it
    exits, crashes or times out. Lines on the worker's protocol channel are JSON (``worker.py``)."""

    def __init__(self, spec: str, timeout: float | None = None):
        super().__init__(timeout)
        self.spec, self.name = spec, spec
        self.process = None
        self.stderr = None
        self.offers = None
        self.startup_failure = None

    def _start(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen([sys.executable, "-m", "proofs_check.conformance.worker", self.spec],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                        env=environment, start_new_session=True)
        message = self._receive(max(self.timeout, STARTUP_TIMEOUT))
        if isinstance(message, dict) and "usage" in message:
            self._stop()
            raise ValueError(message["usage"])      # MODULE[:ATTR] cannot be loaded: a usage error
        if not isinstance(message, dict) or "offers" not in message:
            reason = self._death("while importing the implementation", message, max(self.timeout, STARTUP_TIMEOUT))
            self._stop()
            self.startup_failure = reason
            raise _WorkerDied(reason)
        self.offers = set(message["offers"])

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        return f": {' | '.join(lines)}" if lines else ""

    def _death(self, when: str, message, timeout: float) -> str:
        if isinstance(message, dict) and "fatal" in message:
            return message["fatal"]
        if message == "timeout":
            return f"timed out after {timeout:g} s {when}"
        code = self.process.poll()
        if code is None:
            return f"broke the worker protocol {when}"
        return f"the implementation's process exited with code {code} {when}{self._stderr_tail()}"

    def _receive(self, timeout: float):
        """The next protocol message, None at end of file, "timeout" after ``timeout`` seconds."""
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout)
        selector.close()
        if not ready:
            return "timeout"
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            return None
        try:
            return json.loads(line)
        except ValueError:
            return {"fatal": f"broke the worker protocol (wrote {line[:80]!r})"}

    def _stop(self) -> None:
        if self.process is not None:
            _kill(self.process)
            self.process.stdout.close()
            self.process.stdin.close()
            self.stderr.close()
            self.process = None

    def offered(self) -> set:
        if self.offers is None and self.startup_failure is None:
            try:
                self._start()
            except _WorkerDied:
                return set(ALGORITHMS)   # every case fails with the reason, none is skipped
        return self.offers if self.offers is not None else set(ALGORITHMS)

    def call(self, case) -> CallResult:
        if self.startup_failure is not None:
            return CallResult(error=self.startup_failure)
        if self.process is None:
            try:
                self._start()
            except _WorkerDied as died:
                return CallResult(error=str(died))
        request, result = self._files(case)
        started = time.perf_counter()
        try:
            self.process.stdin.write((json.dumps({"request": str(request), "result": str(result)}) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            pass      # the worker is gone: _receive says how
        message = self._receive(self.timeout)
        seconds = time.perf_counter() - started
        if not (isinstance(message, dict) and message.get("done")):
            reason = self._death(f"during case {case.name}", message, self.timeout)
            self._stop()
            return CallResult(error=reason, seconds=seconds)
        outcome = wire.read_result(result)
        outcome.seconds = message.get("seconds", seconds)
        return outcome

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._stop()
        self.directory.cleanup()


class _WorkerDied(Exception):
    pass
