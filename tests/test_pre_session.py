"""What a connection may hold before any session starts (issue 30, item 1).

asyncssh keeps a session channel's state from the moment it opens: every ``env``
request (packets up to 256 KB), the terminal type of a ``pty-req``, the channel itself
and its session object, whether or not a shell is ever asked for. A hostile review
took a server from 70 to 833 MB with one guest connection's ``env`` requests, and
nothing was given back after it closed. Here: raw asyncssh channels, as such a client
sends them, against a real server.
"""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import time
import weakref
from pathlib import Path

import asyncssh
import asyncssh.channel
import pytest
from asyncssh.packet import String, UInt32
from conftest import LammaServer
from procs import LISTENING, Lines, stop_popen
from test_session_garbage import collector_off, cycle_garbage, ended, wait_until

from server.connections import GuardedProcess
from server.limits import (
    CHANNELS_PER_CONNECTION,
    ENV_REQUESTS_MAX,
    ENV_VALUE_MAX,
    REFUSED_REQUESTS_MAX,
    TERM_MAX,
)
from server.wire import GuardedChannel

ROOT = Path(__file__).resolve().parents[1]
BIG = b"x" * 200_000


async def guest(port: int, name: str = "mallory") -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=None, agent_path=None, password="x",
                                  preferred_auth="keyboard-interactive")


async def raw_channel(conn: asyncssh.SSHClientConnection) -> asyncssh.SSHClientChannel:
    """A session channel opened and left there: no shell, no command, ever."""
    chan = asyncssh.channel.SSHClientChannel(conn, asyncio.get_running_loop(), "strict",
                                             None, "strict", 2 * 1024 * 1024, 32768)
    await chan._open(b"session")
    return chan


async def env(chan: asyncssh.SSHClientChannel, name: bytes, value: bytes) -> bool | None:
    """An ``env`` request with a reply asked for: True kept, False refused."""
    return await chan._make_request(b"env", String(name), String(value))


async def pty(chan: asyncssh.SSHClientChannel, term: bytes) -> bool | None:
    size = UInt32(80) + UInt32(24) + UInt32(0) + UInt32(0)
    return await chan._make_request(b"pty-req", String(term), size, String(b""))


def of_room(obj: object, room: LammaServer) -> bool:
    conn = obj.get_extra_info("connection")        # type: ignore[attr-defined]
    return conn is not None and getattr(conn.get_owner(), "door", None) is room.room.door


def server_channels(room: LammaServer) -> list[GuardedChannel]:
    return [o for o in gc.get_objects() if isinstance(o, GuardedChannel) and of_room(o, room)]


async def test_only_the_variables_the_room_reads_are_kept(room: LammaServer) -> None:
    conn = await guest(room.port)
    chan = await raw_channel(conn)
    assert await env(chan, b"LANG", b"ar_EG.UTF-8") is True
    assert await env(chan, b"COLORTERM", b"truecolor") is True
    assert await env(chan, b"LC_ALL", b"x" * (ENV_VALUE_MAX + 1)) is False    # too long
    assert await env(chan, b"LANG", BIG) is False                            # too long
    assert await env(chan, b"LD_PRELOAD", b"/tmp/x.so") is False             # not read
    for i in range(20):
        assert await env(chan, b"V%d" % i, BIG) is False
    kept = [c.get_environment() for c in server_channels(room) if c.get_environment()]
    assert kept == [{"LANG": "ar_EG.UTF-8", "COLORTERM": "truecolor"}], kept
    conn.close()


async def test_a_connection_that_keeps_asking_is_closed(room: LammaServer) -> None:
    conn = await guest(room.port)
    chan = await raw_channel(conn)
    for _ in range(ENV_REQUESTS_MAX - 1):           # refused, but no strike yet
        chan._send_request(b"env", String(b"JUNK"), String(BIG))
    assert await env(chan, b"LANG", b"C.UTF-8") is True    # still served
    assert await env(chan, b"LANG", b"C.UTF-8") is False   # past the channel's requests
    for _ in range(REFUSED_REQUESTS_MAX + 5):
        chan._send_request(b"env", String(b"JUNK"), String(BIG))
    await asyncio.wait_for(conn.wait_closed(), 10)


async def test_a_long_terminal_type_is_refused(room: LammaServer) -> None:
    conn = await guest(room.port)
    chan = await raw_channel(conn)
    assert await pty(chan, b"x" * (TERM_MAX + 1)) is False
    assert await pty(chan, BIG) is False
    assert await pty(chan, b"xterm-256color") is True
    conn.close()
    # ... and one that keeps sending them is closed.
    conn = await guest(room.port, "mallory2")
    chan = await raw_channel(conn)
    for _ in range(REFUSED_REQUESTS_MAX):
        chan._send_request(b"pty-req", String(BIG), UInt32(80) + UInt32(24) + UInt32(0)
                           + UInt32(0), String(b""))
    await asyncio.wait_for(conn.wait_closed(), 10)


