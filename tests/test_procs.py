"""The helpers for the processes tests start (tests/procs.py): the wanted line found
past others, one deadline for the whole wait, and every line read in the failure."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest
from procs import LISTENING, Lines, exited, stop_popen, stop_process, wait_line

# Lines before the one a test waits for, as a server on a fresh machine may print them;
# then lines every 0.05 s for ever (a deadline per line would never pass).
TALKER = r"""
import sys, time
print("/venv/lib/x.py:1: DeprecationWarning: something old", flush=True)
print('{"level": "INFO", "message": "listening soon"}', flush=True)
print("Lamma is listening on 127.0.0.1:2222 (ready in 0.10 s)", flush=True)
print("Host key fingerprint: SHA256:abc", flush=True)
while True:
    print("tick", flush=True)
    time.sleep(0.05)
"""
QUIET = "import time; print('warming up', flush=True); time.sleep(60)"
GONE = "import sys; print('cannot start: no database', flush=True); sys.exit(1)"


async def child(code: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)


def popen(code: str, text: bool) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=text)


async def test_wait_line_passes_over_other_lines_and_goes_on_from_there():
    proc = await child(TALKER)
    try:
        seen: list[bytes] = []
        assert (await wait_line(proc.stdout, LISTENING, 20, seen)).startswith(b"Lamma is")
        assert len(seen) >= 3 and b"DeprecationWarning" in seen[-3]
        said = await wait_line(proc.stdout, b"Host key fingerprint: ", 5, seen)
        assert said == b"Host key fingerprint: SHA256:abc\n"
        assert await wait_line(proc.stdout, lambda line: line == b"tick\n", 5) == b"tick\n"
    finally:
        await stop_process(proc)
    assert proc.returncode is not None


async def test_wait_line_has_one_deadline_and_shows_what_was_read():
    proc = await child(TALKER)
    try:
        started = time.monotonic()
        with pytest.raises(AssertionError) as err:
            await wait_line(proc.stdout, "never said", 0.5)
        assert time.monotonic() - started < 2        # not a deadline per line
        text = str(err.value)
        assert "not within 0.5 s" in text and "DeprecationWarning" in text, text
        assert "Lamma is listening on" in text and "tick" in text, text
    finally:
        await stop_process(proc)


async def test_wait_line_at_the_end_of_the_output_says_so():
    proc = await child(GONE)
    try:
        with pytest.raises(AssertionError) as err:
            await wait_line(proc.stdout, LISTENING, 20)
        assert "the output ended" in str(err.value)
        assert "cannot start: no database" in str(err.value)
    finally:
        await stop_process(proc)
    assert proc.returncode == 1


async def test_stop_process_kills_what_a_sigterm_does_not_end():
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, "
        "signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)",
        stdout=asyncio.subprocess.PIPE)
    await wait_line(proc.stdout, "ready", 20)
    started = time.monotonic()
    await stop_process(proc, grace=0.3)
    assert proc.returncode == -9 and time.monotonic() - started < 5
    await stop_process(proc)                # again, or of one gone: nothing
    assert await exited(proc, 0)


@pytest.mark.parametrize("text", [True, False], ids=["text", "bytes"])
def test_lines_of_a_popen(text):
    proc = popen(TALKER, text)
    out = Lines(proc.stdout)
    try:
        line = out.wait_for(LISTENING, 20)
        assert line.startswith("Lamma is" if text else b"Lamma is")
        assert out.wait_for(b"Host key", 5).startswith("Host key" if text else b"Host key")
        started = time.monotonic()
        with pytest.raises(AssertionError) as err:
            out.wait_for("never said", 0.5)
        assert time.monotonic() - started < 2
        assert "DeprecationWarning" in str(err.value) and "tick" in str(err.value)
        assert "listening soon" in out.text()
    finally:
        stop_popen(proc)
        assert out.close()
    assert proc.returncode is not None


def test_lines_never_block_past_their_deadline_and_see_the_end():
    proc = popen(QUIET, True)
    out = Lines(proc.stdout)
    try:
        started = time.monotonic()
        with pytest.raises(AssertionError) as err:
            out.wait_for(LISTENING, 0.5)
        assert time.monotonic() - started < 2
        assert "warming up" in str(err.value)
    finally:
        stop_popen(proc, grace=0.5)
        out.close()
    proc = popen(GONE, False)
    out = Lines(proc.stdout)
    try:
        with pytest.raises(AssertionError) as err:
            out.wait_for(LISTENING, 20)
        assert "the output ended" in str(err.value) and "no database" in str(err.value)
    finally:
        stop_popen(proc)
        out.close()
