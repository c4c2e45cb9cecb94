"""One TCP send per screen update, not two.

asyncssh writes every SSH packet with its own ``transport.write``, and before
each data packet it sends an empty SSH_MSG_IGNORE packet (its measure against
traffic analysis, kept here).  With TCP_NODELAY, which asyncssh sets, a frame
of the table screen was therefore two ``send()`` system calls and two TCP
segments on the wire: ~4 % of the server's CPU per move, and twice the
packets a slow link carries.  ``Coalescing`` gathers the packets written in
one go and sends them with one call: the SSH driver flushes it right after a
frame (``flush``), and anything else written (JSON lines, asyncssh's own
packets) goes out at the end of the loop iteration.  The bytes and their
order are unchanged.

asyncssh keeps its transport in the private ``SSHConnection._transport``
(2.24.1, pinned); ``tests/test_wire.py`` checks that it still does and that a
session's bytes arrive whole through the wrapper.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh

# The ciphers this server offers: AES-GCM, then AES-CTR for older clients.  A client
# takes the first cipher of its own list that the server offers, and OpenSSH and
# asyncssh put chacha20-poly1305 first; asyncssh implements it in Python around
# several OpenSSL calls a packet (~20 µs to seal a frame's packet on this machine,
# AES-GCM ~4 µs, one call), and a frame is two packets.  So it is not offered: the
# bytes the terminal gets are the same, the server's CPU per move is ~0.5 ms less at
# a table of four (tests/bench/server_bench.py).  OpenSSH has had AES-GCM since 6.2
# (2013); AES-CTR is what every SSH client speaks.
ENCRYPTION_ALGS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
                   "aes128-ctr", "aes192-ctr", "aes256-ctr")


class Coalescing:
    """A write transport that joins the writes of one moment into one."""

    __slots__ = ("_loop", "_parts", "_scheduled", "_transport", "packets", "sends")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._parts: list[bytes] = []
        self._scheduled = False
        self.packets = 0            # writes asyncssh made (one per SSH packet) ...
        self.sends = 0              # ... and writes given to the real transport

    def write(self, data: bytes) -> None:
        self.packets += 1
        self._parts.append(data)
        if not self._scheduled:
            self._scheduled = True
            try:
                self._loop.call_soon(self.flush)
            except RuntimeError:        # the loop is closing: send it now
                self.flush()

    def flush(self) -> None:
        self._scheduled = False
        if not self._parts:
            return
        data = b"".join(self._parts) if len(self._parts) > 1 else self._parts[0]
        self._parts.clear()
        if not self._transport.is_closing():
            self.sends += 1
            self._transport.write(data)

    def close(self) -> None:
        self.flush()                # a disconnect message written just before goes out
        self._transport.close()

    def abort(self) -> None:
        self._parts.clear()         # as the real abort: what is not sent is dropped
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def coalesce(conn: asyncssh.SSHServerConnection) -> None:
    """Put ``Coalescing`` under ``conn`` (called as the connection is made)."""
    transport = getattr(conn, "_transport", None)
    if transport is None or isinstance(transport, Coalescing):
        return
    setattr(conn, "_transport", Coalescing(transport, asyncio.get_running_loop()))  # noqa: B010


def flush(conn: object) -> None:
    """Send what ``conn`` has gathered now (after a frame)."""
    transport = getattr(conn, "_transport", None)
    if isinstance(transport, Coalescing):
        transport.flush()
