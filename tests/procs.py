"""Processes a test starts (``lamma serve`` and the like), and no test can hang on one
(issue 39).

A started server may print other lines before the one a test waits for (a third-party
warning when stderr is merged into stdout, JSON log lines...), so its output is read
line by line until the wanted line, under ONE deadline for the whole wait, never "the
first line"; when the line does not come (the deadline passed, or the output ended) the
failure says so with every line read so far: the server's own account of what went
wrong. Whoever starts a process ends it in a ``finally``: SIGTERM, then SIGKILL after
a short grace.

asyncio processes (``asyncio.create_subprocess_exec``)::

    seen: list[bytes] = []
    try:
        await wait_line(proc.stdout, LISTENING, 20, seen)
        ...
    finally:
        await stop_process(proc)

``subprocess.Popen`` (text or bytes)::

    out = Lines(proc.stdout)        # a daemon thread reads it: no read here blocks
    try:
        out.wait_for(LISTENING, 20)
        ...
    finally:
        stop_popen(proc)
        out.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# What ``lamma serve`` prints once it takes connections (server/cli.py).
LISTENING = "Lamma is listening on "
GRACE = 3.0             # seconds from SIGTERM to SIGKILL when a test ends a process

Want = str | bytes | Callable[[Any], bool]


def _matches(line: str | bytes, want: Want) -> bool:
    if callable(want):
        return bool(want(line))
    if isinstance(line, bytes) and isinstance(want, str):
        want = want.encode()
    elif isinstance(line, str) and isinstance(want, bytes):
        want = want.decode(errors="replace")
    return want in line


def _joined(lines: list) -> str:
    return "".join(x.decode(errors="replace") if isinstance(x, bytes) else x for x in lines)


def _shown(lines: list) -> str:
    text = _joined(lines)
    return text if text.strip() else "(nothing)\n"


def _missing(want: Want, timeout: float, ended: bool, lines: list) -> AssertionError:
    what = getattr(want, "__name__", "a matching line") if callable(want) else repr(want)
    why = "the output ended" if ended else f"not within {timeout:g} s"
    return AssertionError(f"no line with {what} ({why}); every line read:\n{_shown(lines)}")


# --------------------------------------------------------------------------- asyncio
async def wait_line(stream: asyncio.StreamReader, want: Want, timeout: float,
                    seen: list | None = None) -> bytes:
    """Lines from ``stream`` until one contains ``want`` (bytes or str; or a predicate
    of the line), under one deadline of ``timeout`` seconds for the whole wait; returns
    that line. Every line read is appended to ``seen`` (pass the same list to the next
    call to go on where this one stopped). AssertionError with every line in ``seen``
    on end of output or at the deadline."""
    if seen is None:
        seen = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _missing(want, timeout, False, seen)
        try:
            line = await asyncio.wait_for(stream.readline(), left)
        except TimeoutError:
            raise _missing(want, timeout, False, seen) from None
        if not line:
            raise _missing(want, timeout, True, seen)
        seen.append(line)
        if _matches(line, want):
            return line


async def exited(proc: asyncio.subprocess.Process, timeout: float) -> bool:
    """Whether the process ends within ``timeout`` seconds. By its returncode, not
    ``proc.wait()``: that also waits for its pipes to close, which a pipe nobody read
    to its end (or one a child of it inherited) may never do."""
    deadline = time.monotonic() + timeout
    while proc.returncode is None:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def stop_process(proc: asyncio.subprocess.Process | None, grace: float = GRACE) -> None:
    """End an asyncio process if it still runs: SIGTERM, SIGKILL after ``grace``
    seconds. For a ``finally``: never hangs, never raises for a process already gone."""
    if proc is None or proc.returncode is not None:
        return
    # os.kill, not proc.terminate(): that polls the process first, and a poll may reap
    # an exit asyncio's child watcher has not reported yet (which then says 255).
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGTERM)
    if not await exited(proc, grace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        if not await exited(proc, 10):
            raise AssertionError(f"process {proc.pid} did not end after SIGKILL")
    with contextlib.suppress(TimeoutError):     # its pipes' ends, if they come soon
        await asyncio.wait_for(proc.wait(), 1)


# --------------------------------------------------------------- subprocess.Popen
class Lines:
    """Every line of a ``subprocess.Popen`` stream (text or bytes), read by a daemon
    thread as it comes: the process never blocks on a full pipe, and no read here
    waits past its deadline. ``wait_for`` goes through the lines in order, each call
    after the line the last one returned."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.lines: list = []           # every line read so far
        self.ended = False              # the stream's end was read
        self._next = 0                  # the first line wait_for has not looked at
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._pump, daemon=True,
                                        name=f"lines of {stream!r}")
        self._thread.start()

    def _pump(self) -> None:
        try:
            while line := self.stream.readline():
                with self._changed:
                    self.lines.append(line)
                    self._changed.notify_all()
        except (OSError, ValueError):       # closed under us
            pass
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()

    def wait_for(self, want: Want, timeout: float) -> Any:
        """The next line that contains ``want`` (str or bytes, either way for either
        kind of stream; or a predicate of the line), within ``timeout`` seconds;
        AssertionError with every line read so far if it does not come."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                while self._next < len(self.lines):
                    line = self.lines[self._next]
                    self._next += 1
                    if _matches(line, want):
                        return line
                if self.ended:
                    raise _missing(want, timeout, True, self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _missing(want, timeout, False, self.lines)
                self._changed.wait(left)

    def text(self) -> str:
        """Everything read so far, as text."""
        with self._changed:
            return _joined(self.lines)

    def close(self, timeout: float = 5.0) -> bool:
        """Once the process is gone: wait up to ``timeout`` s for the rest of its output
        (a child of it may still hold the pipe), then close the stream. False if the
        output had not ended (the stream is then left to the thread)."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        self.stream.close()
        return True


def stop_popen(proc: subprocess.Popen | None, grace: float = GRACE) -> None:
    """End a ``subprocess.Popen`` if it still runs: SIGTERM, SIGKILL after ``grace``
    seconds. For a ``finally``: never hangs, never raises for a process already gone."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class OtherLoad:
    """How much of the machine other jobs took while a timed stretch ran (Linux
    ``/proc``): a latency bound measured on a quiet machine is multiplied by
    ``factor()`` — cores over the cores left to us — so that the test checks what it
    means (the room's own cost) whatever else runs (a test that fails because the
    machine is busy is a defect). ``pids``: the processes that are the test's own."""

    CAP = 6.0

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.start = self._read()

    @staticmethod
    def _ticks(pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return float(fields[11]) + float(fields[12])     # utime + stime

    def _read(self) -> tuple[float, float, float] | None:
        try:
            cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        except OSError:
            return None
        ticks = [float(x) for x in cpu]
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0.0)
        return sum(ticks), sum(ticks) - idle, sum(self._ticks(p) for p in self.pids)

    def factor(self) -> float:
        end = self._read()
        if self.start is None or end is None or end[0] <= self.start[0]:
            return 1.0
        total, busy, ours = (e - s for e, s in zip(end, self.start, strict=True))
        cores = os.cpu_count() or 1
        others = max(0.0, busy - ours) / total * cores      # cores other jobs kept busy
        return min(self.CAP, cores / max(cores - others, cores / self.CAP))
