"""Where the implementation under test runs.

* ``InProcessHost(implementation)``: in this process (the Python API: ``assert_conforms``, pytest helpers; it
  trusts the caller's code);
* ``WorkerHost("module[:attr]")``: a Python implementation in a worker process of its own (``worker.py`` run
  as a script), what ``ovk-check conform MODULE`` uses;
* ``CommandHost("CMD")``: any program, called once per case as ``CMD REQUEST.json RESULT.json`` (``wire.py``).

Every host answers ``declare()`` (the algorithms offered and the scope declared, read before any case: for a
worker in a process of its own that has ended before the first case is sent), ``call(case, limit)`` (a
``CallResult``; with the two process hosts an exit, a crash, a hang past ``limit`` seconds or a monkeypatch
happens in another process and fails that call only), ``cancel()`` (from any thread: ends the running
process and its process group) and ``close()`` (ends every process, removes its ``ovk-conform-*`` folder). A
process host makes that folder when it first needs it and removes it once it has declared (no process of the
implementation runs then): while the oracle computes its expected values no folder exists, and a run killed then
(SIGKILL: no time to clean up) leaves none behind. It holds a lock on its folder (``ovk_ref.atomic_file.hold``)
and, when it makes it, removes the folders of oracles killed while theirs existed.
"""
from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ovk_conform import limits, wire
from ovk_conform.protocol import (
    ALGORITHMS,
    declared_scope,
    implementation_name,
    offered,
)
from ovk_conform.wire import CallResult, MalformedMessage
from ovk_conform.worker import call_function
from ovk_ref import atomic_file

WORKER_SCRIPT = Path(__file__).resolve().with_name("worker.py")
#: a process host's folder for the case and result files, in the temporary folder
FOLDER_PREFIX = f"ovk-conform-{atomic_file.HELD}-"
#: longest line the worker may write on its protocol channel
MAX_LINE = 1 << 20


@dataclass
class Declaration:
    """What an implementation said before its first case: the algorithms it has a function for, the scope it
    declares (as given; None when it declares none), where the declaration comes from, or why it could not be
    read."""

    offers: tuple
    scope: object = None
    source: str = "none declared"
    error: str | None = None


