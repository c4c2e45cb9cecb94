"""The PROXY protocol in front of the SSH listener (``lamma serve --proxy-protocol``).

Behind a TCP load balancer every connection comes from the balancer's address, so the
room's per-address limits and address bans would hold all players together. HAProxy
(``send-proxy`` / ``send-proxy-v2``) and most network load balancers can prepend the
client's address to each connection in a PROXY protocol header (HAProxy's
``doc/proxy-protocol.txt``: version 1 is one text line, version 2 a binary block); with
the option on, every connection must begin with one, and the room takes the address in
it for the peer's.

How it sits under asyncssh (2.24, pinned), which knows nothing of the protocol:
``asyncssh.listen`` accepts a ``tunnel`` object with ``create_server(session_factory,
host, port)`` (its ``_TunnelListenerProtocol``), which is how it listens through another
SSH connection; ``ProxyListener`` is one that listens on plain TCP itself. Each accepted
connection first gets a ``HeaderReader``, which reads the header and nothing else; then
it goes through the room's admission (server/admission.py: it may wait for a place among
its address's handshakes, the address being the header's), and the SSH connection is made by asyncssh's own factory, told the client's address with
its public ``set_extra_info(peername=...)`` (``SSHConnection.get_extra_info`` answers
from those before asking the transport), given the socket's transport with asyncio's
``set_protocol`` and fed the bytes that came after the header. From there the
connection is exactly what it is without the option: no wrapper in the data path.
asyncssh's own view of the peer (its log lines, options the room does not use such as
its ``authorized_client_keys``) stays the balancer's.

The header is hostile input until proven otherwise: bytes that cannot begin a header
close the connection at once, a version 1 line is at most 107 bytes and a version 2
block at most ``16 + V2_MAX_LENGTH``, a header that has not arrived whole after
``Limits.proxy_header_timeout`` seconds closes it, and at most ``Limits.proxy_pending``
connections wait for theirs at once. Nothing here blocks: a ``HeaderReader`` only looks
at what asyncio hands it.

The protocol lets whoever can reach the port say any address (the specification: "the
receiver SHOULD ensure proper access filtering so that only trusted proxies are allowed
to use this protocol"), so only the balancer may reach it; ``--proxy-from CIDR,...``
makes the room check that itself, closing any connection from elsewhere before it
reads a byte.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .limits import address_key

log = logging.getLogger("lamma.proxy")

V1_PREFIX = b"PROXY "
V1_MAX = 107                    # the longest line the specification allows, CRLF included
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_HEADER = 16                  # signature, version and command, family, length
# What may follow the 16 bytes: the addresses (12 for IPv4, 36 for IPv6, 216 for Unix)
# and TLVs (ALPN, authority, unique id, TLS details, a cloud's endpoint id: HAProxy and
# the clouds send a few hundred bytes at most). The field could say 65535.
V2_MAX_LENGTH = 2048
WARN_EVERY = 60.0               # refused headers are said in the log at most this often

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class HeaderError(ValueError):
    """Not a PROXY protocol header: the connection is closed."""


@dataclass(frozen=True)
class Header:
    size: int                           # bytes it took at the start of the stream
    source: tuple[str, int] | None      # the client; None: keep the real peer
                                        # (v1 UNKNOWN, v2 LOCAL or a family not relayed)


def parse(data: bytes) -> Header | None:
    """The header at the start of ``data``; None if more bytes are needed to tell.
    Raises HeaderError as soon as ``data`` cannot begin a valid header."""
    if not data:
        return None
    if data[0] == V1_PREFIX[0]:
        return _parse_v1(data)
    if data[0] == V2_SIGNATURE[0]:
        return _parse_v2(data)
    raise HeaderError("no PROXY header")


def _parse_v1(data: bytes) -> Header | None:
    if not data.startswith(V1_PREFIX[:len(data)]):
        raise HeaderError("no PROXY header")
    end = data.find(b"\n", 0, V1_MAX)
    if end < 0:
        if len(data) >= V1_MAX:
            raise HeaderError(f"PROXY v1 line longer than {V1_MAX} bytes")
        return None
    if end < len(V1_PREFIX) or data[end - 1] != 0x0D:
        raise HeaderError("PROXY v1 line not ended by CRLF")
    line = data[:end - 1]
    if b"\r" in line:
        raise HeaderError("PROXY v1 line not ended by CRLF")
    parts = line.split(b" ")
    if parts[1] == b"UNKNOWN":           # anything after it, up to CRLF, is ignored
        return Header(end + 1, None)
    if len(parts) != 6 or parts[1] not in (b"TCP4", b"TCP6"):
        raise HeaderError("malformed PROXY v1 line")
    kind = ipaddress.IPv4Address if parts[1] == b"TCP4" else ipaddress.IPv6Address
    try:
        source = kind(parts[2].decode("ascii"))
        kind(parts[3].decode("ascii"))
    except ValueError:                  # UnicodeDecodeError and AddressValueError are
        raise HeaderError("bad address in PROXY v1 line") from None
    port = _port(parts[4])
    _port(parts[5])
    return Header(end + 1, (str(source), port))


def _port(text: bytes) -> int:
    """A decimal port, 0–65535, without leading zeros (the specification's words)."""
    if not (text.isdigit() and len(text) <= 5) or (len(text) > 1 and text[0] == 0x30):
        raise HeaderError("bad port in PROXY v1 line")
    port = int(text)
    if port > 65535:
        raise HeaderError("bad port in PROXY v1 line")
    return port


def _parse_v2(data: bytes) -> Header | None:
    if not data.startswith(V2_SIGNATURE[:len(data)]):
        raise HeaderError("no PROXY header")
    if len(data) < V2_HEADER:
        return None
    version, command = data[12] >> 4, data[12] & 0x0F
    family, transport = data[13] >> 4, data[13] & 0x0F
    if version != 2:
        raise HeaderError(f"PROXY v2 header with version {version}")
    if command > 1:
        raise HeaderError(f"PROXY v2 header with command {command}")
    if family > 3 or transport > 2:
        raise HeaderError("PROXY v2 header with an unknown address family or protocol")
    length = int.from_bytes(data[14:16], "big")
    if length > V2_MAX_LENGTH:
        raise HeaderError(f"PROXY v2 header of {V2_HEADER + length} bytes "
                          f"(at most {V2_HEADER + V2_MAX_LENGTH})")
    if len(data) < V2_HEADER + length:
        return None
    size = V2_HEADER + length
    if command == 0:                    # LOCAL: the balancer's own (a health check)
        return Header(size, None)
    block = data[V2_HEADER:size]
    if (family, transport) == (1, 1):   # TCP over IPv4
        if length < 12:
            raise HeaderError("PROXY v2 header too short for its IPv4 addresses")
        return Header(size, (str(ipaddress.IPv4Address(block[0:4])),
                             int.from_bytes(block[8:10], "big")))
    if (family, transport) == (2, 1):   # TCP over IPv6
        if length < 36:
            raise HeaderError("PROXY v2 header too short for its IPv6 addresses")
        return Header(size, (str(ipaddress.IPv6Address(block[0:16])),
                             int.from_bytes(block[32:34], "big")))
    # UNSPEC, UDP or Unix: valid, and not a TCP client's address. The specification lets
    # a receiver fall back to the real endpoints here.
    return Header(size, None)


def parse_networks(text: str) -> tuple[Network, ...]:
    """``--proxy-from``: comma-separated CIDRs or addresses (a bare address is one host)."""
    networks = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"not an address or CIDR: {part!r}") from None
    if not networks:
        raise ValueError("no address or CIDR given")
    return tuple(networks)


