"""Helpers of the fault-injection tests: ``ovk-check`` as a real process in its own process group, its stderr read
as it comes, and the process table of that group (every process the run starts inherits the group: the forkserver,
its workers and the resource tracker).

Every wait polls with a deadline: a loaded machine is slow, never wrong.
"""
from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: seconds a run gets to reach the point where a test stops it (imports and the forkserver on a loaded machine)
STARTUP_SECONDS = 120
#: seconds the processes of a stopped run get to be gone (the issue's promise)
GONE_SECONDS = 5.0


def group_table(group: int) -> list[tuple[int, int, str]]:
    """``(pid, parent pid, command)`` of every live process of the process group ``group`` (zombies excluded: they
    have ended)."""
    table = subprocess.run(["ps", "-ww", "-A", "-o", "pid=,ppid=,pgid=,stat=,args="], capture_output=True, text=True,
                           check=True).stdout
    rows = [line.split(None, 4) for line in table.splitlines()]
    return [(int(row[0]), int(row[1]), row[4] if len(row) > 4 else "") for row in rows
            if len(row) >= 4 and row[2] == str(group) and not row[3].startswith("Z")]


def group_processes(group: int) -> list[str]:
    """``"pid command"`` of every live process of the process group ``group``."""
    return [f"{pid} {command}" for pid, _, command in group_table(group)]


def wait_until(condition, seconds: float, interval: float = 0.05) -> bool:
    """Poll ``condition()`` until it is true or ``seconds`` have passed; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)


class Run:
    """``python -m ovk_cli ARGS`` in a new session (its pid is its process group), stderr collected by a
    thread, stdout discarded unless ``stdout`` is given."""

    def __init__(self, args, *, cwd=ROOT, stdout=subprocess.DEVNULL, env=None):
        self.process = subprocess.Popen([sys.executable, "-m", "ovk_cli", *args], cwd=cwd, stdout=stdout,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
        self.group = self.process.pid
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        with self.process.stderr:
            for line in self.process.stderr:
                self.stderr.append(line)
                self.lines.put(line)
        self.lines.put(None)

    def wait_for_line(self, text: str, seconds: float = STARTUP_SECONDS) -> str:
        """The first stderr line containing ``text`` (AssertionError if the run ends or the deadline passes first)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"the run ended (exit {self.process.wait()}) before printing {text!r}: "
                                     f"{''.join(self.stderr)[-2000:]}")
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} within {seconds} s: {''.join(self.stderr)[-2000:]}")

    def wait_for_processes(self, count: int, seconds: float = STARTUP_SECONDS) -> None:
        """Until the group holds at least ``count`` live processes."""
        assert wait_until(lambda: len(group_processes(self.group)) >= count, seconds, interval=0.2), \
            f"the run never had {count} processes: {group_processes(self.group)}"

    def signal(self, number: int, whole_group: bool = False) -> None:
        (os.killpg if whole_group else os.kill)(self.group, number)

    def finish(self, seconds: float = STARTUP_SECONDS) -> int:
        """The exit status once the run has ended and its stderr is read to the end."""
        code = self.process.wait(timeout=seconds)
        self.reader.join(timeout=seconds)
        return code

    def text(self) -> str:
        return "".join(self.stderr)

    def leftovers(self) -> list[str]:
        """What is left of the group ``GONE_SECONDS`` after the main process ended (polled; [] once empty)."""
        self.process.wait(timeout=STARTUP_SECONDS)
        wait_until(lambda: not group_processes(self.group), GONE_SECONDS, interval=0.1)
        return group_processes(self.group)

    def kill_group(self) -> None:
        """End whatever is left of the group (so that a failing test leaves nothing behind)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.group, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        self.reader.join(timeout=30)


@contextlib.contextmanager
def ovk_check(args, **options):
    """A ``Run`` that is killed, with its whole group, when the block ends."""
    run = Run(args, **options)
    try:
        yield run
    finally:
        run.kill_group()