class InProcessHost:
    def __init__(self, implementation):
        self.implementation = implementation
        self.name = implementation_name(implementation)

    def declare(self) -> Declaration:
        offers = tuple(name for name in ALGORITHMS if name in offered(self.implementation))
        scope = declared_scope(self.implementation)
        return Declaration(offers, scope, "its conformance_scope" if scope is not None else "none declared")

    def call(self, case, limit: float | None = None, warm_up: bool = True) -> CallResult:
        result = call_function(offered(self.implementation)[case.algorithm], case.algorithm, case.X, case.Y,
                               case.call_arguments())
        return CallResult(fields=result.get("fields", {}), error=result.get("error"),
                          mutated=result.get("mutated", []), seconds=result["seconds"], process="in-process")

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def end_group(process: subprocess.Popen) -> None:
    """End ``process`` and every process of its group (started with ``start_new_session``: its children too)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


class _ProcessHost:
    def __init__(self):
        self.directory = None
        self.held = contextlib.ExitStack()
        self.count = 0
        self.lock = threading.Lock()
        self.running = None
        self.cancelled = False

    @property
    def folder(self) -> Path:
        """The host's ``ovk-conform-*`` folder, made now if there is none: held (``atomic_file.holding``) until it is
        removed, and the folders of killed oracles, which no live one holds, removed beside it."""
        if self.directory is None:
            self.directory = tempfile.TemporaryDirectory(prefix=FOLDER_PREFIX)
            self.held.enter_context(atomic_file.holding(self.directory.name))
            atomic_file.remove_abandoned(Path(self.directory.name).parent, FOLDER_PREFIX, folders=True)
        return Path(self.directory.name)

    def _remove_folder(self) -> None:
        if self.directory is not None:
            self.held.close()
            self.directory.cleanup()
            self.directory = None

    def _files(self, case) -> tuple[Path, Path]:
        self.count += 1
        request, result = self.folder / f"case-{self.count}.json", self.folder / f"result-{self.count}.json"
        request.write_text(json.dumps(case if isinstance(case, dict) else wire.request(case)))
        return request, result

    def _launch(self, argv, **options) -> subprocess.Popen:
        with self.lock:
            if self.cancelled:
                raise _Cancelled()
            self.running = subprocess.Popen(argv, start_new_session=True, **options)
            return self.running

    def _end(self, process) -> None:
        end_group(process)
        with self.lock:
            if self.running is process:
                self.running = None

    def cancel(self) -> None:
        """End the running process and its group (any thread); no process is started after this."""
        with self.lock:
            self.cancelled = True
            process = self.running
        if process is not None:
            end_group(process)

    def close(self) -> None:
        self.cancel()
        self._remove_folder()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Cancelled(Exception):
    pass


def _tail(file) -> str:
    """The last lines of a stderr file, for a message."""
    file.seek(0, os.SEEK_END)
    file.seek(max(0, file.tell() - 4096))
    lines = file.read().decode(errors="replace").strip().splitlines()[-3:]
    return " | ".join(lines)


class CommandHost(_ProcessHost):
    """``CMD REQUEST RESULT`` per case (``shlex``-split, no shell); its stderr kept for messages. ``scope`` is the
    scope given on the command line (``--scope``); without it the command is asked the describe request (for at
    most DESCRIBE_SECONDS, or ``timeout``)."""

    def __init__(self, command: str, scope=None, timeout: float | None = None):
        if not isinstance(command, str) or not shlex.split(command):
            raise ValueError(f"command must be a non-empty command line, got {command!r}")
        super().__init__()
        self.command = shlex.split(command)
        self.name = command
        self.scope = scope
        self.describe_limit = limits.DESCRIBE_SECONDS if timeout is None else min(timeout, limits.DESCRIBE_SECONDS)

    def _run(self, request, limit: float) -> tuple[CallResult, Path]:
        """Run the command on one request; (the failure, or an empty CallResult when it exited 0, and the result path)."""
        request_path, result_path = self._files(request)
        started = time.perf_counter()
        with tempfile.TemporaryFile(dir=self.folder) as stderr:
            try:
                process = self._launch(self.command + [str(request_path), str(result_path)], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=stderr)
            except OSError as error:
                return CallResult(error=f"command cannot be started: {error}"), result_path
            try:
                process.wait(timeout=limit)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            self._end(process)        # its group too: nothing it started outlives the call
            seconds = time.perf_counter() - started
            if timed_out:
                return CallResult(error=f"timed out after {limit:.3g} s", seconds=seconds, process=process.pid,
                                  timed_out=True), result_path
            if process.returncode != 0:
                return CallResult(error=f"command exited with code {process.returncode}: {_tail(stderr)}",
                                  seconds=seconds, process=process.pid), result_path
        return CallResult(seconds=seconds, process=process.pid), result_path

    def declare(self) -> Declaration:
        if self.scope is not None:
            return Declaration(ALGORITHMS, self.scope, "--scope")
        try:
            failure, result_path = self._run(wire.DESCRIBE_REQUEST, self.describe_limit)
            if failure.error is None:
                answer = wire.read_message(result_path, wire.MESSAGE_BYTES, "answer to the describe request")
                if "scope" in answer:
                    return Declaration(ALGORITHMS, answer["scope"], "its answer to the describe request")
        except (FileNotFoundError, MalformedMessage):
            pass
        finally:
            self._remove_folder()
        return Declaration(ALGORITHMS)   # a command that does not describe itself declares every case

    def call(self, case, limit: float, warm_up: bool = True) -> CallResult:
        try:
            outcome, result_path = self._run(case, limit)
        except _Cancelled:
            return CallResult(error="not run: the run was cancelled")
        if outcome.error is not None:
            return outcome
        result = wire.read_result(result_path, wire.result_size_limit(case))
        result.seconds, result.process = outcome.seconds, outcome.process
        return result


class WorkerHost(_ProcessHost):
    """A Python implementation in a worker process that stays up between cases and is restarted after it exits,
    crashes or times out. Lines on the worker's protocol channel are JSON (``worker.py``)."""

    def __init__(self, spec: str, scope=None):
        super().__init__()
        self.spec, self.name, self.scope = spec, spec, scope
        self.process = None
        self.stderr = None
        self.buffer = b""
        self.declaration = None
        self.startup_failure = None
        self.warm = set()

    def _start(self) -> dict:
        """Start a worker; its first message (the declaration), or a reason it died."""
        self.stderr = tempfile.TemporaryFile(dir=self.folder)
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
        self.process = self._launch([sys.executable, str(WORKER_SCRIPT), self.spec], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=self.stderr, env=environment)
        self.buffer = b""
        self.warm = set()
        message = self._receive(limits.STARTUP_SECONDS)
        if isinstance(message, dict) and "usage" in message:
            self._stop()
            raise ValueError(message["usage"])      # MODULE[:ATTR] cannot be loaded: a usage error
        if not isinstance(message, dict) or "offers" not in message:
            reason = self._death("while importing the implementation", message, limits.STARTUP_SECONDS)
            self._stop()
            raise _WorkerDied(reason)
        return message

    def _death(self, when: str, message, timeout: float) -> str:
        if isinstance(message, dict) and "fatal" in message:
            return message["fatal"]
        if message == "timeout":
            return f"timed out after {timeout:.3g} s {when}"
        code = self.process.poll()
        if code is None:
            return f"broke the worker protocol {when}"
        tail = _tail(self.stderr)
        return f"the implementation's process exited with code {code} {when}" + (f": {tail}" if tail else "")

    def _receive(self, timeout: float):
        """The next protocol message, None at end of file, "timeout" after ``timeout`` seconds; a line is read
        byte-wise as it comes, so a worker that writes half a line and hangs still times out."""
        deadline = time.monotonic() + timeout
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                return {"fatal": f"broke the worker protocol (a line longer than {MAX_LINE} bytes)"}
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                return "timeout"
            chunk = os.read(descriptor, 65536)
            if not chunk:
                self.process.wait()
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return {"fatal": f"broke the worker protocol (wrote {line[:80]!r})"}
        return message if isinstance(message, dict) else {"fatal": f"broke the worker protocol (wrote {line[:80]!r})"}

    def _stop(self) -> None:
        if self.process is not None:
            self._end(self.process)
            self.process.stdout.close()
            self.process.stdin.close()
            self.stderr.close()
            self.process = None

    def declare(self) -> Declaration:
        """The scope given (``--scope``: no code of the implementation runs), or the declaration read in a worker
        of its own, ended before this returns."""
        if self.scope is not None:
            return Declaration(ALGORITHMS, self.scope, "--scope")
        try:
            message = self._start()
        except _WorkerDied as died:
            self.startup_failure = str(died)
            return Declaration(ALGORITHMS, error=str(died))
        finally:
            self._stop()
            self._remove_folder()
        self.declaration = message
        offers = tuple(name for name in ALGORITHMS if name in message["offers"])
        if "scope_error" in message:
            return Declaration(offers, error=f"its conformance_scope raised {message['scope_error']}")
        scope = message.get("scope")
        return Declaration(offers, scope, "its conformance_scope" if scope is not None else "none declared")

    def call(self, case, limit: float, warm_up: bool = True) -> CallResult:
        """``warm_up``: a first call of the algorithm in this process gets FIRST_CALL_SECONDS more."""
        if self.startup_failure is not None:
            return CallResult(error=self.startup_failure)
        try:
            if self.process is None:
                message = self._start()
                if self.declaration is not None and message != self.declaration and self.scope is None:
                    self._stop()
                    return CallResult(error="declared another scope or other algorithms in another process")
        except _WorkerDied as died:
            return CallResult(error=str(died))
        except _Cancelled:
            return CallResult(error="not run: the run was cancelled")
        request, result = self._files(case)
        if case.algorithm not in self.warm and warm_up:
            limit += limits.FIRST_CALL_SECONDS
        self.warm.add(case.algorithm)
        started = time.perf_counter()
        try:
            self.process.stdin.write((json.dumps({"request": str(request), "result": str(result)}) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            pass      # the worker is gone: _receive says how
        message = self._receive(limit)
        seconds = time.perf_counter() - started
        pid = self.process.pid
        if not (isinstance(message, dict) and message.get("done") is True):
            reason = self._death(f"during case {case.name}", message, limit)
            self._stop()
            return CallResult(error=reason, seconds=seconds, process=pid, timed_out=message == "timeout")
        outcome = wire.read_result(result, wire.result_size_limit(case))
        reported = message.get("seconds")
        outcome.seconds = reported if isinstance(reported, (int, float)) and not isinstance(reported, bool) else seconds
        outcome.process = pid
        return outcome

    def close(self) -> None:
        self.cancel()
        self._stop()
        self._remove_folder()


class _WorkerDied(Exception):
    pass