async def test_channels_are_counted_as_they_open_started_or_not(room: LammaServer) -> None:
    conn = await guest(room.port)
    chans = [await raw_channel(conn) for _ in range(CHANNELS_PER_CONNECTION)]
    with pytest.raises(asyncssh.ChannelOpenError, match="channels open at once"):
        await raw_channel(conn)
    # Closed ones are given back: two closed, two more open.
    for chan in chans[:2]:
        chan.close()
        await chan.wait_closed()
    await wait_until(lambda: len(server_channels(room)) == CHANNELS_PER_CONNECTION - 2)
    chans[:2] = [await raw_channel(conn) for _ in range(2)]
    # A real session still opens beside them? Not past the count: this one is refused.
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.create_process("play", encoding=None)
    conn.close()


async def test_channels_opened_too_fast_are_refused_then_the_connection_closed(
        room: LammaServer) -> None:
    conn = await guest(room.port)
    said = []
    for _ in range(40):
        try:
            chan = await raw_channel(conn)
        except asyncssh.ChannelOpenError as exc:
            said.append(exc.reason)
            continue
        except (asyncssh.Error, OSError):
            break               # closed: it kept asking
        chan.close()
        await chan.wait_closed()
    assert any("too fast" in s for s in said), said
    await asyncio.wait_for(conn.wait_closed(), 10)


async def test_a_closed_connection_leaves_nothing_for_the_collector(
        room: LammaServer) -> None:
    """Channels that never started, some closed before their connection: everything of
    theirs goes by reference counting, so freezing (runtime.gc_task) can never make it
    permanent. Before: every such channel, its session and the connection itself were
    left in cycles."""
    conn = await guest(room.port)
    chans = [await raw_channel(conn) for _ in range(CHANNELS_PER_CONNECTION)]
    for chan in chans:
        await env(chan, b"LANG", b"C.UTF-8")
        await pty(chan, b"xterm")
    refs = [weakref.ref(o) for o in gc.get_objects()
            if isinstance(o, GuardedChannel | GuardedProcess) and of_room(o, room)]
    assert len(refs) == 2 * CHANNELS_PER_CONNECTION
    with collector_off():
        chans[0].close()            # one closed before the connection
        await chans[0].wait_closed()
        conn.close()
        await conn.wait_closed()
        await ended(room)
        assert [r for r in refs if r() is not None] == []
        found = cycle_garbage()
    assert not found, found.most_common(10)


# ------------------------------------------- the whole process, as lamma serve runs
ATTACK = r"""
import asyncio, sys
import asyncssh, asyncssh.channel
from asyncssh.packet import String, UInt32

BIG = b"x" * 200_000

async def one(port, i):
    try:
        conn = await asyncssh.connect("127.0.0.1", port, username=f"m{i}", known_hosts=None,
                                      client_keys=None, agent_path=None, password="x",
                                      preferred_auth="keyboard-interactive")
    except Exception:
        return
    try:
        for _ in range(100):
            chan = asyncssh.channel.SSHClientChannel(conn, asyncio.get_running_loop(),
                "strict", None, "strict", 2 * 1024 * 1024, 32768)
            await chan._open(b"session")
            for k in range(200):
                chan._send_request(b"env", String(b"V%d" % k), String(BIG))
            chan._send_request(b"pty-req", String(BIG), UInt32(80) + UInt32(24)
                               + UInt32(0) + UInt32(0), String(b""))
            chan.write(BIG)
            await asyncio.sleep(0.01)
    except Exception:
        pass
    conn.close()

async def main(port):
    await asyncio.gather(*(one(port, i) for i in range(8)))
    print("done", flush=True)

asyncio.run(main(int(sys.argv[1])))
"""


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_memory_is_given_back_after_hostile_connections_close(tmp_path: Path) -> None:
    """A real ``lamma serve`` (its collector task running as it does in production):
    eight guest connections each try 100 channels, 200 environment variables of 200 KB
    a channel, a 200 KB terminal type and a window's worth of data, then close. Before
    (one connection, 150 MB of env alone): +147 MB, still there after the close."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port),
         "--data", str(tmp_path / "data"), "--keys", str(tmp_path / "keys"),
         "--status-every", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = Lines(server.stdout)
    try:
        out.wait_for(LISTENING, 20)
        time.sleep(1.0)
        before = rss_mb(server.pid)
        attack = subprocess.run([sys.executable, "-c", ATTACK, str(port)], cwd=ROOT,
                                capture_output=True, timeout=120)
        assert b"done" in attack.stdout, attack.stderr[-2000:]
        deadline = time.monotonic() + 15
        while rss_mb(server.pid) - before > 32 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert rss_mb(server.pid) - before <= 32, (before, rss_mb(server.pid))
    finally:
        stop_popen(server, grace=10)
        out.close()


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

