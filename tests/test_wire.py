"""server/wire.py, the fence of asyncssh's privates: a frame is one SSH packet in one TCP
send, a connection closed at once lingers, the channel keeps only the environment the
room reads, what is offered."""

from __future__ import annotations

import asyncio
import contextlib
import inspect

import asyncssh

from server import wire


class Recorder:
    """A transport that keeps what it was given."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 1) if name == "peername" else default


async def test_a_connection_closed_at_once_lingers_instead_of_a_reset():
    """asyncssh aborts its transport as it closes a connection at once (after its
    disconnect message): a QuietConnection's socket lingers instead (``linger``),
    and a transport that cannot linger is aborted as before."""

    class Conn(wire.QuietConnection):
        def __init__(self, transport):           # (only what _force_close reads)
            self._transport = transport
            self._loop = asyncio.get_running_loop()
            self.cleaned: list[object] = []

        def _cleanup(self, exc):
            self.cleaned.append(exc)

    real = Recorder()                 # no set_protocol: cannot linger, so it is aborted
    conn = Conn(real)
    conn._force_close(None)
    assert conn._transport is None
    await asyncio.sleep(0)
    assert real.aborted and conn.cleaned == [None]


async def refused_with_bytes_unread(port: int, extra: int = 4096) -> bytes:
    """A client that sends its version line and more at once, then reads only later
    (as a TCP balancer or a busy client does): what it reads until the refusal's
    words, or the end; then it closes, as an SSH client does on a disconnect."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"SSH-2.0-test\r\n" + b"\0" * extra)
    await asyncio.sleep(0.05)            # the server refuses before reading these
    got = b""
    try:
        async with asyncio.timeout(10):
            while b"from this room" not in got and (data := await reader.read(65536)):
                got += data
    except ConnectionResetError:
        got += b"<reset>"
    except TimeoutError:
        got += b"<neither the words nor the end within 10 s>"
    writer.close()
    return got


async def test_a_refusal_reaches_a_client_whose_bytes_are_still_unread(tmp_path):
    """Closing a socket with bytes unread resets it, and the reset destroyed the
    refusal sent just before (5 of 5 here; through HAProxy about 1 in 10): the server
    now closes its side and drains the client's until it closes too."""
    from conftest import start_room, stop_room

    from server.limits import Limits

    srv = await start_room(tmp_path, limits=Limits(connects_rate=1e9, connects_burst=1e9))
    try:
        srv.room.moderation.admin("ban addr:127.0.0.1 5m spam")
        for _ in range(5):
            got = await refused_with_bytes_unread(srv.port)
            assert b"You are banned from this room" in got, got[-60:]
        for _ in range(50):             # each client closed: so did the server's side
            if not wire._lingering:
                break
            await asyncio.sleep(0.02)
        assert not wire._lingering
    finally:
        await stop_room(srv)


async def test_a_lingering_connection_ends_after_its_time_or_its_bytes(tmp_path, monkeypatch):
    from conftest import start_room, stop_room

    from server.limits import Limits

    monkeypatch.setattr(wire, "LINGER_SECONDS", 0.3)
    monkeypatch.setattr(wire, "LINGER_BYTES", 10_000)
    srv = await start_room(tmp_path, limits=Limits(connects_rate=1e9, connects_burst=1e9))
    try:
        srv.room.moderation.admin("ban addr:127.0.0.1 5m spam")
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(b"SSH-2.0-test\r\n")
        assert b"banned" in await asyncio.wait_for(reader.read(65536), 5)
        await asyncio.sleep(0.05)
        held = list(wire._lingering)
        assert len(held) == 1                        # the client keeps its side open ...
        await asyncio.sleep(0.5)
        assert not wire._lingering                   # ... for LINGER_SECONDS at most
        assert vars(held[0]).get("_read_ready_cb") is None   # and it left no cycle
        writer.close()

        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(b"SSH-2.0-test\r\n")
        assert b"banned" in await asyncio.wait_for(reader.read(65536), 5)
        await asyncio.sleep(0.05)
        assert len(wire._lingering) == 1
        writer.write(b"x" * 20_000)                  # more than LINGER_BYTES: cut at once
        await asyncio.sleep(0.1)
        assert not wire._lingering
        writer.close()

        monkeypatch.setattr(wire, "LINGER_MAX", 0)   # too many lingering: closed at once
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(b"SSH-2.0-test\r\n")
        await asyncio.sleep(0.1)
        assert not wire._lingering
        with contextlib.suppress(ConnectionResetError):    # (with bytes unread: reset)
            while await asyncio.wait_for(reader.read(65536), 0.2):
                pass                                 # closed at once, not after 0.3 s
        writer.close()
    finally:
        await stop_room(srv)


