"""server/wire.py: a frame's SSH packets leave in one TCP send (issue 12's CPU per move)."""

from __future__ import annotations

import asyncio
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


async def test_packets_written_together_leave_in_one_send_in_order():
    real = Recorder()
    t = wire.Coalescing(real, asyncio.get_running_loop())  # type: ignore[arg-type]
    t.write(b"ignore-packet")
    t.write(b"data-packet")
    assert real.writes == []                     # held until flushed ...
    t.flush()
    assert real.writes == [b"ignore-packetdata-packet"] and t.sends == 1
    t.write(b"later")                            # ... or until the loop turns
    await asyncio.sleep(0)
    assert real.writes[-1] == b"later" and t.sends == 2
    assert t.get_extra_info("peername") == ("127.0.0.1", 1)   # the rest is the real one's


async def test_close_sends_what_was_written_and_abort_drops_it():
    real = Recorder()
    t = wire.Coalescing(real, asyncio.get_running_loop())  # type: ignore[arg-type]
    t.write(b"disconnect")
    t.close()
    assert real.writes == [b"disconnect"] and real.closed
    real2 = Recorder()
    t2 = wire.Coalescing(real2, asyncio.get_running_loop())  # type: ignore[arg-type]
    t2.write(b"never")
    t2.abort()
    await asyncio.sleep(0)
    assert real2.writes == [] and real2.aborted


def test_asyncssh_still_writes_every_packet_through_its_transport():
    """The private this module relies on (asyncssh pinned at 2.24.1): update
    server/wire.py if this fails after an upgrade."""
    source = inspect.getsource(asyncssh.connection.SSHConnection._send)
    assert "self._transport.write(data)" in source


async def test_a_real_session_runs_over_it_one_send_per_frame(lamma_server):
    srv = lamma_server
    c = await srv.pty_client("wira")
    try:
        await c.wait_for("card room")
        app = next(a for a in srv.room.apps if a.member.name == "wira")
        conn = app.ssh_process.get_extra_info("connection")
        transport = conn._transport
        assert isinstance(transport, wire.Coalescing)
        sends, packets = transport.sends, transport.packets
        c.press("n")                                 # the new-table screen
        await c.wait_for("New table")
        await c.quiet(0.2)
        sends, packets = transport.sends - sends, transport.packets - packets
        # each frame is two SSH packets (an SSH_MSG_IGNORE, then the data), one send
        assert sends >= 1 and packets >= 2 * sends
    finally:
        await c.close()


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