def _ip(peer: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(str(peer[0]).split("%")[0])
    except (TypeError, IndexError, ValueError):
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped           # a dual-stack listener's view of an IPv4 peer
    return ip


class ProxyListener:
    """Given to ``asyncssh.listen`` as its ``tunnel``: listens on TCP itself and hands
    each connection to asyncssh once its PROXY header is read."""

    def __init__(self, *, timeout: float, pending_max: int,
                 trusted: Sequence[Network] = (), reuse_port: bool = False,
                 pending_per_address: int = 0, admit: Callable[..., None] | None = None,
                 refusals: Any = None):
        self.timeout = timeout
        self.refusals = refusals        # server/logs.py's Refusals: counted and logged
        # Where a connection goes once its header is read: the room's admission
        # (server/admission.py), or straight to asyncssh.
        self.admit = admit
        self.pending_max = pending_max
        self.trusted = tuple(trusted)
        self.reuse_port = reuse_port
        self.pending = 0                # connections waiting for their header now
        # Without --proxy-from anyone may reach the port: waiting ones are also capped
        # per address (0: no cap), or one client would take every place from the
        # balancer's connections (issue 30: 512 that never sent a header did).
        self.pending_per_address = 0 if self.trusted else pending_per_address
        self.pending_from: dict[str, int] = {}
        self.refused = 0                # since the last warning in the log
        self._warned = 0.0
        self.session_factory: Callable[[str, int], Any] | None = None

    async def create_server(self, session_factory: Callable[[str, int], Any],
                            listen_host: str, listen_port: int) -> asyncio.Server:
        self.session_factory = session_factory
        loop = asyncio.get_running_loop()
        # As asyncssh's own listener: passive look-up, its backlog.
        return await loop.create_server(
            lambda: HeaderReader(self), listen_host, listen_port,
            flags=socket.AI_PASSIVE, backlog=100, reuse_port=self.reuse_port or None)

    def trusts(self, peer: Any) -> bool:
        if not self.trusted:
            return True
        ip = _ip(peer)
        return ip is not None and any(ip in net for net in self.trusted)

    def refuse(self, peer: Any, reason: str) -> None:
        """Said in the log: each at INFO, and a WARNING at most every WARN_EVERY
        seconds (a balancer without ``send-proxy``, or left out of ``--proxy-from``,
        has every connection closed and should be noticed; a flood of hostile ones
        should not flood the log)."""
        where = peer[0] if isinstance(peer, tuple) and peer else "?"
        if self.refusals is not None:
            self.refusals.note("proxy", f"closed before SSH: {reason}", str(where))
        else:
            log.info("closed a connection from %s: %s", where, reason)
        self.refused += 1
        now = time.monotonic()
        if now - self._warned >= WARN_EVERY:
            log.warning("--proxy-protocol: closed %d connection(s) before SSH (the latest "
                        "from %s: %s); the balancer must send a PROXY header (HAProxy: "
                        "send-proxy-v2 on its server lines) and, with --proxy-from, be "
                        "named there", self.refused, where, reason)
            self.refused = 0
            self._warned = now


class HeaderReader(asyncio.Protocol):
    """One accepted connection until its PROXY header is read."""

    def __init__(self, listener: ProxyListener):
        self.listener = listener
        self.transport: asyncio.Transport | None = None
        self.peer: Any = None
        self.buffer = bytearray()
        self.timer: asyncio.TimerHandle | None = None
        self.counted = False
        self.where = "?"                # the TCP peer's address_key

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.peer = transport.get_extra_info("peername")
        self.where = address_key(str(self.peer[0])) if self.peer else "?"
        lst = self.listener
        if not lst.trusts(self.peer):
            self._refuse("not from an address --proxy-from names")
        elif lst.pending >= lst.pending_max:
            self._refuse(f"{lst.pending} connections already wait for their header")
        elif (lst.pending_per_address
              and lst.pending_from.get(self.where, 0) >= lst.pending_per_address):
            self._refuse(f"{lst.pending_per_address} connections from this address already "
                         "wait for their header")
        else:
            lst.pending += 1
            if lst.pending_per_address:
                lst.pending_from[self.where] = lst.pending_from.get(self.where, 0) + 1
            self.counted = True
            self.timer = asyncio.get_running_loop().call_later(
                lst.timeout, self._refuse, f"no PROXY header within {lst.timeout:g} s")

    def data_received(self, data: bytes) -> None:
        transport = self.transport
        if transport is None:
            return
        self.buffer += data
        try:
            header = parse(bytes(self.buffer))
        except HeaderError as e:
            self._refuse(str(e))
            return
        if header is None:
            return
        rest = bytes(self.buffer[header.size:])
        peer = self.peer
        self._release()
        factory = self.listener.session_factory
        assert factory is not None
        from .admission import hand_over
        (self.listener.admit or hand_over)(factory, transport, header.source, peer, rest)

    def eof_received(self) -> bool:
        self._refuse("closed before its PROXY header")
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._release()

    def _refuse(self, reason: str) -> None:
        transport = self.transport
        if transport is None:
            return
        self.listener.refuse(self.peer, reason)
        self._release()
        transport.abort()

    def _release(self) -> None:
        """Done waiting: by the header, a refusal or the connection's end."""
        self.transport = None
        self.buffer = bytearray()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.counted:
            self.counted = False
            lst = self.listener
            lst.pending -= 1
            if lst.pending_per_address:
                left = lst.pending_from.get(self.where, 1) - 1
                if left > 0:
                    lst.pending_from[self.where] = left
                else:
                    lst.pending_from.pop(self.where, None)