def test_asyncssh_still_writes_every_packet_through_its_transport():
    """The private this module relies on (asyncssh pinned at 2.24.1): update
    server/wire.py if this fails after an upgrade."""
    source = inspect.getsource(asyncssh.connection.SSHConnection._send)
    assert "self._transport.write(data)" in source


async def test_a_real_session_sends_a_frame_as_one_packet_in_one_send(lamma_server):
    srv = lamma_server
    c = await srv.pty_client("wira")
    try:
        await c.wait_for("card room")
        app = next(a for a in srv.room.apps if a.member.name == "wira")
        assert app.surface is app._driver          # the driver is the app's surface
        conn = app.ssh_process.get_extra_info("connection")
        assert type(conn) is wire.QuietConnection
        transport = conn._transport
        sends: list[int] = []
        write = transport.write
        transport.write = lambda data: (sends.append(len(data)), write(data))[1]
        frames = app._driver.frames
        c.press("n")                                 # the new-table screen
        await c.wait_for("New table")
        await c.quiet(0.2)
        # a frame is one SSH packet (no SSH_MSG_IGNORE before it), written in one send
        assert 1 <= app._driver.frames - frames == len(sends)
    finally:
        await c.close()
    for _ in range(200):
        if app.ended:
            break
        await asyncio.sleep(0.01)
    assert app.ended and app.surface is None         # gone with the session


async def test_the_server_sends_no_empty_ignore_packets(lamma_server, monkeypatch):
    """asyncssh puts an empty SSH_MSG_IGNORE before every encrypted packet (RFC 4251
    §9.3.1, against CBC); with GCM and CTR only it is bytes and CPU for nothing."""
    from asyncssh.connection import SSHConnection
    from asyncssh.constants import MSG_IGNORE

    from server.wire import QuietConnection
    handlers = SSHConnection._packet_handlers
    real = handlers[MSG_IGNORE]
    heard = {"client": 0, "server": 0}

    def counting(self, pkttype, pktid, packet):
        heard["client" if self.is_client() else "server"] += 1
        return real(self, pkttype, pktid, packet)

    monkeypatch.setitem(handlers, MSG_IGNORE, counting)
    # The server's connection has its own table (it handles user names itself: wire.py)
    monkeypatch.setitem(QuietConnection._packet_handlers, MSG_IGNORE, counting)
    c = await lamma_server.pty_client("wira")
    try:
        await c.wait_for("card room")
        c.press("n")
        await c.wait_for("New table")
        await c.quiet(0.2)
    finally:
        await c.close()
    assert heard["server"] > 0           # the check counts: asyncssh's client sends them
    assert heard["client"] == 0          # and the room does not


async def test_a_client_that_prefers_chacha20_gets_aes_gcm(lamma_server):
    """chacha20-poly1305 (first in OpenSSH's and asyncssh's lists) costs the server
    ~5 times AES-GCM's CPU a packet in asyncssh: it is not offered."""
    assert asyncssh.encryption.get_default_encryption_algs()[0] == b"chacha20-poly1305@openssh.com"
    conn = await lamma_server.connect("wira")
    try:
        assert conn.get_extra_info("send_cipher") == "aes256-gcm@openssh.com"
        assert conn.get_extra_info("recv_cipher") == "aes256-gcm@openssh.com"
    finally:
        conn.close()
    # a client that speaks only AES-CTR still gets in
    conn = await asyncssh.connect("127.0.0.1", lamma_server.port, username="ctr", known_hosts=None,
                                  client_keys=[lamma_server.key("ctr")], agent_path=None,
                                  preferred_auth="publickey", encryption_algs=["aes128-ctr"])
    try:
        assert conn.get_extra_info("send_cipher") == "aes128-ctr"
    finally:
        conn.close()


def test_asyncssh_still_handles_env_where_the_guard_overrides_it() -> None:
    """wire.GuardedChannel overrides asyncssh's handler of ``env`` requests by its name
    (``_process_<request>_request``); a release that renames it would keep every
    variable again (tests/test_pre_session.py shows that end to end)."""
    import asyncssh

    from server.wire import GuardedChannel

    assert callable(vars(asyncssh.SSHServerChannel).get("_process_env_request"))
    assert "_process_env_request" in vars(GuardedChannel)
